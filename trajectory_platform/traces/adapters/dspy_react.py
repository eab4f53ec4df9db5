"""DSPy ``ReAct`` runs: the prediction a ``dspy.ReAct`` module returns, as a program logs it.

``dspy.ReAct`` keeps its loop in a ``trajectory`` dict, one numbered group of keys per step:
``thought_<i>`` (what the model reasoned), ``tool_name_<i>`` and ``tool_args_<i>`` (the call it
chose), ``observation_<i>`` (what the tool returned, or ``Execution error in <tool>: ...``). The
loop ends on the ``finish`` tool; an extract step then predicts the signature's output fields
(``reasoning`` and, say, ``answer``) from the trajectory. A logged run is the prediction's fields,
with the example's input fields first where the program merged them in: ``{"question": ...,
"trajectory": {...}, "reasoning": ..., "answer": ...}``, one a line, an array, or a document.

Read: the fields written before ``trajectory`` are the inputs, one user event (``field: value``
lines, or the value alone for one field); each step an assistant event (its thought the
reasoning, its call without id: DSPy gives none) and the tool event answering it (an execution
error is an ``error`` result); the fields after ``trajectory`` are the extract step's answer: a
last assistant event (``reasoning`` its reasoning, the other fields its text, as the input) and the
final answer; the run ``completed`` when it called ``finish``. Why the order decides inputs from
outputs: the signature that says which is which is not logged, and DSPy builds the prediction
``trajectory`` first, then the outputs, while a program that logs the inputs writes them before.
A trajectory key outside the four kinds, or a step without a tool name, rejects the record naming it.
"""

from __future__ import annotations

import re
from typing import Any

from trajectory_platform.traces.adapters.base import (
    CHAT_TASK_ID_SOURCE,
    Adapter,
    RawRecord,
    RecordError,
    SourceFile,
    adapter_episode_id,
    arguments_text,
    chat_task_id,
    expect,
)
from trajectory_platform.traces.drops import named, path_of
from trajectory_platform.traces.record import Episode, Event, ToolCall, canonical_json

TRAJECTORY = "trajectory"
STEP_KEY = re.compile(r"(thought|tool_name|tool_args|observation)_(\d+)")
FINISH = "finish"
REASONING = "reasoning"
EXECUTION_ERROR = "Execution error in "
"""How ``dspy.ReAct`` words a tool that raised, as the observation the model is shown."""
NOT_FIELDS = frozenset({"metadata", "id"})
"""Fields of a logged run that are no input or output of the signature."""


def _is_trajectory(value: Any) -> bool:
    """A ``trajectory`` dict naming a step's tool (``tool_name_0``); a key of another kind in it is
    then a reject naming that key (:meth:`DSPyReActAdapter._steps`), not an unrecognized file."""
    return isinstance(value, dict) and any(
        isinstance(k, str) and (match := STEP_KEY.fullmatch(k)) is not None and match.group(1) == "tool_name"
        for k in value
    )


def _said(fields: dict[str, Any]) -> str | None:
    """Signature fields as one message: the value alone for one field, else ``name: value`` lines."""
    texts = {k: v if isinstance(v, str) else canonical_json(v) for k, v in fields.items()}
    if not texts:
        return None
    if len(texts) == 1:
        return next(iter(texts.values()))
    return "\n".join(f"{k}: {v}" for k, v in texts.items())


class DSPyReActAdapter(Adapter):
    """A ``dspy.ReAct`` prediction (with its inputs) per record."""

    name = "dspy-react"
    task_id_source = CHAT_TASK_ID_SOURCE

    def claims_record(self, record: dict[str, Any]) -> bool:
        return _is_trajectory(record.get(TRAJECTORY))

    def parse(self, record: RawRecord, src: SourceFile) -> Episode:
        value = expect(record.value, dict, "record")
        episode = self.new_episode(record, src, adapter_episode_id(self.name, value.get("id"), value))
        keys = [k for k in value if k not in NOT_FIELDS]
        at = keys.index(TRAJECTORY)
        inputs = {k: value[k] for k in keys[:at]}
        outputs = {k: value[k] for k in keys[at + 1 :]}
        events: list[Event] = []
        prompt = _said(inputs)
        if prompt is not None:
            events.append(Event(kind="user", content=prompt))
        finished = False
        for number, step in self._steps(expect(value[TRAJECTORY], dict, TRAJECTORY)):
            where = f"{TRAJECTORY}.tool_name_{number}"
            name = step.get("tool_name")
            if not isinstance(name, str):
                raise RecordError(
                    "unnamed tool call", f"{where} is {named(name)}: step {number} names no tool"
                )
            thought = step.get("thought")
            call = ToolCall(id=None, name=name, arguments=arguments_text(step.get("tool_args")))
            events.append(
                Event(
                    kind="assistant",
                    reasoning=thought if isinstance(thought, str) else None,
                    tool_calls=[call],
                )
            )
            finished = finished or name == FINISH
            if "observation" in step:
                seen = step["observation"]
                text = seen if isinstance(seen, str) or seen is None else canonical_json(seen)
                failed = isinstance(text, str) and text.startswith(EXECUTION_ERROR)
                status = "error" if failed else "ok"
                events.append(Event(kind="tool", content=text, tool_name=name, status=status))
        answer = _said({k: v for k, v in outputs.items() if k != REASONING})
        reasoning = outputs.get(REASONING)
        if answer is not None or isinstance(reasoning, str):
            events.append(
                Event(
                    kind="assistant",
                    content=answer,
                    reasoning=reasoning if isinstance(reasoning, str) else None,
                )
            )
        episode.events = events
        episode.task.prompt = prompt
        episode.task.fixture_id = chat_task_id(value)
        episode.outcome.final_answer = answer
        episode.outcome.terminal_status = "completed" if finished else None
        extra = {k: value[k] for k in NOT_FIELDS if k in value and k != "id"}
        episode.extra_json = canonical_json({"inputs": list(inputs), "outputs": list(outputs), **extra})
        return episode

    @staticmethod
    def _steps(trajectory: dict[str, Any]) -> list[tuple[int, dict[str, Any]]]:
        """The trajectory's steps in order, each ``{"thought", "tool_name", "tool_args", "observation"}``
        as far as logged; a key of another kind rejects the record naming it."""
        steps: dict[int, dict[str, Any]] = {}
        for key, item in trajectory.items():
            match = STEP_KEY.fullmatch(key)
            if match is None:
                raise RecordError(
                    "unknown trajectory key",
                    f"{TRAJECTORY}.{path_of([key])} is no thought, tool name, tool arguments or observation",
                )
            steps.setdefault(int(match.group(2)), {})[match.group(1)] = item
        return sorted(steps.items())
