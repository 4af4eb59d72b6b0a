"""Durable tenant data: the episodic log table and the blob bucket (plus the bucket's access-log bucket),
and beside them the projection's vector cache table."""

from __future__ import annotations

from typing import Any

import aws_cdk as cdk
from aws_cdk import aws_dynamodb as dynamodb
from aws_cdk import aws_iam as iam
from aws_cdk import aws_s3 as s3
from constructs import Construct

from infra.config import TenantConfig
from infra.nag import acknowledge

ACCESS_LOG_RETENTION = cdk.Duration.days(90)
# TransactWriteItems needs no action of its own: IAM checks Put/Update/ConditionCheck per item in it.
# The log is append-only for every writer: only the erasure function may delete, and only in the
# tenant's log partitions (grant_erase); no function gets Scan.
LOG_READ_ACTIONS = ("dynamodb:GetItem", "dynamodb:Query")
# The skill library, the composer's catalogue and its conversations share the table; functions that
# author them may rewrite and delete, but only in those partitions (IAM's dynamodb:LeadingKeys), so
# the log stays append-only for every function.
LIBRARY_PARTITIONS = ("SKILLS#*", "CATALOGUE#*", "CONV#*")
LIBRARY_READ_ACTIONS = ("dynamodb:GetItem", "dynamodb:Query", "dynamodb:BatchGetItem")
LIBRARY_WRITE_ACTIONS = (
    "dynamodb:PutItem",
    "dynamodb:UpdateItem",
    "dynamodb:DeleteItem",
    "dynamodb:ConditionCheckItem",
)
# What an erasure deletes (sessions' events, idempotency records and heads, the subject registry,
# blob references) and where its ledger lives (tombstones, records), as partition key patterns.
ERASE_ACTIONS = ("dynamodb:GetItem", "dynamodb:Query", "dynamodb:DeleteItem", "dynamodb:BatchWriteItem")
LEDGER_ACTIONS = ("dynamodb:GetItem", "dynamodb:BatchGetItem", "dynamodb:PutItem", "dynamodb:UpdateItem")
# Extra days a blob outlives the retention: one renewed when a day old (S3BlobStore) then outlives
# every event pointing at it, whatever the clock skew and S3's rounding to midnight.
BLOB_RETENTION_MARGIN_DAYS = 2
# How long a deleted, overwritten or expired blob stays restorable (a noncurrent version).
NONCURRENT_VERSION_DAYS = 30
# The stale-dependents index (docs/stale-dependents.md) shares the table: a dependent's uses and
# body under `T#<tenant>#DEP#<dependent>`, the same uses seen from the belief under
# `T#<tenant>#CITED#<subject>`. Marking finds a belief's dependents with one Query on CITED and
# marks each use with a conditional UpdateItem in DEP; recording reads a dependent's DEP
# partition and rewrites both sides with BatchWriteItem (which deletes uses no longer cited).
DEPENDENTS_KINDS = ("DEP", "CITED")
# The vector cache (agentmem.adapters.aws.dynamodb_vector_cache): projection reads and writes it,
# and forgets an erased subject's vectors with a Query and BatchWriteItem deletes; an erasure only
# forgets. No function gets Scan, and no other table action.
VECTOR_CACHE_ACTIONS = ("dynamodb:BatchGetItem", "dynamodb:BatchWriteItem", "dynamodb:Query")
VECTOR_FORGET_ACTIONS = ("dynamodb:BatchWriteItem", "dynamodb:Query")
LOG_READ_APPEND_ACTIONS = (
    *LOG_READ_ACTIONS,
    "dynamodb:PutItem",
    "dynamodb:UpdateItem",
    "dynamodb:ConditionCheckItem",
)


def private_bucket(
    scope: Construct, construct_id: str, *, config: TenantConfig, removal: cdk.RemovalPolicy, **options: Any
) -> s3.Bucket:
    """A bucket of this stack as every one of them is: S3-managed encryption (log delivery cannot
    write to SSE-KMS), no public access, TLS only, no ACLs; deletable with the stack in a dev
    tenant (CloudFormation cannot delete a non-empty bucket). `options` add the bucket's own."""
    return s3.Bucket(
        scope,
        construct_id,
        encryption=s3.BucketEncryption.S3_MANAGED,
        block_public_access=s3.BlockPublicAccess.BLOCK_ALL,
        enforce_ssl=True,
        object_ownership=s3.ObjectOwnership.BUCKET_OWNER_ENFORCED,
        removal_policy=removal,
        auto_delete_objects=not config.retain,
        **options,
    )


class Storage(Construct):
    """The log table and the blob bucket: the only copies of a tenant's data (the rest are projections).

    Log table key design (the aws adapters depend on exactly these attribute names):

    - event:       pk=`T#{tenant}#S#{session}`  sk=`E#{seq:012d}`   one item per appended event
    - session head: pk=`T#{tenant}#S#{session}` sk=`HEAD`           holds `last_seq` and `last_subject`
    - idempotency: pk=`T#{tenant}#S#{session}`  sk=`IDEM#{key}`     maps a retried request to its seq
    - subject:     pk=`T#{tenant}#SUBJECT#{subject}` sk=`SUBJECT`   the subject has events (`has_subject`)

    An append is one TransactWriteItems (event put, head compare-and-set, optional IDEM put, and the
    subject put when the session's last subject changes), so seq stays gap-free. Zero-padded seqs
    sort lexically in append order, so "last N" is a reverse Query on `E#`.
    The stream (NEW_IMAGE) feeds the projector; the tenant in the key is defence in depth on top of the
    one-stack-per-tenant isolation.
    """

    def __init__(self, scope: Construct, construct_id: str, *, config: TenantConfig) -> None:
        super().__init__(scope, construct_id)
        self._config = config
        self._removal_policy = cdk.RemovalPolicy.RETAIN if config.retain else cdk.RemovalPolicy.DESTROY
        self.table = self._build_table()
        self.vector_table = self._build_vector_table()
        self.access_log_bucket = self._build_access_log_bucket()
        self.bucket = self._build_blob_bucket(self.access_log_bucket)

    def _build_table(self) -> dynamodb.Table:
        return dynamodb.Table(
            self,
            "LogTable",
            partition_key=dynamodb.Attribute(name="pk", type=dynamodb.AttributeType.STRING),
            sort_key=dynamodb.Attribute(name="sk", type=dynamodb.AttributeType.STRING),
            billing_mode=dynamodb.BillingMode.PAY_PER_REQUEST,
            point_in_time_recovery_specification=dynamodb.PointInTimeRecoverySpecification(
                point_in_time_recovery_enabled=True
            ),
            stream=dynamodb.StreamViewType.NEW_IMAGE,
            # The composer's conversation memory, its kept reports and its cache entries' records
            # (the stale-dependents index) expire after a week; with a tenant retention
            # (retention_days), each event and its items carry it too. Without one, nothing of the
            # log does, and the log is never expired.
            time_to_live_attribute="expires_at",
            encryption=dynamodb.TableEncryption.AWS_MANAGED,
            # The log is the source of truth: a retained table must also survive a stray delete-table call.
            deletion_protection=self._config.retain,
            removal_policy=self._removal_policy,
        )

    def _build_vector_table(self) -> dynamodb.Table:
        """Vectors projection computed, by model and content hash, with their owners. Not in the log's
        table: its stream would carry every vector to the projector's filters. No point-in-time
        recovery: a cache is rebuilt by embedding again, and a backup would keep an erased subject's
        vectors restorable for 35 days. Not deletion protected either: it is no source of truth."""
        table = dynamodb.Table(
            self,
            "VectorTable",
            partition_key=dynamodb.Attribute(name="pk", type=dynamodb.AttributeType.STRING),
            sort_key=dynamodb.Attribute(name="sk", type=dynamodb.AttributeType.STRING),
            billing_mode=dynamodb.BillingMode.PAY_PER_REQUEST,
            encryption=dynamodb.TableEncryption.AWS_MANAGED,
            removal_policy=self._removal_policy,
        )
        acknowledge(
            table,
            "AwsSolutions-DDB3",
            "A cache of vectors that embedding rebuilds; a point-in-time backup would keep erased "
            "subjects' vectors restorable after their erasure.",
        )
        return table

    @property
    def vector_environment(self) -> dict[str, str]:
        """What a function that uses the vector cache is told; without it, it embeds without one."""
        return {"AGENTMEM_VECTOR_TABLE_NAME": self.vector_table.table_name}

    def _build_access_log_bucket(self) -> s3.Bucket:
        # Needs no access logs of its own: cdk-nag (S1) accepts a bucket that is another bucket's log target.
        return private_bucket(
            self, "AccessLogBucket", config=self._config, removal=self._removal_policy,
            lifecycle_rules=[s3.LifecycleRule(expiration=ACCESS_LOG_RETENTION)],
        )  # fmt: skip

    def _build_blob_bucket(self, access_logs: s3.IBucket) -> s3.Bucket:
        # Versioned: content addressing makes every overwrite the same bytes, but it does not protect the
        # data the log points at from a human delete. A deleted or renewed blob stays a noncurrent version
        # for NONCURRENT_VERSION_DAYS; an erasure removes every version (S3BlobStore.delete).
        return private_bucket(
            self, "BlobBucket", config=self._config, removal=self._removal_policy,
            server_access_logs_bucket=access_logs, server_access_logs_prefix="blobs/", versioned=True,
            lifecycle_rules=[self._noncurrent_versions(), *self._blob_retention()],
        )  # fmt: skip

    @staticmethod
    def _noncurrent_versions() -> s3.LifecycleRule:
        return s3.LifecycleRule(
            id="NoncurrentVersions",
            noncurrent_version_expiration=cdk.Duration.days(NONCURRENT_VERSION_DAYS),
            # A marker left over a version that expired hides nothing: drop it.
            expired_object_delete_marker=True,
            abort_incomplete_multipart_upload_after=cdk.Duration.days(1),
        )

    def _blob_retention(self) -> list[s3.LifecycleRule]:
        days = self._config.retention_days
        if days is None:
            return []
        return [
            s3.LifecycleRule(
                id="BlobRetention",
                prefix="blobs/",
                expiration=cdk.Duration.days(days + BLOB_RETENTION_MARGIN_DAYS),
            )
        ]

    def tenant_partitions(self, *kinds: str) -> list[str]:
        """`dynamodb:LeadingKeys` patterns of this tenant's log partitions of the given kinds."""
        return [f"T#{self._config.tenant}#{kind}#*" for kind in kinds]

    def grant_erase(self, grantee: iam.IGrantable) -> None:
        """What the erasure function needs of the table, and no more: delete in the tenant's
        session, subject-registry and blob-reference partitions; read and write the erasure
        ledger; read, rewrite and delete skill drafts and conversation memories."""
        self._grant_where(grantee, ERASE_ACTIONS, self.tenant_partitions("S", "SUBJ", "BLOB"))
        self._grant_where(grantee, LEDGER_ACTIONS, self.tenant_partitions("ERASED", "ERASURE"))
        self._grant_where(grantee, (*LIBRARY_READ_ACTIONS, *LIBRARY_WRITE_ACTIONS), ["SKILLS#*", "CONV#*"])

    def grant_tombstone_read(self, grantee: iam.IGrantable) -> None:
        """Check subjects against the erasure tombstones (projection skips the erased)."""
        self._grant_where(grantee, ("dynamodb:BatchGetItem",), self.tenant_partitions("ERASED"))

    def grant_status_write(self, grantee: iam.IGrantable) -> None:
        """Put the projection status item, which the stream projector writes on its failure path
        (the read function's log read covers reading it)."""
        self._grant_where(grantee, ("dynamodb:PutItem",), self.tenant_partitions("STATUS"))

    def grant_dependents_mark(self, grantee: iam.IGrantable) -> None:
        """Mark dependents stale, as projection onto the live beliefs and an erasure do: find a
        belief's dependents in its subject's CITED partition, update their uses in DEP. Nothing
        that records, deletes or reads a dependent's body."""
        self._grant_where(grantee, ("dynamodb:Query",), self.tenant_partitions("CITED"))
        self._grant_where(grantee, ("dynamodb:UpdateItem",), self.tenant_partitions("DEP"))

    def grant_dependents_record(self, grantee: iam.IGrantable) -> None:
        """Record, read and forget dependents (guidance and assets that cite beliefs, kept compose
        reports, retrieval cache entries); never mark one stale. One BatchWriteItem carries items of
        both partitions, and IAM checks every key of a request against a single statement's
        patterns (ForAllValues), so both kinds must be in the same statement."""
        self._grant_where(grantee, ("dynamodb:GetItem", "dynamodb:Query"), self.tenant_partitions("DEP"))
        self._grant_where(grantee, ("dynamodb:BatchWriteItem",), self.tenant_partitions(*DEPENDENTS_KINDS))

    def grant_vector_cache(self, grantee: iam.IGrantable) -> None:
        """Read, write and forget cached vectors (projection and replay), in this tenant's keys."""
        self._grant_where(grantee, VECTOR_CACHE_ACTIONS, [f"T#{self._config.tenant}#*"], self.vector_table)

    def grant_vector_forget(self, grantee: iam.IGrantable) -> None:
        """Forget an erased subject's cached vectors (the erasure function); never read one."""
        self._grant_where(grantee, VECTOR_FORGET_ACTIONS, [f"T#{self._config.tenant}#*"], self.vector_table)

    def _grant_where(
        self,
        grantee: iam.IGrantable,
        actions: tuple[str, ...],
        partitions: list[str],
        table: dynamodb.ITable | None = None,
    ) -> None:
        grantee.grant_principal.add_to_principal_policy(
            iam.PolicyStatement(
                actions=list(actions),
                resources=[(table or self.table).table_arn],
                conditions={"ForAllValues:StringLike": {"dynamodb:LeadingKeys": partitions}},
            )
        )

    def grant_blob_erase(self, grantee: iam.IGrantable) -> None:
        """List and delete every version of blob objects; nothing else of the bucket."""
        self._grant_objects(grantee, "s3:GetObject", "s3:DeleteObjectVersion")
        iam.Grant.add_to_principal(
            grantee=grantee, actions=["s3:ListBucketVersions"], resource_arns=[self.bucket.bucket_arn]
        )

    def grant_log_read_append(self, grantee: iam.IGrantable) -> iam.Grant:
        """Append events (one transaction) and read them back; nothing that deletes or rewrites."""
        return self.table.grant(grantee, *LOG_READ_APPEND_ACTIONS)

    def grant_log_read(self, grantee: iam.IGrantable) -> iam.Grant:
        """Read events and session heads; nothing that writes."""
        return self.table.grant(grantee, *LOG_READ_ACTIONS)

    def grant_library_read(self, grantee: iam.IGrantable) -> None:
        """Read skill library, catalogue and conversation items; no log item."""
        self._grant_library(grantee, LIBRARY_READ_ACTIONS)

    def grant_library_write(self, grantee: iam.IGrantable) -> None:
        """Read, write and delete skill library, catalogue and conversation items; never a log item."""
        self._grant_library(grantee, (*LIBRARY_READ_ACTIONS, *LIBRARY_WRITE_ACTIONS))

    def _grant_library(self, grantee: iam.IGrantable, actions: tuple[str, ...]) -> None:
        self._grant_where(grantee, actions, list(LIBRARY_PARTITIONS))

    def grant_blob_read(self, grantee: iam.IGrantable) -> None:
        """Get blob objects. ListBucket only so a missing key answers 404 instead of 403."""
        self._grant_objects(grantee, "s3:GetObject")

    def grant_blob_read_put(self, grantee: iam.IGrantable) -> None:
        """Get and put blob objects. ListBucket only so a missing key answers 404 instead of 403."""
        self._grant_objects(grantee, "s3:GetObject", "s3:PutObject")

    def _grant_objects(self, grantee: iam.IGrantable, *actions: str) -> None:
        iam.Grant.add_to_principal(
            grantee=grantee, actions=list(actions), resource_arns=[self.bucket.arn_for_objects("*")]
        )
        iam.Grant.add_to_principal(
            grantee=grantee, actions=["s3:ListBucket"], resource_arns=[self.bucket.bucket_arn]
        )
