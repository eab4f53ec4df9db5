"""Tool calls, tool results and reasoning written as markup inside message text, lifted into the
record's structured fields.

Open-weight chat templates and many agents write tool use into the assistant's text instead of a
structured field: Hermes / Qwen ``<tool_call>{"name", "arguments"}</tool_call>`` (JSON, or a Python
literal with single quotes) answered by ``<tool_response>`` turns, Llama 3.1 ``<function=name>{...}
</function>``, Qwen3-Coder ``<tool_call><function=name><parameter=key>value</parameter>...``,
``<function_call>{...}</function_call>``, Cline's XML elements named after the tool
(``<read_file><path>a.py</path></read_file>``), and ``<think>`` / ``<thinking>`` / ``<reasoning>``
blocks. Kept as text, the record holds no calls: replay cannot run them and training masks them as
prose. :func:`lift_inline_markup` runs once on every imported episode (``ingest.py``), whatever its
format, so each chat-like adapter gets it without a call of its own.

What counts as markup (the false-positive rule): a tag opening a line (only blanks before it on
its line, or right after another lifted block), outside fenced code blocks. A message that talks
*about* ``<tool_call>`` in a sentence, a quote (``> ...``), inline code or a code fence stays text.
An explicit call tag (``tool_call``, ``function_call``, ``function=``) must hold a payload that
parses (``json``, else :func:`ast.literal_eval`, never ``eval``) into a call that names its tool.
A bare XML element is a call only when its name is a tool the episode declares (its ``tools``, or
the format's fixed tool set: Cline's), since ``<path>`` or ``<result>`` alone mean nothing.

Calls are lifted only in an episode with no structured call at all: a log that records calls in
fields says what its calls were, and its text is the model's prose. Reasoning is lifted into an
assistant turn whose ``reasoning`` is empty. A malformed block (an unclosed tag, a payload that does
not parse or names no tool) is never guessed at: the turn keeps its text, and the reason is counted
(``extra_json.inline_markup.kept_as_text``; :data:`MARKUP_KEY`), as are the blocks lifted.
"""

from __future__ import annotations

import ast
import dataclasses
import json
import re
from collections import Counter
from dataclasses import dataclass, field
from typing import Any

from trajectory_platform.traces.adapters.base import RecordError, arguments_text, parse_json
from trajectory_platform.traces.adapters.openai import tool_specs_of
from trajectory_platform.traces.adapters.text_conventions import (
    CREWAI,
    MISTRAL,
    QWEN_AGENT,
    REACT,
    UnreadConvention,
    lift_thought_tokens,
    mistral_calls,
    mistral_result,
    observation,
    qwen_agent_turns,
    qwen_result,
    react_call,
    react_turns,
)
from trajectory_platform.traces.record import Episode, Event, ToolCall, ToolSpec, canonical_json

MARKUP = "markup"
"""The convention of calls written as tags (``<tool_call>``, ``<function=...>``, a declared tool's
element), answered by ``<tool_response>`` blocks; the others are ``text_conventions``'."""

MARKUP_KEY = "inline_markup"
"""The ``extra_json`` key holding what :func:`lift_inline_markup` lifted, and kept as text (by reason)."""

REASONING_TAGS = ("think", "thinking", "reasoning")
CALL_TAGS = ("tool_call", "function_call")
RESULT_TAGS = ("tool_response", "tool_result")

_BLANKS = re.compile(r"\s*")
_FENCE = re.compile(r"^[ \t]*(```|~~~)", re.MULTILINE)
_OPEN = re.compile(r"<(function=[\w.\-]+|[a-z_][\w\-]*)>")
_FUNCTION = re.compile(r"\A\s*<function=([\w.\-]+)>(.*)</function>\s*\Z", re.DOTALL)
_PARAMETER = re.compile(r"<parameter=([\w.\-]+)>\n?(.*?)\n?</parameter>", re.DOTALL)
_CHILD = re.compile(r"<([a-z_][\w\-]*)>\n?(.*?)\n?</\1>", re.DOTALL)


class MarkupError(ValueError):
    """A block that looks like markup but cannot be read: its ``reason`` is the counted key."""

    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason


@dataclass
class Block:
    """One top-level tag of a text: its name (``function=x`` kept whole), its inner text, its span."""

    tag: str
    inner: str
    start: int
    end: int


@dataclass
class MarkupTally:
    """What was lifted, and what was kept as text by reason: recorded on the episode."""

    lifted: Counter[str] = field(default_factory=Counter)
    kept_as_text: Counter[str] = field(default_factory=Counter)

    def as_json(self) -> dict[str, Any]:
        """The tally as ``extra_json`` records it: only the parts that counted something."""
        out: dict[str, Any] = {}
        if self.lifted:
            out["lifted"] = dict(sorted(self.lifted.items()))
        if self.kept_as_text:
            out["kept_as_text"] = dict(sorted(self.kept_as_text.items()))
        return out


def _fenced_spans(text: str) -> list[tuple[int, int]]:
    """Character spans inside fenced code blocks (an unclosed fence runs to the end)."""
    marks = [m.start() for m in _FENCE.finditer(text)]
    if len(marks) % 2:
        marks.append(len(text))
    return list(zip(marks[::2], marks[1::2], strict=True))


def _opens_line(text: str, start: int) -> bool:
    """Is only blank space before ``start`` on its line? (Scans the blanks only: linear overall.)"""
    while start > 0 and text[start - 1] in " \t":
        start -= 1
    return start == 0 or text[start - 1] == "\n"


def top_level_blocks(text: str, tags: frozenset[str]) -> list[Block]:
    """The blocks of ``text`` whose tag is in ``tags`` (``function=`` stands for every
    ``function=name``) and that stand at top level: opening a line or right after another block,
    outside fenced code. Raises :class:`MarkupError` for such a tag left unclosed."""
    fences = _fenced_spans(text)
    fence = 0  # the first fence not wholly before the match: matches come in text order (linear)
    blocks: list[Block] = []
    pos = 0
    after_block = -1  # where the next block may start right after the last one
    while (match := _OPEN.search(text, pos)) is not None:
        tag, start = match.group(1), match.start()
        family = "function=" if tag.startswith("function=") else tag
        pos = match.end()
        while fence < len(fences) and fences[fence][1] <= start:
            fence += 1
        if family not in tags or (fence < len(fences) and fences[fence][0] <= start):
            continue
        if start != after_block and not _opens_line(text, start):
            continue
        closing = "</function>" if family == "function=" else f"</{tag}>"
        close = text.find(closing, pos)
        if close < 0:
            raise MarkupError(f"unclosed {family.rstrip('=')} tag")
        blocks.append(Block(tag, text[pos:close], start, close + len(closing)))
        pos = close + len(closing)
        after_block = _BLANKS.match(text, pos).end()  # type: ignore[union-attr]
    return blocks


def _rest(text: str, blocks: list[Block]) -> str | None:
    """``text`` without ``blocks``, trimmed; ``None`` when nothing else was written."""
    pieces, pos = [], 0
    for block in blocks:
        pieces.append(text[pos : block.start])
        pos = block.end
    pieces.append(text[pos:])
    rest = "".join(pieces).strip()
    return rest or None


def literal(payload: str) -> Any:
    """A payload read as JSON, else as a Python literal (``ast.literal_eval``: data only, never
    code), as templates that print a Python dict write it. Raises :class:`MarkupError`."""
    text = payload.strip()
    try:
        return parse_json(text)
    except (json.JSONDecodeError, RecordError):
        pass
    try:
        return ast.literal_eval(text)
    except (ValueError, SyntaxError, TypeError, MemoryError, RecursionError):
        raise MarkupError("unparseable call payload") from None


def _call_of(value: Any) -> ToolCall:
    """A parsed payload as one call: ``{"name", "arguments" | "parameters"}`` or OpenAI's
    ``{"function": {...}}``; a payload naming no tool is no call."""
    if isinstance(value, dict) and isinstance(value.get("function"), dict):
        value = {**value["function"], "id": value.get("id")}
    if not isinstance(value, dict) or not isinstance(value.get("name"), str) or not value["name"]:
        raise MarkupError("call payload names no tool")
    arguments = value.get("arguments", value.get("parameters", value.get("args")))
    call_id = value.get("id") if isinstance(value.get("id"), str) else None
    return ToolCall(id=call_id, name=value["name"], arguments=arguments_text(arguments))


def _function_block(name: str, inner: str) -> ToolCall:
    """``<function=name>`` followed by a JSON / literal payload (Llama 3.1), or by
    ``<parameter=key>value</parameter>`` elements (Qwen3-Coder), or by nothing."""
    if not inner.strip():
        return ToolCall(id=None, name=name, arguments=None)
    parameters = _PARAMETER.findall(inner)
    if parameters:
        if _PARAMETER.sub("", inner).strip():
            raise MarkupError("text between function parameters")
        return ToolCall(id=None, name=name, arguments=canonical_json(dict(parameters)))
    arguments = literal(inner)
    if not isinstance(arguments, dict):
        raise MarkupError("function arguments are not an object")
    return ToolCall(id=None, name=name, arguments=canonical_json(arguments))


def _calls_of_block(block: Block, xml_tools: frozenset[str]) -> list[ToolCall]:
    """The calls one block writes."""
    if block.tag.startswith("function="):
        return [_function_block(block.tag.removeprefix("function="), block.inner)]
    if block.tag in xml_tools:
        children = _CHILD.findall(block.inner)
        if _CHILD.sub("", block.inner).strip():
            raise MarkupError("text between tool parameters")
        return [ToolCall(id=None, name=block.tag, arguments=canonical_json(dict(children)))]
    nested = _FUNCTION.match(block.inner)
    if nested is not None:
        return [_function_block(nested.group(1), nested.group(2))]
    value = literal(block.inner)
    return [_call_of(item) for item in value] if isinstance(value, list) else [_call_of(value)]


def _result_text(inner: str) -> tuple[str | None, str]:
    """A ``<tool_response>``'s tool name (when it wraps ``{"name", "content"}``) and its content."""
    try:
        value = literal(inner)
    except MarkupError:
        return None, inner.strip()
    if isinstance(value, dict) and isinstance(value.get("name"), str) and "content" in value:
        content = value["content"]
        return value["name"], content if isinstance(content, str) else canonical_json(content)
    return None, inner.strip()


def declared_in_system(events: list[Event]) -> list[ToolSpec]:
    """Tools a system prompt declares in a ``<tools>`` block (Hermes, Qwen: anywhere in the prompt,
    which the harness writes): one list, or one tool a line, JSON or Python literals. Raises
    :class:`MarkupError` when the block cannot be read."""
    for event in events:
        found = re.search(r"<tools>(.*?)</tools>", event.content or "", re.DOTALL)
        if event.kind != "system" or found is None:
            continue
        try:
            value = literal(found.group(1))
        except MarkupError:
            value = [literal(line) for line in found.group(1).splitlines() if line.strip()]
        try:
            return tool_specs_of(value if isinstance(value, list) else [value], "tools")
        except RecordError:
            raise MarkupError("unreadable tools block") from None
    return []


def _lift_reasoning(event: Event, tally: MarkupTally) -> None:
    """``<think>`` blocks of an assistant turn into its reasoning; also the text before a lone
    closing ``</think>`` that ends its line, as DeepSeek-R1's template leaves it (it opens the block
    in the prompt)."""
    text = event.content
    if event.kind != "assistant" or not text:
        return
    try:
        blocks = top_level_blocks(text, frozenset(REASONING_TAGS))
    except MarkupError as error:
        if event.reasoning is None:
            tally.kept_as_text[error.reason] += 1
        return
    if event.reasoning is not None:
        _drop_repeated_reasoning(event, text, blocks, tally)
        return
    if not blocks:
        head, closed, tail = text.partition("</think>")
        ends_its_line = not tail.split("\n", 1)[0].strip()
        if closed and ends_its_line and "<think>" not in head and not _fenced_spans(text):
            event.reasoning, event.content = head.strip() or None, tail.strip() or None
            tally.lifted["reasoning"] += 1
        return
    event.reasoning = "\n".join(b.inner.strip() for b in blocks) or None
    event.content = _rest(text, blocks)
    tally.lifted["reasoning"] += len(blocks)


def _drop_repeated_reasoning(event: Event, text: str, blocks: list[Block], tally: MarkupTally) -> None:
    """A turn whose reasoning field is also written as ``<think>`` blocks in its text (a server with
    a reasoning parser that also returned the raw text): the blocks leave the text, counted as
    ``reasoning_repeated``, so the reasoning is held once and the answer is the answer. Blocks that
    say something else than the field stay text, counted as kept (never guessed at)."""
    if not blocks:
        return
    said = " ".join("\n".join(b.inner.strip() for b in blocks).split())
    if said != " ".join((event.reasoning or "").split()):
        tally.kept_as_text["reasoning block unlike the reasoning field"] += len(blocks)
        return
    event.content = _rest(text, blocks)
    tally.lifted["reasoning_repeated"] += len(blocks)


def _lift_calls(event: Event, xml_tools: frozenset[str], tally: MarkupTally) -> list[str | None]:
    """Call blocks of an assistant turn into its ``tool_calls``; the names of the calls lifted."""
    if event.kind != "assistant" or not event.content:
        return []
    tags = frozenset({*CALL_TAGS, "function=", *xml_tools})
    try:
        blocks = top_level_blocks(event.content, tags)
        calls = [call for block in blocks for call in _calls_of_block(block, xml_tools)]
    except MarkupError as error:
        tally.kept_as_text[error.reason] += 1
        return []
    if not calls:
        return []
    event.tool_calls = calls
    event.content = _rest(event.content, blocks)
    tally.lifted["tool_calls"] += len(calls)
    return [call.name for call in calls]


def _lift_convention_calls(
    event: Event, following: Event | None, tally: MarkupTally, people: bool
) -> tuple[list[str | None], str | None]:
    """Calls an assistant turn writes in a plain-text convention (``text_conventions.py``):
    Mistral's ``[TOOL_CALLS]``, or a ReAct action when a tool's output comes next (a tool turn, or
    a user turn starting ``Observation:`` where a loop may have sent it: not in ``people``'s log,
    see :func:`_answers`); the names of the calls lifted, and their convention."""
    if event.kind != "assistant" or not event.content:
        return [], None
    try:
        found = mistral_calls(event.content)
        answered_next = following is not None and (
            following.kind == "tool" or (not people and observation(following) is not None)
        )
        convention = MISTRAL
        if found is None and answered_next and (react := react_call(event.content)) is not None:
            found, convention = ([react[0]], react[1]), REACT
    except UnreadConvention as error:
        tally.kept_as_text[error.reason] += 1
        return [], None
    if found is None:
        return [], None
    event.tool_calls, event.content = found
    tally.lifted["tool_calls"] += len(found[0])
    return [call.name for call in found[0]], convention


def _split_convention_turns(
    event: Event, frameworks: frozenset[str], tally: MarkupTally
) -> tuple[list[Event], str] | None:
    """An assistant text that holds several turns in a plain-text convention (Qwen-Agent's, or ReAct
    steps with their observations appended, as CrewAI writes them: its calls, the results appended
    to it, the answer after them), as those turns; its results only where ``frameworks`` (the log's
    evidence, ``text_conventions.appending_frameworks``) names the framework that appends them.
    With the turns, their convention (what a later turn answering the calls left open must be
    written in). ``None`` for any other (an unreadable one, or Qwen-Agent's results with no
    evidence, is counted and kept as text)."""
    try:
        turns, convention = qwen_agent_turns(event, results_appended=QWEN_AGENT in frameworks), QWEN_AGENT
        if turns is None and CREWAI in frameworks:
            turns, convention = react_turns(event), REACT
    except UnreadConvention as error:
        tally.kept_as_text[error.reason] += 1
        return None
    if turns is None:
        return None
    tally.lifted["tool_calls"] += sum(len(turn.tool_calls) for turn in turns)
    tally.lifted["tool_results"] += sum(turn.kind == "tool" for turn in turns)
    return turns, convention


def _answers(
    event: Event, pending: list[str | None], convention: str | None, written_in: str, people: bool
) -> bool:
    """May ``event``, a result written in ``written_in``, answer the calls left open? A tool turn
    is the loop's own; a user turn only where it answers calls the model wrote in that same
    convention (a ReAct ``Observation:`` a ReAct action, a ``✿RESULT✿`` a ``✿FUNCTION✿`` call): the
    loop's reply to them. Anywhere else it is what a person typed (``Observation: ...`` after a
    ``<tool_call>``, or in a plain chat), and read as a tool's output it would have been trained on
    as the environment's words and escaped the fabrication check. In a log whose user turns are a
    person's by what the log is (``people``: a chat app's export,
    ``text_conventions.typed_by_people``) no user turn is a loop's reply, whatever it answers."""
    return event.kind == "tool" or (not people and bool(pending) and convention == written_in)


def _lift_convention_result(
    event: Event, pending: list[str | None], convention: str | None, tally: MarkupTally, people: bool
) -> list[Event] | None:
    """A turn that is the result of a lifted call in a plain-text convention: one Mistral
    ``[TOOL_RESULTS]`` block (by the call id it names), a ReAct ``Observation:`` or a Qwen-Agent
    ``✿RESULT✿`` turn, a user turn only where it answers the open calls (:func:`_answers`, the
    calls' ``convention``); ``None`` for any other."""
    if not event.content or event.kind not in ("tool", "user"):
        return None
    result, written_in = mistral_result(event.content), MISTRAL
    for text, form in ((observation(event), REACT), (qwen_result(event), QWEN_AGENT)):
        if result is None and pending and text is not None:
            result, written_in = (text, None), form
    if result is None or not _answers(event, pending, convention, written_in, people):
        return None
    content, call_id = result
    answered = pending.pop(0) if pending else event.tool_name
    tally.lifted["tool_results"] += 1
    lifted = dataclasses.replace(
        event, kind="tool", content=content, tool_name=answered, tool_call_id=call_id or event.tool_call_id
    )
    return [lifted]


def _lift_results(
    event: Event, pending: list[str | None], convention: str | None, tally: MarkupTally, people: bool
) -> list[Event]:
    """A tool turn, or a user turn answering calls lifted from tags (Qwen puts results in the user
    turn; :func:`_answers`), made wholly of ``<tool_response>`` blocks: one tool event per block,
    named by the block or by the pending call it answers, in order."""
    if (
        not event.content
        or event.kind not in ("tool", "user")
        or not _answers(event, pending, convention, MARKUP, people)
    ):
        return [event]
    try:
        blocks = top_level_blocks(event.content, frozenset(RESULT_TAGS))
    except MarkupError as error:
        tally.kept_as_text[error.reason] += 1
        return [event]
    if not blocks:
        return [event]
    if _rest(event.content, blocks) is not None:
        tally.kept_as_text["tool response beside text"] += 1
        return [event]
    results = []
    for block in blocks:
        name, content = _result_text(block.inner)
        answered = pending.pop(0) if pending else event.tool_name
        results.append(
            dataclasses.replace(
                event,
                kind="tool",
                content=content,
                tool_name=name or answered,
                tool_call_id=event.tool_call_id if len(blocks) == 1 else None,
            )
        )
    tally.lifted["tool_results"] += len(results)
    return results


def lift_inline_markup(
    episode: Episode,
    known_tools: frozenset[str] = frozenset(),
    frameworks: frozenset[str] = frozenset(),
    people: bool = False,
) -> MarkupTally:
    """Lift the episode's inline markup into its structured fields (in place) and record the tally
    in ``extra_json`` under :data:`MARKUP_KEY` when anything was lifted or kept. ``known_tools`` are
    tool names the format fixes (Cline's), read as XML-element calls as declared tools are.
    ``frameworks``: those the log shows produced it whose loop appends each tool's output to the
    acting text (``text_conventions.appending_frameworks``), so a result there in that framework's
    convention is the tool's; any other is the model's own text. ``people``: the log's user turns
    are a person's by what the log is (``text_conventions.typed_by_people``), never a loop's reply."""
    tally = MarkupTally()
    for event in episode.events:
        if lift_thought_tokens(event):
            tally.lifted["reasoning"] += 1
        _lift_reasoning(event, tally)
    if not any(event.tool_calls for event in episode.events):
        _lift_all_calls(episode, known_tools, frameworks, tally, people)
    if tally.lifted or tally.kept_as_text:
        extra = episode.extra()
        if episode.extra_json and not extra:
            extra = {"extra": episode.extra_json}
        extra[MARKUP_KEY] = tally.as_json()
        episode.extra_json = canonical_json(extra)
    return tally


def _lift_all_calls(
    episode: Episode,
    known_tools: frozenset[str],
    frameworks: frozenset[str],
    tally: MarkupTally,
    people: bool,
) -> None:
    """Calls and their results, across the episode in order; tools a ``<tools>`` block declares
    become the episode's tools when it lists none."""
    if not episode.tools:
        try:
            episode.tools = declared_in_system(episode.events)
        except MarkupError as error:
            tally.kept_as_text[error.reason] += 1
    xml_tools = frozenset({*known_tools, *(tool.name for tool in episode.tools)})
    events: list[Event] = []
    pending: list[str | None] = []
    convention: str | None = None  # the convention the open calls were written in
    for index, event in enumerate(episode.events):
        following = episode.events[index + 1] if index + 1 < len(episode.events) else None
        split = _split_convention_turns(event, frameworks, tally)
        if split is not None:  # one text holding several turns: its calls, their results, an answer
            turns, convention = split
            events.extend(turns)
            last = turns[-1]
            pending = [call.name for call in last.tool_calls] if last.kind == "assistant" else []
            continue
        names = _lift_calls(event, xml_tools, tally)
        written_in: str | None = MARKUP
        if not names:
            names, written_in = _lift_convention_calls(event, following, tally, people)
        if event.kind == "assistant":
            pending, convention = names, written_in  # a turn without calls leaves none open
            events.append(event)
            continue
        replies = _lift_convention_result(event, pending, convention, tally, people) or _lift_results(
            event, pending, convention, tally, people
        )
        if event.kind == "user" and replies[0] is event:
            pending = []  # a person spoke before any reply came: the loop never answered those calls
        events.extend(replies)
    if tally.lifted["tool_calls"] or tally.lifted["tool_results"]:
        episode.events = events
