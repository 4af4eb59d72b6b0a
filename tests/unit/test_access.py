"""The access rule on its own (agentmem.access): readability and deprecation follow the hierarchy,
writers may write only what they can read before and after, and a caller's role is resolved from
the auth context in a fixed order (agentmem.api.principals)."""

from __future__ import annotations

from typing import Any

import pytest

from agentmem.access import (
    Caller,
    Lineage,
    ancestor_paths,
    check_asset_write,
    deprecated_by,
    may_append_events,
    may_read,
    may_see,
    require_may_append_events,
    require_writer,
)
from agentmem.api.principals import caller_of
from agentmem.compose.model import AssetHeader
from agentmem.errors import ForbiddenError
from agentmem.settings import Settings

TABLE = "warehouse/analytics/customers_v2"


def header(path: str, *principals: str, deprecated: bool = False, asset_id: str | None = None) -> AssetHeader:
    return AssetHeader(
        asset_id=asset_id or path.replace("/", "."), path=path, kind="k", title=path,
        principals=principals or ("everyone",), deprecated=deprecated, change_seq=1,
    )  # fmt: skip


ANALYST = Caller.of(["analyst"])
FINANCE = Caller.of(["finance"])
WRITER = Caller.of(["analyst"], "writer")


def test_ancestor_paths_are_the_proper_prefixes_nearest_first() -> None:
    assert ancestor_paths(f"{TABLE}/columns/id") == [
        f"{TABLE}/columns",
        TABLE,
        "warehouse/analytics",
        "warehouse",
    ]
    assert ancestor_paths("warehouse") == []


def test_everyone_holds_everyone() -> None:
    assert "everyone" in Caller.of([]).principals
    assert may_read(Caller.of([]), header("wiki/page"), [])


def test_a_child_is_readable_only_by_callers_who_may_read_every_ancestor() -> None:
    table = header(TABLE, "finance")
    column = header(f"{TABLE}/columns/id", "everyone")
    assert not may_read(ANALYST, column, [table])
    assert may_read(FINANCE, column, [table])
    # Each level needs one of its own principals, not necessarily the same one.
    assert may_read(Caller.of(["analyst", "hr"]), header("a/b", "hr"), [header("a", "analyst")])
    assert not may_read(Caller.of(["hr"]), header("a/b", "hr"), [header("a", "analyst")])


def test_deprecation_is_inherited_from_the_nearest_deprecated_ancestor() -> None:
    table = header(TABLE, deprecated=True)
    column = header(f"{TABLE}/columns/id")
    assert deprecated_by(column, [header(f"{TABLE}/columns"), table]) is table
    assert deprecated_by(table, []) is table
    assert deprecated_by(column, [header(TABLE)]) is None


def test_readers_never_see_deprecated_assets_and_writers_still_do() -> None:
    table = header(TABLE, "analyst", deprecated=True)
    column = header(f"{TABLE}/columns/id", "analyst")
    assert not may_see(ANALYST, column, [table]) and not may_see(ANALYST, table, [])
    assert may_see(WRITER, column, [table]) and may_see(WRITER, table, [])
    assert not may_see(Caller.of(["hr"], "writer"), column, [table])  # the role grants no reading


def test_a_lineage_answers_for_the_whole_catalogue() -> None:
    lineage = Lineage(
        [
            header("warehouse"),
            header(TABLE, "analyst", "finance", deprecated=True),
            header(f"{TABLE}/columns/id"),
            header("warehouse/finance/payroll", "finance"),
            header("warehouse/finance/payroll/columns/salary"),
            header("wiki/page"),
        ]
    )
    assert lineage.readable(ANALYST) == {
        "warehouse", TABLE.replace("/", "."), f"{TABLE}/columns/id".replace("/", "."), "wiki.page"
    }  # fmt: skip
    assert "warehouse.finance.payroll.columns.salary" in lineage.readable(FINANCE)
    assert lineage.deprecated() == {TABLE.replace("/", "."), f"{TABLE}/columns/id".replace("/", ".")}
    assert [a.path for a in lineage.ancestors(f"{TABLE}/columns/id")] == [TABLE, "warehouse"]


def test_two_assets_at_one_path_both_govern_what_is_below_it() -> None:
    lineage = Lineage(
        [header("a", "analyst", asset_id="open"), header("a", "finance", asset_id="closed"), header("a/b")]
    )
    assert lineage.readable(ANALYST) == {"open"}
    assert lineage.readable(Caller.of(["analyst", "finance"])) == {"open", "closed", "a.b"}


def test_only_writers_write() -> None:
    with pytest.raises(ForbiddenError, match="writer role"):
        require_writer(ANALYST, "writing assets")
    require_writer(WRITER, "writing assets")


def test_every_caller_appends_events_whatever_its_role() -> None:
    # The rule the append route and the MCP server both ask (docs/access.md#appending-events).
    for caller in (Caller.of([]), ANALYST, WRITER):
        assert may_append_events(caller)
        require_may_append_events(caller)


def test_a_writer_may_not_replace_what_it_cannot_read() -> None:
    secret = header("warehouse/finance/payroll", "finance")
    lineage = Lineage([secret])
    rewrite = header("warehouse/finance/payroll", "everyone", asset_id=secret.asset_id)
    with pytest.raises(ForbiddenError) as info:
        check_asset_write(WRITER, [rewrite], {secret.asset_id: secret}, lineage)
    assert info.value.field == "assets[0].asset_id"
    check_asset_write(Caller.of(["finance"], "writer"), [rewrite], {secret.asset_id: secret}, lineage)


def test_a_writer_may_not_write_what_it_could_not_read_afterwards() -> None:
    lineage = Lineage([header("warehouse/finance", "finance")])
    for asset in (header("notes/x", "finance"), header("warehouse/finance/new_table", "analyst")):
        with pytest.raises(ForbiddenError) as info:
            check_asset_write(WRITER, [header("wiki/ok"), asset], {}, lineage)
        assert info.value.field == "assets[1].principals"


def test_ancestors_written_in_the_same_batch_count_as_they_will_stand() -> None:
    # The child comes first: it is refused for the parent written after it, not let through.
    with pytest.raises(ForbiddenError) as info:
        check_asset_write(WRITER, [header("a/b", "analyst"), header("a", "finance")], {}, Lineage([]))
    assert info.value.field == "assets[0].principals"
    check_asset_write(WRITER, [header("a/b", "analyst"), header("a", "analyst")], {}, Lineage([]))


@pytest.mark.parametrize(
    ("authorizer", "identity", "settings", "expected"),
    [
        ({"principals": "analyst"}, {}, {}, ("reader", {"analyst"})),
        ({"principals": "analyst,writer"}, {}, {}, ("writer", {"analyst", "writer"})),
        ({"principals": "writer", "role": "reader"}, {}, {}, ("reader", {"writer"})),  # the claim wins
        ({"principals": "analyst", "role": "writer"}, {}, {}, ("writer", {"analyst"})),
        ({"principals": "analyst", "role": "admin"}, {}, {}, ("reader", {"analyst"})),  # unknown: fail closed
        ({"principals": "pipeline"}, {}, {"writer_principals": "pipeline,ops"}, ("writer", {"pipeline"})),
        ({"principals": "writer"}, {}, {"writer_principals": "[]"}, ("reader", {"writer"})),
        ({}, {}, {}, ("reader", set())),
        ({}, {}, {"writer_principals": "everyone"}, ("writer", set())),  # an explicit opt-in
        (
            {},
            {"userArn": "arn:aws:sts::123456789012:assumed-role/catalogue-loader/run-7"},
            {"principal_map": '{"arn:aws:sts::123456789012:assumed-role/catalogue-loader/*": ["writer"]}'},
            ("writer", {"writer"}),
        ),
    ],
)  # fmt: skip
def test_the_role_comes_from_the_claim_else_the_writer_principals(
    authorizer: dict[str, str],
    identity: dict[str, str],
    settings: dict[str, Any],
    expected: tuple[str, set[str]],
) -> None:
    parsed = Settings.from_env({f"AGENTMEM_{k.upper()}": v for k, v in settings.items()})
    context: dict[str, Any] = {"identity": identity}
    if authorizer:
        context["authorizer"] = authorizer
    caller = caller_of(context, parsed.principal_map, parsed.writer_principals)
    assert (caller.role, set(caller.principals - {"everyone"})) == expected


def test_writer_principals_default_to_writer_and_parse_from_json_or_commas() -> None:
    assert Settings().writer_principals == ("writer",)
    assert Settings.from_env({"AGENTMEM_WRITER_PRINCIPALS": " a, b "}).writer_principals == ("a", "b")
    assert Settings.from_env({"AGENTMEM_WRITER_PRINCIPALS": '["a", "b"]'}).writer_principals == ("a", "b")
    with pytest.raises(ValueError, match="AGENTMEM_WRITER_PRINCIPALS"):
        Settings.from_env({"AGENTMEM_WRITER_PRINCIPALS": "not a principal"})
