"""Redaction of a whole :class:`Episode`: every string field, one symbol table per episode.

Two phases: every string is scanned first and all findings enter one symbol table, then every
string is rewritten from it. So a token the model pasted into a tool call and the same token
echoed back in an observation or in a delivered-input manifest get the same pseudonym, and
the delivered text stays identical to the events it mirrors.

Which fields are walked, and how, is decided in one table (:data:`.fields.FIELDS`): every string
of the record is classified there (free text, command, id, locator, licence, key, vocabulary,
timestamp). Names and ids written by a model or an agent (tool names, call ids, a participant's
name, the task id, the lineage's model and digests, a tool's version) are scanned for known secret
formats only (they look random by design), through the same table, so a tool's spec, its calls
and their answers keep one (pseudonymized) name. A value outside a closed class (a vocabulary, a
timestamp) or a secret in the episode id refuses the episode (:class:`.fields.OutOfClass`). Text
that travels beside an episode (the verifier's findings about it) is redacted with it
(:func:`redact_row`), so a finding quoting a tool name matches the events.
"""

from __future__ import annotations

import copy
import json
import re
from bisect import bisect_left, bisect_right
from collections.abc import Iterator, Mapping
from dataclasses import is_dataclass, replace
from itertools import accumulate
from types import SimpleNamespace
from typing import Any

from trajectory_platform.curation.redact.credential_files import directed_files, printed_file_spans
from trajectory_platform.curation.redact.detectors import find_secrets
from trajectory_platform.curation.redact.engine import (
    build_table,
    piece_windows,
    resolve_findings,
    rewrite,
    scan,
    truncated_heads,
)
from trajectory_platform.curation.redact.fields import (
    FIELDS,
    FREE_TEXT,
    FieldClass,
    OutOfClass,
    UnclassifiedField,
)
from trajectory_platform.curation.redact.file_writes import written_across_commands
from trajectory_platform.curation.redact.model import Finding, RedactionConfig
from trajectory_platform.curation.redact.pii import find_pii
from trajectory_platform.curation.redact.positional import SECRET_READER, secret_printed_by
from trajectory_platform.curation.redact.pseudonym import SymbolTable, pseudonym_digest
from trajectory_platform.curation.redact.sql_results import command_selects, selected_credentials
from trajectory_platform.curation.redact.terraform_state import printed_resource_secrets
from trajectory_platform.curation.redact.turns import credentials_across_turns
from trajectory_platform.traces.record import Episode

Slot = tuple[str, Any, str, FieldClass]
"""``(field path, owner object, attribute, class)``: one string field of an episode."""


def string_slots(episode: Episode) -> Iterator[Slot]:
    """Every string field of ``episode`` (``None`` ones too), with its class from :data:`FIELDS`.

    The record itself is walked, not a list of fields: a string field :data:`FIELDS` does not
    classify raises :class:`UnclassifiedField` rather than passing redaction unseen.
    """
    return _slots(episode, "", "")


def _slots(owner: Any, generic: str, concrete: str) -> Iterator[Slot]:
    for attr, value in vars(owner).items():
        field_class = FIELDS.get(generic + attr)
        if field_class is not None:
            yield concrete + attr, owner, attr, field_class
        elif isinstance(value, list):
            for index, item in enumerate(value):
                if is_dataclass(item):
                    yield from _slots(item, f"{generic}{attr}[].", f"{concrete}{attr}[{index}].")
                elif isinstance(item, str):
                    raise UnclassifiedField(f"{generic}{attr}[] holds strings and is not in FIELDS")
        elif is_dataclass(value):
            yield from _slots(value, f"{generic}{attr}.", f"{concrete}{attr}.")
        elif isinstance(value, str):
            raise UnclassifiedField(f"{generic}{attr} is a string field not in FIELDS")


SPLIT_WINDOW = 256
"""Characters of a run's first piece's end and its last piece's start joined by the
cross-message pass; a piece between them is joined whole when it is no longer than this."""
MAX_SPLIT_PIECES = 4
"""Pieces one secret may be spread over: a stream logged chunk by chunk as events."""
MIN_SPLIT_PART = 4
"""A piece shorter than this is not entered on its own: its pseudonym would rewrite every
standalone occurrence of those few characters, and the other pieces carry the secret."""


_WORD_SHAPED = re.compile(
    r"[A-Z]?[a-z]*[aeiouy][a-z]*|[a-z]{3,}|[A-Z]{3,}|[0-9]{3,}|[a-z][a-z0-9]*(?:_[a-z0-9]+)+"
)
"""The run of letters, digits and underscores next to the join that reads as a word (``export``,
``Running``: a vowel in it; small letters alone: ``pnpm``, ``sftp``, ``https``), an acronym or log
level (``HTTP``, ``INFO``), a number (``2024``) or a snake_case name (``pg_isready``): the shape of
the text that starts or ends a message, rarely of a random secret's piece (``Fgxmr``, ``Q2vL``)."""
_RUN_AFTER_JOIN = re.compile(r"[A-Za-z0-9_]+")
_TOKEN_BEFORE_JOIN = re.compile(r"[A-Za-z0-9_+/=\-]+$")
"""The token that ends a message: runs of letters, digits and underscores glued by what joins the
pieces of one (base64's ``+``, ``/`` and ``=``, a url-safe key's ``-``)."""
_RUN = re.compile(r"[A-Za-z0-9_]+")
_LONG_RUN = 8
"""A run of a token this long or longer tells a random key (``TthHbtfbNTwBAXzY``) from text."""


def _word_after_join(piece: str) -> bool:
    """Does the next message's piece start with a word-shaped run?"""
    found = _RUN_AFTER_JOIN.search(piece)
    return found is not None and len(found.group()) >= 3 and _WORD_SHAPED.fullmatch(found.group()) is not None


def _word_before_join(piece: str) -> bool:
    """Does the first message's piece end with a word-shaped run, in a token with no long run that
    is not one? ``PHW`` of ``...bNTwBAXzY/PHW`` is the end of a base64 key, not an acronym: read
    as one, it kept the key's first half from being redacted. Only a message's end is read so:
    a message's start is routinely a path of CamelCase names (``src/.../MyApplicationTests.java``),
    which the word shape was not made for, and its first run alone decides there."""
    found = _TOKEN_BEFORE_JOIN.search(piece)
    runs = _RUN.findall(found.group()) if found else [""]
    long_runs = [run for run in runs[:-1] if len(run) >= _LONG_RUN]
    return len(runs[-1]) >= 3 and all(_WORD_SHAPED.fullmatch(run) for run in (runs[-1], *long_runs))


def _found(text: str, config: RedactionConfig) -> list[Finding]:
    return [*find_secrets(text, config), *(find_pii(text, config) if config.pii else ())]


Piece = tuple[str, str]
"""``(field path, text)``: one event's share of a text written over consecutive events."""


def _content_pieces(episode: Episode, attr: str) -> list[Piece | None]:
    return [(f"events[{i}].{attr}", getattr(event, attr) or "") for i, event in enumerate(episode.events)]


def _argument_pieces(episode: Episode) -> list[Piece | None]:
    """The single string argument of each call, in order; a call with other arguments, an event
    without calls or a call to another tool than the one before ends a run."""
    pieces: list[Piece | None] = []
    tool = None
    for i, event in enumerate(episode.events):
        if not event.tool_calls:
            pieces.append(None)
        for j, call in enumerate(event.tool_calls):
            texts = _command_texts(call.arguments or "")
            if call.name != tool:
                pieces.append(None)
            tool = call.name
            pieces.append((f"events[{i}].tool_calls[{j}].arguments", texts[0]) if len(texts) == 1 else None)
    return pieces


def _joinable(left: str, right: str) -> bool:
    """Could one token run on from ``left`` into ``right``? Only where a piece touches the join
    with a letter or digit: text that merely ends a message and starts the next is not joined."""
    left, right = left.rstrip(), right.lstrip()
    return bool(left and right and (left[-1].isalnum() or right[0].isalnum()))


def _runs(pieces: list[Piece | None]) -> Iterator[list[tuple[Piece, int]]]:
    """From each piece, the run of up to :data:`MAX_SPLIT_PIECES` joinable pieces after it, each
    with the offset of its share in its own text: the first piece's last :data:`SPLIT_WINDOW`
    characters, the middle ones whole (a longer middle piece ends the run with its head), the
    last piece's first :data:`SPLIT_WINDOW`."""
    for i, piece in enumerate(pieces):
        if piece is None:
            continue
        run = [(piece, max(0, len(piece[1].rstrip()) - SPLIT_WINDOW))]
        for following in pieces[i + 1 : i + MAX_SPLIT_PIECES]:
            if following is None or not _joinable(run[-1][0][1], following[1]):
                break
            run.append((following, len(following[1]) - len(following[1].lstrip())))
            if len(following[1]) > SPLIT_WINDOW:
                break
        if len(run) > 1:
            yield run


def _share(run: list[tuple[Piece, int]], index: int) -> str:
    (_, text), offset = run[index]
    if index == 0:
        return text.rstrip()[offset:]
    return text[offset : offset + SPLIT_WINDOW] if index == len(run) - 1 else text[offset:]


def split_across_messages(episode: Episode, config: RedactionConfig) -> list[Finding]:
    """Secrets split over consecutive events: a message's end and the next one's start, or a
    stream logged chunk by chunk (up to :data:`MAX_SPLIT_PIECES` events), in each text an event
    carries (content, reasoning, the string argument of consecutive calls to one tool).

    The shares of a run (:func:`_runs`) are joined and scanned; a finding that crosses a join,
    or that a later piece shows whole with its label cut, is a secret no piece's scan finds, and
    each piece's part becomes a value of its own field (replaced wherever it occurs).

    A secret that one piece shows whole is not split, though a greedy pattern runs on into the
    next message: ``PASSWORD=Xk9mQ2vL8pR4`` ending one message and ``export PATH=...`` starting
    the next read as ``Xk9mQ2vL8pR4export``, and ``export`` became a pseudonym in every command of
    the episode. So where the scan of the first (last) piece alone finds a secret reaching the
    join, the next (previous) piece's part counts only if it is no word-shaped text
    (:data:`_WORD_SHAPED`).
    """
    found: list[Finding] = []
    for pieces in (_content_pieces(episode, "content"), _content_pieces(episode, "reasoning")):
        for run in _runs(pieces):
            found.extend(_split_findings(run, config))
    for run in _runs(_argument_pieces(episode)):
        found.extend(_split_findings(run, config))
    return list(dict.fromkeys(found))  # runs overlap: a piece's part found from two starts counts once


def _ends_the_share(found: Finding, share: str, part: str) -> bool:
    """Whether ``found``, a finding of ``share`` scanned alone, is ``part`` (its end of the share)
    but for the full stop or dash a format's value sheds (``detectors.find_known_formats``): a
    sentence ending in a token (``... ghp_….``) and a next message starting ``tests/…`` read as
    one longer token across the join, and ``tests`` became a pseudonym everywhere."""
    return found.value == part.rstrip(".-") and not share[found.end :].strip(".-")


def _split_findings(run: list[tuple[Piece, int]], config: RedactionConfig) -> list[Finding]:
    """The findings of a run's joined shares that reach past its first piece and that no piece's
    scan alone makes: a value crossing a join, or one a later piece shows whole but whose label
    began in an earlier one (``export DB_P`` + ``ASSWORD=...``)."""
    shares = [_share(run, index) for index in range(len(run))]
    joined = "".join(shares)
    bounds = list(accumulate(map(len, shares), initial=0))
    candidates = [f for f in scan(joined, config) if f.end > bounds[1]]
    alone: dict[int, list[Finding]] = {}

    def scanned_alone(index: int) -> list[Finding]:
        if index not in alone:
            alone[index] = scan(shares[index], config)
        return alone[index]

    found: list[Finding] = []
    for finding in candidates:
        first, last = bisect_right(bounds, finding.start) - 1, bisect_left(bounds, finding.end) - 1
        spans = [
            (max(finding.start, bounds[k]), min(finding.end, bounds[k + 1])) for k in range(first, last + 1)
        ]
        parts = [joined[start:end] for start, end in spans]
        if first == last:
            if finding.detector == "entropy":
                continue  # a random run inside one piece is its piece's to judge, by the piece's context
            if any(
                f.start + bounds[first] == finding.start and f.end == len(parts[0]) + f.start
                for f in scanned_alone(first)
            ):
                continue  # the piece alone finds it: not the run's to report
        elif last == first + 1 and (
            (
                any(_ends_the_share(f, shares[first], parts[0]) for f in scanned_alone(first))
                and _word_after_join(parts[1])
            )
            or (
                any(f.start == 0 and f.value == parts[1] for f in scanned_alone(last))
                and _word_before_join(parts[0])
            )
        ):
            continue  # one piece shows the secret whole (its own scan finds exactly its part there)
        for index, part, (start, _) in zip(range(first, last + 1), parts, spans, strict=True):
            if len(part) >= MIN_SPLIT_PART:
                (path, _), offset = run[index]
                at = offset + start - bounds[index]
                found.append(
                    Finding(finding.kind, at, at + len(part), part, f"{finding.detector}+split", path)
                )
    return found


def _command_texts(arguments: str) -> list[str]:
    """The strings of a call's arguments (``{"command": "..."}`` and its kin), or the raw text."""
    try:
        parsed = json.loads(arguments)
    except ValueError:
        return [arguments]
    if isinstance(parsed, str):
        return [parsed]
    if isinstance(parsed, dict):
        return [value for value in parsed.values() if isinstance(value, str)]
    return []


def _commands(episode: Episode) -> list[tuple[str, str]]:
    """Every string argument of every call, with its field path, in the episode's order."""
    return [
        (f"events[{i}].tool_calls[{j}].arguments", text)
        for i, event in enumerate(episode.events)
        for j, call in enumerate(event.tool_calls)
        for text in _command_texts(call.arguments or "")
    ]


def printed_by_secret_readers(episode: Episode) -> list[Finding]:
    """What a call that prints one secret's plaintext (:func:`.positional.secret_printed_by`:
    ``kubectl get secret ... | base64 -d``, ``vault kv get -field=...``, ``echo $DB_PASSWORD``,
    ``jq -r .password``) got back as its result: the
    command names no secret beside the value, and the value arrives in the next message, where no
    rule of one text can see the command. Likewise the credential columns of a SELECT a client ran
    from its command line (:func:`.sql_results.selected_credentials`), and the attributes of a
    Terraform resource type a command selected (:func:`.terraform_state.printed_resource_secrets`)."""
    commands = {
        call.id: _command_texts(call.arguments)
        for event in episode.events
        for call in event.tool_calls
        if call.id and call.arguments
    }
    found: list[Finding] = []
    directed = directed_files("\n".join(event.content or "" for event in episode.events))
    directed |= directed_files("\n".join(text for texts in commands.values() for text in texts))
    for i, event in enumerate(episode.events):
        if event.kind == "tool" and event.tool_call_id in commands and event.content:
            for text in commands[event.tool_call_id]:
                for start, end in printed_file_spans(text, event.content, directed):
                    line = event.content[start:end]
                    found.append(
                        Finding("PASSWORD", start, end, line, "credential_file", f"events[{i}].content")
                    )
            for query in (query for text in commands[event.tool_call_id] for query in command_selects(text)):
                for start, end, kind in selected_credentials(query, event.content):
                    cell = event.content[start:end]
                    found.append(Finding(kind, start, end, cell, "sql_result", f"events[{i}].content"))
            for text in commands[event.tool_call_id]:
                found.extend(
                    replace(f, field=f"events[{i}].content")
                    for f in printed_resource_secrets(text, event.content)
                )
            printed = (secret_printed_by(text, event.content) for text in commands[event.tool_call_id])
            value = next((value for value in printed if value is not None), None)
            if value is not None:
                start = event.content.index(value)
                found.append(
                    Finding(
                        "PASSWORD",
                        start,
                        start + len(value),
                        value,
                        SECRET_READER,
                        f"events[{i}].content",
                    )
                )
    return found


def redact_episode(
    episode: Episode, salt: bytes, config: RedactionConfig | None = None
) -> tuple[Episode, list[Finding]]:
    """A redacted copy of ``episode`` and its findings (``Finding.field`` names the field).

    The input is not modified. Finding offsets are relative to the string that was scanned
    (for JSON, the decoded literal). Raises :class:`.fields.OutOfClass` (:func:`redact_row`).
    """
    redacted, _, findings = redact_row(episode, {}, salt, config)
    return redacted, findings


def redact_row(
    episode: Episode,
    beside: Mapping[str, str | None],
    salt: bytes,
    config: RedactionConfig | None = None,
) -> tuple[Episode, dict[str, str | None], list[Finding]]:
    """:func:`redact_episode` with the texts that travel ``beside`` it (a verified row's verdict
    columns, by name) redacted through the same symbol table: a finding that quotes a tool name or
    an argument the verifier read before redaction gets the pseudonym the episode got. Returns the
    redacted episode, the redacted texts and every finding (``Finding.field`` of a text beside is
    its name). Raises :class:`.fields.OutOfClass` for an episode that must not be published."""
    config = config or RedactionConfig()
    redacted = copy.deepcopy(episode)
    texts = SimpleNamespace(**beside)
    slots = [*string_slots(redacted), *((name, texts, name, FREE_TEXT) for name in beside)]
    slots = [slot for slot in slots if getattr(slot[1], slot[2])]
    for path, owner, attr, field_class in slots:  # closed classes first: a refusal costs no scan
        value = getattr(owner, attr)
        if field_class.admits is not None and not field_class.admits(value):
            raise OutOfClass(path, field_class, pseudonym_digest(salt, value))
    scanned = [(p, o, a, c, c.context(o)) for p, o, a, c in slots if c.context is not None]
    findings: list[Finding] = []
    for path, owner, attr, field_class, context in scanned:
        found = scan(getattr(owner, attr), config, context)
        if found and field_class.refuses_secrets:
            raise OutOfClass(path, field_class, pseudonym_digest(salt, getattr(owner, attr)))
        findings.extend(replace(f, field=path) for f in found)
    findings.extend(split_across_messages(redacted, config))
    findings.extend(written_across_commands(_commands(redacted), config))
    findings.extend(printed_by_secret_readers(redacted))
    findings.extend(credentials_across_turns(redacted))
    table: SymbolTable = build_table(findings, salt)
    by_field: dict[str, list[Finding]] = {}
    for finding in findings:
        by_field.setdefault(finding.field, []).append(finding)
    windows = piece_windows(table, [getattr(owner, attr) for _, owner, attr, *_ in scanned])
    heads = [
        replace(f, field=path)
        for path, owner, attr, *_ in scanned
        for f in truncated_heads(getattr(owner, attr), table, by_field.get(path, []), windows)
    ]
    findings.extend(heads)
    build_table(heads, salt, table)
    for _path, owner, attr, _class, context in scanned:
        setattr(owner, attr, rewrite(getattr(owner, attr), table, context))
    return redacted, vars(texts), resolve_findings(findings, table)
