"""Belief precision on text nobody here wrote: every belief the projector made from the Switchboard
conversations, beside the utterance it came from, and the share a hand label calls right.

    .venv/bin/python bench/belief_precision.py
        [--split dev|test|beliefs|beliefs2|beliefs3|beliefs4|beliefs5|beliefs6|all] [--dump beliefs.json]

The callers' conversations are appended and projected as bench/human_conversations.py does (the
local backend, the embedded defaults, the rules extractor, no explicit facts). Each current belief
is then listed with its key, value, verdict, flag and the utterances of its provenance (speaker
and text). A belief is right when (bench/data/human_conversations/belief_labels.json, labelled by
hand from a dump of the rules' beliefs before the rules were changed):
- the utterance it came from is the subject (the caller whose memory it is) speaking about
  themselves, or a plain fact about a third party the key names;
- the key and the value say what the sentence says;
- a flagged (CONFLICT) belief replaced a value of the same attribute.
Beliefs no label covers are counted and listed as unlabelled: they are what a rule change added
and must be labelled before a figure is read. Writes bench/results/belief_precision.json. Exits 0.
"""

from __future__ import annotations

import argparse
import json
import logging
import time
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from human_conversations import append_all, beliefs_of, session_id
from human_corpus import load_subjects
from local_stack import local_stack
from report import environment, write_results

from agentmem.model.beliefs import normalise_value

ROOT = Path(__file__).resolve().parent.parent
LABELS = ROOT / "bench" / "data" / "human_conversations" / "belief_labels.json"
RESULTS = ROOT / "bench" / "results" / "belief_precision.json"
BAR = 0.95


def label_key(subject_id: str, key: str, value: str) -> str:
    return f"{subject_id}|{key}|{normalise_value(value)}"


def belief_rows(split: str) -> list[dict[str, Any]]:
    """Every current belief of every caller of the split, with the utterances it came from."""
    _, built = load_subjects(split)
    with local_stack("agentmem-bench-beliefs-") as stack:
        loaded = append_all(stack.client, built)
        stack.worker.settle()
        by_event = {ref.event_id: loaded.text[key] for key, ref in loaded.refs.items()}
        sessions = {session_id(s, n["number"]): n["conversation_id"] for s in built for n in s["sessions"]}
        rows = []
        for subject in built:
            sid = subject["subject_id"]
            for belief in beliefs_of(stack.client, sid).values():
                rows.append(
                    {
                        "label_key": label_key(sid, belief["key"], belief["value"]),
                        "subject_id": sid,
                        "caller": sid.removeprefix("swb-caller-"),
                        "key": belief["key"],
                        "value": belief["value"],
                        "text": belief["text"],
                        "verdict": belief["verdict"],
                        "flag": belief["flag"],
                        "previous": (belief.get("previous") or {}).get("text"),
                        "from": [
                            {
                                "conversation": sessions.get(p["session_id"]),
                                "speaker": by_event.get(p["event_id"], ("?", ""))[0],
                                "said": by_event.get(p["event_id"], ("?", ""))[1],
                            }
                            for p in belief["provenance"]
                        ],
                    }
                )
    return sorted(rows, key=lambda r: (r["subject_id"], r["key"], r["value"]))


def label_of(row: dict[str, Any], labels: dict[str, dict[str, Any]]) -> dict[str, Any] | None:
    """The row's label; a value the rules now trim (a trailing "and" dropped) is matched to the
    labelled belief it was cut from: same subject and key, the labelled value starting with it."""
    if row["label_key"] in labels:
        return labels[row["label_key"]]
    stem = label_key(row["subject_id"], row["key"], row["value"])
    longer = [k for k in labels if k.startswith(stem + " ")]
    return labels[longer[0]] if len(longer) == 1 else None


def precision(rows: Iterable[dict[str, Any]], labels: dict[str, dict[str, Any]]) -> dict[str, Any]:
    rows = list(rows)
    found = [(r, label_of(r, labels)) for r in rows]
    judged = [(r, label) for r, label in found if label is not None]
    right = sum(label["right"] for _, label in judged)
    flagged = [(r, label) for r, label in judged if r["flag"]]
    return {
        "beliefs": len(rows),
        "labelled": len(judged),
        "right": right,
        "precision": round(right / len(judged), 4) if judged else None,
        "flagged": len(flagged),
        "flagged_right": sum(label["right"] for _, label in flagged),
        "unlabelled": [r["label_key"] for r, label in found if label is None],
        "wrong": [
            {"label_key": r["label_key"], "text": r["text"], "why": label.get("why", "")}
            for r, label in judged
            if not label["right"]
        ],
    }


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument(
        "--split",
        default="dev",
        choices=["dev", "test", "beliefs", "beliefs2", "beliefs3", "beliefs4", "beliefs5", "beliefs6", "all"],
    )
    parser.add_argument("--dump", type=Path, help="also write every belief with its source utterances here")
    args = parser.parse_args()
    started = time.perf_counter()
    logging.disable(logging.WARNING)
    rows = belief_rows(args.split)
    if args.dump:
        args.dump.write_text(json.dumps(rows, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
    labels = json.loads(LABELS.read_text(encoding="utf-8"))["labels"] if LABELS.exists() else {}
    result = precision(rows, labels)
    share = result["precision"]
    print(f"belief precision on Switchboard ({args.split}): {result['beliefs']} beliefs made")
    print(
        f"  labelled {result['labelled']}, right {result['right']}, precision "
        f"{'n/a' if share is None else f'{share:.1%}'} (bar {BAR:.0%})"
    )
    print(f"  flagged {result['flagged']}, of them right {result['flagged_right']}")
    for wrong in result["wrong"]:
        print(f"  wrong: {wrong['text']!r}: {wrong['why']}")
    if result["unlabelled"]:
        print(f"  UNLABELLED ({len(result['unlabelled'])}): label them before reading the figure")
    verdict = "n/a" if share is None else ("PASS" if share >= BAR else "FAIL")
    print(f"  {verdict}: precision >= {BAR:.0%}")
    meta = {"split": args.split, **environment(time.perf_counter() - started)}
    write_results({"meta": meta, **result, "rows": rows}, RESULTS, started)


if __name__ == "__main__":
    main()
