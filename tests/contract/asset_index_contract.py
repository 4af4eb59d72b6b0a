"""The AssetIndex contract (agentmem.ports.catalogue). Every adapter's test module subclasses
AssetIndexContract and provides `make_index(tenant_id)`: a factory of indexes sharing one backing
store, so tenant isolation (and two handles of one tenant seeing each other's writes) is tested
where it can fail.

Vectors are tiny hand-made unit vectors, so no embedder is needed. Keyword assertions keep to what
SQLite FTS5 (porter, unicode61) and the OpenSearch english analyzer agree on: whole words in any
case, more matching words rank higher, `_` separates words; stemming and stop words are unpinned."""

from __future__ import annotations

from collections.abc import Callable, Collection, Sequence

import pytest

from agentmem.ports.catalogue import AssetIndex, IndexedAsset

IndexFactory = Callable[[str], AssetIndex]

EAST, NORTH, WEST = [1.0, 0.0, 0.0, 0.0], [0.0, 1.0, 0.0, 0.0], [-1.0, 0.0, 0.0, 0.0]
NORTH_EAST = [0.8, 0.6, 0.0, 0.0]  # cosine 0.8 with EAST, 0.6 with NORTH

PARSE, EXPORT, EMAIL = "parse-csv", "export-report", "send-email"
LIBRARY = frozenset({PARSE, EXPORT, EMAIL})
CLOSE = 1e-4  # OpenSearch scores are float32 and mapped back to cosines


def asset(
    asset_id: str, text: str, vector: Sequence[float], change_seq: int = 1, path: str = "kb"
) -> IndexedAsset:
    # The index searches `text` alone; the composer is the one that puts the path's words in it.
    return IndexedAsset(asset_id, path, change_seq, ("analysts",), text, vector)


def ids(found: list[tuple[str, float]]) -> list[str]:
    return [asset_id for asset_id, _ in found]


def scores(found: list[tuple[str, float]]) -> list[float]:
    return [score for _, score in found]


class AssetIndexContract:
    @pytest.fixture
    def make_index(self) -> IndexFactory:
        raise NotImplementedError

    @pytest.fixture
    def index(self, make_index: IndexFactory) -> AssetIndex:
        return make_index("acme")

    @pytest.fixture
    def library(self, index: AssetIndex) -> AssetIndex:
        """Three assets whose texts and vectors the search tests rank."""
        index.update(
            [
                asset(EMAIL, "Send an email message to the team", NORTH),
                asset(EXPORT, "export report as csv", NORTH_EAST),
                asset(PARSE, "parse csv file rows", EAST),
            ],
            [],
        )
        return index

    # -- writes and stamps --------------------------------------------------------------------

    def test_an_empty_index_has_no_stamps_and_finds_nothing(self, index: AssetIndex) -> None:
        assert index.stamps() == {}
        assert index.vector_search(EAST, LIBRARY, 5) == []
        assert index.keyword_search("parse csv", LIBRARY, 5) == []
        assert index.similarities(EAST, LIBRARY) == {}

    def test_stamps_are_the_change_seq_each_asset_was_indexed_at(self, index: AssetIndex) -> None:
        index.update([asset(PARSE, "parse csv", EAST, change_seq=7), asset(EMAIL, "email", NORTH, 3)], [])
        assert index.stamps() == {PARSE: 7, EMAIL: 3}

    def test_a_put_replaces_the_asset_of_the_same_id(self, library: AssetIndex) -> None:
        library.update([asset(PARSE, "archive old logs", WEST, change_seq=5)], [])

        assert library.stamps() == {PARSE: 5, EXPORT: 1, EMAIL: 1}
        assert library.keyword_search("parse", LIBRARY, 5) == []
        assert ids(library.keyword_search("archive logs", LIBRARY, 5)) == [PARSE]
        assert ids(library.vector_search(EAST, LIBRARY, 5)) == [EXPORT, EMAIL, PARSE]  # now the farthest
        assert library.similarities(EAST, [PARSE]) == {PARSE: pytest.approx(-1.0, abs=CLOSE)}

    def test_remove_deletes_and_a_missing_id_is_a_no_op(self, library: AssetIndex) -> None:
        library.update([], [PARSE, "never-indexed"])

        assert library.stamps() == {EXPORT: 1, EMAIL: 1}
        assert ids(library.vector_search(EAST, LIBRARY, 5)) == [EXPORT, EMAIL]
        assert ids(library.keyword_search("parse csv", LIBRARY, 5)) == [EXPORT]
        assert PARSE not in library.similarities(EAST, LIBRARY)

    def test_one_update_can_put_and_remove(self, library: AssetIndex) -> None:
        library.update([asset("rotate-keys", "rotate api keys", WEST, change_seq=2)], [EMAIL, EXPORT])
        assert library.stamps() == {PARSE: 1, "rotate-keys": 2}
        assert ids(library.vector_search(WEST, {PARSE, "rotate-keys"}, 5)) == ["rotate-keys", PARSE]

    def test_an_empty_update_changes_nothing(self, library: AssetIndex) -> None:
        library.update([], [])
        assert library.stamps() == {PARSE: 1, EXPORT: 1, EMAIL: 1}

    # -- vector search ------------------------------------------------------------------------

    def test_vector_search_ranks_by_cosine_and_respects_k(self, library: AssetIndex) -> None:
        library.update([asset("far", "unrelated", WEST)], [])
        everything = LIBRARY | {"far"}

        found = library.vector_search(EAST, everything, 10)
        assert ids(found) == [PARSE, EXPORT, EMAIL, "far"]
        assert scores(found) == pytest.approx([1.0, 0.8, 0.0, -1.0], abs=CLOSE)
        assert ids(library.vector_search(NORTH, everything, 10)) == [EMAIL, EXPORT, "far", PARSE]
        assert ids(library.vector_search(EAST, everything, 2)) == [PARSE, EXPORT]
        assert library.vector_search(EAST, everything, 0) == []

    def test_vector_ties_break_by_id_even_at_the_kth_place(self, index: AssetIndex) -> None:
        # Put in reverse id order, so an index that breaks ties by insertion order is caught.
        index.update([asset(i, f"item {i}", EAST) for i in ("zeta", "gamma", "beta")], [])
        index.update([asset("aaa-far", "far away", NORTH)], [])
        everything = {"zeta", "gamma", "beta", "aaa-far"}

        assert ids(index.vector_search(EAST, everything, 10)) == ["beta", "gamma", "zeta", "aaa-far"]
        assert ids(index.vector_search(EAST, everything, 1)) == ["beta"]
        assert ids(index.vector_search(EAST, everything, 2)) == ["beta", "gamma"]

    @pytest.mark.parametrize("kind", [frozenset, set, list, tuple])
    def test_allowed_restricts_vector_search_even_against_the_best_match(
        self, library: AssetIndex, kind: Callable[[Collection[str]], Collection[str]]
    ) -> None:
        allowed = kind([EXPORT, EMAIL, "not-indexed"])
        assert ids(library.vector_search(EAST, allowed, 5)) == [EXPORT, EMAIL]
        assert ids(library.vector_search(EAST, allowed, 1)) == [EXPORT]
        assert library.vector_search(EAST, kind([]), 5) == []
        assert library.vector_search(EAST, kind(["not-indexed"]), 5) == []

    def test_a_reused_scope_sees_later_writes(self, library: AssetIndex) -> None:
        # The same frozenset object, as a compiled scope held across composes would be.
        scope = frozenset({PARSE, "added-later"})
        assert ids(library.vector_search(EAST, scope, 5)) == [PARSE]

        library.update([asset("added-later", "added later", EAST)], [])
        assert ids(library.vector_search(EAST, scope, 5)) == ["added-later", PARSE]
        library.update([], [PARSE])
        assert ids(library.vector_search(EAST, scope, 5)) == ["added-later"]

    # -- keyword search -----------------------------------------------------------------------

    def test_keyword_search_ranks_more_matching_words_higher(self, library: AssetIndex) -> None:
        found = library.keyword_search("parse csv", LIBRARY, 5)
        assert ids(found) == [PARSE, EXPORT]
        assert scores(found)[0] > scores(found)[1] > 0
        assert ids(library.keyword_search("Parse CSV", LIBRARY, 5)) == [PARSE, EXPORT]
        assert ids(library.keyword_search("parse csv", LIBRARY, 1)) == [PARSE]
        assert ids(library.keyword_search("email", LIBRARY, 5)) == [EMAIL]

    def test_keyword_search_without_a_match_finds_nothing(self, library: AssetIndex) -> None:
        assert library.keyword_search("kubernetes", LIBRARY, 5) == []
        assert library.keyword_search("   ", LIBRARY, 5) == []
        assert library.keyword_search("parse csv", LIBRARY, 0) == []

    @pytest.mark.parametrize("kind", [frozenset, set, list, tuple])
    def test_allowed_restricts_keyword_search_even_against_the_best_match(
        self, library: AssetIndex, kind: Callable[[Collection[str]], Collection[str]]
    ) -> None:
        allowed = kind([EXPORT, EMAIL, "not-indexed"])
        assert ids(library.keyword_search("parse csv", allowed, 5)) == [EXPORT]
        assert ids(library.keyword_search("parse csv", allowed, 1)) == [EXPORT]
        assert library.keyword_search("parse", allowed, 5) == []
        assert library.keyword_search("parse csv", kind([]), 5) == []

    def test_keyword_ties_break_by_id_even_at_the_kth_place(self, index: AssetIndex) -> None:
        index.update([asset(i, "rotate api keys", EAST) for i in ("zeta", "gamma", "beta")], [])
        everything = {"zeta", "gamma", "beta"}

        assert ids(index.keyword_search("rotate api keys", everything, 5)) == ["beta", "gamma", "zeta"]
        assert ids(index.keyword_search("rotate api keys", everything, 1)) == ["beta"]
        assert ids(index.keyword_search("rotate api keys", everything, 2)) == ["beta", "gamma"]
        assert ids(index.keyword_search("rotate api keys", {"zeta", "gamma"}, 1)) == ["gamma"]

    def test_keyword_search_matches_words_joined_by_underscores(self, index: AssetIndex) -> None:
        # As the composer writes it: title, path words, body, payload strings.
        customers = "Customers\nwarehouse analytics dim_customers_v3\nColumns: customer_id, signup_date"
        orders = "Orders\nwarehouse analytics fact_orders_daily\nOne row per order line"
        index.update(
            [
                asset("customers", customers, EAST, path="warehouse/analytics/dim_customers_v3"),
                asset("orders", orders, NORTH, path="warehouse/analytics/fact_orders_daily"),
            ],
            [],
        )
        both = {"customers", "orders"}

        assert ids(index.keyword_search("signup", both, 5)) == ["customers"]
        assert ids(index.keyword_search("dim", both, 5)) == ["customers"]
        assert ids(index.keyword_search("dim_customers_v3", both, 5)) == ["customers"]
        assert ids(index.keyword_search("signup_date", both, 5)) == ["customers"]
        assert ids(index.keyword_search("fact daily", both, 5)) == ["orders"]
        assert set(ids(index.keyword_search("analytics", both, 5))) == both

    def test_the_path_alone_is_not_searched(self, index: AssetIndex) -> None:
        index.update([asset("a", "quarterly targets", EAST, path="sales/emea")], [])
        assert index.keyword_search("emea", {"a"}, 5) == []
        assert ids(index.keyword_search("targets", {"a"}, 5)) == ["a"]

    # -- similarities -------------------------------------------------------------------------

    def test_similarities_are_cosines_of_indexed_ids_only(self, library: AssetIndex) -> None:
        found = library.similarities(EAST, [PARSE, EXPORT, EMAIL, "not-indexed"])
        assert found == {
            PARSE: pytest.approx(1.0, abs=CLOSE),
            EXPORT: pytest.approx(0.8, abs=CLOSE),
            EMAIL: pytest.approx(0.0, abs=CLOSE),
        }
        assert library.similarities(NORTH, {EXPORT}) == {EXPORT: pytest.approx(0.6, abs=CLOSE)}
        assert library.similarities(EAST, []) == {}
        assert library.similarities(EAST, ["not-indexed"]) == {}

    # -- tenants and handles ------------------------------------------------------------------

    def test_tenants_never_see_each_other(self, make_index: IndexFactory) -> None:
        acme, globex = make_index("acme"), make_index("globex")
        acme.update([asset(PARSE, "parse csv file rows", EAST)], [])

        assert globex.stamps() == {}
        assert globex.vector_search(EAST, LIBRARY, 5) == []
        assert globex.keyword_search("parse csv", LIBRARY, 5) == []
        assert globex.similarities(EAST, LIBRARY) == {}

        globex.update([asset(PARSE, "archive old logs", NORTH, change_seq=2)], [])
        assert acme.stamps() == {PARSE: 1}
        assert acme.keyword_search("archive logs", LIBRARY, 5) == []
        assert globex.keyword_search("parse csv", LIBRARY, 5) == []
        assert acme.similarities(EAST, [PARSE]) == {PARSE: pytest.approx(1.0, abs=CLOSE)}

        globex.update([], [PARSE])
        assert globex.stamps() == {}
        assert acme.stamps() == {PARSE: 1}
        assert ids(acme.vector_search(EAST, LIBRARY, 5)) == [PARSE]

    def test_two_handles_of_one_tenant_see_each_others_writes(self, make_index: IndexFactory) -> None:
        reader, writer = make_index("acme"), make_index("acme")
        assert reader.vector_search(EAST, LIBRARY, 5) == []  # a reader that searched before the writes

        writer.update([asset(PARSE, "parse csv file rows", EAST)], [])
        assert reader.stamps() == {PARSE: 1}
        assert ids(reader.vector_search(EAST, LIBRARY, 5)) == [PARSE]
        assert ids(reader.keyword_search("csv", LIBRARY, 5)) == [PARSE]

        writer.update([asset(EXPORT, "export report", NORTH_EAST)], [PARSE])
        assert ids(reader.vector_search(EAST, LIBRARY, 5)) == [EXPORT]
        assert reader.keyword_search("csv", LIBRARY, 5) == []
        assert set(reader.similarities(EAST, LIBRARY)) == {EXPORT}
