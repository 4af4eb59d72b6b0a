"""The local rules on their labelled sets (tests/data/rules/), against the old rules in one run.

    .venv/bin/python bench/verdicts.py

(1) verdicts: CONFLICT precision and recall, accuracy against always answering the majority
    label, and the share of consistent pairs (SAME or UPDATE) flagged; for the new rules, the
    old rules (their code at the last commit that had them, read from git) and the baseline of
    what the old rules did in practice: every different value is a CONFLICT.
(2) extraction from prose with the default catalogue: precision and recall of (key, value) facts.
(3) near misses: facts extracted from sentences that state none (must be 0).
(4) key resolution: proposals mapped onto the right existing key (MiniLM shortlist + the rules'
    decision) against keeping every proposal apart.
(5) knowledge updates end to end on the embedded default (SQLite, MiniLM, the worker): the
    current belief holds the latest value, with the verdict and flag the change calls for, and
    a question in other words finds it first; new rules against the old ones.

Every figure on both splits: `dev` (tuned against) and `heldout` (written before the rules).
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
from agentmem.bootstrap import bootstrap  # noqa: E402
from agentmem.semantic.key_resolver import KeyResolver  # noqa: E402
from agentmem.semantic.service import SemanticService  # noqa: E402
from agentmem.settings import Settings  # noqa: E402
from tests.rules_eval import (  # noqa: E402
    SPLITS,
    any_difference_is_conflict,
    as_dict,
    load,
    run_updates,
    score_extraction,
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
    exec(compile(source, f"{ref}:{OLD_PATH}", "exec"), module.__dict__)  # noqa: S102 - our own history
    return module.RulesLLM(), subprocess.run(
        ["git", "rev-parse", "--short", ref], cwd=ROOT, capture_output=True, text=True, check=False
    ).stdout.strip()


def pct(x: float) -> str:
    return f"{100 * x:.1f}%"


def main() -> None:
    logging.disable(logging.WARNING)
    started = time.perf_counter()
    new = RulesLLM()
    old = old_rules()
    verdict_rows, extraction_rows, key_rows, updates = [], [], [], []
    out: dict[str, Any] = {"old_rules_ref": old[1] if old else None, "splits": {}}
    with tempfile.TemporaryDirectory() as tmp:
        services = bootstrap(Settings(data_dir=Path(tmp) / "new"))
        resolver = KeyResolver(new, services.semantic.embedder, services.semantic.fact_types)
        outcomes = {"new": run_updates(services, load("knowledge_updates"))}
        if old:
            base = bootstrap(Settings(data_dir=Path(tmp) / "old"))
            s = base.semantic
            base.__dict__["semantic"] = SemanticService(s.store, old[0], s.embedder, s.fact_types)
            outcomes["old"] = run_updates(base, load("knowledge_updates"))
        for split in SPLITS:
            result: dict[str, Any] = {}
            deciders = {"new rules": new.decide, "any difference": any_difference_is_conflict}
            if old:
                deciders["old rules"] = old[0].decide
            result["verdicts"] = {n: as_dict(score_verdicts(load("verdicts", split), d)) for n, d in deciders.items()}
            for name, score in result["verdicts"].items():
                verdict_rows.append([split, name, str(score["pairs"]), pct(score["conflict_precision"]),
                                     pct(score["conflict_recall"]), pct(score["accuracy"]),
                                     pct(score["majority_accuracy"]), pct(score["flagged_consistent"])])  # fmt: skip
            extractors = {"new rules": new.extract_facts} | ({"old rules": old[0].extract_facts} if old else {})
            result["extraction"] = {
                name: {
                    "prose": as_dict(score_extraction(load("extraction", split), extract)),
                    "near_misses": as_dict(score_near_misses(load("near_misses", split), extract)),
                }
                for name, extract in extractors.items()
            }
            for name, scores in result["extraction"].items():
                prose, near = scores["prose"], scores["near_misses"]
                extraction_rows.append([split, name, str(prose["sentences"]), pct(prose["precision"]),
                                        pct(prose["recall"]), str(near["sentences"]), str(near["false_facts"])])  # fmt: skip
            keys = score_keys(load("key_resolution", split), new.resolve_key, resolver.shortlist)
            kept_apart = sum(r["expect"] is None for r in load("key_resolution", split))
            result["keys"] = {"new rules": as_dict(keys), "keep every key apart": kept_apart / keys.proposals}
            result["updates"] = {}
            for name, runs in outcomes.items():
                chosen = [o for o in runs if o.split == split]
                figures = {a: sum(getattr(o, a) for o in chosen) / len(chosen) for a in ("held", "verdict_right", "found_first")}
                result["updates"][name] = {"scenarios": len(chosen), **figures}
                updates.append([split, f"{name} rules", str(len(chosen)), pct(figures["held"]),
                                pct(figures["verdict_right"]), pct(figures["found_first"])])  # fmt: skip
            key_rows.append([split, str(keys.proposals), pct(keys.accuracy), pct(kept_apart / keys.proposals)])
            out["splits"][split] = result
    print(f"old rules: {OLD_PATH} at {out['old_rules_ref'] or '(not found in git)'}\n")
    print_table(["split", "verdict by", "pairs", "CONFLICT precision", "recall", "accuracy", "majority", "consistent flagged"], verdict_rows)  # fmt: skip
    print()
    print_table(["split", "extraction by", "sentences", "precision", "recall", "near misses", "false facts"], extraction_rows)  # fmt: skip
    print()
    print_table(["split", "key proposals", "resolved right", "keeping every key apart"], key_rows)
    print()
    print_table(["split", "knowledge updates", "scenarios", "value held", "verdict+flag", "found first"], updates)  # fmt: skip
    out["meta"] = environment(time.perf_counter() - started)
    RESULTS.parent.mkdir(parents=True, exist_ok=True)
    RESULTS.write_text(json.dumps(out, indent=2))
    print(f"\nwrote {RESULTS.relative_to(ROOT)} in {out['meta']['run_seconds']} s")


if __name__ == "__main__":
    main()
