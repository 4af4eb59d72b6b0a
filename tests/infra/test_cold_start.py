"""Per-tenant options behind the cold-start and fact-type decisions (docs/deploy.md): provisioned
concurrency or SnapStart on an alias per function, the write function's init without the X-Ray SDK,
and the tenant's fact types in every function's environment."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from agentmem.model.beliefs import Cardinality
from agentmem.settings import Settings
from infra.config import TenantConfig, TenantConfigError
from infra.constructs.functions import base_environment
from tests.infra.conftest import Synth, synthesize
from tests.infra.test_config import EXAMPLE_FILE, FakeContext

FACT_TYPES = [
    {"key": "pension_plan", "cardinality": "set", "description": "A pension plan the subject holds."},
    {"key": "city", "description": "Where the subject lives."},
]


@pytest.fixture(scope="module")
def tuned(tmp_path_factory: pytest.TempPathFactory) -> Synth:
    return synthesize(
        tmp_path_factory.mktemp("cdk-tuned"),
        provisionedConcurrency=json.dumps({"write": 3, "projector": 1}),
        snapStart="read",
        factTypes=json.dumps(FACT_TYPES),
    )


def _functions(synth: Synth) -> dict[str, dict[str, Any]]:
    return {
        logical_id: resource
        for logical_id, resource in synth.resources("AWS::Lambda::Function").items()
        if resource["Properties"].get("Handler") == "handler.handler"
    }


def _write_function_id(synth: Synth) -> str:
    return next(lid for lid in _functions(synth) if lid.startswith("ApiWriteFunction"))


def test_a_default_stack_provisions_nothing_and_invokes_the_functions_themselves(acme: Synth) -> None:
    assert acme.resources("AWS::Lambda::Alias") == {}
    assert acme.resources("AWS::Lambda::Version") == {}
    write = _write_function_id(acme)
    permissions = acme.resources("AWS::Lambda::Permission")
    assert any(
        p["Properties"]["FunctionName"] == {"Fn::GetAtt": [write, "Arn"]} for p in permissions.values()
    )


def test_provisioned_concurrency_is_on_an_alias_that_the_api_and_the_stream_invoke(tuned: Synth) -> None:
    aliases = tuned.resources("AWS::Lambda::Alias")
    provisioned = sorted(
        a["Properties"]["ProvisionedConcurrencyConfig"]["ProvisionedConcurrentExecutions"]
        for a in aliases.values()
        if "ProvisionedConcurrencyConfig" in a["Properties"]
    )
    assert provisioned == [1, 3]
    assert {a["Properties"]["Name"] for a in aliases.values()} == {"live"}
    assert len(aliases) == 3  # write, projector and read (SnapStart)
    write_alias = next(lid for lid in aliases if lid.startswith("ApiWriteFunction"))
    projector_alias = next(lid for lid in aliases if lid.startswith("ProjectorFunction"))
    permissions = [
        p["Properties"]["FunctionName"] for p in tuned.resources("AWS::Lambda::Permission").values()
    ]
    assert {"Ref": write_alias} in permissions  # API Gateway calls the alias, so requests use the warm ones
    write = _write_function_id(tuned)
    assert {"Fn::GetAtt": [write, "Arn"]} not in permissions
    mappings = tuned.resources("AWS::Lambda::EventSourceMapping")
    # The stream's mapping names the alias as `<function>:live`.
    targets = [json.dumps(m["Properties"]["FunctionName"]) for m in mappings.values()]
    assert any(projector_alias in target and ":live" in target for target in targets)


def test_snap_start_snapshots_published_versions_behind_the_alias(acme: Synth, tuned: Synth) -> None:
    snapped = [
        lid
        for lid, r in _functions(tuned).items()
        if r["Properties"].get("SnapStart") == {"ApplyOn": "PublishedVersions"}
    ]
    assert len(snapped) == 1 and snapped[0].startswith("ReadFunction")
    assert all("SnapStart" not in r["Properties"] for r in _functions(acme).values())
    read_alias = next(lid for lid in tuned.resources("AWS::Lambda::Alias") if lid.startswith("ReadFunction"))
    permissions = [
        p["Properties"]["FunctionName"] for p in tuned.resources("AWS::Lambda::Permission").values()
    ]
    assert {"Ref": read_alias} in permissions
    assert {"Fn::GetAtt": [snapped[0], "Arn"]} not in permissions


@pytest.mark.parametrize(
    ("context", "message"),
    [
        ({"snapStart": "projector"}, r"-c snapStart\.0='projector'"),
        ({"snapStart": "write", "provisionedConcurrency": '{"write": 1}'}, r"both name write"),
    ],
)
def test_snap_start_where_it_cannot_apply_fails_the_synth(context: dict[str, str], message: str) -> None:
    with pytest.raises(TenantConfigError, match=message):
        TenantConfig.from_context(FakeContext(tenant="acme", **context))


def test_provisioned_concurrency_over_the_reservation_names_both_keys() -> None:
    context = FakeContext(
        tenant="acme", reservedConcurrency='{"write": 2}', provisionedConcurrency='{"write": 5}'
    )
    with pytest.raises(
        TenantConfigError, match=r"provisionedConcurrency\.write=5 exceeds reservedConcurrency"
    ):
        TenantConfig.from_context(context)


@pytest.mark.parametrize(
    ("value", "message"),
    [
        ('{"writer": 1}', r"-c provisionedConcurrency\.writer"),
        ('{"write": 0}', r"-c provisionedConcurrency\.write=0"),
    ],
)
def test_a_bad_provisioned_concurrency_names_the_key(value: str, message: str) -> None:
    with pytest.raises(TenantConfigError, match=message):
        TenantConfig.from_context(FakeContext(tenant="acme", provisionedConcurrency=value))


def test_only_the_write_function_skips_the_xray_sdk(acme: Synth) -> None:
    disabled = {
        lid: resource["Properties"]["Environment"]["Variables"].get("POWERTOOLS_TRACE_DISABLED")
        for lid, resource in _functions(acme).items()
    }
    assert disabled.pop(_write_function_id(acme)) == "true"
    assert set(disabled.values()) == {None}  # the others keep the SDK's subsegments (OpenSearch, Bedrock)
    # Lambda's own active tracing stays on for all of them.
    assert {r["Properties"]["TracingConfig"]["Mode"] for r in _functions(acme).values()} == {"Active"}


def test_declared_fact_types_reach_every_function_as_the_settings_read_them(
    acme: Synth, tuned: Synth
) -> None:
    for resource in _functions(acme).values():
        assert "AGENTMEM_FACT_TYPES" not in resource["Properties"]["Environment"]["Variables"]
    values = {
        r["Properties"]["Environment"]["Variables"]["AGENTMEM_FACT_TYPES"] for r in _functions(tuned).values()
    }
    assert len(values) == 1
    declared = Settings.from_env({"AGENTMEM_FACT_TYPES": values.pop()}).declared_fact_types()
    assert [(t.key, t.cardinality, t.description) for t in declared] == [
        ("pension_plan", Cardinality.SET, "A pension plan the subject holds."),
        ("city", Cardinality.SINGLE, "Where the subject lives."),
    ]


def test_the_example_tenant_file_declares_fact_types_and_provisions_the_write_function() -> None:
    config = TenantConfig.from_context(FakeContext(tenant="example"))
    raw = json.loads(EXAMPLE_FILE.read_text())
    assert [t.key for t in config.fact_types or []] == [t["key"] for t in raw["factTypes"]]
    assert config.provisioned_concurrency == raw["provisionedConcurrency"]
    environment = base_environment(config)
    assert Settings.from_env(environment).declared_fact_types() == config.fact_types


@pytest.mark.parametrize(
    ("fact_types", "message"),
    [
        ([{"key": "Not A Key"}], r"acme\.json: factTypes\.0\.key='Not A Key'"),
        ([{"key": "goal", "cardinality": "many"}], r"acme\.json: factTypes\.0\.cardinality='many'"),
        ([{"key": "goal", "kind": "set"}], r"acme\.json: factTypes\.0\.kind"),
        ([{"key": "goal"}, {"key": "goal", "cardinality": "set"}], r"factTypes=.*repeated: goal"),
        ([], r"acme\.json: factTypes=\[\]"),
        ([{"key": f"k{i}", "description": "d" * 400} for i in range(8)], r"factTypes=.*over 2500"),
    ],
)
def test_bad_fact_types_fail_the_synth_naming_the_field(
    tmp_path: Path, fact_types: list[dict[str, Any]], message: str
) -> None:
    (tmp_path / "acme.json").write_text(json.dumps({"factTypes": fact_types}))
    with pytest.raises(TenantConfigError, match=message):
        TenantConfig.from_context(FakeContext(tenant="acme"), tmp_path)
