"""`agentmem verify` and the deep health check's sample reconcile the log with the beliefs and
report every divergence without repairing it. Each test corrupts the belief store on purpose, the
way a defect would (a lost update, a belief citing an event the log never had), and expects
verification to name it."""

from __future__ import annotations

import random
import subprocess
import sys
from pathlib import Path

import pytest

from agentmem.adapters.local.sqlite_log import SqliteCheckpoints, SqliteEventLog
from agentmem.model.beliefs import Belief, Observation, Provenance
from agentmem.model.events import AppendEventRequest
from agentmem.ports.semantic import BeliefIndex
from agentmem.semantic.fold import fold
from agentmem.semantic.health import PROBE_SUBJECT, deep_health
from agentmem.semantic.verify import Report, sample, verify
from agentmem.semantic.worker import ProjectorWorker, checkpoint_name
from agentmem.settings import Settings
from agentmem.wiring import Services, bootstrap


class Tenant:
    def __init__(self, data_dir: Path) -> None:
        self.data_dir = data_dir
        self.services: Services = bootstrap(Settings(data_dir=data_dir))
        log = self.services.event_log
        assert isinstance(log, SqliteEventLog)
        self.log = log
        self.checkpoints = SqliteCheckpoints(log.database, "local")
        self.worker = ProjectorWorker(log, self.services.semantic, self.checkpoints)

    @property
    def index(self) -> BeliefIndex:
        return self.services.semantic.store.active()

    def say(self, subject: str, session: str, content: object, *facts: tuple[str, str]) -> None:
        body = {"subject_id": subject, "round": 0, "agent": "intake", "kind": "profile", "content": content}
        if facts:
            body["facts"] = [{"key": k, "value": v, "text": f"{subject}'s {k} is {v}."} for k, v in facts]
        self.services.episodic.append(session, AppendEventRequest.model_validate(body))

    def verify(self) -> Report:
        semantic = self.services.semantic
        watermark = self.checkpoints.load(checkpoint_name(self.index.generation))
        return verify(
            self.index, self.log, watermark=watermark, fact_types=semantic.fact_types,
            extract=self.services.reproducible_extraction(), skip_subjects={PROBE_SUBJECT},
        )  # fmt: skip

    def overwrite(self, chain: list[Belief]) -> None:
        """Write a chain straight into the store, as a defect would, bypassing the projector."""
        head = chain[-1]
        revision, _ = self.index.chain(head.subject_id, head.key, head.member)
        self.index.replace_chain(
            head.subject_id, head.key, head.member, expected_revision=revision, chain=chain, vector=None
        )


@pytest.fixture
def tenant(tmp_path: Path) -> Tenant:
    tenant = Tenant(tmp_path / "data")
    tenant.say("priya", "S1", "intake notes", ("risk_tolerance", "cautious"), ("city", "Lisbon"))
    tenant.say("priya", "S2", "she changed her mind", ("risk_tolerance", "aggressive"))
    tenant.say("priya", "S2", {"income": 135000})  # no explicit facts: the rules extract `income`
    tenant.say("priya", "S2", "chatter with no facts at all")
    tenant.say("sam", "T1", "sam's intake", ("goal", "house"), ("goal", "boat"))
    tenant.worker.run_once()
    return tenant


def without(chain: list[Belief], event_id: str) -> list[Belief]:
    """The chain folded again from every statement but `event_id`'s: a lost update."""
    statements = {p.event_id: (b, p) for b in chain for p in b.provenance}
    kept = [
        Observation(subject_id=b.subject_id, key=b.key, member=b.member, text=b.text, value=p.value,
                    order=f"{p.event_id}", event_id=p.event_id, session_id=p.session_id, seq=p.seq,
                    stated_at=b.valid_from)
        for eid, (b, p) in statements.items() if eid != event_id
    ]  # fmt: skip
    return fold(kept, lambda current, candidate: current.verdict)


def test_a_faithful_projection_has_no_divergence(tenant: Tenant) -> None:
    report = tenant.verify()
    assert report.ok, report.divergences
    # 5 explicit facts and `income` extracted from the dict; the chatter states nothing.
    assert (report.events_checked, report.facts_checked, report.unchecked_events) == (5, 6, 0)
    assert report.chains_checked == 5  # risk_tolerance, city, income, goal#house, goal#boat
    assert report.citations_checked == 6


def test_a_lost_update_is_reported_as_missing(tenant: Tenant) -> None:
    _, chain = tenant.index.chain("priya", "risk_tolerance", "")
    aggressive = chain[-1].provenance[-1].event_id
    tenant.overwrite(without(chain, aggressive))

    (divergence,) = tenant.verify().divergences
    assert (divergence.kind, divergence.subject_id, divergence.key, divergence.event_id) == (
        "missing", "priya", "risk_tolerance", aggressive,
    )  # fmt: skip
    assert "stated 'aggressive'" in divergence.detail


def test_a_belief_citing_an_event_the_log_never_had_is_a_phantom(tenant: Tenant) -> None:
    _, (city,) = tenant.index.chain("priya", "city", "")
    ghost = Provenance(session_id="S9", event_id="ev-never-appended", seq=41, value="Porto")
    tenant.overwrite([city.model_copy(update={"provenance": [*city.provenance, ghost]})])

    (divergence,) = tenant.verify().divergences
    assert (divergence.kind, divergence.key, divergence.event_id) == ("phantom", "city", "ev-never-appended")
    assert "S9 #41" in divergence.detail


def test_a_wrong_value_and_a_wrong_seq_are_reported(tenant: Tenant) -> None:
    _, (city,) = tenant.index.chain("priya", "city", "")
    (stated,) = city.provenance
    tenant.overwrite([city.model_copy(update={"provenance": [stated.model_copy(update={"value": "Porto"})]})])
    _, (income,) = tenant.index.chain("priya", "income", "")
    (cited,) = income.provenance
    tenant.overwrite(
        [income.model_copy(update={"provenance": [cited.model_copy(update={"seq": cited.seq + 7})]})]
    )

    kinds = {(d.kind, d.key) for d in tenant.verify().divergences}
    assert kinds == {("mismatch", "city"), ("miscited", "income")}


def test_a_chain_that_vanished_is_missing_every_statement(tenant: Tenant) -> None:
    db = tenant.log.database
    with db.write() as conn:
        conn.execute("DELETE FROM beliefs_g1 WHERE subject_id='sam' AND member='boat'")
    (divergence,) = tenant.verify().divergences
    assert (divergence.kind, divergence.key, divergence.member) == ("missing", "goal", "boat")
    assert "no chain holds the key" in divergence.detail


def test_events_past_the_checkpoint_and_unreproducible_extraction_are_counted_not_compared(
    tenant: Tenant,
) -> None:
    tenant.say("priya", "S3", "not projected yet", ("city", "Porto"))
    semantic = tenant.services.semantic
    report = verify(
        tenant.index, tenant.log, watermark=tenant.checkpoints.load(checkpoint_name(1)),
        fact_types=semantic.fact_types, extract=None, skip_subjects={PROBE_SUBJECT},
    )  # fmt: skip
    assert report.ok
    assert (report.unprojected_events, report.unchecked_events, report.events_checked) == (1, 2, 3)


def test_the_deep_health_sample_reports_divergences_and_stays_bounded(tenant: Tenant) -> None:
    semantic = tenant.services.semantic
    extract = tenant.services.reproducible_extraction()
    healthy = deep_health(semantic, tenant.log, extract=extract, rng=random.Random(1))
    assert healthy.status == "ok", healthy.problems
    assert healthy.consistency is not None
    assert (healthy.consistency.citations_checked, healthy.consistency.divergences) == (6, 0)

    _, chain = tenant.index.chain("priya", "risk_tolerance", "")
    tenant.overwrite(without(chain, chain[-1].provenance[-1].event_id))
    _, (city,) = tenant.index.chain("priya", "city", "")
    ghost = Provenance(session_id="S9", event_id="ev-never-appended", seq=41, value="Porto")
    tenant.overwrite([city.model_copy(update={"provenance": [*city.provenance, ghost]})])

    failing = deep_health(semantic, tenant.log, extract=extract, rng=random.Random(1))
    assert failing.status == "failing"
    assert failing.consistency is not None and failing.consistency.divergences == 1
    assert any(p.startswith("phantom: priya/city") for p in failing.problems)
    # The lost update is not visible from the citations alone; the full verify finds both.
    assert {d.kind for d in tenant.verify().divergences} == {"missing", "phantom"}

    bounded = sample(tenant.index, tenant.log, fact_types=semantic.fact_types, extract=extract,
                     skip_subjects={PROBE_SUBJECT}, max_citations=2)  # fmt: skip
    assert bounded.citations_checked == 2


def agentmem_verify(data_dir: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "agentmem.entrypoints.cli", "verify", "--data-dir", str(data_dir)],
        capture_output=True, text=True, timeout=120, check=False,
    )  # fmt: skip


def test_the_cli_prints_the_divergences_and_exits_1(tenant: Tenant) -> None:
    clean = agentmem_verify(tenant.data_dir)
    assert clean.returncode == 0, clean.stderr
    assert "no divergence" in clean.stdout

    _, chain = tenant.index.chain("priya", "risk_tolerance", "")
    tenant.overwrite(without(chain, chain[-1].provenance[-1].event_id))
    found = agentmem_verify(tenant.data_dir)
    assert found.returncode == 1, found.stderr
    assert "1 divergences" in found.stdout
    assert "missing  priya    risk_tolerance" in found.stdout


def test_a_statement_the_key_resolver_moved_onto_an_existing_key_is_not_missing(tmp_path: Path) -> None:
    """Extraction proposes `home_city`; the resolver files it under the subject's `city`. The
    statement is in the chain it was resolved to, so verification must look there too."""
    tenant = Tenant(tmp_path / "data")
    for session, sentence in (("S1", "I live in Lisbon."), ("S2", "My home city is Chicago.")):
        body = {"subject_id": "priya", "round": 0, "agent": "user", "kind": "message", "content": sentence}
        tenant.services.episodic.append(session, AppendEventRequest.model_validate(body))
    tenant.worker.run_once()
    observations = tenant.index.observations("priya", "city", "")
    assert [(o.proposed_key, o.value) for o in observations][-1] == ("home_city", "Chicago")

    report = tenant.verify()
    assert report.ok, report.divergences
    assert report.facts_checked == 2
