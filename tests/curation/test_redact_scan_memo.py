"""The redaction engine's memo of scans (process-wide, bounded), and its per-credential windows: each
answers exactly what the work it spares would have (faster, never different)."""

from __future__ import annotations

import base64
import json
import random
import re
import string
import urllib.parse
from collections.abc import Iterator

from redact_factory import API_SECRET, DB_PASSWORD, GITHUB_TOKEN, SALT, secret_episode

from trajectory_platform.curation.redact import RedactionConfig, engine, measure_episode_leak
from trajectory_platform.curation.redact.decoders import rotations
from trajectory_platform.curation.redact.engine import (
    PARTIAL_MIN,
    partial_copies,
    piece_windows,
    scan,
)
from trajectory_platform.curation.redact.episode import redact_episode
from trajectory_platform.curation.redact.pseudonym import placing_order

TEXTS = [
    f"export GITHUB_TOKEN={GITHUB_TOKEN} && echo done",
    json.dumps({"api_key": API_SECRET, "note": f"password is {DB_PASSWORD}"}),
    "nothing to see here: ls -la /tmp",
]


def _counting(
    monkeypatch, budget: int = engine.SCAN_MEMO_CHARS
) -> list[tuple[str, engine.Context, tuple[object, ...]]]:
    """What ``engine._scan`` is asked to scan at the top level (depth 0), in order: each text
    with its context and its configuration's values; the memo starts empty (``budget`` characters)."""
    calls: list[tuple[str, engine.Context, tuple[object, ...]]] = []
    real = engine._scan

    def counted(text, config, context, depth):
        if depth == 0:
            calls.append((text, context, engine._config_key(config)))
        return real(text, config, context, depth)

    monkeypatch.setattr(engine, "_scan", counted)
    monkeypatch.setattr(engine, "_SCAN_MEMO", engine._ScanMemo(budget))
    return calls


def test_a_text_is_scanned_once_across_calls_and_episodes(monkeypatch) -> None:
    """The memo outlives one episode: a rollout's episodes repeat one system prompt and tool block."""
    calls = _counting(monkeypatch)
    config = RedactionConfig()
    first = [scan(text, config) for text in TEXTS]
    again = [scan(text, config) for text in TEXTS]
    assert len(calls) == len(TEXTS)
    assert first == again
    first[0].append(first[0][0])  # a caller extends the list it got: the memo's stays as it was
    assert scan(TEXTS[0], config) == again[0]
    episode = secret_episode()
    redact_episode(episode, SALT)
    scanned = len(calls)
    redact_episode(episode, SALT)
    assert len(calls) == scanned


def test_the_memo_keys_the_configuration_and_the_context(monkeypatch) -> None:
    config = RedactionConfig()
    plain = {
        "loud": scan(TEXTS[1], config),
        "quiet": scan(TEXTS[1], RedactionConfig(entropy=False, pii=False)),
        "changed": scan(TEXTS[1], RedactionConfig(entropy=False)),
        "shell": scan(TEXTS[0], config, engine.Context(shell=True)),
    }
    calls = _counting(monkeypatch)
    quiet = RedactionConfig(entropy=False, pii=False)
    memoed = {"loud": scan(TEXTS[1], RedactionConfig()), "quiet": scan(TEXTS[1], quiet)}
    quiet.pii = True  # the same object changed: no longer the configuration it was scanned under
    memoed["changed"] = scan(TEXTS[1], quiet)
    memoed["shell"] = scan(TEXTS[0], RedactionConfig(), engine.Context(shell=True))
    assert len(calls) == 4
    assert memoed == plain


def test_the_memo_keeps_its_character_budget_least_recently_used_first_out(monkeypatch) -> None:
    first, second, third = TEXTS[0], "cat /var/log/syslog | tail -n 50 | sort", TEXTS[2]  # no nested scans
    budget = len(first) + len(second)
    assert len(third) <= len(second)
    calls = _counting(monkeypatch, budget)
    config = RedactionConfig()
    scan(first, config)
    scan(second, config)
    scan(first, config)  # used again: the second is now the oldest
    scan(third, config)  # over the budget: the second goes
    assert engine._SCAN_MEMO.chars <= budget
    scan(first, config)
    scan(second, config)
    assert [call[0] for call in calls] == [first, second, third, second]
    scan("x" * (budget + 1), config)  # a text longer than the whole budget is never kept
    assert engine._SCAN_MEMO.chars <= budget


def test_the_leak_measurement_scans_each_field_it_planted_nothing_in_once(monkeypatch) -> None:
    episode = secret_episode()
    calls = _counting(monkeypatch)
    report = measure_episode_leak(episode, SALT)
    assert report.injected and not report.leaked
    assert len(calls) == len(set(calls))  # the copies' shared fields: scanned once, not once per copy


def _credentials(seed: int, count: int) -> list[str]:
    """Random tokens, some sharing a 12-character run, some with words, ``__`` or stream framing."""
    rng = random.Random(seed)
    # with a titlecase letter (neither case), an Arabic digit, accented letters and more "_"
    alphabet = string.ascii_letters + string.digits + "_-/+=" + "\u01c5\u0661\u00e9\u00c9_"
    shared = "".join(rng.choice(alphabet) for _ in range(30))
    values = []
    for index in range(count):
        body = "".join(rng.choice(alphabet) for _ in range(rng.randint(20, 70)))
        shape = index % 5
        if shape == 1:
            body = body[:10] + shared + body[10:]
        elif shape == 2:
            body = "super-secret-passphrase-" + body
        elif shape == 3:
            body = body[:15] + "__home__user__" + body[15:]
        elif shape == 4:
            body = body[:12] + '", "' + body[12:]
        values.append(body)
    return values


def _token_piece(window: str) -> bool:
    """The rule, window by window: no ``__``; a digit and a letter, or two capitals and two small."""
    if "__" in window:
        return False
    upper, lower = sum(map(str.isupper, window)), sum(map(str.islower, window))
    return any(map(str.isdigit, window)) and upper + lower > 0 or upper >= 2 and lower >= 2


def _all_windows(credentials: list[str]) -> dict[str, str]:
    """Every token piece of every credential, to the first credential in order holding it as one
    (the map the engine built window by window before it asked the piece rule of a text's windows)."""
    expected: dict[str, str] = {}
    for value in sorted(credentials):
        if engine._STREAM_FRAMING.search(value):
            continue
        for index in range(len(value) - PARTIAL_MIN + 1):
            window = value[index : index + PARTIAL_MIN]
            if _token_piece(window):
                expected.setdefault(window, value)
    return expected


def _text_showing(seed: int, credentials: list[str]) -> str:
    """A text of noise and pieces of the credentials (heads, tails, middles, some whole, some
    split by a space), so its runs hold some of their windows and not others."""
    rng = random.Random(seed)
    parts = []
    for value in credentials:
        start = rng.randint(0, len(value) - 1)
        piece = value[start : start + rng.randint(5, len(value))]
        if rng.random() < 0.3:
            cut = rng.randint(0, len(piece))
            piece = piece[:cut] + " " + piece[cut:]
        parts.append(rng.choice(["", "key=", "x", "... "]) + piece)
        parts.append("".join(rng.choice(string.ascii_letters + "  ") for _ in range(rng.randint(0, 20))))
    return rng.choice([" ", "\n", ""]).join(parts)


def _table(credentials: list[str]) -> engine.SymbolTable:
    return engine.build_table([engine.Finding("API_KEY", 0, len(v), v, "test") for v in credentials], SALT)


def _text_windows(texts: list[str]) -> set[str]:
    """Every window a run of ``texts`` holds: the windows :func:`partial_copies` asks about."""
    return {
        run.group()[index : index + PARTIAL_MIN]
        for text in texts
        for run in engine._RUN.finditer(text)
        for index in range(len(run.group()) - PARTIAL_MIN + 1)
    }


def _first_owner(credentials: frozenset[str], window: str) -> str | None:
    holders = [v for v in credentials if window in v and not engine._STREAM_FRAMING.search(v)]
    return min(holders) if holders else None


def test_windows_are_every_window_owned_by_the_first_credential_holding_it() -> None:
    """Every window, a token piece or not; the piece rule is the window's own, so a piece's owner
    is the one the piece-only map gave it. (Texts showing every credential whole: the whole map.)"""
    for seed in range(20):
        credentials = frozenset(_credentials(seed, 12))
        table = engine.SymbolTable(SALT)
        for value in credentials:
            table.add(value, "API_KEY")
        windows = piece_windows(table, sorted(credentials))
        pieces = _all_windows(sorted(credentials))
        assert {w: owner for w, owner in windows.items() if _token_piece(w)} == pieces
        assert any(not _token_piece(w) for w in windows)
        for window, owner in windows.items():
            assert engine._token_piece(window) == _token_piece(window)
            assert owner == _first_owner(credentials, window)


def test_piece_windows_answer_each_window_the_texts_show_as_the_whole_tables_map() -> None:
    """Restricted to the credentials the texts show, the map still answers every window a text's
    run holds with the first credential holding it, or none (fails before: no such map; the old
    one held every window of every credential, the 200k of a canary document)."""
    left_out = 0
    for seed in range(20):
        credentials = _credentials(seed, 12)
        table = _table(credentials)
        long = frozenset(v for v in table.credentials if len(v) >= engine.PARTIAL_OF)
        texts = [_text_showing(seed, credentials[:6]), _text_showing(seed + 100, credentials[9:])]
        windows = piece_windows(table, texts)
        for window in _text_windows(texts):
            assert windows.get(window) == _first_owner(long, window)
        left_out += len(long) - len(set(windows.values()))
    assert left_out  # the encoded copies and the credentials no text shows


def test_piece_windows_keep_a_credential_shown_by_any_one_window() -> None:
    """A text showing a single window of a credential, at each of its offsets (the sampled grams
    are every fifth offset's, so each residue and the last window are covered)."""
    for seed in range(3):
        credentials = _credentials(seed, 5)
        table = _table(credentials)
        long = frozenset(v for v in table.credentials if len(v) >= engine.PARTIAL_OF)
        for value in credentials:
            for offset in range(len(value) - PARTIAL_MIN + 1):
                window = value[offset : offset + PARTIAL_MIN]
                if any(ch.isspace() for ch in window):
                    continue
                text = f"see {window} there"
                assert piece_windows(table, [text]).get(window) == _first_owner(long, window)


def test_partial_copies_finds_the_pieces_the_whole_tables_windows_find() -> None:
    """The pieces found with the text's windows are those found with the whole table's (the lookup
    loop run against :func:`_all_windows`)."""
    for seed in range(20):
        credentials = _credentials(seed, 12)
        text = _text_showing(seed, credentials)
        table = _table(credentials)
        everything = _all_windows([v for v in table.credentials if len(v) >= engine.PARTIAL_OF])
        expected = []
        for run in engine._RUN.finditer(text):
            position, end = run.start(), run.end()
            while position + PARTIAL_MIN <= end:
                value = everything.get(text[position : position + PARTIAL_MIN])
                if value is None:
                    position += 1
                    continue
                start, stop = engine._widened(text, position, value, run.start(), end)
                if stop - start < len(value):
                    expected.append((start, stop, value))
                position = stop
        found = partial_copies(text, table)
        assert [(f.start, f.end, f.value) for f in found] == [(s, e, text[s:e]) for s, e, _ in expected]
        assert found


def _copies_written_by_urllib(value: str) -> set[str]:
    """The encoded copies as they were written with ``urllib.parse`` per value (before 48)."""
    raw = value.encode()
    copies = {
        base64.b64encode(raw).decode(),
        base64.b64encode(raw + b"\n").decode(),
        base64.urlsafe_b64encode(raw).decode(),
        urllib.parse.quote(value, safe=""),
        urllib.parse.quote_plus(value),
        raw.hex(),
        raw.hex().upper(),
        value[::-1],
        *rotations(value),
    }
    if not re.fullmatch(r"[A-Za-z_]+", value):
        copies.add(value.upper())
    copies.discard(value)
    return copies


def _encodable_values() -> list[str]:
    """Every byte (each run of 32 code points below 256), spaces, plus signs, multi-byte
    characters, and generated values."""
    rng = random.Random(7)
    alphabet = string.printable + "\u00e9\u20ac\U0001f511\u0661"
    values = ["".join(map(chr, range(low, low + 32))) for low in range(0, 256, 32)]
    values += ["a b+c/d=e%f", "p\u00e4ss w\u00f6rd \u20ac", "plainword", "under_score"]
    return values + ["".join(rng.choices(alphabet, k=rng.randint(6, 40))) for _ in range(200)]


def test_encoded_copies_are_those_urllib_and_base64_write() -> None:
    """An equivalence control (passes before and after): the same copies, percent-encoded ones
    included, as each library call per value writes them."""
    for value in _encodable_values():
        assert engine.transformed_copies(value) == _copies_written_by_urllib(value)


def test_percent_encoded_copies_need_no_urllib_call_per_value(monkeypatch) -> None:
    """The percent-encoded copies come from byte tables, not a ``quote`` call per value, which
    cost a Python call per byte (fails before: it called ``urllib.parse.quote``)."""
    expected = {value: _copies_written_by_urllib(value) for value in _encodable_values()}

    def refused(*_: object, **__: object) -> str:
        raise AssertionError("urllib.parse.quote called per value")

    monkeypatch.setattr(urllib.parse, "quote", refused)
    monkeypatch.setattr(urllib.parse, "quote_plus", refused)
    for value, copies in expected.items():
        assert engine.transformed_copies(value) == copies


def test_placing_order_is_credentials_first_then_longer_then_by_value() -> None:
    """The automaton's ranks (fails before: no placing_order; the order was a three-part key per
    value): ties of length and of kind are frequent in the generated tables, so the value decides."""
    rng = random.Random(11)
    for _ in range(30):
        values = {"".join(rng.choices("ab\u00e9Z9_", k=rng.randint(1, 6))) for _ in range(rng.randint(0, 80))}
        credentials = {value for value in values if rng.random() < 0.5}
        expected = sorted(values, key=lambda v: (v not in credentials, -len(v), v))
        assert placing_order(values, credentials) == expected


class _Unread(set[str]):
    def __iter__(self) -> Iterator[str]:
        raise AssertionError("the table's credentials were read")


def test_a_text_without_an_ellipsis_does_not_order_the_tables_credentials() -> None:
    """Heads cut by an ellipsis are looked for only where one stands (fails before: the table's
    credentials were sorted for every field); with a mark, the head is found as before."""
    table = _table(["Zq8vLm2Kp9Xw4Rt7Yb1N"])
    table.credentials = _Unread(table.credentials)
    assert engine.truncated_heads("id Zq8vLm2Kp9 and more", table, (), {}) == []
    table.credentials = set(table.credentials)
    heads = engine.truncated_heads("id Zq8vLm2Kp9... and more", table, (), {})
    assert [(f.start, f.end, f.detector) for f in heads] == [(3, 13, "truncated")]
