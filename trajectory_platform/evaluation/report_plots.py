"""The report's plots: each draws a figure from the scorecard (or the pipeline context) or says why
it cannot.

A plotter returns a figure, or a sentence a person reads instead of an empty chart. Values are
written on the bars, so a rate of 0 is a visible "0.00" rather than no bar at all, and a missing
arm is marked "no data" where its bar would be. Tick labels are wrapped, never overlapped.
"""

from __future__ import annotations

import textwrap
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402  (backend must be chosen first)
from matplotlib.axes import Axes  # noqa: E402
from matplotlib.figure import Figure  # noqa: E402

from trajectory_platform.evaluation.report_glossary import CALL_CATEGORIES, SCHEMA_REGIMES  # noqa: E402

ARMS = ("baseline", "candidate")
ARM_COLOURS = {"baseline": "#999999", "candidate": "#3b7dd8"}
_PNG_META: dict[str, str | None] = {"Software": None}
_NO_DATA = "no data"

Drawn = Figure | str
"""A figure to save, or the sentence that replaces it."""


def save(fig: Figure, path: Path) -> None:
    """Write ``fig`` as a PNG whose bytes depend only on what was drawn (no software stamp)."""
    fig.savefig(path, dpi=90, metadata=_PNG_META, bbox_inches="tight")
    plt.close(fig)


def _wrapped(label: str, width: int = 12) -> str:
    return "\n".join(textwrap.wrap(label.replace("_", " "), width)) or label


def _bar_values(ax: Axes, xs: list[float], values: list[float | None], width: float, colour: str) -> None:
    """Bars with their value on top; a missing value is marked where the bar would be."""
    for x, value in zip(xs, values, strict=True):
        if value is None:
            ax.text(x, 0.02, _NO_DATA, ha="center", va="bottom", fontsize=7, rotation=90, color="#777777")
            continue
        ax.bar([x], [value], width, color=colour)
        ax.text(x, value + 0.02, f"{value:.2f}", ha="center", va="bottom", fontsize=7)


def plot_acceptance(card: Mapping[str, Any]) -> Drawn:
    acc = card.get("acceptance") or {}
    if acc.get("candidate") is None or acc.get("baseline") is None:
        return "No acceptance trials were scored for both models, so there is nothing to compare."
    diff = acc.get("difference") or {}
    fig, axes = plt.subplots(1, 2 if diff.get("estimate") is not None else 1, figsize=(8, 3), squeeze=False)
    left = axes[0][0]
    for index, arm in enumerate(ARMS):
        _bar_values(left, [index], [acc[arm]], 0.6, ARM_COLOURS[arm])
    left.set_xticks(range(len(ARMS)), list(ARMS))
    left.set_xlim(-0.6, len(ARMS) - 0.4)
    left.set_ylim(0, 1.1)
    left.set_ylabel("share of tasks solved")
    left.set_title(f"Acceptance (n={card.get('n')} paired tasks)")
    if diff.get("estimate") is not None:
        right = axes[0][1]
        est = diff["estimate"]
        low, high = diff.get("ci_low", est), diff.get("ci_high", est)
        right.errorbar([0], [est], yerr=[[est - low], [high - est]], fmt="o", capsize=6, color="#3b7dd8")
        right.axhline(0, color="black", linewidth=0.8)
        margin = ((card.get("gate") or {}).get("rule") or {}).get("min_acceptance_ci_low")
        if margin:  # the line the whole interval must clear, when it is not 0
            right.axhline(margin, color="#b26a00", linestyle="--", linewidth=0.8, label="declared margin")
            right.legend(fontsize=7, loc="upper right")
        right.set_ylim(min(-0.1, low - 0.05, margin or 0.0), max(0.1, high + 0.05, (margin or 0.0) + 0.05))
        right.set_xticks([0], ["candidate - baseline"])
        right.set_title(f"Difference with {1 - diff.get('alpha', 0.05):.0%} interval")
    fig.tight_layout()
    return fig


def plot_call_validity(card: Mapping[str, Any]) -> Drawn:
    validity = card.get("call_validity") or {}
    measured = {
        a: validity[a] for a in ARMS if isinstance(validity.get(a), dict) and validity[a].get("total")
    }
    if not measured:
        return (
            "Neither model proposed a tool call, so there are no calls to classify: open the trial "
            "transcripts below to see what the models wrote instead."
        )
    categories = list(CALL_CATEGORIES)
    fig, ax = plt.subplots(figsize=(8, 2.6))
    for row, arm in enumerate(ARMS):
        if arm not in measured:
            ax.text(0.01, row, "no tool calls proposed", va="center", fontsize=8, color="#777777")
            continue
        left = 0.0
        for colour_index, category in enumerate(categories):
            value = measured[arm]["rates"].get(category) or 0.0
            ax.barh([row], [value], 0.6, left=left, color=f"C{colour_index}")
            left += value
    totals = {a: (measured.get(a) or {}).get("total", 0) for a in ARMS}
    ax.set_yticks(range(len(ARMS)), [f"{a}\n({totals[a]} calls)" for a in ARMS])
    ax.set_xlim(0, 1)
    ax.set_ylim(-0.6, len(ARMS) - 0.4)
    ax.set_xlabel("share of the model's tool calls")
    handles = [plt.Rectangle((0, 0), 1, 1, color=f"C{i}") for i in range(len(categories))]
    ax.legend(
        handles,
        [CALL_CATEGORIES[c].label for c in categories],
        fontsize=7,
        ncol=3,
        loc="upper center",
        bbox_to_anchor=(0.5, -0.35),
    )
    ax.set_title("Tool calls by outcome")
    return fig


def plot_schema_regimes(card: Mapping[str, Any]) -> Drawn:
    panels = [(name, card.get(name) or {}) for name in ("sfa", "pre")]
    regimes = [r for r in SCHEMA_REGIMES if any(r in (m.get(a) or {}) for _, m in panels for a in ARMS)]
    if not regimes:
        return (
            "No tool call of either model could be scored against a schema, so SFA and PRE have no "
            "data: a model that proposes no parseable call has nothing to measure."
        )
    fig, axes = plt.subplots(1, 2, figsize=(9, 3.2))
    width = 0.38
    for ax, (name, measure) in zip(axes, panels, strict=True):
        for offset, arm in ((-width / 2, "baseline"), (width / 2, "candidate")):
            values = [(measure.get(arm) or {}).get(r) for r in regimes]
            _bar_values(ax, [i + offset for i in range(len(regimes))], values, width, ARM_COLOURS[arm])
        ax.set_xticks(range(len(regimes)), [_wrapped(r) for r in regimes], fontsize=8)
        ax.set_xlim(-0.6, len(regimes) - 0.4)  # room for a "no data" mark at either end
        ax.set_ylim(0, 1.15)
        ax.set_title(f"{name.upper()} by schema kind ({'higher' if name == 'sfa' else 'lower'} is better)")
    axes[0].legend(
        [plt.Rectangle((0, 0), 1, 1, color=ARM_COLOURS[a]) for a in ARMS],
        list(ARMS),
        fontsize=7,
        loc="upper right",
    )
    fig.tight_layout()
    return fig


CASCADE_ORDER = (
    "attempts",
    "passed_syntactic",
    "passed_static",
    "passed_dynamic",
    "passed_delta",
    "passed_advisory",
)
"""Funnel rows in cascade order; stored funnels arrive key-sorted (canonical JSON)."""


def plot_funnel(context: Mapping[str, Any]) -> Drawn:
    funnel = context.get("funnel")
    if not funnel:
        return (
            "The curation stages' figures were not handed to this evaluation (it ran outside the "
            "pipeline, e.g. through the evaluate command), so the funnel is unknown here."
        )
    rank = {name: i for i, name in enumerate(CASCADE_ORDER)}
    names = sorted(funnel, key=lambda n: (rank.get(n, len(rank)), -funnel[n], n))
    fig, ax = plt.subplots(figsize=(8, 3))
    ax.barh(names[::-1], [funnel[n] for n in names][::-1], color="#6a9f58")
    for row, name in enumerate(names[::-1]):
        ax.text(funnel[name], row, f" {funnel[name]}", va="center", fontsize=7)
    ax.set_xlabel("episodes")
    ax.set_title("Curation funnel (episodes left after each verifier stage)")
    fig.tight_layout()
    return fig


def plot_mixture(context: Mapping[str, Any]) -> Drawn:
    mixture = context.get("mixture_token_shares")
    if not mixture:
        return (
            "The training mixture was not handed to this evaluation (it ran outside the pipeline), "
            "so its token shares are unknown here."
        )
    fig, ax = plt.subplots(figsize=(5, 3))
    names = list(mixture)
    _bar_values(ax, list(range(len(names))), [mixture[n] for n in names], 0.6, "#d8863b")
    ax.set_xticks(range(len(names)), [_wrapped(n) for n in names])
    ax.set_xlim(-0.6, len(names) - 0.4)
    ax.set_ylim(0, 1.1)
    ax.set_ylabel("share of trained tokens")
    ax.set_title("Training mixture by role")
    fig.tight_layout()
    return fig


def plot_loss(context: Mapping[str, Any]) -> Drawn:
    curves = {name: points for name, points in (context.get("loss_curves") or {}).items() if points}
    if not curves:
        return (
            "The candidate's training manifest records no loss values (for example an incumbent "
            "checkpoint evaluated on its own), so there is no curve to draw."
        )
    fig, ax = plt.subplots(figsize=(6, 3))
    for name, points in sorted(curves.items()):
        steps, values = zip(*points, strict=True)
        ax.plot(steps, values, marker="." if len(points) < 30 else None, label=name)
    ax.set_xlabel("training step")
    ax.set_ylabel("loss on trained tokens")
    ax.legend(fontsize=7)
    ax.set_title("Training loss")
    fig.tight_layout()
    return fig


@dataclass(frozen=True)
class Plot:
    """One section of the report: its file, title, what it shows, and how it is drawn."""

    filename: str
    title: str
    meaning: str
    draw: Callable[[Mapping[str, Any]], Drawn]
    reads_scorecard: bool
    """True: drawn from the scorecard; False: from the pipeline context."""


PLOTS: tuple[Plot, ...] = (
    Plot(
        "acceptance.png",
        "Acceptance with paired interval",
        "Left: share of held-out tasks each model solved. Right: the candidate's gain over the "
        "baseline on the same tasks with its 95% interval; a gain is established only when the whole "
        "interval lies above the declared margin (0 by default).",
        plot_acceptance,
        True,
    ),
    Plot(
        "call_validity.png",
        "Tool-call validity",
        "Every tool call each model proposed, split by what went wrong; each cause points at a "
        "different fix (template, schema coverage, tool inventory, output limit, or the tool).",
        plot_call_validity,
        True,
    ),
    Plot(
        "schema_regimes.png",
        "SFA / PRE by schema kind",
        "Schema-following accuracy (SFA: calls that fit the schema shown) and parametric recall error "
        "(PRE: calls using a memorized argument name the schema lacks), on schemas as in training, "
        "with renamed arguments, and on a tool family training never showed.",
        plot_schema_regimes,
        True,
    ),
    Plot(
        "funnel.png",
        "Curation funnel",
        "How many logged episodes survived each verifier stage on the way into the training data.",
        plot_funnel,
        False,
    ),
    Plot(
        "mixture.png",
        "Training mixture",
        "Share of trained tokens by trajectory role: pristine (solved cleanly) and recovery (solved "
        "after an error).",
        plot_mixture,
        False,
    ),
    Plot(
        "loss.png",
        "Training loss",
        "Loss on the trained (target) tokens during training, and on held-out validation data when "
        "recorded. A falling loss shows the optimizer worked; only the acceptance above shows the "
        "model got better at the tasks.",
        plot_loss,
        False,
    ),
)
