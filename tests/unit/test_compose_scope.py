"""Scopes compile into a closed id set: globs match whole segments, rules that name nothing real
match nothing, exclusion wins, deprecated assets drop out, and malformed globs are named."""

from __future__ import annotations

import pytest

from agentmem.access import Caller
from agentmem.compose.model import AssetHeader, Scope
from agentmem.compose.scope import compile_glob, resolve_scope, validate_scope, visible_count
from agentmem.errors import InvalidInputError

PATHS = [
    "warehouse/analytics/dim_customers_v3",
    "warehouse/analytics/dim_customers_v3/columns/customer_id",
    "warehouse/analytics/fct_orders",
    "warehouse/raw/stripe_charges",
    "wiki/metrics/net_revenue",
    "wiki/metrics/net_revenue/sections/definition",
]


def headers(deprecated: frozenset[str] = frozenset()) -> list[AssetHeader]:
    return [
        AssetHeader(asset_id=p.replace("/", "."), path=p, kind="k", title=p, principals=("everyone",),
                    deprecated=p in deprecated, change_seq=n)
        for n, p in enumerate(PATHS, start=1)
    ]  # fmt: skip


@pytest.mark.parametrize(
    ("glob", "path", "matches"),
    [
        ("warehouse/*", "warehouse/analytics", True),
        ("warehouse/*", "warehouse", False),
        ("warehouse/*", "warehouse/analytics/fct_orders", False),
        ("warehouse/**", "warehouse", True),
        ("warehouse/**", "warehouse/analytics/dim_customers_v3/columns/customer_id", True),
        ("**/customer_id", "warehouse/analytics/dim_customers_v3/columns/customer_id", True),
        ("warehouse/analytics/dim_*", "warehouse/analytics/dim_customers_v3", True),
        ("warehouse/analytics/dim_*", "warehouse/analytics/fct_orders", False),
        ("wiki/metrics/net_revenue", "wiki/metrics/net_revenue/sections/definition", False),
        ("wiki/?etrics/**", "wiki/metrics/net_revenue", True),
    ],
)
def test_globs_match_whole_segments(glob: str, path: str, matches: bool) -> None:
    assert (compile_glob(glob).match(path + "/") is not None) is matches


@pytest.mark.parametrize("glob", ["", "/abs", "trailing/", "a//b", "a/**b", "a/[x]", "a/../b", "a/{x,y}"])
def test_malformed_globs_are_named_by_position(glob: str) -> None:
    with pytest.raises(InvalidInputError) as info:
        validate_scope(Scope(include=["wiki/**", glob]))
    assert info.value.field == "scope.include[1]"


def test_a_scope_with_no_rules_is_refused() -> None:
    with pytest.raises(InvalidInputError) as info:
        validate_scope(Scope(exclude=["wiki/**"]))
    assert info.value.field == "scope"


def test_rules_that_name_nothing_real_match_nothing() -> None:
    scope = resolve_scope(Scope(include=["warehouse/nowhere/**"], static_ids=["no.such.asset"]), headers(), 6)
    assert scope.ids == frozenset()
    assert scope.empty_rules == ["include:warehouse/nowhere/**", "static:no.such.asset"]


def test_exclusion_wins_and_deprecated_assets_drop_out() -> None:
    scope = resolve_scope(
        Scope(
            include=["warehouse/**"],
            exclude=["warehouse/raw/**"],
            static_ids=["warehouse.raw.stripe_charges"],
        ),
        headers(deprecated=frozenset({"warehouse/analytics/fct_orders"})),
        6,
    )
    assert scope.ids == {
        "warehouse.analytics.dim_customers_v3",
        "warehouse.analytics.dim_customers_v3.columns.customer_id",
    }
    assert (scope.excluded, scope.deprecated) == (1, 1)
    assert scope.freshness == 2  # the highest change_seq among the ids: what a cache compares


def test_everything_under_a_deprecated_asset_drops_out_with_it() -> None:
    scope = resolve_scope(
        Scope(include=["warehouse/**"]),
        headers(deprecated=frozenset({"warehouse/analytics/dim_customers_v3"})),
        6,
    )
    assert "warehouse.analytics.dim_customers_v3.columns.customer_id" not in scope.ids
    assert scope.deprecated == 2 and scope.ids == {
        "warehouse.analytics.fct_orders",
        "warehouse.raw.stripe_charges",
    }


def test_what_a_rule_matched_is_counted_per_caller_and_never_counts_hidden_assets() -> None:
    finance_only = [
        h.model_copy(update={"principals": ("finance",)}) if "raw" in h.path else h for h in headers()
    ]
    scope = resolve_scope(Scope(include=["warehouse/**"], exclude=["warehouse/raw/**"]), finance_only, 6)
    assert scope.rules_seen_by(Caller.of(["analyst"])) == {"include:warehouse/**": 3}
    assert scope.rules_seen_by(Caller.of(["finance"])) == {"include:warehouse/**": 4}
    assert visible_count(scope.excluded_tally, Caller.of(["analyst"])) == 0
    assert visible_count(scope.excluded_tally, Caller.of(["finance"])) == 1
