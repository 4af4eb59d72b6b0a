"""The composer's Catalogue and ConversationMemory contracts. Every adapter's test module subclasses
them and provides `make_catalogue(tenant_id)` / `make_memory(tenant_id)`: factories whose stores
share one backing store, so tenant isolation is tested where it can fail."""

from __future__ import annotations

from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from datetime import UTC, datetime, timedelta, timezone
from typing import Any

import pytest

from agentmem.compose.catalogue_rules import MAX_ASSETS_PER_WRITE, MAX_PAYLOAD_BYTES
from agentmem.compose.model import (
    Asset,
    AssetHeader,
    ComposerSkillSpec,
    Scope,
    StoredAsset,
)
from agentmem.errors import InvalidInputError, NotFoundError
from agentmem.model.dependents import BeliefRef
from agentmem.ports.catalogue import Catalogue, ConversationMemory

CatalogueFactory = Callable[[str], Catalogue]
MemoryFactory = Callable[[str], ConversationMemory]

WHEN = datetime(2026, 3, 1, 12, 30, 15, 250_000, tzinfo=UTC)


def asset(
    asset_id: str,
    path: str | None = None,
    *,
    title: str | None = None,
    payload: dict[str, Any] | None = None,
    principals: tuple[str, ...] = ("analysts",),
    deprecated: bool = False,
    body: str = "",
) -> Asset:
    return Asset(
        asset_id=asset_id,
        path=path or f"warehouse/analytics/{asset_id}",
        kind="table",
        title=title or f"Table {asset_id}",
        body=body,
        payload=payload if payload is not None else {"columns": ["id"]},
        principals=list(principals),
        deprecated=deprecated,
        updated_at=WHEN,
    )


def stored(source: Asset, change_seq: int) -> StoredAsset:
    return StoredAsset(**source.model_dump(), change_seq=change_seq)


def header(source: Asset, change_seq: int) -> AssetHeader:
    return AssetHeader(
        asset_id=source.asset_id,
        path=source.path,
        kind=source.kind,
        title=source.title,
        principals=tuple(source.principals),
        deprecated=source.deprecated,
        change_seq=change_seq,
    )


def over_the_limit(asset_id: str) -> Asset:
    return asset(asset_id, payload={"text": "x" * MAX_PAYLOAD_BYTES})


def spec(intent: str = "Answer revenue questions.", *, budget: int = 4000) -> ComposerSkillSpec:
    return ComposerSkillSpec(
        intent=intent,
        procedure="1. Find the metric.\n2. Cite the table.",
        scope=Scope(include=["warehouse/analytics/**"], exclude=["warehouse/analytics/tmp_*"]),
        budget_tokens=budget,
    )


class CatalogueContract:
    @pytest.fixture
    def make_catalogue(self) -> CatalogueFactory:
        raise NotImplementedError

    @pytest.fixture
    def catalogue(self, make_catalogue: CatalogueFactory) -> Catalogue:
        return make_catalogue("acme")

    # -- revision and change_seq -------------------------------------------------------------

    def test_a_new_catalogue_is_empty_at_revision_0(self, catalogue: Catalogue) -> None:
        assert catalogue.revision() == 0
        assert catalogue.headers() == []
        assert catalogue.get_assets(["a"]) == {}

    def test_the_beliefs_an_asset_cites_read_back_with_it_and_its_header(self, catalogue: Catalogue) -> None:
        cites = [
            BeliefRef(subject_id="priya", key="risk_tolerance"),
            BeliefRef(subject_id="p", key="diet", member="vegan"),
        ]
        citing = asset("a").model_copy(update={"cites": cites})
        catalogue.put_assets([citing, asset("b")])
        assert catalogue.get_assets(["a"])["a"].cites == cites
        assert catalogue.get_assets(["b"])["b"].cites == []
        assert {h.asset_id: h.cites for h in catalogue.headers()} == {"a": tuple(cites), "b": ()}

    def test_every_write_moves_the_revision_by_exactly_one(self, catalogue: Catalogue) -> None:
        assert catalogue.put_assets([asset("a"), asset("b")]) == 1
        assert catalogue.revision() == 1
        assert catalogue.put_assets([asset("c")]) == 2
        assert catalogue.put_assets([asset("c", title="Renamed")]) == 3
        assert catalogue.delete_asset("a") == 4
        assert catalogue.revision() == 4

    def test_change_seq_is_the_revision_of_the_last_write(self, catalogue: Catalogue) -> None:
        catalogue.put_assets([asset("a"), asset("b")])
        catalogue.put_assets([asset("b", title="B again")])
        got = catalogue.get_assets(["a", "b"])
        assert (got["a"].change_seq, got["b"].change_seq) == (1, 2)
        assert [h.change_seq for h in catalogue.headers()] == [1, 2]

    # -- writes ------------------------------------------------------------------------------

    def test_an_asset_round_trips_exactly(self, catalogue: Catalogue) -> None:
        source = asset(
            "dim_customers",
            "warehouse/analytics/dim_customers/columns/id",
            body="Customer dimension — one row per customer.",
            payload={"columns": [{"name": "id", "nullable": False}], "ratio": 0.1, "tiny": 1e-300, "n": None},
            principals=("sales", "analysts", "sales"),
            deprecated=True,
        )
        source = source.model_copy(
            update={"updated_at": datetime(2026, 3, 1, 9, tzinfo=timezone(timedelta(hours=2)))}
        )
        catalogue.put_assets([source])
        got = catalogue.get_assets(["dim_customers"])["dim_customers"]
        assert got == stored(source, 1)
        assert got.principals == ["analysts", "sales"]
        assert got.deprecated is True
        assert got.updated_at.utcoffset() == timedelta(hours=2)  # the instant and its offset

    def test_replacing_keeps_one_asset_per_id(self, catalogue: Catalogue) -> None:
        catalogue.put_assets([asset("a"), asset("b")])
        moved = asset("a", "warehouse/finance/a", title="Moved", payload={"v": 2}, principals=("finance",))
        catalogue.put_assets([moved])
        assert [h.asset_id for h in catalogue.headers()] == ["b", "a"]
        assert catalogue.headers()[1] == header(moved, 2)
        assert catalogue.get_assets(["a"]) == {"a": stored(moved, 2)}

    def test_a_refused_asset_leaves_the_whole_batch_unwritten(self, catalogue: Catalogue) -> None:
        catalogue.put_assets([asset("a")])
        with pytest.raises(InvalidInputError) as err:
            catalogue.put_assets([asset("b"), asset("a", title="Changed"), over_the_limit("big"), asset("c")])
        assert err.value.field == "payload"
        assert catalogue.revision() == 1
        assert catalogue.headers() == [header(asset("a"), 1)]
        assert set(catalogue.get_assets(["a", "b", "big", "c"])) == {"a"}

    def test_a_payload_at_the_limit_is_accepted(self, catalogue: Catalogue) -> None:
        envelope = len('{"text":""}')
        source = asset("big", payload={"text": "x" * (MAX_PAYLOAD_BYTES - envelope)})
        catalogue.put_assets([source])
        assert catalogue.get_assets(["big"])["big"] == stored(source, 1)

    @pytest.mark.parametrize("count", [0, MAX_ASSETS_PER_WRITE + 1])
    def test_a_batch_of_the_wrong_size_is_refused(self, catalogue: Catalogue, count: int) -> None:
        with pytest.raises(InvalidInputError) as err:
            catalogue.put_assets([asset(f"a{i}") for i in range(count)])
        assert err.value.field == "assets"
        assert catalogue.revision() == 0

    def test_a_full_batch_is_written_and_read_back(self, catalogue: Catalogue) -> None:
        first = [asset(f"a{i:03d}") for i in range(MAX_ASSETS_PER_WRITE)]
        catalogue.put_assets(first)
        catalogue.put_assets([asset(f"b{i:03d}") for i in range(50)])
        wanted = [a.asset_id for a in first] + [f"b{i:03d}" for i in range(50)] + ["nope"]
        got = catalogue.get_assets(wanted)
        assert len(got) == MAX_ASSETS_PER_WRITE + 50
        assert got["a042"] == stored(first[42], 1)
        assert got["b049"].change_seq == 2

    def test_a_batch_naming_an_id_twice_is_refused(self, catalogue: Catalogue) -> None:
        with pytest.raises(InvalidInputError) as err:
            catalogue.put_assets([asset("a"), asset("a", title="Twice")])
        assert err.value.field == "assets"
        assert catalogue.revision() == 0

    def test_deleting(self, catalogue: Catalogue) -> None:
        catalogue.put_assets([asset("a"), asset("b")])
        with pytest.raises(NotFoundError):
            catalogue.delete_asset("nope")
        assert catalogue.revision() == 1
        assert catalogue.delete_asset("a") == 2
        assert [h.asset_id for h in catalogue.headers()] == ["b"]
        assert catalogue.get_assets(["a"]) == {}
        with pytest.raises(NotFoundError):
            catalogue.delete_asset("a")
        assert catalogue.revision() == 2

    # -- reads -------------------------------------------------------------------------------

    def test_get_assets_ignores_unknown_ids(self, catalogue: Catalogue) -> None:
        catalogue.put_assets([asset("a"), asset("b")])
        assert set(catalogue.get_assets(["a", "ghost", "a"])) == {"a"}
        assert catalogue.get_assets([]) == {}

    def test_headers_are_ordered_by_path_then_id_and_hold_no_content(self, catalogue: Catalogue) -> None:
        batch = [
            asset("z1", "warehouse/analytics", body="long text", payload={"big": "x" * 1000}),
            asset("b2", "warehouse/analytics/orders", principals=("sales", "finance"), deprecated=True),
            asset("a9", "warehouse/analytics/orders"),
            asset("m5", "crm/accounts"),
            asset("c3", "warehouse/analytics-old"),
        ]
        catalogue.put_assets(batch)
        by_id = {a.asset_id: a for a in batch}
        # Plain code-point order of the whole path: `analytics-old` sorts before `analytics/orders`.
        expected = [header(by_id[i], 1) for i in ("m5", "z1", "c3", "a9", "b2")]
        headers = catalogue.headers()
        assert headers == expected
        assert headers[-1].principals == ("finance", "sales")
        assert headers[-1].deprecated is True

    def test_tenants_are_isolated(self, make_catalogue: CatalogueFactory) -> None:
        acme, globex = make_catalogue("acme"), make_catalogue("globex")
        acme.put_assets([asset("a")])
        acme.put_assets([asset("b")])
        assert globex.revision() == 0
        assert globex.headers() == []
        assert globex.get_assets(["a", "b"]) == {}
        with pytest.raises(NotFoundError):
            globex.delete_asset("a")
        assert globex.put_assets([asset("a", title="Globex A")]) == 1
        assert acme.get_assets(["a"])["a"].title == "Table a"
        assert acme.revision() == 2
        acme.put_skill("revenue", spec())
        with pytest.raises(NotFoundError):
            globex.get_skill("revenue")

    # -- skills ------------------------------------------------------------------------------

    def test_a_skill_is_versioned_on_change(self, catalogue: Catalogue) -> None:
        first = catalogue.put_skill("revenue", spec())
        assert (first.skill_id, first.version) == ("revenue", 1)
        assert first.scope == spec().scope
        written = datetime.fromisoformat(first.updated_at)
        assert written.utcoffset() == timedelta(0)
        assert abs(datetime.now(UTC) - written) < timedelta(minutes=5)
        assert catalogue.get_skill("revenue") == first

        second = catalogue.put_skill("revenue", spec(budget=6000))
        assert second.version == 2
        assert second.budget_tokens == 6000
        assert catalogue.get_skill("revenue") == second
        assert catalogue.put_skill("revenue", spec()).version == 3

    def test_restating_a_skill_returns_it_unchanged(self, catalogue: Catalogue) -> None:
        first = catalogue.put_skill("revenue", spec())
        assert catalogue.put_skill("revenue", spec()) == first
        assert catalogue.get_skill("revenue") == first

    def test_an_unknown_skill_is_not_found(self, catalogue: Catalogue) -> None:
        catalogue.put_skill("revenue", spec())
        with pytest.raises(NotFoundError):
            catalogue.get_skill("reven")

    def test_skills_are_not_assets(self, catalogue: Catalogue) -> None:
        """A skill write leaves the asset revision alone: it versions itself."""
        catalogue.put_skill("revenue", spec())
        assert catalogue.revision() == 0
        assert catalogue.headers() == []

    # -- concurrency -------------------------------------------------------------------------

    def test_concurrent_writers_lose_no_write(self, catalogue: Catalogue) -> None:
        """4 threads x 25 single-asset puts: 100 distinct revisions, each its asset's change_seq."""
        writers, per_writer = 4, 25

        def write_many(writer: int) -> list[tuple[str, int]]:
            ids = [f"w{writer}-{i:02d}" for i in range(per_writer)]
            return [(aid, catalogue.put_assets([asset(aid)])) for aid in ids]

        with ThreadPoolExecutor(max_workers=writers) as pool:
            written = dict(pair for batch in pool.map(write_many, range(writers)) for pair in batch)
        total = writers * per_writer
        assert sorted(written.values()) == list(range(1, total + 1))
        assert catalogue.revision() == total
        headers = catalogue.headers()
        assert {h.asset_id: h.change_seq for h in headers} == written


class ConversationMemoryContract:
    @pytest.fixture
    def make_memory(self) -> MemoryFactory:
        raise NotImplementedError

    @pytest.fixture
    def memory(self, make_memory: MemoryFactory) -> ConversationMemory:
        return make_memory("acme")

    def test_an_unknown_conversation_was_sent_nothing(self, memory: ConversationMemory) -> None:
        assert memory.sent("c1") == {}

    def test_records_merge(self, memory: ConversationMemory) -> None:
        memory.record("c1", {"a": "h1", "b": "h2"})
        memory.record("c1", {"b": "h3", "c": "h4"})
        memory.record("c1", {})
        assert memory.sent("c1") == {"a": "h1", "b": "h3", "c": "h4"}

    def test_conversations_and_tenants_are_isolated(self, make_memory: MemoryFactory) -> None:
        acme, globex = make_memory("acme"), make_memory("globex")
        acme.record("c1", {"a": "h1"})
        acme.record("c2", {"b": "h2"})
        globex.record("c1", {"z": "h9"})
        assert acme.sent("c1") == {"a": "h1"}
        assert acme.sent("c2") == {"b": "h2"}
        assert globex.sent("c1") == {"z": "h9"}
        assert globex.sent("c2") == {}
