"""An erased span's value is compared by its rule wherever replay compares two runs' texts.

A pid, a runner's duration, ``time``'s and an ``elapsed`` report's figures, a log line's stamp and
an ``ls -l`` date were erased by shape alone, only counted and placed: a forged figure of the right
shape (a 12-second test run recorded as 0.01 s, the fix of a performance task) was replay-verified.
A repr's address took any hex, a bare 12-digit one any value with the address's leading digit. And
a truncated answer's head and tail, a listing compared by its names and a shell answer's shown lines
were normalized each on its own, so even the temp paths :mod:`volatile` pairs in a whole answer
stood unpaired there. The variants are generated; each test checks the development half and the
validation half (every other variant) alike.
"""

from __future__ import annotations

import json
import random

from test_replay import CALC_S0, FIXED, bash, environment, episode_of, honest_turns
from test_replay_clipped_answers import mini_clip

from trajectory_platform.curation.verify.calls import CallRecord
from trajectory_platform.curation.verify.clipped import MINI_LIMIT, shown_parts, shows
from trajectory_platform.curation.verify.read_tools import OUTPUT, claims_contradict, output_claims
from trajectory_platform.curation.verify.replay import (
    DEFAULT_NORMALIZE,
    _tolerance,
    erased,
    normalize,
    replay_episode,
    same_output,
    volatile_agree,
)
from trajectory_platform.curation.verify.volatile import VALUES_AGREE
from trajectory_platform.gym.sandbox import unified_diff
from trajectory_platform.traces.record import ToolCall

SUITE = "".join(f"tests/test_ops.py::test_case_{i} PASSED\n" for i in range(400))
"""A long test run's per-test lines: what a harness clips between a head and a tail."""


def _halves(items: list) -> tuple[list, list]:
    return items[0::2], items[1::2]


def durations(seconds: float) -> list[str]:
    """How runners print one command's time (each ``{}`` the figure in seconds)."""
    minutes, rest = divmod(seconds, 60)
    return [
        f"===== 3 passed in {seconds:.2f}s =====",
        f"2 failed, 5 passed in {seconds:.2f}s",
        f"Ran 7 tests in {seconds:.3f}s",
        f"real\t{int(minutes)}m{rest:.3f}s",
        f"user\t{int(minutes)}m{rest:.3f}s",
        f"Time elapsed: {seconds:.4f} sec",
        f"elapsed = {seconds * 1000:.0f} ms",
    ]


def forged_values() -> list[tuple[str, str]]:
    """(what the program printed, what a forged log records): a figure no second run of the command
    prints, a stamp or date of another format or none a clock shows, a pid no system hands out, an
    address no process has."""
    pairs: list[tuple[str, str]] = []
    for real, claimed in ((12.4, 0.31), (0.02, 45.0), (300.0, 4.5), (25.0, 0.01), (90.0, 2.0)):
        pairs += list(zip(durations(real), durations(claimed), strict=True))
    pairs += [("3 passed in 65.43s (0:01:05)", "3 passed in 65.43s (0:00:02)")]
    stamps = [("2026-12-06 10:15:02,117", "2026-12-06 10:15:02"), ("10:15:02", "10:15:02.5")]
    stamps += [("2026-12-06T10:15:02Z", "2026-12-06 10:15:02Z"), ("10:15:02", "27:15:02")]
    stamps += [("2026-12-06 10:15:02", "2026-13-06 10:15:02"), ("[10:15:02]", "[10:75:02]")]
    pairs += [
        (f"{real} INFO collected 3 items", f"{forged} INFO collected 3 items") for real, forged in stamps
    ]
    pairs += [(f"worker pid {real} ready", f"worker pid {forged} ready") for real, forged in (("7", "0042"),)]
    pairs += [
        ("worker pid 7 ready", "worker pid 99999999 ready"),
        ("pid=7", "PID: 7"),
        ("pid 7", "pid 7 pid 8"),
    ]
    ls = "-rw-r--r-- 1 root root 9 {} setup.py"
    pairs += [
        (ls.format("Jul 17 01:31"), ls.format(date))
        for date in ("Jul 37 01:31", "Jul 17 01:61", "Jul 17 1812")
    ]
    pairs += [
        (f"<Foo object at 0x7f3a9c0012{k:02x}>", f"<Foo object at 0x{k:05x}>") for k in (0x12345, 0xDCBB)
    ]
    pairs += [
        ("<Foo object at 0x7f3a9c001234>", f"<Foo object at {forged}>")
        for forged in ("0xdeadbeefcafe", "0x7F3a9c001234")
    ]
    computed = (0x512345678901, 0x7A0000000003, 0x5C4F00000017, 0xF00000000001)
    pairs += [(hex(k), hex(k + 2**20 + 7)) for k in computed]
    return pairs


def honest_values(seed: int) -> list[tuple[str, str]]:
    """(one run, another run) of the same commands: times up to 5 times apart, stamps of the same
    format at other moments, pids of two pid namespaces, addresses of two address spaces."""
    rng = random.Random(seed)
    took = rng.choice((0.004, 0.2, 3.0, 70.0)) * rng.uniform(0.5, 2)
    other = took * rng.uniform(0.2, 5)
    pairs = list(zip(durations(took), durations(other), strict=True))
    moment, later = ([rng.randrange(n) for n in (24, 60, 60, 1000)] + [rng.randrange(1, 31)] for _ in "ab")
    for stamp in (
        "{0:02d}:{1:02d}:{2:02d}",
        "2026-11-{4:02d} {0:02d}:{1:02d}:{2:02d},{3:03d}",
        "[{0:02d}:{1:02d}:{2:02d}]",
    ):
        pairs.append(
            (
                f"{stamp.format(*moment)} INFO collected 3 items",
                f"{stamp.format(*later)} INFO collected 3 items",
            )
        )
    pairs.append(
        (
            f"{moment[0] % 12 + 1}:{moment[1]:02d}:{moment[2]:02d} up",
            f"{later[0]}:{later[1]:02d}:{later[2]:02d} up",
        )
    )
    pairs.append((f"pid {rng.randrange(2, 4_000_000)} up", f"pid {rng.randrange(2, 40)} up"))
    pairs.append((f"worker PID={rng.randrange(2, 32768)}", f"worker PID={rng.randrange(2, 32768)}"))
    day, hour = rng.randrange(1, 29), rng.randrange(24)
    pairs.append(
        (
            f"-rw-r--r-- 1 root root 9 Jul {day:2d} {hour:02d}:{rng.randrange(60):02d} setup.py",
            f"-rw-r--r-- 1 root root 9 Dec  {rng.randrange(1, 10)} {hour:02d}:31 setup.py",
        )
    )
    region = rng.choice(("7f", "55", "56"))
    pairs.append(
        (
            f"<Foo object at 0x{region}{rng.randrange(16**10):010x}>",
            f"<Foo object at 0x7f{rng.randrange(16**10):010x}>",
        )
    )
    pairs.append(
        (
            f"<Foo object at 0x10{rng.randrange(16**7):07x}>",
            f"<Foo object at 0x7f{rng.randrange(16**10):010x}>",
        )
    )
    pairs.append(
        (f"buf=0x{region}{rng.randrange(16**10):010x}", f"buf=0x{region}{rng.randrange(16**10):010x}")
    )
    pairs.append(("bash: nosuch: command not found", "bash: line 1: nosuch: command not found"))
    return pairs


def test_a_figure_no_second_run_prints_is_drift_dev_and_validation():
    for half in _halves(forged_values()):
        assert [pair for pair in half if same_output(pair[1], pair[0])] == []


def test_two_honest_runs_of_one_command_still_agree_dev_and_validation():
    for seeds in (range(0, 60, 2), range(1, 60, 2)):
        assert [pair for seed in seeds for pair in honest_values(seed) if not same_output(*pair)] == []


def _suite(took: float, temp: str, pid: int) -> str:
    return f"pid {pid}: cache in {temp}\n{SUITE}===== 400 passed in {took:.2f}s =====\n"


def clip_pairs() -> list[tuple[str, str, bool]]:
    """(a clipped answer, the replayed output, whether it is honest): the head and tail a harness
    shows of a long test run, holding a pid, a temp path and a duration, as one run printed them
    and as a forged log restates them."""
    out = []
    for k in range(12):
        rng = random.Random(k)
        real = _suite(rng.uniform(20, 40), f"/tmp/tmp{rng.randrange(10**8):08d}ab", rng.randrange(2, 99))
        again = _suite(rng.uniform(20, 40), f"/tmp/tmp{rng.randrange(10**8):08d}cd", rng.randrange(2, 99))
        forged = [
            _suite(0.05, f"/tmp/tmp{rng.randrange(10**8):08d}cd", 7),
            real.replace("/tmp/tmp", "/tmp/NOTE-rewrite-the-tests/tmp", 1),
            real.replace("pid ", "pid 0", 1),
        ][k % 3]
        out += [(mini_clip(again, MINI_LIMIT), real, True), (mini_clip(forged, MINI_LIMIT), real, False)]
    return out


def test_a_clip_pairs_the_values_it_shows_dev_and_validation():
    scenarios = clip_pairs()  # an honest clip and a forged one per scenario: halves by scenario
    for half in (scenarios[0::4] + scenarios[1::4], scenarios[2::4] + scenarios[3::4]):
        judged = [
            (honest, shows(clip, output, erased))
            for text, output, honest in half
            if (clip := shown_parts(text))
        ]
        assert len(judged) == len(half) and all(honest == kept for honest, kept in judged)


def test_a_clip_cut_inside_a_span_still_shows_it():
    output = "x" * (MINI_LIMIT - 20) + "\nsaved /tmp/tmpq8w_3kz1/out.txt\n" + "y" * MINI_LIMIT
    assert output[:MINI_LIMIT].endswith("/tmp/tmpq8w_3")  # the cut falls inside the path
    clip = shown_parts(mini_clip(output.replace("q8w_3kz1", "z9a_1bc2"), MINI_LIMIT))
    assert clip is not None and shows(clip, output, erased)


def _listing(command: str, recorded: str, replayed: str) -> str | None:
    call = ToolCall("c0", "execute_bash", json.dumps({"command": command}))
    return _tolerance(
        CallRecord(0, call, {"command": command}, None, None, False, None), recorded, replayed, ()
    )


def test_a_listing_pairs_its_values_in_any_order():
    replayed = "/tmp/tmpq8w_3kz1:\nb.py\na.py\n\n/tmp/tmpr2d_0xa9:\nc.py\n"
    command = "ls /tmp/tmpq8w_3kz1 /tmp/tmpr2d_0xa9"
    assert (
        _listing(command, "/tmp/tmpz0z_9yy1:\nc.py\n\n/tmp/tmpk7k_2bb3:\na.py  b.py\n", replayed)
        == "ls_names"
    )
    for forged in ("/tmp/NOTE_rewrite_tests:\nc.py", "/tmp/result-23:\nc.py", "/tmp/tmpk7k_2bb3:\nc.py"):
        recorded = f"{forged}\n\n/tmp/tmpq8w_3kz1:\na.py  b.py\n"
        if forged.endswith("bb3:\nc.py"):
            recorded = recorded.replace("/tmp/tmpq8w_3kz1", "/tmp/x")
        assert _listing(command, recorded, replayed) is None, forged
    long = "total 8\n-rw-r--r-- 1 u u 9 {} a.py\n"
    assert _listing("ls -l", long.format("Jul 17 01:31"), long.format("Dec  7 09:02")) == "ls_long"


def test_a_shown_output_line_pairs_its_values():
    output = "worker pid 7 up\nran in 0.12s\n/tmp/tmpq8w_3kz1/out.txt\n"
    same = normalize
    honest = output_claims("worker pid 31 up\n/tmp/tmpz0z_9yy1/out.txt")
    assert not claims_contradict(honest, {OUTPUT: output}, same, volatile_agree)
    for forged in ("worker pid 0031 up", "/tmp/NOTE_rewrite_the_tests/out.txt", "/tmp/result-23/out.txt"):
        assert claims_contradict(output_claims(forged), {OUTPUT: output}, same, volatile_agree), forged


def test_a_forged_timing_is_drift_and_the_run_s_own_verifies():
    """A fast run recorded as a slow one (the "before" of a claimed speed-up) is drift."""
    diff = unified_diff(CALC_S0, FIXED)
    timed = (
        "python3 -c 'import time; t = time.perf_counter(); sum(range(1000));"
        ' print(f"elapsed: {time.perf_counter() - t:.3f}s")\''
    )
    forged = episode_of([bash(9, timed, "elapsed: 30.000s\n"), *honest_turns()], diff)
    assert replay_episode(forged, environment()).drift_turns == [2]
    honest = episode_of([bash(9, timed, "elapsed: 0.000s\n"), *honest_turns()], diff)
    assert replay_episode(honest, environment()).drift_turns == []


def test_an_interactive_shell_s_error_verifies_against_bash_c_s():
    diff = unified_diff(CALC_S0, FIXED)
    missing = bash(9, "nosuch_tool_xyz --help", "bash: nosuch_tool_xyz: command not found\n", exit_code=127)
    assert replay_episode(episode_of([missing, *honest_turns()], diff), environment()).drift_turns == []


def test_every_value_rule_has_a_value_test():
    forms = {"bash: ", r"index \1..\2", "On branch <BRANCH>"}
    assert {placeholder for _, placeholder in DEFAULT_NORMALIZE} - forms == set(VALUES_AGREE)
