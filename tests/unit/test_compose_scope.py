"""Scopes compile into a closed id set: globs match whole segments, rules that name nothing real
match nothing, exclusion wins, deprecated assets drop out, and malformed globs are named."""

from __future__ import annotations

import pytest

from agentmem.compose.model import AssetHeader, Scope
from agentmem.compose.scope import compile_glob, resolve_scope, validate_scope
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
