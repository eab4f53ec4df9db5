"""Generated chat logs in which a user turn is written as a tool result in one of the text
conventions (a ReAct ``Observation:``, Qwen-Agent's ``✿RESULT✿:``, a ``<tool_response>`` block,
Mistral's ``[TOOL_RESULTS]``), for the rule of when such a turn is the loop's reply
(``inline_markup._answers``): only where it answers, in its own convention, the calls the model
wrote in the turn before it.

- :data:`DEV` / :data:`VALIDATION` (``typed``): a person typed the result. Either the model wrote
  no call (a plain chat), or a call in another convention (a ``<tool_call>`` answered by a typed
  ``Observation:``, a ``✿FUNCTION✿`` call by a typed ``[TOOL_RESULTS]``...), or the person spoke
  after the call before typing a result in its convention (:func:`interjected`). The turn must
  stay the user's, exactly as typed, and no tool event appear.
- :data:`DEV_GENUINE` / :data:`VALIDATION_GENUINE` (the controls): a loop answering the model's
  call in the call's own convention (a ReAct loop's ``Observation:`` after an ``Action:``,
  Qwen-Agent's ``✿RESULT✿`` after a ``✿FUNCTION✿`` call, Qwen's ``<tool_response>`` after a
  ``<tool_call>``, Mistral's ``[TOOL_RESULTS]`` after ``[TOOL_CALLS]``). Each must still pair the
  result to the call.

Every case is one log format (OpenAI messages, Anthropic messages, a ShareGPT record) under one
system prompt with one tool output. :data:`DEV` is what the rule was developed against; the
validation half (the Anthropic format, LangChain's ReAct prompt as the system prompt, the second
output, over several lines, the second interjection) was held out and measured once after."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from hallucinated_react import SYSTEMS

ASK = "The tests in calc.py fail. Run them and tell me the result."
ANSWER = "All 3 tests pass."
TOOL, ARGUMENTS = "run_tests", '{"path": "tests"}'

CALLS = {
    "none": "I cannot run code here; paste the test output and I will read it.",
    "react": f"Thought: I should run the tests.\nAction: {TOOL}\nAction Input: {ARGUMENTS}",
    "qwen": f"I will run the tests.\n\u273fFUNCTION\u273f: {TOOL}\n\u273fARGS\u273f: {ARGUMENTS}",
    "markup": f'<tool_call>\n{{"name": "{TOOL}", "arguments": {ARGUMENTS}}}\n</tool_call>',
    "mistral": f'[TOOL_CALLS][{{"name": "{TOOL}", "arguments": {ARGUMENTS}, "id": "abc123xyz"}}]',
}
"""What the model wrote before the user's turn: no call, or a call in each convention."""


def reply(convention: str, output: str) -> str:
    """A turn holding ``output`` as a result in ``convention``."""
    if convention == "react":
        return f"Observation: {output}"
    if convention == "qwen":
        return f"\u273fRESULT\u273f: {output}"
    if convention == "markup":
        return f"<tool_response>\n{output}\n</tool_response>"
    escaped = output.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n")
    return f'[TOOL_RESULTS]{{"content": "{escaped}", "call_id": "abc123xyz"}}[/TOOL_RESULTS]'


REPLIES = ("react", "qwen", "markup", "mistral")
OUTPUTS = ("3 passed in 0.02s", "tests/test_calc.py::test_add PASSED\n== 3 passed in 0.05s ==")


@dataclass(frozen=True)
class Case:
    """One generated log: its format, the record, the user's turn written as a result, and whether
    a loop sent it (answering the model's call in its own convention)."""

    name: str
    file: str
    record: Any
    typed: str
    output: str
    genuine: bool


def _openai(system: str | None, turns: list[tuple[str, str]]) -> Any:
    head = [{"role": "system", "content": system}] if system else []
    return {"messages": [*head, *({"role": role, "content": text} for role, text in turns)]}


def _anthropic(system: str | None, turns: list[tuple[str, str]]) -> Any:
    messages = [{"role": role, "content": [{"type": "text", "text": text}]} for role, text in turns]
    return {"model": "claude-sonnet-4-5", "system": system, "messages": messages} if system else messages


def _sharegpt(system: str | None, turns: list[tuple[str, str]]) -> Any:
    speakers = {"user": "human", "assistant": "gpt"}
    conversations = [{"from": speakers[role], "value": text} for role, text in turns]
    return {"id": "sg-1", "conversations": conversations, **({"system": system} if system else {})}


FORMATS = {"openai": _openai, "anthropic": _anthropic, "sharegpt": _sharegpt}


def cases(formats: tuple[str, ...], systems: tuple[int, ...], outputs: tuple[int, ...]) -> list[Case]:
    """Every pairing of a call (:data:`CALLS`) with a user turn written as a result
    (:data:`REPLIES`), in each of ``formats`` under each of ``systems`` (indices into
    ``hallucinated_react.SYSTEMS``) with each of ``outputs`` (indices into :data:`OUTPUTS`)."""
    found = []
    for fmt in formats:
        for system in systems:
            for out in outputs:
                for call, call_text in CALLS.items():
                    for form in REPLIES:
                        typed = reply(form, OUTPUTS[out])
                        turns = [("user", ASK), ("assistant", call_text), ("user", typed)]
                        turns.append(("assistant", ANSWER))
                        found.append(
                            Case(
                                f"{fmt}-system{system}-output{out}-{call}-call-{form}-reply",
                                f"{fmt}.json",
                                FORMATS[fmt](SYSTEMS[system], turns),
                                typed,
                                OUTPUTS[out],
                                genuine=call == form,
                            )
                        )
    return found


INTERJECTIONS = ("Did it run? Here is what I got:", "hold on, I ran it myself")
"""What a person says between the model's call and the result they then type."""


def interjected(formats: tuple[str, ...], systems: tuple[int, ...], said: tuple[int, ...]) -> list[Case]:
    """A call in each convention, then a person speaking (``said``: indices into
    :data:`INTERJECTIONS`), then a result in the call's own convention the person typed: the loop
    replies straight after the call, so it never answered it, and the calls are no longer open."""
    found = []
    for fmt in formats:
        for system in systems:
            for number in said:
                for form in REPLIES:
                    typed = reply(form, OUTPUTS[0])
                    turns = [("user", ASK), ("assistant", CALLS[form]), ("user", INTERJECTIONS[number])]
                    turns += [("user", typed), ("assistant", ANSWER)]
                    record = FORMATS[fmt](SYSTEMS[system], turns)
                    name = f"{fmt}-system{system}-said{number}-{form}-call-{form}-reply"
                    found.append(Case(name, f"{fmt}.json", record, typed, OUTPUTS[0], genuine=False))
    return found


def _halves(found: list[Case]) -> tuple[list[Case], list[Case]]:
    return [c for c in found if not c.genuine], [c for c in found if c.genuine]


DEV, DEV_GENUINE = _halves(
    cases(("openai", "sharegpt"), (0, 1), (0,)) + interjected(("openai", "sharegpt"), (0, 1), (0,))
)
VALIDATION, VALIDATION_GENUINE = _halves(
    cases(("anthropic",), (0, 1, 3), (0, 1))
    + cases(("openai", "sharegpt"), (3,), (1,))
    + interjected(("anthropic",), (0, 1, 3), (0, 1))
    + interjected(("openai", "sharegpt"), (3,), (1,))
)
