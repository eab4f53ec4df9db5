"""What a truncated answer shows, so that replay compares it (red team, 2026-12-06).

A harness that clips a long output shows its head (OpenHands: the head, then ``<response
clipped>`` and a fixed note) or its head and tail (mini-swe-agent: a fixed warning, then
``<output_head>``, the count of elided characters, ``<output_tail>``). Each shown part is still a
claim about the output: the head must be how the replayed output starts, the tail how it ends.
Replay compared nothing of an answer whose status was ``truncated`` before, and that status is the
log's own word (OpenHands' adapter sets it wherever the marker occurs in the text): a forged file
listing with an instruction injected into it and ``<response clipped>`` appended stayed as
training context. So only the registered clip forms count, each with its marker where the harness
puts it and nothing but the harness's fixed text around it; any other text is compared whole.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass

from trajectory_platform.curation.verify.sweagent_tools import EDITOR_FILE_VIEW
from trajectory_platform.curation.verify.volatile import Span, pair_head, pair_tail
from trajectory_platform.traces.adapters.openhands import CLIPPED

OPENHANDS_NOTE = re.compile(
    r"(?:<NOTE>(?:Due to the max output limit,|To save on context) only part of this (?:file|output) has"
    r" been shown to you\.(?: You should retry this tool after you have searched inside the file with"
    r" `grep -n` in order to find the line numbers of what you are looking for\.)?</NOTE>)?\s*\Z"
)
"""What OpenHands prints after its clip marker: one of its releases' notes, or nothing."""
OPENHANDS_LIMIT = 16_000
"""How many characters of a content OpenHands shows before its clip marker, exactly: its editor's
``maybe_truncate`` keeps ``content[:MAX_RESPONSE_LEN_CHAR]`` (16,000 in openhands-aci and in the
reference editor OpenHands' notes come from, ``MAX_RESPONSE_LEN``) and clips nothing shorter; a
file view numbers the lines of that cut (the real logs' clipped views hold exactly 16,000
characters of the file). A head of any other length is no clip of this harness: a 66-byte file
shown as its first line and the marker, hiding its bug line, was believed (red team rtforge9 F12,
2026-12-06)."""
_NUMBERED = re.compile(r"^ *\d+\t", re.MULTILINE)
MINI_WARNING = frozenset(
    {
        "The output of your last command was too long.",
        "Please try a different command that produces less output.",
        "If you're looking at a file you can try use head, tail or sed to view a smaller number of"
        " lines selectively.",
        "If you're using grep or find and it produced too much output, you can use a more selective"
        " search pattern.",
        "If you really need to see something from the full command's output, you can redirect output"
        " to a file and then search in that file.",
    }
)
"""The lines of mini-swe-agent's default warning for a clipped output."""
MINI_LIMIT = 5_000
"""How many characters of an output mini-swe-agent's default template (the one whose warning is
:data:`MINI_WARNING`) shows as its head and as its tail, exactly: it clips an output of 10,000
characters or more (``output.output | length < 10000`` shows it whole), showing
``output.output[:5000]`` and ``output.output[-5000:]`` and ``length - 10000`` as elided. A clip of
that form cut anywhere else is no clip of that template: a short output's head and tail around a
true count hid its middle (a bug line) and was believed, held only to its count."""
_MINI = re.compile(
    r"\A\s*(?:<returncode>(-?\d+)</returncode>\s*)?<warning>\n?(.*?)</warning>\s*"
    r"<output_head>\n?(.*)</output_head>\s*<elided_chars>\s*(\d+) characters elided\s*</elided_chars>\s*"
    r"<output_tail>\n?(.*)</output_tail>\s*\Z",
    re.DOTALL,
)


@dataclass(frozen=True)
class Shown:
    """What a clipped answer shows of its output: its head, its tail (empty: none shown), and the
    exit code its framing records, if any."""

    head: str
    tail: str = ""
    exit_code: int | None = None
    elided: int | None = None
    """The count of characters the harness says it left out between head and tail, if it says."""
    limit: int | None = None
    """How many characters of the content the harness shows, exactly, when it clips (its marker
    says so: :data:`OPENHANDS_LIMIT`; for a form with a tail, each of head and tail:
    :data:`MINI_LIMIT`); ``None`` where the form does not fix it."""


def shown_parts(text: str) -> Shown | None:
    """The parts of the output a truncated answer shows (:class:`Shown`), or ``None`` when the text
    is no registered clip form: a marker elsewhere than where its harness puts it, more than one,
    free text where the harness prints its fixed note or warning, or no marker at all. A bare
    head used to count (a harness that cut the output and said so only in the status), but no
    adapter writes that status without its harness's marker (none of the 757 real episodes holds
    one), while a native log's status is its own word: the first line of a 66-byte file, status
    ``truncated``, hid its bug line and was replay-verified (red team rtforge9 F12 sibling)."""
    mini = _MINI.match(text)
    if mini is not None:
        warning = {line.strip() for line in mini.group(2).split("\n")} - {""}
        if not warning <= MINI_WARNING:
            return None
        code = int(mini.group(1)) if mini.group(1) is not None else None
        return Shown(mini.group(3), mini.group(5), code, int(mini.group(4)), MINI_LIMIT)
    if CLIPPED not in text:
        return None
    head, _, rest = text.partition(CLIPPED)
    if CLIPPED in rest or OPENHANDS_NOTE.match(rest) is None:
        return None
    return Shown(head, limit=OPENHANDS_LIMIT)


def shows(shown: Shown, output: str, erase: Callable[[str], tuple[str, list[Span]]]) -> bool:
    """Whether ``output`` (the replayed one) starts with the shown head and ends with the shown
    tail, both compared after ``erase`` (replay's normalization, which drops trailing blanks of a
    line, so a head cut after a space still matches), the spans it erased paired with the output's
    (:func:`volatile.pair_head`, :func:`volatile.pair_tail`: a head normalized on its own let a
    forged pid, duration or temp path stand in a clip). The two may not overlap: together they show
    at most the whole; and where the harness counts what it elided, the count must be what lies
    between them."""
    (full, spans), (head, head_spans), (tail, tail_spans) = map(erase, (output, shown.head, shown.tail))
    if not full.startswith(head) or not full.endswith(tail):
        return False
    if not pair_head(head_spans, spans) or not pair_tail(tail_spans, spans):
        return False
    if shown.elided is not None and not _elided_as_said(shown, output, (full, head, tail)):
        return False
    if shown.limit is not None and not _cut_at_limit(shown, output, shown.limit):
        return False
    return not head or not tail or len(head) + len(tail) <= len(full)


def _elided_as_said(shown: Shown, output: str, normalized: tuple[str, str, str]) -> bool:
    """Whether the harness's count of elided characters is what the replayed output leaves out
    between the shown head and tail, on the raw texts or the normalized ones (the template puts a
    line break after each part: up to two characters more). A clip claimed on an output too short
    to be clipped (a 66-byte file shown as head, "99999 characters elided", tail, hiding its bug
    line) was believed (red team rtforge9 F12, 2026-12-06): the count was never read."""
    assert shown.elided is not None
    full, head, tail = normalized
    gaps = (len(output) - len(shown.head) - len(shown.tail), len(full) - len(head) - len(tail))
    return shown.elided >= 0 and any(0 <= shown.elided - gap <= 2 for gap in gaps)


def _cut_at_limit(shown: Shown, output: str, limit: int) -> bool:
    """Whether the shown parts (already known to start and end the replayed ``output``) are the
    harness's cut. A head alone (OpenHands): the output's content is longer than ``limit`` and the
    head shows exactly its first ``limit`` characters; the content of an editor file view is its
    numbered lines without the header and the numbers (the harness cuts the file, then numbers the
    cut), of any other output the text. A head and a tail (mini-swe-agent): each exactly ``limit``
    characters (less the line break its template puts after each), of an output of twice that or
    more."""
    if shown.tail:
        parts = (part.removesuffix("\n") for part in (shown.head, shown.tail))
        return len(output) >= 2 * limit and all(len(part) == limit for part in parts)
    return len(_content(output)) > limit and len(_content(shown.head)) == limit


def _content(text: str) -> str:
    """The text a harness cut: an editor view's file lines (header, line numbers and the line break
    the view ends with taken off: a cut view ends in a number, never a line break), or the text."""
    if not text.startswith(EDITOR_FILE_VIEW):
        return text
    return _NUMBERED.sub("", text.partition("\n")[2].removesuffix("\n"))
