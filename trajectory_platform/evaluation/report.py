"""The scorecard as something a person would rather look at than read: PNG plots + report.html.

Plots are drawn from the scorecard dict alone (plus optional pipeline context such as the
curation funnel, the token mixture and loss curves), so the report can be rebuilt from a
stored ``scorecard.json`` at any time. Every plot is skipped, not faked, when its data is absent.
"""

from __future__ import annotations

import html
import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402  (backend must be chosen first)
from matplotlib.figure import Figure  # noqa: E402

ARMS = ("baseline", "candidate")
_PNG_META = {"Software": None}


def _save(fig: Figure, path: Path) -> None:
    fig.tight_layout()
    fig.savefig(path, dpi=90, metadata=_PNG_META)
    plt.close(fig)


def _plot_acceptance(card: dict, path: Path) -> bool:
    acc = card.get("acceptance") or {}
    diff = acc.get("difference") or {}
    if acc.get("candidate") is None or acc.get("baseline") is None:
        return False
    fig, (left, right) = plt.subplots(1, 2, figsize=(8, 3))
    left.bar(list(ARMS), [acc["baseline"], acc["candidate"]], color=["#999999", "#3b7dd8"])
    left.set_ylim(0, 1)
    left.set_title(f"Budgeted acceptance (n={card.get('n')})")
    if diff.get("estimate") is not None:
        est, low, high = (
            diff["estimate"],
            diff.get("ci_low", diff["estimate"]),
            diff.get("ci_high", diff["estimate"]),
        )
        right.errorbar([0], [est], yerr=[[est - low], [high - est]], fmt="o", capsize=6, color="#3b7dd8")
        right.axhline(0, color="black", linewidth=0.8)
        right.set_xticks([0], ["candidate - baseline"])
        right.set_title(f"Paired difference, {diff.get('method', '')}")
    _save(fig, path)
    return True


def _plot_call_validity(card: dict, path: Path) -> bool:
    validity = card.get("call_validity") or {}
    arms = [a for a in ARMS if isinstance(validity.get(a), dict) and validity[a].get("counts")]
    if not arms:
        return False
    categories = list(validity[arms[0]]["counts"].keys())
    fig, ax = plt.subplots(figsize=(8, 3))
    bottoms = [0.0] * len(arms)
    for cat in categories:
        values = [validity[a]["rates"].get(cat) or 0.0 for a in arms]
        ax.barh(arms, values, left=bottoms, label=cat)
        bottoms = [b + v for b, v in zip(bottoms, values, strict=True)]
    ax.set_xlim(0, 1)
    ax.legend(fontsize=7, loc="center left", bbox_to_anchor=(1, 0.5))
    ax.set_title("Call validity (table 11 categories)")
    _save(fig, path)
    return True


def _plot_schema_regimes(card: dict, path: Path) -> bool:
    panels = [(m, card.get(m) or {}) for m in ("sfa", "pre")]
    regimes = sorted({r for _, m in panels for a in ARMS for r in (m.get(a) or {})})
    if not regimes:
        return False
    fig, axes = plt.subplots(1, 2, figsize=(8, 3))
    width = 0.4
    for ax, (name, measure) in zip(axes, panels, strict=True):
        for offset, arm in ((-width / 2, "baseline"), (width / 2, "candidate")):
            values = [(measure.get(arm) or {}).get(r) or 0.0 for r in regimes]
            ax.bar([i + offset for i in range(len(regimes))], values, width, label=arm)
        ax.set_xticks(range(len(regimes)), regimes)
        ax.set_ylim(0, 1)
        ax.set_title(name.upper() + " by schema regime")
    axes[0].legend(fontsize=7)
    _save(fig, path)
    return True


CASCADE_ORDER = (
    "attempts",
    "passed_syntactic",
    "passed_static",
    "passed_dynamic",
    "passed_delta",
    "passed_advisory",
)
"""Funnel rows in cascade order; stored funnels arrive key-sorted (canonical JSON)."""


def _plot_funnel(context: dict, path: Path) -> bool:
    funnel = context.get("funnel")
    if not funnel:
        return False
    rank = {name: i for i, name in enumerate(CASCADE_ORDER)}
    names = sorted(funnel, key=lambda n: (rank.get(n, len(rank)), -funnel[n], n))
    fig, ax = plt.subplots(figsize=(8, 3))
    ax.barh(names[::-1], [funnel[n] for n in names][::-1], color="#6a9f58")
    ax.set_title("Curation funnel (episodes per sink)")
    _save(fig, path)
    return True


def _plot_mixture(context: dict, path: Path) -> bool:
    mixture = context.get("mixture_token_shares")
    if not mixture:
        return False
    fig, ax = plt.subplots(figsize=(5, 3))
    ax.bar(list(mixture.keys()), list(mixture.values()), color="#d8863b")
    ax.set_ylim(0, 1)
    ax.set_title("Training mixture (share of selected target tokens)")
    _save(fig, path)
    return True


def _plot_loss(context: dict, path: Path) -> bool:
    curves = context.get("loss_curves")
    if not curves:
        return False
    fig, ax = plt.subplots(figsize=(6, 3))
    for name, points in sorted(curves.items()):
        if points:
            steps, values = zip(*points, strict=True)
            ax.plot(steps, values, marker="." if len(points) < 30 else None, label=name)
    ax.set_xlabel("step")
    ax.set_ylabel("masked loss")
    ax.legend(fontsize=7)
    ax.set_title("Loss curves (same masks and normalization)")
    _save(fig, path)
    return True


PLOTS: tuple[tuple[str, str, Callable[[dict, Path], bool], bool], ...] = (
    ("funnel.png", "Curation funnel", _plot_funnel, False),
    ("mixture.png", "Token mixture", _plot_mixture, False),
    ("loss.png", "Loss curves", _plot_loss, False),
    ("acceptance.png", "Acceptance with paired interval", _plot_acceptance, True),
    ("call_validity.png", "Call validity", _plot_call_validity, True),
    ("schema_regimes.png", "SFA / PRE by schema regime", _plot_schema_regimes, True),
)
"""(file, title, plotter, reads the scorecard rather than the pipeline context)."""


def _fmt(value: Any) -> str:
    if isinstance(value, float):
        return f"{value:.3f}"
    return "n/a" if value is None else html.escape(str(value))


def _arm_of(card: dict, key: str, arm: str, regime: str | None = None) -> Any:
    value = (card.get(key) or {}).get(arm)
    return value.get(regime) if regime is not None and isinstance(value, dict) else value


HEADLINE = (
    ("acceptance", "acceptance", None),
    ("recovery under injected faults", "recovery", None),
    ("retention (outside the training focus)", "retention", None),
    ("SFA, renamed schemas", "sfa", "renamed"),
    ("PRE, renamed schemas", "pre", "renamed"),
    ("SFA, familiar schemas", "sfa", "familiar"),
    ("PRE, familiar schemas", "pre", "familiar"),
    ("fabricated-observation rate (episodes)", "fabricated_observation_rate", None),
    ("runaway rate (turns without end token)", "runaway_rate", None),
)


def _headline(card: dict) -> str:
    """The numbers a reviewer reads first, both arms side by side (n/a = no denominator)."""
    rows = [
        f"<tr><td>{html.escape(label)}</td><td>{_fmt(_arm_of(card, key, 'baseline', regime))}</td>"
        f"<td>{_fmt(_arm_of(card, key, 'candidate', regime))}</td></tr>"
        for label, key, regime in HEADLINE
    ]
    for arm_label, arm in (("baseline", "baseline"), ("candidate", "candidate")):
        cost = _arm_of(card, "cost_per_accepted", arm) or {}
        if cost:
            shown = (
                _fmt(cost.get("value"))
                if cost.get("value") is not None
                else (f"no acceptance; total spend {_fmt(cost.get('total_spend'))}")
            )
            rows.append(
                f"<tr><td>cost per accepted task, {arm_label} (USD, declared prices)</td>"
                f"<td colspan=2>{shown}</td></tr>"
            )
    diff = (card.get("acceptance") or {}).get("difference") or {}
    if diff:
        rows.append(
            "<tr><td>paired difference (candidate - baseline)</td><td colspan=2>"
            f"{_fmt(diff.get('estimate'))} [{_fmt(diff.get('ci_low'))}, {_fmt(diff.get('ci_high'))}], "
            f"n={diff.get('n')}, discordant {diff.get('candidate_only')} vs {diff.get('baseline_only')}, "
            f"p={_fmt(diff.get('p_value'))}</td></tr>"
        )
    quality = card.get("dataset_quality")
    if quality:
        rows.append("<tr><th colspan=3>Dataset quality (curation table 15)</th></tr>")
        rows += [
            f"<tr><td>{html.escape(k)}</td><td colspan=2>{_fmt(v)}</td></tr>" for k, v in quality.items()
        ]
    return (
        "<table border=1 cellpadding=4 style='border-collapse:collapse'>"
        "<tr><th>measurement</th><th>baseline</th><th>candidate</th></tr>" + "".join(rows) + "</table>"
    )


def write_report(scorecard: dict[str, Any], out_dir: Path, context: dict[str, Any] | None = None) -> Path:
    """Write the PNG plots and ``report.html`` into ``out_dir``; returns the HTML path."""
    out_dir.mkdir(parents=True, exist_ok=True)
    context = context or {}
    sections = []
    for filename, title, plotter, from_card in PLOTS:
        if plotter(scorecard if from_card else context, out_dir / filename):
            sections.append(f'<h2>{html.escape(title)}</h2><img src="{filename}" alt="{html.escape(title)}">')
    decision = scorecard.get("decision", "hold")
    reasons = "".join(f"<li>{html.escape(str(r))}</li>" for r in scorecard.get("reasons", []))
    colour = "#2e7d32" if decision == "promote" else "#b26a00"
    body = (
        "<!doctype html><html><head><meta charset='utf-8'><title>trajectory_platform scorecard</title>"
        "<style>body{font-family:sans-serif;max-width:960px;margin:2em auto}img{max-width:100%}"
        "pre{background:#f5f5f5;padding:1em;overflow:auto;font-size:12px}</style></head><body>"
        "<h1>Release scorecard</h1>"
        f"<p style='font-size:1.4em;color:{colour}'>Decision: <b>{html.escape(decision)}</b></p>"
        f"<ul>{reasons}</ul>"
        + _headline(scorecard)
        + "".join(sections)
        + "<h2>Scorecard (JSON)</h2><pre>"
        + html.escape(json.dumps(scorecard, indent=2, sort_keys=True, default=str))
        + "</pre></body></html>"
    )
    path = out_dir / "report.html"
    path.write_text(body, encoding="utf-8")
    return path
