"""The ShadowLedger contract: which generations `replay --shadow` built, with what settings, and
whether each build finished. Every adapter's test class subclasses ShadowLedgerContract and
provides `make_ledger(tenant_id)`: ledgers over one backing store, so a new ledger is a restart.

What any ledger guarantees: a build is `building` from begin until complete, and stays so if the
build dies; it outlives the ledger that wrote it; tenants are independent; builds list in
generation order; completing a build never begun is an error, not a silent record."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from agentmem.ports.generations import ShadowLedger

LedgerFactory = Callable[[str], ShadowLedger]


class ShadowLedgerContract:
    @pytest.fixture
    def make_ledger(self) -> LedgerFactory:
        raise NotImplementedError

    def test_a_build_is_building_until_completed(self, make_ledger: LedgerFactory) -> None:
        ledger = make_ledger("acme")
        settings = {
            "llm": "openai",
            "embedder_dimensions": 768,
            "allow_undeclared_facts": False,
            "fact_types": None,
        }
        begun = ledger.begin(2, 1, {"llm": "openai", "embedder": "openai"}, settings)
        assert (begun.generation, begun.live_generation, begun.state) == (2, 1, "building")
        assert begun.overrides == {"llm": "openai", "embedder": "openai"}
        assert begun.settings == settings  # JSON values keep their types
        done = ledger.complete(2, 40)
        assert (done.state, done.events_read) == ("complete", 40)
        assert ledger.get(2) == done

    def test_an_unknown_generation_is_none(self, make_ledger: LedgerFactory) -> None:
        assert make_ledger("acme").get(7) is None

    def test_an_interrupted_build_stays_building_across_a_restart(self, make_ledger: LedgerFactory) -> None:
        make_ledger("acme").begin(3, 1, {}, {})
        found = make_ledger("acme").get(3)
        assert found is not None and found.state == "building"

    def test_beginning_again_restarts_the_build(self, make_ledger: LedgerFactory) -> None:
        ledger = make_ledger("acme")
        ledger.begin(2, 1, {"llm": "rules"}, {"llm": "rules"})
        ledger.complete(2, 10)
        again = ledger.begin(2, 1, {"llm": "bedrock"}, {"llm": "bedrock"})
        assert (again.state, again.overrides, again.events_read) == ("building", {"llm": "bedrock"}, 0)

    def test_completing_a_build_never_begun_fails(self, make_ledger: LedgerFactory) -> None:
        with pytest.raises(KeyError):
            make_ledger("acme").complete(5, 1)

    def test_builds_list_in_generation_order_per_tenant(self, make_ledger: LedgerFactory) -> None:
        acme, other = make_ledger("acme"), make_ledger("globex")
        acme.begin(4, 1, {}, {})
        acme.begin(2, 1, {}, {})
        other.begin(3, 1, {}, {})
        assert [b.generation for b in acme.builds()] == [2, 4]
        assert [b.generation for b in other.builds()] == [3]
        assert other.get(2) is None
