"""The tenant's OpenSearch Service domain, which holds the belief indexes, with its logs and access policy.

A managed domain, not an OpenSearch Serverless collection: the belief adapter
(agentmem.adapters.aws.opensearch_beliefs) writes with client-chosen document ids, `op_type=create`,
`if_seq_no`/`if_primary_term` compare-and-set and `_refresh`, none of which a VECTORSEARCH collection
supports. The adapter signs for service `es` because the endpoint is not an `.aoss.` host.

Access is IAM only, through the domain access policy (a resource policy): it names this stack's projector
role (read and write), read roles (read and search), the erasure role, the replay worker and the replay
operator role (infra/constructs/replay.py), and nobody else, so the roles need no identity
statements of their own; within one account either kind of policy grants access. Fine-grained access
control is left off: it would add a master user and role mappings made through the security plugin's
REST API after each deploy, for two roles that IAM already tells apart.

Why a public endpoint and no VPC: the functions run outside a VPC, and a VPC would mean subnets and NAT
(or endpoints for DynamoDB, S3 and Bedrock) per tenant. Every request must still be SigV4-signed over
HTTPS (TLS 1.2 or later) by a principal the access policy or an identity policy in this account allows.
"""

from __future__ import annotations

import hashlib

import aws_cdk as cdk
from aws_cdk import aws_ec2 as ec2
from aws_cdk import aws_iam as iam
from aws_cdk import aws_logs as logs
from aws_cdk import aws_opensearchservice as opensearch
from constructs import Construct

from infra.config import APP_NAME, TenantConfig
from infra.nag import acknowledge

NAME_LIMIT = 28  # domain names: 3-28 characters, [a-z][a-z0-9-]+
DOMAIN_PREFIX = "am-"
# Every OpenSearch log group of every tenant starts so; the account stack's log-delivery policy covers them.
LOG_GROUP_PREFIX = f"{APP_NAME}-"
ENGINE_VERSION = opensearch.EngineVersion.OPENSEARCH_2_19  # faiss with cosinesimil needs 2.19 or later
LOG_RETENTION = logs.RetentionDays.ONE_MONTH

READ_ACTIONS = ("es:ESHttpGet", "es:ESHttpHead")
# opensearch-py sends searches and counts as POST with a body: the read role may POST to these and no more
# (`<index>/_search`, `<index>/_count`; the adapter always names the index).
SEARCH_ACTIONS = ("es:ESHttpPost",)
SEARCH_PATHS = ("*/_search", "*/_count")
# The erasure function: POST _refresh and _delete_by_query on the belief, observation and history
# passage (events) indices of any generation.
INDEX_PREFIX = "agentmem"  # agentmem.settings.Settings.opensearch_prefix, which the stack leaves as is
GENERATION_KINDS = ("beliefs", "observations", "events")
ERASE_PATHS = tuple(
    f"{INDEX_PREFIX}-{kind}-g*/{api}" for kind in GENERATION_KINDS for api in ("_refresh", "_delete_by_query")
)
# What the projector sends (agentmem.adapters.aws.opensearch_belief_store, _beliefs, _tenant_index), and
# nothing else: no DELETE, no `_cluster/*`, no index of another prefix, no root `_bulk`. Generation N of
# the belief tier is `agentmem-beliefs-gN` + `agentmem-observations-gN` behind the aliases `agentmem-beliefs`
# and `agentmem-observations`, and the history passages' `agentmem-events-gN` behind `agentmem-events`
# (opensearch_passages); the skill and asset indexes are `agentmem-skills` and `agentmem-assets`.
BELIEF_INDEXES = tuple(f"{INDEX_PREFIX}-{kind}-g*" for kind in GENERATION_KINDS)
EVENTS_INDEX = BELIEF_INDEXES[2]
LIBRARY_INDEXES = tuple(f"{INDEX_PREFIX}-{kind}" for kind in ("skills", "assets"))
PROJECTOR_PATHS: dict[str, tuple[str, ...]] = {
    # Documents and index metadata (exists checks are HEAD), and the aliases' current targets.
    "es:ESHttpGet": (f"{INDEX_PREFIX}-*", f"_alias/{INDEX_PREFIX}-*"),
    "es:ESHttpHead": (f"{INDEX_PREFIX}-*",),
    # Index creation, and documents put by id with compare-and-set (`<index>/_doc/<id>`).
    "es:ESHttpPut": (*BELIEF_INDEXES, *LIBRARY_INDEXES),
    "es:ESHttpPost": (
        # Bulk writes go to each index's own path: the domain refuses an `_index` in a bulk body.
        *(f"{index}/{api}" for index in (*BELIEF_INDEXES, *LIBRARY_INDEXES) for api in ("_bulk", "_search")),
        *(f"{index}/{api}" for index in BELIEF_INDEXES for api in ("_refresh", "_delete_by_query")),
        f"{BELIEF_INDEXES[0]}/_count",
        # The history passages: which of a batch are indexed already, and how many a subject has.
        f"{EVENTS_INDEX}/_mget",
        f"{EVENTS_INDEX}/_count",
        # A new generation goes live by moving both aliases in one call (its body names the indexes).
        "_aliases",
    ),
}
# The replay worker's share of PROJECTOR_PATHS: the generation indexes (and the aliases it moves), never
# the skill or asset indexes, which a replay of the log does not write.
GENERATION_PATHS: dict[str, tuple[str, ...]] = {
    action: tuple(path for path in paths if not path.startswith(LIBRARY_INDEXES))
    for action, paths in PROJECTOR_PATHS.items()
}
# Off, a `_bulk` body could name any index whatever the path said, and path-scoped grants would mean little.
ADVANCED_OPTIONS = {"rest.action.multi.allow_explicit_index": "false"}


def domain_name(tenant: str) -> str:
    """`am-<tenant>`. A tenant id too long for the limit is cut and given a hash suffix, so two long tenant
    ids that share a prefix still get different domains."""
    name = f"{DOMAIN_PREFIX}{tenant}"
    if len(name) <= NAME_LIMIT:
        return name
    digest = hashlib.sha256(tenant.encode()).hexdigest()[:6]
    return f"{DOMAIN_PREFIX}{tenant[: NAME_LIMIT - len(DOMAIN_PREFIX) - 1 - len(digest)]}-{digest}"


class SearchDomain(Construct):
    """The tenant's OpenSearch 2.19 domain; functions get access through `grant_read`/`grant_write`."""

    def __init__(self, scope: Construct, construct_id: str, *, config: TenantConfig) -> None:
        super().__init__(scope, construct_id)
        self.name = domain_name(config.tenant)
        self._config = config
        self._removal_policy = cdk.RemovalPolicy.RETAIN if config.retain else cdk.RemovalPolicy.DESTROY
        # Formatted from the name: `domain.domain_arn` is a GetAtt, which the domain's own access policy
        # (and the log policy the domain waits for) cannot reference.
        self.arn = cdk.Stack.of(self).format_arn(service="es", resource="domain", resource_name=self.name)
        # Rendered at synth, once every function has asked for its access.
        self.access_policy = iam.PolicyDocument()
        # Named `agentmem-<tenant>-opensearch-<kind>`: the account stack's one log-delivery policy covers
        # every `agentmem-*` group (infra/account.py), so a tenant stack adds no resource policy of its own.
        self.log_groups = {
            kind: logs.LogGroup(
                self,
                f"{kind}Logs",
                log_group_name=f"{LOG_GROUP_PREFIX}{config.tenant}-opensearch-{slug}",
                retention=LOG_RETENTION,
                removal_policy=self._removal_policy,
            )
            for kind, slug in (("SlowSearch", "slow-search"), ("SlowIndex", "slow-index"), ("App", "app"))
        }
        self.domain = self._build_domain()
        cfn_domain = self.domain.node.default_child
        assert isinstance(cfn_domain, opensearch.CfnDomain)
        cfn_domain.access_policies = self.access_policy
        self._acknowledge_findings()

    @property
    def endpoint(self) -> str:
        """https://search-<name>-<id>.<region>.es.amazonaws.com (what AGENTMEM_OPENSEARCH_URL takes)."""
        return f"https://{self.domain.domain_endpoint}"

    @property
    def environment(self) -> dict[str, str]:
        return {"AGENTMEM_OPENSEARCH_URL": self.endpoint}

    def grant_read(self, role: iam.IRole) -> None:
        """Get documents and aliases, search and count; create or change nothing."""
        self._allow(role, READ_ACTIONS, "*")
        self._allow(role, SEARCH_ACTIONS, *SEARCH_PATHS)

    def grant_write(self, role: iam.IRole) -> None:
        """What the projector sends to the agentmem indexes: create them, read and write their documents,
        bulk, search, refresh, purge an erased subject, move the aliases (PROJECTOR_PATHS)."""
        for action, paths in PROJECTOR_PATHS.items():
            self._allow(role, (action,), *paths)

    def grant_generation_write(self, role: iam.IRole) -> None:
        """What a replay sends (GENERATION_PATHS): the belief, observation and passage indexes of any
        generation, and the aliases; no skill or asset index."""
        for action, paths in GENERATION_PATHS.items():
            self._allow(role, (action,), *paths)

    def grant_erase(self, role: iam.IRole) -> None:
        """Refresh and delete-by-query on the belief and observation indices of every generation:
        what erasing a subject sends (OpenSearchBeliefStore.forget_subject), and nothing else."""
        self._allow(role, SEARCH_ACTIONS, *ERASE_PATHS)

    def _allow(self, role: iam.IRole, actions: tuple[str, ...], *paths: str) -> None:
        self.access_policy.add_statements(
            iam.PolicyStatement(
                principals=[iam.ArnPrincipal(role.role_arn)],
                actions=list(actions),
                resources=[f"{self.arn}/{path}" for path in paths],
            )
        )

    def _build_domain(self) -> opensearch.Domain:
        capacity = self._config.search_capacity
        return opensearch.Domain(
            self,
            "Domain",
            domain_name=self.name,
            version=ENGINE_VERSION,
            capacity=opensearch.CapacityConfig(
                data_node_instance_type=capacity.instance_type,
                data_nodes=capacity.data_nodes,
                # Standby needs three zones and dedicated cluster manager nodes (and no t3): not at this size.
                multi_az_with_standby_enabled=False,
            ),
            zone_awareness=(
                opensearch.ZoneAwarenessConfig(enabled=True, availability_zone_count=2)
                if capacity.zone_aware
                else opensearch.ZoneAwarenessConfig(enabled=False)
            ),
            ebs=opensearch.EbsOptions(
                enabled=True, volume_size=capacity.volume_gib, volume_type=ec2.EbsDeviceVolumeType.GP3
            ),
            encryption_at_rest=opensearch.EncryptionAtRestOptions(enabled=True),
            node_to_node_encryption=True,
            enforce_https=True,
            tls_security_policy=opensearch.TLSSecurityPolicy.TLS_1_2_PFS,
            logging=opensearch.LoggingOptions(
                slow_search_log_enabled=True,
                slow_search_log_group=self.log_groups["SlowSearch"],
                slow_index_log_enabled=True,
                slow_index_log_group=self.log_groups["SlowIndex"],
                app_log_enabled=True,
                app_log_group=self.log_groups["App"],
            ),
            # The account stack's policy lets OpenSearch Service write the groups (infra/account.py).
            suppress_logs_resource_policy=True,
            # An engine version bump upgrades in place; without this CloudFormation would replace the domain.
            enable_version_upgrade=True,
            advanced_options=ADVANCED_OPTIONS,
            removal_policy=self._removal_policy,
        )

    def _acknowledge_findings(self) -> None:
        projection = (
            "The indexes are projections of the log table, which is the only copy of the data; the replay "
            "state machine (infra/constructs/replay.py) rebuilds them from an export of it."
        )
        acknowledge(
            self.domain,
            "AwsSolutions-OS1",
            "No VPC: the functions run outside a VPC, and one would need subnets and NAT or endpoints per "
            "tenant. Requests are SigV4-signed over HTTPS; the access policy names only this stack's roles.",
        )
        acknowledge(
            self.domain,
            "AwsSolutions-OS3",
            "Lambda functions have no fixed source IPs to allowlist. Access is by IAM principal instead: the "
            "access policy allows only this stack's projector and read roles, and every request is signed.",
        )
        acknowledge(
            self.domain,
            "AwsSolutions-OS4",
            "Three dedicated cluster manager nodes would cost more than the one or two data nodes of a "
            f"tenant's belief index; the data nodes manage the cluster themselves. {projection}",
        )
        if not self._config.search_capacity.zone_aware:
            acknowledge(
                self.domain,
                "AwsSolutions-OS7",
                "A single-node domain (the dev default) cannot span zones; two or more data nodes (the "
                f"default of a retained stack) enable zone awareness. {projection}",
            )
