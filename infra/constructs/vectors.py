"""The tenant's OpenSearch Serverless vector collection, which holds the belief indexes, and its policies.

A collection needs three policies besides IAM: encryption (AWS-owned key), network (here: public endpoint)
and data access (which principals may do what to which index). A request must pass both the data access
policy and IAM (`aoss:APIAccessAll` on the collection); this construct writes both from one grant call.

Why a public endpoint: the functions run outside a VPC, and a VPC endpoint would mean a VPC, subnets and
NAT (or more endpoints for DynamoDB, S3, Bedrock) per tenant. Every request is still SigV4-signed and must
match the data access policy, which names only this stack's function roles, so the endpoint answers
nobody else. Dashboards are left out of the network policy, so they are not reachable at all.
"""

from __future__ import annotations

import hashlib
import json
from typing import Any

import aws_cdk as cdk
import jsii
from aws_cdk import aws_iam as iam
from aws_cdk import aws_opensearchserverless as aoss
from constructs import Construct

from infra.config import TenantConfig

NAME_LIMIT = 32  # collections and their policies alike: 3-32 characters, [a-z][a-z0-9-]+
READ_INDEX = ("aoss:DescribeIndex", "aoss:ReadDocument")
WRITE_INDEX = (*READ_INDEX, "aoss:CreateIndex", "aoss:UpdateIndex", "aoss:WriteDocument")
# Collection items are index templates and aliases; a replay moves the alias to a new generation.
READ_COLLECTION = ("aoss:DescribeCollectionItems",)
WRITE_COLLECTION = (*READ_COLLECTION, "aoss:CreateCollectionItems", "aoss:UpdateCollectionItems")


def collection_name(tenant: str) -> str:
    """`am-<tenant>`. A tenant id too long for the limit is cut and given a hash suffix, so two long tenant
    ids that share a prefix still get different collections."""
    name = f"am-{tenant}"
    if len(name) <= NAME_LIMIT:
        return name
    digest = hashlib.sha256(tenant.encode()).hexdigest()[:6]
    return f"am-{tenant[: NAME_LIMIT - len('am--') - len(digest)]}-{digest}"


@jsii.implements(cdk.IStableStringProducer)
class _DataAccessDocument:
    """Rendered at synth, once every function has asked for its access."""

    def __init__(self, scope: Construct, collection: str) -> None:
        self._scope = scope
        self._collection = collection
        self.readers: list[str] = []
        self.writers: list[str] = []

    def produce(self) -> str | None:
        rules = [
            (self.writers, WRITE_INDEX, WRITE_COLLECTION, "read, write and create indexes"),
            (self.readers, READ_INDEX, READ_COLLECTION, "read only"),
        ]
        index = f"index/{self._collection}/*"
        collection = f"collection/{self._collection}"
        document: list[dict[str, Any]] = [
            {
                "Description": description,
                "Rules": [
                    {"ResourceType": "index", "Resource": [index], "Permission": list(index_permissions)},
                    {"ResourceType": "collection", "Resource": [collection], "Permission": list(permissions)},
                ],
                "Principal": principals,
            }
            for principals, index_permissions, permissions, description in rules
            if principals
        ]
        return cdk.Stack.of(self._scope).to_json_string(document)


class VectorCollection(Construct):
    """The tenant's VECTORSEARCH collection; functions get access through `grant_read`/`grant_write`."""

    def __init__(self, scope: Construct, construct_id: str, *, config: TenantConfig) -> None:
        super().__init__(scope, construct_id)
        self.name = collection_name(config.tenant)
        self._config = config
        encryption = self._build_encryption_policy()
        network = self._build_network_policy()
        self.collection = self._build_collection()
        # The collection cannot be created before a policy covers its name.
        self.collection.node.add_dependency(encryption, network)
        self._access = _DataAccessDocument(self, self.name)
        self.access_policy = aoss.CfnAccessPolicy(
            self,
            "DataAccessPolicy",
            name=self.name,
            type="data",
            description=f"agentmem {config.tenant}: only this stack's function roles",
            policy=cdk.Lazy.string(self._access),
        )

    @property
    def endpoint(self) -> str:
        """https://<id>.<region>.aoss.amazonaws.com (what AGENTMEM_OPENSEARCH_URL takes)."""
        return self.collection.attr_collection_endpoint

    @property
    def environment(self) -> dict[str, str]:
        return {"AGENTMEM_OPENSEARCH_URL": self.endpoint}

    def grant_read(self, role: iam.IRole) -> None:
        """Search and read documents; create or change nothing."""
        self._grant(role, self._access.readers)

    def grant_write(self, role: iam.IRole) -> None:
        """Everything `grant_read` allows, plus create indexes (and aliases) and write documents."""
        self._grant(role, self._access.writers)

    def _grant(self, role: iam.IRole, principals: list[str]) -> None:
        principals.append(role.role_arn)
        iam.Grant.add_to_principal(
            grantee=role, actions=["aoss:APIAccessAll"], resource_arns=[self.collection.attr_arn]
        )

    def _security_policy(self, construct_id: str, policy_type: str, document: Any) -> aoss.CfnSecurityPolicy:
        return aoss.CfnSecurityPolicy(
            self,
            construct_id,
            name=self.name,
            type=policy_type,
            description=f"agentmem {self._config.tenant}",
            policy=json.dumps(document),
        )

    def _build_encryption_policy(self) -> aoss.CfnSecurityPolicy:
        rules = [{"ResourceType": "collection", "Resource": [f"collection/{self.name}"]}]
        return self._security_policy("EncryptionPolicy", "encryption", {"Rules": rules, "AWSOwnedKey": True})

    def _build_network_policy(self) -> aoss.CfnSecurityPolicy:
        rules = [{"ResourceType": "collection", "Resource": [f"collection/{self.name}"]}]
        return self._security_policy("NetworkPolicy", "network", [{"Rules": rules, "AllowFromPublic": True}])

    def _build_collection(self) -> aoss.CfnCollection:
        collection = aoss.CfnCollection(
            self,
            "Collection",
            name=self.name,
            type="VECTORSEARCH",
            description=f"agentmem {self._config.tenant}: belief indexes (a projection of the log)",
            # Standby replicas double the minimum OCUs; a throwaway dev stack does without them.
            standby_replicas="ENABLED" if self._config.retain else "DISABLED",
        )
        collection.apply_removal_policy(
            cdk.RemovalPolicy.RETAIN if self._config.retain else cdk.RemovalPolicy.DESTROY
        )
        return collection
