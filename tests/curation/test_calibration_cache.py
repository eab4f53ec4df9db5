"""Fixture calibration cached across runs: keyed by content (never by id), corrupt or foreign entries
recomputed, written atomically, and counted in the result and the asset's metadata."""

from __future__ import annotations

import json
from dataclasses import replace

import pytest
from _verify_factory import fixed_files, make_episode, make_fixture, pristine_turns

from trajectory_platform.curation.verify import calibration
from trajectory_platform.curation.verify.calibration import CalibrationCache, calibration_key
from trajectory_platform.curation.verify.cascade import CascadeConfig, verify_episodes
from trajectory_platform.curation.verify.dynamic import DynamicConfig, fixture_context

RUNS = DynamicConfig(calibration_runs=3)
TIMED = "    import time\n"


def timed_fixture(fixture_id: str = "calc-timed"):
    """The calc fixture with sealed tests that import ``time``: timing-sensitive, so calibrated."""
    fixture = make_fixture(fixture_id)
    tests = fixture.sealed_tests["tests/test_ops.py"]
    fixture.sealed_tests["tests/test_ops.py"] = tests.replace(
        "def test_add():\n", "def test_add():\n" + TIMED
    )
    return fixture


@pytest.fixture
def oracle_runs(monkeypatch):
    """How many calibrations actually ran the oracle (the real ones, counted)."""
    counted = []
    real = calibration.calibrate_oracle

    def counting(fixture, config):
        counted.append(fixture.fixture_id)
        return real(fixture, config)

    monkeypatch.setattr(calibration, "calibrate_oracle", counting)
    return counted


def test_second_calibration_is_read_back_and_nothing_else_is_written(tmp_path, oracle_runs):
    context = fixture_context(timed_fixture())
    first = CalibrationCache(tmp_path)
    outcome = first.calibrate(context, RUNS)
    assert outcome == [True, True, True] and (first.hits, first.misses) == (0, 1)
    second = CalibrationCache(tmp_path)
    assert second.calibrate(context, RUNS) == outcome
    assert (second.hits, second.misses, second.rejected) == (1, 0, 0)
    assert oracle_runs == ["calc-timed"]  # the second one ran nothing
    assert [p.name for p in tmp_path.iterdir()] == [f"{calibration_key(context, RUNS)}.json"]  # no temp left


def test_the_key_follows_content_and_settings_not_the_id():
    context = fixture_context(timed_fixture())
    key = calibration_key(context, RUNS)
    assert key == calibration_key(fixture_context(timed_fixture()), RUNS)  # stable
    assert key == calibration_key(fixture_context(timed_fixture("another-id")), RUNS)  # the id is no input
    changed_tests = timed_fixture()
    changed_tests.sealed_tests["tests/test_ops.py"] += "\n\ndef test_more():\n    assert True\n"
    changed_reference = timed_fixture()
    changed_reference.reference_files["calc/ops.py"] += "\n# changed\n"
    changed_s0 = timed_fixture()
    changed_s0.s0_files["README.md"] = "calc!\n"
    changed_ids = timed_fixture()
    changed_ids.pass_to_pass = []
    for other in (
        changed_tests,
        changed_reference,
        changed_s0,
        changed_ids,
        replace(timed_fixture(), reference_answer="42"),
    ):
        assert calibration_key(fixture_context(other), RUNS) != key
    assert calibration_key(context, replace(RUNS, calibration_runs=4)) != key
    assert calibration_key(context, replace(RUNS, oracle_timeout_s=5.0)) != key


def test_the_runner_bytecode_is_part_of_the_key(monkeypatch):
    context = fixture_context(timed_fixture())
    key = calibration_key(context, RUNS)
    monkeypatch.setattr(calibration, "runner_bytecode", lambda: b"another runner")
    assert calibration_key(context, RUNS) != key


@pytest.mark.parametrize(
    "entry",
    [
        "{not json",
        json.dumps(["a", "list"]),
        json.dumps({"format": 1, "key": "0" * 64, "runs": [True, True, True]}),  # a foreign entry
        json.dumps({"format": 99, "key": None, "runs": [True, True, True]}),
        json.dumps({"format": 1, "key": None, "runs": [True, True]}),  # wrong run count
        json.dumps({"format": 1, "key": None, "runs": [1, 1, 1]}),  # not booleans
    ],
)
def test_a_corrupt_or_foreign_entry_is_recomputed_and_replaced(tmp_path, oracle_runs, entry):
    fixture = timed_fixture()
    fixture.sealed_tests["tests/test_ops.py"] += "\n\ndef test_never():\n    assert False\n"
    fixture.pass_to_pass = [*fixture.pass_to_pass, "tests/test_ops.py::test_never"]
    context = fixture_context(fixture)  # its reference fails: the truth is [False] * 3
    key = calibration_key(context, RUNS)
    path = tmp_path / f"{key}.json"
    path.write_text(entry.replace("null", json.dumps(key)))
    cache = CalibrationCache(tmp_path)
    assert cache.calibrate(context, RUNS) == [False, False, False]  # not the entry's [True] * 3
    assert (cache.hits, cache.misses, cache.rejected) == (0, 1, 1) and len(oracle_runs) == 1
    assert json.loads(path.read_text()) == {"format": 1, "key": key, "runs": [False, False, False]}


def test_no_folder_no_cache(tmp_path, oracle_runs):
    cache = CalibrationCache(None)
    context = fixture_context(timed_fixture())
    cache.calibrate(context, RUNS)
    cache.calibrate(context, RUNS)
    assert cache.to_dict() == {"enabled": False, "hits": 0, "misses": 2, "rejected": 0}
    assert len(oracle_runs) == 2


def test_the_cascade_reuses_a_calibration_across_runs_with_the_same_verdicts(tmp_path, oracle_runs):
    from test_verify_cascade import scheduled_flake  # 2 of 20 calibration runs fail: retired

    flaky = scheduled_flake("calc-timed", byte=0, modulus=6, timing_sensitive=True)
    steady = timed_fixture("calc-steady")
    episodes = [
        make_episode("on-flaky", pristine_turns(), fixed_files(), fixture=flaky, fixture_id="calc-timed"),
        make_episode("on-steady", pristine_turns(), fixed_files(), fixture=steady, fixture_id="calc-steady"),
    ]
    lookup = {"calc-timed": flaky, "calc-steady": steady}
    config = CascadeConfig(progress=False, cost_monolithic=False, calibration_cache=tmp_path / "cache")
    first = verify_episodes(episodes, lookup, config)
    assert first.calibration_cache.to_dict() == {"enabled": True, "hits": 0, "misses": 2, "rejected": 0}
    second = verify_episodes(episodes, lookup, config)
    assert second.calibration_cache.to_dict() == {"enabled": True, "hits": 2, "misses": 0, "rejected": 0}
    assert len(oracle_runs) == 2  # calibrated once each, across both runs
    assert [(v.sink, v.reason) for v in second.verdicts] == [(v.sink, v.reason) for v in first.verdicts]
    assert second.ledger.retired_fixtures == first.ledger.retired_fixtures == ["calc-timed"]
    assert first.verdicts[1].sink == "admitted"

    from trajectory_platform.assets.verified import verified_metadata

    assert verified_metadata(second)["calibration_cache"].value["hits"] == 2
