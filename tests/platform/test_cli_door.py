"""Errors at the door: every command refuses a mistyped setting, a wrong file or an empty result
before any work, with a message that names the file or the key and what to do instead."""

from __future__ import annotations

import argparse
import dataclasses
import fcntl
import os
import threading
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from trajectory_platform.cli import main
from trajectory_platform.commands._settings import SettingError, checked_values, unknown_key
from trajectory_platform.curation.redact.settings import RedactSettings
from trajectory_platform.resources.warehouse import WarehouseLockTimeout, warehouse_connection

SAMPLES = Path(__file__).resolve().parents[2] / "trajectory_platform" / "samples" / "traces" / "2026-11-01"
PNG = b"\x89PNG\r\n\x1a\n" + bytes(64)


def test_unknown_key_suggests_the_closest_name_and_lists_the_valid_ones() -> None:
    message = unknown_key("setting", "checkpoint.max_stepz", ["checkpoint.seed", "checkpoint.max_steps"])
    assert "did you mean checkpoint.max_steps?" in message
    assert "(valid: checkpoint.max_steps, checkpoint.seed)" in message
    assert "did you mean" not in unknown_key("setting", "zzz", ["checkpoint.seed"])


@dataclasses.dataclass(frozen=True)
class _Knobs:
    mode: str = dataclasses.field(default="a", metadata={"choices": ("a", "b")})
    steps: int = 1


def test_setting_values_are_checked_against_the_settings_dataclass() -> None:
    assert checked_values("stage", {"steps": "4"}, _Knobs) == {"steps": 4}
    with pytest.raises(SettingError, match=r"stage\.steps='many': Input should be a valid integer"):
        checked_values("stage", {"steps": "many"}, _Knobs)
    with pytest.raises(SettingError, match=r"stage\.mode='c': not one of 'a', 'b'"):
        checked_values("stage", {"mode": "c"}, _Knobs)
    with pytest.raises(SettingError, match="did you mean stage.steps"):
        checked_values("stage", {"step": 2}, _Knobs)
    with pytest.raises(SettingError, match=r"redact: leak_sample_fraction must be in \[0, 1\]"):
        checked_values("redact", {"leak_sample_fraction": 2.0}, RedactSettings)


@pytest.mark.parametrize(
    ("setting", "expected"),
    [
        ("checkpoint.max_stepz=4", "did you mean checkpoint.max_steps?"),
        ("checkpont.max_steps=4", "unknown asset checkpont; did you mean checkpoint?"),
        ("checkpoint.max_steps=many", "checkpoint.max_steps='many': Input should be a valid integer"),
        ("checkpoint.objective=ppo", "checkpoint.objective='ppo': not one of 'sft', 'dpo'"),
    ],
)
def test_run_set_is_checked_before_any_work(tmp_path: Path, capsys, setting: str, expected: str) -> None:
    assert main(["run", "--workdir", str(tmp_path / "w"), "--set", setting]) == 2
    err = capsys.readouterr().err
    assert expected in err
    assert "Traceback" not in err
    assert not (tmp_path / "w").exists()


@pytest.mark.parametrize(
    ("setting", "expected"),
    [
        ("verify.rerun=3", "did you mean verify.reruns?"),
        ("verfy.reruns=3", "unknown stage verfy; did you mean verify?"),
        ("redact.leak_sample_fraction=2", "leak_sample_fraction must be in [0, 1]"),
        ("dataset.rationale=shout", "dataset.rationale='shout': not one of"),
    ],
)
def test_curate_set_is_checked_before_any_work(tmp_path: Path, capsys, setting: str, expected: str) -> None:
    out = tmp_path / "out"
    assert main(["curate", str(SAMPLES), "--out", str(out), "--set", setting]) == 2
    assert expected in capsys.readouterr().err
    assert not out.exists()


def test_a_mistyped_option_or_command_gets_a_suggestion(capsys) -> None:
    with pytest.raises(SystemExit) as exit_info:
        main(["ingest", "logs", "--out", "o", "--alow-empty"])
    assert exit_info.value.code == 2
    assert "unknown option --alow-empty; did you mean --allow-empty?" in capsys.readouterr().err
    with pytest.raises(SystemExit):  # named before the required --dataset it hides
        main(["train", "--datset", "rows.jsonl", "--out", "ckpt"])
    assert "unknown option --datset; did you mean --dataset?" in capsys.readouterr().err
    with pytest.raises(SystemExit):  # a nested command's options count too
        main(["env", "import", "x", "--registy", "r"])
    assert "unknown option --registy; did you mean --registry?" in capsys.readouterr().err
    with pytest.raises(SystemExit):
        main(["ingets", "logs"])
    assert "unknown command ingets; did you mean ingest?" in capsys.readouterr().err


def test_ingest_refuses_an_image_by_its_content_not_its_name(tmp_path: Path, capsys) -> None:
    image = tmp_path / "logs.jsonl"
    image.write_bytes(PNG)
    assert main(["ingest", str(image), "--out", str(tmp_path / "out")]) == 2
    assert f"{image}: this file is a PNG image, not agent logs" in capsys.readouterr().err
    assert not (tmp_path / "out").exists()


def test_ingest_with_nothing_normalized_fails_unless_allowed(tmp_path: Path, capsys) -> None:
    logs = SAMPLES / "anthropic_messages.jsonl"
    wrong = ["ingest", str(logs), "--format", "toolbench", "--no-progress"]
    assert main([*wrong, "--out", str(tmp_path / "a")]) == 1
    err = capsys.readouterr().err
    assert "record(s) in 1 file(s) normalized" in err
    assert "--format toolbench was forced: try --format auto" in err
    assert main([*wrong, "--out", str(tmp_path / "b"), "--allow-empty"]) == 0


def test_redact_refuses_a_parquet_file_instead_of_corrupting_it(tmp_path: Path, capsys) -> None:
    table = tmp_path / "traces.parquet"
    pq.write_table(pa.table({"episode_id": ["e1"]}), table)
    out = tmp_path / "redacted.parquet"
    assert main(["redact", str(table), "--out", str(out), "--dev-salt"]) == 2
    assert f"{table}: this file is a Parquet file" in capsys.readouterr().err
    assert not out.exists()


@pytest.mark.parametrize(
    ("command", "name", "content", "expected"),
    [
        ("verify", "logs.jsonl", PNG, "this file is a PNG image, not a traces.parquet or agent logs"),
        ("verify", "traces.parquet", b'{"a": 1}\n', "this file is text, not a Parquet trace table"),
        ("split", "corpus.parquet", b'{"a": 1}\n', "this file is text, not a Parquet table"),
        ("mask", "episodes.jsonl", PNG, "this file is a PNG image, not episodes"),
    ],
)
def test_stage_commands_check_their_input_by_content(
    tmp_path: Path, capsys, command: str, name: str, content: bytes, expected: str
) -> None:
    source = tmp_path / name
    source.write_bytes(content)
    out = tmp_path / "out"
    assert main([command, str(source), "--out", str(out)]) == 2
    assert f"{source}: {expected}" in capsys.readouterr().err
    assert not out.exists()


@pytest.mark.parametrize(
    ("name", "content", "expected"),
    [
        ("rows.jsonl", PNG, "this file is a PNG image, not training rows"),
        ("rows.parquet", b'{"input_ids": [1]}\n', "this file is text, not a Parquet file"),
        ("rows.jsonl", b'{"episode_id": "e1", "events": []}\n', "its rows have no input_ids, labels"),
    ],
)
def test_train_checks_its_dataset_before_building_a_model(
    tmp_path: Path, capsys, monkeypatch, name: str, content: bytes, expected: str
) -> None:
    import trajectory_platform.commands.train as train

    def never(*_args: object, **_kwargs: object) -> None:
        raise AssertionError("the dataset check came after the work")

    monkeypatch.setattr(train, "dataset_provenance", never)
    dataset = tmp_path / name
    dataset.write_bytes(content)
    out = tmp_path / "ckpt"
    assert main(["train", "--dataset", str(dataset), "--out", str(out), "--unsafe-unverified-input"]) == 2
    assert f"{dataset}: " in (err := capsys.readouterr().err) and expected in err
    assert not out.exists()


def _hold_lock(db: Path) -> object:
    """Hold the warehouse's writer lock as another run would (its process id written inside)."""
    handle = open(db.with_name(db.name + ".lock"), "a+")  # noqa: SIM115 - released by the caller
    fcntl.flock(handle, fcntl.LOCK_EX)
    handle.write(str(os.getpid()))
    handle.flush()
    return handle


def test_a_held_warehouse_lock_is_named_while_waiting_and_ends_in_a_clear_error(tmp_path: Path) -> None:
    db = tmp_path / "warehouse.duckdb"
    holder = _hold_lock(db)
    heard: list[str] = []
    try:
        with (
            pytest.raises(WarehouseLockTimeout, match=f"{db}: gave up after"),
            warehouse_connection(db, timeout_s=0.5, notify=heard.append),
        ):
            pass
    finally:
        holder.close()
    assert heard and f"waiting for the write lock on {db}: held by process {os.getpid()}" in heard[0]


def test_a_released_warehouse_lock_lets_the_waiting_writer_in(tmp_path: Path) -> None:
    db = tmp_path / "warehouse.duckdb"
    holder = _hold_lock(db)
    threading.Timer(0.4, holder.close).start()
    heard: list[str] = []
    with warehouse_connection(db, timeout_s=10, notify=heard.append) as con:
        assert con.execute("SELECT 1").fetchall() == [(1,)]
    assert len(heard) == 1


def test_parse_errors_name_the_expected_form() -> None:
    from trajectory_platform.commands.curate import stage_settings

    args = argparse.Namespace(set=["reruns=3"], fixture_seed=0, tokenizer="")
    with pytest.raises(SettingError, match="expected ASSET.FIELD=VALUE"):
        stage_settings(args)
