"""TenantConfig: CDK context in, a clear error out when the context cannot make a stack."""

from __future__ import annotations

import json
from typing import Any

import aws_cdk as cdk
import pytest

from infra.config import SearchCapacity, TenantConfig, TenantConfigError
from infra.stack import build_tenant_app


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
