"""A person role-playing an agent loop: right after the model's own call in a text convention (a
ReAct ``Action:``, a Qwen-Agent ``✿FUNCTION✿``, a ``<tool_call>``, Mistral's ``[TOOL_CALLS]``), the
person types the result in that same convention. Such a turn was read as the tool's output
(``inline_markup._answers``: the call's own convention was taken as the loop's evidence).

Generated in chat apps' exports (ChatGPT's ``conversations.json``, Claude.ai's ``chat_messages``),
where a user turn is a person's by what the log is (``text_conventions.typed_by_people``), over each
convention and output. :data:`DEV` is what the rule was developed against, :data:`VALIDATION` was
held out (a case is in one half by a hash of its name). :func:`chat_messages` writes the same
conversation as Chat Completions messages: the record a loop writes, byte for byte (the measurement
behind leaving those logs' reading as it is)."""

from __future__ import annotations

import hashlib
import itertools
from dataclasses import dataclass
from typing import Any

from chatgpt_exports import conversation, text
from user_typed_results import ANSWER, ASK, CALLS, OUTPUTS, REPLIES, reply


@dataclass(frozen=True)
class Case:
    name: str
    file: str
    record: Any
    call: str
    typed: str


def turns(form: str, output: str) -> list[tuple[str, str]]:
    """The question, the model's call in ``form``, the person's result in ``form``, the answer."""
    return [("user", ASK), ("assistant", CALLS[form]), ("user", reply(form, output)), ("assistant", ANSWER)]


def _chatgpt(said: list[tuple[str, str]]) -> Any:
    return [conversation([text(role, words, 1700000000.0 + 60 * i) for i, (role, words) in enumerate(said)])]


def _claude_ai(said: list[tuple[str, str]]) -> Any:
    senders = {"user": "human", "assistant": "assistant"}
    messages = [
        {
            "uuid": f"m{i}",
            "sender": senders[role],
            "text": words,
            "content": [{"type": "text", "text": words}],
            "created_at": f"2025-01-01T00:0{i}:00Z",
        }
        for i, (role, words) in enumerate(said)
    ]
    return [{"uuid": "c1", "name": "Tests", "chat_messages": messages}]


def chat_messages(said: list[tuple[str, str]]) -> Any:
    return {"messages": [{"role": role, "content": words} for role, words in said]}


EXPORTS = {"chatgpt": _chatgpt, "claude-ai": _claude_ai}
CASES = [
    Case(
        f"{app}-{form}-output{out}",
        "conversations.json",
        EXPORTS[app](turns(form, OUTPUTS[out])),
        form,
        reply(form, OUTPUTS[out]),
    )
    for app, form, out in itertools.product(EXPORTS, REPLIES, range(len(OUTPUTS)))
]


def _half(case: Case) -> int:
    return hashlib.sha256(case.name.encode()).digest()[0] % 2


DEV = [c for c in CASES if _half(c) == 0]
VALIDATION = [c for c in CASES if _half(c) == 1]
