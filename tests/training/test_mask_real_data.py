"""The dataset stage on real public agent logs (../shared/data/real): nothing lost, every mask sound."""

from __future__ import annotations

import math

import pytest

from trajectory_platform.traces.ingest import ingest_paths
from trajectory_platform.training.data.dataset_stage import run_dataset_stage
from trajectory_platform.training.data.masked_dataset import EpisodeInput
from trajectory_platform.training.optim.packing import occupancy, pack_lengths, padded_occupancy

SOURCES = ("tau-bench/few_shot_data", "swe-agent/trajectories", "toolbench")


@pytest.fixture(scope="module")
def stage(default_tokenizer, real_root):
    episodes = ingest_paths([real_root / s for s in SOURCES]).episodes
    path = default_tokenizer
    return run_dataset_stage([EpisodeInput(e) for e in episodes], path), len(episodes)


def test_real_logs_mask_with_every_episode_accounted_for(stage):
    result, episodes = stage
    counts = result.manifest["counts"]
    assert counts["episodes_in"] == episodes > 50
    # Every episode yields at least one planned example or a counted reason; every planned example
    # is kept or dropped with a counted reason.
    planned = counts["examples_out"] + counts["examples_dropped"]
    assert planned >= episodes - counts["episodes_without_examples"]
    assert sum(result.manifest["drop_reasons"].values()) == (
        counts["examples_dropped"] + counts["episodes_without_examples"]
    )
    assert result.audit == {"n_active": [], "offsets": [], "target_in_context": []}
    stats = result.manifest["stats"]
    assert 0 < stats["target_share"] < 1 and stats["observation_share"] > 0
    assert stats["dilution_factor"] == pytest.approx(
        (stats["stored_tokens"] - stats["examples"]) / stats["selected_targets"]
    )


def test_real_lengths_pack_into_the_minimum_number_of_buffers(stage):
    result, _ = stage
    lengths = result.table.column("n_tokens").to_pylist()
    capacity = 4 * max(lengths)
    buffers = pack_lengths(lengths, capacity)
    assert len(buffers) <= math.ceil(sum(lengths) / capacity) + 1
    assert occupancy(lengths, buffers, capacity) > 3 * padded_occupancy(lengths)
