"""License fencing: an SPDX tier per repository family, the admission action, and copy taint.

Tiers (curation §License contamination fencing, table 12):

| tier | examples | action |
|---|---|---|
| ``permissive`` | MIT, Apache-2.0, BSD-2/3-Clause, ISC | admit |
| ``weak_copyleft`` | LGPL-2.1/3.0, MPL-2.0, EPL-2.0 | admit (internal models only) |
| ``strong_copyleft`` | GPL-2.0/3.0, AGPL-3.0 | quarantine |
| ``restricted`` | CC-BY-NC-*, proprietary, UNLICENSED, unknown ids | block at admission, audit record |

An SPDX expression is parsed: ``A OR B`` lets the licensee choose, so it takes the more
permissive tier; ``A AND B`` binds both, so the stricter; ``X WITH exception`` (e.g. GPL with the
Classpath exception) is weak copyleft. A repository family takes the strictest tier recorded for
any of its episodes (it is one codebase). An episode with no recorded license is ``unknown`` and
quarantined: it cannot be shown to be safe, and it is not evidence of a restricted license
either. A copyleft episode whose action copies a span of at least 7 words from an earlier
observation is tainted (``RECIPROCAL_COPYLEFT``) and quarantined as well.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable

from trajectory_platform.traces.record import Episode

TIERS = ("permissive", "weak_copyleft", "strong_copyleft", "restricted")
UNKNOWN = "unknown"
ACTIONS = {
    "permissive": "admit",
    "weak_copyleft": "admit",
    "strong_copyleft": "quarantine",
    "restricted": "block",
    UNKNOWN: "quarantine",
}
TAINT_LABEL = "RECIPROCAL_COPYLEFT"
TAINT_NGRAM = 7

_PERMISSIVE = {
    "mit", "mit-0", "apache-2.0", "apache-1.1", "bsd-2-clause", "bsd-3-clause", "bsd-3-clause-clear", "0bsd",
    "isc", "zlib", "unlicense", "cc0-1.0", "psf-2.0", "python-2.0", "bsl-1.0", "x11", "ncsa", "postgresql",
    "wtfpl", "cc-by-3.0", "cc-by-4.0", "blueoak-1.0.0", "upl-1.0", "unicode-dfs-2016", "unicode-3.0", "curl",
}  # fmt: skip
_WEAK_PREFIXES = ("lgpl-", "mpl-", "epl-", "cddl-", "cpl-", "ms-rl", "artistic-", "eclipse-")
_STRONG_PREFIXES = ("gpl-", "agpl-", "eupl-", "osl-", "cc-by-sa-")
_RESTRICTED_PREFIXES = ("cc-by-nc", "cc-by-nd", "sspl-", "busl-", "elastic-", "commons-clause", "licenseref-")
_TOKEN = re.compile(r"\(|\)|/|[A-Za-z0-9.+\-:]+")
_EXPRESSION = re.compile(r"(?:\s*(?:\(|\)|/|[A-Za-z0-9.+\-:]+))*\s*")
"""The whole text of an SPDX expression: its tokens and the blanks between them, nothing else."""
_WORD = re.compile(r"[A-Za-z_][A-Za-z0-9_]*|\d+")


def _single_tier(identifier: str) -> str:
    spdx = identifier.lower().removesuffix("+").removesuffix("-only").removesuffix("-or-later")
    if spdx in _PERMISSIVE:
        return "permissive"
    if spdx.startswith(_RESTRICTED_PREFIXES):
        return "restricted"
    if spdx.startswith(_WEAK_PREFIXES):
        return "weak_copyleft"
    if spdx.startswith(_STRONG_PREFIXES):
        return "strong_copyleft"
    return "restricted"  # UNLICENSED, proprietary, NOASSERTION, NONE, anything unrecognised


class _Parser:
    """Recursive descent over ``expr := term (OR term)*; term := factor (AND factor)*``."""

    def __init__(self, text: str) -> None:
        self.tokens = _TOKEN.findall(text)
        self.pos = 0

    def _peek(self) -> str:
        return self.tokens[self.pos].upper() if self.pos < len(self.tokens) else ""

    def _next(self) -> str:
        token = self.tokens[self.pos] if self.pos < len(self.tokens) else ""
        self.pos += 1
        return token

    def whole(self) -> int:
        """The tier rank of the whole expression; :class:`ValueError` when tokens are left over."""
        rank = self.expr()
        if self.pos < len(self.tokens):
            raise ValueError("tokens after the expression")
        return rank

    def expr(self) -> int:
        rank = self.term()
        while self._peek() in ("OR", "/"):  # ``MIT/Apache-2.0``: Cargo's older spelling of OR
            self._next()
            rank = min(rank, self.term())
        return rank

    def term(self) -> int:
        rank = self.factor()
        while self._peek() == "AND":
            self._next()
            rank = max(rank, self.factor())
        return rank

    def factor(self) -> int:
        if self._peek() == "(":
            self._next()
            rank = self.expr()
            if self._peek() == ")":
                self._next()
            return rank
        rank = TIERS.index(_single_tier(self._next()))
        if self._peek() == "WITH":
            self._next()
            self._next()
            rank = min(rank, TIERS.index("weak_copyleft")) if rank == TIERS.index("strong_copyleft") else rank
        return rank


def license_tier(spdx: str | None) -> str:
    """The tier of an SPDX license expression; ``unknown`` when nothing was recorded.

    Text that is not one whole expression (characters no SPDX id holds, words left after it) is
    ``restricted``: ``MIT OR <anything>`` was read as MIT and the rest ignored, so any text after a
    permissive id counted as permissive (and reached the dataset card)."""
    if spdx is None or not spdx.strip():
        return UNKNOWN
    if not _EXPRESSION.fullmatch(spdx):
        return "restricted"
    try:
        return TIERS[_Parser(spdx).whole()]
    except ValueError:
        return "restricted"


def strictest(tiers: Iterable[str]) -> str:
    """The most restrictive of ``tiers`` (``unknown`` only when nothing else is known)."""
    known = [t for t in tiers if t != UNKNOWN]
    return max(known, key=TIERS.index) if known else UNKNOWN


def family_tiers(
    pairs: Iterable[tuple[str | None, str | None]], tier_of: Callable[[str | None], str] = license_tier
) -> dict[str, str]:
    """``{repo_family: tier}`` from ``(repo_family, spdx)`` pairs: the strictest tier per family
    (each licence tiered by ``tier_of``: redaction also restricts one carrying a secret)."""
    seen: dict[str, list[str]] = {}
    for family, spdx in pairs:
        if family:
            seen.setdefault(family, []).append(tier_of(spdx))
    return {family: strictest(tiers) for family, tiers in seen.items()}


def _ngrams(text: str, n: int = TAINT_NGRAM) -> set[tuple[str, ...]]:
    words = _WORD.findall(text)
    return {tuple(words[i : i + n]) for i in range(len(words) - n + 1)}


def copies_observation(episode: Episode, n: int = TAINT_NGRAM) -> bool:
    """Whether an action (assistant text, tool-call arguments) repeats n words of an earlier observation."""
    observed: set[tuple[str, ...]] = set()
    for event in episode.events:
        if event.kind == "tool" and event.content:
            observed |= _ngrams(event.content, n)
        elif event.kind == "assistant" and observed:
            actions = [event.content or ""] + [call.arguments or "" for call in event.tool_calls]
            if any(_ngrams(action, n) & observed for action in actions):
                return True
    return False


def license_decision(tier: str, episode: Episode) -> tuple[str, str | None]:
    """``(action, taint)`` for one episode of a family with ``tier``."""
    action = ACTIONS[tier]
    taint = (
        TAINT_LABEL if tier in ("weak_copyleft", "strong_copyleft") and copies_observation(episode) else None
    )
    if taint and action == "admit":
        action = "quarantine"
    return action, taint
