"""smolagents: an agent's memory as its steps (``agent.memory.get_full_steps()``, or the steps a
run saved).

A record is the list of steps (or ``{"steps": [...]}``): a system prompt step (``system_prompt``), a
task step (``task``), planning steps (``plan``), action steps and a final answer step
(``output``, ``final_answer`` in older releases). Each action step is one model turn and what came
back:

- the turn: ``model_output`` (``llm_output`` in older releases) as its text, the
  ``tool_calls`` it made (OpenAI's shape or flat ``{"id", "name", "arguments"}``; a CodeAgent's one
  call is ``python_interpreter`` with the code as its arguments), its token counts
  (``token_usage``, or the older ``input_token_count`` / ``output_token_count``) and start time;
- the answer: ``observations`` as one tool event answering the step's call (the calls of a step
  share one observation text, so with several calls it answers none by id); an ``error`` (a
  ``{"type", "message"}`` object, or text) makes it ``error``, its message after the
  observations, as smolagents shows the model the error.

The final answer is the final answer step's output, else the ``action_output`` of the step marked
``is_final_answer``. A step of no kind named here rejects the record with its index. The steps
that recorded what the model was shown (``model_input_messages``) are counted in ``extra_json``.
"""

from __future__ import annotations

from typing import Any

from trajectory_platform.traces.adapters.base import (
    Adapter,
    RawRecord,
    RecordError,
    SourceFile,
    adapter_episode_id,
    expect,
    object_field,
    optional_str,
    timestamp_of,
)
from trajectory_platform.traces.adapters.openai import tool_call_of
from trajectory_platform.traces.record import Episode, Event, canonical_json

TASK_ID_SOURCE = None
OUTPUT_KEYS = ("model_output", "llm_output")
STEP_NUMBER_KEYS = ("step_number", "step")
FINAL_KEYS = ("output", "final_answer")


def is_action_step(step: Any) -> bool:
    return (
        isinstance(step, dict)
        and any(k in step for k in STEP_NUMBER_KEYS)
        and any(k in step for k in OUTPUT_KEYS)
        and "observations" in step
    )


def _steps(sample: Any) -> Any:
    return (
        sample.get("steps")
        if isinstance(sample, dict) and set(sample) <= {"steps", "id", "metadata"}
        else sample
    )


def _text(value: Any) -> str | None:
    """An output as text: a string as it is, anything else (a number, a structure) as JSON."""
    return value if value is None or isinstance(value, str) else canonical_json(value)


class SmolagentsAdapter(Adapter):
    """smolagents memory steps."""

    name = "smolagents"
    task_id_source = TASK_ID_SOURCE
    split_document = False

    def sniff(self, sample: Any, path: Any) -> bool:
        steps = _steps(sample)
        return isinstance(steps, list) and any(is_action_step(s) for s in steps)

    def parse(self, record: RawRecord, src: SourceFile) -> Episode:
        steps = expect(_steps(record.value), list, "steps")
        episode = self.new_episode(record, src, adapter_episode_id(self.name, None, record.value))
        seen_inputs = 0
        for index, raw in enumerate(steps):
            where = f"steps[{index}]"
            step = expect(raw, dict, where)
            seen_inputs += step.get("model_input_messages") is not None
            if is_action_step(step):
                episode.events.extend(self._action(step, where))
                if step.get("is_final_answer") and step.get("action_output") is not None:
                    episode.outcome.final_answer = _text(step["action_output"])
            elif "system_prompt" in step:
                episode.events.append(
                    Event(kind="system", content=optional_str(step["system_prompt"], where))
                )
            elif "task" in step:
                episode.events.append(Event(kind="user", content=optional_str(step["task"], f"{where}.task")))
            elif "plan" in step:
                episode.events.append(
                    Event(kind="assistant", content=optional_str(step["plan"], f"{where}.plan"))
                )
            elif set(step) & set(FINAL_KEYS) and len(step) == 1:
                episode.outcome.final_answer = _text(next(iter(step.values())))
            else:
                raise RecordError(
                    "unknown step", f"{where} is neither a task, a plan, an action nor a final answer"
                )
        episode.task.prompt = next((e.content for e in episode.events if e.kind == "user"), None)
        episode.extra_json = canonical_json({"steps": len(steps), "steps_with_model_input": seen_inputs})
        return episode

    @staticmethod
    def _action(step: dict[str, Any], where: str) -> list[Event]:
        output = next((step[k] for k in OUTPUT_KEYS if step.get(k) is not None), None)
        turn = Event(kind="assistant", content=optional_str(output, f"{where}.model_output"))
        calls = expect(step.get("tool_calls") or [], list, f"{where}.tool_calls")
        turn.tool_calls = [tool_call_of(c, f"{where}.tool_calls[{i}]") for i, c in enumerate(calls)]
        usage = object_field(step, "token_usage")
        turn.input_tokens = usage.get("input_tokens", step.get("input_token_count"))
        turn.output_tokens = usage.get("output_tokens", step.get("output_token_count"))
        start = object_field(step, "timing").get("start_time", step.get("start_time"))
        turn.timestamp = timestamp_of(start, f"{where}.timing.start_time")
        error = step.get("error")
        message = object_field(step, "error").get("message", error) if error is not None else None
        said = [
            t for t in (optional_str(step.get("observations"), f"{where}.observations"),) if t is not None
        ]
        said += [f"Error:\n{_text(message)}"] if message is not None else []
        if not said:
            return [turn]
        answered = turn.tool_calls[0] if len(turn.tool_calls) == 1 else None
        result = Event(
            kind="tool",
            content="\n".join(said),
            tool_call_id=answered.id if answered else None,
            tool_name=answered.name if answered else None,
            status="error" if message is not None else "ok",
        )
        return [turn, result]
