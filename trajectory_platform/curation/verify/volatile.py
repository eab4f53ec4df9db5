"""Which values of a volatile span two honest runs may print: replay's pairing of erased spans.

Replay compares a recorded answer with the replayed output after erasing the spans that honestly
differ between runs (:data:`replay.DEFAULT_NORMALIZE`: a ``/tmp`` path, an address, a pid, a
runner's duration, a log line's stamp, an ``ls -l`` date). An erased span is evidence of nothing,
so each is paired with the other run's (:func:`pair`): the same rule at the same point, as many,
and each pair values that rule lets differ between runs (:data:`VALUES_AGREE`). Each text erased
on its own let a forged answer carry any value of the right shape there (red team rtforge9 F6,
2026-12-06: a computed ``23`` in ``/tmp/result-23.txt``; a forged pid, ``elapsed`` figure or log
clock). Every comparison of a recorded text with a replayed one pairs its spans the same way:
a whole answer (:func:`pair`), a truncated answer's head and tail (:func:`pair_head`,
:func:`pair_tail`), a listing compared in any order (:func:`pair_any_order`).
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass


@dataclass(frozen=True)
class Span:
    """One span a rule erased: the rule (its placeholder), the text erased, and whether it starts or
    ends the text it was erased from (a clip may cut a span there: :func:`pair_head`)."""

    rule: str
    value: str
    opens: bool = False
    closes: bool = False


_PYTEST_TEMP = re.compile(r"pytest-(?:\d+|of-[\w.-]+)")
"""pytest's temp folders: ``pytest-of-USER`` (the user running it) and ``pytest-N`` (a counter of
runs), under which a test's own folder is named by the test."""
_RANDOM_RUN = re.compile(r"[A-Za-z0-9_]{4,}")


def temp_paths_agree(recorded: str, replayed: str) -> bool:
    """Whether two ``/tmp`` paths differ only in the random names a temp file or folder is given:
    the same number of parts, each pair the same or a pair of temp names (:func:`temp_names_agree`)."""
    ours, theirs = recorded.split("/"), replayed.split("/")
    return len(ours) == len(theirs) and all(map(temp_names_agree, ours, theirs))


def temp_names_agree(recorded: str, replayed: str) -> bool:
    """Whether two path parts are the same, or both pytest's temp folders of one kind, or the same
    name around a random run (``mkstemp``'s ``tmpk3j_x9q2.txt``, ``mktemp``'s ``tmp.Xa81kQ0zPb``):
    the same length, differing over at least 4 word characters that are not all digits. A value a
    program computes into a name (``result-17.txt``) differs in a short run of digits; free text
    (an instruction) changes the number of parts or their lengths."""
    if recorded == replayed:
        return True
    if _PYTEST_TEMP.fullmatch(recorded) and _PYTEST_TEMP.fullmatch(replayed):
        return recorded.startswith("pytest-of-") == replayed.startswith("pytest-of-")
    if len(recorded) != len(replayed):
        return False
    differ = [i for i, (a, b) in enumerate(zip(recorded, replayed, strict=True)) if a != b]
    first, last = differ[0], differ[-1] + 1
    runs = (recorded[first:last], replayed[first:last])
    return all(_RANDOM_RUN.fullmatch(run) and not run.isdigit() for run in runs)


_REGIONS = ("55", "56", "60", "7f", "aa", "ff")
"""The first two of a 12-digit user-space address's digits, by where a process's memory lies: a
PIE program's heap (``0x55..``/``0x56..`` on x86-64, ``0xaa..`` on arm64), its mappings and stack
(``0x7f..``; ``0xff..`` on arm64), macOS's heap (``0x60..``). A 12-digit value elsewhere is a
number a program computed."""


def _pointer(value: str, widths: tuple[int, ...]) -> str | None:
    """``value``'s hex digits (lower case) where they may be an address of one of ``widths``
    (digits), else ``None``: one case throughout (``%p`` prints one); 16 digits a kernel address
    (``0xffff8...`` and above) or a shorter one zero-padded (Windows pads); significant digits a
    12-digit user address in one of :data:`_REGIONS`, or 7 to 11 (macOS's ``0x10...``, a 32-bit
    process's, a padded Windows heap address)."""
    digits = value.rpartition("0x")[2]
    if digits not in (digits.lower(), digits.upper()) or len(digits) not in widths:
        return None
    digits = digits.lower()
    if len(digits) == 16 and digits.startswith("ffff"):
        return digits if digits[4] in "89abcdef" else None
    if len(digits) == 16 and not digits.startswith("0000"):
        return None
    significant = digits.lstrip("0")
    if len(significant) == 12:
        return digits if significant[:2] in _REGIONS else None
    return digits if 7 <= len(significant) <= 11 else None


def addresses_agree(recorded: str, replayed: str) -> bool:
    """Whether two pointer-width hex values (``0x`` and 12 to 16 digits) may be one address in two
    runs: both addresses (:func:`_pointer`: a user address in a region a process's memory lies in,
    or a kernel's), of the same width and leading digit. A computed value (``hex(add(2**50, 3))``,
    13 digits; a 12-digit hash or product with the address's leading digit) is compared."""
    ours, theirs = _pointer(recorded, (12, 16)), _pointer(replayed, (12, 16))
    return ours is not None and theirs is not None and len(ours) == len(theirs) and ours[0] == theirs[0]


def repr_addresses_agree(recorded: str, replayed: str) -> bool:
    """Whether two addresses in an object's repr (``<Foo object at 0x...>``) may be one address in two
    runs: both pointers (:func:`_pointer`, 7 to 16 digits). The width is the platform's (a log
    recorded on macOS prints 9 digits where Linux prints 12), so it is not compared; but a
    recorded ``at 0x12345`` or ``at 0xdeadbeefcafe`` is no address any platform prints."""
    widths = tuple(range(7, 17))
    return _pointer(recorded, widths) is not None and _pointer(replayed, widths) is not None


PID_MAX = 4_194_304
"""The largest pid Linux hands out (``pid_max``'s ceiling on 64-bit)."""
_PID = re.compile(r"(.*?)([1-9]\d*)")


def pids_agree(recorded: str, replayed: str) -> bool:
    """Whether two pid spans (``pid 4242``, ``PID=7``) may be one process's pid in two runs: written
    alike (the word and separator are the program's text, not the run's), each a pid Linux can
    hand out (no leading zero, up to :data:`PID_MAX`). The width is not compared: the replay's
    sandbox has a pid namespace of its own (its pids are small), the agent's container another."""
    ours, theirs = _PID.fullmatch(recorded), _PID.fullmatch(replayed)
    if ours is None or theirs is None or ours.group(1) != theirs.group(1):
        return False
    return int(ours.group(2)) <= PID_MAX and int(theirs.group(2)) <= PID_MAX


_UNIT_SECONDS = {
    "ms": 1e-3,
    "us": 1e-6,
    "µs": 1e-6,
    "ns": 1e-9,
    "s": 1.0,
    "sec": 1.0,
    "secs": 1.0,
    "seconds": 1.0,
}
_DURATION = re.compile(
    r"(?:(?P<minutes>\d+)m)?(?P<number>\d+(?:\.\d+)?) ?(?P<unit>ms|us|µs|ns|seconds|secs|sec|s)"
    r"(?: \((?P<h>\d+):(?P<m>\d{2}):(?P<s>\d{2})\))?[ \t]*\Z"
)
"""The duration ending a duration span: a number and its unit (``0.12s``, ``17 ms``), ``time``'s
``0m1.250s``, pytest's ``65.43s (0:01:05)``."""
DURATION_FACTOR = 20.0
"""How many times slower one honest run of a command may be than another (the agent's machine
against the replay's sandbox, a loaded CI host), beyond :data:`DURATION_SLACK_S`. Wide on purpose:
a verdict that turns on the host's load is a verdict the same inputs do not always get (a 2-core
host running eight jobs starved a sandboxed run about 7x); the forged figures this bounds (a fix
claimed to take a 12-second run to 0.3 s) are 40x and more."""
DURATION_SLACK_S = 5.0
"""Seconds two honest runs' durations may differ by whatever their ratio: a test run the agent's
machine timed at 0.01 s takes seconds in a replay on a loaded host (its interpreter's start and
collection; a CI host shared by other jobs measured pytest's ``1 passed in 0.01s`` well past 1 s)."""


def _seconds(span: str) -> float | None:
    """The seconds a duration span ends with, or ``None`` where it is none or its clock (pytest's
    ``(h:mm:ss)``) disagrees with its seconds."""
    match = _DURATION.search(span)
    if match is None:
        return None
    seconds = float(match.group("number")) * _UNIT_SECONDS[match.group("unit")]
    seconds += 60 * int(match.group("minutes") or 0)
    if match.group("h") is not None:
        clock = 3600 * int(match.group("h")) + 60 * int(match.group("m")) + int(match.group("s"))
        if int(match.group("m")) > 59 or int(match.group("s")) > 59 or abs(clock - seconds) > 1:
            return None
    return seconds


def durations_agree(recorded: str, replayed: str) -> bool:
    """Whether two duration spans (a runner's ``in 0.12s``, ``time``'s ``real``, an ``elapsed``
    report) may time one command in two runs: within :data:`DURATION_FACTOR` of each other, or
    :data:`DURATION_SLACK_S` apart. A log claiming a fix made a 12-second run take 0.3 seconds, the
    figure a performance task is judged by, was replay-verified when any figure was erased; a
    figure within the slack still is (only a second replay could tell)."""
    ours, theirs = _seconds(recorded), _seconds(replayed)
    if ours is None or theirs is None:
        return False
    low, high = sorted((ours, theirs))
    return high - low <= DURATION_SLACK_S or high <= DURATION_FACTOR * low


_STAMP_FIELDS = re.compile(
    r"(?:(?P<year>\d{4})-(?P<month>\d{2})-(?P<day>\d{2})[T ])?(?P<hour>\d{1,2}):(?P<minute>\d{2})"
    r"(?::(?P<second>\d{2}))?"
)


def _stamp_shape(span: str) -> str | None:
    """A stamp span's format (its digits as ``0``, a one-digit hour as two), or ``None`` where a
    field is out of range (month 13, hour 24, minute 60, second 61): no clock prints that."""
    match = _STAMP_FIELDS.search(span)
    if match is None:
        return None
    fields = {name: int(value) for name, value in match.groupdict().items() if value is not None}
    limits = {"month": (1, 12), "day": (1, 31), "hour": (0, 23), "minute": (0, 59), "second": (0, 60)}
    if any(not low <= fields[name] <= high for name, (low, high) in limits.items() if name in fields):
        return None
    shape = span[: match.start("hour")] + "00" + span[match.end("hour") :]
    return re.sub(r"\d", "0", shape)


def stamps_agree(recorded: str, replayed: str) -> bool:
    """Whether two line-leading stamps (a log line's date-time or clock) may be one logger's in two
    runs: the same format (fields, separators, fraction digits, zone) and each a real time. A
    stamp's value is the run's moment, so it is not compared; its format is the program's."""
    ours = _stamp_shape(recorded)
    return ours is not None and ours == _stamp_shape(replayed)


_LS_DATE = re.compile(r"(?P<day>\d{1,2}) +(?:(?P<hour>\d{1,2}):(?P<minute>\d{2})|(?P<year>\d{4}))\Z")


def _ls_date(span: str) -> bool:
    """Whether an ``ls -l`` line's date (``Jul 17 01:31``, ``Jul 17  2023``) is a real one."""
    match = _LS_DATE.search(span)
    if match is None or not 1 <= int(match.group("day")) <= 31:
        return False
    if match.group("year") is not None:
        return 1970 <= int(match.group("year")) <= 2100
    return int(match.group("hour")) <= 23 and int(match.group("minute")) <= 59


def dates_agree(recorded: str, replayed: str) -> bool:
    """Whether two ``ls -l`` dates may be one file's in two checkouts: each a real date (the replay
    wrote its files now, the agent's checkout when it was made)."""
    return _ls_date(recorded) and _ls_date(replayed)


VALUES_AGREE: dict[str, Callable[[str, str], bool]] = {
    "<TMP>": temp_paths_agree,
    "<ADDR>": addresses_agree,
    "at <ADDR>": repr_addresses_agree,
    "pid <PID>": pids_agree,
    "\\1<DURATION>": durations_agree,
    "\\1<TIME>": stamps_agree,
    "\\1<DATE>": dates_agree,
}
"""Each value rule's test of two erased spans (by its placeholder): the values two honest runs may
print there. A rule's spans with no test here are forms, not values (the shell's ``bash: line N:``,
an ``index`` line's hash digits past the 7 compared, ``git status``'s branch), and are not paired."""


def _agree(ours: Span, theirs: Span, cut: str = "") -> bool:
    """Whether one recorded span and one replayed span are one value's in two runs; ``cut``: the
    recorded span is cut at its ``end`` (a head's last) or ``start`` (a tail's first), so it agrees
    with the part of the replayed one it shows."""
    if ours.rule != theirs.rule:
        return False
    test, shown = VALUES_AGREE[ours.rule], len(ours.value)
    if cut == "end" and (theirs.value.startswith(ours.value) or test(ours.value, theirs.value[:shown])):
        return True
    if cut == "start" and (theirs.value.endswith(ours.value) or test(ours.value, theirs.value[-shown:])):
        return True
    return test(ours.value, theirs.value)


def _by_rule(spans: list[Span]) -> dict[str, list[Span]]:
    """The value spans (:data:`VALUES_AGREE`), by rule, in order."""
    grouped: dict[str, list[Span]] = {rule: [] for rule in VALUES_AGREE}
    for span in spans:
        if span.rule in grouped:
            grouped[span.rule].append(span)
    return grouped


def pair(ours: list[Span], theirs: list[Span]) -> bool:
    """Whether a recorded text's erased spans pair one for one with the replayed output's: as many
    of each rule, in the same order, each pair values the rule lets differ (:data:`VALUES_AGREE`)."""
    recorded, replayed = _by_rule(ours), _by_rule(theirs)
    return all(
        len(recorded[rule]) == len(replayed[rule]) and all(map(_agree, recorded[rule], replayed[rule]))
        for rule in VALUES_AGREE
    )


def pair_head(ours: list[Span], theirs: list[Span]) -> bool:
    """:func:`pair` for a head a harness cut off the replayed output: the head's spans pair with the
    output's first ones of each rule, its last span, where it ends the head, with the start of the
    output's (the cut may fall inside it)."""
    recorded, replayed = _by_rule(ours), _by_rule(theirs)
    for rule in VALUES_AGREE:
        shown, full = recorded[rule], replayed[rule]
        if len(shown) > len(full):
            return False
        cuts = ["end" if i == len(shown) - 1 and span.closes else "" for i, span in enumerate(shown)]
        if not all(map(_agree, shown, full, cuts)):
            return False
    return True


def pair_tail(ours: list[Span], theirs: list[Span]) -> bool:
    """:func:`pair_head` for a tail: the tail's spans pair with the output's last ones of each rule,
    its first, where it starts the tail, with the end of the output's."""
    recorded, replayed = _by_rule(ours), _by_rule(theirs)
    for rule in VALUES_AGREE:
        shown, full = recorded[rule], replayed[rule]
        if len(shown) > len(full):
            return False
        cuts = ["start" if i == 0 and span.opens else "" for i, span in enumerate(shown)]
        if not all(map(_agree, shown, full[len(full) - len(shown) :], cuts)):
            return False
    return True


def pair_any_order(ours: list[Span], theirs: list[Span]) -> bool:
    """:func:`pair` for texts compared in any order (a listing laid out by the terminal or sorted
    by the container's locale): as many spans of each rule, each recorded one paired with its own
    replayed one (first fit)."""
    recorded, replayed = _by_rule(ours), _by_rule(theirs)
    for rule in VALUES_AGREE:
        free = list(replayed[rule])
        if len(recorded[rule]) != len(free):
            return False
        for span in recorded[rule]:
            match = next((other for other in free if _agree(span, other)), None)
            if match is None:
                return False
            free.remove(match)
    return True
