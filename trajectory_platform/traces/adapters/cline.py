"""Cline (and Roo Code) task folders: ``tasks/<task id>/api_conversation_history.json`` beside
``ui_messages.json`` and ``task_metadata.json``.

A record is one task: the history file, a Messages-API message list (Anthropic-shaped: text blocks,
and ``tool_use`` / ``tool_result`` blocks in versions that call tools natively). Older and most
logged versions write each call as XML in the assistant's text, named after the tool
(``<read_file><path>a.py</path></read_file>``), with ``<thinking>`` before it: the shared lifter
(``inline_markup.py``) reads those into calls and reasoning, told Cline's tool names
(:data:`CLINE_TOOLS`) since the history does not carry the system prompt that declares them. A
result comes back as a user message whose first text opens ``[read_file for 'a.py'] Result:``:
it becomes a tool event named after the tool, the ``<environment_details>`` the extension appends
a user event after it (the model saw it).

The two companion files are read with the history, not as records of their own: the model is the
last ``model_usage`` entry of ``task_metadata.json``, the final answer the last
``completion_result`` of ``ui_messages.json``. Ingest counts such a file as read with the history
(``RawRecord.read_with``) while the same run reads the history; a companion given without its
history is a ``companion not ingested`` reject naming the file it belongs with, never a file that
yields nothing. A companion that cannot be read is named in
``extra_json.companions_unreadable``; the history alone still makes the episode. The task id is the
folder's name (Cline names it by its start time); the format records no fixture: a
``task_ids.json`` names it.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from trajectory_platform.traces.adapters.anthropic import events_of_message
from trajectory_platform.traces.adapters.base import (
    Adapter,
    RawRecord,
    RecordError,
    SourceFile,
    expect,
    name_tool_results,
)
from trajectory_platform.traces.adapters.openai import is_message_list
from trajectory_platform.traces.record import Episode, Event, canonical_json

HISTORY = "api_conversation_history.json"
METADATA = "task_metadata.json"
UI_MESSAGES = "ui_messages.json"
COMPANIONS = (METADATA, UI_MESSAGES)
NOT_INGESTED = "companion not ingested"
"""The reject of a companion file given to a run that does not read its history."""
CLINE_TOOLS = frozenset(
    {
        # Cline
        "execute_command",
        "read_file",
        "write_to_file",
        "replace_in_file",
        "search_files",
        "list_files",
        "list_code_definition_names",
        "browser_action",
        "use_mcp_tool",
        "access_mcp_resource",
        "ask_followup_question",
        "plan_mode_respond",
        "attempt_completion",
        "new_task",
        "load_mcp_documentation",
        "web_fetch",
        "condense",
        "summarize_task",
        "report_bug",
        "new_rule",
        # Roo Code
        "apply_diff",
        "insert_content",
        "search_and_replace",
        "switch_mode",
        "fetch_instructions",
        "codebase_search",
        "update_todo_list",
    }
)
"""The tools Cline's and Roo Code's system prompts declare, whose XML elements are calls."""

_RESULT_HEADER = re.compile(r"\A\[([a-z_]+)(?: for '.*?')?\] Result:[ \t]*\n?", re.DOTALL)
_ENVIRONMENT = "<environment_details>"
_TASK = re.compile(r"<task>\n?(.*?)\n?</task>", re.DOTALL)


def _texts(content: Any) -> list[str] | None:
    """A message's blocks as texts when every one is a text block, else ``None``."""
    if not isinstance(content, list) or not all(
        isinstance(b, dict) and b.get("type") == "text" and isinstance(b.get("text"), str) for b in content
    ):
        return None
    return [b["text"] for b in content]


def _tool_result(texts: list[str]) -> list[Event] | None:
    """A user message answering an XML call: its tool event, then its environment details."""
    header = _RESULT_HEADER.match(texts[0]) if texts else None
    if header is None:
        return None
    body = [texts[0][header.end() :], *texts[1:]]
    result = [t for t in body if t.strip() and not t.lstrip().startswith(_ENVIRONMENT)]
    context = [t for t in body if t.lstrip().startswith(_ENVIRONMENT)]
    events = [Event(kind="tool", content="\n".join(result), tool_name=header.group(1))]
    if context:
        events.append(Event(kind="user", content="\n".join(context)))
    return events


def _companion(folder: Path, name: str, unreadable: list[str]) -> Any:
    """A companion file's JSON, ``None`` when absent; one that cannot be read is listed."""
    path = folder / name
    if not path.is_file():
        return None
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, ValueError, RecursionError):
        unreadable.append(name)
        return None


class ClineAdapter(Adapter):
    """A Cline / Roo Code task folder, read from its ``api_conversation_history.json``."""

    name = "cline"
    markup_tools = CLINE_TOOLS

    def sniff(self, sample: Any, path: Path) -> bool:
        """The history file by its name (holding a message list), and its companions beside one."""
        if path.name == HISTORY:
            return is_message_list(sample)
        return path.name in COMPANIONS and (path.parent / HISTORY).is_file()

    def frame(self, src: SourceFile) -> Iterator[RawRecord]:
        """The history is one record; a companion none while the run reads its history (it is read
        with it), else one reject saying so."""
        if src.path.name != HISTORY:
            if src.in_run(src.path.parent / HISTORY):
                yield RawRecord(None, "$", read_with=src.companion_display(HISTORY))
            else:
                detail = f"{src.path.name} is read with the {HISTORY} beside it, which this run does not read"
                yield RawRecord(None, "$", error=RecordError(NOT_INGESTED, detail), excerpt=src.fingerprint())
            return
        document, error = src.document
        if error is not None:
            yield RawRecord(None, "$", error=error, excerpt=src.fingerprint())
        else:
            yield RawRecord(None, "$", value=document)

    def parse(self, record: RawRecord, src: SourceFile) -> Episode:
        messages = expect(record.value, list, "record")
        folder = Path(src.path).parent
        episode = self.new_episode(record, src, f"{self.name}:{folder.name}")
        for index, message in enumerate(messages):
            where = f"[{index}]"
            expect(message, dict, where)
            texts = _texts(message.get("content")) if message.get("role") == "user" else None
            result = _tool_result(texts) if texts else None
            episode.events.extend(result if result is not None else events_of_message(message, where))
        first = next((e for e in episode.events if e.kind == "user"), None)
        task = _TASK.search(first.content or "") if first is not None else None
        episode.task.prompt = task.group(1) if task else first.content if first else None
        unreadable: list[str] = []
        self._companions(folder, episode, unreadable)
        name_tool_results(episode.events)
        extra: dict[str, Any] = {"task_folder": folder.name}
        if unreadable:
            extra["companions_unreadable"] = unreadable
        episode.extra_json = canonical_json(extra)
        return episode

    @staticmethod
    def _companions(folder: Path, episode: Episode, unreadable: list[str]) -> None:
        """The model (``task_metadata.json``) and the final answer (``ui_messages.json``)."""
        metadata = _companion(folder, METADATA, unreadable)
        usage = metadata.get("model_usage") if isinstance(metadata, dict) else None
        models = [
            u["model_id"] for u in usage or [] if isinstance(u, dict) and isinstance(u.get("model_id"), str)
        ]
        episode.lineage.model = models[-1] if models else None
        ui = _companion(folder, UI_MESSAGES, unreadable)
        answers = [
            m["text"]
            for m in (ui if isinstance(ui, list) else [])
            if isinstance(m, dict) and m.get("say") == "completion_result" and isinstance(m.get("text"), str)
        ]
        if answers:
            episode.outcome.final_answer = answers[-1]
