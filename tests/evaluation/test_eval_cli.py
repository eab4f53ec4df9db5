"""``trajectory-platform evaluate``: the scorecard fields the issue fixes, the report, user errors."""

from __future__ import annotations

import json
from pathlib import Path

from trajectory_platform.cli import main
from trajectory_platform.training.optim.model import default_base_dir


def test_evaluate_writes_scorecard_and_report(eval_workdir: Path, tmp_path: Path, capsys):
    base = str(default_base_dir(eval_workdir))
    out = tmp_path / "eval"
    argv = [
        "evaluate",
        "--candidate",
        base,
        "--baseline",
        base,
        "--out",
        str(out),
        "--episodes",
        "2",
        "--recovery-episodes",
        "1",
        "--retention-episodes",
        "1",
        "--max-steps",
        "2",
        "--max-new-tokens",
        "8",
    ]
    assert main(argv) == 0
    summary = json.loads(capsys.readouterr().out.strip().splitlines()[-1])
    card = json.loads((out / "scorecard.json").read_text())
    assert card["n"] == summary["n"] == 2
    assert {"candidate", "baseline", "difference"} <= set(card["acceptance"])
    assert {"estimate", "ci_low", "ci_high"} <= set(card["acceptance"]["difference"])
    for measure in ("sfa", "pre", "call_validity", "cost_per_accepted"):
        assert set(card[measure]) == {"candidate", "baseline"}
    assert card["decision"] in ("promote", "hold") and card["reasons"]
    assert card["decision"] == "hold"  # identical arms can never establish a gain
    report = (out / "report.html").read_text()
    # every plot is drawn or replaced by a sentence saying why; acceptance always has data
    assert report.count("<img") >= 1 and report.count("<img") + report.count("No plot:") == 6
    assert len(list((out / "transcripts").glob("*.html"))) == 4  # one page per paired trial
    assert len((out / "episodes.jsonl").read_text().splitlines()) == 2 * 4


def test_evaluate_rejects_a_directory_that_is_not_a_checkpoint(tmp_path: Path, capsys):
    assert main(["evaluate", "--candidate", str(tmp_path), "--out", str(tmp_path / "o")]) == 2
    assert "not a checkpoint directory" in capsys.readouterr().err
