"""Logged calls whose parts a logger stored as JSON text: ``"messages": "[{\\"role\\": ...}]"``.

Loggers that write to a database column of type text (LiteLLM's spend logs, many a team's own
table) serialize the conversation, the response and the metadata as JSON strings inside the JSON
record. Read as they stand, the record holds no list of messages, so no format claims it, and the
task id in the metadata text is never seen. :func:`parsed_json_text` gives the record with those
strings parsed, so ``chat-log`` finds the call as it finds any other
(:mod:`~trajectory_platform.traces.adapters.chat_envelope`).

Only the record's own fields are parsed (a database row's text columns), and only when they hold
what the envelope reader looks for:
text that parses to a list of role messages or Responses items (or an object holding one), to a
Chat Completions response or assistant message, or, under ``metadata`` / ``properties``, to an
object (where a task or run id is read).
Any other string stays text: a message's content or a tool's arguments that happen to be JSON are
data the model saw as text, and parsing them would change what it saw. Text deeper in the record is
an agent framework's own event (a Bedrock Agents trace keeps the model's input as JSON text in each
orchestration step): read as a call, the framework's other steps would be left out, so it is left to
that framework's reader.
"""

from __future__ import annotations

import json
from typing import Any

from trajectory_platform.traces.adapters.base import RecordError, parse_json
from trajectory_platform.traces.adapters.chat_envelope import RUN_SCOPES, locate
from trajectory_platform.traces.adapters.openai import chat_response

SCOPE_KEYS = frozenset({"metadata", *RUN_SCOPES})
"""Fields whose JSON text object is parsed for the ids read from it (task, run)."""


def _parsed(key: str, text: str) -> Any:
    """``text`` parsed when it is JSON text of what the envelope reader looks for, else None."""
    stripped = text.lstrip()
    if not stripped.startswith(("[", "{")):
        return None
    try:
        value = parse_json(text)
    except (json.JSONDecodeError, RecordError):
        return None
    holds_call = locate({key: value}) is not None or chat_response(key, value) is not None
    return value if holds_call or (isinstance(value, dict) and key in SCOPE_KEYS) else None


def parsed_json_text(record: dict[str, Any]) -> dict[str, Any]:
    """``record`` with its top-level JSON-text conversation, response and metadata parsed (a new
    object; the record itself is left as it is); the record itself when it holds none."""
    changed = {}
    for key, value in record.items():
        parsed = _parsed(str(key), value) if isinstance(value, str) else None
        if parsed is not None:
            changed[key] = parsed
    return {**record, **changed} if changed else record
