"""The one-time account stack, `agentmem-account` (`cdk deploy -c account=true`), once per account and region.

It holds what an account has one of per region, so that no tenant stack owns, overrides or races for it:

- API Gateway's CloudWatch role and the account setting naming it (`AWS::ApiGateway::Account`): REST API
  access and execution logs need it. One setting per region, so the last stack to set it wins; tenant
  stacks therefore set `cloudWatchRole: false` and rely on this one.
- the CloudWatch Logs resource policy that lets OpenSearch Service deliver slow and error logs. An
  account holds at most 10 such policies per region; one per tenant would cap an account at ten tenants.
  This one covers every `agentmem-*` log group, for any `am-*` domain of this account (infra/constructs/
  vectors.py names both).

Both are retained on delete: tenants keep logging if this stack is removed by mistake.
"""

from __future__ import annotations

from typing import Any

import aws_cdk as cdk
from aws_cdk import aws_apigateway as apigw
from aws_cdk import aws_iam as iam
from aws_cdk import aws_logs as logs
from constructs import Construct

from infra.config import APP_NAME
from infra.constructs.vectors import DOMAIN_PREFIX, LOG_GROUP_PREFIX
from infra.nag import acknowledge, add_checks

ACCOUNT_STACK_NAME = f"{APP_NAME}-account"
LOG_POLICY_NAME = f"{APP_NAME}-opensearch-logs"
PUSH_TO_CLOUDWATCH = "service-role/AmazonAPIGatewayPushToCloudWatchLogs"


class AccountStack(cdk.Stack):
    def __init__(self, scope: Construct, **kwargs: Any) -> None:
        super().__init__(
            scope,
            ACCOUNT_STACK_NAME,
            stack_name=ACCOUNT_STACK_NAME,
            description="agentmem account-level settings, shared by every tenant stack in this region",
            **kwargs,
        )
        self.api_gateway_role = self._build_api_gateway_logging()
        self.log_delivery_policy = self._build_log_delivery_policy()
        cdk.Tags.of(self).add("app", APP_NAME)

    def _build_api_gateway_logging(self) -> iam.Role:
        role = iam.Role(
            self,
            "ApiGatewayCloudWatchRole",
            assumed_by=iam.ServicePrincipal("apigateway.amazonaws.com"),
            managed_policies=[iam.ManagedPolicy.from_aws_managed_policy_name(PUSH_TO_CLOUDWATCH)],
        )
        role.apply_removal_policy(cdk.RemovalPolicy.RETAIN)
        account = apigw.CfnAccount(self, "ApiGatewayAccount", cloud_watch_role_arn=role.role_arn)
        account.apply_removal_policy(cdk.RemovalPolicy.RETAIN)
        acknowledge(
            role,
            "AwsSolutions-IAM4",
            "AmazonAPIGatewayPushToCloudWatchLogs is the AWS-managed policy made for this service role.",
            f"Policy::arn:<AWS::Partition>:iam::aws:policy/{PUSH_TO_CLOUDWATCH}",
        )
        return role

    def _build_log_delivery_policy(self) -> logs.ResourcePolicy:
        log_groups = self.format_arn(
            service="logs",
            resource="log-group",
            resource_name=f"{LOG_GROUP_PREFIX}*",
            arn_format=cdk.ArnFormat.COLON_RESOURCE_NAME,
        )
        domains = self.format_arn(service="es", resource="domain", resource_name=f"{DOMAIN_PREFIX}*")
        policy = logs.ResourcePolicy(
            self,
            "OpenSearchLogDelivery",
            resource_policy_name=LOG_POLICY_NAME,
            policy_statements=[
                iam.PolicyStatement(
                    principals=[iam.ServicePrincipal("es.amazonaws.com")],
                    actions=["logs:CreateLogStream", "logs:PutLogEvents"],
                    resources=[log_groups],  # the group and its streams: `*` matches `:` too
                    conditions={
                        "StringEquals": {"aws:SourceAccount": self.account},
                        "ArnLike": {"aws:SourceArn": domains},
                    },
                )
            ],
        )
        policy.apply_removal_policy(cdk.RemovalPolicy.RETAIN)
        return policy


def build_account_app(app: cdk.App) -> AccountStack:
    stack = AccountStack(app)
    add_checks(app)
    return stack
