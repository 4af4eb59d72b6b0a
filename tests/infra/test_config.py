"""TenantConfig: CDK context in, a clear error out when the context cannot make a stack."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import aws_cdk as cdk
import pytest

from infra.config import SearchCapacity, TenantConfig, TenantConfigError
from infra.constructs.functions import base_environment
from infra.paths import TENANTS_DIR
from infra.stack import build_tenant_app
from tests.infra.conftest import Synth, only, synthesize


class FakeContext:
    def __init__(self, **values: Any) -> None:
        self._values = values

    def try_get_context(self, key: str) -> Any:
        return self._values.get(key)


def test_defaults_for_a_bare_tenant() -> None:
    config = TenantConfig.from_context(FakeContext(tenant="acme"))
    assert config.stack_name == "agentmem-acme"
    assert config.inline_max_bytes == 32 * 1024
    assert config.procedural is True
    assert config.retain is True
    assert config.retention_days is None  # raw events and blobs are kept for good


def test_cli_strings_are_coerced() -> None:
    # `cdk synth -c key=value` always passes strings.
    config = TenantConfig.from_context(
        FakeContext(
            tenant="a-1",
            inlineMaxBytes="4096",
            procedural="false",
            removalPolicy="DESTROY",
            retentionDays="90",
        )
    )
    assert (config.inline_max_bytes, config.procedural, config.retain) == (4096, False, False)
    assert config.retention_days == 90


@pytest.mark.parametrize("tenant", ["Acme", "acme_corp", "", "a" * 33, "acme.io", "ünï"])
def test_invalid_tenant_names_the_key_and_the_rule(tenant: str) -> None:
    with pytest.raises(TenantConfigError, match=r"-c tenant=.* must match \^\[a-z0-9-\]\{1,32\}\$"):
        TenantConfig.from_context(FakeContext(tenant=tenant))


def test_missing_tenant_says_how_to_pass_it() -> None:
    with pytest.raises(TenantConfigError, match=r"-c tenant=\.\.\. is required .*cdk synth -c tenant=acme"):
        TenantConfig.from_context(FakeContext())


@pytest.mark.parametrize(
    ("key", "value"),
    [
        ("inlineMaxBytes", "999999999"),
        ("removalPolicy", "snapshot"),
        ("procedural", "maybe"),
        ("retentionDays", "0"),
        ("retentionDays", "a month"),
    ],
)
def test_invalid_option_names_the_key(key: str, value: str) -> None:
    with pytest.raises(TenantConfigError, match=rf"-c {key}='{value}'"):
        TenantConfig.from_context(FakeContext(tenant="acme", **{key: value}))


def test_app_with_invalid_tenant_fails_before_any_stack_is_built() -> None:
    app = cdk.App(context={"aws:cdk:bundling-stacks": [], "tenant": "ACME!"})
    with pytest.raises(TenantConfigError, match="tenant"):
        build_tenant_app(app)
    assert app.node.children == []


def test_model_defaults_are_the_adapters_defaults() -> None:
    # The stack grants exactly the models it configures; they must be the ones the adapters would call.
    from agentmem.adapters.aws.bedrock_embedder import DEFAULT_MODEL_ID as EMBEDDER_DEFAULT
    from agentmem.adapters.aws.bedrock_llm import DEFAULT_MODEL_ID as LLM_DEFAULT
    from agentmem.settings import Settings

    config = TenantConfig.from_context(FakeContext(tenant="acme"))
    assert config.bedrock_embedding_model == EMBEDDER_DEFAULT == Settings().bedrock_embedding_model
    assert config.bedrock_llm_model == LLM_DEFAULT


def test_model_ids_come_from_context() -> None:
    config = TenantConfig.from_context(
        FakeContext(
            tenant="acme",
            bedrockEmbeddingModel="cohere.embed-english-v3",
            bedrockLlmModel="eu.anthropic.claude-haiku-4-5-20251001-v1:0",
        )
    )
    assert config.bedrock_embedding_model == "cohere.embed-english-v3"
    assert config.bedrock_llm_model == "eu.anthropic.claude-haiku-4-5-20251001-v1:0"


@pytest.mark.parametrize(
    "model", ["*", "amazon.*", "arn:aws:bedrock:us-east-1::foundation-model/x", "A.b", ""]
)
def test_model_id_that_could_widen_the_iam_grant_is_refused(model: str) -> None:
    with pytest.raises(TenantConfigError, match=r"-c bedrockLlmModel=.* must match"):
        TenantConfig.from_context(FakeContext(tenant="acme", bedrockLlmModel=model))


def test_search_capacity_follows_the_removal_policy_by_default() -> None:
    production = TenantConfig.from_context(FakeContext(tenant="acme")).search_capacity
    assert production == SearchCapacity(instance_type="r7g.large.search", data_nodes=2, volume_gib=20)
    assert production.zone_aware is True
    dev = TenantConfig.from_context(FakeContext(tenant="acme", removalPolicy="destroy")).search_capacity
    assert dev == SearchCapacity(instance_type="t3.small.search", data_nodes=1, volume_gib=10)
    assert dev.zone_aware is False


def test_search_capacity_comes_from_context() -> None:
    config = TenantConfig.from_context(
        FakeContext(
            tenant="acme",
            removalPolicy="destroy",
            searchInstanceType="m7g.large.search",
            searchDataNodes="4",
            searchVolumeGib="50",
        )
    )
    assert config.search_capacity == SearchCapacity("m7g.large.search", data_nodes=4, volume_gib=50)
    assert config.search_capacity.zone_aware is True
    # A key left out still follows the removal policy.
    partial = TenantConfig.from_context(FakeContext(tenant="acme", searchDataNodes="1")).search_capacity
    assert partial == SearchCapacity("r7g.large.search", data_nodes=1, volume_gib=20)


@pytest.mark.parametrize(
    ("key", "value", "rule"),
    [
        ("searchDataNodes", "3", "even number"),
        ("searchDataNodes", "0", "greater than or equal to 1"),
        ("searchVolumeGib", "5", "greater than or equal to 10"),
        ("searchInstanceType", "r7g.large", "must match"),
        ("searchInstanceType", "R7G.large.search", "must match"),
    ],
)
def test_invalid_search_capacity_names_the_key(key: str, value: str, rule: str) -> None:
    with pytest.raises(TenantConfigError, match=rf"-c {key}='{value}'.*{rule}"):
        TenantConfig.from_context(FakeContext(tenant="acme", **{key: value}))


def test_access_settings_reach_every_function_only_when_the_context_sets_them() -> None:
    from infra.constructs.functions import base_environment

    bare = base_environment(TenantConfig.from_context(FakeContext(tenant="acme")))
    assert not {"AGENTMEM_PRINCIPAL_MAP", "AGENTMEM_WRITER_PRINCIPALS"} & set(bare)  # the functions' defaults
    loader = "arn:aws:sts::123456789012:assumed-role/catalogue-loader/*"
    config = TenantConfig.from_context(
        FakeContext(
            tenant="acme",
            principalMap=f'{{"{loader}": ["writer", "finance"]}}',  # `-c key=value` passes strings
            writerPrincipals="writer, publisher",
        )
    )
    env = base_environment(config)
    assert json.loads(env["AGENTMEM_PRINCIPAL_MAP"]) == {loader: ["writer", "finance"]}
    assert json.loads(env["AGENTMEM_WRITER_PRINCIPALS"]) == ["writer", "publisher"]


@pytest.mark.parametrize(
    ("key", "value"),
    [
        ("writerPrincipals", "writer, not a principal"),
        ("principalMap", '{"analyst-agent": ["analyst"]}'),  # not an ARN pattern
        ("principalMap", '{"arn:aws:iam::123456789012:role/x": "analyst"}'),  # not a list
    ],
)
def test_invalid_access_settings_name_the_key(key: str, value: str) -> None:
    with pytest.raises(TenantConfigError, match=rf"-c {key}"):
        TenantConfig.from_context(FakeContext(tenant="acme", **{key: value}))


# --- tenants/<tenant>.json, env, reserved concurrency, usage plan, alarm topic ------------------------

EXAMPLE_FILE = TENANTS_DIR / "example.json"


def _write(tmp_path: Path, tenant: str, body: Any) -> Path:
    path = tmp_path / f"{tenant}.json"
    path.write_text(body if isinstance(body, str) else json.dumps(body))
    return path


def test_a_tenant_file_can_refuse_undeclared_fact_keys_and_every_function_is_told(tmp_path: Path) -> None:
    from agentmem.settings import Settings

    default = TenantConfig.from_context(FakeContext(tenant="acme"), tmp_path)
    assert default.allow_undeclared_facts is True
    assert "AGENTMEM_ALLOW_UNDECLARED_FACTS" not in base_environment(default)  # the settings default: on
    _write(tmp_path, "acme", {"allowUndeclaredFacts": False})
    refused = TenantConfig.from_context(FakeContext(tenant="acme"), tmp_path)
    environment = base_environment(refused)
    assert environment["AGENTMEM_ALLOW_UNDECLARED_FACTS"] == "false"
    assert Settings.from_env(environment).allow_undeclared_facts is False
    assert Settings.from_env(base_environment(default)).allow_undeclared_facts is True
    with pytest.raises(TenantConfigError, match=r"-c allowUndeclaredFacts='maybe'"):
        TenantConfig.from_context(FakeContext(tenant="acme", allowUndeclaredFacts="maybe"), tmp_path)


def test_the_example_tenant_file_is_a_valid_config() -> None:
    config = TenantConfig.from_context(FakeContext(tenant="example"))
    raw = json.loads(EXAMPLE_FILE.read_text())
    assert (config.account, config.region) == (raw["account"], raw["region"])
    assert config.reserved_concurrency == raw["reservedConcurrency"]
    assert config.usage_plan is not None and config.usage_plan.keys == raw["usagePlan"]["keys"]
    assert config.alarm_email == raw["alarmEmail"]
    env = config.environment
    assert env is not None and (env.account, env.region) == ("123456789012", "eu-west-1")


def test_a_tenant_file_is_read_and_context_overrides_it_key_by_key(tmp_path: Path) -> None:
    _write(tmp_path, "acme", {"retentionDays": 30, "procedural": False, "searchDataNodes": 4})
    config = TenantConfig.from_context(FakeContext(tenant="acme", retentionDays="90"), tmp_path)
    assert (config.retention_days, config.procedural, config.search_capacity.data_nodes) == (90, False, 4)


def test_without_a_file_the_context_alone_decides(tmp_path: Path) -> None:
    config = TenantConfig.from_context(FakeContext(tenant="acme"), tmp_path)
    assert config.environment is None  # an environment-agnostic template, as before
    assert (config.reserved_concurrency, config.usage_plan) == (None, None)


@pytest.mark.parametrize(
    ("body", "message"),
    [
        ({"retentionDays": 0}, r"acme\.json: retentionDays=0: .*greater than or equal to 1"),
        ({"reservedConcurrency": {"writer": 5}}, r"acme\.json: reservedConcurrency\.writer"),
        ({"reservedConcurrency": {"write": 0}}, r"acme\.json: reservedConcurrency\.write=0"),
        ({"usagePlan": {"keys": []}}, r"acme\.json: usagePlan\.keys"),
        ({"usagePlan": {"keys": ["a"], "quotaPerDya": 5}}, r"acme\.json: usagePlan\.quotaPerDya"),
        ({"account": "12345"}, r"acme\.json: account='12345' must match"),
        ({"region": "Europe"}, r"acme\.json: region='Europe' must match"),
        ({"alarmEmail": "not-an-address"}, r"acme\.json: alarmEmail='not-an-address' must match"),
        ({"alarmTopicArn": "arn:aws:sqs:eu-west-1:123456789012:q"}, r"acme\.json: alarmTopicArn="),
        ({"unknownKey": 1}, r"acme\.json: unknownKey=1: Extra inputs are not permitted"),
        ({"tenant": "other"}, r"acme\.json: tenant='other' is not 'acme'"),
        ("[1, 2]", r"acme\.json: must be a JSON object"),
        ("{not json", r"acme\.json: not JSON"),
    ],
)
def test_a_bad_tenant_file_names_the_file_and_the_field(tmp_path: Path, body: Any, message: str) -> None:
    _write(tmp_path, "acme", body)
    with pytest.raises(TenantConfigError, match=message):
        TenantConfig.from_context(FakeContext(tenant="acme"), tmp_path)


def test_a_bad_context_value_over_a_good_file_is_named_as_context(tmp_path: Path) -> None:
    _write(tmp_path, "acme", {"reservedConcurrency": {"write": 5}})
    with pytest.raises(TenantConfigError, match=r"-c reservedConcurrency\.read="):
        TenantConfig.from_context(FakeContext(tenant="acme", reservedConcurrency='{"read": -1}'), tmp_path)


def test_a_tenant_id_that_is_not_an_id_never_becomes_a_path(tmp_path: Path) -> None:
    (tmp_path / "escape.json").write_text("{}")
    inner = tmp_path / "tenants"
    inner.mkdir()
    with pytest.raises(TenantConfigError, match=r"-c tenant='\.\./escape' must match"):
        TenantConfig.from_context(FakeContext(tenant="../escape"), inner)


def test_cli_json_strings_parse_for_nested_keys() -> None:
    config = TenantConfig.from_context(
        FakeContext(
            tenant="acme",
            reservedConcurrency='{"projector": 5}',
            usagePlan='{"keys": ["a"], "quotaPerDay": 10}',
            alarmTopicArn="arn:aws:sns:eu-west-1:123456789012:oncall",
        )
    )
    assert config.reserved_concurrency == {"projector": 5}
    assert config.usage_plan is not None and config.usage_plan.quota_per_day == 10


def test_two_alarm_destinations_are_refused_naming_both() -> None:
    with pytest.raises(TenantConfigError, match="set alarmTopicArn or alarmEmail, not both"):
        TenantConfig.from_context(
            FakeContext(
                tenant="acme",
                alarmEmail="a@example.com",
                alarmTopicArn="arn:aws:sns:eu-west-1:123456789012:x",
            )
        )


# --- what the options do to the stack (one synth for all of them) ------------------------------------


@pytest.fixture(scope="module")
def configured(tmp_path_factory: pytest.TempPathFactory) -> Synth:
    return synthesize(
        tmp_path_factory.mktemp("cdk-configured"),
        account="123456789012",
        region="eu-west-1",
        removalPolicy="destroy",
        reservedConcurrency='{"write": 40, "projector": 5}',
        usagePlan='{"keys": ["planner", "analyst"], "quotaPerDay": 1000, "rateLimit": 5, "burstLimit": 10}',
    )


@pytest.mark.slow
@pytest.mark.xdist_group("infra")
def test_account_and_region_become_the_stack_env(configured: Synth) -> None:
    assert (configured.stack.account, configured.stack.region) == ("123456789012", "eu-west-1")
    _, dashboard = only(configured.resources("AWS::CloudWatch::Dashboard"))
    assert dashboard["Properties"]["DashboardName"] == "agentmem-acme-eu-west-1"


@pytest.mark.slow
@pytest.mark.xdist_group("infra")
def test_reserved_concurrency_is_set_on_the_named_functions_only(configured: Synth) -> None:
    reserved = {
        props["Properties"]["Description"].split(":")[0]: props["Properties"].get(
            "ReservedConcurrentExecutions"
        )
        for props in configured.resources("AWS::Lambda::Function").values()
        if str(props["Properties"].get("Description", "")).startswith("agentmem ")
    }
    assert len(reserved) == 7
    assert reserved.pop("agentmem write path") == 40
    assert reserved.pop("agentmem projector") == 5
    assert set(reserved.values()) == {None}


@pytest.mark.slow
@pytest.mark.xdist_group("infra")
def test_usage_plan_meters_each_key_and_every_method_requires_one(configured: Synth) -> None:
    _, plan = only(configured.resources("AWS::ApiGateway::UsagePlan"))
    props = plan["Properties"]
    assert props["Quota"] == {"Limit": 1000, "Period": "DAY"}
    assert props["Throttle"] == {"RateLimit": 5, "BurstLimit": 10}
    (stage,) = props["ApiStages"]
    assert "Stage" in stage and "ApiId" in stage
    keys = configured.resources("AWS::ApiGateway::ApiKey")
    assert {k["Properties"]["Name"] for k in keys.values()} == {
        "agentmem-acme-planner",
        "agentmem-acme-analyst",
    }
    assert len(configured.resources("AWS::ApiGateway::UsagePlanKey")) == 2
    methods = configured.resources("AWS::ApiGateway::Method").values()
    assert methods and all(m["Properties"]["ApiKeyRequired"] is True for m in methods)
    assert all(m["Properties"]["AuthorizationType"] == "AWS_IAM" for m in methods)


@pytest.mark.slow
@pytest.mark.xdist_group("infra")
def test_without_a_usage_plan_no_method_asks_for_a_key(acme: Synth) -> None:
    assert acme.resources("AWS::ApiGateway::UsagePlan") == {}
    methods = acme.resources("AWS::ApiGateway::Method").values()
    assert not any(m["Properties"].get("ApiKeyRequired") for m in methods)
