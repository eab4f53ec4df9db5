"""LangChain ``AgentExecutor`` results as a deployment logs them with ``return_intermediate_steps``:
``{"input", "chat_history", "output", "intermediate_steps": [[action, observation], ...]}``.

Each step pairs the action the agent chose (``AgentAction``: ``tool``, ``tool_input``, ``log``;
``ToolAgentAction`` / ``OpenAIToolAgentAction`` also ``tool_call_id`` and ``message_log``, the model
messages that chose it) with the tool's output. An action is a plain dict or ``dumpd``'s
``{"lc": 1, "type": "constructor", "id": [..., "AgentAction"], "kwargs"}``. The record was an
``unrecognized format`` reject.

Read: ``chat_history`` (LangChain messages in any serialization) then ``input`` (the user's turn;
a string, else its fields as canonical JSON); per step an assistant turn making the call (the id
the action names, the input as given) and a tool event answering it; consecutive actions chosen by
one model message (the same ``message_log``) are one turn. A turn's text is what the model wrote:
the text of its ``message_log`` message, else, for a ReAct agent, the thought before ``Action:`` in
its ``log``. A tool-calling agent's ``log`` (``Invoking: `tool` with `{...}```) is LangChain's own
words, never the model's, so it is no text. ``output`` is the last assistant turn and the final
answer (the run ``completed``). A step that is not an action and its output, or an action naming no
tool, rejects the record naming its index.
"""

from __future__ import annotations

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
    optional_str,
)
from trajectory_platform.traces.adapters.chat_payloads import event_of, events_of
from trajectory_platform.traces.adapters.content_parts import output_text
from trajectory_platform.traces.adapters.openai import extra_of
from trajectory_platform.traces.adapters.text_conventions import react_call
from trajectory_platform.traces.record import Episode, Event, ToolCall, canonical_json

STEPS = "intermediate_steps"
ACTION_CLASSES = ("AgentAction", "ToolAgentAction", "OpenAIToolAgentAction", "AgentActionMessageLog")
"""LangChain's action classes as ``dumpd`` names them (the last entry of the constructor's id)."""
READ = ("input", "chat_history", "output", STEPS)


def _action(value: Any) -> dict[str, Any] | None:
    """An action's fields (``tool``, ``tool_input``, ...): a plain dict, or ``dumpd``'s constructor."""
    if not isinstance(value, dict):
        return None
    if value.get("lc") == 1 and value.get("type") == "constructor":
        path = value.get("id")
        if (
            isinstance(path, list)
            and path
            and path[-1] in ACTION_CLASSES
            and isinstance(value.get("kwargs"), dict)
        ):
            return value["kwargs"]
        return None
    return value if "tool" in value and "tool_input" in value else None


def _is_step(step: Any) -> bool:
    return isinstance(step, list | tuple) and len(step) == 2 and _action(step[0]) is not None


class LangChainAgentAdapter(Adapter):
    """LangChain ``AgentExecutor`` results with their intermediate steps, one per record."""

    name = "langchain-agent"
    task_id_source = CHAT_TASK_ID_SOURCE

    def claims_record(self, record: dict[str, Any]) -> bool:
        steps = record.get(STEPS)
        return isinstance(steps, list) and bool(steps) and _is_step(steps[0])

    def parse(self, record: RawRecord, src: SourceFile) -> Episode:
        value = expect(record.value, dict, "record")
        episode = self.new_episode(record, src, adapter_episode_id(self.name, None, value))
        episode.task.fixture_id = chat_task_id(value)
        history = expect(value.get("chat_history") or [], list, "chat_history")
        episode.events = [e for i, m in enumerate(history) for e in events_of(m, f"chat_history[{i}]")]
        asked = value.get("input")
        if asked is not None:
            text = asked if isinstance(asked, str) else canonical_json(asked)
            episode.events.append(Event(kind="user", content=text))
            episode.task.prompt = text
        turn_log: Any = None
        for index, step in enumerate(expect(value.get(STEPS), list, STEPS)):
            where = f"{STEPS}[{index}]"
            if not _is_step(step):
                raise RecordError("wrong type", f"{where} is not an [action, observation] pair")
            action = expect(_action(step[0]), dict, f"{where}[0]")
            call = ToolCall(
                id=optional_str(action.get("tool_call_id"), f"{where}[0].tool_call_id"),
                name=optional_str(action.get("tool"), f"{where}[0].tool"),
                arguments=arguments_text(action.get("tool_input")),
            )
            if not call.name:
                raise RecordError("unnamed tool call", f"{where}[0] names no tool")
            message_log = action.get("message_log") or None
            if message_log is not None and message_log == turn_log:  # chosen with the call before
                episode.events[_turn_of(episode)].tool_calls.append(call)
            else:
                episode.events.append(
                    Event(kind="assistant", content=self._text(action, message_log, where), tool_calls=[call])
                )
            turn_log = message_log
            episode.events.append(
                Event(
                    kind="tool",
                    content=output_text(step[1], f"{where}[1]"),
                    tool_call_id=call.id,
                    tool_name=call.name,
                )
            )
        answer = value.get("output")
        if answer is not None:
            text = answer if isinstance(answer, str) else canonical_json(answer)
            episode.events.append(Event(kind="assistant", content=text))
            episode.outcome.final_answer = text
            episode.outcome.terminal_status = "completed"
        episode.extra_json = extra_of(value, READ)
        return episode

    @staticmethod
    def _text(action: dict[str, Any], message_log: Any, where: str) -> str | None:
        """What the model wrote in the turn that chose the action (see the module docstring)."""
        if isinstance(message_log, list) and message_log:
            said = [event_of(m, f"{where}[0].message_log[{i}]").content for i, m in enumerate(message_log)]
            return "\n".join(s for s in said if s) or None
        log = action.get("log")
        react = react_call(log) if isinstance(log, str) else None
        return react[1] if react is not None else None


def _turn_of(episode: Episode) -> int:
    """The index of the assistant turn that made the calls the episode's last results answer."""
    index = len(episode.events) - 1
    while index >= 0 and episode.events[index].kind == "tool":
        index -= 1
    return index
