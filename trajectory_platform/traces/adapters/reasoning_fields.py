"""Where a chat message keeps the model's reasoning, in each provider's words.

OpenAI-compatible servers agree on the message and disagree on the reasoning: vLLM and DeepSeek
write ``reasoning_content``, OpenRouter and Groq ``reasoning`` (and OpenRouter a
``reasoning_details`` list of typed chunks), Ollama ``thinking``, Mistral a ``thinking`` content
chunk holding text chunks. Read in one place, none is lost because an adapter knew only one name.
"""

from __future__ import annotations

from typing import Any

from trajectory_platform.traces.adapters.base import expect, text_of

REASONING_KEYS = ("reasoning_content", "reasoning", "thinking")
"""Message fields holding the reasoning as text (or text parts), in the order they are read."""
ENCRYPTED = "[encrypted reasoning]"
"""What an encrypted ``reasoning_details`` chunk reads as: the reasoning happened, its text is not here."""


def _details_text(details: Any, where: str) -> str | None:
    """OpenRouter's ``reasoning_details``: ``reasoning.text`` / ``reasoning.summary`` chunks as their
    text, an encrypted chunk as :data:`ENCRYPTED`, in order."""
    pieces = []
    for index, chunk in enumerate(expect(details, list, where)):
        expect(chunk, dict, f"{where}[{index}]")
        if chunk.get("type") == "reasoning.encrypted":
            pieces.append(ENCRYPTED)
            continue
        text = chunk.get("text", chunk.get("summary"))
        if isinstance(text, str):
            pieces.append(text)
    return "\n".join(pieces) or None


def _thinking_chunks(content: Any, where: str) -> str | None:
    """Mistral's ``{"type": "thinking", "thinking": [text chunks]}`` content chunks, as text."""
    if not isinstance(content, list):
        return None
    pieces = [
        text_of(part["thinking"], f"{where}[{index}].thinking")
        for index, part in enumerate(content)
        if isinstance(part, dict) and part.get("type") == "thinking" and part.get("thinking") is not None
    ]
    return "\n".join(p for p in pieces if p) or None


def reasoning_of_message(message: dict[str, Any], where: str) -> str | None:
    """The reasoning an assistant message records, wherever its provider put it; ``None`` when none."""
    for key in REASONING_KEYS:
        if message.get(key) is not None:
            return text_of(message[key], f"{where}.{key}")
    if message.get("reasoning_details") is not None:
        return _details_text(message["reasoning_details"], f"{where}.reasoning_details")
    return _thinking_chunks(message.get("content"), f"{where}.content")
