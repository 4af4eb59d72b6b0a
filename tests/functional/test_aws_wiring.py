"""The AWS backend as bootstrap wires it, on in-process moto with the stack's table and bucket:
the procedural tier and the composer's catalogue work end to end through DynamoDB (OpenSearch,
which cannot run here, is only constructed: its requests are pinned offline elsewhere)."""

from __future__ import annotations

import json
from collections.abc import Iterator

import boto3
import pytest
from moto import mock_aws

from agentmem.access import Caller
from agentmem.adapters.aws.dynamodb_catalogue import DynamoDbCatalogue
from agentmem.adapters.aws.dynamodb_skills import DynamoDbSkillLibrary
from agentmem.adapters.aws.opensearch_asset_index import OpenSearchAssetIndex
from agentmem.adapters.aws.opensearch_passage_store import OpenSearchPassageStore
from agentmem.adapters.aws.opensearch_skill_index import OpenSearchSkillIndex
from agentmem.compose import authoring
from agentmem.compose.model import Asset, ComposerSkillSpec, PutAssetsRequest
from agentmem.demo.eval_run import sample_folder
from agentmem.errors import ForbiddenError, NotFoundError
from agentmem.model.events import AppendEventRequest
from agentmem.procedural.review import ReviewRequest
from agentmem.settings import Settings
from agentmem.wiring import Services, bootstrap
from tests.aws_fixtures import create_blob_bucket, create_log_table, use_fake_aws_environment

TABLE, BUCKET = "agentmem-acme-log", "agentmem-acme-blobs"


@pytest.fixture
def services(monkeypatch: pytest.MonkeyPatch) -> Iterator[Services]:
    use_fake_aws_environment(monkeypatch)
    with mock_aws():
        create_log_table(boto3.client("dynamodb"), TABLE)
        create_blob_bucket(boto3.client("s3"), BUCKET)
        settings = Settings(
            backend="aws", tenant_id="acme", table_name=TABLE, bucket_name=BUCKET,
            opensearch_url="https://search-am-acme.us-east-1.es.amazonaws.com",
            embedder="minilm", llm="rules",
        )  # fmt: skip
        yield bootstrap(settings)


def test_bootstrap_wires_the_aws_adapters_of_both_libraries(services: Services) -> None:
    assert isinstance(services.skills, DynamoDbSkillLibrary)
    assert isinstance(services.skill_index, OpenSearchSkillIndex)
    assert isinstance(services.composer.catalogue, DynamoDbCatalogue)
    assert isinstance(services.composer.index, OpenSearchAssetIndex)
    # The history source's events index is OpenSearch too (built without a request being sent).
    assert isinstance(services.semantic.passages, OpenSearchPassageStore)


def test_a_session_reviewed_on_aws_becomes_drafts_in_dynamodb(services: Services) -> None:
    code = "def cents(x):\n    return round(x * 100)\n\n\n"
    code += "def total(rows):\n    return sum(cents(r) for r in rows)\n"
    services.episodic.append(
        "close-1", AppendEventRequest(subject_id="acme", round=1, agent="closer", kind="code", content=code)
    )
    review = services.skill_review.review(ReviewRequest(session_id="close-1"))
    assert [f.function_id for f in review.functions] == ["cents.close-1", "total.close-1"]
    stored = services.skills.get_function("total.close-1")
    assert stored.depends_on == ["cents.close-1"] and stored.status == "draft"
    assert [f.function_id for f in services.skills.closure("total.close-1")] == [
        "cents.close-1",
        "total.close-1",
    ]


def test_the_composer_catalogue_takes_assets_and_skills_on_aws(services: Services) -> None:
    lines = (sample_folder() / "assets.jsonl").read_text().splitlines()[:99]
    assets = [Asset.model_validate(json.loads(line)) for line in lines]
    publisher = Caller.of(["analyst", "finance"], "writer")
    request = PutAssetsRequest(assets=assets)
    revision = authoring.put_assets(services.composer.catalogue, request, publisher, services.composer.view())
    assert revision == 1
    assert len(services.composer.view().by_id) == 99
    # The access rule over the DynamoDB catalogue: a finance-only table is hidden from an analyst
    # and may not be taken over by a writer who cannot read it.
    restricted = "table:finance.fct_revenue_recognized"
    with pytest.raises(NotFoundError):
        services.composer.asset(restricted, Caller.of(["analyst"]))
    assert services.composer.asset(restricted, Caller.of(["finance"]))[0].principals == ["finance"]
    (secret,) = [a for a in assets if a.asset_id == restricted]
    opened = PutAssetsRequest(assets=[secret.model_copy(update={"principals": ["everyone"]})])
    with pytest.raises(ForbiddenError):
        authoring.put_assets(
            services.composer.catalogue, opened, Caller.of(["analyst"], "writer"), services.composer.view()
        )
    assert services.composer.catalogue.revision() == 1
    spec = ComposerSkillSpec.model_validate({"intent": "Tables.", "scope": {"include": ["warehouse/**"]}})
    assert authoring.put_skill(services.composer.catalogue, "tables", spec).version == 1
    skill = services.composer.skill("tables")
    scope, _ = services.composer.scope_of(skill, services.composer.view())
    assert scope.ids and all(
        services.composer.view().by_id[i].path.startswith("warehouse/") for i in scope.ids
    )
