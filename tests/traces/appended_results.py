"""Generated logs whose assistant text holds tool results, for the one rule of whose results those
are (``text_conventions.appending_frameworks``): a framework's loop appended them only where the
log shows the framework produced it (its prompt in the system turns opening the conversation, or
its result object in the record); anywhere else the model wrote them itself.

- :data:`MADE_UP`: the model wrote the results itself. Qwen-Agent's ``✿FUNCTION✿`` /
  ``✿RESULT✿`` text in a plain chat (OpenAI messages, Anthropic messages, a ShareGPT record) under
  a plain system prompt, none, prompts naming the markers without being Qwen-Agent's, and
  Qwen-Agent's or CrewAI's own prompt pasted into the first user turn (a person can paste any
  prompt there). Each must stay the model's text, whole, and be flagged by the fabrication check.
- :data:`GENUINE`: Qwen-Agent's logs, its function-calling prompt (English, Chinese, one call or
  parallel) in the system turn: each text must still split into its calls, results and answer,
  and the answer, which restates what a result printed, must not be flagged (the controls).

:data:`DEV` / :data:`DEV_GENUINE` are what the rule was developed against; :data:`VALIDATION` /
:data:`VALIDATION_GENUINE` (the Anthropic format, the later layouts, the parallel templates, the
other pasted prompt) were held out and measured once after."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from hallucinated_react import FORMATS, LAYOUTS, Case
from test_react_observations_crewai_markers import ROLE, TOOLS


@dataclass(frozen=True)
class Step:
    """One step of a Qwen-Agent text: the text before its calls, its calls (name, arguments) and
    their results, in order."""

    before: str
    calls: tuple[tuple[str, str], ...]
    results: tuple[str, ...]


QWEN_LAYOUTS: tuple[tuple[tuple[Step, ...], str], ...] = (
    (
        (Step("I will run the tests.", (("run_tests", '{"path": "tests"}'),), ("3 passed in 0.02s",)),),
        "All 3 tests pass.",
    ),
    (
        (Step("", (("bash", '{"cmd": "pytest -q"}'),), ("$ pytest -q\n...\n5 passed in 0.10s",)),),
        "Fixed; 5 passed.",
    ),
    (
        (
            Step(
                "Read it and run them.",
                (("read_file", '{"path": "calc.py"}'), ("run_tests", "{}")),
                ("def add(a, b): return a + b", "== 1 failed, 4 passed in 0.31s =="),
            ),
        ),
        "One test still fails: 1 failed, 4 passed.",
    ),
    (
        (
            Step(
                "",
                (("pytest", '{"args": "-v"}'),),
                ("tests/test_calc.py::test_add PASSED\n2 passed in 0.05s",),
            ),
            Step("", (("lint", "{}"),), ("All checks passed!",)),
        ),
        "Both tests pass (2 passed) and lint is clean.",
    ),
)
"""What a Qwen model writes in one text: one call, a shell transcript, parallel calls, two steps.
Each result holds a test runner's output (what the fabrication check reads as a tool's output)."""


def qwen_text(layout: int) -> str:
    """The text of layout ``layout`` as Qwen-Agent joins a step (``preprocess_fncall_messages``)."""
    steps, answer = QWEN_LAYOUTS[layout]
    parts = []
    for step in steps:
        parts.extend([step.before] if step.before else [])
        parts.extend(f"\u273fFUNCTION\u273f: {name}\n\u273fARGS\u273f: {args}" for name, args in step.calls)
        parts.extend(f"\u273fRESULT\u273f: {result}" for result in step.results)
    return "\n".join([*parts, f"\u273fRETURN\u273f: {answer}"])


_TOOLS_EN = (
    "# Tools\n\n## You have access to the following tools:\n\n### run_tests\n\nrun_tests: runs the "
    'tests Parameters: {"type": "object"} Format the arguments as a JSON object.'
)
_TOOLS_ZH = (
    "# 工具\n\n## 你拥有如下工具：\n\n### run_tests\n\nrun_tests: 运行测试 "
    '输入参数：{"type": "object"} 此工具的输入应为JSON对象。'
)
_F, _A, _R, _T = ("\u273f" + kind + "\u273f:" for kind in ("FUNCTION", "ARGS", "RESULT", "RETURN"))
QWEN_PROMPTS = {
    "en": _TOOLS_EN
    + "\n\n## When you need to call a tool, please insert the following command in your reply, which "
    "can be called zero or multiple times according to your needs:\n\n"
    f"{_F} The tool to use, should be one of [run_tests]\n{_A} The input of the tool\n"
    f"{_R} Tool results\n{_T} Reply based on tool results. Images need to be rendered as ![](url)",
    "zh": _TOOLS_ZH + "\n\n## 你可以在回复中插入零次、一次或多次以下命令以调用工具：\n\n"
    f"{_F} 工具名称，必须是[run_tests]之一。\n{_A} 工具输入\n{_R} 工具结果\n"
    f"{_T} 根据工具结果进行回复，需将图片用![](url)渲染出来",
    "en-parallel": "You are a careful coder.\n\n"
    + _TOOLS_EN
    + "\n\n## Insert the following command in your reply when you need to call N tools in parallel:\n\n"
    f"{_F} The name of tool 1, should be one of [run_tests]\n{_A} The input of tool 1\n"
    f"{_F} The name of tool 2\n{_A} The input of tool 2\n...\n"
    f"{_R} The result of tool 1\n{_R} The result of tool 2\n...\n"
    f"{_T} Reply based on tool results. Images need to be rendered as ![](url)",
    "zh-parallel": _TOOLS_ZH + "\n\n## 你可以在回复中插入以下命令以并行调用N个工具：\n\n"
    f"{_F} 工具1的名称，必须是[run_tests]之一\n{_A} 工具1的输入\n{_F} 工具2的名称\n{_A} 工具2的输入\n...\n"
    f"{_R} 工具1的结果\n{_R} 工具2的结果\n...\n{_T} 根据工具结果进行回复",
}
"""Qwen-Agent's function-calling system prompt (its ``FN_CALL_TEMPLATE``), as its four variants
fill it in (a deployer's own system prompt before it in one)."""

OTHER_SYSTEMS = (
    "You are a helpful assistant.",
    None,
    "You may call tools. Write \u273fFUNCTION\u273f: name and \u273fARGS\u273f: input on lines of their own.",
    "Tools: run_tests. Mark a call with the \u273fFUNCTION\u273f: and \u273fARGS\u273f: markers; each "
    "\u273fRESULT\u273f: and \u273fRETURN\u273f: follow.",
)
"""System prompts that are not Qwen-Agent's: a plain one, none, one asking for calls without the
results a loop would append, and one naming all four markers in a sentence."""


def _qwen_case(name: str, fmt: str, system: str | None, user_prefix: str, layout: int) -> Case:
    text = qwen_text(layout)
    record = FORMATS[fmt](system, text)
    return Case(name, f"{fmt}.json", _prefixed(record, user_prefix), text)


def _prefixed(record: Any, prefix: str) -> Any:
    """``record`` with ``prefix`` pasted before its first user turn's text (the ask)."""
    if not prefix:
        return record
    if isinstance(record, dict) and "conversations" in record:
        record["conversations"][0]["value"] = prefix + "\n\n" + record["conversations"][0]["value"]
        return record
    messages = record["messages"] if isinstance(record, dict) else record
    user = next(message for message in messages if message["role"] == "user")
    if isinstance(user["content"], list):
        user["content"][0]["text"] = prefix + "\n\n" + user["content"][0]["text"]
    else:
        user["content"] = prefix + "\n\n" + user["content"]
    return record


def made_up(formats: tuple[str, ...], layouts: range, systems: range, pasted: tuple[str, ...]) -> list[Case]:
    """Qwen texts under ``systems`` (indices into :data:`OTHER_SYSTEMS`), and each of ``pasted``
    (Qwen-Agent's prompts by name, ``crewai`` for CrewAI's) pasted into the first user turn under
    no system prompt (CrewAI's over the ReAct :data:`hallucinated_react.LAYOUTS`)."""
    cases = [
        _qwen_case(f"qwen-{fmt}-layout{layout}-system{system}", fmt, OTHER_SYSTEMS[system], "", layout)
        for fmt in formats
        for layout in layouts
        for system in systems
    ]
    for name in pasted:
        for fmt in formats:
            for layout in layouts:
                if name == "crewai":
                    record = _prefixed(FORMATS[fmt](None, LAYOUTS[layout]), ROLE + TOOLS)
                    cases.append(
                        Case(f"crewai-pasted-{fmt}-layout{layout}", f"{fmt}.json", record, LAYOUTS[layout])
                    )
                else:
                    cases.append(
                        _qwen_case(
                            f"qwen-pasted-{name}-{fmt}-layout{layout}", fmt, None, QWEN_PROMPTS[name], layout
                        )
                    )
    return cases


def genuine(formats: tuple[str, ...], layouts: range, prompts: tuple[str, ...]) -> list[tuple[Case, int]]:
    """Qwen-Agent's logs: each of ``prompts`` in the system turn; each case with its layout."""
    return [
        (
            _qwen_case(f"qwen-agent-{prompt}-{fmt}-layout{layout}", fmt, QWEN_PROMPTS[prompt], "", layout),
            layout,
        )
        for fmt in formats
        for layout in layouts
        for prompt in prompts
    ]


DEV = made_up(("openai", "sharegpt"), range(2), range(2), ("en", "crewai"))
VALIDATION = made_up(("anthropic",), range(4), range(4), ("zh", "en-parallel", "crewai")) + made_up(
    ("openai", "sharegpt"), range(2, 4), range(2, 4), ("zh-parallel", "crewai")
)
DEV_GENUINE = genuine(("openai", "sharegpt"), range(2), ("en", "zh"))
VALIDATION_GENUINE = genuine(("anthropic",), range(4), tuple(QWEN_PROMPTS)) + genuine(
    ("openai", "sharegpt"), range(2, 4), ("en-parallel", "zh-parallel")
)
