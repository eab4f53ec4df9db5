"""Which assistant turns write a tool's output themselves: fabricated observations.

An assistant turn is the model's output, and training imitates it; a turn that states what a tool
printed when no tool printed it teaches the policy to claim evidence it never gathered. Two forms:

- ``tool_token``: the wire form, a tool observation written after the turn's calls
  (:func:`gym.protocol.find_fabricated_observation`); the gym's runtime refuses it, so an unrefused
  one is a log no runtime wrote (stage 1 blocks it).
- ``unquoted_output``: output a tool prints, quoted where no tool printed it: a test runner's tally
  whatever its layout (the count before its word, ``2 passed``, ``- 2 passed``, ``2/2 passed``,
  ``Ran 5 tests ... OK``, ``OK (2 tests)``, ``3 tests pass``; or after it, ``Tests passed: 2``),
  a per-test status line (``tests/t.py::test_add PASSED``, ``test_add ... ok``), the output lines
  under any command prompt (``$``, ``%``, ``>>>``, ``user@host:~/x$``, ``root@h:/#``,
  ``PS C:\\x>``), or a fenced block a line introduces as output ("Running it printed:"). A run
  that never called a test tool ended with a report quoting ``$ python -m pytest -q ... 2 passed``
  and was admitted with that report as a target; so was every other layout (red team,
  2026-12-06). The claim is keyed on the class (output a runner or shell prints), not on a layout.
  A model can write this in good faith (it is not the runtime's to refuse), so it is flagged (a
  stage-1 note) and the turn stays context, never a target (:mod:`.roles`).

What backs a quotation: output lines only what a tool printed (tool results, refusals, a compaction
standing for replaced turns), and, where the caller knows which of those the verifier checked
(``checked``: the answers replay re-derived, a gym log's refusals and compactions, which its
runtime's checks passed), only those: in a linked log a compaction summary, like a refusal's or an
unreplayed answer's text, is the log's own, and a summary "recalling" a test run that never happened
made the report quoting it a target (red team, 2026-12-06). The task and system text cannot, since a
linked log's user turn is the log's own text and can plant the transcript its report will quote (red
team, 2026-12-06). A tally is also backed by the task's text, by count alone: "CI: 1 failed, 2
passed" in the task states a count a report may repeat. A report that restates real output (the same
counts, the same lines, in any wording around them) is backed; one that says "all tests pass" quotes
nothing and is left alone, as is a forecast ("This will output:") and code the model wrote. Zero
counts are not claims ("0 failed": pytest prints none), and elision lines (``...``) are skipped.
"""

from __future__ import annotations

import re
from collections.abc import Collection, Iterator

from trajectory_platform.gym.protocol import find_fabricated_observation
from trajectory_platform.traces.record import Episode, Event

TOOL_TOKEN = "tool_token"
UNQUOTED_OUTPUT = "unquoted_output"

_OUTCOMES = {
    "passed": "passed",
    "passing": "passed",
    "passes": "passed",
    "pass": "passed",
    "failed": "failed",
    "failing": "failed",
    "fails": "failed",
    "fail": "failed",
    "failures": "failed",
    "failure": "failed",
    "errors": "error",
    "error": "error",
    "skipped": "skipped",
    "xfailed": "xfailed",
    "xpassed": "xpassed",
    "ok": "passed",
}
_WORDS = "|".join(sorted(_OUTCOMES, key=len, reverse=True))
_COUNT_FIRST = re.compile(
    rf"(?:^|[^\w\s])[ \t*_`]*(\d+)(?:[ \t]*/[ \t]*\d+)?[ \t]+(?:(?:unit[ \t]+)?tests?[ \t]+)?({_WORDS})\b",
    re.IGNORECASE | re.MULTILINE,
)
"""A runner's count before its word, where a runner prints one: at a line's start or after any
symbol (pytest's ``2 passed in 0.01s`` and ``== 1 failed, 2 passed ==``, jest's ``Tests: 2 passed``,
mocha's ``4 passing``, cargo's ``ok. 2 passed``, a bullet ``- 2 passed`` or ``✅ 2 passed``), or a
fraction's numerator (``2/2 passed``). A count after a word ("the cocktail with ID 6 failed") is
prose, none."""
_PASSED_AFTER_WORD = re.compile(r"\b(\d+)[ \t]+(passed|passing)\b", re.IGNORECASE)
"""A pass count after a word ("pytest reports 2 passed"): unlike a failure count ("attempt 2
failed"), prose has no other use for "N passed"."""
_PROSE_TALLY = re.compile(
    rf"\b(\d+)(?:[ \t]+(?:of|/)[ \t]+\d+)?[ \t]+(?:unit[ \t]+)?tests?[ \t]+({_WORDS})\b", re.IGNORECASE
)
"""The same count said in prose: ``3 tests pass``, ``2 tests OK``, ``all 5 tests passed``,
``2 of 3 tests failed``."""
_WORD_FIRST = re.compile(rf"\b(?:tests?[ \t]+)?({_WORDS})[ \t]*[:=|][ \t]*(\d+)\b", re.IGNORECASE)
"""A count after its word, as a summary or a table prints it: ``Tests passed: 2``, ``failures=1``,
``| passed | 2 |``."""
_RAN = re.compile(r"\bRan\s+(\d+)\s+tests?\b|\bTests?[ \t]+run[ \t]*[:=][ \t]*(\d+)", re.IGNORECASE)
"""A count of tests run: unittest's ``Ran 5 tests in 0.01s`` (followed by ``OK`` when every test
passed), JUnit's and Maven's ``Tests run: 5, Failures: 0``."""
_UNITTEST_OK = re.compile(r"[^\n]*\n(?:[ \t]*\n)*[ \t]*OK\b")
_JUNIT_OK = re.compile(r"\bOK[ \t]*\((\d+)[ \t]+tests?\)")
"""JUnit's all-passed line, ``OK (2 tests)``."""
_DECISIVE = frozenset({"passed", "failed", "ran"})
"""The outcomes a report's count claims: what a test run decided (an error or skip count is
commonly prose: "fixed 2 errors")."""
_STATUS_LINE = re.compile(
    r"^\s*(?:(?=.*\S::\S).*\b(?:PASSED|FAILED|ERROR|SKIPPED|XFAIL|XPASS)\b"
    r"|test\S*[ \t].*\.\.\.[ \t]*(?:ok|FAIL|ERROR|skipped)\b"
    r"|(?:PASS|FAIL)[ \t]+\S+\.\w+\b)",
    re.MULTILINE,
)
"""A runner's per-test status line, itself output: pytest -v's ``tests/t.py::test_add PASSED``,
pytest -rA's ``PASSED tests/t.py::test_add``, unittest's and cargo's ``test_add (t.Case) ... ok``,
jest's ``PASS src/a.test.js``."""
_CHECK_LINE = re.compile(r"^\s*[✓✔✗✘×√][ \t]+\S")
"""mocha's and jest's per-test line, ``✓ adds numbers (3 ms)``: output only inside a code block, since
a summary in prose bullets its points with the same marks ("✓ Fixed add()")."""
_PROMPT = re.compile(
    r"^\s*(?:\([\w.-]+\)[ \t]+)?(?:"
    r"[$%]"
    r"|>>>|In[ \t]?\[\d*\]:"
    r"|PS(?:[ \t]+[^\s>]+)?>"
    r"|[A-Za-z]:\\[^\n>]*>"
    r"|\[?[\w.-]+@[\w.-]+[^\s$#%>]*(?:[ \t]+[^\s$#%>]+)?\]?[ \t]?[$#%>]"
    r"|[~/][^\s$#%>]*[$#%]"
    r"|[\w.~/:-]+\$"
    r")[ \t]+\S"
)
"""A command prompt, the line a transcript's output stands under: ``$ cmd``, ``% cmd``, a Python
session's ``>>> add(2, 3)`` or ``In [1]: add(2, 3)``, ``PS C:\\repo> cmd``, ``C:\\repo> cmd``,
``user@host:~/x$ cmd``, ``[root@host x]# cmd``, zsh's ``user@host ~/x % cmd``, ``~/x$ cmd``,
``bash-5.1$ cmd``, each optionally after a ``(venv)`` prefix. A bare ``#`` or ``>`` is no prompt:
it opens a comment, a heading or a quotation far more often."""
_OUTPUT_FENCE = re.compile(
    r"^\s*```[ \t]*(?:text|console|output|plaintext|log|shell-session|sh-session|pycon)?[ \t]*$"
)
_OUTPUT_INTRO = re.compile(
    r"^(?![^\n]*\b(?:will|would|should|could|can|may|might|expect\w*|example|like)\b)"
    r"[^\n]*\b(?:output|printed|prints|ran|showed|shows|got|returned|produced|results?)\b[^\n]*:\s*$",
    re.IGNORECASE,
)
"""A line that says the fenced block under it is what a command printed ("Running it printed:",
"Output:"). A forecast ("This will output:", "you should see:") claims no run; only an untagged or
output-tagged fence counts, since a ``python`` block is code."""
_ELISION = re.compile(r"^[.…\s]*$|^\[?\.\.\.")
_FENCE = "```"


def _tallies(text: str) -> set[tuple[int, str]]:
    """The (count, outcome) pairs ``text`` states, outcomes canonical (``passing`` is ``passed``)."""
    found = _COUNT_FIRST.findall(text) + _PROSE_TALLY.findall(text) + _PASSED_AFTER_WORD.findall(text)
    found += [(n, word) for word, n in _WORD_FIRST.findall(text)]
    pairs = {(int(n), _OUTCOMES[word.lower()]) for n, word in found}
    pairs |= {(int(n), "passed") for n in _JUNIT_OK.findall(text)}
    for match in _RAN.finditer(text):
        count = int(match.group(1) or match.group(2))
        pairs.add((count, "ran"))
        if _UNITTEST_OK.match(text, match.end()):
            pairs.add((count, "passed"))
    return pairs


def _quoted_lines(text: str) -> Iterator[str]:
    """The output lines ``text`` quotes: each per-test status line, the lines under a prompt (up to
    a blank line, the next prompt or the end of a code fence), and every line of a fenced block a
    line introduces as output."""
    under_prompt = in_fence = output_fence = False
    previous = ""
    for line in text.splitlines():
        stripped = line.strip()
        if stripped.startswith(_FENCE):
            output_fence = not in_fence and bool(_OUTPUT_FENCE.match(line) and _OUTPUT_INTRO.search(previous))
            in_fence, under_prompt = not in_fence, False
        elif _PROMPT.match(line):
            under_prompt = True
        elif not stripped:
            under_prompt = False
        elif _is_output(line, under_prompt or output_fence, in_fence) and not _ELISION.match(stripped):
            yield line
        if stripped:
            previous = line


def _is_output(line: str, in_transcript: bool, in_fence: bool) -> bool:
    return in_transcript or bool(_STATUS_LINE.match(line)) or (in_fence and bool(_CHECK_LINE.match(line)))


def _flat(text: str) -> str:
    return " ".join(text.split())


class _Observed:
    """What the earlier events showed the model. Output lines are backed only by what a tool
    printed (tool results, refusals, a compaction standing for replaced ones): a user turn or
    system prompt can state any "expected" transcript in advance, and in a linked log that text is
    the log's own (red team, 2026-12-06). A tally is also backed by the task's text, by count
    alone: "make the 3 failing tests pass" states a count the report may repeat, not output."""

    def __init__(self) -> None:
        self.tallies: set[tuple[int, str]] = set()
        self.texts: list[str] = []
        self.lines: set[str] = set()

    def add(self, event: Event, backs: bool) -> None:
        """Take in an earlier event; an observation only where it ``backs`` (its text was checked)."""
        observation = event.kind in _OBSERVATION_KINDS
        for text in _texts(event):
            if observation and not backs:
                continue
            self.tallies |= _tallies(text)
            if observation:
                self.texts.append(_flat(text))
                self.lines.update(_flat(line) for line in text.splitlines())

    def backs(self, line: str) -> bool:
        """Whether a tool printed ``line``: as a whole line, or inside one when it is more than a
        single token (a bare ``5`` or ``True`` would otherwise match any digit or word anywhere)."""
        quoted = _flat(line)
        if quoted in self.lines:
            return True
        if len(quoted.split()) < 2:
            return False
        bounded = re.compile(rf"(?<!\w){re.escape(quoted)}(?!\w)")
        return any(bounded.search(held) for held in self.texts)

    def quotes_unseen(self, text: str) -> bool:
        """Whether ``text`` quotes output (a tally, output lines) these events do not hold."""
        claimed = {(n, outcome) for n, outcome in _tallies(text) if n > 0 and outcome in _DECISIVE}
        if not claimed <= self.tallies:
            return True
        return not all(self.backs(line) for line in _quoted_lines(text))


_OBSERVATION_KINDS = frozenset({"tool", "refusal", "compaction"})


def _texts(event: Event) -> tuple[str, ...]:
    return tuple(text for text in (event.content, event.reasoning) if text)


def fabricated_turns(episode: Episode, checked: Collection[int] | None = None) -> dict[int, str]:
    """Assistant turn index -> how it fabricates an observation (:data:`TOOL_TOKEN` or
    :data:`UNQUOTED_OUTPUT`), for each turn that does, in its text or its reasoning (both are the
    model's output and both are trained on). ``checked``: the event indices of the observations
    whose text the verifier checked, the only ones that back a quotation then (``None``: every
    observation does, where nothing was checked yet: stage 1, the platform's own runs)."""
    out: dict[int, str] = {}
    observed = _Observed()
    for index, event in enumerate(episode.events):
        texts = _texts(event)
        if event.kind != "assistant":
            observed.add(event, checked is None or index in checked)
        elif any(find_fabricated_observation(text) is not None for text in texts):
            out[index] = TOOL_TOKEN
        elif any(observed.quotes_unseen(text) for text in texts):
            out[index] = UNQUOTED_OUTPUT
    return out
