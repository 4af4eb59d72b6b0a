"""Synthesis helpers for the infrastructure tests. A synth costs 5-10 s, so each module synthesizes once."""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import aws_cdk as cdk
import pytest
from aws_cdk.assertions import Match, Template

from infra.paths import CDK_JSON
from infra.stack import TenantStack, build_tenant_app


@dataclass(frozen=True)
class Synth:
    stack: TenantStack
    template: Template
    outdir: Path
    # cdk-nag 3 reports through CDK policy validation, written to validation-report.json on every synth.
    validation_report: dict[str, Any]

    def resources(self, resource_type: str, props: dict[str, Any] | None = None) -> dict[str, Any]:
        return dict(self.template.find_resources(resource_type, {"Properties": props} if props else None))


def synthesize(outdir: Path, **context: Any) -> Synth:
    """Synth the tenant app exactly as `cdk synth` would (cdk.json flags + nag), minus asset bundling.

    Raises if cdk-nag finds an unacknowledged error: policy validation fails the synth itself.
    """
    full_context = {
        **json.loads(CDK_JSON.read_text())["context"],
        # No pip run in tests; the deps layer asset is the unbundled source folder.
        "aws:cdk:bundling-stacks": [],
        "tenant": "acme",
        **context,
    }
    app = cdk.App(context=full_context, outdir=str(outdir))
    stack = build_tenant_app(app)
    app.synth()
    report = json.loads((outdir / "validation-report.json").read_text())
    return Synth(stack=stack, template=Template.from_stack(stack), outdir=outdir, validation_report=report)


def acknowledged_ids(synth: Synth) -> set[str]:
    """Every `Validations.of(...).acknowledge(...)` id recorded anywhere in the stack."""
    key = cdk.Validations.ACKNOWLEDGED_RULES_METADATA_KEY
    return {
        ack_id
        for construct in synth.stack.node.find_all()
        for entry in construct.node.metadata
        if entry.type == key
        for ack_id in entry.data
    }


def only(resources: dict[str, Any]) -> tuple[str, dict[str, Any]]:
    """The single (logical id, resource) in `resources`; fails loudly if there are zero or several."""
    assert len(resources) == 1, f"expected exactly one resource, got {sorted(resources)}"
    return next(iter(resources.items()))


def log_table(synth: Synth) -> tuple[str, dict[str, Any]]:
    """The log table: the one with a stream (the vector cache's table has none)."""
    return only(synth.resources("AWS::DynamoDB::Table", {"StreamSpecification": Match.any_value()}))


def vector_table(synth: Synth) -> tuple[str, dict[str, Any]]:
    """The vector cache's table: the one without a stream."""
    tables = synth.resources("AWS::DynamoDB::Table")
    return only({k: v for k, v in tables.items() if "StreamSpecification" not in v["Properties"]})


@pytest.fixture(scope="session")
def acme(tmp_path_factory: pytest.TempPathFactory) -> Synth:
    """The default stack (`cdk synth -c tenant=acme`), synthesized once for every module that reads it."""
    return synthesize(tmp_path_factory.mktemp("cdk-acme"))


def resource_path(resources: dict[str, Any], resource_id: str) -> str:
    """The full path of an API Gateway resource, from its chain of parents in the template."""
    props = resources[resource_id]["Properties"]
    parent = props["ParentId"]
    prefix = "" if "Fn::GetAtt" in parent else resource_path(resources, parent["Ref"])
    return f"{prefix}/{props['PathPart']}"


def api_routes(synth: Synth) -> set[tuple[str, str]]:
    resources = synth.template.to_json()["Resources"]
    return {
        (m["Properties"]["HttpMethod"], resource_path(resources, m["Properties"]["ResourceId"]["Ref"]))
        for m in synth.resources("AWS::ApiGateway::Method").values()
    }
