"""What one closed-loop episode measured, read back from its logged trace.

Every measurement is taken from the native :class:`~trajectory_platform.traces.record.Episode` the
runtime wrote (plus the sealed-oracle verdict and the injected faults), never from a policy's own
telemetry, so a scripted stub and a model are scored by exactly the same code:

- **calls** (table 11): every proposed call with the schema set delivered at *that* invocation
  (the delivered-input manifest names the tools version), whether the turn was cut by the output
  limit, whether the runtime refused it as malformed, and whether dispatch returned an error;
- **fabricated observation**: an assistant turn that writes a tool's output itself, as the
  verifier reads it (:func:`~trajectory_platform.curation.verify.fabrication.fabricated_turns`, the
  one rule): a tool result in the wire form (the runtime keeps the ``<|tool|>`` text in the logged
  content and refuses it), or output no tool printed quoted in its text or reasoning (a test
  tally, a command transcript). A scorecard that counted only the wire form would call a policy
  that quotes ``2 passed`` it never ran honest while the verifier refuses its turns as targets;
- **runaway**: an assistant turn that ended without its end token (``finish_reason == "length"``);
- **resources**: turns, generated tokens, delivered input tokens (the runtime's estimate), wall time.
"""

from __future__ import annotations

import json
import re
from collections import defaultdict
from collections.abc import Sequence
from dataclasses import asdict, dataclass, field
from typing import TYPE_CHECKING

from trajectory_platform.curation.verify.fabrication import fabricated_turns
from trajectory_platform.evaluation.calls import ScoredCall

if TYPE_CHECKING:
    from trajectory_platform.gym.runtime import EpisodeResult
    from trajectory_platform.traces.record import Episode, Event


@dataclass
class EpisodeMeasure:
    """The per-episode row behind every aggregate (written to ``episodes.jsonl``)."""

    item_id: str
    fixture_id: str
    suite: str
    regime: str
    seed: int
    task_kind: str
    accepted: bool
    terminal_status: str
    fault_kinds: list[str]
    faults_fired: int
    turns: int
    call_turns: int
    """Assistant turns that act: propose a call, or state an observation (a fabricated one); the
    denominator of ``fabricated_turn_rate``, so that rate stays a share of the turns that could."""
    fabricated_turns: int
    runaway_turns: int
    generated_tokens: int
    input_tokens: int
    wall_s: float
    calls: list[ScoredCall] = field(default_factory=list)

    @property
    def recovered(self) -> bool:
        """Recovery success: every scheduled fault fired and the task was still accepted."""
        return bool(self.fault_kinds) and self.faults_fired >= len(self.fault_kinds) and self.accepted

    def to_dict(self) -> dict:
        """JSON-ready row; calls are summarized by category elsewhere, kept here as raw data."""
        row = asdict(self)
        row["calls"] = [
            {
                "tool": c.tool,
                "arguments": c.arguments,
                "truncated": c.truncated,
                "execution_error": c.execution_error,
                "regime": c.regime,
                **c.metadata,
            }
            for c in self.calls
        ]
        return row


def _json_object(text: str | None) -> dict | None:
    try:
        value = json.loads(text) if text is not None else None
    except json.JSONDecodeError:
        return None
    return value if isinstance(value, dict) else None


def scored_calls(episode: Episode, regime: str) -> list[ScoredCall]:
    """Every call the policy proposed, scored against the schemas delivered at its invocation."""
    schemas: dict[str | None, dict[str, dict]] = defaultdict(dict)
    for spec in episode.tools:
        schemas[spec.version][spec.name] = json.loads(spec.parameters_json or "{}")
    version_of = {d.response_event_index: d.tools_version for d in episode.delivered_inputs}
    results: dict[str | None, Event] = {
        e.tool_call_id: e for e in episode.events if e.kind == "tool" and e.tool_call_id
    }
    malformed = {
        e.tool_call_id
        for e in episode.events
        if e.kind == "refusal" and e.tool_call_id and "malformed tool call" in (e.content or "")
    }
    out: list[ScoredCall] = []
    for index, event in enumerate(episode.events):
        if event.kind != "assistant":
            continue
        active = schemas.get(version_of.get(index), {})
        truncated = (event.finish_reason or "") == "length"
        for call in event.tool_calls:
            result = results.get(call.id)
            out.append(
                ScoredCall(
                    tool=None if call.id in malformed else call.name,
                    arguments=None if call.id in malformed else _json_object(call.arguments),
                    active_schemas=active,
                    truncated=truncated,
                    execution_error=result is not None and result.status == "error",
                    regime=regime,
                    metadata={"call_id": call.id},
                )
            )
    return out


def measure_episode(
    result: EpisodeResult,
    *,
    item_id: str,
    suite: str,
    regime: str,
    seed: int,
    task_kind: str,
    fault_kinds: list[str],
) -> EpisodeMeasure:
    """Score one finished episode (see the module docstring for each quantity)."""
    episode = result.episode
    turns = [e for e in episode.events if e.kind == "assistant"]
    fabricated = fabricated_turns(episode)
    acting = [
        i for i, e in enumerate(episode.events) if e.kind == "assistant" and (e.tool_calls or i in fabricated)
    ]
    return EpisodeMeasure(
        item_id=item_id,
        fixture_id=episode.task.fixture_id or "",
        suite=suite,
        regime=regime,
        seed=seed,
        task_kind=task_kind,
        accepted=bool(result.oracle and result.oracle.passed),
        terminal_status=result.terminal_status,
        fault_kinds=list(fault_kinds),
        faults_fired=len(result.faults),
        turns=len(turns),
        call_turns=len(acting),
        fabricated_turns=len(fabricated),
        runaway_turns=sum(1 for e in turns if (e.finish_reason or "") == "length"),
        generated_tokens=sum(e.output_tokens or 0 for e in turns),
        input_tokens=sum(e.input_tokens or 0 for e in turns),
        wall_s=result.wall_s,
        calls=scored_calls(episode, regime),
    )


_EMPTY_MESSAGE_MARKERS = {
    "conflict_markers": ">>>>>>> feature/refactor",
    "schema_drift": "The tool manifest was updated to",
}


def fault_markers() -> dict[str, str]:
    """Per fault class, the longest literal fragment of the message the gym injects (placeholders
    removed), or a fixed marker for the two classes that change state instead of replying."""
    from trajectory_platform.gym.faults import FAULT_CLASSES

    markers = dict(_EMPTY_MESSAGE_MARKERS)
    for kind, cls in FAULT_CLASSES.items():
        if cls.message:
            literal = cls.message.replace("{{", "").replace("}}", "")
            markers[kind] = max(re.split(r"\{[^}]*\}", literal), key=len).strip()
    return markers


def fault_kinds_seen(episodes: Sequence[Episode]) -> set[str]:
    """Fault classes whose injected observation appears in a training corpus (tool, refusal and
    system events), i.e. the recovery situations the corpus showed the policy."""
    markers = fault_markers()
    texts = [e.content or "" for ep in episodes for e in ep.events if e.kind in ("tool", "refusal", "system")]
    return {kind for kind, marker in markers.items() if any(marker in text for text in texts)}
