"""A belief and the passage it came from in one ranking (context/one_ranking.py): a belief the
query matches worse than its source ranks just below it and is kept (a long passage may not fit
where its one-line belief still does), and a flagged belief is ranked on its own, since the
change it records is said by no passage."""

from __future__ import annotations

from agentmem.context.one_ranking import capped_beliefs, settle_beliefs
from agentmem.context.semantic_candidates import with_changed_members
from agentmem.model.beliefs import Belief, Provenance, Verdict
from agentmem.packing.model import Candidate


def belief(*, flag: bool) -> Belief:
    return Belief(
        subject_id="priya", key="risk_tolerance", doc_id="risk_tolerance",
        text="Priya is aggressive about investment risk.", value="aggressive", version=2, current=True,
        flag=flag, verdict=Verdict.CONFLICT if flag else Verdict.UPDATE,
        provenance=[Provenance(session_id="S2", event_id="e7", seq=7, value="aggressive")],
        valid_from="2026-04-13T09:00:00Z", source_seq=7, source_order="2026-04-13|S2|000000000007",
    )  # fmt: skip


SOURCE = (0.62, 40)  # the passage of event e7: its cosine to the query, its words


def candidates(belief_score: float) -> list[Candidate]:
    return [
        Candidate("passage:S2:7:0-300", "history", 0.030, ("a long intake note",), {"event_id": "e7"}),
        Candidate("belief:risk_tolerance", "semantic", belief_score, ("risk_tolerance: aggressive",)),
        Candidate("passage:S1:3:0-90", "history", 0.020, ("something else",), {"event_id": "e3"}),
    ]


def test_a_belief_its_source_matches_better_is_kept_just_below_it() -> None:
    plain = belief(flag=False)
    capped = capped_beliefs([plain], {"risk_tolerance": 0.41}, {"e7": SOURCE})
    assert capped == {"risk_tolerance"}
    settled = {c.item_id: c.score for c in settle_beliefs(candidates(0.031), [plain], capped)}
    assert settled["passage:S2:7:0-300"] > settled["belief:risk_tolerance"] > settled["passage:S1:3:0-90"]


def test_a_flagged_belief_is_never_capped() -> None:
    assert capped_beliefs([belief(flag=True)], {"risk_tolerance": 0.41}, {"e7": SOURCE}) == set()


def test_a_belief_that_matches_as_well_as_its_source_stands_for_it() -> None:
    assert capped_beliefs([belief(flag=False)], {"risk_tolerance": 0.615}, {"e7": SOURCE}) == set()


def member(name: str, *, flag: bool, key: str = "investment_preference") -> Belief:
    return belief(flag=flag).model_copy(update={"key": key, "member": name, "doc_id": f"{key}#{name}"})


def test_a_changed_member_ranks_just_below_its_keys_best_member_and_no_other_member_moves() -> None:
    changed, steady = member("single-stocks", flag=True), member("index-funds", flag=False)
    other, taste = member("bonds", flag=False), member("jazz", flag=True, key="preference")
    scores = {steady.doc_id: 0.030, changed.doc_id: 0.010, other.doc_id: 0.005, taste.doc_id: 0.004}
    with_changed_members([steady, changed, other, taste], scores)
    assert 0.030 > scores[changed.doc_id] > 0.0299  # comes with the member the read shows
    assert scores[other.doc_id] == 0.005  # an unchanged member stays where its match put it
    assert scores[taste.doc_id] == 0.004  # alone on its key: nothing to come along with
