"""The PassageIndex contract. Every adapter's test module subclasses PassageIndexContract and
provides `make_store(tenant_id)`: a factory of PassageStores sharing one backing store, so tenant
isolation is tested where it can fail. Vectors are tiny hand-made unit vectors."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from agentmem.model.passages import Passage, StatedFact
from agentmem.ports.semantic import PassageIndex, PassageStore

StoreFactory = Callable[[str], PassageStore]

EAST, NORTH, WEST = [1.0, 0.0, 0.0, 0.0], [0.0, 1.0, 0.0, 0.0], [-1.0, 0.0, 0.0, 0.0]
NORTH_EAST = [0.8, 0.6, 0.0, 0.0]  # cosine 0.8 with EAST, 0.6 with NORTH


def passage(
    session: str, seq: int, text: str, *, subject: str = "priya", span: tuple[int, int] | None = None,
    stated: tuple[StatedFact, ...] = (),
) -> Passage:  # fmt: skip
    return Passage(
        subject_id=subject, session_id=session, seq=seq, span=span or (0, len(text)),
        event_id=f"ev-{subject}-{session}-{seq}", agent="user", kind="message",
        stated_at=f"2026-01-{seq:02d}T10:00:00.000Z", text=text, stated=stated,
    )  # fmt: skip


GARDEN = passage("s1", 1, "I spend my weekends restoring an old allotment garden.")
VIOLIN = passage("s1", 2, "She has played the violin since she was six.")
MOVE = passage("s2", 3, "We moved to Lisbon last spring.", stated=(StatedFact(key="city", value="Lisbon"),))


class PassageIndexContract:
    @pytest.fixture
    def make_store(self) -> StoreFactory:
        raise NotImplementedError

    @pytest.fixture
    def store(self, make_store: StoreFactory) -> PassageStore:
        return make_store("acme")

    @pytest.fixture
    def index(self, store: PassageStore) -> PassageIndex:
        index = store.generation(1)
        index.add([GARDEN, VIOLIN, MOVE], [EAST, NORTH, NORTH_EAST])
        return index

    # -- writes -------------------------------------------------------------------------------

    def test_adding_again_is_a_no_op(self, index: PassageIndex) -> None:
        assert index.add([GARDEN, MOVE], [WEST, WEST]) == 0
        assert index.count("priya") == 3
        # The first vector stays: a redelivered event cannot move a passage.
        assert index.vector_search("priya", EAST, 1)[0].passage == GARDEN

    def test_missing_names_only_what_is_not_indexed(self, index: PassageIndex) -> None:
        later = passage("s3", 4, "Another turn.")
        ids = [GARDEN.passage_id, later.passage_id, later.passage_id]
        assert index.missing("priya", ids) == {later.passage_id}
        assert index.missing("someone-else", [GARDEN.passage_id]) == {GARDEN.passage_id}

    def test_one_event_has_many_passages_by_span(self, store: PassageStore) -> None:
        index = store.generation(1)
        first, second = passage("s1", 1, "One.", span=(0, 4)), passage("s1", 1, "Two.", span=(5, 9))
        assert index.add([first, second], [EAST, NORTH]) == 2
        assert {h.passage.span for h in index.vector_search("priya", EAST, 5)} == {(0, 4), (5, 9)}

    def test_a_passage_reads_back_as_written(self, index: PassageIndex) -> None:
        (hit,) = index.keyword_search("priya", "Lisbon", 5)
        assert hit.passage == MOVE
        assert hit.passage.stated == (StatedFact(key="city", value="Lisbon"),)
        assert hit.source == "keyword"

    def test_restate_gives_an_indexed_passage_its_facts_and_adds_nothing(self, index: PassageIndex) -> None:
        # Indexed without facts while extraction failed; restated once it succeeded.
        facts = (StatedFact(key="hobby", member="garden", value="allotment garden"),)
        stray = passage("s9", 9, "Never indexed.", stated=facts)
        restated = GARDEN.model_copy(update={"stated": facts})
        assert index.restate([restated, stray]) == 1
        (hit,) = index.keyword_search("priya", "allotment", 5)
        assert hit.passage == restated
        assert index.vector_search("priya", EAST, 1)[0].passage == restated  # its vector stays
        assert index.missing("priya", [stray.passage_id]) == {stray.passage_id}
        assert index.count("priya") == 3
        assert index.restate([restated]) == 0  # the same facts again change nothing

    # -- search -------------------------------------------------------------------------------

    def test_vector_search_ranks_by_cosine_and_stops_at_k(self, index: PassageIndex) -> None:
        hits = index.vector_search("priya", EAST, 2)
        assert [h.passage for h in hits] == [GARDEN, MOVE]
        assert hits[0].score == pytest.approx(1.0) and hits[1].score == pytest.approx(0.8)
        assert all(h.source == "vector" for h in hits)

    def test_vector_search_leaves_the_readers_session_out(self, index: PassageIndex) -> None:
        hits = index.vector_search("priya", EAST, 5, exclude_session="s1")
        assert [h.passage for h in hits] == [MOVE]

    def test_keyword_search_finds_words_with_stemming(self, index: PassageIndex) -> None:
        assert [h.passage for h in index.keyword_search("priya", "who restores gardens?", 5)] == [GARDEN]
        assert index.keyword_search("priya", "gardens", 5, exclude_session="s1") == []
        assert index.keyword_search("priya", "submarine", 5) == []

    def test_searches_see_passages_added_after_the_first_search(self, index: PassageIndex) -> None:
        assert index.vector_search("priya", WEST, 1)[0].passage != passage("s9", 9, "West.")
        late = passage("s9", 9, "West.")
        index.add([late], [WEST])
        assert index.vector_search("priya", WEST, 1)[0].passage == late

    def test_subjects_and_tenants_are_isolated(self, make_store: StoreFactory, index: PassageIndex) -> None:
        other = passage("s1", 1, "I spend my weekends restoring boats.", subject="omar")
        index.add([other], [EAST])
        assert {h.passage.subject_id for h in index.vector_search("priya", EAST, 10)} == {"priya"}
        assert [h.passage for h in index.keyword_search("omar", "weekends", 10)] == [other]
        foreign = make_store("globex").generation(1)
        assert foreign.count("priya") == 0
        assert foreign.vector_search("priya", EAST, 5) == []
        assert foreign.keyword_search("priya", "garden", 5) == []

    # -- generations --------------------------------------------------------------------------

    def test_a_new_generation_is_empty_until_activated(
        self, store: PassageStore, index: PassageIndex
    ) -> None:
        assert store.active().generation == 1
        fresh = store.generation(2)
        assert fresh.count("priya") == 0
        fresh.add([GARDEN], [EAST])
        assert store.active().count("priya") == 3  # readers still on generation 1
        store.activate(2)
        assert store.active().generation == 2
        assert [h.passage for h in store.active().vector_search("priya", EAST, 5)] == [GARDEN]

    def test_copy_other_subjects_copies_everyone_but_the_one_replayed(
        self, store: PassageStore, index: PassageIndex
    ) -> None:
        omar = passage("s1", 1, "Omar keeps bees on the roof.", subject="omar")
        index.add([omar], [WEST])
        store.copy_other_subjects(1, 2, "priya")
        fresh = store.generation(2)
        assert fresh.count("priya") == 0
        assert [h.passage for h in fresh.keyword_search("omar", "bees", 5)] == [omar]
        assert [h.passage for h in fresh.vector_search("omar", WEST, 5)] == [omar]

    # -- erasure ------------------------------------------------------------------------------

    def test_erase_subject_leaves_nothing_of_it_in_any_search(self, index: PassageIndex) -> None:
        omar = passage("s1", 1, "Omar restores gardens too.", subject="omar")
        index.add([omar], [EAST])
        index.vector_search("priya", EAST, 5)  # warm any cache first: erasure must reach it
        assert index.erase_subject("priya") == 3
        assert index.count("priya") == 0
        assert index.vector_search("priya", EAST, 5) == []
        assert index.keyword_search("priya", "garden Lisbon violin", 5) == []
        assert [h.passage for h in index.keyword_search("omar", "gardens", 5)] == [omar]

    def test_store_erasure_reaches_every_generation(self, store: PassageStore, index: PassageIndex) -> None:
        store.generation(2).add([GARDEN], [EAST])
        assert store.erase_subject("priya") == 4
        assert store.generation(1).count("priya") == 0 and store.generation(2).count("priya") == 0

    def test_a_subject_can_be_written_again_after_erasure(self, index: PassageIndex) -> None:
        index.vector_search("priya", EAST, 5)
        index.erase_subject("priya")
        again = passage("s5", 5, "A new start.")
        assert index.add([again], [NORTH]) == 1
        assert [h.passage for h in index.vector_search("priya", NORTH, 5)] == [again]

    # -- vectors behind keywords --------------------------------------------------------------

    def test_passages_written_with_vectors_leave_nothing_pending(self, index: PassageIndex) -> None:
        assert index.pending_count("priya") == 0
        assert index.pending(10) == []

    def test_a_passage_without_its_vector_is_keyword_only_until_stored(self, index: PassageIndex) -> None:
        if not index.defers_vectors:
            pytest.skip("this adapter writes passages with their vectors")
        late = passage("s4", 4, "The orchard behind the house has seven pear trees.")
        assert index.add([late], None) == 1
        assert (index.count("priya"), index.pending_count("priya"), index.pending(10)) == (4, 1, [late])
        assert [h.passage for h in index.keyword_search("priya", "pear orchard", 5)] == [late]
        assert late not in [h.passage for h in index.vector_search("priya", WEST, 5)]
        assert index.store_vectors([late], [WEST]) == 1
        assert index.store_vectors([late], [EAST]) == 0  # stored once: the first vector stays
        assert index.pending_count("priya") == 0
        assert index.vector_search("priya", WEST, 1)[0].passage == late

    def test_a_pending_passage_erased_takes_no_vector_afterwards(self, index: PassageIndex) -> None:
        if not index.defers_vectors:
            pytest.skip("this adapter writes passages with their vectors")
        late = passage("s4", 4, "The orchard behind the house has seven pear trees.")
        index.add([late], None)
        index.erase_subject("priya")
        assert index.store_vectors([late], [WEST]) == 0
        assert (index.count("priya"), index.pending_count("priya")) == (0, 0)
        assert index.vector_search("priya", WEST, 5) == []

    def test_copy_other_subjects_keeps_pending_passages_pending(
        self, store: PassageStore, index: PassageIndex
    ) -> None:
        if not index.defers_vectors:
            pytest.skip("this adapter writes passages with their vectors")
        omar = passage("s1", 1, "Omar keeps bees on the roof.", subject="omar")
        index.add([omar], None)
        store.copy_other_subjects(1, 2, "priya")
        fresh = store.generation(2)
        assert fresh.pending(5) == [omar]
        assert [h.passage for h in fresh.keyword_search("omar", "bees", 5)] == [omar]
        assert fresh.store_vectors([omar], [WEST]) == 1
        assert [h.passage for h in fresh.vector_search("omar", WEST, 5)] == [omar]
