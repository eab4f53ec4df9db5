"""Text completion calls whose prompt is a chat template's text: what a local inference server logs
when the caller applied the template itself (llama.cpp's ``/completion``, Ollama's ``/api/generate``
with ``raw``, TGI's ``/generate``, a ``/v1/completions`` call to vLLM).

The conversation is there, only written as one string in the model's own template
(``<|im_start|>user\\n...<|im_end|>``), and the answer is the completion that continues the open
assistant turn at its end. The prompt is split back into messages by the template that writes it
(:data:`TEMPLATES`: ChatML, Llama 3, Gemma, Phi-3), the completion appended as the assistant's
answer, and the whole read as ``openai`` messages are; tool calls and results the template writes
as markup (``<tool_call>``, ``<tool_response>``) are then lifted as every format's are
(:mod:`~trajectory_platform.traces.adapters.inline_markup`).

Nothing is guessed: a prompt is split only when one template accounts for all of it, turn by
turn, ending in an open assistant turn; a prompt with a template's marks that no template reads
whole is an ``unknown chat template`` reject naming the templates tried, never text put in the
wrong mouth. A prompt without any template's marks (a base model's plain text) is no conversation
and is not claimed.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from trajectory_platform.traces.adapters.base import (
    Adapter,
    RawRecord,
    RecordError,
    SourceFile,
    adapter_episode_id,
    delivered_input,
    expect,
    object_field,
    optional_str,
)
from trajectory_platform.traces.adapters.openai import OpenAIAdapter
from trajectory_platform.traces.record import Episode, canonical_json

TEXT_COMPLETION = "text-completion"


@dataclass(frozen=True)
class Template:
    """How a chat template writes a turn: a header naming the role, the turn's text, its end mark;
    and how it leaves the assistant's turn open for the completion."""

    name: str
    mark: str
    """A token only this template writes (what claims a prompt for it)."""
    turn: re.Pattern[str]
    """One whole turn: its role (group ``role``) and text (group ``text``)."""
    open_answer: re.Pattern[str]
    """The open assistant turn that ends the prompt."""
    prefix: str = ""
    """A mark the template may write once before the first turn (a beginning-of-text token)."""


TEMPLATES = (
    Template(
        "ChatML",
        "<|im_start|>",
        re.compile(r"<\|im_start\|>(?P<role>[a-z_]+)\n(?P<text>.*?)<\|im_end\|>\s*", re.S),
        re.compile(r"<\|im_start\|>assistant\n?$"),
    ),
    Template(
        "Llama 3",
        "<|start_header_id|>",
        re.compile(
            r"<\|start_header_id\|>(?P<role>[a-z_]+)<\|end_header_id\|>\n\n(?P<text>.*?)<\|(?:eot|eom)_id\|>\s*",
            re.S,
        ),
        re.compile(r"<\|start_header_id\|>assistant<\|end_header_id\|>\s*$"),
        "<|begin_of_text|>",
    ),
    Template(
        "Gemma",
        "<start_of_turn>",
        re.compile(r"<start_of_turn>(?P<role>[a-z_]+)\n(?P<text>.*?)<end_of_turn>\s*", re.S),
        re.compile(r"<start_of_turn>model\n?$"),
        "<bos>",
    ),
    Template(
        "Phi-3",
        "<|end|>",
        re.compile(r"<\|(?P<role>system|user|assistant)\|>\n(?P<text>.*?)<\|end\|>\s*", re.S),
        re.compile(r"<\|assistant\|>\n?$"),
    ),
)
"""The chat templates a prompt is split by, each recognized by a mark only it writes."""
ROLES = {"system": "system", "user": "user", "assistant": "assistant", "model": "assistant", "tool": "tool"}
"""Template role names as chat roles (Gemma's ``model`` is the assistant). Llama 3's ``ipython``
(a tool's output) is left out: its turns name no call, so a template naming it is not read."""

PROMPT_KEYS = ("prompt", "inputs")
"""Where a completion call keeps its prompt text (llama.cpp, Ollama, vLLM; TGI)."""
FINISH_KEYS = ("finish_reason", "stop_type", "done_reason")
INPUT_TOKEN_KEYS = ("tokens_evaluated", "prompt_eval_count", "prompt_tokens")
OUTPUT_TOKEN_KEYS = ("tokens_predicted", "eval_count", "completion_tokens")
"""How the servers say why the completion stopped and what it cost (in the call or its ``usage``)."""


def prompt_text(record: dict[str, Any]) -> str | None:
    """The prompt a completion call was given, when it is text holding a known template's mark."""
    prompt = next((record[k] for k in PROMPT_KEYS if isinstance(record.get(k), str)), None)
    return prompt if prompt is not None and any(t.mark in prompt for t in TEMPLATES) else None


def completion_of(record: dict[str, Any]) -> str | None:
    """The text the call completed the prompt with: llama.cpp's ``content``, Ollama's ``response``,
    TGI's ``generated_text``, a ``/v1/completions`` response's first choice ``text``."""
    for key in ("content", "response", "generated_text", "completion"):
        if isinstance(record.get(key), str):
            return str(record[key])
    choices = record.get("choices")
    if isinstance(choices, list) and choices and isinstance(choices[0], dict):
        text = choices[0].get("text")
        return text if isinstance(text, str) else None
    return None


def split_prompt(prompt: str) -> tuple[str, list[dict[str, str]]] | None:
    """``prompt`` as (template name, messages) by the one template that reads all of it, turn by turn,
    ending in an open assistant turn; None when none does."""
    for template in TEMPLATES:
        if template.mark not in prompt:
            continue
        text = prompt.lstrip()
        text = text[len(template.prefix) :] if template.prefix and text.startswith(template.prefix) else text
        messages, at = [], 0
        while (turn := template.turn.match(text, at)) is not None:
            role = ROLES.get(turn["role"])
            if role is None:
                break
            messages.append({"role": role, "content": turn["text"]})
            at = turn.end()
        if messages and template.open_answer.match(text, at):
            return template.name, messages
    return None


class TextCompletionAdapter(Adapter):
    """A completion call whose prompt is a chat template's text."""

    name = TEXT_COMPLETION
    task_id_source = None

    def claims_record(self, record: dict[str, Any]) -> bool:
        return prompt_text(record) is not None and completion_of(record) is not None

    def parse(self, record: RawRecord, src: SourceFile) -> Episode:
        value = expect(record.value, dict, "record")
        prompt, completion = prompt_text(value), completion_of(value)
        if prompt is None or completion is None:
            raise RecordError("missing field", "record holds no templated prompt and completion")
        split = split_prompt(prompt)
        if split is None:
            tried = ", ".join(t.name for t in TEMPLATES)
            raise RecordError(
                "unknown chat template",
                f"the prompt has a chat template's marks but none of {tried} reads it whole, "
                "ending in an open assistant turn",
            )
        template, messages = split
        answer = {"role": "assistant", "content": completion}
        conversation = {"messages": [*messages, answer]}
        episode = OpenAIAdapter().parse(RawRecord(record.line, record.json_path, value=conversation), src)
        episode.source_format = self.name
        episode.episode_id = adapter_episode_id(self.name, value.get("id"), value)
        episode.lineage.model = optional_str(value.get("model"), "model")
        asked = len(episode.events) - 1
        last = episode.events[asked]
        usage = object_field(value, "usage")
        last.finish_reason = _stated(value, usage, FINISH_KEYS, str)
        last.input_tokens = _stated(value, usage, INPUT_TOKEN_KEYS, int)
        last.output_tokens = _stated(value, usage, OUTPUT_TOKEN_KEYS, int)
        episode.delivered_inputs.append(delivered_input(0, episode.events[:asked], episode.events, asked))
        episode.task.prompt = next((e.content for e in episode.events if e.kind == "user"), None)
        rest = {
            k: v
            for k, v in value.items()
            if k not in (*PROMPT_KEYS, "content", "response", "choices", "model")
        }
        episode.extra_json = canonical_json({"chat_template": template, **rest})
        return episode


def _stated(value: dict[str, Any], usage: dict[str, Any], keys: tuple[str, ...], kind: type) -> Any:
    choices = value.get("choices")
    first = choices[0] if isinstance(choices, list) and choices and isinstance(choices[0], dict) else {}
    for scope in (value, usage, first):
        for key in keys:
            if isinstance(scope.get(key), kind) and not isinstance(scope.get(key), bool):
                return scope[key]
    return None
