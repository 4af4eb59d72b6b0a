"""The DynamoDB skill library against the SkillLibrary and StampedLibrary contracts, on
in-process moto with the stack's log table, plus what only DynamoDB has: one transaction per
write, the item layout the stream projector reads, and tenants sharing one table."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import TYPE_CHECKING, Any, cast

import boto3
import pytest
from botocore.exceptions import ClientError
from moto import mock_aws

from agentmem.adapters.aws.dynamodb_skills import DynamoDbSkillLibrary, skill_key_of
from agentmem.errors import (
    AgentMemError,
    BackendUnavailableError,
    ConflictError,
    ContentionError,
    InvalidInputError,
    NotFoundError,
)
from agentmem.procedural.model import Link, SkillStatus
from tests.aws_fixtures import create_log_table, use_fake_aws_environment
from tests.contract.skill_library_contract import LibraryFactory, SkillLibraryContract, fn, guide
from tests.contract.stamped_library_contract import StampedLibraryContract

if TYPE_CHECKING:
    from mypy_boto3_dynamodb.client import DynamoDBClient

TABLE = "agentmem-log"


@pytest.fixture
def dynamodb(monkeypatch: pytest.MonkeyPatch) -> Iterator[DynamoDBClient]:
    use_fake_aws_environment(monkeypatch)
    with mock_aws():
        client = boto3.client("dynamodb")
        create_log_table(client, TABLE)
        yield client


class SpyClient:
    """The real (moto) client, counting calls by operation; `on_transact` may raise before the
    call reaches the table, to inject a cancelled transaction."""

    def __init__(self, client: DynamoDBClient, page_size: int | None = None) -> None:
        self._client = client
        self._page_size = page_size
        self.calls: dict[str, int] = {}
        self.on_transact: Callable[[int], None] = lambda attempt: None
        self.hold_back_first_batch = False

    @staticmethod
    def _hold_back(method: Callable[..., Any], kwargs: dict[str, Any]) -> Any:
        """Answer for the first key only and hand the rest back unprocessed, as DynamoDB may."""
        ((table, request),) = kwargs["RequestItems"].items()
        first, rest = request["Keys"][:1], request["Keys"][1:]
        response = method(RequestItems={table: {**request, "Keys": first}})
        response["UnprocessedKeys"] = {table: {**request, "Keys": rest}} if rest else {}
        return response

    def __getattr__(self, name: str) -> Any:
        method = getattr(self._client, name)

        def call(**kwargs: Any) -> Any:
            self.calls[name] = self.calls.get(name, 0) + 1
            if name == "transact_write_items":
                self.on_transact(self.calls[name])
            if name == "query" and self._page_size is not None:
                kwargs["Limit"] = self._page_size  # forces LastEvaluatedKey on every read
            if name == "batch_get_item" and self.calls[name] == 1 and self.hold_back_first_batch:
                return self._hold_back(method, kwargs)
            return method(**kwargs)

        return call


def cancelled(*codes: str) -> ClientError:
    return ClientError(
        {
            "Error": {"Code": "TransactionCanceledException", "Message": "Transaction cancelled"},
            "CancellationReasons": [{"Code": code} for code in codes],
        },
        "TransactWriteItems",
    )


def scan(client: DynamoDBClient) -> list[dict[str, Any]]:
    return cast("list[dict[str, Any]]", client.scan(TableName=TABLE, ConsistentRead=True)["Items"])


def library(client: DynamoDBClient | SpyClient, tenant: str = "acme", **kwargs: Any) -> DynamoDbSkillLibrary:
    return DynamoDbSkillLibrary(TABLE, tenant, client=cast("DynamoDBClient", client), **kwargs)


class TestDynamoDbSkillLibrary(SkillLibraryContract, StampedLibraryContract):
    @pytest.fixture
    def make_library(self, dynamodb: DynamoDBClient) -> LibraryFactory:
        return lambda tenant: library(dynamodb, tenant)


class TestDynamoDbSkillLibraryPaged(SkillLibraryContract, StampedLibraryContract):
    """The contract again with every Query cut into pages of two, so each read must paginate."""

    @pytest.fixture
    def make_library(self, dynamodb: DynamoDBClient) -> LibraryFactory:
        return lambda tenant: library(SpyClient(dynamodb, page_size=2), tenant)


def _pk_sk(keys: Any) -> tuple[str, str]:
    """The plain strings of a low-level stream record's keys."""
    return str(keys["pk"]["S"]), str(keys["sk"]["S"])


def test_deleting_a_linked_function_is_one_transaction_and_leaves_no_link(
    dynamodb: DynamoDBClient,
) -> None:
    spy = SpyClient(dynamodb)
    skills = library(spy)
    skills.put_function(fn("a"))
    skills.put_function(fn("b"))
    for gid in ("g1", "g2", "g3"):
        skills.put_guidance(guide(gid, "a", "b"))
    spy.calls.clear()

    skills.delete_function("a")

    assert spy.calls["transact_write_items"] == 1
    link_sks = sorted(i["sk"]["S"] for i in scan(dynamodb) if i["entity"]["S"] == "skill_link")
    assert link_sks == ["LF#b#g1", "LF#b#g2", "LF#b#g3", "LG#g1#b", "LG#g2#b", "LG#g3#b"]
    assert [g.function_ids for g in map(skills.get_guidance, ("g1", "g2", "g3"))] == [["b"]] * 3


def test_a_rewrite_flags_its_links_in_the_same_transaction(dynamodb: DynamoDBClient) -> None:
    spy = SpyClient(dynamodb)
    skills = library(spy)
    skills.put_function(fn("a"))
    skills.put_guidance(guide("g1", "a"))
    skills.put_guidance(guide("g2", "a"))
    spy.calls.clear()
    skills.put_function(fn("a", implementation="return -x"))
    assert spy.calls["transact_write_items"] == 1
    assert [link.needs_review for link in skills.links()] == [True, True]


def test_keys_a_batch_read_leaves_unprocessed_are_asked_for_again(dynamodb: DynamoDBClient) -> None:
    spy = SpyClient(dynamodb)
    skills = library(spy)
    for fid in ("c", "b", "a"):
        skills.put_function(fn(fid, *(["b", "c"] if fid == "a" else [])))
    spy.hold_back_first_batch = True
    spy.calls.clear()
    assert [f.function_id for f in skills.closure("a")] == ["b", "c", "a"]
    assert spy.calls["batch_get_item"] == 2


def test_a_throttled_transaction_changes_nothing_and_is_a_domain_error(dynamodb: DynamoDBClient) -> None:
    spy = SpyClient(dynamodb)
    skills = library(spy)
    skills.put_function(fn("a"))
    skills.put_guidance(guide("g1", "a"))
    before = scan(dynamodb)

    def throttle(attempt: int) -> None:
        raise cancelled("None", "None", "None", "ThrottlingError")

    spy.on_transact = throttle
    spy.calls.clear()
    with pytest.raises(BackendUnavailableError) as err:
        skills.delete_function("a")
    assert not isinstance(err.value, ContentionError)  # retryable by the caller, not retried here
    assert spy.calls["transact_write_items"] == 1
    assert isinstance(err.value.__cause__, ClientError)
    assert scan(dynamodb) == before


def test_botocore_faults_leave_as_domain_errors(dynamodb: DynamoDBClient) -> None:
    missing_table = DynamoDbSkillLibrary("no-such-table", "acme", client=dynamodb)
    with pytest.raises(AgentMemError) as err:
        missing_table.get_function("a")
    assert not isinstance(err.value, NotFoundError)  # a missing table is a deployment fault
    assert isinstance(err.value.__cause__, ClientError)


def test_a_lost_race_is_read_again_and_retried(dynamodb: DynamoDBClient) -> None:
    spy = SpyClient(dynamodb)
    skills, rival = library(spy), library(dynamodb)
    skills.put_function(fn("a"))

    def rival_commits_first(attempt: int) -> None:
        if attempt == 2:  # the first transaction was put_function("a"); this is the guidance
            rival.put_guidance(guide("g0", "a"))  # moves REV under our feet

    spy.on_transact = rival_commits_first
    skills.put_guidance(guide("g1", "a"))
    assert spy.calls["transact_write_items"] == 3  # cancelled on REV, then committed on re-read
    assert skills.get_function("a").guidance_ids == ["g0", "g1"]


def test_a_failed_condition_rolls_the_whole_transaction_back(dynamodb: DynamoDBClient) -> None:
    skills = library(dynamodb, max_attempts=2)
    skills.put_function(fn("a"))
    skills.put_function(fn("b"))
    # A stray mirror (as a broken writer could leave) fails the link's attribute_not_exists.
    dynamodb.put_item(
        TableName=TABLE,
        Item={"pk": {"S": "SKILLS#acme"}, "sk": {"S": "LF#b#g1"}, "entity": {"S": "skill_link"}},
    )
    before = scan(dynamodb)
    with pytest.raises(ContentionError):
        skills.put_guidance(guide("g1", "a", "b"))
    assert scan(dynamodb) == before  # neither the guidance nor the link to `a` was written


def test_a_cascade_over_the_transaction_limit_is_refused_whole(dynamodb: DynamoDBClient) -> None:
    skills = library(dynamodb)
    ids = [f"f{i:02d}" for i in range(33)]
    for fid in ids:
        skills.put_function(fn(fid))
    with pytest.raises(ConflictError) as err:
        skills.put_guidance(guide("big", *ids))  # 1 + 3 x 33 + REV = 101 actions
    assert "over DynamoDB's limit of 100" in err.value.message
    skills.put_guidance(guide("big", *ids[:32]))
    assert len(skills.links()) == 32


def test_items_follow_the_layout_the_stream_projector_reads(dynamodb: DynamoDBClient) -> None:
    skills = library(dynamodb)
    skills.put_function(fn("parse-invoice"))
    skills.put_guidance(guide("billing", "parse-invoice"))
    skills.approve("function", "parse-invoice")
    items = {i["sk"]["S"]: i for i in scan(dynamodb)}
    assert set(items) == {
        "FN#parse-invoice",
        "GD#billing",
        "LG#billing#parse-invoice",
        "LF#parse-invoice#billing",
        "REV",
    }
    assert {i["pk"]["S"] for i in items.values()} == {"SKILLS#acme"}
    assert {i["tenant_id"]["S"] for i in items.values()} == {"acme"}

    function, guidance = items["FN#parse-invoice"], items["GD#billing"]
    assert (function["entity"]["S"], function["skill_kind"]["S"], function["skill_id"]["S"]) == (
        "skill_function",
        "function",
        "parse-invoice",
    )
    assert (function["status"]["S"], function["version"]["N"]) == ("approved", "1")
    assert (guidance["entity"]["S"], guidance["skill_kind"]["S"], guidance["skill_id"]["S"]) == (
        "skill_guidance",
        "guidance",
        "billing",
    )
    for sk in ("LG#billing#parse-invoice", "LF#parse-invoice#billing"):
        assert items[sk]["entity"]["S"] == "skill_link"
        assert "skill_kind" not in items[sk]  # so a projector keyed on skill_kind skips links
    assert items["LG#billing#parse-invoice"]["needs_review"] == {"BOOL": False}
    assert items["REV"]["entity"]["S"] == "skill_revision"


def test_stamps_are_every_item_and_move_on_approval(dynamodb: DynamoDBClient) -> None:
    skills = library(SpyClient(dynamodb, page_size=1))
    created = skills.put_function(fn("a"))
    skills.put_function(fn("b"))
    skills.put_guidance(guide("g1", "a"))
    stamps = skills.stamps()
    assert [(kind, skill_id, status) for kind, skill_id, status, _ in stamps] == [
        ("function", "a", "draft"),
        ("function", "b", "draft"),
        ("guidance", "g1", "draft"),
    ]
    assert stamps[0][3] == f"1|{created.updated_at}"
    approved = skills.approve("function", "a")
    assert skills.stamps()[0] == ("function", "a", SkillStatus.APPROVED.value, f"1|{approved.updated_at}")


def test_tenants_share_the_table_but_never_see_each_other(dynamodb: DynamoDBClient) -> None:
    acme, globex = library(dynamodb, "acme"), library(dynamodb, "globex")
    acme.put_function(fn("a"))
    acme.put_guidance(guide("g1", "a"))
    globex.put_function(fn("a", implementation="return 'globex'"))
    globex.put_function(fn("z"))
    globex.put_guidance(guide("g2", "z"))
    globex.put_function(fn("z", implementation="return 1"))

    assert [s[1] for s in acme.stamps()] == ["a", "g1"]
    assert [s[1] for s in globex.stamps()] == ["a", "z", "g2"]
    assert acme.links() == [Link(guidance_id="g1", function_id="a")]
    assert globex.links() == [Link(guidance_id="g2", function_id="z", needs_review=True)]
    assert acme.get_function("a").implementation != globex.get_function("a").implementation
    with pytest.raises(InvalidInputError):
        acme.put_function(fn("user", "z"))  # globex's function is unknown to acme
    globex.delete_guidance("g2")
    globex.delete_function("a")
    by_pk: dict[str, set[str]] = {}
    for item in scan(dynamodb):
        by_pk.setdefault(item["pk"]["S"], set()).add(item["sk"]["S"])
    assert by_pk == {
        "SKILLS#acme": {"FN#a", "GD#g1", "LG#g1#a", "LF#a#g1", "REV"},
        "SKILLS#globex": {"FN#z", "REV"},
    }


def test_stream_keys_name_the_skill_even_on_remove(monkeypatch: pytest.MonkeyPatch) -> None:
    """What the projector sees: every record's Keys, INSERT, MODIFY and REMOVE alike."""
    use_fake_aws_environment(monkeypatch)
    with mock_aws():
        client = boto3.client("dynamodb")
        stream_arn = create_log_table(client, TABLE)
        skills = library(client)
        skills.put_function(fn("a"))
        skills.put_guidance(guide("g1", "a"))
        skills.approve("guidance", "g1")
        skills.delete_function("a")

        streams = boto3.client("dynamodbstreams")
        shard = streams.describe_stream(StreamArn=stream_arn)["StreamDescription"]["Shards"][0]
        iterator = streams.get_shard_iterator(
            StreamArn=stream_arn, ShardId=shard["ShardId"], ShardIteratorType="TRIM_HORIZON"
        )["ShardIterator"]
        records = streams.get_records(ShardIterator=iterator)["Records"]

    touched = [
        (r["eventName"], key)
        for r in records
        if (key := skill_key_of(*_pk_sk(r["dynamodb"]["Keys"]), "acme")) is not None
    ]
    assert touched == [
        ("INSERT", ("function", "a")),
        ("INSERT", ("guidance", "g1")),
        ("MODIFY", ("guidance", "g1")),
        ("REMOVE", ("function", "a")),
    ]
    assert len(records) > len(touched)  # links and REV streamed too, and were skipped


@pytest.mark.parametrize(
    ("pk", "sk", "expected"),
    [
        ("SKILLS#acme", "FN#parse-invoice", ("function", "parse-invoice")),
        ("SKILLS#acme", "GD#billing", ("guidance", "billing")),
        ("SKILLS#acme", "LG#billing#parse-invoice", None),
        ("SKILLS#acme", "LF#parse-invoice#billing", None),
        ("SKILLS#acme", "REV", None),
        ("SKILLS#globex", "FN#a", None),  # another tenant's
        ("T#acme#S#s1", "E#000000000001", None),  # an event
    ],
)
def test_skill_key_of_reads_only_the_keys(pk: str, sk: str, expected: tuple[str, str] | None) -> None:
    assert skill_key_of(pk, sk, "acme") == expected
