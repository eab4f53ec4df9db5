"""Generation budgets for closed-loop evaluation, sized from the expert data a policy trained on.

A per-turn budget shorter than the longest expert turn truncates actions the task needs (long
edits) and scores them as truncated proposals; a much longer one only lets a runaway model cost
more time. So the budget is the longest selected-target turn plus a margin, read from the
token-masked dataset itself.
"""

from __future__ import annotations

from collections.abc import Sequence

import pyarrow as pa

from trajectory_platform.training.data.labels import IGNORE_INDEX, target_count


def longest_target_span(table: pa.Table) -> int:
    """Tokens of the longest contiguous target run (one expert turn with its end token).

    The evaluation's ``max_new_tokens`` is sized from it: any shorter budget truncates turns the
    expert writes (long edits), a much longer one only lets runaways cost more time.
    """
    longest = 0
    for labels in table.column("labels").to_pylist():
        run = 0
        for label in labels:
            run = run + 1 if label != IGNORE_INDEX else 0
            longest = max(longest, run)
    return longest


def evaluation_budget(tables: Sequence[pa.Table], margin: int = 8) -> tuple[int, int]:
    """(``max_new_tokens`` per turn, ``max_generated_tokens`` per trial) sized from the expert data.

    A turn may be as long as the longest expert turn plus ``margin``; a trial may generate twice
    the most any expert episode generated. Both leave every expert-length action possible while a
    runaway model costs a bounded, small amount of evaluation time. Only selected-target tables
    say what a turn is: all-token labels (every position a target) would size a "turn" as the
    whole example, so they are refused.
    """
    for table in tables:
        if any(IGNORE_INDEX not in labels[1:] for labels in table.column("labels").to_pylist()):
            raise ValueError("evaluation_budget needs selected-target labels; a row targets every position")
    per_example = max(
        target_count(labels) for table in tables for labels in table.column("labels").to_pylist()
    )
    return max(longest_target_span(t) for t in tables) + margin, 2 * per_example


FALLBACK_TURN_TOKENS = 48
"""Per-turn budget when the dataset has no rows to size it from."""


def turn_budget(dataset: pa.Table, *, cap: int) -> int:
    """``max_new_tokens`` for evaluating a policy trained on ``dataset`` (a token-masked table).

    The longest selected-target turn plus the margin, never above ``cap`` (the per-trial budget:
    a turn cannot generate more than its whole trial may).
    """
    if dataset.num_rows == 0:
        return FALLBACK_TURN_TOKENS
    return min(evaluation_budget([dataset.select(["labels"])])[0], cap)
