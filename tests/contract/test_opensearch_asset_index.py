"""The OpenSearch asset index against the AssetIndex contract, on a real server.

Runs when OPENSEARCH_URL is set (e.g. http://admin:secret@localhost:9200); each test gets its own
index prefix and deletes its index afterwards. OPENSEARCH_ENGINE picks the k-NN engine (faiss by
default, which needs OpenSearch 2.19+ for cosinesimil; lucene for older 2.x)."""

from __future__ import annotations

import os
import uuid
from collections.abc import Iterator
from typing import TYPE_CHECKING

import pytest

from tests.contract.asset_index_contract import AssetIndexContract, IndexFactory

if TYPE_CHECKING:
    from opensearchpy import OpenSearch

    from agentmem.adapters.aws.opensearch_asset_index import OpenSearchAssetIndex

OPENSEARCH_URL = os.environ.get("OPENSEARCH_URL")

pytestmark = pytest.mark.skipif(
    not OPENSEARCH_URL,
    reason="OPENSEARCH_URL is not set: no OpenSearch server to run the contract against "
    "(tests/unit/test_opensearch_asset_index.py checks the request bodies offline)",
)


@pytest.fixture
def opensearch() -> Iterator[OpenSearch]:
    from opensearchpy import OpenSearch

    client = OpenSearch(hosts=[OPENSEARCH_URL], timeout=30, verify_certs=False, ssl_show_warn=False)
    yield client
    client.close()


class TestOpenSearchAssetIndex(AssetIndexContract):
    @pytest.fixture
    def make_index(self, opensearch: OpenSearch) -> Iterator[IndexFactory]:
        from agentmem.adapters.aws.opensearch_asset_index import OpenSearchAssetIndex

        prefix = f"agentmem-test-{uuid.uuid4().hex[:10]}"
        engine = os.environ.get("OPENSEARCH_ENGINE", "faiss")

        def make(tenant: str) -> OpenSearchAssetIndex:
            # wait_for: the contract reads its own writes at once; production reads are near-real-time.
            index = OpenSearchAssetIndex(
                opensearch, tenant, prefix=prefix, dimension=4, engine=engine, refresh="wait_for"
            )
            index.ensure_ready()
            return index

        yield make
        created = opensearch.indices.get(index=f"{prefix}-*")
        if created:
            opensearch.indices.delete(index=",".join(created))
