"""The wire side of reads since a watermark on the OpenSearch belief index: the `source_order`
field each belief document carries, the mapping update that adds it to generations created
before it existed, and the two query bodies (`BeliefIndex.frontier`, `BeliefIndex.changed_since`).

`source_order` is the log position of the last event applied to the belief (a keyword: the
positions are fixed-width `created_at|session|seq` strings, so their byte order is log order).
A document written before the field existed has none: it was last written before any watermark
this code issued, so it is rightly neither a frontier nor a change."""

from __future__ import annotations

from agentmem.adapters.aws.opensearch_mappings import KEYWORD, Body, current_filter

SOURCE_ORDER = "source_order"
MAPPING_UPDATE: Body = {"properties": {SOURCE_ORDER: KEYWORD}}


def frontier_query(tenant_id: str, subject_id: str) -> Body:
    """The current chain with the newest `source_order`: one hit, sorted on the keyword."""
    has_order = {"exists": {"field": SOURCE_ORDER}}
    return {
        "size": 1,
        "query": {"bool": {"filter": [*current_filter(tenant_id, subject_id), has_order]}},
        "sort": [{SOURCE_ORDER: "desc"}],
        "_source": [SOURCE_ORDER],
    }


def changed_query(tenant_id: str, subject_id: str, position: str, limit: int) -> Body:
    """Current beliefs last stated after `position`, oldest first, ties by doc id."""
    after = {"range": {SOURCE_ORDER: {"gt": position}}}
    return {
        "size": limit,
        "query": {"bool": {"filter": [*current_filter(tenant_id, subject_id), after]}},
        "sort": [{SOURCE_ORDER: "asc"}, {"doc_id": "asc"}],
        "_source": ["belief"],
    }
