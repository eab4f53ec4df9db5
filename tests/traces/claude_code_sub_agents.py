"""Claude Code sessions in which the model delegated to sub-agents (the ``Task`` tool): the sub-agent
runs its own conversation (``isSidechain`` entries), and the parent model sees only its final report
(the ``Task`` call's ``tool_result``). The sub-agent's conversation is not the parent's context; it is
a conversation of its own, whose prompt is the ``Task`` input's ``prompt``.

Generated over where Claude Code writes the sub-agent (2.x: ``agent-<agentId>.jsonl`` beside the
session, or under ``<session>/subagents/``, its entries carrying ``agentId`` and the parent's
``Task`` result naming it in ``toolUseResult.agentId``; 1.x: the sidechain entries inline in the
session file, linked by nothing but the prompt), what the sub-agent did (answered at once, or ran a
tool first), one ``Task`` call or two in one turn, and whether Claude Code also wrote a ``Warmup``
sidechain (a throw-away agent no ``Task`` call started: never an episode). :data:`DEV` is what the
reading was developed against, :data:`VALIDATION` was held out (a case is in one half by a hash of
its name); :data:`CONTROLS` are sessions with only a warmup sidechain, or a ``Task`` call whose
sub-agent's transcript the log does not hold: the parent as before, no sub-agent episode."""

from __future__ import annotations

import hashlib
import itertools
import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

SESSION = "7f3c2a10-5b6d-4e8f-9a01-2b3c4d5e6f70"
ASK = "Find where the retry logic lives and summarize it."
PROMPTS = (
    "Search the repository for the retry logic and report the file and function.",
    "List every caller of `backoff()` and say what each passes.",
)
REPORTS = (
    "The retry logic is in src/net/retry.py, function `with_retries`.",
    "Two callers: fetch() and sync().",
)
FINAL = "Retries live in src/net/retry.py."


@dataclass(frozen=True)
class Case:
    name: str
    files: dict[str, list[dict[str, Any]]]
    """Each file's path under the log folder -> its JSONL entries."""
    prompts: list[str]
    """The ``Task`` prompts whose sub-agent the log holds: one sub-agent episode each."""
    reports: list[str]
    sidechain_entries: int
    """The sidechain entries the parent counts (never its events)."""
    tools: bool
    """Whether each sub-agent ran a tool before its report."""


class _Writer:
    def __init__(self) -> None:
        self.count = 0

    def entry(self, kind: str, message: dict[str, Any], parent: str | None, **extra: Any) -> dict[str, Any]:
        self.count += 1
        return {
            "parentUuid": parent,
            "isSidechain": False,
            "userType": "external",
            "cwd": "/home/dev/app",
            "sessionId": SESSION,
            "version": extra.pop("version", "2.0.42"),
            "gitBranch": "main",
            "type": kind,
            "message": message,
            "uuid": f"00000000-0000-4000-8000-{self.count:012d}",
            "timestamp": f"2025-10-02T09:{self.count // 60:02d}:{self.count % 60:02d}.000Z",
            **extra,
        }


def _assistant(message_id: str, content: list[dict[str, Any]], stop: str) -> dict[str, Any]:
    return {
        "id": message_id,
        "type": "message",
        "role": "assistant",
        "model": "claude-sonnet-4-5-20250929",
        "content": content,
        "stop_reason": stop,
        "usage": {"input_tokens": 40, "output_tokens": 12},
    }


def _sub_agent(
    w: _Writer, index: int, prompt: str, report: str, tool: bool, agent_id: str | None
) -> list[dict[str, Any]]:
    """A sub-agent's own conversation: the prompt, (a Grep and its result,) its report."""
    marks = {"isSidechain": True, **({"agentId": agent_id} if agent_id else {})}
    entries = [w.entry("user", {"role": "user", "content": prompt}, None, **marks)]
    if tool:
        grep = {"type": "tool_use", "id": f"toolu_grep{index}", "name": "Grep", "input": {"pattern": "retry"}}
        entries.append(
            w.entry(
                "assistant", _assistant(f"msg_s{index}a", [grep], "tool_use"), entries[-1]["uuid"], **marks
            )
        )
        shown = {"type": "tool_result", "tool_use_id": f"toolu_grep{index}", "content": "src/net/retry.py"}
        entries.append(w.entry("user", {"role": "user", "content": [shown]}, entries[-1]["uuid"], **marks))
    said = [{"type": "text", "text": report}]
    entries.append(
        w.entry("assistant", _assistant(f"msg_s{index}b", said, "end_turn"), entries[-1]["uuid"], **marks)
    )
    return entries


def _warmup(w: _Writer, agent_id: str | None) -> list[dict[str, Any]]:
    marks = {"isSidechain": True, **({"agentId": agent_id} if agent_id else {})}
    first = w.entry("user", {"role": "user", "content": "Warmup"}, None, **marks)
    said = [{"type": "text", "text": "I'm ready to help search the codebase."}]
    return [first, w.entry("assistant", _assistant("msg_warm", said, "end_turn"), first["uuid"], **marks)]


def _session(
    layout: str, tasks: int, tool: bool, warmup: bool, held: bool = True
) -> tuple[dict[str, list[dict[str, Any]]], int]:
    w = _Writer()
    inline = layout == "inline"
    agent_ids = [f"a{index}f3e9c{index}" for index in range(tasks)]
    prompts, reports = PROMPTS[:tasks], REPORTS[:tasks]
    files: dict[str, list[dict[str, Any]]] = {}
    main = [w.entry("user", {"role": "user", "content": ASK}, None)]
    calls = [
        {
            "type": "tool_use",
            "id": f"toolu_task{index}",
            "name": "Task",
            "input": {"description": "Find retry logic", "prompt": prompt, "subagent_type": "Explore"},
        }
        for index, prompt in enumerate(prompts)
    ]
    main.append(w.entry("assistant", _assistant("msg_m1", calls, "tool_use"), main[-1]["uuid"]))
    sidechains = []
    for index in range(tasks):
        sidechains.append(
            _sub_agent(w, index, prompts[index], reports[index], tool, None if inline else agent_ids[index])
        )
    warm = _warmup(w, None if inline else "awarm01") if warmup else []
    for index in range(tasks):
        shown = {
            "type": "tool_result",
            "tool_use_id": f"toolu_task{index}",
            "content": [{"type": "text", "text": reports[index]}],
        }
        result = {
            "status": "completed",
            "prompt": prompts[index],
            "content": shown["content"],
            "totalDurationMs": 5200,
        }
        if not inline:
            result["agentId"] = agent_ids[index]
        main.append(
            w.entry("user", {"role": "user", "content": [shown]}, main[-1]["uuid"], toolUseResult=result)
        )
    said = [{"type": "text", "text": FINAL}]
    main.append(w.entry("assistant", _assistant("msg_m2", said, "end_turn"), main[-1]["uuid"]))
    kept = [s for s in sidechains] if held else []
    if inline:  # 1.x: the sidechains in the session file, written while the Task call ran
        files[f"{SESSION}.jsonl"] = [*main[:2], *warm, *(e for s in kept for e in s), *main[2:]]
    else:
        folder = f"{SESSION}/subagents/" if layout == "subagents" else ""
        files[f"{SESSION}.jsonl"] = main
        for agent_id, entries in zip(agent_ids, kept, strict=False):
            files[f"{folder}agent-{agent_id}.jsonl"] = entries
        if warm:
            files[f"{folder}agent-awarm01.jsonl"] = warm
    return files, sum(len(s) for s in kept) + len(warm)


def _stream(tasks: int, tool: bool) -> tuple[dict[str, list[dict[str, Any]]], int]:
    """What ``claude -p --output-format stream-json`` prints (and the Agent SDK yields): the
    sub-agent's messages in the parent's stream, each naming the ``Task`` call in
    ``parent_tool_use_id``, its prompt first."""
    w = _Writer()

    def line(kind: str, message: dict[str, Any], parent: str | None) -> dict[str, Any]:
        uuid = w.entry(kind, message, None)["uuid"]
        return {
            "type": kind,
            "message": message,
            "parent_tool_use_id": parent,
            "session_id": SESSION,
            "uuid": uuid,
        }

    init = {
        "type": "system",
        "subtype": "init",
        "session_id": SESSION,
        "cwd": "/home/dev/app",
        "tools": ["Task", "Grep"],
    }
    session = [
        {**init, "model": "claude-sonnet-4-5-20250929"},
        line("user", {"role": "user", "content": ASK}, None),
    ]
    prompts, reports = PROMPTS[:tasks], REPORTS[:tasks]
    calls = [
        {
            "type": "tool_use",
            "id": f"toolu_task{i}",
            "name": "Task",
            "input": {"description": "Find", "prompt": p},
        }
        for i, p in enumerate(prompts)
    ]
    session.append(line("assistant", _assistant("msg_m1", calls, "tool_use"), None))
    counted = 0
    for index, prompt in enumerate(prompts):
        call = f"toolu_task{index}"
        sub = [line("user", {"role": "user", "content": [{"type": "text", "text": prompt}]}, call)]
        if tool:
            grep = {
                "type": "tool_use",
                "id": f"toolu_grep{index}",
                "name": "Grep",
                "input": {"pattern": "retry"},
            }
            shown = {
                "type": "tool_result",
                "tool_use_id": f"toolu_grep{index}",
                "content": "src/net/retry.py",
            }
            sub.append(line("assistant", _assistant(f"msg_s{index}a", [grep], "tool_use"), call))
            sub.append(line("user", {"role": "user", "content": [shown]}, call))
        said = [{"type": "text", "text": reports[index]}]
        sub.append(line("assistant", _assistant(f"msg_s{index}b", said, "end_turn"), call))
        session += sub
        counted += len(sub)
    for index, report in enumerate(reports):
        shown = {
            "type": "tool_result",
            "tool_use_id": f"toolu_task{index}",
            "content": [{"type": "text", "text": report}],
        }
        session.append(line("user", {"role": "user", "content": [shown]}, None))
    session.append(
        line("assistant", _assistant("msg_m2", [{"type": "text", "text": FINAL}], "end_turn"), None)
    )
    session.append(
        {"type": "result", "subtype": "success", "result": FINAL, "session_id": SESSION, "num_turns": 2}
    )
    return {"stream.jsonl": session}, counted


def _case(layout: str, tasks: int, tool: bool, warmup: bool) -> Case:
    files, counted = _stream(tasks, tool) if layout == "stream" else _session(layout, tasks, tool, warmup)
    name = f"{layout}-t{tasks}-{'tool' if tool else 'answer'}-{'warm' if warmup else 'cold'}"
    return Case(name, files, list(PROMPTS[:tasks]), list(REPORTS[:tasks]), counted, tool)


CASES = [
    _case(*combo)
    for combo in itertools.product(("beside", "subagents", "inline"), (1, 2), (False, True), (False, True))
]
CASES += [_case("stream", tasks, tool, False) for tasks, tool in itertools.product((1, 2), (False, True))]
"""The ``stream`` layout (``parent_tool_use_id``) was added after the other three were measured."""


def _controls() -> list[Case]:
    only_warm, counted = _session("beside", 1, False, True, held=False)
    inline_warm, inline_counted = _session("inline", 1, False, True, held=False)
    return [
        Case("warmup-only-beside", only_warm, [], [], counted, False),
        Case("warmup-only-inline", inline_warm, [], [], inline_counted, False),
    ]


CONTROLS = _controls()


def write(case: Case, root: Path) -> Path:
    for relative, entries in case.files.items():
        path = root / relative
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text("\n".join(json.dumps(e) for e in entries) + "\n")
    return root


def _half(case: Case) -> int:
    return hashlib.sha256(case.name.encode()).digest()[0] % 2


DEV = [c for c in CASES if _half(c) == 0]
VALIDATION = [c for c in CASES if _half(c) == 1]
