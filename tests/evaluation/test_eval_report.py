"""The report draws every plot it has data for, names the decision, and is reproducible."""

from trajectory_platform.evaluation.calls import ScoredCall, call_validity
from trajectory_platform.evaluation.report import write_report

SCHEMA = {"t": {"type": "object", "properties": {"a": {"type": "string"}}}}


def _card():
    valid = call_validity([ScoredCall("t", {"a": "x"}, SCHEMA), ScoredCall("t", None, SCHEMA)])
    return {
        "n": 10,
        "acceptance": {
            "candidate": 0.6,
            "baseline": 0.4,
            "difference": {"estimate": 0.2, "ci_low": -0.1, "ci_high": 0.5, "method": "mcnemar_exact"},
        },
        "call_validity": {"candidate": valid, "baseline": valid},
        "sfa": {
            "candidate": {"familiar": 0.9, "renamed": 0.5},
            "baseline": {"familiar": 0.8, "renamed": 0.4},
        },
        "pre": {
            "candidate": {"familiar": 0.0, "renamed": 0.3},
            "baseline": {"familiar": 0.0, "renamed": 0.2},
        },
        "decision": "hold",
        "reasons": ["acceptance gain not established"],
    }


def test_report_writes_plots_and_decision(tmp_path):
    context = {
        "funnel": {"admitted": 5, "hard_negative": 3},
        "mixture_token_shares": {"pristine": 0.65},
        "loss_curves": {"train": [(0, 3.0), (1, 2.5)]},
    }
    path = write_report(_card(), tmp_path, context)
    text = path.read_text()
    assert "Decision: <b>hold</b>" in text and "acceptance gain not established" in text
    for png in ("funnel", "mixture", "loss", "acceptance", "call_validity", "schema_regimes"):
        assert (tmp_path / f"{png}.png").stat().st_size > 1000
        assert f'src="{png}.png"' in text


def test_report_skips_plots_without_data_and_is_deterministic(tmp_path):
    a, b = tmp_path / "a", tmp_path / "b"
    write_report(_card(), a)
    write_report(_card(), b)
    assert not (a / "funnel.png").exists()
    assert (a / "acceptance.png").read_bytes() == (b / "acceptance.png").read_bytes()
    assert (a / "report.html").read_text() == (b / "report.html").read_text()


def test_funnel_rows_follow_the_cascade_not_the_alphabet(tmp_path, monkeypatch):
    import trajectory_platform.evaluation.report as report

    drawn = {}
    monkeypatch.setattr(report.plt.Axes, "barh", lambda self, names, values, **kw: drawn.update(names=names))
    funnel = {
        "attempts": 9,
        "passed_advisory": 3,
        "passed_delta": 3,
        "passed_dynamic": 4,
        "passed_static": 8,
        "passed_syntactic": 8,
    }
    assert report._plot_funnel({"funnel": funnel}, tmp_path / "f.png")
    assert drawn["names"][::-1] == list(report.CASCADE_ORDER)
