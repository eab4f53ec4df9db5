"""``trajectory-platform run``: the README's main command, end to end on a fresh workdir."""

from __future__ import annotations

import contextlib
import json
import os
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import duckdb
import pytest

from trajectory_platform.commands._profile import EMBEDDED_PROFILE, asset_settings, checked_asset_config
from trajectory_platform.commands._settings import SettingError, parse_settings
from trajectory_platform.commands.run import _contiguous, sync_tree

TINY_BUDGET = [
    "--set=checkpoint.max_steps=2",
    "--set=checkpoint.preamble_warmup_steps=1",
    "--set=scorecard.episodes=4",
    "--set=scorecard.recovery_episodes=2",
    "--set=scorecard.retention_episodes=2",
    "--set=scorecard.max_steps=3",
    "--set=scorecard.max_generated_tokens=60",
    "--gym-learnable-tasks=200",
    "--set=token_masked_dataset.heldout_target_minimum=5",
    "--set=redacted_corpus.leak_sample_fraction=0.0",
]
"""Run config that keeps the end-to-end run (done twice, to compare bytes) inside CI's time: a
2-step checkpoint (one of them warming up without the preamble) is evaluated on 8 paired trials
instead of 58, of at most 3 turns and 60 generated tokens (it writes no parseable call either way,
so longer trials only spend time), and
half the default learnable training tasks, audited at 5 training targets per held-out token
instead of 20 (the audit itself is tested in tests/evaluation/test_eval_coverage.py), and canaries
planted in the fewest records that hold the minimum of 200 instead of a tenth of the records,
in the stage's Λ_leak sample and its blocking check's alike (the sample's rule is tested in
tests/curation/test_leak_sample.py). The library rollout keeps its default, so the curation checks
see the default mix."""


def test_dagster_contiguous_day_ranges() -> None:
    days = ["2024-01-30", "2024-01-31", "2024-02-01", "2024-02-03"]
    assert _contiguous(days) == [("2024-01-30", "2024-02-01"), ("2024-02-03", "2024-02-03")]


def test_dagster_sync_tree_copies_only_changed_files(tmp_path: Path) -> None:
    (tmp_path / "src" / "2024-01-01").mkdir(parents=True)
    (tmp_path / "src" / "2024-01-01" / "a.jsonl").write_text("{}\n")
    assert sync_tree(tmp_path / "src", tmp_path / "dst") == 1
    assert sync_tree(tmp_path / "src", tmp_path / "dst") == 0
    (tmp_path / "src" / "2024-01-01" / "a.jsonl").write_text("{}\n{}\n")
    assert sync_tree(tmp_path / "src", tmp_path / "dst") == 1


def test_dagster_run_settings_parse_json_values() -> None:
    assert parse_settings(["checkpoint.max_steps=2", "checkpoint.objective=sft"]) == {
        "checkpoint": {"max_steps": 2, "objective": "sft"}
    }
    with pytest.raises(ValueError, match="ASSET.FIELD=VALUE"):
        parse_settings(["max_steps=2"])


def test_dagster_run_profile_sits_under_set_values() -> None:
    config = asset_settings(["checkpoint.max_steps=3", "scorecard.episodes=2"])
    assert config["checkpoint"] == {**EMBEDDED_PROFILE["checkpoint"], "max_steps": 3}
    assert config["scorecard"] == {**EMBEDDED_PROFILE["scorecard"], "episodes": 2}


def test_dagster_run_profile_names_only_declared_settings() -> None:
    from trajectory_platform.definitions import defs

    profile = asset_settings([])
    assert checked_asset_config(list(defs.assets), profile) == profile
    with pytest.raises(SettingError, match="did you mean checkpoint.max_steps"):
        checked_asset_config(list(defs.assets), {"checkpoint": {"max_stepz": 4}})
    # a value of the right type that the settings dataclass itself refuses, before any work
    with pytest.raises(SettingError, match="verified_traces: workers must be a whole number >= 1"):
        checked_asset_config(list(defs.assets), {"verified_traces": {"workers": 0}})
    # a shorter run than the profile's context warm-up would never train with the tool block
    with pytest.raises(SettingError, match="preamble_warmup_steps=2000 leaves none of max_steps=600"):
        checked_asset_config(list(defs.assets), asset_settings(["checkpoint.max_steps=600"]))


def test_dagster_run_refuses_a_mistyped_setting_before_any_work(tmp_path: Path, capsys) -> None:
    from trajectory_platform.cli import main

    assert main(["run", "--workdir", str(tmp_path / "w"), "--set", "checkpoint.max_stepz=4"]) == 2
    assert "checkpoint.max_stepz" in capsys.readouterr().err
    assert not (tmp_path / "w").exists()


TALLIED = (
    "raw_traces",
    "verified_traces",
    "redacted_corpus",
    "split_assignments",
    "training_mixture",
    "preference_pairs",
    "token_masked_dataset",
    "preference_dataset",
    "checkpoint",
)
"""The stages whose metadata carries the common accounting keys."""

# One pipeline key for both runs: pseudonyms are keyed, and each workdir otherwise makes its own.
SALTED = {**os.environ, "TRAJECTORY_PLATFORM_SALT": "test-salt-shared-by-both-runs"}


def _start(workdir: Path) -> subprocess.Popen:
    return subprocess.Popen(
        [sys.executable, "-m", "trajectory_platform.cli", "run", "--workdir", str(workdir), *TINY_BUDGET],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=SALTED,
    )


UNLOADED_WALL_S = 1200
"""What one run may take on an unloaded machine (the fixed wall-clock limit this test had)."""
STALL_S = 300
"""Seconds a run may go using no CPU at all (its whole process tree) before it counts as hung."""


def _tree_cpu_s(root: int) -> float:
    """CPU seconds ``root`` and its live descendants have used, their reaped children's included
    (``/proc/PID/stat`` utime, stime, cutime, cstime); 0.0 once ``root`` is gone."""
    parents: dict[int, int] = {}
    ticks: dict[int, int] = {}
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat", encoding="ascii", errors="replace") as fh:
                fields = fh.read().rpartition(")")[2].split()
        except OSError:
            continue
        parents[int(entry)] = int(fields[1])
        ticks[int(entry)] = sum(int(f) for f in fields[11:15])
    tree, grown = {root} & set(ticks), True
    while grown:
        more = {pid for pid, parent in parents.items() if parent in tree} - tree
        tree, grown = tree | more, bool(more)
    return sum(ticks[pid] for pid in tree) / os.sysconf("SC_CLK_TCK")


def _finish_all(
    processes: list[subprocess.Popen],
    cpu_budget_s: float = UNLOADED_WALL_S * (os.cpu_count() or 1),
    stall_s: float = STALL_S,
    poll_s: float = 1.0,
) -> list[subprocess.CompletedProcess]:
    """Wait for every run, reading their output meanwhile; kill one (and fail) only for what its own
    process tree did: more than ``cpu_budget_s`` CPU seconds (a runaway: the fixed wall-clock limit
    it replaces allowed at most that much on an idle machine of this size) or ``stall_s`` seconds
    without using any CPU (hung). Never for wall-clock time alone: a machine overloaded seven times
    over made a 1,200 s limit fail runs that were only waiting for a CPU.

    Any change of the tree's total counts as use, a fall too: a sandbox killed at the end of a day
    takes the CPU of the processes inside it out of the tree (they are reaped outside it), and a run
    measured against its highest total then looked hung for as long as it took to earn that back
    (both runs killed at 16x load)."""
    outputs: dict[int, tuple[str, str]] = {}

    def read(index: int, process: subprocess.Popen) -> None:
        outputs[index] = process.communicate()

    readers = [threading.Thread(target=read, args=(i, p), daemon=True) for i, p in enumerate(processes)]
    for reader in readers:
        reader.start()
    seen = [0.0 for _ in processes]
    moved = [time.monotonic() for _ in processes]
    failures: list[str] = []
    while any(reader.is_alive() for reader in readers):
        time.sleep(poll_s)
        for i, process in enumerate(processes):
            if process.poll() is not None:
                continue
            now, cpu = time.monotonic(), _tree_cpu_s(process.pid)
            if cpu != seen[i]:
                seen[i], moved[i] = cpu, now
            why = (
                f"used {cpu:.0f} CPU seconds (budget {cpu_budget_s:.0f})"
                if cpu > cpu_budget_s
                else f"used no CPU for {now - moved[i]:.0f} s"
                if now - moved[i] > stall_s
                else None
            )
            if why is not None:
                failures.append(f"{process.args!r} {why}")
                process.kill()
    for reader in readers:
        reader.join()
    assert not failures, failures
    return [subprocess.CompletedProcess(p.args, p.returncode, *outputs[i]) for i, p in enumerate(processes)]


@pytest.mark.slow
def test_dagster_run_materializes_every_asset_into_the_warehouse(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from trajectory_platform.definitions import defs

    graph = defs.resolve_asset_graph()
    # every asset but the rounds', which `run` leaves to `--rounds` / `trajectory-platform round`
    tabular = {k.to_user_string() for k in graph.get_all_asset_keys() if graph.get(k).group_name != "rounds"}
    workdir, again = tmp_path / "wd", tmp_path / "again"
    # Both runs at once (the byte comparison needs two; much of each run waits on sandboxed
    # processes, so together they take far less than twice one).
    first, second = _start(workdir), _start(again)
    done, repeated = _finish_all([first, second])
    assert done.returncode == 0, done.stderr[-4000:]
    summary = json.loads(done.stdout.strip().splitlines()[-1])
    assert summary["ok"] and summary["checks"]["passed"] > 0
    assert "[1/" in done.stderr and "ok in" in done.stderr  # progress per asset
    con = duckdb.connect(str(workdir / "warehouse.duckdb"), read_only=True)
    tables = {r[0] for r in con.execute("SELECT table_name FROM information_schema.tables").fetchall()}
    assert tabular <= tables, f"assets without a warehouse table: {sorted(tabular - tables)}"
    assert con.execute("SELECT count(*) FROM raw_traces").fetchall()[0][0] > 0
    assert (workdir / "dagster_home" / "dagster.yaml").is_file()
    assert summary["report"] and Path(summary["report"]).is_file()
    assert summary["decision"] in ("promote", "hold") and summary["reasons"]  # read from the scorecard row
    assert set(summary["checks"]["rerun"]) == {*summary["checks"]["failed"], *summary["checks"]["warnings"]}
    # The embedded profile declares the yield band of its own mostly-expert logs: no warning by default.
    assert not [w for w in summary["checks"]["warnings"] if "yield_in_declared_band" in w]
    assert "training_mixture:mixture_shares_within_bounds" not in summary["checks"]["failed"]
    # Issue 6's SQL over the warehouse: no closure in two splits, no evaluation fixture trained on.
    straddling = con.execute(
        "SELECT count(*) FROM (SELECT closure_id FROM split_assignments WHERE split IN "
        "('train', 'validation', 'test') GROUP BY closure_id HAVING count(DISTINCT split) > 1)"
    ).fetchall()[0][0]
    assert straddling == 0
    leaked = con.execute(
        "SELECT count(*) FROM training_mixture m JOIN split_assignments s USING (episode_id) "
        "WHERE s.fixture_id IN (SELECT fixture_id FROM split_assignments WHERE split = 'test')"
    ).fetchall()[0][0]
    assert leaked == 0
    assert con.execute("SELECT count(*) FROM checkpoint").fetchall()[0][0] == 1
    assert con.execute("SELECT count(*) FROM scorecard").fetchall()[0][0] == 1
    # Every stage that passes records on accounts for them the same way: in = kept + dropped.
    from dagster import AssetKey, DagsterInstance

    monkeypatch.setenv("DAGSTER_HOME", str(workdir / "dagster_home"))  # the instance's dagster.yaml reads it
    with DagsterInstance.from_config(str(workdir / "dagster_home")) as instance:
        for asset in TALLIED:
            event = instance.get_latest_materialization_event(AssetKey(asset))
            values = {k: v.value for k, v in event.asset_materialization.metadata.items()}
            assert {"records_in", "kept", "dropped", "dropped_by_reason"} <= set(values), asset
            assert values["records_in"] == values["kept"] + values["dropped"], asset
            assert values["dropped"] == sum(values["dropped_by_reason"].values()), asset
        # Each step ran under its stage's named job: the UI's run list never shows an ephemeral job.
        from trajectory_platform.sensors.jobs import STAGE_JOBS

        ran_as = {record.dagster_run.job_name for record in instance.get_run_records()}
        assert ran_as == {job.name for job in STAGE_JOBS} - {"round_job"}, ran_as
    # The same inputs, seeds and key in another workdir: every table's Parquet, byte for byte.
    assert repeated.returncode == 0, repeated.stderr[-4000:]
    tables = sorted(p.relative_to(workdir) for p in (workdir / "parquet").rglob("*.parquet"))
    assert tables == sorted(p.relative_to(again) for p in (again / "parquet").rglob("*.parquet"))
    differing = [str(t) for t in tables if (workdir / t).read_bytes() != (again / t).read_bytes()]
    assert differing == []


BUSY = (
    "import time\nend = time.process_time() + {cpu}\nwhile time.process_time() < end:\n    pass\n"
    "print('done')"
)
"""A run that needs ``cpu`` CPU seconds and nothing else."""


def _python(code: str) -> subprocess.Popen:
    pipe = subprocess.PIPE
    return subprocess.Popen([sys.executable, "-c", code], stdout=pipe, stderr=pipe, text=True)


def _starve(process: subprocess.Popen, share: float, period_s: float = 0.35) -> threading.Thread:
    """Let ``process`` run only ``share`` of the time (SIGSTOP / SIGCONT), as a machine overloaded
    1/share times over would."""

    def throttle() -> None:
        while process.poll() is None:
            with contextlib.suppress(ProcessLookupError):
                process.send_signal(signal.SIGCONT)
            time.sleep(period_s * share)
            with contextlib.suppress(ProcessLookupError):
                process.send_signal(signal.SIGSTOP)
            time.sleep(period_s * (1 - share))
        with contextlib.suppress(ProcessLookupError):
            process.send_signal(signal.SIGCONT)

    thread = threading.Thread(target=throttle, daemon=True)
    thread.start()
    return thread


def test_a_run_starved_of_cpu_is_waited_for_past_its_unloaded_time() -> None:
    # 0.5 CPU seconds at a seventh of the machine: over 3.5 s of wall time, which a fixed limit of
    # 2 s (four times what it needs unloaded) would have killed; its CPU use never stalls 3 s.
    process = _python(BUSY.format(cpu=0.5))
    throttle = _starve(process, share=1 / 7)
    start = time.monotonic()
    (done,) = _finish_all([process], cpu_budget_s=2.0, stall_s=3.0, poll_s=0.1)
    throttle.join()
    assert time.monotonic() - start > 2.0, "the run was not starved: the check proves nothing"
    assert (done.returncode, done.stdout.strip()) == (0, "done")


def test_a_run_that_uses_no_cpu_is_killed_as_hung_and_one_that_spins_past_its_budget_as_runaway() -> None:
    with pytest.raises(AssertionError, match="used no CPU for"):
        _finish_all([_python("import time\ntime.sleep(60)")], cpu_budget_s=30.0, stall_s=1.5, poll_s=0.1)
    with pytest.raises(AssertionError, match=r"used \d+ CPU seconds \(budget 1\)"):
        _finish_all([_python(BUSY.format(cpu=60))], cpu_budget_s=1.0, stall_s=30.0, poll_s=0.1)


def test_cpu_its_child_processes_use_keeps_a_run_alive() -> None:
    # the run itself only waits (as the pipeline waits on its sandboxes); its child works for 3 s
    child = BUSY.format(cpu=3)
    code = f"import subprocess, sys\nsubprocess.run([sys.executable, '-c', {child!r}])\nprint('ok')"
    (done,) = _finish_all([_python(code)], cpu_budget_s=30.0, stall_s=1.5, poll_s=0.1)
    assert (done.returncode, done.stdout.split()) == (0, ["done", "ok"]), done.stderr


def test_a_run_whose_tree_loses_a_sandbox_s_cpu_is_not_taken_for_hung() -> None:
    # a child's own child spins (counted in the tree), the child is killed, so the spinner's CPU
    # leaves the tree (it is reaped outside it); the run then works lightly under its old total
    spinner = BUSY.format(cpu=1.0)  # its "done" is read when it ends: a zombie still counted under its parent
    child = f"import subprocess, sys, time\nsubprocess.Popen([sys.executable, '-c', {spinner!r}])\n"
    child += "time.sleep(60)"
    code = (
        "import subprocess, sys, time\n"
        f"child = subprocess.Popen([sys.executable, '-c', {child!r}], stdout=subprocess.PIPE, text=True)\n"
        "child.stdout.readline()\nchild.kill()\nchild.wait()\n"
        "end = time.time() + 3\nwhile time.time() < end:\n    sum(range(200000))\n    time.sleep(0.02)\n"
        "print('ok')"
    )
    (done,) = _finish_all([_python(code)], cpu_budget_s=30.0, stall_s=1.5, poll_s=0.1)
    assert (done.returncode, done.stdout.strip()) == (0, "ok"), done.stderr
