"""The scorecard as a page a person reads without the book: ``report.html`` and ``report.md``.

Top to bottom: the decision and why, what to do next (``report_next_steps``), the headline numbers
of both models with a plain-language definition beside each (``report_glossary``), the plots, each
with what it shows or a sentence saying why it has no data (``report_plots``), links to every
trial's transcript (``report_transcripts``), and the full scorecard JSON. The decision and the
acceptance figures are read through :func:`~trajectory_platform.evaluation.scorecard.row_figures`,
the same reading the ``scorecard`` warehouse row stores, so the page and the table cannot disagree.

``report.md`` carries the same sections with relative image links; :func:`report_markdown`
inlines the images for a Dagster asset page. Everything is a pure function of the scorecard, the
pipeline context and the trials, so a report rebuilt from a stored ``scorecard.json`` repeats
byte for byte.
"""

from __future__ import annotations

import base64
import html
import json
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from trajectory_platform.evaluation.report_glossary import DATASET_QUALITY, MEASUREMENTS, Term
from trajectory_platform.evaluation.report_next_steps import NextStep, next_steps
from trajectory_platform.evaluation.report_plots import PLOTS, Plot, save
from trajectory_platform.evaluation.report_transcripts import TranscriptLink, Trial, write_transcripts
from trajectory_platform.evaluation.scorecard import row_figures

MARKDOWN_NAME = "report.md"
HTML_NAME = "report.html"

HEADLINE: tuple[tuple[str, str | None], ...] = (
    ("acceptance", None),
    ("recovery", None),
    ("retention", None),
    ("sfa", "renamed"),
    ("pre", "renamed"),
    ("sfa", "familiar"),
    ("pre", "familiar"),
    ("fabricated_observation_rate", None),
    ("runaway_rate", None),
)
"""(scorecard key, schema kind): the rows a reviewer reads first, both models side by side."""


@dataclass(frozen=True)
class Row:
    """One line of the headline: label, both models' values (shown), its definition."""

    label: str
    baseline: str
    candidate: str | None
    """None: ``baseline`` is one figure of the pair (the decision, n, the paired difference)."""
    meaning: str
    figure: str = ""
    """The warehouse column this row shows, when it is one (``data-figure`` in the HTML)."""


def _fmt(value: Any) -> str:
    if isinstance(value, bool):
        return str(value)
    if isinstance(value, float):
        return f"{value:.3f}"
    return "n/a" if value is None else str(value)


def _arm_value(card: Mapping[str, Any], key: str, arm: str, regime: str | None) -> Any:
    value = (card.get(key) or {}).get(arm)
    return value.get(regime) if regime is not None and isinstance(value, dict) else value


def _shown(card: Mapping[str, Any], key: str, arm: str, regime: str | None) -> str:
    """An arm's figure as the headline shows it; an SFA or PRE with no call of that arm on the
    schema kind to score reads "no call" (an untrained base proposes none), not "n/a"."""
    value = _arm_value(card, key, arm, regime)
    calls = (card.get("calls_by_regime") or {}).get(arm)
    if value is None and regime is not None and isinstance(calls, dict) and not calls.get(regime):
        return "no call"
    return _fmt(value)


def _cost(card: Mapping[str, Any], arm: str) -> str:
    cost = _arm_value(card, "cost_per_accepted", arm, None) or {}
    if not cost:
        return "n/a"
    if cost.get("value") is not None:
        return _fmt(cost["value"])
    return f"none solved; total spend {_fmt(cost.get('total_spend'))}"


def headline_rows(card: Mapping[str, Any]) -> list[Row]:
    """The headline table: the warehouse row's figures first, then every gated measurement."""
    figures = row_figures(dict(card))
    diff = (card.get("acceptance") or {}).get("difference") or {}
    accept = MEASUREMENTS["acceptance"]
    rows = [
        Row(
            "decision",
            figures["decision"],
            None,
            "promote or hold, by the release gate",
            "decision",
        ),
        Row(MEASUREMENTS["n"].label, _fmt(figures["n"]), None, MEASUREMENTS["n"].meaning, "n"),
        Row(
            accept.label,
            _fmt(figures["acceptance_baseline"]),
            _fmt(figures["acceptance_candidate"]),
            accept.meaning,
            "acceptance",
        ),
        *environment_rows(card),
    ]
    for key, regime in HEADLINE[1:]:
        term = MEASUREMENTS[key]
        label = f"{term.label}, {regime} schemas" if regime else term.label
        rows.append(
            Row(
                label,
                _shown(card, key, "baseline", regime),
                _shown(card, key, "candidate", regime),
                term.meaning,
            )
        )
    cost = MEASUREMENTS["cost_per_accepted"]
    rows.append(Row(cost.label, _cost(card, "baseline"), _cost(card, "candidate"), cost.meaning))
    if figures["difference"] is not None:
        shown = (
            f"{_fmt(figures['difference'])} [{_fmt(figures['ci_low'])}, {_fmt(figures['ci_high'])}]; "
            f"only candidate solved {diff.get('candidate_only')}, only baseline {diff.get('baseline_only')}; "
            f"p={_fmt(diff.get('p_value'))}"
        )
        rows.append(
            Row(
                MEASUREMENTS["difference"].label,
                shown,
                None,
                MEASUREMENTS["difference"].meaning,
                "difference",
            )
        )
    return rows


def environment_rows(card: Mapping[str, Any]) -> list[Row]:
    """Acceptance per task source beside the total, and what became of the brought environments
    (how many were evaluated and why any were not); none when no environment was offered."""
    envs = card.get("environments") or {}
    if not envs.get("registered"):
        return []
    by_source = (card.get("acceptance") or {}).get("by_source") or {}
    rows = [
        Row(
            f"acceptance, {source} tasks ({figures['trials']} trials)",
            _fmt(figures.get("baseline")),
            _fmt(figures.get("candidate")),
            "share of acceptance trials solved, counting only tasks from "
            + ("the gym's generated library" if source == "gym" else "the task environments you brought"),
        )
        for source, figures in sorted(by_source.items())
    ]
    skipped = "; ".join(f"{reason}: {n}" for reason, n in envs.get("skipped_by_reason", {}).items())
    sides = ", ".join(f"{split} {n}" for split, n in envs.get("by_split", {}).items())
    rows.append(
        Row(
            "task environments",
            f"{envs['evaluated']} evaluated of {envs['registered']} ({sides})"
            + (f"; skipped {skipped}" if skipped else ""),
            None,
            "brought environments the split plan holds out (test) are evaluated through their own "
            "tools; the others train the model; a held-out one without runnable tools is skipped",
        )
    )
    return rows


def quality_rows(card: Mapping[str, Any]) -> list[tuple[Term, str]]:
    """The dataset-quality scorecard of the training corpus, each figure with its definition."""
    quality = card.get("dataset_quality") or {}
    return [(DATASET_QUALITY.get(key, Term(key, "")), _fmt(value)) for key, value in quality.items()]


@dataclass(frozen=True)
class Section:
    """A plot as drawn: its image file, or the sentence that says why there is none."""

    plot: Plot
    image: str | None
    no_data: str | None


def _draw(card: Mapping[str, Any], context: Mapping[str, Any], out_dir: Path) -> list[Section]:
    sections = []
    for plot in PLOTS:
        drawn = plot.draw(card if plot.reads_scorecard else context)
        target = out_dir / plot.filename
        if isinstance(drawn, str):
            target.unlink(missing_ok=True)  # a stale plot of an earlier report must not linger
            sections.append(Section(plot, None, drawn))
        else:
            save(drawn, target)
            sections.append(Section(plot, plot.filename, None))
    return sections


def _code(text: str) -> str:
    """Escape ``text`` and render its `backticked` commands as code."""
    return re.sub(r"`([^`]+)`", r"<code>\1</code>", html.escape(text))


def _values(row: Row) -> str:
    """Both models' cells (one spanning both when they share the value), tagged with the
    warehouse column they show."""

    def tag(column: str) -> str:
        return f" data-figure='{column}'" if row.figure else ""

    if row.candidate is None:
        return f"<td colspan=2{tag(row.figure)}>{html.escape(row.baseline)}</td>"
    return (
        f"<td{tag(row.figure + '_baseline')}>{html.escape(row.baseline)}</td>"
        f"<td{tag(row.figure + '_candidate')}>{html.escape(row.candidate)}</td>"
    )


def _html(
    card: Mapping[str, Any], steps: list[NextStep], sections: list[Section], links: Sequence[TranscriptLink]
) -> str:
    decision = str(card.get("decision", "hold"))
    colour = "#2e7d32" if decision == "promote" else "#b26a00"
    reasons = "".join(f"<li>{html.escape(str(r))}</li>" for r in card.get("reasons", []))
    todo = "".join(f"<li><b>{html.escape(s.why)}</b><br>{_code(s.action)}</li>" for s in steps)
    head = "".join(
        f"<tr><td>{html.escape(r.label)}</td>{_values(r)}<td class=meaning>{html.escape(r.meaning)}</td></tr>"
        for r in headline_rows(card)
    )
    quality = "".join(
        f"<tr><td>{html.escape(term.label)}</td><td>{html.escape(value)}</td>"
        f"<td class=meaning>{html.escape(term.meaning)}</td></tr>"
        for term, value in quality_rows(card)
    )
    plots = "".join(
        f"<h2>{html.escape(s.plot.title)}</h2><p class=meaning>{html.escape(s.plot.meaning)}</p>"
        + (
            f'<img src="{s.image}" alt="{html.escape(s.plot.title)}">'
            if s.image
            else f"<p class=nodata>No plot: {html.escape(s.no_data or '')}</p>"
        )
        for s in sections
    )
    trials = "".join(
        f"<tr><td><a href='{html.escape(link.href)}'>{html.escape(link.item_id)}</a></td>"
        f"<td>{html.escape(link.suite)}</td><td>{html.escape(link.regime)}</td>"
        f"<td>{html.escape(link.outcomes.get('candidate', 'n/a'))}</td>"
        f"<td>{html.escape(link.outcomes.get('baseline', 'n/a'))}</td></tr>"
        for link in links
    )
    return (
        "<!doctype html><html><head><meta charset='utf-8'><title>trajectory_platform scorecard</title>"
        "<style>body{font-family:sans-serif;max-width:1000px;margin:2em auto}img{max-width:100%}"
        "table{border-collapse:collapse}td,th{border:1px solid #bbb;padding:4px;vertical-align:top}"
        ".meaning{color:#444;font-size:.9em}.nodata{color:#b26a00;font-style:italic}"
        "pre{background:#f5f5f5;padding:1em;overflow:auto;font-size:12px}</style></head><body>"
        "<h1>Release scorecard</h1>"
        f"<p style='font-size:1.4em;color:{colour}'>Decision: <b>{html.escape(decision)}</b></p>"
        "<p>The fine-tuned model (candidate) and the model it started from or replaces (baseline) "
        "attempted the same held-out tasks under the same budgets. The release gate promotes the "
        "candidate only on a measured gain with no regression.</p>"
        f"<h2>Why</h2><ul>{reasons}</ul>"
        f"<h2>What to do next</h2><ol>{todo}</ol>"
        "<h2>Measurements</h2><table><tr><th>measurement</th><th>baseline</th><th>candidate</th>"
        f"<th>what it means</th></tr>{head}</table>"
        + (
            "<h2>Training data quality</h2><table><tr><th>figure</th><th>value</th>"
            f"<th>what it means</th></tr>{quality}</table>"
            if quality
            else ""
        )
        + plots
        + (
            "<h2>Trials</h2><p class=meaning>Every paired task; open one to read both models' "
            "transcripts turn by turn.</p><table><tr><th>task</th><th>suite</th><th>schema kind</th>"
            f"<th>candidate</th><th>baseline</th></tr>{trials}</table>"
            if trials
            else ""
        )
        + "<h2>Scorecard (JSON)</h2><details><summary>every figure, the rule and what the decision is "
        "bound to</summary><pre>"
        + html.escape(json.dumps(card, indent=2, sort_keys=True, default=str))
        + "</pre></details></body></html>"
    )


def _cell(text: str) -> str:
    return text.replace("|", "\\|").replace("\n", " ")


def _markdown(card: Mapping[str, Any], steps: list[NextStep], sections: list[Section]) -> str:
    lines = [f"**Decision: {card.get('decision', 'hold')}**", "", "Why:"]
    lines += [f"- {r}" for r in card.get("reasons", [])]
    lines += ["", "What to do next:"]
    lines += [f"{i}. **{s.why}** {s.action}" for i, s in enumerate(steps, 1)]
    lines += ["", "| measurement | baseline | candidate | what it means |", "|---|---|---|---|"]
    lines += [
        f"| {_cell(r.label)} | {_cell(r.baseline)} | {_cell(r.candidate or '(both)')} | {_cell(r.meaning)} |"
        for r in headline_rows(card)
    ]
    for s in sections:
        lines += ["", f"**{s.plot.title}**: {s.plot.meaning}", ""]
        lines.append(f"![{s.plot.title}]({s.image})" if s.image else f"_No plot: {s.no_data}_")
    return "\n".join(lines) + "\n"


def write_report(
    scorecard: dict[str, Any],
    out_dir: Path,
    context: dict[str, Any] | None = None,
    trials: Sequence[Trial] = (),
) -> Path:
    """Write the plots, the transcript pages, ``report.html`` and ``report.md`` into ``out_dir``;
    returns the HTML path. ``context`` holds what the pipeline knows beyond the scorecard: the
    funnel, the mixture, loss curves and ``failed_checks`` (:class:`FailedCheck`, each a next step)."""
    out_dir.mkdir(parents=True, exist_ok=True)
    sections = _draw(scorecard, context or {}, out_dir)
    links = write_transcripts(trials, out_dir) if trials else []
    steps = next_steps(scorecard, (context or {}).get("failed_checks", ()))
    (out_dir / MARKDOWN_NAME).write_text(_markdown(scorecard, steps, sections), encoding="utf-8")
    path = out_dir / HTML_NAME
    path.write_text(_html(scorecard, steps, sections, links), encoding="utf-8")
    return path


def report_markdown(out_dir: Path) -> str:
    """``report.md`` with its plots inlined as PNG data URIs: what a Dagster asset page shows
    (it cannot follow a link to a file on the machine that ran the asset)."""

    def inline(match: re.Match[str]) -> str:
        image = out_dir / match.group(2)
        data = base64.b64encode(image.read_bytes()).decode() if image.is_file() else ""
        return f"![{match.group(1)}](data:image/png;base64,{data})" if data else match.group(0)

    return re.sub(r"!\[([^\]]*)\]\(([^)]+\.png)\)", inline, (out_dir / MARKDOWN_NAME).read_text())
