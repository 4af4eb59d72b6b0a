"""What a shadow generation would change for readers: the current beliefs of two generations,
compared per subject, key and member. Pure: it only reads the two BeliefIndex views."""

from __future__ import annotations

from collections import Counter
from collections.abc import Collection
from dataclasses import dataclass, field
from typing import Literal

from agentmem.model.beliefs import Belief
from agentmem.ports.semantic import BeliefIndex

ChangeKind = Literal["added", "lost", "changed", "flag_raised", "flag_cleared"]
KINDS: tuple[ChangeKind, ...] = ("added", "lost", "changed", "flag_raised", "flag_cleared")


@dataclass(frozen=True)
class KeyChange:
    """One difference a reader would see. `live` and `shadow` are the current values (None where
    the generation has no current belief under the key and member)."""

    subject_id: str
    key: str
    member: str
    kind: ChangeKind
    live: str | None
    shadow: str | None


@dataclass(frozen=True)
class ShadowDiff:
    live_generation: int
    shadow_generation: int
    subjects: int  # subjects in either generation
    beliefs: tuple[int, int]  # current beliefs in (live, shadow)
    changes: list[KeyChange] = field(default_factory=list)

    def counts(self) -> dict[ChangeKind, int]:
        seen = Counter(change.kind for change in self.changes)
        return {kind: seen[kind] for kind in KINDS}


def _by_slot(index: BeliefIndex, subject_id: str) -> dict[tuple[str, str], Belief]:
    return {(b.key, b.member): b for b in index.current(subject_id)}


def compare_subject(subject_id: str, live: dict[tuple[str, str], Belief],
                    shadow: dict[tuple[str, str], Belief]) -> list[KeyChange]:  # fmt: skip
    """The changes for one subject, ordered by key and member, then by kind. A value that changed
    and also carries another flag gives two rows: what a reader reads, and what it is warned of."""
    changes: list[KeyChange] = []
    for key, member in sorted(live.keys() | shadow.keys()):
        before, after = live.get((key, member)), shadow.get((key, member))
        row = KeyChange(subject_id, key, member, "added", _value(before), _value(after))
        if before is None:
            changes.append(row)
            if after is not None and after.flag:
                changes.append(_kind(row, "flag_raised"))
            continue
        if after is None:
            changes.append(_kind(row, "lost"))
            continue
        if before.value != after.value:
            changes.append(_kind(row, "changed"))
        if after.flag and not before.flag:
            changes.append(_kind(row, "flag_raised"))
        elif before.flag and not after.flag:
            changes.append(_kind(row, "flag_cleared"))
    return changes


def _value(belief: Belief | None) -> str | None:
    return belief.value if belief is not None else None


def _kind(row: KeyChange, kind: ChangeKind) -> KeyChange:
    return KeyChange(row.subject_id, row.key, row.member, kind, row.live, row.shadow)


def diff_generations(
    live: BeliefIndex, shadow: BeliefIndex, *, skip_subjects: Collection[str] = ()
) -> ShadowDiff:
    """Every subject of either generation but `skip_subjects` (the health probe), in id order."""
    subjects = sorted((set(live.subjects()) | set(shadow.subjects())) - set(skip_subjects))
    changes: list[KeyChange] = []
    totals = [0, 0]
    for subject_id in subjects:
        before, after = _by_slot(live, subject_id), _by_slot(shadow, subject_id)
        totals[0] += len(before)
        totals[1] += len(after)
        changes.extend(compare_subject(subject_id, before, after))
    return ShadowDiff(live.generation, shadow.generation, len(subjects), (totals[0], totals[1]), changes)
