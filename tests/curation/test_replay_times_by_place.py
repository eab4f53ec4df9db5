"""Replay erases a time by its place, never by its shape (red team, 2026-12-06).

A number with a time unit, a clock or a date-time that a program computes and prints is compared:
a log recording ``23 ms`` where the buggy code prints ``17 ms`` is drift. What honestly differs
run to run is erased where runners print it: a test runner's duration after its counts, ``time``'s
lines, an ``elapsed`` report, a log line's leading stamp, an ``ls -l`` date.
"""

from __future__ import annotations

import itertools

from test_replay import CALC_S0, FIXED, bash, environment, episode_of, honest_turns

from trajectory_platform.curation.verify.replay import normalize, replay_episode
from trajectory_platform.gym.sandbox import unified_diff

UNITS = ("ms", " ms", "s", " s", " sec", " seconds", "us", " ns")
SHAPES = ("{v}", "latency: {v}", "took {v} to run", "result={v};", "p99 {v} (budget 50 ms)")


def computed_values() -> list[tuple[str, str]]:
    """(printed, recorded) pairs of a computed value with a unit, clock or date, in many places."""
    pairs = [
        (shape.format(v=f"17{unit}"), shape.format(v=f"23{unit}"))
        for unit, shape in itertools.product(UNITS, SHAPES)
    ]
    pairs += [
        ("09:30:00", "10:30:00"),
        ("next run at 09:30:00", "next run at 10:30:00"),
        ("2024-01-02 10:00:00", "2024-01-03 10:00:00"),
        ("due 2024-01-02T10:00:00Z", "due 2024-01-03T10:00:00Z"),
        ("elapsed_ms 17", "elapsed_ms 23"),
    ]
    return pairs


def runner_noise() -> list[tuple[str, str]]:
    """(one run, another run) pairs of what honestly differs between two runs of one command."""
    return [
        ("2 passed in 0.12s", "2 passed in 3.40s"),
        (
            "==== 1 failed, 3 passed, 1 warning in 1.20s (0:00:01) ====",
            "==== 1 failed, 3 passed, 1 warning in 0.31s ====",
        ),
        ("Ran 4 tests in 0.001s", "Ran 4 tests in 0.120s"),
        ("real\t0m0.010s\nuser\t0m0.004s\nsys\t0m0.000s", "real\t0m1.210s\nuser\t0m0.104s\nsys\t0m0.020s"),
        ("[+] Time elapsed: 0.0004 sec.", "[+] Time elapsed: 1.8804 sec."),
        ("2024-01-02T03:04:05Z INFO started", "2025-07-08T09:10:11Z INFO started"),
        ("[12:01:02] building", "[07:00:59] building"),
        ("-rw-r--r-- 1 a a 9 Jul 17 01:31 setup.py", "-rw-r--r-- 1 a a 9 Dec  3  2023 setup.py"),
    ]


def test_a_computed_value_with_a_unit_clock_or_date_is_compared():
    kept = [(real, forged) for real, forged in computed_values() if normalize(real) == normalize(forged)]
    assert kept == []


def test_run_to_run_timing_is_erased_where_runners_print_it():
    differ = [(one, other) for one, other in runner_noise() if normalize(one) != normalize(other)]
    assert differ == []


def test_a_fabricated_duration_is_drift_and_the_true_one_verifies():
    command = "python3 -c 'from calc.ops import add; print(add(20, 3), \"ms\")'"
    diff = unified_diff(CALC_S0, FIXED)
    forged = episode_of([bash(9, command, "23 ms\n"), *honest_turns()], diff)
    assert replay_episode(forged, environment()).drift_turns == [2]
    honest = episode_of([bash(9, command, "17 ms\n"), *honest_turns()], diff)
    assert replay_episode(honest, environment()).drift_turns == []
