"""Stage 5, advisory: a score that orders review and picks among passing duplicates.

It never admits or rejects (curation §Learned rankers beneath the gate: a ranker may order the
audit queue and choose among passing trajectories, never gate them). The score is transparent:
efficiency against the fixture's minimum tool calls, the share of calls that repeat an earlier
identical call (loops), and the share of reads of something already read (redundancy).
"""

from __future__ import annotations

from trajectory_platform.curation.verify.calls import call_records
from trajectory_platform.curation.verify.verdicts import StageVerdict
from trajectory_platform.traces.record import Episode

WEIGHTS = {"efficiency": 0.5, "no_loops": 0.3, "no_redundancy": 0.2}


def advisory_components(episode: Episode, min_tool_calls: int | None) -> dict[str, float]:
    """The score's parts, each in [0, 1] where 1 is best."""
    records = call_records(episode)
    n = len(records)
    seen: set[str] = set()
    repeats = 0
    reads: set[str] = set()
    reread = 0
    for record in records:
        signature = record.signature
        repeats += signature in seen
        seen.add(signature)
        if record.is_read_only and not record.failed:
            reread += signature in reads
            reads.add(signature)
    efficiency = min(1.0, (min_tool_calls or n) / n) if n else 0.0
    return {
        "efficiency": round(efficiency, 6),
        "no_loops": round(1 - repeats / n, 6) if n else 1.0,
        "no_redundancy": round(1 - reread / n, 6) if n else 1.0,
    }


def score_advisory(episode: Episode, min_tool_calls: int | None) -> StageVerdict:
    """Run stage 5: always passes; ``data['score']`` orders review and breaks duplicate ties."""
    parts = advisory_components(episode, min_tool_calls)
    score = round(sum(WEIGHTS[k] * v for k, v in parts.items()), 6)
    return StageVerdict("advisory", passed=True, data={"score": score, **parts})
