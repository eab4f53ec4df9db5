"""benchmarks/scale.py's pure parts: the growth fits and extrapolations its verdicts rest on, the
corpus tiling (every repeat a distinct episode), the per-day summary and the shortfall sentences."""

from __future__ import annotations

import json

import pytest
from scale import (
    affine_fit,
    day_cost_summary,
    extrapolate,
    growth_exponent,
    shortfalls,
    tiled,
)

SIZES = [500.0, 2000.0, 8000.0]


def test_growth_exponent_reads_linear_quadratic_and_flat_growth() -> None:
    assert growth_exponent(SIZES, [3 * n for n in SIZES]) == pytest.approx(1.0)
    assert growth_exponent(SIZES, [5 * n**2 for n in SIZES]) == pytest.approx(2.0)
    assert growth_exponent(SIZES, [42.0, 42.0, 42.0]) == pytest.approx(0.0)
    with pytest.raises(ValueError, match="at least two"):
        growth_exponent([500.0], [1.0])
    with pytest.raises(ValueError, match="positive"):
        growth_exponent(SIZES, [1.0, 0.0, 2.0])
    with pytest.raises(ValueError, match="all sizes are equal"):
        growth_exponent([10.0, 10.0], [1.0, 2.0])


def test_affine_fit_and_the_cautious_extrapolation_of_a_fixed_base() -> None:
    """A 200 MB base plus 0.1 MB an episode: the power law fits a low exponent and understates
    100k episodes; the cautious figure is the affine one."""
    rss = [200 + 0.1 * n for n in SIZES]
    fixed, per_episode = affine_fit(SIZES, rss)
    assert (fixed, per_episode) == (pytest.approx(200.0), pytest.approx(0.1))
    at = extrapolate(SIZES, rss, 100_000)
    assert growth_exponent(SIZES, rss) < 1.0
    assert at["power"] < at["affine"] == at["cautious"] == pytest.approx(10_200.0)
    quadratic = [n**2 / 1000 for n in SIZES]
    at = extrapolate(SIZES, quadratic, 100_000)
    assert at["cautious"] == at["power"] == pytest.approx(10_000_000.0)


def test_tiled_repeats_the_base_with_distinct_episode_ids() -> None:
    base = [json.dumps({"episode_id": f"e{i}", "events": [i]}) for i in range(3)]
    lines = [json.loads(line) for line in tiled(base, 0, 7)]
    assert [r["episode_id"] for r in lines] == ["e0", "e1", "e2", "e0~r1", "e1~r1", "e2~r1", "e0~r2"]
    assert [r["events"] for r in lines] == [[0], [1], [2], [0], [1], [2], [0]]
    assert [json.loads(line)["episode_id"] for line in tiled(base, 4, 2)] == ["e1~r1", "e2~r1"]


def test_day_cost_summary_reads_flat_and_growing_histories() -> None:
    flat = [{"history_days": h, "curation_s": 10.0 + (5.0 if h == 0 else 0.0)} for h in range(17)]
    summary = day_cost_summary(flat, 40)
    assert summary["ratio_16_vs_1"] == 1.0 and summary["slope_s_per_history_day"] == 0.0
    assert summary["curation_s_at_history"] == {"1": 10.0, "4": 10.0, "16": 10.0}
    growing = [{"history_days": h, "curation_s": 10.0 + 2.0 * h} for h in range(17)]
    summary = day_cost_summary(growing, 40)
    assert summary["slope_s_per_history_day"] == pytest.approx(2.0)
    assert shortfalls({}, summary) == ["per-day cost not flat: a day after 16 costs 3.5x a day after 1"]


def test_shortfalls_name_each_missed_target() -> None:
    def figures(exponent: float, gb: float) -> dict:
        return {
            "exponent_seconds": exponent,
            "exponent_peak_rss": 0.2,
            "extrapolated": {"100000": {"peak_rss_gb": gb}},
        }

    missed = shortfalls(
        {"split": figures(1.4, 1.0), "mask": figures(1.0, 6.5), "ingest": figures(1.0, 0.3)}, None
    )
    assert missed == [
        "split: growth exponent 1.4 > 1.1",
        "mask: 6.5 GB peak RSS extrapolated to 100k episodes (target < 4 GB)",
    ]
