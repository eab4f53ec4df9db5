"""ChatGPT data exports (``conversations.json``) built as the export writes them, for
``adapters/chatgpt_export.py``'s tests: :func:`conversation` turns a list of messages into the
export's tree, with branches the user moved away from where asked."""

from __future__ import annotations

from typing import Any


def message(
    role: str, content: dict[str, Any], at: float, recipient: str = "all", name: str | None = None
) -> dict[str, Any]:
    return {
        "author": {"role": role, "name": name, "metadata": {}},
        "create_time": at,
        "content": content,
        "status": "finished_successfully",
        "metadata": {},
        "recipient": recipient,
    }


def text(role: str, words: str, at: float, **kw: Any) -> dict[str, Any]:
    return message(role, {"content_type": "text", "parts": [words]}, at, **kw)


def conversation(
    messages: list[dict[str, Any]], dropped: dict[int, dict[str, Any]] | None = None
) -> dict[str, Any]:
    """The export's tree of ``messages`` in order (node ``n<i>``), the last one current; ``dropped``:
    ``{i: message}`` adds a branch beside message ``i`` (an answer regenerated away from)."""
    mapping: dict[str, Any] = {"root": {"id": "root", "message": None, "parent": None, "children": []}}
    parent = "root"
    for index, item in enumerate(messages):
        node = f"n{index}"
        mapping[node] = {"id": node, "message": {"id": node, **item}, "parent": parent, "children": []}
        mapping[parent]["children"].append(node)
        if dropped and index in dropped:
            mapping[f"x{index}"] = {
                "id": f"x{index}",
                "message": dropped[index],
                "parent": parent,
                "children": [],
            }
            mapping[parent]["children"].insert(0, f"x{index}")
        parent = node
    return {
        "title": "Calc",
        "create_time": 1700000000.0,
        "conversation_id": "c1",
        "current_node": parent,
        "mapping": mapping,
    }


def python_run() -> list[dict[str, Any]]:
    """A question, a python call, its output, the answer."""
    return [
        text("user", "What is 2+2? Use python.", 1700000001.0),
        message(
            "assistant",
            {"content_type": "code", "language": "unknown", "text": "print(2+2)"},
            1700000002.0,
            recipient="python",
        ),
        message("tool", {"content_type": "execution_output", "text": "4"}, 1700000003.0, name="python"),
        text("assistant", "The sum is 4.", 1700000004.0),
    ]
