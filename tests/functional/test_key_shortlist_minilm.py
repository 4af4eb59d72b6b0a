"""The key resolver's shortlist with the embedded default's MiniLM: what reaches the LLM port's
decision. A candidate it drops can never be chosen, so a join the rules would make is lost here."""

from __future__ import annotations

import pytest

from agentmem.adapters.local.minilm_embedder import MiniLmEmbedder
from agentmem.adapters.local.rules_llm import RulesLLM
from agentmem.model.beliefs import Cardinality, KeyCandidate, KeyProposal
from agentmem.semantic.fact_types import DEFAULT_FACT_TYPES, FactTypeCatalog
from agentmem.semantic.key_resolver import KeyResolver
from tests.rules_eval import SPLITS, load, score_key_pairs

pytestmark = [pytest.mark.xdist_group("minilm"), pytest.mark.slow]


@pytest.fixture(scope="module")
def resolver() -> KeyResolver:
    return KeyResolver(RulesLLM(), MiniLmEmbedder(), FactTypeCatalog(DEFAULT_FACT_TYPES))


def known(key: str, example: str) -> KeyCandidate:
    return KeyCandidate(
        key=key, description="", example=example, cardinality=Cardinality.SINGLE, declared=False, score=0.0
    )


def test_the_subjects_name_in_its_own_keys_does_not_push_a_declared_key_off_the_shortlist(
    resolver: KeyResolver,
) -> None:
    """From the conversation bench: read by sentence alone, the five keys the subject had (each
    with a sentence naming it) outranked the declared `city`, and `home_city` became a second
    belief beside `city`."""
    proposal = KeyProposal(
        key="home_city", description="", text="Gideon-abernathy's home city is Brno.", value="Brno",
        cardinality=Cardinality.SINGLE,
    )  # fmt: skip
    subjects_keys = [
        known("children", "Gideon-abernathy's children is three."),
        known("favorite_cuisine", "Gideon-abernathy's favorite cuisine is Oaxacan."),
        known("thing", "Gideon-abernathy's thing is open-water swimming."),
        known("diet", "Gideon-abernathy eats vegan."),
        known("interests", "Gideon-abernathy's interests is bonsai."),
    ]
    declared = [
        KeyCandidate(key=t.key, description=t.description, example="", cardinality=t.cardinality,
                     declared=True, score=0.0)
        for t in DEFAULT_FACT_TYPES
    ]  # fmt: skip
    shortlist = resolver.shortlist(proposal, [*declared, *subjects_keys])
    assert shortlist[0].key == "city"
    assert RulesLLM().resolve_key(proposal, shortlist).key == "city"


@pytest.mark.parametrize("split", SPLITS)
def test_the_shortlist_keeps_every_pair_the_rules_join(resolver: KeyResolver, split: str) -> None:
    score = score_key_pairs(load("key_pairs", split), RulesLLM().resolve_key, resolver.shortlist)
    assert score.precision == 1.0, score.joined_wrongly
    assert score.recall == 1.0, score.kept_apart_wrongly
