"""The report explains itself: definitions beside every figure, a sentence where a plot has no data,
next steps from the decision, transcript pages, the warehouse row's figures, and repeatable bytes."""

import dataclasses
import re
from html.parser import HTMLParser

import pytest

from trajectory_platform.evaluation.calls import ScoredCall, call_validity
from trajectory_platform.evaluation.episodes import EpisodeMeasure
from trajectory_platform.evaluation.gate import GATE_CLAUSES, GateRule
from trajectory_platform.evaluation.quality import DatasetQualityScorecard
from trajectory_platform.evaluation.report import HEADLINE, headline_rows, report_markdown, write_report
from trajectory_platform.evaluation.report_glossary import DATASET_QUALITY, MEASUREMENTS
from trajectory_platform.evaluation.report_next_steps import _ADVICE, FailedCheck, next_steps
from trajectory_platform.evaluation.report_plots import CASCADE_ORDER, plot_funnel
from trajectory_platform.evaluation.report_transcripts import Trial
from trajectory_platform.evaluation.scorecard import decide_release
from trajectory_platform.evaluation.stage import scorecard_table
from trajectory_platform.traces.record import Episode, Event, ToolCall

SCHEMA = {"t": {"type": "object", "properties": {"a": {"type": "string"}}}}
CONTEXT = {
    "funnel": {"attempts": 9, "passed_syntactic": 8},
    "mixture_token_shares": {"pristine": 0.65, "recovery": 0.35},
    "loss_curves": {"train": [(0, 3.0), (1, 2.5)]},
}


def _measurements(**overrides):
    valid = call_validity([ScoredCall("t", {"a": "x"}, SCHEMA), ScoredCall("t", None, SCHEMA)])
    card = {
        "n": 10,
        "acceptance": {
            "candidate": 0.6,
            "baseline": 0.4,
            "difference": {
                "estimate": 0.2,
                "ci_low": -0.1,
                "ci_high": 0.5,
                "method": "tango_score",
                "candidate_only": 3,
                "baseline_only": 1,
                "p_value": 0.625,
            },
        },
        "call_validity": {"candidate": valid, "baseline": valid},
        "sfa": {
            "candidate": {"familiar": 0.9, "renamed": 0.5},
            "baseline": {"familiar": 0.8, "renamed": 0.4},
        },
        "pre": {
            "candidate": {"familiar": 0.0, "renamed": 0.01},
            "baseline": {"familiar": 0.0, "renamed": 0.0},
        },
        "recovery": {"candidate": 0.5, "baseline": 0.5},
        "retention": {"candidate": 1.0, "baseline": 1.0},
        "fabricated_observation_rate": {"candidate": 0.0, "baseline": 0.0},
        "runaway_rate": {"candidate": 0.1, "baseline": 0.2},
        "cost_per_accepted": {"candidate": {"value": 0.01}, "baseline": {"value": None, "total_spend": 0.2}},
    }
    card.update(overrides)
    return card


def _card(rule=None, **overrides):
    """A decided scorecard, as :func:`evaluate` stores it (the gate's findings included)."""
    artifacts = {"candidate": "sha256:cand", "baseline": "sha256:base"}
    card = decide_release(_measurements(**overrides), artifacts, {"manifest_version": "test"}, rule)
    card["dataset_quality"] = dataclasses.asdict(
        DatasetQualityScorecard("embedded", 0.8, 0.0, 0.0, 0.6, 0.2, 8, 10, [0.0, 0.1], 40)
    )
    return card


class _Figures(HTMLParser):
    """The ``data-figure`` cells of the report: what the page shows for each warehouse column."""

    def __init__(self):
        super().__init__()
        self.figures, self._open = {}, None

    def handle_starttag(self, tag, attrs):
        self._open = dict(attrs).get("data-figure")

    def handle_data(self, data):
        if self._open:
            self.figures[self._open] = data
            self._open = None


@pytest.fixture(scope="module")
def written(tmp_path_factory):
    """One full report (every plot drawn), shared: drawing is the slow part."""
    out = tmp_path_factory.mktemp("report")
    write_report(_card(), out, CONTEXT)
    return out


def test_report_writes_plots_decision_and_markdown(written):
    tmp_path = written
    text = (tmp_path / "report.html").read_text()
    assert "Decision: <b>hold</b>" in text and "acceptance gain not established" in text
    for png in ("funnel", "mixture", "loss", "acceptance", "call_validity", "schema_regimes"):
        assert (tmp_path / f"{png}.png").stat().st_size > 1000
        assert f'src="{png}.png"' in text
        assert f"]({png}.png)" in (tmp_path / "report.md").read_text()


def test_every_figure_has_a_plain_definition_and_no_book_citation(written):
    text = (written / "report.html").read_text()
    markdown = (written / "report.md").read_text()
    assert not re.search(r"\btable \d+", text + markdown, re.IGNORECASE)
    for key, _ in HEADLINE:
        assert MEASUREMENTS[key].meaning and MEASUREMENTS[key].meaning in markdown
    # a new dataset-quality figure cannot reach the page without a definition
    fields = {f.name for f in dataclasses.fields(DatasetQualityScorecard)}
    assert fields <= set(DATASET_QUALITY)
    for field in fields:
        assert DATASET_QUALITY[field].meaning in text.replace("&#x27;", "'")
    assert "PRE (parametric recall error)" in text and "SFA (schema-following accuracy)" in text


def test_empty_plots_become_a_sentence_and_stale_plots_go(tmp_path):
    write_report(_card(), tmp_path)
    silent = call_validity([])
    card = _card(
        call_validity={"candidate": silent, "baseline": silent},
        sfa={"candidate": {}, "baseline": {}},
        pre={"candidate": {}, "baseline": {}},
    )
    text = write_report(card, tmp_path).read_text()
    for png in ("call_validity", "schema_regimes", "funnel", "mixture", "loss"):
        assert not (tmp_path / f"{png}.png").exists() and f'src="{png}.png"' not in text
    assert text.count("No plot:") == 5
    assert "Neither model proposed a tool call" in text and "SFA and PRE have no data" in text
    assert "_No plot: " in (tmp_path / "report.md").read_text()


def _steps_text(card):
    return " ".join(f"{step.why} {step.action}" for step in next_steps(card))


def test_next_steps_follow_the_reasons():
    # hold: the interval includes zero although the candidate looks better -> more tasks
    steps = _steps_text(_card())
    assert "Run more held-out tasks" in steps and "--set scorecard.episodes=" in steps
    # the margin not reached by the estimate itself -> more trials will not help
    steps = _steps_text(_card(rule=GateRule(min_acceptance_ci_low=0.3)))
    assert "not ahead of the baseline" in steps and "scorecard.episodes" not in steps
    # a missing measurement names the check that flags it and who made no call
    silent = call_validity([])
    card = _card(
        call_validity={**_measurements()["call_validity"], "baseline": silent}, sfa={"candidate": {}}
    )
    steps = _steps_text(card)
    assert "required_measurements_present" in steps and "The baseline proposed no tool call" in steps
    # a regression gets its own advice
    steps = _steps_text(_card(pre={"candidate": {"renamed": 0.4}, "baseline": {"renamed": 0.0}}))
    assert "schema augmentation" in steps
    # promote: ship exactly the evaluated weights
    promote = _card(rule=GateRule(min_acceptance_ci_low=-0.5))
    assert promote["decision"] == "promote"
    assert "Release exactly the evaluated checkpoint (sha256:cand)" in _steps_text(promote)


def test_failed_checks_are_next_steps_with_their_rerun_command():
    failed = [
        FailedCheck("training_mixture", "mixture_shares_within_bounds", "ERROR", "Shares within the bounds."),
        FailedCheck("raw_traces", "parsed", "WARN", partition="2026-11-02"),
    ]
    steps = next_steps(_card(), failed)
    assert steps[-1].why == "After any change above"  # the checks come before the way to a new decision
    mixture, raw = steps[-3], steps[-2]
    assert mixture.why == "Check training_mixture:mixture_shares_within_bounds failed (failure)."
    assert "It verifies: Shares within the bounds." in mixture.action
    assert "dagster asset materialize -m trajectory_platform.definitions --select training_mixture`" in (
        mixture.action
    )
    assert raw.why == "Check raw_traces:parsed failed (partition 2026-11-02) (warning)."
    assert "--select raw_traces --partition 2026-11-02`" in raw.action


def test_every_gate_clause_has_advice():
    assert set(_ADVICE) == set(GATE_CLAUSES)


def test_report_shows_the_warehouse_rows_figures(written):
    row = scorecard_table(_card(), written).to_pylist()[0]
    parser = _Figures()
    parser.feed((written / "report.html").read_text())
    shown = parser.figures
    assert shown["decision"] == row["decision"] == "hold"
    assert shown["n"] == str(row["n"])
    assert shown["acceptance_candidate"] == f"{row['acceptance_candidate']:.3f}"
    assert shown["acceptance_baseline"] == f"{row['acceptance_baseline']:.3f}"
    assert shown["difference"].startswith(
        f"{row['difference']:.3f} [{row['ci_low']:.3f}, {row['ci_high']:.3f}]"
    )


def _trial(arm, accepted, content):
    measure = EpisodeMeasure(
        item_id="acceptance:fx/one@path:s0",
        fixture_id="fx/one@path",
        suite="acceptance",
        regime="familiar",
        seed=0,
        task_kind="fix",
        accepted=accepted,
        terminal_status="answered" if accepted else "truncated",
        fault_kinds=[],
        faults_fired=0,
        turns=1,
        call_turns=1,
        fabricated_turns=0,
        runaway_turns=0 if accepted else 1,
        generated_tokens=12,
        input_tokens=40,
        wall_s=0.5,
    )
    episode = Episode(
        episode_id=f"eval-{arm}-0001",
        source_format="native",
        source_file="evaluation",
        source_line=None,
        source_path=None,
        partition_date=None,
        events=[
            Event("user", content="Fix the constant in app.py"),
            Event(
                "assistant",
                content=content,
                tool_calls=[ToolCall("c1", "read_file", '{"path": "app.py"}')],
                finish_reason=None if accepted else "length",
                timestamp="2026-12-01T00:00:00Z",
            ),
            Event("tool", content="X = 1", tool_call_id="c1", tool_name="read_file", status="ok"),
        ],
    )
    return Trial(arm, measure, episode)


def test_trials_link_to_escaped_transcript_pages(tmp_path):
    trials = [_trial("candidate", True, "<script>alert(1)</script>"), _trial("baseline", False, "thinking")]
    text = write_report(_card(), tmp_path, trials=trials).read_text()
    href = re.search(r"href='(transcripts/[^']+\.html)'", text).group(1)
    page = (tmp_path / href).read_text()
    assert "<script>" not in page and "&lt;script&gt;alert(1)&lt;/script&gt;" in page
    assert "<h2>candidate</h2>" in page and "<h2>baseline</h2>" in page
    assert "cut off at the output limit" in page and "read_file" in page and "X = 1" in page
    assert "2026-12-01T00:00:00Z" not in page  # wall clock left out: the pages repeat
    assert "<td>accepted</td><td>truncated</td>" in text


def test_markdown_for_the_asset_page_inlines_every_plot(written):
    markdown = report_markdown(written)
    assert markdown.count("](data:image/png;base64,") == 6
    assert "What to do next" in markdown and "PRE (parametric recall error)" in markdown


def test_report_is_deterministic(tmp_path):
    a, b = tmp_path / "a", tmp_path / "b"
    trials = [_trial("candidate", True, "ok"), _trial("baseline", False, "no")]
    for out in (a, b):
        write_report(_card(), out, trials=trials)
    for name in ("acceptance.png", "schema_regimes.png", "report.html", "report.md"):
        assert (a / name).read_bytes() == (b / name).read_bytes()
    assert sorted(p.name for p in (a / "transcripts").iterdir()) == sorted(
        p.name for p in (b / "transcripts").iterdir()
    )


@pytest.mark.filterwarnings("ignore:Tight layout not applied")  # barh is stubbed out
def test_funnel_rows_follow_the_cascade_not_the_alphabet(monkeypatch):
    funnel = {"attempts": 9, "passed_advisory": 3, "passed_delta": 3, "passed_static": 8}
    import trajectory_platform.evaluation.report_plots as plots

    drawn = {}
    monkeypatch.setattr(plots.plt.Axes, "barh", lambda self, names, values, **kw: drawn.update(names=names))
    plots.plt.close(plot_funnel({"funnel": funnel}))
    order = [name for name in CASCADE_ORDER if name in funnel]
    assert drawn["names"][::-1] == order


def test_a_silent_arm_reads_no_call_not_n_a():
    card = _card(
        sfa={"candidate": {"renamed": 0.0}, "baseline": {}},
        pre={"candidate": {"renamed": 0.6}, "baseline": {}},
        calls_by_regime={"candidate": {"renamed": 20}, "baseline": {}},
    )
    rows = {row.label: row for row in headline_rows(card)}
    sfa = rows[f"{MEASUREMENTS['sfa'].label}, renamed schemas"]
    assert (sfa.baseline, sfa.candidate) == ("no call", "0.000")
    pre = rows[f"{MEASUREMENTS['pre'].label}, renamed schemas"]
    assert (pre.baseline, pre.candidate) == ("no call", "0.600")
    del card["calls_by_regime"]  # without call counts a missing figure stays "n/a"
    assert {row.label: row for row in headline_rows(card)}[sfa.label].baseline == "n/a"
