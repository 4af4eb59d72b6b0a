"""An opensearch-py client signed with SigV4 from the Lambda role (service `aoss` for an
OpenSearch Serverless collection, `es` for a managed domain)."""

from __future__ import annotations

from typing import TYPE_CHECKING
from urllib.parse import urlparse

from agentmem.settings import Settings

if TYPE_CHECKING:
    from opensearchpy import OpenSearch


def opensearch_client(settings: Settings) -> OpenSearch:
    import boto3
    from opensearchpy import AWSV4SignerAuth, OpenSearch, RequestsHttpConnection

    if not settings.opensearch_url:
        raise ValueError("AGENTMEM_OPENSEARCH_URL is required with the aws backend")
    url = urlparse(settings.opensearch_url)
    host = url.hostname or ""
    service = "aoss" if host.endswith(".aoss.amazonaws.com") else "es"
    session = boto3.session.Session(region_name=settings.aws_region)
    credentials = session.get_credentials()
    auth = AWSV4SignerAuth(credentials, session.region_name or "us-east-1", service)
    return OpenSearch(
        hosts=[{"host": host, "port": url.port or 443}],
        http_auth=auth,
        use_ssl=url.scheme == "https",
        verify_certs=True,
        connection_class=RequestsHttpConnection,
        timeout=10,
        max_retries=2,
        retry_on_timeout=True,
    )
