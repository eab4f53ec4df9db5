"""Tool use and reasoning written as plain text in conventions that are not XML-like tags (those are
``inline_markup.py``'s), read into the structured fields by the same rules:

- OpenThoughts / Bespoke-Stratos: ``<|begin_of_thought|> ... <|end_of_thought|>`` then, optionally,
  ``<|begin_of_solution|> ... <|end_of_solution|>`` -> the turn's reasoning and its answer;
- Mistral's raw template tokens: ``[TOOL_CALLS][{"name", "arguments", "id"}]`` (or
  ``[TOOL_CALLS]name[ARGS]{...}``) -> calls; ``[TOOL_RESULTS]{"content", "call_id"}[/TOOL_RESULTS]``
  -> the result of the call it names;
- ReAct (LangChain's agents, ToolLLaMA / ToolBench's ShareGPT): ``Action: name`` then
  ``Action Input: ...`` -> a call, only when a tool turn, or a user turn starting ``Observation:``
  (ReAct's loop sends the tool's output back so), comes next; that observation -> the tool result.
  Where the loop appends the observation to the acting text itself (CrewAI's agent executor), the
  text is split into the turns it holds (:func:`react_turns`): the call, its result, and any text
  written after it. Only where the log shows that framework produced it
  (:func:`appending_frameworks`): anywhere else an observation in the acting text is one the model
  made up (ReAct's classic failure when no stop sequence cut it off at ``Observation:``), and it
  stays the model's text;
- Qwen-Agent's function-calling text: ``✿FUNCTION✿: name`` then ``✿ARGS✿: {...}`` -> a call,
  ``✿RESULT✿: ...`` -> its result, ``✿RETURN✿: ...`` -> the answer after the results. Qwen-Agent
  writes a whole step (calls, the results its framework appended, the answer) into one assistant
  text, so that text is split into the turns it holds (:func:`qwen_agent_turns`): the result is the
  tool's words, never the model's, and the answer was written after the model saw it. Only where
  the log shows Qwen-Agent produced it (:func:`appending_frameworks`, by the same rule as CrewAI's):
  anywhere else a ``✿RESULT✿`` in the model's text is one it made up, and the text stays whole.

Left as text, the calls were prose (no replay, the training mask read them as the model's words) and
a tool's output was a user turn or a result answering no call (``validate.py`` now rejects the
latter). Every pattern must open the text or a line, so a message that mentions one in a sentence
stays text; a block that cannot be read raises :class:`UnreadConvention`, counted, never guessed at.
"""

from __future__ import annotations

import dataclasses
import json
import re
from typing import Any

from trajectory_platform.traces.adapters.base import RecordError, arguments_text, parse_json
from trajectory_platform.traces.adapters.chatgpt_export import is_conversation as is_chatgpt_conversation
from trajectory_platform.traces.adapters.datasets import is_crewai_output
from trajectory_platform.traces.record import Event, ToolCall, canonical_json


class UnreadConvention(ValueError):
    """A block in one of these conventions that cannot be read: its ``reason`` is counted."""

    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason


_THOUGHT = re.compile(
    r"\A\s*<\|begin_of_thought\|>(?P<thought>.*?)<\|end_of_thought\|>\s*"
    r"(?:<\|begin_of_solution\|>(?P<solution>.*?)<\|end_of_solution\|>)?(?P<rest>.*)\Z",
    re.DOTALL,
)


def lift_thought_tokens(event: Event) -> bool:
    """An assistant turn opening with a thought block: its reasoning, and the solution (else the text
    after the block) its answer. Text after a solution block is not guessed at (False)."""
    if event.kind != "assistant" or event.reasoning is not None or not event.content:
        return False
    match = _THOUGHT.match(event.content)
    if match is None or (match["solution"] is not None and match["rest"].strip()):
        return False
    answer = match["solution"] if match["solution"] is not None else match["rest"]
    event.reasoning, event.content = match["thought"].strip() or None, answer.strip() or None
    return True


MISTRAL_CALLS, MISTRAL_ARGS = "[TOOL_CALLS]", "[ARGS]"
_MISTRAL_RESULTS = re.compile(r"\A\s*\[TOOL_RESULTS\](?P<payload>.*?)\[/TOOL_RESULTS\]\s*\Z", re.DOTALL)


def mistral_calls(text: str) -> tuple[list[ToolCall], str | None] | None:
    """The calls of an assistant text holding Mistral's ``[TOOL_CALLS]`` token at the start of the
    text or of a line, and the text before it; ``None`` when it holds none."""
    head, marker, tail = text.partition(MISTRAL_CALLS)
    if not marker or (head.strip() and not head.endswith("\n")):
        return None
    if tail.lstrip().startswith("["):
        payload = _json(tail, "unreadable [TOOL_CALLS] payload")
        if not isinstance(payload, list) or not all(isinstance(c, dict) for c in payload):
            raise UnreadConvention("unreadable [TOOL_CALLS] payload")
        calls = [_call(c.get("id"), c.get("name"), c.get("arguments")) for c in payload]
    else:  # v11 and later: name[ARGS]{...}, each call after its own [TOOL_CALLS]
        calls = []
        for piece in tail.split(MISTRAL_CALLS):
            name, args_marker, arguments = piece.partition(MISTRAL_ARGS)
            if not args_marker:
                raise UnreadConvention("unreadable [TOOL_CALLS] payload")
            calls.append(_call(None, name.strip(), _json(arguments, "unreadable [TOOL_CALLS] payload")))
    return calls, head.strip() or None


def mistral_result(text: str) -> tuple[str, str | None] | None:
    """A turn that is one ``[TOOL_RESULTS]`` block: the result's text and the call id it names."""
    match = _MISTRAL_RESULTS.match(text)
    if match is None:
        return None
    try:
        payload = parse_json(match["payload"])
    except (json.JSONDecodeError, RecordError):
        return match["payload"].strip(), None
    if isinstance(payload, dict) and "content" in payload:
        content, call_id = payload["content"], payload.get("call_id")
        text_content = content if isinstance(content, str) else canonical_json(content)
        return text_content, call_id if isinstance(call_id, str) else None
    return match["payload"].strip(), None


_ACTION = re.compile(
    r"^Action:[ \t]*(?P<name>[^\n]+?)[ \t]*\n+Action Input:[ \t]*(?P<input>.*?)[ \t]*"
    r"(?=\n(?:Observation|Thought|Final Answer):|\Z)",
    re.MULTILINE | re.DOTALL,
)
OBSERVATION = "Observation:"


def react_call(text: str) -> tuple[ToolCall, str | None] | None:
    """The last ``Action:`` / ``Action Input:`` pair of an assistant text, each opening its line:
    a call (its input as the model wrote it), and the text before it (the thought)."""
    matches = list(_ACTION.finditer(text))
    if not matches:
        return None
    last = matches[-1]
    if text[last.end() :].strip():
        return None  # text after the action: not a turn that ends by acting
    call = _call(None, last["name"].strip(), last["input"].strip())
    return call, text[: last.start()].strip() or None


_REACT_STEP = re.compile(
    r"^Action:[ \t]*(?P<name>[^\n]+?)[ \t]*\n+Action Input:[ \t]*(?P<input>.*?)[ \t]*\n"
    r"Observation:[ \t]*(?P<observation>.*?)[ \t]*(?=\n(?:Thought|Action|Final Answer):|\Z)",
    re.MULTILINE | re.DOTALL,
)
"""One ReAct step written whole into one text: the action, its input, and the observation the
framework appended to it (CrewAI's agent executor appends the tool's output to the assistant
message so, as Qwen-Agent appends its results)."""


def react_turns(event: Event) -> list[Event] | None:
    """The turns an assistant text holding whole ReAct steps holds, in order: per step, the turn
    acting (the text before the action, its thought, as content; the action a call) and a tool
    event answering it (the observation); then, where text follows the last observation (the next
    thought, a ``Final Answer:``), a new assistant turn written after the model saw that result.
    ``None`` for a text with no ``Observation:`` after an action (an action whose result comes in
    the next turn is :func:`react_call`'s). Each part must open its line, so a sentence mentioning
    them stays text. Called only where :func:`appending_frameworks` says CrewAI wrote the
    observations."""
    text = event.content or ""
    steps = list(_REACT_STEP.finditer(text)) if event.kind == "assistant" else []
    if not steps:
        return None
    turns: list[Event] = []
    start = 0
    for number, step in enumerate(steps):
        before = text[start : step.start()].strip() or None
        base = event if number == 0 else Event(kind="assistant")
        turns.append(
            dataclasses.replace(
                base, content=before, tool_calls=[_call(None, step["name"].strip(), step["input"].strip())]
            )
        )
        turns.append(Event(kind="tool", content=step["observation"].strip(), tool_name=step["name"].strip()))
        start = step.end()
    rest = text[start:].strip()
    if rest:
        turns.append(Event(kind="assistant", content=rest))
    return turns


_CREWAI_ROLE = re.compile(r"^[ \t]*(?:<[^>\n]*>[ \t]*)*You are\b", re.MULTILINE | re.IGNORECASE)
_CREWAI_GOAL = re.compile(r"^[ \t]*Your personal goal is:", re.MULTILINE | re.IGNORECASE)
_CREWAI_TOOL_RULES = re.compile(
    r"You ONLY have access to the following tools,?\s+and should NEVER make up tools", re.IGNORECASE
)
_CREWAI_ACTION_RULE = re.compile(r"^[ \t]*Action:[^\n]*\bonly one name of \[", re.MULTILINE | re.IGNORECASE)


def crewai_prompt(text: str) -> bool:
    """Is ``text`` CrewAI's agent prompt? Its role-playing template (a line ``You are {role}.
    {backstory}``, then a line ``Your personal goal is: {goal}``; older versions put the backstory
    on lines of its own, and a custom ``system_template`` may put text or template tokens before
    it), or the tool rules it writes (``You ONLY have access to the following tools, and should
    NEVER make up tools that are not listed here``) with its action line (``Action: the action to
    take, only one name of [...]``): other prompts copy the first sentence alone. A role and a goal
    in other words, or another framework's ReAct instructions (LangChain's ``Action: the action to
    take, should be one of [...]``), are not."""
    goal = _CREWAI_GOAL.search(text)
    role = goal is not None and _CREWAI_ROLE.search(text, 0, goal.start()) is not None
    return role or (
        _CREWAI_TOOL_RULES.search(text) is not None and _CREWAI_ACTION_RULE.search(text) is not None
    )


REACT, MISTRAL = "react", "mistral"
"""Conventions whose calls a turn of their own answers (:func:`observation`, :func:`mistral_result`);
Qwen-Agent's (:func:`qwen_result`) is named :data:`QWEN_AGENT`."""

CREWAI, QWEN_AGENT = "crewai", "qwen-agent"
"""The frameworks whose loop appends each tool's output to the model's acting text: CrewAI's agent
executor (a ReAct ``Observation:``, :func:`react_turns`) and Qwen-Agent (``✿RESULT✿``,
:func:`qwen_agent_turns`)."""


def appending_frameworks(record: Any, events: list[Event]) -> frozenset[str]:
    """The frameworks (:data:`CREWAI`, :data:`QWEN_AGENT`) that the log shows produced it, whose
    loop appends each tool's output to the acting text, so that a result written there is the
    tool's: the one rule for every split of results out of a model's text. Anywhere else a result
    in the model's own text is one it made up (ReAct's classic failure when no stop sequence cut it
    off at ``Observation:``; a Qwen model going on past ``✿RESULT✿``), and reading it as a tool's
    output would trust a fabrication.

    The evidence is what the framework itself wrote and no speaker of the conversation can: the
    system turns opening the conversation (the prompt the framework sends, set by whoever deployed
    the agent) holding its own prompt (:func:`crewai_prompt`, :func:`qwen_agent_prompt`), or the
    record's own structure naming it (a CrewAI result object anywhere in the record,
    ``datasets.is_crewai_output``). A user's turn is never evidence: a person can paste any
    framework's prompt there (so CrewAI run with its system prompt off, which sends the prompt as
    the first user turn, has its results split only where its result object is logged), and
    neither is the model's text. An episode with no assistant text holding a result marker has
    nothing to split: its record is not walked."""
    marked = {
        framework
        for framework, mark in _RESULT_MARKS.items()
        if any(e.kind == "assistant" and mark in (e.content or "") for e in events)
    }
    if not marked:
        return frozenset()
    leading = []
    for event in events:
        if event.kind != "system":
            break
        leading.append(event.content or "")
    found = {framework for framework in marked if any(_PROMPTS[framework](text) for text in leading)}
    if CREWAI in marked - found and _holds_crewai_output(record):
        found.add(CREWAI)
    return frozenset(found)


CLAUDE_AI_SENDERS = frozenset({"human", "assistant"})
"""Who speaks in a Claude.ai export's ``chat_messages`` (``sender``)."""


def typed_by_people(record: Any) -> bool:
    """Is every user turn of ``record`` a person's, by what the log is? A chat app's export: ChatGPT's
    ``conversations.json`` (the app's own tools answer as ``tool`` messages) and Claude.ai's
    (``chat_messages``, each ``sender`` ``human`` or ``assistant``, the app's tools answered inside
    the assistant message). No agent loop sends a tool's output there as the user, so a user turn
    written as a result (``Observation: ...`` straight after the model's own ``Action:``) is what a
    person typed, never a loop's reply (``inline_markup._answers``).

    Elsewhere (chat messages, ShareGPT) a person role-playing a loop right after the model's action
    writes the very record the loop would: nothing in the text, the roles or the log's fields tells
    them apart, so there the loop's reading stands (docs/formats.md)."""
    if is_chatgpt_conversation(record):
        return True
    messages = record.get("chat_messages") if isinstance(record, dict) else None
    return (
        isinstance(messages, list)
        and bool(messages)
        and all(isinstance(m, dict) and m.get("sender") in CLAUDE_AI_SENDERS for m in messages)
    )


def _holds_crewai_output(record: Any) -> bool:
    pending = [record]
    while pending:
        item = pending.pop()
        if isinstance(item, dict):
            if is_crewai_output(item):
                return True
            pending.extend(item.values())
        elif isinstance(item, list):
            pending.extend(item)
    return False


def observation(event: Event) -> str | None:
    """The tool output a ReAct loop sent back as a user turn starting ``Observation:`` (a result
    only where it answers a ReAct action, ``inline_markup``'s rule for user turns)."""
    text = (event.content or "").lstrip()
    return text[len(OBSERVATION) :].strip() if event.kind == "user" and text.startswith(OBSERVATION) else None


def _json(text: str, reason: str) -> Any:
    try:
        return parse_json(text.strip())
    except (json.JSONDecodeError, RecordError):
        raise UnreadConvention(reason) from None


def _call(call_id: Any, name: Any, arguments: Any) -> ToolCall:
    if not isinstance(name, str) or not name:
        raise UnreadConvention("call names no tool")
    return ToolCall(
        id=call_id if isinstance(call_id, str) and call_id else None,
        name=name,
        arguments=arguments_text(arguments),
    )


QWEN_FUNCTION, QWEN_ARGS, QWEN_RESULT, QWEN_RETURN = "FUNCTION", "ARGS", "RESULT", "RETURN"
_QWEN_KINDS = (QWEN_FUNCTION, QWEN_ARGS, QWEN_RESULT, QWEN_RETURN)
_QWEN_MARK = re.compile(r"^\u273f(?P<kind>FUNCTION|ARGS|RESULT|RETURN)\u273f:[ \t]?", re.MULTILINE)
"""A Qwen-Agent marker (``✿FUNCTION✿:``, the flower is U+273F) opening a line."""


def qwen_agent_prompt(text: str) -> bool:
    """Is ``text`` Qwen-Agent's function-calling prompt (its ``FN_CALL_TEMPLATE``, in English or
    Chinese, for one call or parallel ones)? Its format section defines each marker on a line of its
    own, in the order the model writes them: ``✿FUNCTION✿:``, ``✿ARGS✿:``, ``✿RESULT✿:``,
    ``✿RETURN✿:``. A prompt naming a marker in a sentence, or asking for calls without the results
    Qwen-Agent appends, is not."""
    first: dict[str, int] = {}
    for mark in _QWEN_MARK.finditer(text):
        first.setdefault(mark["kind"], mark.start())
    order = [first[kind] for kind in _QWEN_KINDS if kind in first]
    return len(order) == len(_QWEN_KINDS) and order == sorted(order)


MADE_UP_RESULT = "result in the model's own text"
"""Why a Qwen-Agent text is kept whole where no evidence says Qwen-Agent appended its results."""


def qwen_agent_turns(event: Event, results_appended: bool) -> list[Event] | None:
    """The turns an assistant text in Qwen-Agent's convention holds, in order: the turn making the
    calls (the text before the first marker its content), a tool event per ``✿RESULT✿`` answering
    the calls in order, a new assistant turn for calls made after results, and the ``✿RETURN✿``
    answer; ``None`` for a text holding no ``✿FUNCTION✿`` marker at a line's start. A marker out of
    place (``✿ARGS✿`` without its function, a result answering no call, an answer before every call
    is answered or followed by more) raises :class:`UnreadConvention`: the text is kept, counted.
    So does a ``✿RESULT✿`` where ``results_appended`` is false (the log shows no Qwen-Agent,
    :func:`appending_frameworks`): the model wrote that result itself, and it stays its text."""
    text = event.content or ""
    marks = list(_QWEN_MARK.finditer(text)) if event.kind == "assistant" else []
    if not any(mark["kind"] == QWEN_FUNCTION for mark in marks):
        return None
    if not results_appended and any(mark["kind"] == QWEN_RESULT for mark in marks):
        raise UnreadConvention(MADE_UP_RESULT)
    bodies = [
        (mark["kind"], text[mark.end() : marks[i + 1].start() if i + 1 < len(marks) else len(text)].strip())
        for i, mark in enumerate(marks)
    ]
    first = dataclasses.replace(event, content=text[: marks[0].start()].strip() or None, tool_calls=[])
    turns: list[Event] = [first]
    turn: Event | None = first
    unanswered: list[str | None] = []
    index = 0
    while index < len(bodies):
        kind, body = bodies[index]
        if kind == QWEN_FUNCTION:
            if index + 1 == len(bodies) or bodies[index + 1][0] != QWEN_ARGS:
                raise UnreadConvention("unreadable \u273fFUNCTION\u273f block")
            if turn is None:
                turn = Event(kind="assistant")
                turns.append(turn)
            turn.tool_calls.append(_call(None, body, bodies[index + 1][1]))
            unanswered.append(body)
            index += 2
            continue
        if kind == QWEN_RESULT and unanswered:
            turns.append(Event(kind="tool", content=body, tool_name=unanswered.pop(0)))
            turn = None
        elif kind == QWEN_RETURN and not unanswered and index + 1 == len(bodies):
            turns.append(Event(kind="assistant", content=body or None))
        else:
            raise UnreadConvention(f"\u273f{kind}\u273f out of place")
        index += 1
    return turns


def qwen_result(event: Event) -> str | None:
    """The tool output a turn of its own holds as one ``✿RESULT✿:`` block (a Qwen-Agent result
    answering the calls the turn before it left open)."""
    marks = list(_QWEN_MARK.finditer(event.content or ""))
    text = event.content or ""
    if len(marks) != 1 or marks[0]["kind"] != QWEN_RESULT or text[: marks[0].start()].strip():
        return None
    return text[marks[0].end() :].strip()


_RESULT_MARKS = {CREWAI: OBSERVATION, QWEN_AGENT: "\u273f" + QWEN_RESULT + "\u273f"}
"""What a result appended to the acting text opens with, per framework."""
_PROMPTS = {CREWAI: crewai_prompt, QWEN_AGENT: qwen_agent_prompt}
"""Each framework's own prompt, the evidence :func:`appending_frameworks` reads in a system turn."""
