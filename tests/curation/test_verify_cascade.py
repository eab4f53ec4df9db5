"""The whole cascade on the real sandbox: every sink, sink precedence, the ledger, determinism,
imported real logs never admitted, the CLI and the Dagster asset."""

import json

import pyarrow.parquet as pq
import pytest
from _verify_factory import (
    CALC_S0,
    OK,
    call,
    fixed_files,
    make_episode,
    make_fixture,
    pristine_turns,
    writing_turns,
)

from trajectory_platform.curation.verify import (
    SINKS,
    CascadeConfig,
    DynamicConfig,
    verdicts_table,
    verified_table,
    verify_episodes,
)
from trajectory_platform.curation.verify.tables import admitted_with_tamper_evidence, flake_counts

QUIET = CascadeConfig(progress=False)


def scheduled_flake(fixture_id: str, byte: int, modulus: int, timing_sensitive: bool = False):
    """A fixture whose sealed add test fails when the sandbox's scheduler draw says so: the
    outcome changes with the run's label (``verify:0``, ``calibrate:3``...) and is the same every
    time the same run is repeated (the sandbox lets no state survive between runs, so a counter
    file cannot do this). ``byte`` and ``modulus`` were chosen so the outcomes below come out;
    ``timing_sensitive`` imports ``time``, which makes the verifier calibrate the fixture."""
    fixture = make_fixture(fixture_id)
    fixture.sealed_tests["tests/test_ops.py"] = fixture.sealed_tests["tests/test_ops.py"].replace(
        "def test_add():\n    assert add(2, 3) == 5",
        "def test_add():\n    import hashlib\n    import os\n"
        + ("    import time\n" if timing_sensitive else "")
        + "    draw = hashlib.sha256(os.environ['GYM_SCHEDULE_SEED'].encode()).digest()\n"
        f"    assert add(2, 3) == 5 and draw[{byte}] % {modulus} != 0",
    )
    return fixture


@pytest.fixture(scope="module")
def batch(tmp_path_factory):
    fixture = make_fixture()
    flaky = scheduled_flake("calc-flaky", byte=7, modulus=2)
    tests_edited = {
        **fixed_files(),
        "tests/test_ops.py": CALC_S0["tests/test_ops.py"] + "\n\ndef test_x():\n    assert True\n",
    }
    tampered_failing = {**CALC_S0, "tests/test_ops.py": "def test_mul():\n    assert True\n"}
    episodes = [
        make_episode("admitted", pristine_turns(), fixed_files()),
        make_episode("syntax", pristine_turns(), fixed_files(), finish_reason="length"),
        make_episode("static", pristine_turns(), {**CALC_S0, "calc/ops.py": "def add(:\n"}),
        make_episode("negative", pristine_turns()[:1], CALC_S0),
        make_episode("tamper_pass", pristine_turns(), tests_edited),
        make_episode("tamper_fail", pristine_turns(), tampered_failing),
        make_episode("tamper_truncated", pristine_turns(), tampered_failing, finish_reason="length"),
        make_episode("flaky", pristine_turns(), fixed_files(), fixture=flaky, fixture_id="calc-flaky"),
        make_episode("imported", pristine_turns(), fixed_files(), fixture_id=None),
        make_episode("unknown_fixture", pristine_turns(), fixed_files(), fixture_id="not-in-library"),
    ]
    lookup = {"calc-add": fixture, "calc-flaky": flaky}
    return episodes, lookup, verify_episodes(episodes, lookup, QUIET)


def test_every_sink_is_reached_and_each_episode_lands_in_exactly_one(batch):
    episodes, _, result = batch
    sinks = {v.episode_id: v.sink for v in result.verdicts}
    assert len(result.verdicts) == len(episodes)
    assert sinks == {
        "admitted": "admitted",
        "syntax": "syntax_reject",
        "static": "static_reject",
        "negative": "hard_negative",
        "tamper_pass": "tamper_quarantine",
        "tamper_fail": "tamper_quarantine",
        "tamper_truncated": "tamper_quarantine",
        "flaky": "flaky_quarantine",
        "imported": "unverifiable",
        "unknown_fixture": "unverifiable",
    }
    assert set(sinks.values()) == set(SINKS)


def test_stage_verdicts_stop_at_the_first_failing_gate(batch):
    _, _, result = batch
    by_id = result.by_id()
    assert [s.stage for s in by_id["admitted"].stages] == [
        "syntactic",
        "static",
        "dynamic",
        "delta",
        "advisory",
    ]
    assert [s.stage for s in by_id["syntax"].stages] == ["syntactic"]
    assert [s.stage for s in by_id["static"].stages] == ["syntactic", "static"]
    assert by_id["tamper_fail"].stage("dynamic").passed is False  # failed the oracle, quarantined anyway
    assert by_id["imported"].stage("dynamic").passed is None
    assert by_id["admitted"].advisory_score == 1.0 and by_id["admitted"].advisory_rank == 1


def test_hard_negative_is_reproduced_and_has_a_divergence_turn(batch):
    _, _, result = batch
    negative = result.by_id()["negative"]
    assert negative.oracle_runs == 2 and negative.role == "hard_negative"
    assert negative.t_div is not None and negative.target_turns is None
    assert negative.triage_class == "policy_incapability"


def test_flaky_oracle_is_rerun_k_times_and_counted_in_r_flake(batch):
    _, _, result = batch
    flaky = result.by_id()["flaky"].stage("dynamic")
    assert flaky.data["run_outcomes"] == [False, True, False] and flaky.data["inconsistent"]
    judged = sum(1 for v in result.verdicts if v.oracle_runs)
    assert result.ledger.r_flake == pytest.approx(1 / judged)
    assert result.ledger.admission_halted  # 1 of a handful is far above 2 %
    assert result.by_id()["flaky"].triage_class == "runtime_defect"


def test_ledger_counts_are_measured_and_consistent(batch):
    episodes, _, result = batch
    summary = result.ledger.summary()
    stages = {s["stage"]: s for s in summary["stages"]}
    assert stages["syntactic"]["entered"] == len(episodes)
    for first, second in zip(summary["stages"], summary["stages"][1:], strict=False):
        assert second["entered"] == first["passed"]
    assert stages["advisory"]["passed"] == 1
    assert summary["yield"] == pytest.approx(1 / len(episodes))
    assert summary["c_attempt"] == pytest.approx(summary["measured_c_attempt"], rel=1e-6)
    assert summary["c_accepted"] == pytest.approx(summary["c_attempt"] / summary["yield"], rel=1e-3)
    mono = {s["stage"]: s for s in summary["monolithic_stages"]}
    assert mono["dynamic"]["entered"] == len(episodes)
    assert summary["monolithic_c_attempt"] > 0 and summary["cost_ratio"] > 0


def test_admitted_episode_has_role_and_targets(batch):
    _, _, result = batch
    admitted = result.by_id()["admitted"]
    assert admitted.role == "pristine"
    assert admitted.target_turns == [2, 4, 6, 8]
    assert admitted.turn_reasons[8] == "final_report"


def test_tables_are_deterministic_and_checks_rederive(batch, tmp_path):
    episodes, lookup, result = batch
    table = verified_table(episodes, result)
    assert table.column("sink").to_pylist() == [result.by_id()[i].sink for i in sorted(result.by_id())]
    again = verify_episodes(episodes[:6], lookup, QUIET)
    first = verify_episodes(episodes[:6], lookup, QUIET)
    assert verdicts_table(again).equals(verdicts_table(first))
    assert admitted_with_tamper_evidence([table], lookup) == []
    inconsistent, judged = flake_counts([table.slice(0, 3), table.slice(3)])  # any batching
    assert inconsistent == 1 and judged == sum(1 for v in result.verdicts if v.oracle_runs)


def test_timeout_is_a_runtime_defect(tmp_path):
    fixture = make_fixture("calc-slow")
    fixture.sealed_tests["tests/test_ops.py"] += "\n\ndef test_slow():\n    while True:\n        pass\n"
    fixture.pass_to_pass.append("tests/test_ops.py::test_slow")
    config = CascadeConfig(
        dynamic=DynamicConfig(reruns=2, oracle_timeout_s=1.0), progress=False, cost_monolithic=False
    )
    result = verify_episodes(
        [make_episode("slow", pristine_turns(), fixed_files(), fixture=fixture, fixture_id="calc-slow")],
        {"calc-slow": fixture},
        config,
    )
    verdict = result.verdicts[0]
    assert verdict.sink == "hard_negative" and verdict.oracle_runs == 2
    assert verdict.triage_class == "runtime_defect" and "timed out" in verdict.triage_evidence[0]


def test_monkeypatching_conftest_cannot_buy_admission():
    conftest = "import builtins\nbuiltins.AssertionError = Exception\n"
    episode = make_episode("conftest", pristine_turns(), {**CALC_S0, "conftest.py": conftest})
    verdict = verify_episodes([episode], {"calc-add": make_fixture()}, QUIET).verdicts[0]
    assert verdict.sink == "tamper_quarantine" and verdict.reason == "protected_path_modified"


def test_a_write_call_on_a_test_file_quarantines_even_a_correct_fix():
    turns = pristine_turns() + [([call("edit_file", file_path="tests/test_ops.py", old="6", new="6")], [OK])]
    verdict = verify_episodes(
        [make_episode("sneaky", turns, fixed_files())], {"calc-add": make_fixture()}, QUIET
    ).verdicts[0]
    assert verdict.sink == "tamper_quarantine" and verdict.reason == "attempted_protected_write"


def test_imported_real_logs_are_never_admitted(real_root):
    from trajectory_platform.curation.verify.cascade import fixtures_lookup
    from trajectory_platform.traces.ingest import ingest_paths

    episodes = ingest_paths([real_root / name for name in ("swe-agent", "openhands", "tau-bench")]).episodes
    assert episodes
    result = verify_episodes(episodes, fixtures_lookup(0), QUIET)
    sinks = result.counts("sink")
    assert "admitted" not in sinks
    assert sum(sinks.values()) == len(episodes)
    for verdict in result.verdicts:
        assert verdict.sink in ("unverifiable", "syntax_reject", "static_reject", "tamper_quarantine")
        assert verdict.reason and verdict.role is None and verdict.target_turns is None


def verify_cli(argv: list[str]) -> int:
    """The ``verify`` subcommand alone (the full CLI would import every stage's heavy modules)."""
    import argparse

    from trajectory_platform.commands import verify

    parser = argparse.ArgumentParser()
    verify.register(parser.add_subparsers())
    args = parser.parse_args(["verify", *argv])
    return args.func(args)


def test_cli_writes_verdicts_and_prints_the_ledger(tmp_path, capsys):
    from trajectory_platform.traces.parquet import write_parquet
    from trajectory_platform.traces.schema import episodes_to_table

    episodes = [
        make_episode("e1", pristine_turns(), fixed_files(), fixture_id=None),
        make_episode(
            "e2",
            [([call("read_file", file_path="nope.py")], [("error", "No such file", 1)])],
            CALC_S0,
            fixture_id=None,
        ),
    ]
    traces = tmp_path / "traces.parquet"
    write_parquet(episodes_to_table(episodes), traces)
    assert verify_cli([str(traces), "--out", str(tmp_path / "out"), "--no-progress"]) == 0
    summary = json.loads(capsys.readouterr().out.strip().splitlines()[-1])
    for key in ("c_attempt", "yield", "c_accepted", "monolithic_c_attempt", "r_flake"):
        assert key in summary
    assert summary["sinks"] == {"unverifiable": 2}
    verdicts = pq.read_table(tmp_path / "out" / "verdicts.parquet").to_pylist()
    assert [v["episode_id"] for v in verdicts] == ["e1", "e2"]
    assert {"sink", "role", "t_div", "t_rec"} <= set(verdicts[0])
    assert json.loads((tmp_path / "out" / "ledger.json").read_text())["attempts"] == 2


def test_cli_names_a_missing_input(tmp_path, capsys):
    assert verify_cli([str(tmp_path / "nope.parquet"), "--out", str(tmp_path)]) != 0
    assert "nope.parquet" in capsys.readouterr().err


def test_a_flaky_fixture_quarantines_even_an_episode_whose_own_runs_agreed():
    fixture = scheduled_flake(
        "calc-timed", byte=0, modulus=6, timing_sensitive=True
    )  # 2 of 20 calibration runs fail
    episode = make_episode(
        "steady", pristine_turns(), fixed_files(), fixture=fixture, fixture_id="calc-timed"
    )
    result = verify_episodes([episode], {"calc-timed": fixture}, QUIET)
    verdict = result.verdicts[0]
    assert verdict.sink == "flaky_quarantine" and verdict.reason == "fixture_oracle_flaky"
    assert [s.stage for s in verdict.stages][-1] == "dynamic"
    assert verdict.stage("dynamic").data["run_outcomes"] == [True, True, True]  # timing-sensitive: K runs
    assert result.ledger.r_flake == 0.0  # the fixture is retired by calibration: counted apart
    assert result.ledger.retired_fixtures == ["calc-timed"]
    assert verdict.triage_class == "runtime_defect" and verdict.role is None
    stages = {s["stage"]: s for s in result.ledger.summary()["stages"]}
    assert stages["dynamic"]["passed"] == 0 and stages["delta"]["entered"] == 0


def test_untidiness_does_not_turn_a_failure_into_tampering():
    stray = {**CALC_S0, "calc/ops.py.orig": "old\n"}  # failed the oracle and left a stray file
    verdict = verify_episodes(
        [make_episode("untidy", writing_turns({"calc/ops.py.orig": "old\n"}), stray)],
        {"calc-add": make_fixture()},
        QUIET,
    ).verdicts[0]
    assert verdict.sink == "hard_negative"
    admitted_but_stray = make_episode(
        "stray", pristine_turns(), {**fixed_files(), "calc/ops.py.orig": "old\n"}
    )
    verdict = verify_episodes([admitted_but_stray], {"calc-add": make_fixture()}, QUIET).verdicts[0]
    assert verdict.sink == "tamper_quarantine" and verdict.reason == "leftover_file"


def test_each_verdict_names_the_sealed_suite_that_judged_it(batch):
    """The verifier suite digest reaches ``verified_traces`` for every fixture-judged episode (the
    lineage seal reads it from there); an episode no fixture judged has none."""
    from trajectory_platform.curation.lineage import verifier_suite_digest

    episodes, lookup, result = batch
    verdicts = result.by_id()
    assert verdicts["admitted"].verifier_suite_digest == verifier_suite_digest(lookup["calc-add"])
    assert verdicts["flaky"].verifier_suite_digest == verifier_suite_digest(lookup["calc-flaky"])
    assert verdicts["imported"].verifier_suite_digest is None
    assert verdicts["unknown_fixture"].verifier_suite_digest is None
    table = verified_table(episodes, result).select(["episode_id", "verifier_suite_digest"])
    column = {row["episode_id"]: row["verifier_suite_digest"] for row in table.to_pylist()}
    assert column["admitted"] == verifier_suite_digest(lookup["calc-add"])


def _coin_ops(byte: int, modulus: int) -> str:
    """``calc/ops.py`` whose ``add`` is right only when the run's scheduler draw says so: a solution
    that disagrees with itself from run to run, read from the environment as any code may read it.
    ``byte`` and ``modulus`` choose which runs pass (see the test)."""
    return (
        "import hashlib\nimport os\n\n\ndef add(a, b):\n"
        "    draw = hashlib.sha256(os.environ['GYM_SCHEDULE_SEED'].encode()).digest()\n"
        f"    return a + b if draw[{byte}] % {modulus} else a - b\n\n\ndef mul(a, b):\n    return a * b\n"
    )


def test_a_solution_that_disagrees_with_itself_is_rerun_and_quarantined_alone():
    """One run of such a solution passed and was admitted, and where its runs did disagree the
    fixture was taken for flaky: every honest episode on it went to quarantine with it, and
    R_flake halted admission (red team, 2026-12-06). Now its added code's reads are a reason to
    rerun, and the fixture's reference, calibrated, clears the fixture."""
    episodes = [
        make_episode("lucky_first", pristine_turns(), {**CALC_S0, "calc/ops.py": _coin_ops(1, 3)}),
        make_episode("unlucky_first", pristine_turns(), {**CALC_S0, "calc/ops.py": _coin_ops(1, 2)}),
        make_episode("honest", pristine_turns(), fixed_files()),
        make_episode("honest_too", pristine_turns(), fixed_files()),
    ]
    result = verify_episodes(episodes, {"calc-add": make_fixture()}, QUIET)
    by_id = result.by_id()
    for name, outcomes in (("lucky_first", [True, True, False]), ("unlucky_first", [False, True, True])):
        assert by_id[name].stage("dynamic").data["run_outcomes"] == outcomes
        # reading the sandbox's own variable is also gaming evidence, which outranks the flake
        assert (by_id[name].sink, by_id[name].reason) == ("tamper_quarantine", "oracle_environment_probe")
    assert by_id["honest"].sink == by_id["honest_too"].sink == "admitted"
    assert by_id["honest"].oracle_runs == 1  # code that reads nothing variable runs once
    assert result.calibration_cache.misses == 1  # the fixture's reference, once the batches were done


def test_a_solution_that_flips_on_the_string_hash_seed_disagrees_with_itself_across_reruns():
    """``hash(str)`` is randomized per interpreter, and the K runs of one kept judge shared its
    interpreter: a solution right only for half the seeds agreed with itself every time, and one
    lucky judge admitted it (red team, 2026-12-06). Each rerun now starts an interpreter of its
    own; with 30 runs, all agreeing by chance is a 2**-29 event. A decision on ``hash()`` is now
    also an environment fact (rtforge8), and gaming evidence outranks a flaky oracle: tamper."""
    coin = (
        "def add(a, b):\n    return a + b if hash('coin') & 1 else a - b\n\n\n"
        "def mul(a, b):\n    return a * b\n"
    )
    config = CascadeConfig(progress=False, dynamic=DynamicConfig(reruns=30))
    episode = make_episode("hash_coin", pristine_turns(), {**CALC_S0, "calc/ops.py": coin})
    verdict = verify_episodes([episode], {"calc-add": make_fixture()}, config).by_id()["hash_coin"]
    assert len(set(verdict.stage("dynamic").data["run_outcomes"])) == 2
    assert verdict.sink == "tamper_quarantine"


def test_a_fixture_whose_reference_disagrees_still_takes_its_episodes_with_it():
    flaky = scheduled_flake("calc-flaky", byte=7, modulus=2)
    episodes = [
        make_episode(name, pristine_turns(), fixed_files(), fixture=flaky, fixture_id="calc-flaky")
        for name in ("first", "second")
    ]
    result = verify_episodes(episodes, {"calc-flaky": flaky}, QUIET)
    assert {v.sink for v in result.verdicts} == {"flaky_quarantine"}


def test_a_run_that_does_not_cost_the_naive_order_survives_a_stage_4_tamper():
    """Without the monolithic costing no advisory stage is measured for an episode stage 4 stopped:
    the totals looked it up and the whole run raised KeyError (red team)."""
    tests_edited = {
        **fixed_files(),
        "tests/test_ops.py": CALC_S0["tests/test_ops.py"] + "\n\ndef test_x():\n    assert True\n",
    }
    episode = make_episode("tamper_pass", pristine_turns(), tests_edited)
    config = CascadeConfig(progress=False, cost_monolithic=False)
    result = verify_episodes([episode], {"calc-add": make_fixture()}, config)
    assert result.verdicts[0].sink == "tamper_quarantine" and result.ledger.monolithic == []


def test_a_log_cannot_claim_another_licence_or_family_than_its_task():
    """The licence decides fencing and the family split closure: a log that recorded ``MIT`` and
    another family for a task under another licence kept them (red team). The task's win."""
    import dataclasses

    fixture = dataclasses.replace(make_fixture(), license="CC-BY-NC-4.0", repo_family="calc-nc")
    episode = make_episode("claims_mit", pristine_turns(), fixed_files(), fixture=fixture)
    episode.task.license, episode.task.repo_family = "MIT", "calc"
    result = verify_episodes([episode], {"calc-add": fixture}, QUIET)
    (row,) = verified_table([episode], result).to_pylist()
    assert (row["task"]["license"], row["task"]["repo_family"]) == ("CC-BY-NC-4.0", "calc-nc")


def test_every_task_owned_field_is_the_tasks_and_a_relabelled_one_is_noted():
    """tool_family and domain were kept as recorded while the split stage routes by them: an
    episode of a held-out tool family relabelled as a familiar one went to train (red team). Every
    task-owned field is the task's, and each the log recorded otherwise is noted, never silent."""
    import dataclasses

    from trajectory_platform.curation.verify.cascade import TASK_OWNED_FIELDS

    fixture = dataclasses.replace(make_fixture(), tool_family="fs", domain="config_fix")
    honest = make_episode("honest", pristine_turns(), fixed_files(), fixture=fixture)
    honest.task.tool_family, honest.task.domain = "fs", "config_fix"
    relabelled = make_episode("relabelled", pristine_turns(), fixed_files(), fixture=fixture)
    relabelled.task.tool_family, relabelled.task.domain = "path", "bug_repair"
    result = verify_episodes([honest, relabelled], {"calc-add": fixture}, QUIET)
    rows = verified_table([honest, relabelled], result).to_pylist()
    for row in rows:
        assert {name: row["task"][name] for name in TASK_OWNED_FIELDS} == {
            "repo_family": fixture.repo_family,
            "tool_family": "fs",
            "domain": "config_fix",
            "license": fixture.license,
        }
    notes = {v.episode_id: v.stage("syntactic").notes for v in result.verdicts}
    assert notes["honest"] == []
    assert [f.code for f in notes["relabelled"]] == ["task_label_not_the_tasks"] * 2
    assert ["tool_family" in f.detail for f in notes["relabelled"]] == [True, False]
    assert all("path" not in f.detail and "bug_repair" not in f.detail for f in notes["relabelled"])
