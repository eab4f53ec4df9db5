"""Every episode the redaction stage leaves out is a ``redaction_rejects`` row with its reason key:
rows in = ``redacted_corpus`` rows + ``redaction_rejects`` rows, in the warehouse."""

from __future__ import annotations

import datetime as dt

import pyarrow as pa
from dagster import asset, materialize
from redact_factory import secret_episode

from trajectory_platform.assets.redacted import redacted_corpus
from trajectory_platform.curation.redact import redact_corpus
from trajectory_platform.curation.redact.corpus import REDACTION_DROP_REASONS
from trajectory_platform.curation.verify.tables import VERIFIED_SCHEMA
from trajectory_platform.resources import build_resources, warehouse_connection
from trajectory_platform.resources.partitions import DAILY_PARTITIONS
from trajectory_platform.traces.schema import episode_row

DAY = "2024-03-01"


def _verified() -> pa.Table:
    """Three verified episodes of one day; the second comes from a restricted-licence family."""
    episodes = [secret_episode(f"ep-{i}") for i in range(3)]
    for episode in episodes:
        episode.partition_date = dt.date.fromisoformat(DAY)
    episodes[1].task.repo_family, episodes[1].task.license = "nc-family", "CC-BY-NC-4.0"
    rows = [{**episode_row(e), "sink": "admitted"} for e in episodes]
    return pa.Table.from_pylist(rows, schema=VERIFIED_SCHEMA)


def test_a_licence_block_is_a_reject_row_with_its_reason_key():
    result = redact_corpus(_verified(), b"k" * 32, measure_leaks=False)
    [row] = result.audit.to_pylist()
    assert (row["episode_id"], row["reason"], row["action"]) == ("ep-1", "license_blocked", "block")
    assert row["reason"] in REDACTION_DROP_REASONS and "nc-family" in row["detail"]
    assert row["partition_date"] == dt.datetime.fromisoformat(DAY)


@asset(name="verified_traces", partitions_def=DAILY_PARTITIONS)
def verified_stand_in() -> pa.Table:
    return _verified()


def test_blocked_episodes_land_in_the_warehouse_and_every_row_reconciles(tmp_path):
    result = materialize(
        [verified_stand_in, redacted_corpus], partition_key=DAY, resources=build_resources(tmp_path)
    )
    assert result.success
    with warehouse_connection(tmp_path / "warehouse.duckdb", read_only=True) as con:
        kept = con.execute("SELECT episode_id FROM redacted_corpus ORDER BY 1").fetchall()
        rejects = con.execute("SELECT episode_id, reason FROM redaction_rejects").fetchall()
    assert kept == [("ep-0",), ("ep-2",)] and rejects == [("ep-1", "license_blocked")]
    metadata = {
        m.asset_key.to_user_string(): m.metadata
        for m in result.asset_materializations_for_node("redacted_corpus")
    }
    assert metadata["redaction_rejects"]["dropped_by_reason"].value == {"license_blocked": 1}
    assert metadata["redacted_corpus"]["records_in"].value == 3


def test_an_episode_the_engine_fails_on_is_left_out_and_the_rest_of_the_day_goes_on(monkeypatch):
    """An engine bug on one record (a UTF-7 run decoding to half a surrogate pair raised) failed the
    whole day's corpus. The episode is now an ``engine_error`` row, never stored unredacted."""
    from trajectory_platform.curation.redact import corpus

    real = corpus.redact_row

    def failing_on_ep2(episode, *args, **kwargs):
        if episode.episode_id == "ep-2":
            raise UnicodeEncodeError("utf-16-le", "\ud83d", 0, 1, "surrogates not allowed")
        return real(episode, *args, **kwargs)

    monkeypatch.setattr(corpus, "redact_row", failing_on_ep2)
    result = redact_corpus(_verified(), b"k" * 32, measure_leaks=False)
    rows = {row["episode_id"]: row for row in result.audit.to_pylist()}
    assert rows["ep-2"]["reason"] == "engine_error" and "UnicodeEncodeError" in rows["ep-2"]["detail"]
    assert "engine_error" in REDACTION_DROP_REASONS
    assert [e for e in result.table.column("episode_id").to_pylist()] == ["ep-0"]
