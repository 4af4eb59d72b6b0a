"""SkillLibrary on DynamoDB, in the event-log table (item layout: dynamodb_skill_items).

Every write is ONE TransactWriteItems, so it is all-or-nothing, cascades included: a rewrite that
changes `impl_hash` flags every link to the function, and a delete removes the links on both sides.

Concurrency is optimistic. A write reads the tenant's `REV` item first, then whatever it checks,
and commits only if `REV` still holds what it read, bumping it in the same transaction. Per-item
conditions alone would not do: two writers can each pass their own checks yet together close a
dependency cycle, delete a function that a new function depends on, or delete a function that new
guidance links (the link would dangle). The items carry their own conditions too (the version
read, both link ends present), as a second line. A transaction cancelled by a condition or a
conflict is re-read and retried a bounded number of times, then ContentionError; a throttled one
raises BackendUnavailableError, as the event log does.

DynamoDB caps a transaction at 100 actions. A write whose cascade needs more (deleting a function
that more than 49 guidance link, or guidance adding more than 32 links at once) is refused with
ConflictError saying so, never split: a split cascade could stop half way.

Reads are ConsistentRead, but a read of several items (a function and its links) is not one
snapshot: a write that lands in between shows through, as with any non-transactional read.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable
from typing import TYPE_CHECKING, TypeVar

import boto3
from botocore.config import Config

from agentmem.adapters.aws import dynamodb_skill_items as layout
from agentmem.adapters.aws.dynamodb_skill_table import SkillTable
from agentmem.adapters.aws.dynamodb_transact import pause
from agentmem.errors import ConflictError, ContentionError, InvalidInputError, NotFoundError
from agentmem.procedural.graph import dependency_order, find_cycle
from agentmem.procedural.model import (
    Function,
    FunctionSpec,
    Guidance,
    GuidanceSpec,
    Link,
    SkillKind,
    SkillStatus,
    implementation_hash,
)

if TYPE_CHECKING:
    from mypy_boto3_dynamodb.client import DynamoDBClient
    from mypy_boto3_dynamodb.type_defs import TransactWriteItemTypeDef

logger = logging.getLogger(__name__)

T = TypeVar("T")
Plan = tuple[list["TransactWriteItemTypeDef"], T]
"""What a write will do: its actions (none for a no-op) and what it returns once they commit."""
MAX_TRANSACTION_ACTIONS = 100
SKILL_PREFIXES: tuple[tuple[str, SkillKind], ...] = (
    (layout.FUNCTION_PREFIX, "function"),
    (layout.GUIDANCE_PREFIX, "guidance"),
)


def skill_key_of(pk: str, sk: str, tenant_id: str | None = None) -> tuple[SkillKind, str] | None:
    """(kind, id) of the function or guidance a stream record's keys name (of `tenant_id`'s, if
    given), else None. Keys are all a REMOVE record carries, so they alone must do."""
    if not pk.startswith("SKILLS#") or (tenant_id is not None and pk != layout.skills_pk(tenant_id)):
        return None
    return next(((kind, sk[len(prefix) :]) for prefix, kind in SKILL_PREFIXES if sk.startswith(prefix)), None)


class DynamoDbSkillLibrary:
    """One tenant's skill library in a table with key schema `pk` (S) + `sk` (S)."""

    def __init__(
        self,
        table_name: str,
        tenant_id: str,
        *,
        client: DynamoDBClient | None = None,
        max_attempts: int = 8,
        retry_budget_seconds: float = 5.0,
    ) -> None:
        self._tenant = tenant_id
        self._db = SkillTable(
            client or boto3.client("dynamodb", config=Config(retries={"mode": "standard"})),
            table_name,
            tenant_id,
        )
        self._max_attempts = max_attempts
        self._retry_budget = retry_budget_seconds

    # -- reads -------------------------------------------------------------------------------

    def _guidance_of(self, function_id: str) -> list[str]:
        mirrors = self._db.query(layout.mirror_sk(function_id, ""), "guidance_id")
        return [item["guidance_id"]["S"] for item in mirrors]

    def _links_of(self, guidance_id: str) -> dict[str, bool]:
        """function id -> needs_review, for every link of the guidance."""
        links = self._db.query(layout.link_sk(guidance_id, ""), "function_id", "needs_review")
        return {item["function_id"]["S"]: item["needs_review"]["BOOL"] for item in links}

    def _function(self, function_id: str) -> Function | None:
        item = self._db.get(layout.function_sk(function_id))
        return layout.function_from(item, self._guidance_of(function_id)) if item is not None else None

    def _guidance(self, guidance_id: str) -> Guidance | None:
        item = self._db.get(layout.guidance_sk(guidance_id))
        return layout.guidance_from(item, set(self._links_of(guidance_id))) if item is not None else None

    def _graph(self) -> dict[str, list[str]]:
        """function id -> depends_on, for every function of the tenant."""
        functions = self._db.query(layout.FUNCTION_PREFIX, "skill_id", "depends_on")
        return {item["skill_id"]["S"]: layout.depends_on(item) for item in functions}

    # -- writes ------------------------------------------------------------------------------

    def _write(self, action: str, plan: Callable[[], Plan[T]]) -> T:
        """Read REV, run `plan` (it reads, checks, and says what to write) and commit its actions
        with REV's bump; when another writer got in first, read everything again and retry."""
        deadline = time.monotonic() + self._retry_budget
        attempts = 0
        while True:
            attempts += 1
            rev = self._db.get(layout.REVISION_SK)
            actions, result = plan()
            if not actions:
                return result
            actions.append(self._db.bump(int(rev["revision"]["N"]) if rev is not None else 0))
            if len(actions) > MAX_TRANSACTION_ACTIONS:
                raise ConflictError(
                    f"{action} needs {len(actions)} writes in one transaction, over DynamoDB's limit of "
                    f"{MAX_TRANSACTION_ACTIONS}: too many links change at once; drop some links first"
                )
            if self._db.commit(action, actions):
                return result
            wait = pause(attempts)
            if attempts >= self._max_attempts or time.monotonic() + wait > deadline:
                break
            time.sleep(wait)
        logger.warning("skill write gave up under contention", extra={"action": action, "attempts": attempts})
        raise ContentionError(f"{action}: the skill library is too contended, retry later")

    # -- functions ---------------------------------------------------------------------------

    def put_function(self, spec: FunctionSpec) -> Function:
        spec.check_size()
        fid = spec.function_id

        def plan() -> Plan[Function]:
            stored = self._function(fid)
            if stored is not None and layout.spec_of(stored) == spec:
                return [], stored
            graph = self._graph()
            unknown = [dep for dep in spec.depends_on if dep != fid and dep not in graph]
            if unknown:
                raise InvalidInputError(f"depends_on names unknown functions: {unknown}", field="depends_on")
            graph[fid] = list(spec.depends_on)
            cycle = find_cycle(graph, fid)
            if cycle is not None:
                raise InvalidInputError(f"dependency cycle: {' -> '.join(cycle)}", field="depends_on")
            now = layout.now()
            function = Function(
                **spec.model_dump(),
                version=stored.version + 1 if stored else 1,
                impl_hash=implementation_hash(spec.implementation),
                created_at=stored.created_at if stored else now,
                updated_at=now,
                guidance_ids=stored.guidance_ids if stored else [],
            )
            seen = stored.version if stored else None
            actions = [self._db.put(layout.function_item(self._tenant, function), seen)]
            if stored is not None and stored.impl_hash != function.impl_hash:
                actions += [self._db.review(gid, fid, True) for gid in stored.guidance_ids]
            return actions, function

        return self._write(f"put function {fid}", plan)

    def get_function(self, function_id: str) -> Function:
        function = self._function(function_id)
        if function is None:
            raise NotFoundError(f"no function {function_id!r}", field="function_id")
        return function

    def delete_function(self, function_id: str) -> None:
        def plan() -> Plan[None]:
            stored = self.get_function(function_id)
            dependents = sorted(fid for fid, deps in self._graph().items() if function_id in deps)
            if dependents:
                raise ConflictError(
                    f"function {function_id!r} is a dependency of {dependents}; change or delete those first",
                    field="function_id",
                )
            actions = [self._db.delete(layout.function_sk(function_id), stored.version)]
            for gid in stored.guidance_ids:
                actions += self._db.unlink(gid, function_id)
            return actions, None

        self._write(f"delete function {function_id}", plan)

    def closure(self, function_id: str) -> list[Function]:
        graph = self._graph()
        if function_id not in graph:
            raise NotFoundError(f"no function {function_id!r}", field="function_id")
        order = dependency_order(graph, function_id)
        found = self._db.batch_get([layout.function_sk(fid) for fid in order])
        # One deleted since the graph was read is left out, as the SQLite adapter does.
        return [
            layout.function_from(item, self._guidance_of(fid))
            for fid in order
            if (item := found.get(layout.function_sk(fid))) is not None
        ]

    # -- guidance ----------------------------------------------------------------------------

    def put_guidance(self, spec: GuidanceSpec) -> Guidance:
        gid = spec.guidance_id

        def plan() -> Plan[Guidance]:
            present = self._db.batch_get([layout.function_sk(fid) for fid in spec.function_ids], "skill_id")
            unknown = [fid for fid in spec.function_ids if layout.function_sk(fid) not in present]
            if unknown:
                raise InvalidInputError(
                    f"function_ids names unknown functions: {unknown}", field="function_ids"
                )
            item = self._db.get(layout.guidance_sk(gid))
            linked = self._links_of(gid)
            stored = layout.guidance_from(item, set(linked)) if item is not None else None
            if stored is not None and layout.spec_of(stored) == spec:
                return [], stored
            now = layout.now()
            guidance = Guidance(
                **spec.model_dump(),
                version=stored.version + 1 if stored else 1,
                created_at=stored.created_at if stored else now,
                updated_at=now,
            )
            seen = stored.version if stored else None
            actions = [self._db.put(layout.guidance_item(self._tenant, guidance), seen)]
            # Links the new version keeps are not written, so they keep their needs_review.
            for fid in spec.function_ids:
                if fid not in linked:
                    actions += self._db.link(gid, fid)
            for fid in linked:
                if fid not in spec.function_ids:
                    actions += self._db.unlink(gid, fid)
            return actions, guidance

        return self._write(f"put guidance {gid}", plan)

    def get_guidance(self, guidance_id: str) -> Guidance:
        guidance = self._guidance(guidance_id)
        if guidance is None:
            raise NotFoundError(f"no guidance {guidance_id!r}", field="guidance_id")
        return guidance

    def delete_guidance(self, guidance_id: str) -> None:
        def plan() -> Plan[None]:
            stored = self.get_guidance(guidance_id)
            actions = [self._db.delete(layout.guidance_sk(guidance_id), stored.version)]
            for fid in self._links_of(guidance_id):
                actions += self._db.unlink(guidance_id, fid)
            return actions, None

        self._write(f"delete guidance {guidance_id}", plan)

    def stamps(self) -> list[tuple[SkillKind, str, str, str]]:
        """(kind, id, status, `{version}|{updated_at}`) of every function and guidance."""
        prefixes = (layout.FUNCTION_PREFIX, layout.GUIDANCE_PREFIX)
        return [layout.stamp_from(item) for p in prefixes for item in self._db.query(p, *layout.STAMP_FIELDS)]

    # -- links and review --------------------------------------------------------------------

    def links(self, *, needs_review: bool | None = None) -> list[Link]:
        # Query order is guidance then function id (ids sort after `#`). The flag is filtered
        # here: a FilterExpression would read, and bill, the same items.
        items = self._db.query(layout.LINK_PREFIX, "guidance_id", "function_id", "needs_review")
        found = [layout.link_from(item) for item in items]
        return [link for link in found if needs_review is None or link.needs_review is needs_review]

    def _needs_review(self, guidance_id: str, function_id: str) -> bool:
        item = self._db.get(layout.link_sk(guidance_id, function_id))
        if item is None:
            raise NotFoundError(f"no link from {guidance_id!r} to {function_id!r}", field="function_id")
        return item["needs_review"]["BOOL"]

    def confirm_link(self, guidance_id: str, function_id: str) -> Link:
        confirmed = Link(guidance_id=guidance_id, function_id=function_id, needs_review=False)

        def plan() -> Plan[Link]:
            flagged = self._needs_review(guidance_id, function_id)
            return ([self._db.review(guidance_id, function_id, False)] if flagged else []), confirmed

        return self._write(f"confirm link {guidance_id} -> {function_id}", plan)

    def drop_link(self, guidance_id: str, function_id: str) -> None:
        def plan() -> Plan[None]:
            self._needs_review(guidance_id, function_id)  # NotFoundError if there is no link
            return self._db.unlink(guidance_id, function_id), None

        self._write(f"drop link {guidance_id} -> {function_id}", plan)

    def approve(self, kind: SkillKind, skill_id: str) -> Function | Guidance:
        def plan() -> Plan[Function | Guidance]:
            skill = self.get_function(skill_id) if kind == "function" else self.get_guidance(skill_id)
            if skill.status is SkillStatus.APPROVED:
                return [], skill
            # The version stays (the content is unchanged); the new updated_at changes the stamp.
            approved = skill.model_copy(update={"status": SkillStatus.APPROVED, "updated_at": layout.now()})
            item = layout.skill_item(self._tenant, approved)
            return [self._db.put(item, skill.version)], approved

        return self._write(f"approve {kind} {skill_id}", plan)
