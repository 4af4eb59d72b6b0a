"""The local rules on their labelled sets (tests/data/rules/), against the old rules in one run.

    .venv/bin/python bench/verdicts.py

(1) verdicts: CONFLICT precision and recall, accuracy against always answering the majority
    label, and the share of consistent pairs (SAME or UPDATE) flagged; for the new rules, the
    old rules (their code at the last commit that had them, read from git) and the baseline of
    what the old rules did in practice: every different value is a CONFLICT.
(2) extraction from prose with the default catalogue: precision and recall of (key, value) facts.
(3) near misses: facts extracted from sentences that state none (must be 0).
(4) key resolution: proposals mapped onto the right existing key (MiniLM shortlist + the rules'
    decision) against keeping every proposal apart; and on labelled key pairs, the precision and
    recall of "same" (one fact under two keys).
(5) knowledge updates end to end on the embedded default (SQLite, MiniLM, the worker): the
    current belief holds the latest value, with the verdict and flag the change calls for, and
    a question in other words finds it first; new rules against the old ones.

Every figure on each split: `dev` (tuned against), `heldout` (written before the rules, not
tuned against) and, for (1)-(3), `fresh` (written after the rules were frozen; its first run is
in docs/extraction-rules.md, with the general fixes it prompted).
Prints a table, writes bench/results/verdicts.json, and always exits 0."""

from __future__ import annotations

import json
import logging
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from types import ModuleType
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from report import environment, print_table  # noqa: E402

from agentmem.adapters.local.rules_llm import RulesLLM  # noqa: E402
from agentmem.semantic.key_resolver import KeyResolver  # noqa: E402
from agentmem.semantic.service import SemanticService  # noqa: E402
from agentmem.settings import Settings  # noqa: E402
from agentmem.wiring import bootstrap  # noqa: E402
from tests.rules_eval import (  # noqa: E402
    SPLITS,
    UpdateOutcome,
    any_difference_is_conflict,
    as_dict,
    load,
    run_updates,
    score_extraction,
    score_key_pairs,
    score_keys,
    score_near_misses,
    score_verdicts,
)

OLD_PATH = "layers/core/python/agentmem/adapters/local/rules_llm.py"
RESULTS = ROOT / "bench" / "results" / "verdicts.json"


def old_rules() -> tuple[Any, str] | None:
    """The RulesLLM of the last commit whose rules_llm.py defined it, or None without git."""
    try:
        commits = subprocess.run(
            ["git", "log", "--format=%H", "-S", "class RulesLLM:", "--", OLD_PATH],
            cwd=ROOT, capture_output=True, text=True, check=True,
        ).stdout.split()  # fmt: skip
        if not commits:
            return None
        ref = f"{commits[0]}^" if "class RulesLLM:" not in (ROOT / OLD_PATH).read_text() else "HEAD"
        source = subprocess.run(
            ["git", "show", f"{ref}:{OLD_PATH}"], cwd=ROOT, capture_output=True, text=True, check=True
        ).stdout
    except (OSError, subprocess.CalledProcessError):
        return None
    module = ModuleType("old_rules_llm")
    sys.modules[module.__name__] = module  # dataclasses look their module up there
    exec(compile(source, f"{ref}:{OLD_PATH}", "exec"), module.__dict__)  # our own history
    return OldRules(module.RulesLLM()), subprocess.run(
        ["git", "rev-parse", "--short", ref], cwd=ROOT, capture_output=True, text=True, check=False
    ).stdout.strip()


def pct(x: float) -> str:
    return f"{100 * x:.1f}%"


VERDICT_HEADERS = ["split", "verdict by", "pairs", "CONFLICT precision", "recall", "accuracy", "majority",
                   "consistent flagged"]  # fmt: skip
EXTRACTION_HEADERS = [
    "split",
    "extraction by",
    "sentences",
    "precision",
    "recall",
    "near misses",
    "false facts",
]
KEY_HEADERS = ["split", "key proposals", "resolved right", "keeping every key apart", "key pairs",
               "same: precision", "recall"]  # fmt: skip
UPDATE_HEADERS = ["split", "knowledge updates", "scenarios", "value held", "verdict+flag", "found first"]
Rows = dict[str, list[list[str]]]


def verdicts(split: str, deciders: dict[str, Any], rows: Rows) -> dict[str, Any]:
    scores = {name: as_dict(score_verdicts(load("verdicts", split), d)) for name, d in deciders.items()}
    for name, sc in scores.items():
        figures = (
            "conflict_precision",
            "conflict_recall",
            "accuracy",
            "majority_accuracy",
            "flagged_consistent",
        )
        rows["verdicts"].append([split, name, str(sc["pairs"]), *(pct(sc[f]) for f in figures)])
    return scores


def extraction(split: str, extractors: dict[str, Any], rows: Rows) -> dict[str, Any]:
    scores = {}
    for name, extract in extractors.items():
        prose = as_dict(score_extraction(load("extraction", split), extract))
        near = as_dict(score_near_misses(load("near_misses", split), extract))
        scores[name] = {"prose": prose, "near_misses": near}
        counts = [str(prose["sentences"]), pct(prose["precision"]), pct(prose["recall"])]
        rows["extraction"].append([split, name, *counts, str(near["sentences"]), str(near["false_facts"])])
    return scores


def keys(split: str, new: RulesLLM, resolver: KeyResolver, rows: Rows) -> dict[str, Any]:
    score = score_keys(load("key_resolution", split), new.resolve_key, resolver.shortlist)
    apart = sum(r["expect"] is None for r in load("key_resolution", split)) / score.proposals
    pairs = score_key_pairs(load("key_pairs", split), new.resolve_key, resolver.shortlist)
    rows["keys"].append(
        [split, str(score.proposals), pct(score.accuracy), pct(apart), str(pairs.pairs),
         pct(pairs.precision), pct(pairs.recall)]
    )  # fmt: skip
    return {"new rules": as_dict(score), "keep every key apart": apart, "key pairs": as_dict(pairs)}


def updates(split: str, outcomes: dict[str, list[UpdateOutcome]], rows: Rows) -> dict[str, Any]:
    result = {}
    for name, runs in outcomes.items():
        chosen = [o for o in runs if o.split == split]
        figures = {
            a: sum(getattr(o, a) for o in chosen) / len(chosen)
            for a in ("held", "verdict_right", "found_first")
        }
        result[name] = {"scenarios": len(chosen), **figures}
        rows["updates"].append(
            [split, f"{name} rules", str(len(chosen)), *(pct(v) for v in figures.values())]
        )
    return result


class OldRules:
    """The old rules behind today's LLM port: they predate `allow_undeclared` (they read declared
    keys only, so the switch changes nothing for them) and are otherwise called as they were."""

    def __init__(self, rules: Any) -> None:
        self._rules = rules

    def extract_facts(self, event: Any, fact_types: Any, *, allow_undeclared: bool = False) -> Any:
        del allow_undeclared
        return self._rules.extract_facts(event, fact_types)

    def decide(self, *args: Any) -> Any:
        return self._rules.decide(*args)

    def resolve_key(self, *args: Any) -> Any:
        return self._rules.resolve_key(*args)


def project(tmp: Path, new: RulesLLM, old: Any | None) -> dict[str, list[UpdateOutcome]]:
    """The knowledge-update scenarios on the embedded default, with each rule set as the LLM port."""
    outcomes = {"new": run_updates(bootstrap(Settings(data_dir=tmp / "new")), load("knowledge_updates"))}
    if old is not None:
        services = bootstrap(Settings(data_dir=tmp / "old"))
        s = services.semantic
        services.__dict__["semantic"] = SemanticService(s.store, old, s.embedder, s.fact_types)
        outcomes["old"] = run_updates(services, load("knowledge_updates"))
    return outcomes


def main() -> None:
    logging.disable(logging.WARNING)
    started = time.perf_counter()
    new = RulesLLM()
    found = old_rules()
    old = found[0] if found else None
    rows: Rows = {"verdicts": [], "extraction": [], "keys": [], "updates": []}
    out: dict[str, Any] = {"old_rules_ref": found[1] if found else None, "splits": {}}
    deciders = {"new rules": new.decide, "any difference": any_difference_is_conflict}
    extractors = {"new rules": new.extract_facts}
    if old is not None:
        deciders["old rules"], extractors["old rules"] = old.decide, old.extract_facts
    with tempfile.TemporaryDirectory() as tmp:
        outcomes = project(Path(tmp), new, old)
        semantic = bootstrap(Settings(data_dir=Path(tmp) / "keys")).semantic
        resolver = KeyResolver(new, semantic.embedder, semantic.fact_types)
        for split in (*SPLITS, "fresh"):
            result = out["splits"][split] = {
                "verdicts": verdicts(split, deciders, rows),
                "extraction": extraction(split, extractors, rows),
            }
            if split != "fresh":  # the fresh split has verdicts and extractions only
                result["keys"] = keys(split, new, resolver, rows)
                result["updates"] = updates(split, outcomes, rows)
    print(f"old rules: {OLD_PATH} at {out['old_rules_ref'] or '(not found in git)'}")
    for headers, name in ((VERDICT_HEADERS, "verdicts"), (EXTRACTION_HEADERS, "extraction"),
                          (KEY_HEADERS, "keys"), (UPDATE_HEADERS, "updates")):  # fmt: skip
        print()
        print_table(headers, rows[name])
    out["meta"] = environment(time.perf_counter() - started)
    RESULTS.parent.mkdir(parents=True, exist_ok=True)
    RESULTS.write_text(json.dumps(out, indent=2))
    print(f"\nwrote {RESULTS.relative_to(ROOT)} in {out['meta']['run_seconds']} s")


if __name__ == "__main__":
    main()
