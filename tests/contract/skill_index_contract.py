"""The SkillIndex contract. Every adapter's test module subclasses SkillIndexContract and provides
`make_index(tenant_id)`: a factory of indexes that share one backing store, so tenant isolation
(and two handles of one tenant seeing each other's writes) is tested where it can fail.

Vectors are tiny hand-made unit vectors, so no embedder is needed. Keyword assertions keep to what
both SQLite FTS5 (porter, unicode61) and the OpenSearch english analyzer agree on: whole words,
any case, more matching words rank higher; stemming and stop words are left unpinned."""

from __future__ import annotations

from collections.abc import Callable, Sequence

import pytest

from agentmem.ports.procedural import IndexedSkill, SkillIndex, SkillKey

IndexFactory = Callable[[str], SkillIndex]

EAST, NORTH, WEST = [1.0, 0.0, 0.0, 0.0], [0.0, 1.0, 0.0, 0.0], [-1.0, 0.0, 0.0, 0.0]
NORTH_EAST = [0.8, 0.6, 0.0, 0.0]  # cosine 0.8 with EAST, 0.6 with NORTH

PARSE: SkillKey = ("function", "parse-csv")
EXPORT: SkillKey = ("function", "export-report")
EMAIL: SkillKey = ("guidance", "send-email")


def skill(key: SkillKey, text: str, vector: Sequence[float], version: int = 1) -> IndexedSkill:
    return IndexedSkill(key[0], key[1], stamp(version), text, vector)


def stamp(version: int) -> str:
    return f"{version}|2026-01-0{version}T00:00:00.000Z"


class SkillIndexContract:
    @pytest.fixture
    def make_index(self) -> IndexFactory:
        raise NotImplementedError

    @pytest.fixture
    def index(self, make_index: IndexFactory) -> SkillIndex:
        return make_index("acme")

    @pytest.fixture
    def library(self, index: SkillIndex) -> SkillIndex:
        """Three items whose texts and vectors the search tests rank."""
        index.update(
            [
                skill(EMAIL, "Send an email message to the team", NORTH),
                skill(EXPORT, "export report as csv", NORTH_EAST),
                skill(PARSE, "parse csv file rows", EAST),
            ],
            [],
        )
        return index

    # -- writes and stamps --------------------------------------------------------------------

    def test_an_empty_index_has_no_stamps_and_finds_nothing(self, index: SkillIndex) -> None:
        assert index.stamps() == {}
        assert index.vector_search(EAST, 5) == []
        assert index.keyword_search("parse csv", 5) == []

    def test_stamps_reflect_what_was_put(self, library: SkillIndex) -> None:
        assert library.stamps() == {PARSE: stamp(1), EXPORT: stamp(1), EMAIL: stamp(1)}

    def test_a_put_replaces_the_item_of_the_same_key(self, library: SkillIndex) -> None:
        library.update([skill(PARSE, "archive old logs", WEST, version=2)], [])

        assert library.stamps() == {PARSE: stamp(2), EXPORT: stamp(1), EMAIL: stamp(1)}
        assert library.keyword_search("parse", 5) == []
        assert library.keyword_search("archive logs", 5) == [PARSE]
        assert library.vector_search(EAST, 5) == [EXPORT, EMAIL, PARSE]  # now the farthest

    def test_remove_deletes_and_a_missing_key_is_a_no_op(self, library: SkillIndex) -> None:
        library.update([], [PARSE, ("function", "never-indexed")])

        assert library.stamps() == {EXPORT: stamp(1), EMAIL: stamp(1)}
        assert library.vector_search(EAST, 5) == [EXPORT, EMAIL]
        assert library.keyword_search("parse csv", 5) == [EXPORT]

    def test_one_update_can_put_and_remove(self, library: SkillIndex) -> None:
        added: SkillKey = ("guidance", "rotate-keys")
        library.update([skill(added, "rotate api keys", WEST)], [EMAIL, EXPORT])
        assert library.stamps() == {PARSE: stamp(1), added: stamp(1)}
        assert library.vector_search(WEST, 5) == [added, PARSE]

    def test_an_empty_update_changes_nothing(self, library: SkillIndex) -> None:
        library.update([], [])
        assert library.stamps() == {PARSE: stamp(1), EXPORT: stamp(1), EMAIL: stamp(1)}

    # -- vector search ------------------------------------------------------------------------

    def test_vector_search_ranks_nearest_first_by_cosine_and_respects_k(self, library: SkillIndex) -> None:
        far: SkillKey = ("function", "far")
        library.update([skill(far, "unrelated", WEST)], [])

        assert library.vector_search(EAST, 10) == [PARSE, EXPORT, EMAIL, far]  # 1, 0.8, 0, -1
        assert library.vector_search(NORTH, 10) == [EMAIL, EXPORT, far, PARSE]  # 1, 0.6, then 0 by key
        assert library.vector_search(EAST, 2) == [PARSE, EXPORT]
        assert library.vector_search(EAST, 0) == []

    def test_vector_ties_break_by_kind_then_id(self, index: SkillIndex) -> None:
        tied = [("guidance", "alpha"), ("function", "zeta"), ("function", "beta")]
        index.update([skill(key, f"item {key[1]}", EAST) for key in tied], [])
        index.update([skill(("function", "aaa-far"), "far away", NORTH)], [])

        assert index.vector_search(EAST, 10) == [
            ("function", "beta"),
            ("function", "zeta"),
            ("guidance", "alpha"),
            ("function", "aaa-far"),
        ]

    # -- keyword search -----------------------------------------------------------------------

    def test_keyword_search_ranks_more_matching_words_higher(self, library: SkillIndex) -> None:
        assert library.keyword_search("parse csv", 5) == [PARSE, EXPORT]
        assert library.keyword_search("Parse CSV", 5) == [PARSE, EXPORT]
        assert library.keyword_search("parse csv", 1) == [PARSE]
        assert library.keyword_search("email", 5) == [EMAIL]

    def test_keyword_search_without_a_match_finds_nothing(self, library: SkillIndex) -> None:
        assert library.keyword_search("kubernetes", 5) == []
        assert library.keyword_search("   ", 5) == []
        assert library.keyword_search("parse csv", 0) == []

    def test_keyword_ties_break_by_kind_then_id_even_at_the_kth_place(self, index: SkillIndex) -> None:
        # Put in reverse key order, so an index that breaks ties by insertion order is caught.
        tied = [("guidance", "alpha"), ("function", "zeta"), ("function", "beta")]
        index.update([skill(key, "rotate api keys", EAST) for key in tied], [])

        assert index.keyword_search("rotate api keys", 5) == [
            ("function", "beta"),
            ("function", "zeta"),
            ("guidance", "alpha"),
        ]
        assert index.keyword_search("rotate api keys", 1) == [("function", "beta")]
        assert index.keyword_search("rotate api keys", 2) == [("function", "beta"), ("function", "zeta")]

    # -- tenants and handles ------------------------------------------------------------------

    def test_tenants_never_see_each_other(self, make_index: IndexFactory) -> None:
        acme, globex = make_index("acme"), make_index("globex")
        acme.update([skill(PARSE, "parse csv file rows", EAST)], [])

        assert globex.stamps() == {}
        assert globex.vector_search(EAST, 5) == []
        assert globex.keyword_search("parse csv", 5) == []

        globex.update([skill(PARSE, "archive old logs", NORTH, version=2)], [])
        assert acme.stamps() == {PARSE: stamp(1)}
        assert acme.keyword_search("archive logs", 5) == []
        assert globex.keyword_search("parse csv", 5) == []

        globex.update([], [PARSE])
        assert globex.stamps() == {}
        assert acme.stamps() == {PARSE: stamp(1)}
        assert acme.vector_search(EAST, 5) == [PARSE]

    def test_two_handles_of_one_tenant_see_each_others_writes(self, make_index: IndexFactory) -> None:
        reader, writer = make_index("acme"), make_index("acme")
        assert reader.vector_search(EAST, 5) == []  # a reader that searched before the writes

        writer.update([skill(PARSE, "parse csv file rows", EAST)], [])
        assert reader.stamps() == {PARSE: stamp(1)}
        assert reader.vector_search(EAST, 5) == [PARSE]
        assert reader.keyword_search("csv", 5) == [PARSE]

        writer.update([skill(EXPORT, "export report", NORTH_EAST)], [PARSE])
        assert reader.vector_search(EAST, 5) == [EXPORT]
        assert reader.keyword_search("csv", 5) == []
