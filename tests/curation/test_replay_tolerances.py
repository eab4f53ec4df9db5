"""Replay's comparison tolerances erase only what honestly differs between two runs, never program
output of the same shape (red team, 2026-12-06).

- A hex number is erased only where it is a memory address: in an object's repr (``at 0x...``) or
  of pointer width (12 to 16 digits). A 4- to 11-digit result (``hex(add(...))``, a CRC-32) is
  compared: a log recording the fixed answer ``0x12345`` where the buggy code prints ``0xdcbb`` is
  drift, as the same lie in decimal always was.
- A plain ``ls`` of several directories matches by names directory by directory: a listing that
  moves a file from one directory's block to another's is drift.
"""

from __future__ import annotations

from test_replay import CALC_S0, FIXED, bash, environment, episode_of, honest_turns

from trajectory_platform.curation.verify.replay import listing_blocks, normalize, replay_episode
from trajectory_platform.gym.sandbox import unified_diff

DIFF = unified_diff(CALC_S0, FIXED)
HEX = "python3 -c 'from calc.ops import add; print(hex(add(0x10000, 0x2345)))'"


def test_a_hex_result_is_compared_and_an_address_is_not():
    for real, claimed in (("0xdcbb", "0x12345"), ("0x1c291ca3", "0x1c291ca4"), ("#0xff8800", "#0x00ff88")):
        assert normalize(real) != normalize(claimed), (real, claimed)
    for one, other in (
        ("<calc.ops.Box object at 0x7f3a9c001234>", "<calc.ops.Box object at 0x55d0c0de1000>"),
        ("<function add at 0x104a3c2d0>", "<function add at 0x1049f8e50>"),
        ("Current thread 0x00007f1e2d3c4b40 (most recent call first):", "Current thread 0x00007fa0b1c2d3e4"),
        ("ptr=0x7ffd5e8c1a2b", "ptr=0x7ffe00112233"),
    ):
        assert normalize(one.split(" (")[0]) == normalize(other.split(" (")[0]), (one, other)


def test_a_fabricated_hex_result_is_drift_and_the_true_one_verifies():
    forged = episode_of([bash(9, HEX, "0x12345\n"), *honest_turns()], DIFF)
    result = replay_episode(forged, environment())
    assert (result.observations, result.drift_turns) == ("drift", [2])
    honest = episode_of([bash(9, HEX, "0xdcbb\n"), *honest_turns()], DIFF)
    assert replay_episode(honest, environment()).drift_turns == []


def test_a_listing_of_several_directories_matches_per_directory():
    columns = "calc:\n__init__.py  ops.py\n\ntests:\ntest_ops.py\n"  # a terminal's layout
    honest = episode_of([bash(9, "ls calc tests", columns), *honest_turns()[:3]], DIFF)
    result = replay_episode(honest, environment())
    assert (result.observations, result.tolerated) == ("verified", {"ls_names": [2]})

    moved = "calc:\n__init__.py\n\ntests:\nops.py  test_ops.py\n"
    forged = episode_of([bash(9, "ls calc tests", moved), *honest_turns()[:3]], DIFF)
    result = replay_episode(forged, environment())
    assert (result.drift_turns, result.tolerated) == ([2], {})


def test_listing_blocks_keep_each_directorys_names_apart():
    assert listing_blocks("README.md\n\nb:\nx  y\n\na:\nz") == [
        ("", ("README.md",)),
        ("a:", ("z",)),
        ("b:", ("x", "y")),
    ]
    assert listing_blocks("a:\nx y") != listing_blocks("a:\nx\n\nb:\ny")
