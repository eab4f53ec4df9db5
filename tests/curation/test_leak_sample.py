"""Λ_leak on a declared sample: sized by canaries, drawn by a keyed hash, reported with its interval,
and a leak in the sample still refuses the corpus."""

from __future__ import annotations

import json

import pytest
from redact_factory import SALT, secret_episode

from trajectory_platform.cli import main
from trajectory_platform.commands.curate import stage_settings_classes
from trajectory_platform.curation.binomial import clopper_pearson
from trajectory_platform.curation.redact import (
    LeakDetected,
    RedactionConfig,
    RedactSettings,
    derive_key,
    measure_episode_leak,
    redact_corpus,
)
from trajectory_platform.curation.redact.leak import (
    LeakReport,
    choose_leak_sample,
    episode_canary_count,
    sample_rank,
)
from trajectory_platform.traces.schema import episodes_to_table

WEAK = RedactionConfig(entropy=False, pii=False)
MASTER = b"master"


def _corpus(n: int):
    return episodes_to_table([secret_episode(f"ep-{i:03d}") for i in range(n)])


def test_canary_count_is_known_before_planting():
    for episode in (secret_episode("a"), secret_episode("b"), secret_episode("split-me")):
        planted = measure_episode_leak(episode, SALT).injected
        assert episode_canary_count(episode.episode_id, len(episode.events)) == planted


def test_sample_meets_the_fraction_and_the_minimum_deterministically():
    records = [(f"r{i}", 28) for i in range(1000)]
    sample = choose_leak_sample(records, SALT, 0.1, 0, seed=0)
    assert 60 < len(sample) < 140  # about a tenth
    assert sample == choose_leak_sample(records, SALT, 0.1, 0, seed=0)
    assert sample == {r for r, _ in records if sample_rank(SALT, 0, r) < 0.1}
    assert sample != choose_leak_sample(records, b"other salt", 0.1, 0, seed=0)  # keyed by the salt
    assert sample != choose_leak_sample(records, SALT, 0.1, 0, seed=1)
    topped_up = choose_leak_sample(records, SALT, 0.0, 200, seed=0)
    assert len(topped_up) == 8  # 8 x 28 >= 200 > 7 x 28: just enough records to plant the minimum
    assert choose_leak_sample(records[:5], SALT, 0.1, 200, seed=0) == {r for r, _ in records[:5]}
    assert choose_leak_sample(records, SALT, 1.0, 0, seed=0) == {r for r, _ in records}


def test_clopper_pearson_interval():
    low, high = clopper_pearson(0, 200, 0.05)
    assert low == 0.0 and high == pytest.approx(1 - 0.025 ** (1 / 200), rel=1e-9)  # x = 0: closed form
    low, high = clopper_pearson(5, 10, 0.05)
    assert low == pytest.approx(0.187086, abs=1e-5) and high == pytest.approx(0.812914, abs=1e-5)
    assert clopper_pearson(0, 0, 0.05) == (0.0, 1.0)
    report = LeakReport(injected=200, records_planted=8, records_total=40).as_dict()
    assert report["interval"] == [0.0, round(high_zero := 1 - 0.025 ** (1 / 200), 6)] and high_zero < 0.02
    assert report["interval_method"] == "clopper-pearson" and report["confidence"] == 0.95
    assert (report["records_planted"], report["records_total"]) == (8, 40)


def test_corpus_plants_only_the_sample_and_its_output_does_not_depend_on_it():
    table = _corpus(30)
    sampled = RedactSettings(leak_sample_fraction=0.1, leak_min_canaries=0)
    result = redact_corpus(table, MASTER, settings=sampled)
    salt = derive_key(MASTER, "redaction")
    episodes = [secret_episode(f"ep-{i:03d}") for i in range(30)]
    expected = choose_leak_sample(
        ((e.episode_id, episode_canary_count(e.episode_id, len(e.events))) for e in episodes), salt, 0.1, 0, 0
    )
    assert 0 < result.leak.records_planted == len(expected) < 30
    assert result.leak.records_total == 30
    assert result.leak.injected == sum(
        episode_canary_count(e.episode_id, len(e.events)) for e in episodes if e.episode_id in expected
    )
    full = redact_corpus(table, MASTER, settings=RedactSettings(leak_sample_fraction=1.0))
    assert full.leak.records_planted == 30 and full.leak.injected > result.leak.injected
    assert result.table.equals(full.table)  # canaries go into copies: the corpus is the same bytes
    assert redact_corpus(table, MASTER, settings=sampled).table.equals(result.table)
    default = redact_corpus(table, MASTER)  # the default minimum tops a small corpus up
    assert default.leak.injected >= RedactSettings().leak_min_canaries


def test_a_leak_in_the_sample_still_refuses_the_corpus():
    with pytest.raises(LeakDetected, match="sampled records"):
        redact_corpus(_corpus(20), MASTER, WEAK, settings=RedactSettings(0.05, leak_min_canaries=1))


def test_settings_refuse_nonsense():
    with pytest.raises(ValueError, match="leak_sample_fraction"):
        RedactSettings(leak_sample_fraction=1.5)
    with pytest.raises(ValueError, match="leak_min_canaries"):
        RedactSettings(leak_min_canaries=-1)
    assert stage_settings_classes()["redact"] is RedactSettings  # curate --set redact.FIELD=VALUE


def test_redact_cli_reports_the_interval_and_the_sample(tmp_path, capsys, monkeypatch):
    monkeypatch.setenv("TRAJECTORY_PLATFORM_SALT", "cli-test-salt")
    source = tmp_path / "traces.jsonl"
    source.write_text("".join(json.dumps(secret_episode(f"e{i}").to_dict()) + "\n" for i in range(12)))
    out = tmp_path / "out.jsonl"
    args = [
        "redact",
        str(source),
        "--out",
        str(out),
        "--leak-sample-fraction",
        "0",
        "--leak-min-canaries",
        "1",
    ]
    assert main(args) == 0
    summary = json.loads(capsys.readouterr().out.strip().splitlines()[-1])
    assert summary["leak_sample_records"] == 1 and summary["canaries_leaked"] == 0
    low, high = summary["leak_rate_interval"]
    assert low == 0.0 and 0.0 < high < 1.0
    assert main([*args[:4], "--leak-sample-fraction", "1"]) == 0
    assert json.loads(capsys.readouterr().out.strip().splitlines()[-1])["leak_sample_records"] == 12


def test_the_scorecard_row_carries_the_interval_and_the_sample():
    from trajectory_platform.evaluation.quality import pipeline_quality

    row = pipeline_quality(
        sinks={"admitted": 3, "hard_negative": 1},
        flakiness_index=0.0,
        redaction_leakage=0.0,
        verifier_seconds_per_attempt=1.0,
        downstream_pass_rate=None,
        redaction_leakage_interval=[0.0, 0.018275],
        redaction_leak_sample_records=8,
    ).to_dict()
    assert row["redaction_leakage_interval"] == [0.0, 0.018275] and row["redaction_leak_sample_records"] == 8
