"""The BeliefIndex contract. Every adapter's test module subclasses BeliefIndexContract and provides
`make_store(tenant_id)`: a factory of BeliefStores that share one backing store, so tenant
isolation is tested where it can fail. Chains are built with the real fold and a trivial verdict;
vectors are tiny hand-made unit vectors, so no embedder is needed."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from agentmem.errors import VersionConflictError
from agentmem.model.beliefs import Belief, Observation, Verdict
from agentmem.ports.semantic import BeliefIndex, BeliefStore
from agentmem.semantic.fold import fold

StoreFactory = Callable[[str], BeliefStore]

EAST, NORTH, WEST = [1.0, 0.0, 0.0, 0.0], [0.0, 1.0, 0.0, 0.0], [-1.0, 0.0, 0.0, 0.0]
NORTH_EAST = [0.8, 0.6, 0.0, 0.0]  # cosine 0.8 with EAST, 0.6 with NORTH


def observation(
    n: int, key: str, value: str, *, subject: str = "priya", member: str = "", text: str | None = None
) -> Observation:
    return Observation(
        subject_id=subject,
        key=key,
        member=member,
        text=text or f"{subject} {key.replace('_', ' ')} is {value}",
        value=value,
        order=f"2026-01-01T00:00:{n:02d}.000Z|s1|{n:012d}",
        event_id=f"ev{n}",
        session_id="s1",
        seq=n,
        stated_at=f"2026-01-01T00:00:{n:02d}.000Z",
    )


def same_or_update(current: Belief, candidate: Observation) -> Verdict:
    return Verdict.SAME if current.value == candidate.value else Verdict.UPDATE


def chain_of(*observations: Observation) -> list[Belief]:
    return fold(observations, same_or_update)


def write(index: BeliefIndex, chain: list[Belief], vector: list[float] | None) -> None:
    head = chain[-1]
    revision, _ = index.chain(head.subject_id, head.key, head.member)
    index.replace_chain(
        head.subject_id, head.key, head.member, expected_revision=revision, chain=chain, vector=vector
    )


def ready(store: BeliefStore) -> BeliefStore:
    store.ensure_ready()
    return store


class BeliefIndexContract:
    @pytest.fixture
    def make_store(self) -> StoreFactory:
        raise NotImplementedError

    @pytest.fixture
    def index(self, make_store: StoreFactory) -> BeliefIndex:
        return ready(make_store("acme")).active()

    # -- observations -------------------------------------------------------------------------

    def test_observations_are_idempotent_and_in_log_order(self, index: BeliefIndex) -> None:
        later, earlier = observation(2, "city", "Berlin"), observation(1, "city", "Paris")
        for obs in (later, earlier, later):
            index.add_observation(obs)
        assert index.observations("priya", "city", "") == [earlier, later]
        assert index.observations("priya", "city", "other-member") == []

    # -- chains and compare-and-set -----------------------------------------------------------

    def test_missing_chain_is_revision_zero(self, index: BeliefIndex) -> None:
        assert index.chain("priya", "city", "") == (0, [])

    def test_chain_is_created_then_replaced_by_compare_and_set(self, index: BeliefIndex) -> None:
        first = chain_of(observation(1, "city", "Paris"))
        index.replace_chain("priya", "city", "", expected_revision=0, chain=first, vector=EAST)
        created, stored = index.chain("priya", "city", "")
        assert created != 0
        assert stored == first

        second = chain_of(observation(1, "city", "Paris"), observation(2, "city", "Berlin"))
        index.replace_chain("priya", "city", "", expected_revision=created, chain=second, vector=NORTH)
        updated, stored = index.chain("priya", "city", "")
        assert updated not in (0, created)
        assert stored == second
        assert [(b.doc_id, b.version, b.current) for b in stored] == [
            ("city@v1", 1, False),
            ("city", 2, True),
        ]

    def test_a_second_create_loses(self, index: BeliefIndex) -> None:
        chain = chain_of(observation(1, "city", "Paris"))
        index.replace_chain("priya", "city", "", expected_revision=0, chain=chain, vector=EAST)
        with pytest.raises(VersionConflictError):
            index.replace_chain("priya", "city", "", expected_revision=0, chain=chain, vector=EAST)

    @pytest.mark.parametrize("vector", [NORTH, None])
    def test_a_stale_revision_loses_and_writes_nothing(
        self, index: BeliefIndex, vector: list[float] | None
    ) -> None:
        first = chain_of(observation(1, "city", "Paris"))
        index.replace_chain("priya", "city", "", expected_revision=0, chain=first, vector=EAST)
        stale, _ = index.chain("priya", "city", "")
        second = chain_of(observation(1, "city", "Paris"), observation(2, "city", "Berlin"))
        index.replace_chain("priya", "city", "", expected_revision=stale, chain=second, vector=NORTH)

        third = chain_of(observation(1, "city", "Paris"), observation(3, "city", "Rome"))
        with pytest.raises(VersionConflictError):
            index.replace_chain("priya", "city", "", expected_revision=stale, chain=third, vector=vector)
        assert index.chain("priya", "city", "")[1] == second

    def test_vector_none_keeps_the_stored_vector(self, index: BeliefIndex) -> None:
        first = chain_of(observation(1, "city", "Paris"))
        index.replace_chain("priya", "city", "", expected_revision=0, chain=first, vector=EAST)
        restated = chain_of(observation(1, "city", "Paris"), observation(2, "city", "Paris"))
        write(index, restated, None)

        (hit,) = index.vector_search("priya", EAST, 5)
        assert hit.belief == restated[-1]
        assert hit.score == pytest.approx(1.0, abs=1e-4)
        assert index.vector_coverage("priya") == (1, 1)

    @pytest.mark.parametrize("lookalike_first", [False, True])
    def test_a_key_spelled_like_an_archived_version_never_takes_its_identity(
        self, index: BeliefIndex, lookalike_first: bool
    ) -> None:
        # `risk_tolerance__v1` is a legal fact key, and `house__v1` a legal member: once, they
        # were also the ids of risk_tolerance's and goal#house's archived first versions.
        moved = chain_of(
            observation(1, "risk_tolerance", "cautious"), observation(2, "risk_tolerance", "bold")
        )
        lookalike = chain_of(observation(3, "risk_tolerance__v1", "low"))
        member_moved = chain_of(
            observation(4, "goal", "house", member="house"), observation(5, "goal", "flat", member="house")
        )
        member_lookalike = chain_of(observation(6, "goal", "boat", member="house__v1"))
        chains = [moved, lookalike, member_moved, member_lookalike]
        for chain in reversed(chains) if lookalike_first else chains:
            write(index, chain, EAST)

        for chain in chains:
            head = chain[-1]
            assert index.chain("priya", head.key, head.member)[1] == chain
        assert index.history("priya", "risk_tolerance") == moved
        assert index.history("priya", "risk_tolerance__v1") == lookalike
        assert index.history("priya", "goal") == [*member_moved, *member_lookalike]
        assert [(b.key, b.member, b.value) for b in index.current("priya")] == [
            ("goal", "house", "flat"),
            ("goal", "house__v1", "boat"),
            ("risk_tolerance", "", "bold"),
            ("risk_tolerance__v1", "", "low"),
        ]
        assert index.vector_coverage("priya") == (4, 4)

    # -- reads --------------------------------------------------------------------------------

    def test_current_is_ordered_by_key_then_member_and_history_oldest_first(self, index: BeliefIndex) -> None:
        city = chain_of(observation(1, "city", "Paris"), observation(4, "city", "Berlin"))
        tea = chain_of(observation(2, "likes", "tea", member="tea"))
        chess = chain_of(
            observation(3, "likes", "chess", member="chess"),
            observation(5, "likes", "chess!", member="chess"),
        )
        for chain in (tea, city, chess):
            write(index, chain, None)

        assert [(b.key, b.member) for b in index.current("priya")] == [
            ("city", ""),
            ("likes", "chess"),
            ("likes", "tea"),
        ]
        assert index.current("priya", "likes") == [chess[-1], tea[-1]]
        assert index.current("priya", "unknown") == []
        assert index.history("priya", "likes") == [*chess, *tea]
        assert index.history("priya", "city") == city

    def test_vector_search_ranks_current_beliefs_and_never_archived_ones(self, index: BeliefIndex) -> None:
        moved = chain_of(observation(1, "city", "Paris"), observation(2, "city", "Berlin"))
        index.replace_chain("priya", "city", "", expected_revision=0, chain=moved[:1], vector=EAST)
        write(index, moved, NORTH)  # the archived Paris version keeps no vector
        write(index, chain_of(observation(3, "pet", "cat")), NORTH_EAST)
        write(index, chain_of(observation(4, "team", "red")), WEST)

        hits = index.vector_search("priya", EAST, 5)
        assert [h.belief.key for h in hits] == ["pet", "city", "team"]
        assert all(h.belief.current and h.source == "vector" for h in hits)
        assert [round(h.score, 3) for h in hits] == [0.8, 0.0, -1.0]
        assert [h.belief.key for h in index.vector_search("priya", EAST, 1)] == ["pet"]
        assert index.vector_search("priya", EAST, 0) == []

    def test_keyword_search_matches_current_text_only(self, index: BeliefIndex) -> None:
        moved = chain_of(
            observation(1, "city", "Paris", text="Priya lives in Paris"),
            observation(2, "city", "Berlin", text="Priya lives in Berlin"),
        )
        write(index, moved, NORTH)
        write(index, chain_of(observation(3, "pet", "cat", text="Priya owns a grey cat")), EAST)

        (hit,) = index.keyword_search("priya", "berlin", 5)
        assert (hit.belief, hit.source) == (moved[-1], "keyword")
        assert hit.score > 0
        assert index.keyword_search("priya", "paris", 5) == []
        more_words_rank_higher = index.keyword_search("priya", "owns grey cat berlin", 5)
        assert [h.belief.key for h in more_words_rank_higher] == ["pet", "city"]
        assert index.keyword_search("priya", "   ", 5) == []

    def test_tenants_never_see_each_other(self, make_store: StoreFactory) -> None:
        acme, globex = ready(make_store("acme")).active(), ready(make_store("globex")).active()
        acme.add_observation(observation(1, "city", "Paris"))
        write(acme, chain_of(observation(1, "city", "Paris", text="Priya lives in Paris")), EAST)

        assert globex.observations("priya", "city", "") == []
        assert globex.chain("priya", "city", "") == (0, [])
        assert globex.current("priya") == []
        assert globex.history("priya", "city") == []
        assert globex.vector_search("priya", EAST, 5) == []
        assert globex.keyword_search("priya", "paris", 5) == []
        assert globex.subjects() == []
        assert globex.vector_coverage("priya") == (0, 0)
        assert len(acme.current("priya")) == 1

    def test_subjects_are_distinct_and_sorted(self, index: BeliefIndex) -> None:
        for n, subject in enumerate(["zoe", "priya", "amir"], start=1):
            write(index, chain_of(observation(n, "city", "Paris", subject=subject)), EAST)
        write(index, chain_of(observation(9, "pet", "cat", subject="priya")), NORTH)
        assert index.subjects() == ["amir", "priya", "zoe"]

    def test_vector_coverage_counts_current_beliefs_without_a_vector(self, index: BeliefIndex) -> None:
        write(index, chain_of(observation(1, "city", "Paris"), observation(2, "city", "Rome")), None)
        write(index, chain_of(observation(3, "pet", "cat")), EAST)
        assert index.vector_coverage("priya") == (2, 1)
        assert index.vector_coverage("nobody") == (0, 0)

    # -- changes after a log position (reads since a watermark) -------------------------------

    def test_the_frontier_is_the_newest_statement_applied_to_any_current_belief(
        self, index: BeliefIndex
    ) -> None:
        assert index.frontier("priya") == ""
        write(index, chain_of(observation(1, "city", "Paris"), observation(4, "city", "Rome")), EAST)
        write(index, chain_of(observation(2, "pet", "cat")), NORTH)
        write(index, chain_of(observation(9, "city", "Oslo", subject="zoe")), EAST)
        assert index.frontier("priya") == observation(4, "city", "Rome").order
        assert index.frontier("nobody") == ""

    def test_changed_since_lists_current_beliefs_last_stated_after_the_position(
        self, index: BeliefIndex
    ) -> None:
        write(index, chain_of(observation(1, "city", "Paris"), observation(5, "city", "Rome")), EAST)
        write(index, chain_of(observation(2, "pet", "cat")), NORTH)
        # A SAME restatement moves the position but not the version: the caller tells them apart.
        write(index, chain_of(observation(3, "job", "nurse"), observation(6, "job", "nurse")), WEST)
        write(index, chain_of(observation(7, "city", "Oslo", subject="zoe")), EAST)
        after = observation(4, "x", "y").order

        changed = index.changed_since("priya", after, 10)

        assert [(b.key, b.version, b.current) for b in changed] == [("city", 2, True), ("job", 1, True)]
        assert [b.key for b in index.changed_since("priya", "", 10)] == ["pet", "city", "job"]
        assert [b.key for b in index.changed_since("priya", after, 1)] == ["city"]
        assert index.changed_since("priya", observation(6, "x", "y").order, 10) == []

    def test_changed_since_never_crosses_tenants(self, make_store: StoreFactory) -> None:
        acme, globex = ready(make_store("acme")).active(), ready(make_store("globex")).active()
        write(acme, chain_of(observation(1, "city", "Paris")), EAST)
        assert globex.changed_since("priya", "", 10) == []
        assert globex.frontier("priya") == ""

    # -- generations --------------------------------------------------------------------------

    def test_before_ensure_ready_every_read_is_empty(self, make_store: StoreFactory) -> None:
        index = make_store("acme").active()
        assert index.observations("priya", "city", "") == []
        assert index.chain("priya", "city", "") == (0, [])
        assert index.current("priya") == []
        assert index.history("priya", "city") == []
        assert index.vector_search("priya", EAST, 5) == []
        assert index.keyword_search("priya", "paris", 5) == []
        assert index.subjects() == []
        assert index.vector_coverage("priya") == (0, 0)
        assert index.frontier("priya") == ""
        assert index.changed_since("priya", "", 5) == []

    def test_ensure_ready_is_idempotent_and_keeps_what_was_written(self, make_store: StoreFactory) -> None:
        store = ready(make_store("acme"))
        write(store.active(), chain_of(observation(1, "city", "Paris")), EAST)
        generation = store.active().generation
        ready(make_store("acme"))
        assert store.active().generation == generation
        assert [b.value for b in store.active().current("priya")] == ["Paris"]

    def test_a_new_generation_is_empty_until_activated(self, make_store: StoreFactory) -> None:
        store = ready(make_store("acme"))
        live = store.active()
        write(live, chain_of(observation(1, "city", "Paris")), EAST)

        fresh = store.new_generation()
        assert fresh.generation != live.generation
        assert fresh.current("priya") == []
        assert store.active().generation == live.generation

        write(fresh, chain_of(observation(2, "city", "Rome")), NORTH)
        store.activate(fresh.generation)
        assert store.active().generation == fresh.generation
        assert [b.value for b in store.active().current("priya")] == ["Rome"]

    def test_a_generation_is_read_by_number_without_switching_readers(self, make_store: StoreFactory) -> None:
        store = ready(make_store("acme"))
        write(store.active(), chain_of(observation(1, "city", "Paris")), EAST)
        shadow = store.new_generation()
        write(shadow, chain_of(observation(2, "city", "Rome")), NORTH)

        again = make_store("acme").generation(shadow.generation)  # another process, say promote
        assert again.generation == shadow.generation
        assert [b.value for b in again.current("priya")] == ["Rome"]
        assert [b.value for b in store.active().current("priya")] == ["Paris"]
