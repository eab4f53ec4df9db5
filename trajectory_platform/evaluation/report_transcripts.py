"""One HTML page per evaluation task with both models' transcripts, linked from the report.

A number in the report ("acceptance 0.0", "every call truncated") is only believable when a person
can open the trials behind it. Each paired task gets ``transcripts/<nnn>-<task>.html``: the task,
then for the candidate and the baseline the outcome and every turn as the runtime logged it (what
the model wrote, the calls it proposed, what the tools answered, refusals), and the final diff.
Everything is escaped; wall-clock timestamps are left out so the pages repeat byte for byte.
"""

from __future__ import annotations

import html
import re
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from trajectory_platform.evaluation.episodes import EpisodeMeasure
from trajectory_platform.traces.record import Episode, Event

TRANSCRIPTS_DIR = "transcripts"
MAX_EVENT_CHARS = 20_000
"""Longer event text is cut (and says so): a runaway turn should not make a page unreadable."""

_STYLE = (
    "body{font-family:sans-serif;max-width:1100px;margin:2em auto}pre{background:#f5f5f5;padding:.6em;"
    "white-space:pre-wrap;word-break:break-word;font-size:12px;margin:.2em 0}"
    ".event{border-left:4px solid #ccc;padding-left:.6em;margin:.8em 0}.assistant{border-color:#3b7dd8}"
    ".tool{border-color:#6a9f58}.refusal{border-color:#b00020}.kind{font-weight:bold;font-size:.9em}"
    ".note{color:#b26a00}"
)


@dataclass(frozen=True)
class Trial:
    """One arm's run of one evaluation item: its measurement and the episode the runtime logged."""

    arm: str
    measure: EpisodeMeasure
    episode: Episode


@dataclass(frozen=True)
class TranscriptLink:
    """A row of the report's trial index: the paired task and where its page is."""

    item_id: str
    suite: str
    regime: str
    outcomes: dict[str, str]
    """Per arm: "accepted" or the terminal status of a failed trial."""
    href: str


def _text(value: str | None) -> str:
    text = value or ""
    note = ""
    if len(text) > MAX_EVENT_CHARS:
        note = f"<div class=note>[{len(text) - MAX_EVENT_CHARS} more characters not shown]</div>"
        text = text[:MAX_EVENT_CHARS]
    return f"<pre>{html.escape(text)}</pre>{note}" if text else ""


def _event(index: int, event: Event) -> str:
    kind = event.kind
    head = f"#{index} {kind}"
    if kind == "tool":
        head += f" ← {event.tool_name or '?'} ({event.status or 'no status'})"
    if kind == "assistant" and event.finish_reason == "length":
        head += " · cut off at the output limit (no end-of-turn token)"
    calls = "".join(
        f"<div>call <b>{html.escape(call.name or '(unparsed)')}</b>{_text(call.arguments)}</div>"
        for call in event.tool_calls
    )
    css = kind if kind in ("assistant", "tool", "refusal") else ""
    return (
        f"<div class='event {css}'><div class=kind>{html.escape(head)}</div>"
        f"{_text(event.content)}{calls}</div>"
    )


def _outcome(measure: EpisodeMeasure) -> str:
    return "accepted" if measure.accepted else measure.terminal_status


def _arm_section(trial: Trial) -> str:
    m, episode = trial.measure, trial.episode
    facts = (
        f"{_outcome(m)}; {m.turns} turn(s), {m.generated_tokens} generated tokens, "
        f"{m.fabricated_turns} fabricated observation(s), {m.runaway_turns} cut-off turn(s)"
        + (f"; faults injected: {', '.join(m.fault_kinds)} ({m.faults_fired} fired)" if m.fault_kinds else "")
    )
    events = "".join(_event(i, e) for i, e in enumerate(episode.events))
    diff = episode.outcome.workspace_diff
    return f"<h2>{html.escape(trial.arm)}</h2><p>{html.escape(facts)}</p>{events}" + (
        f"<h3>Final workspace diff</h3>{_text(diff)}" if diff else ""
    )


def _slug(item_id: str) -> str:
    return re.sub(r"[^A-Za-z0-9._-]+", "_", item_id).strip("_")[:80]


def write_transcripts(trials: Sequence[Trial], out_dir: Path) -> list[TranscriptLink]:
    """Write a page per evaluation item under ``out_dir/transcripts/``; the links, in item order."""
    by_item: dict[str, list[Trial]] = {}
    for trial in trials:
        by_item.setdefault(trial.measure.item_id, []).append(trial)
    folder = out_dir / TRANSCRIPTS_DIR
    folder.mkdir(parents=True, exist_ok=True)
    links = []
    for number, (item_id, arms) in enumerate(by_item.items(), 1):
        arms = sorted(arms, key=lambda t: (t.arm != "candidate", t.arm))
        first = arms[0].measure
        href = f"{TRANSCRIPTS_DIR}/{number:03d}-{_slug(item_id)}.html"
        prompt = arms[0].episode.task.prompt
        page = (
            f"<!doctype html><html><head><meta charset='utf-8'><title>{html.escape(item_id)}</title>"
            f"<style>{_STYLE}</style></head><body><p><a href='../report.html'>back to the report</a></p>"
            f"<h1>{html.escape(item_id)}</h1><p>suite {html.escape(first.suite)}, schema kind "
            f"{html.escape(first.regime)}, task kind {html.escape(first.task_kind)}, seed {first.seed}</p>"
            + (f"<h3>Task</h3>{_text(prompt)}" if prompt else "")
            + "".join(_arm_section(t) for t in arms)
            + "</body></html>"
        )
        (out_dir / href).write_text(page, encoding="utf-8")
        links.append(
            TranscriptLink(
                item_id, first.suite, first.regime, {t.arm: _outcome(t.measure) for t in arms}, href
            )
        )
    return links
