"""Scoring a protocol's per-batch answers against a reference's threshold crossings."""
from __future__ import annotations

from dataclasses import dataclass
from typing import List, Optional, Sequence

from .. import SketchError

__all__ = ["CrossingScore", "score_crossings"]


@dataclass
class CrossingScore:
    """How a protocol's answers followed a reference's threshold crossings: each reference crossing
    (a change of side) is detected on time, late (``delays`` holds the batches late) or missed (the
    reference went back before the protocol reported it)."""
    crossings: int
    on_time: int
    late: int
    missed: int
    delays: List[int]
    wrong_batches: int

    @property
    def max_delay(self) -> int:
        """The largest delay, in batches, of a late detection (0 when none was late)."""
        return max(self.delays, default=0)


def score_crossings(reference: Sequence[bool], answers: Sequence[Optional[bool]]) -> CrossingScore:
    """Scores per-batch answers (above the threshold or not) against per-batch reference sides."""
    if len(reference) != len(answers):
        raise SketchError(f"reference and answers differ in length: {len(reference)} vs {len(answers)}")
    ref = [bool(x) for x in reference]
    changes = [b for b in range(1, len(ref)) if ref[b] != ref[b - 1]]
    on_time = late = missed = 0
    delays: List[int] = []
    for i, b in enumerate(changes):
        end = changes[i + 1] if i + 1 < len(changes) else len(ref)
        hit = next((c for c in range(b, end) if answers[c] == ref[b]), None)
        if hit is None:
            missed += 1
        elif hit == b:
            on_time += 1
        else:
            late += 1
            delays.append(hit - b)
    wrong = sum(1 for r, a in zip(ref, answers) if a is None or bool(a) != r)
    return CrossingScore(len(changes), on_time, late, missed, delays, wrong)
