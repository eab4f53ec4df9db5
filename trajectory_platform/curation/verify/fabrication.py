"""Which assistant turns write a tool's output themselves: fabricated observations.

An assistant turn is the model's output, and training imitates it; a turn that states what a tool
printed when no tool printed it teaches the policy to claim evidence it never gathered. Two forms:

- ``tool_token``: the wire form, a tool observation written after the turn's calls
  (:func:`gym.protocol.find_fabricated_observation`); the gym's runtime refuses it, so an unrefused
  one is a log no runtime wrote (stage 1 blocks it).
- ``unquoted_output``: quoted output no earlier event of the log shows: a test runner's tally
  ("2 passed", "Ran 5 tests", "Tests: 3 passed, 3 total", "4 passing") whose counts no earlier
  event holds, or a command transcript (a ``$ command`` line and the output lines under it) whose
  output lines no earlier event holds. A run that never called a test tool ended with a report
  quoting ``$ python -m pytest -q ... 2 passed`` and was admitted with that report as a target
  (red team, 2026-12-06). A model can write this in good faith (it is not the runtime's to
  refuse), so it is flagged (a stage-1 note) and the turn stays context, never a target
  (:mod:`.roles`).

"Earlier event" is every event before the turn that is not the model's own (tool results,
refusals, the task and system text): a tally the task itself states is no fabrication. A report
that restates real output (the same counts, the same lines, in any wording around them) is backed;
one that says "all tests pass" quotes nothing and is left alone. Zero counts are not claims
("0 failed": pytest prints none), and elision lines (``...``) inside a transcript are skipped.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

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
}
_WORDS = "|".join(sorted(_OUTCOMES, key=len, reverse=True))
_RUNNER_TALLY = re.compile(rf"(?:^|[=(,;:.>])[ \t*_`]*(\d+)[ \t]+({_WORDS})\b", re.IGNORECASE | re.MULTILINE)
"""A test runner's count, where a runner prints one: at a line's start or after a separator
(pytest's ``2 passed in 0.01s`` and ``== 1 failed, 2 passed ==``, jest's ``Tests: 2 passed``,
mocha's ``4 passing``, cargo's ``ok. 2 passed; 0 failed``). A count inside prose ("the cocktail
with ID 6 failed") is none."""
_PROSE_TALLY = re.compile(rf"\b(\d+)[ \t]+(?:unit[ \t]+)?tests?[ \t]+({_WORDS})\b", re.IGNORECASE)
"""The same count said in prose: ``3 tests pass``, ``1 test failed``."""
_RAN = re.compile(r"\bRan\s+(\d+)\s+tests?\b")
"""unittest's count line (``Ran 5 tests in 0.01s``), followed by ``OK`` when every test passed."""
_UNITTEST_OK = re.compile(r"[^\n]*\n(?:[ \t]*\n)*[ \t]*OK\b")
_DECISIVE = frozenset({"passed", "failed", "ran"})
"""The outcomes a report's count claims: what a test run decided (an error or skip count is
commonly prose: "fixed 2 errors")."""
_PROMPT = re.compile(r"^\s*\$ \S")
_ELISION = re.compile(r"^[.…\s]*$|^\[?\.\.\.")
_FENCE = "```"


def _tallies(text: str) -> set[tuple[int, str]]:
    """The (count, outcome) pairs ``text`` states, outcomes canonical (``passing`` is ``passed``)."""
    found = _RUNNER_TALLY.findall(text) + _PROSE_TALLY.findall(text)
    pairs = {(int(n), _OUTCOMES[word.lower()]) for n, word in found}
    for match in _RAN.finditer(text):
        count = int(match.group(1))
        pairs.add((count, "ran"))
        if _UNITTEST_OK.match(text, match.end()):
            pairs.add((count, "passed"))
    return pairs


def _transcript_lines(text: str) -> Iterator[str]:
    """The output lines of each command transcript in ``text``: the lines under a ``$ command``
    line, up to a blank line, the next prompt or the end of a code fence."""
    under_prompt = False
    for line in text.splitlines():
        if _PROMPT.match(line):
            under_prompt = True
        elif not line.strip() or line.strip().startswith(_FENCE):
            under_prompt = False
        elif under_prompt and not _ELISION.match(line.strip()):
            yield line


def _flat(text: str) -> str:
    return " ".join(text.split())


def _quotes_unseen(text: str, seen: list[str], seen_tallies: set[tuple[int, str]]) -> bool:
    """Whether ``text`` quotes output (a tally, a transcript's lines) that the earlier events'
    texts ``seen`` (whitespace collapsed) and their tallies ``seen_tallies`` do not hold."""
    claimed = {(n, outcome) for n, outcome in _tallies(text) if n > 0 and outcome in _DECISIVE}
    if not claimed <= seen_tallies:
        return True
    return any(not any(_flat(line) in held for held in seen) for line in _transcript_lines(text))


def _texts(event: Event) -> tuple[str, ...]:
    return tuple(text for text in (event.content, event.reasoning) if text)


def fabricated_turns(episode: Episode) -> dict[int, str]:
    """Assistant turn index -> how it fabricates an observation (:data:`TOOL_TOKEN` or
    :data:`UNQUOTED_OUTPUT`), for each turn that does, in its text or its reasoning (both are the
    model's output and both are trained on)."""
    out: dict[int, str] = {}
    seen: list[str] = []
    seen_tallies: set[tuple[int, str]] = set()
    for index, event in enumerate(episode.events):
        texts = _texts(event)
        if event.kind != "assistant":
            seen.extend(_flat(text) for text in texts)
            for text in texts:
                seen_tallies |= _tallies(text)
        elif any(find_fabricated_observation(text) is not None for text in texts):
            out[index] = TOOL_TOKEN
        elif any(_quotes_unseen(text, seen, seen_tallies) for text in texts):
            out[index] = UNQUOTED_OUTPUT
    return out
