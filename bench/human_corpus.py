"""Build the human-conversation corpus (/work/evaldata/conversations/) from fetched snapshots.

    .venv/bin/python bench/human_corpus.py [--text DIR] [--tables DIR] [--out DIR]
        [--propose [--skip N] [--min-conversations N]]

The dialogue is the Switchboard Dialog Act Corpus (SwDA): 1,155 real telephone conversations
between two strangers on an assigned topic, recorded 1991-92. Two public repositories carry it:

- NathanDuran/Switchboard-Corpus: every SwDA conversation as plain text, one utterance a line
  (`speaker|text|dialog act`), disfluency markup already removed and continuations ('+') joined
  (swda_data/{train,val,test}/<conversation_no>.txt; derived from cgpotts/swda, whose swda.zip is
  too big for the snapshot store);
- simonefu/Converging_to_baseline: the Switchboard-1 LDC tables (call_con_tab.csv: which caller
  spoke on which side of each conversation; conv_tab.csv: the date; Topic_tab.csv: the topic).

A caller took part in many conversations, with a different partner each time, so a caller is a
natural subject and each of their conversations (in date order) a session. The subjects and their
sessions are fixed in bench/data/human_conversations/labels.json; this script writes one JSON per
subject to $AGENTMEM_EVAL_DATA/conversations/ (default /work/evaldata). Nothing it writes goes into
the repository. An utterance keeps its line index in the source file (`index`), which is what the
labels' evidence points at; the few leftover tags (<laughter>) and coders' notes (*typo) are
dropped. Where what the two
sides say shows that the transcript's A and B are the other way round from call_con_tab (a caller
giving another caller's home town, family, job), labels.json lists the conversation under
`swapped_sides` with the reason, and the build swaps them back.

Snapshots are found under /work/.mirror/ (a bare git dir or a checkout); `--propose` prints the
selection rule's candidates instead of building."""

from __future__ import annotations

import argparse
import csv
import io
import json
import os
import re
import subprocess
import sys
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
LABELS = ROOT / "bench" / "data" / "human_conversations" / "labels.json"
MIRROR = Path("/work/.mirror")
TEXT_REPO, TEXT_COMMIT = "NathanDuran/Switchboard-Corpus", "2aec5da98f15808d578c83328b871907b9d31f05"
TABLES_REPO, TABLES_COMMIT = "simonefu/Converging_to_baseline", "2a52611412e19831844c5f52e1ea42556a1fc451"
SPLITS = ("train", "val", "test")
SUBJECTS, SESSIONS, MIN_CONVERSATIONS = 20, 7, 10


def data_root() -> Path:
    return Path(os.environ.get("AGENTMEM_EVAL_DATA", "/work/evaldata"))


def corpus_dir() -> Path:
    return data_root() / "conversations"


BUILD_HINT = (
    "fetch github:NathanDuran/Switchboard-Corpus and github:simonefu/Converging_to_baseline, then run"
    " `.venv/bin/python bench/human_corpus.py` (writes $AGENTMEM_EVAL_DATA/conversations/)"
)


class Snapshot:
    """Files of one repository at one commit: a bare git dir, a checkout's .git, or plain files."""

    def __init__(self, path: Path, commit: str) -> None:
        self.path = path
        self.commit = commit
        git_dir = path if (path / "objects").is_dir() else path / ".git"
        self.git_dir = git_dir if (git_dir / "objects").is_dir() else None
        if self.git_dir is not None:
            head = self._git("rev-parse", "HEAD").strip()
            if not self._has(commit):
                print(f"warning: {path} lacks commit {commit}; reading HEAD {head}", file=sys.stderr)
                self.commit = head

    def _git(self, *args: str) -> str:
        out = subprocess.run(["git", "--git-dir", str(self.git_dir), *args], check=True, capture_output=True)
        return out.stdout.decode("utf-8", errors="replace")

    def _has(self, commit: str) -> bool:
        probe = subprocess.run(
            ["git", "--git-dir", str(self.git_dir), "cat-file", "-e", f"{commit}^{{commit}}"],
            capture_output=True,
            check=False,
        )
        return probe.returncode == 0

    def names(self, folder: str) -> list[str]:
        if self.git_dir is not None:
            listed = self._git("ls-tree", "--name-only", f"{self.commit}:{folder}")
            return [n for n in listed.splitlines() if n]
        return sorted(p.name for p in (self.path / folder).iterdir())

    def read(self, name: str) -> str:
        if self.git_dir is not None:
            return self._git("show", f"{self.commit}:{name}")
        return (self.path / name).read_text(encoding="utf-8", errors="replace")


def find_snapshot(repo: str, given: Path | None) -> Path:
    if given is not None:
        return given
    base = MIRROR / repo.replace("/", "+")
    for candidate in (base / "repo", base / "repo" / ".git", base):
        if (candidate / "objects").is_dir() or (candidate / ".git").is_dir():
            return candidate
    raise SystemExit(f"no snapshot of {repo} under {MIRROR}: {BUILD_HINT}")


_TAG = re.compile(r"<[^<>]*>")


def clean(text: str) -> str:
    """Readable prose: the source is already free of disfluency markup but for a few <tags> and
    the coders' notes after a '*' ("*sp: we're", "*listen")."""
    text = _TAG.sub(" ", text.split("*", 1)[0])
    text = re.sub(r"[{}\[\]#]", " ", text)
    text = re.sub(r"\s+([,.?!])", r"\1", " ".join(text.split()))
    return text.strip(" ,") if text.strip(" ,.") else ""


@dataclass(frozen=True)
class Conversation:
    number: int
    path: str
    sides: dict[str, int]  # "A"/"B" -> caller number
    date: str  # YYYY-MM-DD
    start: str  # HHMM
    topic: str


def tables(
    snapshot: Snapshot,
) -> tuple[dict[int, dict[str, int]], dict[int, tuple[str, str, int]], dict[int, str]]:
    sides: dict[int, dict[str, int]] = {}
    for side in csv.DictReader(io.StringIO(snapshot.read("call_con_tab.csv"))):
        sides.setdefault(int(side["id_conv"]), {})[side["id_caller"].strip()] = int(side["id_speaker"])
    when: dict[int, tuple[str, str, int]] = {}
    for row in csv.reader(io.StringIO(snapshot.read("conv_tab.csv"))):
        if row and row[0].isdigit():
            yymmdd = row[6].strip()
            topic = int(row[4]) if row[4].strip().isdigit() else -1
            when[int(row[0])] = (f"19{yymmdd[:2]}-{yymmdd[2:4]}-{yymmdd[4:6]}", row[7].strip(), topic)
    topics = {
        int(row["id_topic"]): row["topic"].strip().lower()
        for row in csv.DictReader(io.StringIO(snapshot.read("Topic_tab.csv")))
    }
    return sides, when, topics


def conversations(text: Snapshot, table: Snapshot) -> dict[int, Conversation]:
    sides, when, topics = tables(table)
    found: dict[int, Conversation] = {}
    for split in SPLITS:
        for name in text.names(f"swda_data/{split}"):
            if not re.fullmatch(r"\d+\.txt", name):
                continue
            number = int(name[:-4])
            date, start, topic = when[number]
            found[number] = Conversation(
                number, f"swda_data/{split}/{name}", sides[number], date, start, topics.get(topic, str(topic))
            )
    return found


def propose(
    found: dict[int, Conversation], skip: int = 0, min_conversations: int = MIN_CONVERSATIONS
) -> list[tuple[int, list[int]]]:
    """The selection rule: the callers with the most SwDA conversations (ties: lower caller number),
    at least `min_conversations` of them, each with their first SESSIONS conversations in date
    order; `skip` passes over the first callers (the belief-precision set takes the SUBJECTS after
    the question sets' ones). Only 73 callers have MIN_CONVERSATIONS and the first 68 are taken, so
    `beliefs3` lowers the floor to SESSIONS and takes the first SUBJECTS that are no subject of any
    split: `--skip 68 --min-conversations 7` (the ranking's first 68 are exactly those subjects).
    `beliefs4` to `beliefs6` take the next SUBJECTS the same way: `--skip 88`, `108` and `128`
    (with `--min-conversations 7`; the ranking's first 88, 108 and 128 are the earlier subjects)."""
    by_caller: dict[int, list[Conversation]] = {}
    for conv in found.values():
        for caller in conv.sides.values():
            by_caller.setdefault(caller, []).append(conv)
    ranked = sorted(
        (c for c in by_caller if len(by_caller[c]) >= min_conversations),
        key=lambda c: (-len(by_caller[c]), c),
    )
    return [
        (c, [v.number for v in sorted(by_caller[c], key=lambda v: (v.date, v.start, v.number))][:SESSIONS])
        for c in ranked[skip : skip + SUBJECTS]
    ]


def utterances(text: Snapshot, conv: Conversation) -> list[dict[str, Any]]:
    rows = []
    for index, line in enumerate(text.read(conv.path).splitlines()):
        side, _, rest = line.partition("|")
        body, _, act = rest.rpartition("|")
        content = clean(body)
        if side not in conv.sides or not content:
            continue  # the index stays the source line: labels point at it
        rows.append(
            {
                "index": index,
                "side": side,
                "speaker": f"caller-{conv.sides[side]}",
                "act": act,
                "text": content,
            }
        )
    return rows


def build(text: Snapshot, table: Snapshot, labels: dict[str, Any], out: Path) -> list[Path]:
    found = conversations(text, table)
    for number in labels.get("swapped_sides", {}):  # the transcript's A is the table's B
        conv = found[int(number)]
        found[conv.number] = replace(conv, sides={"A": conv.sides["B"], "B": conv.sides["A"]})
    out.mkdir(parents=True, exist_ok=True)
    written = []
    for subject in labels["subjects"]:
        caller = int(subject["caller"])
        sessions = []
        for number, conv_no in enumerate(subject["sessions"], start=1):
            conv = found[int(conv_no)]
            side = next(s for s, c in conv.sides.items() if c == caller)
            partner = next(c for s, c in conv.sides.items() if s != side)
            sessions.append(
                {
                    "number": number,
                    "conversation_id": conv.number,
                    "source_file": conv.path,
                    "date": conv.date,
                    "topic": conv.topic,
                    "subject_side": side,
                    "partner": f"caller-{partner}",
                    "utterances": utterances(text, conv),
                }
            )
        document = {
            "subject_id": subject["subject_id"],
            "caller": f"caller-{caller}",
            "split": subject["split"],
            "source": {"text": f"{TEXT_REPO}@{text.commit}", "tables": f"{TABLES_REPO}@{table.commit}"},
            "swapped_sides": swapped_in(labels, subject),
            "sessions": sessions,
        }
        path = out / f"{subject['subject_id']}.json"
        path.write_text(json.dumps(document, ensure_ascii=False, indent=1) + "\n", encoding="utf-8")
        written.append(path)
    return written


def swapped_in(labels: dict[str, Any], subject: dict[str, Any]) -> list[int]:
    swapped = {int(n) for n in labels.get("swapped_sides", {})}
    return [int(c) for c in subject["sessions"] if int(c) in swapped]


def load_subjects(split: str | None = None) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    """The labels and the built corpus of each labelled subject (of `split`, or all); exits with
    how to build the corpus when it is missing."""
    labels = json.loads(LABELS.read_text(encoding="utf-8"))
    # "all" is the dev and test question sets; the belief-precision callers ("beliefs" to
    # "beliefs6") have no questions, and "test2" (held out, read once) is only ever asked for by name.
    questioned = split in (None, "all")
    chosen = [
        s for s in labels["subjects"] if s["split"] == split or (questioned and s["split"] in ("dev", "test"))
    ]
    subjects = []
    for subject in chosen:
        path = corpus_dir() / f"{subject['subject_id']}.json"
        if not path.exists():
            raise SystemExit(f"the corpus is not built: {path} is missing. To build it: {BUILD_HINT}")
        built = json.loads(path.read_text(encoding="utf-8"))
        if [s["conversation_id"] for s in built["sessions"]] != [
            int(c) for c in subject["sessions"]
        ] or built.get("swapped_sides") != swapped_in(labels, subject):
            raise SystemExit(f"{path} does not match labels.json (stale build?): rebuild it. {BUILD_HINT}")
        subjects.append(built)
    return labels, subjects


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--text", type=Path, help=f"snapshot of {TEXT_REPO} (default: under {MIRROR})")
    parser.add_argument("--tables", type=Path, help=f"snapshot of {TABLES_REPO} (default: under {MIRROR})")
    parser.add_argument(
        "--out", type=Path, help="where the subjects go (default $AGENTMEM_EVAL_DATA/conversations)"
    )
    parser.add_argument("--labels", type=Path, default=LABELS)
    parser.add_argument("--propose", action="store_true", help="print the selection rule's subjects")
    parser.add_argument("--skip", type=int, default=0, help="with --propose: pass over this many callers")
    parser.add_argument(
        "--min-conversations",
        type=int,
        default=MIN_CONVERSATIONS,
        help=f"with --propose: callers with at least this many conversations (default {MIN_CONVERSATIONS})",
    )
    args = parser.parse_args()
    text = Snapshot(find_snapshot(TEXT_REPO, args.text), TEXT_COMMIT)
    table = Snapshot(find_snapshot(TABLES_REPO, args.tables), TABLES_COMMIT)
    if args.propose:
        found = conversations(text, table)
        for caller, convs in propose(found, args.skip, args.min_conversations):
            print(
                json.dumps({"caller": caller, "sessions": convs, "topics": [found[c].topic for c in convs]})
            )
        return
    labels = json.loads(args.labels.read_text(encoding="utf-8"))
    written = build(text, table, labels, args.out or corpus_dir())
    events = sum(len(s["utterances"]) for p in written for s in json.loads(p.read_text())["sessions"])
    print(f"wrote {len(written)} subjects, {events:,} utterances to {(args.out or corpus_dir())}")


if __name__ == "__main__":
    main()
