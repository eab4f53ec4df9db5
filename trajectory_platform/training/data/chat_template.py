"""The default tool-calling chat template and its token vocabulary (fine-tuning 16.3.2).

One template renders training data and serving prompts, so the delimiters the policy learns are the
ones the runtime parses. Layout of a rendered conversation::

    <|bos|><|tools|>name: description {"type": "object", ...}\\n ... <|end_tools|>
    <|system|>...<|end|><|user|>...<|end|>
    <|assistant|><|reasoning|>...<|end_reasoning|>text
        <|call|>{"name": ..., "arguments": ...}<|end_call|><|end_turn|>      (one line in reality)
    <|tool|>observation<|end|>

Design choices (the pilot in issue 9 showed a tiny model learns tool use only when these hold):

- the role label ``<|assistant|>`` and the call opener come *before* the tool name;
- the assistant turn ends with its own authentic terminator ``<|end_turn|>`` (the eos token), distinct
  from ``<|end|>`` which closes host-delivered segments, so the stop token is never confused with a
  tool-role boundary (16.4.5);
- everything the model itself generates inside a turn (call and reasoning markers) is an ordinary
  added token, so ``decode(..., skip_special_tokens=True)`` keeps the text the gym parser reads;
  role and host delimiters are special tokens;
- the assistant body is wrapped in ``{% generation %}`` so
  ``apply_chat_template(return_assistant_tokens_mask=True)`` works (the benchmark baseline).

The call format is the gym's wire format (:mod:`trajectory_platform.gym.protocol`, whose parser the
runtime and the model-backed policy use). Tool-call arguments recorded as a raw string are rendered
verbatim (a malformed call stays data); dict arguments and tool parameter schemas are rendered as
canonical JSON (sorted keys, compact), the form ``protocol.render_tool_call`` and the trace record
use.
"""

from __future__ import annotations

import hashlib

BOS = "<|bos|>"
PAD = "<|pad|>"
END_TURN = "<|end_turn|>"
END = "<|end|>"
ROLE_TOKENS = {
    "system": "<|system|>",
    "user": "<|user|>",
    "assistant": "<|assistant|>",
    "tool": "<|tool|>",
}
TOOLS_OPEN = "<|tools|>"
TOOLS_CLOSE = "<|end_tools|>"
CALL_OPEN = "<|call|>"
CALL_CLOSE = "<|end_call|>"
REASONING_OPEN = "<|reasoning|>"
REASONING_CLOSE = "<|end_reasoning|>"

SPECIAL_TOKENS = [PAD, BOS, END_TURN, END, *ROLE_TOKENS.values(), TOOLS_OPEN, TOOLS_CLOSE]
"""Host delimiters: skipped by ``decode(skip_special_tokens=True)``; ids fixed by this order (0..)."""
GENERATED_MARKERS = [CALL_OPEN, CALL_CLOSE, REASONING_OPEN, REASONING_CLOSE]
"""Markers the model itself emits inside its turn: ordinary (non-special) added tokens."""

TEMPLATE_VERSION = "tp-chat-v2"

CHAT_TEMPLATE = (
    "{{- bos_token -}}"
    "{%- if tools -%}"
    "{{- '<|tools|>' -}}"
    "{%- for tool in tools -%}"
    "{%- set f = tool.function if tool.function is defined else tool -%}"
    "{%- set schema = f.parameters | tojson(separators=(',', ':'), sort_keys=True) -%}"
    "{{- f.name ~ ': ' ~ (f.description or '') ~ ' ' ~ schema ~ '\\n' -}}"
    "{%- endfor -%}"
    "{{- '<|end_tools|>' -}}"
    "{%- endif -%}"
    "{%- for message in messages -%}"
    "{%- if message.role == 'assistant' -%}"
    "{{- '<|assistant|>' -}}"
    "{%- generation -%}"
    "{%- if message.reasoning_content -%}"
    "{{- '<|reasoning|>' ~ message.reasoning_content ~ '<|end_reasoning|>' -}}"
    "{%- endif -%}"
    "{%- if message.content -%}{{- message.content -}}{%- endif -%}"
    "{%- for call in message.tool_calls or [] -%}"
    "{%- set fn = call.function if call.function is defined else call -%}"
    "{%- if fn.arguments is string -%}{%- set args = fn.arguments -%}"
    "{%- else -%}{%- set args = fn.arguments | tojson(separators=(',', ':'), sort_keys=True) -%}{%- endif -%}"
    "{{- '<|call|>{\"name\": ' ~ (fn.name | tojson) ~ ', \"arguments\": ' ~ args ~ '}<|end_call|>' -}}"
    "{%- endfor -%}"
    "{%- if not message.truncated -%}{{- '<|end_turn|>' -}}{%- endif -%}"
    "{%- endgeneration -%}"
    "{%- else -%}"
    "{{- ('<|' ~ message.role ~ '|>') ~ (message.content or '') ~ '<|end|>' -}}"
    "{%- endif -%}"
    "{%- endfor -%}"
    "{%- if add_generation_prompt -%}{{- '<|assistant|>' -}}{%- endif -%}"
)
"""The Jinja chat template stored in the tokenizer directory.

``message.truncated`` (set by the serializer for a turn the trace recorded as cut off) renders the
turn without a terminator: the template never invents an end token for a response that had none.
"""


def template_digest(template: str) -> str:
    """sha256 of a chat template's text: the serialization manifests bind to it."""
    return hashlib.sha256(template.encode("utf-8")).hexdigest()
