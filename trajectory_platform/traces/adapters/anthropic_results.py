"""The results of tools the Messages API (or Claude.ai) ran within an assistant turn.

A server tool (``web_search``, ``web_fetch``, ``code_execution``, ``bash_code_execution``,
``text_editor_code_execution``, ``tool_search``) or an MCP connector tool is called and answered
inside one assistant message: ``server_tool_use`` / ``mcp_tool_use`` then a result block whose type
ends in ``_tool_result`` (``web_search_tool_result``, ``code_execution_tool_result``,
``mcp_tool_result``, ...). Claude.ai's export writes its own tools the same way, as a ``tool_use``
and a ``tool_result`` inside the assistant message, neither with an id.

Read by shape alone, such a result came out wrong: an error (``{"type":
"web_search_tool_result_error", "error_code"}``, a command's non-zero ``return_code``) was an ``ok``
result, and a Claude.ai result, naming its tool but no call id, was an ``unknown content part``
reject. So each is a tool event answering the call it names (or, naming none, the call before it in
the message), failed when its content says so, with the text the model was shown: a code run's
stdout and stderr (``return_code`` its exit code), a fetched document's text, a search hit's title
and address (Claude.ai's ``knowledge`` hits: title, address, then their text). A search hit's
page text is encrypted (``encrypted_content``, readable only by the API): it is marked, never kept
as text to train on.
"""

from __future__ import annotations

from typing import Any

from trajectory_platform.traces.adapters.base import RecordError, optional_str, text_of
from trajectory_platform.traces.record import Event, ToolCall, canonical_json

RESULT_SUFFIX = "_tool_result"
ERROR_SUFFIX = "_error"
ENCRYPTED = "[encrypted page content]"
KNOWLEDGE = "knowledge"
"""What Claude.ai's export calls a search hit in a tool's result: ``{"type": "knowledge", "title",
"url", "metadata", "text"}``. The model was shown its title and address with its text; read as its
text alone, the source a later citation names was lost."""


def is_result_block(block: dict[str, Any]) -> bool:
    """A ``tool_result`` block or a server / MCP tool's result (its type ends in ``_tool_result``)."""
    kind = block.get("type")
    return isinstance(kind, str) and (kind == "tool_result" or kind.endswith(RESULT_SUFFIX))


def _hit_text(hit: dict[str, Any]) -> str:
    """A ``web_search_result``: what the model can be shown of it (the page itself is encrypted);
    a Claude.ai ``knowledge`` part: its title and address, then its text."""
    lines = [str(hit[k]) for k in ("title", "url", "page_age") if isinstance(hit.get(k), str)]
    if hit.get("type") == KNOWLEDGE and isinstance(hit.get("text"), str):
        lines.append(hit["text"])
    return "\n".join([*lines, *([ENCRYPTED] if hit.get("encrypted_content") else [])])


def _is_hit(part: Any) -> bool:
    """A search hit: a ``web_search_result`` (its page encrypted) or Claude.ai's ``knowledge``."""
    return isinstance(part, dict) and ("encrypted_content" in part or part.get("type") == KNOWLEDGE)


def _content_text(content: Any, where: str) -> tuple[str | None, bool, int | None]:
    """A server result's content as text, whether it reports a failure, and a run's exit code."""
    if isinstance(content, dict):
        kind = str(content.get("type") or "")
        if kind.endswith(ERROR_SUFFIX):
            return f"{kind}: {content.get('error_code')}", True, None
        code = content.get("return_code")
        if isinstance(code, int) and not isinstance(code, bool):  # a code or bash run
            streams = [content.get(k) for k in ("stdout", "stderr")]
            files = [
                f"[file {f.get('file_id')}]" for f in content.get("content") or [] if isinstance(f, dict)
            ]
            return "\n".join([s for s in streams if isinstance(s, str) and s] + files), code != 0, code
        if isinstance(content.get("content"), dict | list):  # web_fetch_result: the document fetched
            return _content_text(content["content"], f"{where}.content")[0], False, None
        source = content.get("source")
        if isinstance(source, dict) and isinstance(source.get("data"), str):
            return text_of([content], where), False, None
        return canonical_json(content), False, None
    if isinstance(content, list) and content and all(_is_hit(h) for h in content):
        return "\n\n".join(_hit_text(h) for h in content), False, None
    try:
        return text_of(content, where), False, None
    except RecordError:
        return canonical_json(content), False, None


def result_event(block: dict[str, Any], where: str, answered: ToolCall | None) -> Event:
    """A result block as the tool event answering its call: by ``tool_use_id``, else the call before
    it in the same message (``answered``, as Claude.ai writes its tools' results without ids)."""
    text, failed, code = _content_text(block.get("content"), f"{where}.content")
    call_id = optional_str(block.get("tool_use_id"), f"{where}.tool_use_id")
    name = optional_str(block.get("name"), f"{where}.name")
    return Event(
        kind="tool",
        content=text,
        tool_call_id=call_id if call_id is not None or answered is None else answered.id,
        tool_name=name if name is not None or answered is None else answered.name,
        status="error" if failed or block.get("is_error") else "ok",
        exit_code=code,
    )
