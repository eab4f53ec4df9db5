"""Claude Code session logs: JSONL, one line per entry (``type`` user / assistant / summary / ...),
each carrying an Anthropic ``message`` and the ``sessionId`` it belongs to.

A record is one session: every readable line sharing a ``sessionId`` (a line that cannot be read
is its own record, rejected), in every file of one ingest, joined with the sessions that resume it
under new ids (``claude --resume`` starts a new file copying the old entries or following the old
last one by ``parentUuid``: :meth:`ClaudeCodeAdapter.group_entries`, ``cross_file``); two
resumptions of one point are an episode each (:func:`_branches`).

Assistant lines written for the same API response (same ``message.id``) are merged into one
assistant event, so parallel tool calls stay one turn. A
``{"type": "summary", "summary", "leafUuid"}`` line is the title Claude Code shows for a
conversation in its ``/resume`` list ("README Typo Fix"), naming the conversation's last entry (often
in another file): it was never shown to the model, so it is kept in ``extra_json.titles``, not made
an event (rendered for training, an event would become a system message the model never saw). A
compaction is the user line Claude Code writes after a ``compact_boundary``
(``isCompactSummary``): its text is the summary the runtime wrote of everything before it, not the
user speaking, so it is never a user turn (nor the task's prompt); it replaces every event before
it. Sidechain lines
(sub-agent transcripts) and runtime lines (``system``, hooks, snapshots) were never shown to
this conversation's model (it saw a sub-agent's report only, as its ``Task`` call's result); they
are counted in ``extra_json`` instead of becoming events. A sub-agent a ``Task`` call started is an
episode of its own, linked to its parent and call (:meth:`ClaudeCodeAdapter._sub_agents`). Runtime
lines that name no session (``file-history-snapshot``, ``permission-mode``) are counted with the
session of the nearest entry before them (else after them). A rewound exchange stays in the file
as a branch of the ``parentUuid`` tree: only the chain of the last entry is the conversation, the
branches forking off it are counted as ``rewound``. Assistant lines the runtime wrote itself
(``isApiErrorMessage``, model ``<synthetic>``) are counted as ``synthetic``, never model turns; a
call the user refused at the permission prompt gets an observation of status ``refused``.

The same adapter reads what Claude Code prints with ``--output-format stream-json`` and what the
Claude Agent SDK yields: lines ``{"type": "system" | "assistant" | "user" | "result", "session_id"}``.
The ``system`` ``init`` line names the model, the tools (by name) and the working folder; a message
with a ``parent_tool_use_id`` is a sub-agent's (counted, like a sidechain); the ``result`` line ends
the episode: its ``result`` text is the final answer, its ``subtype`` the terminal status
(``success`` completed, ``error_max_turns`` truncated, any other error ``error``).
"""

from __future__ import annotations

import bisect
import json
from collections import Counter
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
    optional_str,
    text_of,
    timestamp_of,
)
from trajectory_platform.traces.adapters.citations import keep_citations
from trajectory_platform.traces.drops import named
from trajectory_platform.traces.record import Episode, Event, ToolSpec, canonical_json

ENTRY_TYPES = ("user", "assistant")
STREAM_TYPES = (*ENTRY_TYPES, "system", "result")
"""The lines of ``--output-format stream-json`` and of the Agent SDK's message stream."""
RESULT_STATUS = {"success": "completed", "error_max_turns": "truncated"}
"""A ``result`` line's ``subtype`` -> terminal status (any other ``error_*`` is ``error``)."""
SYNTHETIC_MODEL = "<synthetic>"
"""The model Claude Code names on assistant lines it wrote itself (API errors, interruptions)."""
USER_REJECTED = "The user doesn't want to proceed with this tool use"
"""How Claude Code's tool result begins when the user refused the call at the permission prompt."""


SUB_AGENT_TOOLS = ("Task", "Agent")
"""Claude Code's tool that starts a sub-agent (``Task``; ``Agent`` in later releases)."""
SIDECHAIN_MARKS = ("isSidechain", "agentId", "parent_tool_use_id")


def _own_entry(entry: Any) -> bool:
    """Whether ``entry`` is a user or assistant entry of the session's own conversation (not a
    sub-agent's: ``isSidechain``, a stream's ``parent_tool_use_id``)."""
    return (
        isinstance(entry, dict)
        and entry.get("type") in ENTRY_TYPES
        and entry.get("isSidechain") is not True
        and not isinstance(entry.get("parent_tool_use_id"), str)
    )


def _sidechains(lines: list[RawRecord]) -> dict[str, list[RawRecord]]:
    """The session's sub-agent entries by sub-agent: a stream's by the ``Task`` call its
    ``parent_tool_use_id`` names, a session file's sidechain by its ``agentId`` (2.x), else by the
    uuid of the first entry of its ``parentUuid`` chain (1.x, inline); each entry read as the
    sub-agent's own conversation sees it (the marks dropped)."""
    entries = [
        r
        for r in lines
        if isinstance(r.value, dict)
        and (r.value.get("isSidechain") is True or isinstance(r.value.get("parent_tool_use_id"), str))
    ]
    by_uuid = {r.value["uuid"]: r.value for r in entries if isinstance(r.value.get("uuid"), str)}
    groups: dict[str, list[RawRecord]] = {}
    for line in entries:
        key = line.value.get("parent_tool_use_id") or line.value.get("agentId")
        if not isinstance(key, str):
            node, seen = line.value, set()
            while isinstance(parent := _parent_of(node), str) and parent in by_uuid and parent not in seen:
                seen.add(parent)
                node = by_uuid[parent]
            key = str(node.get("uuid"))
        own = {k: v for k, v in line.value.items() if k not in SIDECHAIN_MARKS}
        groups.setdefault(key, []).append(RawRecord(line.line, line.json_path, value=own))
    return groups


def _started_agents(lines: list[RawRecord]) -> dict[str, str]:
    """Call id -> the ``agentId`` its result names (a ``Task`` result's ``toolUseResult``, 2.x)."""
    started = {}
    for line in lines:
        entry = line.value if isinstance(line.value, dict) else {}
        result, message = entry.get("toolUseResult"), entry.get("message")
        content = message.get("content") if isinstance(message, dict) else None
        if (
            not isinstance(result, dict)
            or not isinstance(result.get("agentId"), str)
            or not isinstance(content, list)
        ):
            continue
        for block in content:
            if (
                isinstance(block, dict)
                and block.get("type") == "tool_result"
                and isinstance(block.get("tool_use_id"), str)
            ):
                started[block["tool_use_id"]] = result["agentId"]
    return started


def _prompt_key(arguments: str | None, groups: dict[str, list[RawRecord]]) -> str | None:
    """The sidechain whose first entry is a user message saying the ``Task`` call's ``prompt``."""
    try:
        prompt = json.loads(arguments or "").get("prompt")
    except (ValueError, AttributeError):
        return None
    for key, lines in groups.items():
        first = lines[0].value
        message = first.get("message") if first.get("type") == "user" else None
        content = message.get("content") if isinstance(message, dict) else None
        said = content if isinstance(content, str) else None
        if isinstance(content, list):
            said = "\n".join(
                b.get("text", "") for b in content if isinstance(b, dict) and b.get("type") == "text"
            )
        if isinstance(prompt, str) and said == prompt:
            return key
    return None


def _parent_of(entry: dict[str, Any]) -> Any:
    """The entry an entry follows: ``parentUuid``, or across a compaction boundary (whose parent
    is null) ``logicalParentUuid``."""
    return entry.get("parentUuid") or entry.get("logicalParentUuid")


def _leaf(entries: list[dict[str, Any]]) -> dict[str, Any] | None:
    """The last conversation entry (user or assistant, not a sidechain's) of ``entries``."""
    return next(
        (
            e
            for e in reversed(entries)
            if e.get("type") in ENTRY_TYPES and isinstance(e.get("uuid"), str) and not e.get("isSidechain")
        ),
        None,
    )


def _chain(by_uuid: dict[str, dict[str, Any]], leaf: dict[str, Any] | None) -> list[str]:
    """The uuids of the chain from ``leaf`` back to its root (the entries it follows)."""
    chain: dict[str, None] = {}
    node = leaf
    while node is not None and node["uuid"] not in chain:
        chain[node["uuid"]] = None
        node = by_uuid.get(_parent_of(node))
    return list(chain)


def _rewound(entries: list[dict[str, Any]], leaf: dict[str, Any] | None = None) -> set[str]:
    """Uuids of the entries on branches the user rewound away from (or, given ``leaf``, off the
    chain of that branch).

    Claude Code never deletes a rewound exchange: the new message names an earlier entry as its
    ``parentUuid``, so the file holds a tree and the conversation is the chain from the last
    entry back to the root. An entry off that chain is rewound when its own chain joins it (a
    fork); one whose chain never joins (a parent this file does not hold, or none recorded) is
    kept, as nothing shows it was abandoned.
    """
    by_uuid = {e["uuid"]: e for e in entries if isinstance(e.get("uuid"), str)}
    active = set(_chain(by_uuid, leaf or _leaf(entries)))
    joins: dict[str, bool] = {uuid: True for uuid in active}  # whether a chain reaches the active one
    for entry in by_uuid.values():
        path: dict[str, None] = {}  # the chain walked from this entry, in order
        node: dict[str, Any] | None = entry
        while node is not None and node["uuid"] not in joins and node["uuid"] not in path:
            path[node["uuid"]] = None
            node = by_uuid.get(_parent_of(node))
        reached = node is not None and joins.get(node["uuid"], False)
        joins.update(dict.fromkeys(path, reached))
    return {uuid for uuid, joined in joins.items() if joined and uuid not in active}


def _branches(record: RawRecord) -> list[dict[str, Any]]:
    """The last entries of a session resumed under new ids that are each a conversation: each
    session's last entry, unless another's chain passes through it (a resumption went on from
    it). Two resumptions of one point are two conversations sharing what came before; one
    chain of resumptions is one. A session read under one id: none (its last entry decides)."""
    if len(record.value.get(SESSIONS, ())) < 2:
        return []
    entries = [line.value for line in record.value["lines"] if isinstance(line.value, dict)]
    by_uuid = {e["uuid"]: e for e in entries if isinstance(e.get("uuid"), str)}
    leaves = [
        leaf
        for session in record.value[SESSIONS]
        if (leaf := _leaf([e for e in entries if _session_of(e) == session])) is not None
    ]
    followed = {uuid for leaf in leaves for uuid in _chain(by_uuid, leaf)[1:]}
    kept = [leaf for leaf in leaves if leaf["uuid"] not in followed]
    return sorted(kept, key=lambda leaf: entries.index(leaf)) if len(kept) > 1 else []


def _session_of(entry: Any) -> str | None:
    """The session an entry belongs to: ``sessionId`` in a session file, ``session_id`` in a stream."""
    if not isinstance(entry, dict):
        return None
    session = entry.get("sessionId", entry.get("session_id"))
    return session if isinstance(session, str) else None


def _runtime_line(entry: Any) -> bool:
    """A line of the runtime's own bookkeeping that names no session: Claude Code 2.x writes
    ``file-history-snapshot`` (often the file's first line), ``permission-mode`` and the like
    without a ``sessionId``. A conversation entry (``user`` / ``assistant``) or a stream's
    ``result`` without one is still a broken line."""
    if not isinstance(entry, dict):
        return False
    kind = entry.get("type")
    return isinstance(kind, str) and kind not in (*ENTRY_TYPES, "result", "summary")


def _session_around(line: int, starts: list[tuple[int, str]]) -> str | None:
    """The session of the nearest entry naming one before ``line`` (``starts``: (line, session) of
    every such entry, in line order), else of the first one after it."""
    before = bisect.bisect_left(starts, (line, "")) - 1
    if before >= 0:
        return starts[before][1]
    return starts[0][1] if starts else None


def _next_session(summary: RawRecord, sessions: dict[str, list[RawRecord]]) -> str | None:
    """The session whose entries follow the summary line (else the last session of the file)."""
    after = [
        (recs[0].line or 0, sid)
        for sid, recs in sessions.items()
        if (recs[0].line or 0) > (summary.line or 0)
    ]
    if after:
        return min(after)[1]
    return next(reversed(sessions), None)


RUNTIME_TYPES = frozenset(
    {"system", "file-history-snapshot", "queue-operation", "permission-mode", "stream_event", "progress"}
)
"""Entry types of Claude Code's own bookkeeping (and the Agent SDK's partial ``stream_event``
lines): never shown to the model as such, counted in ``skipped_entries``."""
CONVERSATION_KEYS = (
    "message",
    "content",
    "text",
    "tool_call",
    "tool_calls",
    "tool_use",
    "tool_result",
    "result",
)
"""Fields by which an entry of a type this reader does not know carries a turn, a call or a result."""


def _unknown_entry(entry: dict[str, Any], line: int | None) -> RecordError | None:
    """An entry of a type neither a conversation entry nor :data:`RUNTIME_TYPES` that carries
    conversation content (:data:`CONVERSATION_KEYS`): another tool's stream in Claude Code's shape
    (cursor-agent's stream-json adds ``tool_call`` lines holding each call and its result). Counted
    as skipped, the calls vanished while the episode was admitted; an unknown type carrying none is
    bookkeeping a newer Claude Code writes, counted."""
    kind = entry.get("type")
    if kind in (*ENTRY_TYPES, "summary") or kind in RUNTIME_TYPES:
        return None
    held = next((key for key in CONVERSATION_KEYS if entry.get(key) not in (None, "", [], {})), None)
    if held is None:
        return None
    return RecordError(
        "unknown entry",
        f"line {line} is an entry of type {named(kind)}, which Claude Code does not write, holding "
        f"{held}: a turn, call or result this reader would lose (another tool's stream in "
        "Claude Code's shape)",
    )


REPEATED = "repeated"
"""A session read from several files: how many entries a later file repeated (read once)."""
OTHER_BRANCH = "other branch"
"""A session resumed twice from one point: the entries of the other branch, each its own episode."""
SESSIONS = "sessions"
"""A session resumed under new ids: every ``sessionId`` it was written under, the first first."""


def _take_later_facts(turn: Event, later: Event) -> None:
    """What a later line of one response says of the whole turn: Claude Code writes a response a
    content block a line, each line with the usage counted so far (``output_tokens`` grows to the
    response's total on its last line) and the ``stop_reason`` once it is known, so the last line
    that states them holds the turn's; the first line's are a partial count."""
    turn.finish_reason = later.finish_reason or turn.finish_reason
    turn.input_tokens = later.input_tokens if later.input_tokens is not None else turn.input_tokens
    turn.output_tokens = later.output_tokens if later.output_tokens is not None else turn.output_tokens


def _span_of_time(part: RawRecord) -> tuple[str, str]:
    """When a part of a session begins and ends: its entries' earliest and latest ``timestamp``
    (ISO-8601 UTC, as Claude Code writes it), "" when none is written (file order then decides)."""
    stamps = [
        stamp
        for line in part.value["lines"]
        if isinstance(line.value, dict) and isinstance(stamp := line.value.get("timestamp"), str)
    ]
    return min(stamps, default=""), max(stamps, default="")


class ClaudeCodeAdapter(Adapter):
    """``~/.claude/projects/<project>/<session>.jsonl``."""

    name = "claude-code"

    def sniff(self, sample: Any, path: Path) -> bool:
        if not isinstance(sample, dict):
            return False
        if sample.get("type") == "summary":  # resumed sessions start with summary lines
            return "leafUuid" in sample
        if "session_id" in sample:
            return sample.get("type") in STREAM_TYPES
        return "sessionId" in sample and sample.get("type") in (*ENTRY_TYPES, "system")

    def frame(self, src: SourceFile) -> Iterator[RawRecord]:
        lines = [RawRecord(1, None, value=src.document[0])] if src.is_document else list(src.lines())
        sessions: dict[str, list[RawRecord]] = {}
        orphans: list[RawRecord] = []
        runtime: list[RawRecord] = []
        for record in lines:
            if record.error is not None:
                yield record
            elif isinstance(record.value, dict) and record.value.get("type") == "summary":
                orphans.append(record)
            elif (session := _session_of(record.value)) is not None:
                sessions.setdefault(session, []).append(record)
            elif _runtime_line(record.value):
                runtime.append(record)
            else:
                yield RawRecord(
                    record.line, None, error=RecordError("missing field", "entry has no sessionId")
                )
        starts = sorted((r.line or 0, sid) for sid, recs in sessions.items() for r in recs)
        for line in runtime:  # counted with the session around it, as its runtime lines are
            owner = _session_around(line.line or 0, starts)
            if owner is None:
                error = RecordError(
                    "missing field", "entry has no sessionId, and no entry of the file names one"
                )
                yield RawRecord(line.line, None, error=error)
            else:
                sessions[owner].append(line)
        owner_of_uuid = {r.value.get("uuid"): sid for sid, recs in sessions.items() for r in recs}
        for summary in orphans:  # a summary names a leaf entry; a resumed session's may be elsewhere
            owner = owner_of_uuid.get(summary.value.get("leafUuid")) or _next_session(summary, sessions)
            if owner is None:
                error = RecordError("summary without conversation", "no user or assistant entry in the file")
                yield RawRecord(summary.line, None, error=error)
            else:
                sessions[owner].append(summary)
        for session_id, records in sessions.items():
            records.sort(key=lambda r: r.line or 0)
            yield RawRecord(
                records[0].line, f"sessionId={session_id}", value={"session": session_id, "lines": records}
            )

    def group_of(self, record: RawRecord) -> str | None:
        """A session's id: one session may be written over several files."""
        return record.value["session"] if (record.json_path or "").startswith("sessionId=") else None

    def group_entries(self, record: RawRecord) -> tuple[set[str], set[str]]:
        """The session's entry uuids, and the entries it follows that it does not hold: ``claude
        --resume`` goes on under a new ``sessionId``, in a file that copies the old session's
        entries (same uuids) or whose first entry's ``parentUuid`` names the old session's last."""
        entries = [line.value for line in record.value["lines"] if isinstance(line.value, dict)]
        held = {uuid for e in entries if isinstance(uuid := e.get("uuid"), str)}
        followed = {parent for e in entries if isinstance(parent := _parent_of(e), str)}
        return held, followed - held

    def merged(self, parts: list[RawRecord]) -> RawRecord:
        """One session's lines from several files, or a session and its resumptions under new
        ids, in time order (a part's first entry, then its last: a resumption that copied the old
        session begins with it and ends later; file order breaks ties), since a resumed session's
        file name sorts anywhere. An entry whose ``uuid`` an earlier part already holds
        (``claude --resume`` copies the session it resumes) is read once and counted in
        ``skipped_entries.repeated``; the episode keeps the first session's id, and lists every id
        it was written under in ``extra_json.sessions``."""
        ordered = sorted(parts, key=_span_of_time)
        seen: dict[str, tuple[str, int | None]] = {}  # uuid -> what the entry says, its line
        lines, repeated = [], 0
        for part in ordered:
            for line in part.value["lines"]:
                uuid = line.value.get("uuid") if isinstance(line.value, dict) else None
                if not isinstance(uuid, str):
                    lines.append(line)
                    continue
                said = canonical_json([line.value.get("type"), line.value.get("message")])
                if uuid in seen:
                    if seen[uuid][0] != said:
                        raise RecordError(
                            "conflicting entries",
                            f"line {seen[uuid][1]} of one part of this session and line {line.line} of "
                            "another hold one entry uuid but say different things: an entry a resumption "
                            "copied says the same, so these are other sessions whose ids collide",
                        )
                    repeated += 1
                    continue
                seen[uuid] = (said, line.line)
                lines.append(line)
        sessions = list(dict.fromkeys(part.value["session"] for part in ordered))
        value = {"session": sessions[0], "lines": lines, REPEATED: repeated, SESSIONS: sessions}
        return RawRecord(parts[self.home_part(parts)].line, f"sessionId={sessions[0]}", value=value)

    def home_part(self, parts: list[RawRecord]) -> int:
        """The session's own file: the earliest part (:func:`_span_of_time`, file order breaking
        ties) holding a conversation entry of its own, not a sub-agent's. A sub-agent transcript
        (``agent-<id>.jsonl``, beside the session or under ``<session>/subagents/``) holds the
        session's id but only sidechain entries; read as the session's file, its name located the
        session and the ``task_ids.json`` entry naming the session's file linked neither the
        session nor its sub-agents. The first part when none holds such an entry."""
        own = [
            i for i, part in enumerate(parts) if any(_own_entry(line.value) for line in part.value["lines"])
        ]
        return min(own, key=lambda i: (_span_of_time(parts[i])[0], i), default=0)

    def parse_all(self, record: RawRecord, src: SourceFile) -> list[Episode]:
        """The session's episodes (:meth:`_conversations`), then each sub-agent a ``Task`` call of
        theirs started (:meth:`_sub_agents`)."""
        episodes = self._conversations(record, src)
        return [*episodes, *self._sub_agents(record, src, episodes)]

    def _sub_agents(self, record: RawRecord, src: SourceFile, parents: list[Episode]) -> list[Episode]:
        """Each sub-agent's conversation (its sidechain entries: :func:`_sidechains`) that a
        ``Task`` call of a parent episode started, as an episode of its own: its prompt is the
        ``Task`` input's, its turns its own; never the parent's context (the parent saw only its
        report, the call's result). It is linked to its call by the parent's result naming its
        ``agentId`` (``toolUseResult.agentId``, Claude Code 2.x), by its messages naming the call
        (a stream's ``parent_tool_use_id``), else by its prompt being the call's (1.x, whose inline
        sidechains name no agent). A sidechain no call started (the
        ``Warmup`` agents Claude Code 2.x writes) is no episode, still counted in the parent's
        ``skipped_entries``. Lineage both ways: the sub-agent's ``extra_json.parent`` (episode and
        call), the parent's ``extra_json.sub_agents``."""
        groups = _sidechains(record.value["lines"])
        if not groups:
            return []
        agents = _started_agents(record.value["lines"])
        episodes = []
        for parent in parents:
            started = []
            for call in (c for e in parent.events for c in e.tool_calls if c.name in SUB_AGENT_TOOLS):
                key = agents.get(call.id or "") or (call.id if call.id in groups else None)
                key = key or _prompt_key(call.arguments, groups)
                lines = groups.pop(key, None) if key is not None else None
                if lines is None:
                    continue
                sub = self._episode(
                    RawRecord(
                        lines[0].line,
                        f"{parent.source_path}/agent-{key}",
                        value={"session": record.value["session"], "lines": lines},
                    ),
                    src,
                    None,
                    set(),
                )
                sub.episode_id = f"{parent.episode_id}/agent-{key}"
                sub.extra_json = canonical_json(
                    {**sub.extra(), "parent": {"episode_id": parent.episode_id, "tool_call_id": call.id}}
                )
                started.append({"episode_id": sub.episode_id, "tool_call_id": call.id})
                episodes.append(sub)
            if started:
                parent.extra_json = canonical_json({**parent.extra(), "sub_agents": started})
        return episodes

    def _conversations(self, record: RawRecord, src: SourceFile) -> list[Episode]:
        """One episode; or, for a session resumed twice from one point (:func:`_branches`), one
        per branch, each with what came before it: the branch of the last entry keeps the first
        session's id, the others are ``<id>/<k>`` (path ``<path>/<k>``), ``k`` the branch's number
        in the order the branches end; each counts the other's entries as ``other branch``."""
        branches = _branches(record)
        if not branches:
            return [self.parse(record, src)]
        entries = [line.value for line in record.value["lines"] if isinstance(line.value, dict)]
        by_uuid = {e["uuid"]: e for e in entries if isinstance(e.get("uuid"), str)}
        chains = [set(_chain(by_uuid, leaf)) for leaf in branches]
        episodes = []
        for number, leaf in enumerate(branches, start=1):
            elsewhere = set().union(*chains) - chains[number - 1]
            episode = self._episode(record, src, leaf, elsewhere)
            if number < len(branches):
                episode.episode_id = f"{episode.episode_id}/{number}"
                episode.source_path = f"{episode.source_path}/{number}"
            episodes.append(episode)
        return episodes

    def parse(self, record: RawRecord, src: SourceFile) -> Episode:
        return self._episode(record, src, None, set())

    def _episode(
        self, record: RawRecord, src: SourceFile, leaf: dict[str, Any] | None, elsewhere: set[str]
    ) -> Episode:
        """The conversation ending at ``leaf`` (else at the last entry); the entries of other
        branches (``elsewhere``) are counted as ``other branch``, not as rewound."""
        episode = self.new_episode(record, src, f"{self.name}:{record.value['session']}")
        skipped: Counter[str] = Counter()
        last_message_id: str | None = None
        stream: dict[str, Any] = {}
        entries = [r.value for r in record.value["lines"] if isinstance(r.value, dict)]
        rewound = _rewound(entries, leaf)
        titles: list[dict[str, Any]] = []
        read: dict[str, Any] = {}  # the messages read, by line: where their citations are
        folders: dict[str, str] = {}  # the cwd of the entry each tool result came in, by event index
        for line in record.value["lines"]:
            entry = expect(line.value, dict, f"line {line.line}")
            kind = entry.get("type")
            if entry.get("uuid") in rewound:
                skipped[OTHER_BRANCH if entry.get("uuid") in elsewhere else "rewound"] += 1
                continue
            if "session_id" in entry and (
                kind == "result" or kind == "system" and entry.get("subtype") == "init"
            ):
                stream[kind] = entry  # a stream's first and last lines: read after the messages
                continue
            if (unknown := _unknown_entry(entry, line.line)) is not None:
                raise unknown
            sub_agent = entry.get("isSidechain") or entry.get("parent_tool_use_id") is not None
            if sub_agent or kind not in (*ENTRY_TYPES, "summary"):
                skipped["sidechain" if sub_agent else str(kind)] += 1
                continue
            if kind == "summary":  # the session's title in the /resume list, never shown to the model
                title = optional_str(entry.get("summary"), f"line {line.line}.summary")
                titles.append({"title": title, "leafUuid": entry.get("leafUuid")})
                continue
            message = expect(entry.get("message"), dict, f"line {line.line}.message")
            if kind == "assistant" and (
                entry.get("isApiErrorMessage") is True or message.get("model") == SYNTHETIC_MODEL
            ):
                skipped["synthetic"] += 1  # the runtime's words (an API error), not the model's
                continue
            stamp = timestamp_of(entry.get("timestamp"), f"line {line.line}.timestamp")
            if kind == "user" and entry.get("isCompactSummary") is True:
                summary = text_of(message.get("content"), f"line {line.line}.message.content")
                through = len(episode.events) - 1 if episode.events else None
                episode.events.append(
                    Event(kind="compaction", content=summary, replaces_through=through, timestamp=stamp)
                )
                last_message_id = None
                continue
            read[f"line_{line.line}"] = message
            before = len(episode.events)
            message_id = message.get("id") if kind == "assistant" else None
            previous = episode.events[-1] if episode.events else None
            if message_id and message_id == last_message_id and previous is not None:
                merged, *results = events_of_message(message, f"line {line.line}.message")
                turn = next(e for e in reversed(episode.events) if e.kind == "assistant")
                turn.tool_calls.extend(merged.tool_calls)
                turn.content = "\n".join(t for t in (turn.content, merged.content) if t) or None
                turn.reasoning = "\n".join(t for t in (turn.reasoning, merged.reasoning) if t) or None
                _take_later_facts(turn, merged)
                episode.events.extend(results)
            else:
                for event in events_of_message(message, f"line {line.line}.message"):
                    event.timestamp = stamp
                    episode.events.append(event)
                if kind == "assistant":
                    episode.lineage.model = episode.lineage.model or message.get("model")
            if isinstance(cwd := entry.get("cwd"), str) and cwd.startswith("/"):
                results_at = range(before, len(episode.events))
                folders.update({str(i): cwd for i in results_at if episode.events[i].kind == "tool"})
            last_message_id = message_id
        episode.task.prompt = next((e.content for e in episode.events if e.kind == "user"), None)
        lines = record.value["lines"]
        spoken = (r.value for r in lines if r.value.get("type") in ENTRY_TYPES and _session_of(r.value))
        first = next(spoken, lines[0].value)  # what cwd and version are read from
        extra = {"cwd": first.get("cwd"), "version": first.get("version")}
        if len(set(folders.values())) > 1:  # where the shell moved: evidence it kept its folder
            extra["working_dirs"] = folders
        if stream:
            self._stream(stream, episode, extra)
        if record.value.get(REPEATED):
            skipped["repeated"] = record.value[REPEATED]
        if skipped:
            extra["skipped_entries"] = dict(sorted(skipped.items()))
        if titles:
            extra["titles"] = titles
        if len(record.value.get(SESSIONS, ())) > 1:
            written = {_session_of(e) for e in entries if e.get("uuid") not in rewound}
            extra[SESSIONS] = [session for session in record.value[SESSIONS] if session in written]
        episode.extra_json = canonical_json(extra)
        keep_citations(episode, read)
        for event in episode.events:
            if event.kind == "tool" and (event.content or "").startswith(USER_REJECTED):
                event.status = "refused"  # refused before it ran, not a failure of the call
        name_tool_results(episode.events)
        return episode

    @staticmethod
    def _stream(lines: dict[str, Any], episode: Episode, extra: dict[str, Any]) -> None:
        """What a stream's ``init`` and ``result`` lines say: the model, the tools by name and the
        working folder; the final answer, the terminal status, the run's turns and cost."""
        init = lines.get("system") or {}
        episode.lineage.model = episode.lineage.model or optional_str(init.get("model"), "system.model")
        tools = expect(init.get("tools") or [], list, "system.tools")
        episode.tools = [ToolSpec(name=expect(t, str, f"system.tools[{i}]")) for i, t in enumerate(tools)]
        extra["cwd"] = extra["cwd"] or init.get("cwd")
        result = lines.get("result")
        if result is None:
            return
        subtype = optional_str(result.get("subtype"), "result.subtype")
        failed = result.get("is_error") is True or (subtype or "").startswith("error")
        episode.outcome.terminal_status = RESULT_STATUS.get(subtype or "", "error" if failed else None)
        episode.outcome.final_answer = optional_str(result.get("result"), "result.result")
        extra["result"] = {
            k: result.get(k) for k in ("num_turns", "duration_ms", "total_cost_usd") if k in result
        }
