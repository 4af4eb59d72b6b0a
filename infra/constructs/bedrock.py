"""The Bedrock models a tenant's functions call: their ids in the environment, InvokeModel on just those."""

from __future__ import annotations

from dataclasses import dataclass

import aws_cdk as cdk
from aws_cdk import aws_iam as iam
from constructs import IConstruct

from infra.config import TenantConfig
from infra.nag import acknowledge

# A system-defined cross-region inference profile id is a foundation model id behind a geography prefix,
# e.g. `us.anthropic.claude-haiku-4-5-20251001-v1:0` (agentmem.adapters.aws.bedrock_llm.REGION_PREFIXES).
PROFILE_PREFIXES = frozenset({"us", "eu", "apac", "global", "us-gov", "jp", "au", "ca"})
# Converse is authorized as InvokeModel; neither adapter streams.
INVOKE_ACTIONS = ["bedrock:InvokeModel"]


def split_profile(model_id: str) -> tuple[str | None, str]:
    """(geography prefix or None, foundation model id) of a model id or inference profile id."""
    prefix, _, rest = model_id.partition(".")
    return (prefix, rest) if prefix in PROFILE_PREFIXES and rest else (None, model_id)


def foundation_model_arn(model_id: str, region: str | None = None) -> str:
    region = region if region is not None else cdk.Aws.REGION
    return f"arn:{cdk.Aws.PARTITION}:bedrock:{region}::foundation-model/{model_id}"


def inference_profile_arn(profile_id: str) -> str:
    region_account = f"{cdk.Aws.REGION}:{cdk.Aws.ACCOUNT_ID}"
    return f"arn:{cdk.Aws.PARTITION}:bedrock:{region_account}:inference-profile/{profile_id}"


@dataclass(frozen=True)
class BedrockModels:
    """The embedding model and the LLM (extraction, verdicts) of one tenant stack, from TenantConfig."""

    embedding_model: str
    llm_model: str

    @classmethod
    def from_config(cls, config: TenantConfig) -> BedrockModels:
        return cls(embedding_model=config.bedrock_embedding_model, llm_model=config.bedrock_llm_model)

    @property
    def environment(self) -> dict[str, str]:
        """The ids agentmem.settings.Settings reads, so a function calls exactly what it was granted."""
        return {
            "AGENTMEM_BEDROCK_EMBEDDING_MODEL": self.embedding_model,
            "AGENTMEM_BEDROCK_LLM_MODEL": self.llm_model,
        }

    def grant_invoke(self, grantee: iam.IGrantable, scope: IConstruct) -> None:
        """InvokeModel on each model in this region. For an inference profile: on the profile, and on its
        foundation model in any region, but only when called through that profile."""
        for model_id in sorted({self.embedding_model, self.llm_model}):
            prefix, base_id = split_profile(model_id)
            if prefix is None:
                iam.Grant.add_to_principal(
                    grantee=grantee, actions=INVOKE_ACTIONS, resource_arns=[foundation_model_arn(model_id)]
                )
                continue
            profile = inference_profile_arn(model_id)
            iam.Grant.add_to_principal(grantee=grantee, actions=INVOKE_ACTIONS, resource_arns=[profile])
            grantee.grant_principal.add_to_principal_policy(
                iam.PolicyStatement(
                    actions=INVOKE_ACTIONS,
                    resources=[foundation_model_arn(base_id, region="*")],
                    conditions={"StringEquals": {"bedrock:InferenceProfileArn": profile}},
                )
            )
            acknowledge(
                scope,
                "AwsSolutions-IAM5",
                "A cross-region inference profile routes to its model in any region of its geography; "
                "the grant holds only for calls made through this one profile (bedrock:InferenceProfileArn).",
                f"Resource::arn:<AWS::Partition>:bedrock:*::foundation-model/{base_id}",
            )


# Rerank has no resource-level permission: the action is granted on `*`, and InvokeModel on the one model.
RERANK_ACTIONS = ["bedrock:Rerank"]


def grant_rerank(grantee: iam.IGrantable, scope: IConstruct, model_id: str) -> dict[str, str]:
    """Let `grantee` rerank with `model_id`; returns the environment that names the model."""
    model_arn = foundation_model_arn(model_id)
    iam.Grant.add_to_principal(grantee=grantee, actions=RERANK_ACTIONS, resource_arns=["*"])
    iam.Grant.add_to_principal(grantee=grantee, actions=INVOKE_ACTIONS, resource_arns=[model_arn])
    acknowledge(
        scope,
        "AwsSolutions-IAM5",
        "bedrock:Rerank supports no resource-level permissions; the model it may invoke is granted by ARN.",
        "Resource::*",
    )
    return {"AGENTMEM_BEDROCK_RERANK_MODEL": model_arn}
