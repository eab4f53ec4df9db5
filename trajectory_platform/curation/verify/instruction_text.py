"""How the linked-log instruction check reads a text: as a person sees it, clause by clause.

:mod:`instruction` decides whether a log's instruction is its environment's task; this module is
what it reads the texts with, so every text the model was shown (system prompt, user turns, the
recorded task prompt, tool descriptions) is read the same way:

- :func:`folded`: what a reader sees. NFKD, then format characters (zero-width spaces, joiners,
  the BOM, soft hyphens) and combining marks dropped, then every look-alike of an ASCII letter or
  digit mapped to it (Unicode TR39's confusables, ``traces.look_alikes``: the table redaction
  reads), then NFKC. ``mսl()`` (Armenian ``ս``) and ``mu\\u200bl()`` both read ``mul()``; a
  repository name hidden so is named as plainly as written.
- :func:`disguised`: a word mixing ASCII letters with another script's look-alike of one
  (``mуl`` with a Cyrillic ``у``, which folds to ``myl``, no name at all). An honest writer
  types a word in one script; a Japanese sentence beside ``Python`` mixes scripts, but its kana are
  nobody's look-alike of a Latin letter, so it is not disguised.
- :func:`clauses` and :func:`words`: the units the cues and the content are read in.
- the cues (:data:`NEGATED_REPAIR`, :data:`LEAVE_ALONE`, :data:`DISMISSED`, :data:`REFRAMED`,
  :data:`DESTRUCTIVE`): the closed-class phrasings (negation, dismissal, "your real task") by
  which a text keeps the statement's words and asks for something else. They are grammar, not
  content: the content each cue must aim at (the task's code, "this", the tests) is read from the
  environment by :mod:`instruction`.
"""

from __future__ import annotations

import builtins
import keyword
import re
import unicodedata

from trajectory_platform.traces.look_alikes import latin_look_alikes

_INVISIBLE = frozenset({"Cf", "Mn", "Me"})
"""Format characters (zero-width space and joiners, BOM, soft hyphen, bidi controls) and
combining marks: nothing a reader sees as a letter of its own."""


def folded(text: str) -> str:
    """``text`` as a reader sees it (the module docstring): its case is kept (code shape reads it)."""
    table = latin_look_alikes()
    kept = (
        table.get(char, char)
        for char in unicodedata.normalize("NFKD", text)
        if unicodedata.category(char) not in _INVISIBLE
    )
    return unicodedata.normalize("NFKC", "".join(kept))


def normalized(text: str) -> str:
    """``text`` as containment and the cues compare it: folded, case-folded, backticks dropped,
    white space one blank."""
    return " ".join(folded(text).replace("`", "").casefold().split())


def disguised(text: str) -> bool:
    """Does a word of ``text`` mix ASCII letters with another script's look-alike of one?"""
    table = latin_look_alikes()
    visible = "".join(c for c in unicodedata.normalize("NFKC", text) if unicodedata.category(c) != "Cf")
    for word in re.findall(r"[^\W_]+", visible):
        if any(c.isascii() and c.isalpha() for c in word) and any(
            c in table and not unicodedata.name(c, "").startswith("LATIN") for c in word
        ):
            return True
    return False


def clauses(text: str) -> list[str]:
    """The clauses of a normalized text: split after ``.``/``!``/``?``/``;``/``:`` before a blank
    (never inside ``calc/ops.py`` or ``mdurl.decode``), and at line breaks."""
    return [c for c in re.split(r"(?<=[.!?;:])\s+|\n+", text) if c.strip()]


def words(text: str) -> list[str]:
    """The letter-and-digit runs of a normalized text (``toposort_flatten`` gives two)."""
    return re.findall(r"[^\W_]+", text)


def spelt_runs(text: str) -> set[str]:
    """Two and three words of prose in a row, joined (``the parse line helper`` -> ``parseline``,
    ``parselinehelper``, ...): how a name of several parts is written as words. Only words written
    as words: a code token (``test_level_counts``) and a clause's end break the run."""
    runs: list[list[str]] = [[]]
    for token in text.split():
        word = token.strip("([{'\"").rstrip(",.;:!?)]}'\"")
        if word.isalpha():
            runs[-1].append(word)
        if not word.isalpha() or word != token.strip("([{'\""):
            runs.append([])
    return {"".join(run[i : i + n]) for run in runs for n in (2, 3) for i in range(len(run) - n + 1)}


_NAME_PART = re.compile(r"[A-Z]+(?![a-z])|[A-Z]?[a-z]+|\d+")


def joined_parts(name: str) -> str:
    """A name's words in order, joined and case-folded (``parse_line``, ``ParseLine`` ->
    ``parseline``): what :func:`spelt_runs` compares."""
    return "".join(_NAME_PART.findall(name)).casefold()


def name_parts(name: str) -> set[str]:
    """The words a name is made of, case-folded: ``toposort_flatten`` -> ``toposort``, ``flatten``;
    ``CircularDependencyError`` -> ``circular``, ``dependency``, ``error``; ``calc/ops.py`` ->
    ``calc``, ``ops``, ``py``."""
    return {p.casefold() for p in _NAME_PART.findall(name)}


_SUFFIXES = ("ations", "ation", "ings", "ing", "ions", "ion", "ers", "er", "ed", "es", "s", "ly")


def stem(word: str) -> str:
    """``word`` without one inflectional suffix, where three letters stay (``subtracts`` and
    ``subtracting`` -> ``subtract``): enough to meet a name's word in a paraphrase."""
    for suffix in _SUFFIXES:
        if word.endswith(suffix) and len(word) - len(suffix) >= 3:
            return word[: -len(suffix)]
    return word


MAX_DERIVED = 6
"""Letters a paraphrase may add after a name's word and still mean it (``add`` -> ``addition``,
``adding``; ``decode`` -> ``decoding``), never more (``add`` is not ``additionally``)."""


def means(word: str, part: str) -> bool:
    """Does the prose ``word`` mean the name's ``part`` (the same stem, or the part with a short
    derivation after it)?"""
    return stem(word) == stem(part) or (
        len(part) >= 3 and word.startswith(part) and len(word) - len(part) <= MAX_DERIVED
    )


def points_at(word: str, part: str) -> bool:
    """Could the prose ``word`` point at the name's ``part``, however long the derivation
    (``mul`` -> ``multiplication``)? Read only in a clause that asks (:data:`ASKS`) and says none of
    the task's functions."""
    return stem(word) == stem(part) or (len(part) >= 3 and word.startswith(part))


ASKS = re.compile(
    r"^(?:\W*\w+\W+){0,3}?(?:please|also|then|make|change|write|delete|remove|create|update|rename|replace"
    r"|implement|refactor|rework|rewrite|fix|correct|repair|ensure|modify|edit|adjust)\b"
    r"|\b(?:can|could|would) you\b|\byou (?:should|must|need to|have to)\b|\byour (?:\w+ )?task\b"
)
"""A clause that asks for something: an imperative near its start ("also make ...", "then
rework ..."), a request ("can you"), an obligation put on the reader ("you must"). A clause that
only describes ("it fails for multiple inputs") asks nothing, whatever code its words recall."""


GENERIC = frozenset(
    """
    test tests testing conftest assert fixture fixtures init main src lib libs utils util core base
    common helper helpers data config setup self cls args kwargs value values result results item
    items get set run make file files code function functions method methods class module package
    repo repository fix fixed bug bugs issue issues error errors please should would could python
    script tool tools source sources change changes line lines type types name names new old
    default tmp temp io os
    """.split()  # noqa: SIM905 - a word list reads as words
)
"""Words every coding task and every repository uses (a test, a helper, a value, a fix): they say
nothing about *which* task, so a name's part among them is never the task's anchor nor another
task's trace. Python's keywords and builtins are added (``return``, ``sum``, ``len``)."""
COMMON_WORDS = GENERIC | {w.casefold() for w in keyword.kwlist} | {w.casefold() for w in dir(builtins)}

_DEICTIC_WORDS = r"this|that|it|the (?:bug|issue|task|statement|above)"
DEICTIC = re.compile(rf"\b(?:{_DEICTIC_WORDS})\b")
"""Words pointing back at the statement ("do not fix *this*"); never "them" ("the tests are
provided, don't modify them") nor "the problem" ("if a tool fails, don't try to fix the problem"),
which real harnesses write about other things."""

NEGATED_REPAIR = re.compile(
    r"\b(?:do not|don'?t|never|no need to|not to|must not|should not|shouldn'?t|need not)\s+"
    r"(?:\w+\s+){0,2}?(?:fix|repair|correct|solve|resolve|address|patch|touch|change|modify|edit|alter)\b"
    r"(?P<object>[^.;!?]{0,80})"
)
"""A repair denied ("do not fix this", "don't touch add()"): it denies the task when its object is
the task's code or points back at the statement; "do not change the tests" denies nothing."""
LEAVE_ALONE = re.compile(r"\bleave\s+(?P<object>[^.;!?]{0,60}?)\s+(?:alone|as (?:it )?is)\b")
""""Leave add() alone": the same denial, when its object is the task's code."""
DISMISSED = re.compile(
    rf"\b(?:ignore|disregard|forget|skip)\s+(?:\w+\s+){{0,2}}?(?:{_DEICTIC_WORDS}|previous|everything"
    r"|the (?:description|request|text|example|instructions?))\b"
)
"""The statement set aside ("ignore it", "disregard the issue above"); "should be ignored" (the
expected behaviour of a toposort) is not a command."""
REFRAMED = re.compile(
    r"\b(?:real|actual|true|secret|hidden|new)\s+(?:task|goal|job|assignment|instructions?)\b"
)
""""Your real task: ...": whatever follows replaces the statement."""
DESTRUCTIVE = re.compile(
    r"(?<!not )(?<!n't )(?<!never )\b(?:delete|remove|skip|disable|xfail|comment out|weaken|loosen|drop)\s+"
    r"(?P<object>(?:\S+\s+){0,4}\S+)"
)
"""Tests taken away ("delete tests/test_ops.py::test_mul", "skip the failing test"): the oracle's
tests are the task's judge, never its object."""
