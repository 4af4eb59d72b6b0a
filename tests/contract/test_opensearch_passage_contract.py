"""The OpenSearch passage store against the PassageIndex contract, on a real server.

Runs when OPENSEARCH_URL is set; each test gets its own index prefix and deletes its indices
afterwards (tests/unit/test_opensearch_passages.py checks the request bodies offline)."""

from __future__ import annotations

import os
import uuid
from collections.abc import Iterator
from typing import TYPE_CHECKING

import pytest

from tests.contract.passage_index_contract import PassageIndexContract, StoreFactory

if TYPE_CHECKING:
    from opensearchpy import OpenSearch

OPENSEARCH_URL = os.environ.get("OPENSEARCH_URL")

pytestmark = pytest.mark.skipif(
    not OPENSEARCH_URL, reason="OPENSEARCH_URL is not set: no OpenSearch server to run the contract against"
)


@pytest.fixture
def opensearch() -> Iterator[OpenSearch]:
    from opensearchpy import OpenSearch

    client = OpenSearch(hosts=[OPENSEARCH_URL], timeout=30, verify_certs=False, ssl_show_warn=False)
    yield client
    client.close()


class TestOpenSearchPassageIndex(PassageIndexContract):
    @pytest.fixture
    def make_store(self, opensearch: OpenSearch) -> Iterator[StoreFactory]:
        from agentmem.adapters.aws.opensearch_passage_store import OpenSearchPassageStore

        prefix = f"agentmem-test-{uuid.uuid4().hex[:10]}"
        engine = os.environ.get("OPENSEARCH_ENGINE", "faiss")
        # wait_for: the contract reads its own writes at once; production reads are near-real-time.
        yield lambda tenant: OpenSearchPassageStore(
            opensearch, tenant, prefix=prefix, dimensions=4, engine=engine, refresh="wait_for"
        )
        created = opensearch.indices.get(index=f"{prefix}-*")
        if created:
            opensearch.indices.delete(index=",".join(created))
