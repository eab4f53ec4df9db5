"""Table-15 arithmetic: yield and cost per clean trajectory."""

import pytest

from trajectory_platform.evaluation.quality import dataset_quality


def test_full_pipeline_row_arithmetic():
    # Table 15's full pipeline: 12.8% yield at $0.34 per clean trajectory.
    row = dataset_quality(
        pipeline_configuration="full",
        attempted=1000,
        admitted=128,
        redaction_leakage=0.0,
        flakiness_index=0.001,
        downstream_pass_rate=0.425,
        curation_cost=43.52,
    )
    assert row.accepted_yield == pytest.approx(0.128)
    assert row.cost_per_clean_trajectory == pytest.approx(0.34)


def test_no_admissions_leaves_cost_undefined_and_rejects_impossible_counts():
    row = dataset_quality(
        pipeline_configuration="x",
        attempted=5,
        admitted=0,
        redaction_leakage=None,
        flakiness_index=None,
        downstream_pass_rate=None,
        curation_cost=1.0,
    )
    assert row.cost_per_clean_trajectory is None and row.accepted_yield == 0.0
    with pytest.raises(ValueError):
        dataset_quality(
            pipeline_configuration="x",
            attempted=1,
            admitted=2,
            redaction_leakage=None,
            flakiness_index=None,
            downstream_pass_rate=None,
            curation_cost=None,
        )
