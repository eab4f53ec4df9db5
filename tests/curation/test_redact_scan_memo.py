"""The redaction engine's memo of scans within one episode: it answers exactly what the scan it
spares would have (faster, never different)."""

from __future__ import annotations

import json

from redact_factory import API_SECRET, DB_PASSWORD, GITHUB_TOKEN, SALT, secret_episode

from trajectory_platform.curation.redact import RedactionConfig, engine, measure_episode_leak
from trajectory_platform.curation.redact.engine import (
    scan,
    scan_memo,
)

TEXTS = [
    f"export GITHUB_TOKEN={GITHUB_TOKEN} && echo done",
    json.dumps({"api_key": API_SECRET, "note": f"password is {DB_PASSWORD}"}),
    "nothing to see here: ls -la /tmp",
]


def _counting(monkeypatch) -> list[tuple[str, engine.Context, tuple[object, ...]]]:
    """What ``engine._scan`` is asked to scan at the top level (depth 0), in order: each text
    with its context and its configuration's values."""
    calls: list[tuple[str, engine.Context, tuple[object, ...]]] = []
    real = engine._scan

    def counted(text, config, context, depth):
        if depth == 0:
            calls.append((text, context, engine._config_key(config)))
        return real(text, config, context, depth)

    monkeypatch.setattr(engine, "_scan", counted)
    return calls


def test_a_text_is_scanned_once_inside_the_memo_and_each_time_outside(monkeypatch) -> None:
    calls = _counting(monkeypatch)
    config = RedactionConfig()
    plain = [scan(text, config) for text in TEXTS]
    assert len(calls) == len(TEXTS)
    with scan_memo():
        first = [scan(text, config) for text in TEXTS]
        again = [scan(text, config) for text in TEXTS]
    assert len(calls) == 2 * len(TEXTS)
    assert first == again == plain
    first[0].append(first[0][0])  # a caller extends the list it got: the memo's stays as it was
    with scan_memo():
        assert scan(TEXTS[0], config) == plain[0]


def test_the_memo_keys_the_configuration_and_the_context(monkeypatch) -> None:
    calls = _counting(monkeypatch)
    quiet = RedactionConfig(entropy=False, pii=False)
    with scan_memo():
        loud_found = scan(TEXTS[1], RedactionConfig())
        quiet_found = scan(TEXTS[1], quiet)
        quiet.pii = True  # the same object changed: no longer the configuration it was scanned under
        changed = scan(TEXTS[1], quiet)
        shell = scan(TEXTS[0], RedactionConfig(), engine.Context(shell=True))
    assert len(calls) == 4
    assert loud_found == scan(TEXTS[1], RedactionConfig())
    assert quiet_found == scan(TEXTS[1], RedactionConfig(entropy=False, pii=False))
    assert changed == scan(TEXTS[1], RedactionConfig(entropy=False))
    assert shell == scan(TEXTS[0], RedactionConfig(), engine.Context(shell=True))


def test_nested_blocks_share_one_memo_and_it_ends_with_the_outermost(monkeypatch) -> None:
    calls = _counting(monkeypatch)
    config = RedactionConfig()
    with scan_memo():
        scan(TEXTS[0], config)
        with scan_memo():
            scan(TEXTS[0], config)
        scan(TEXTS[0], config)
    assert len(calls) == 1
    with scan_memo():
        scan(TEXTS[0], config)
    assert len(calls) == 2


def test_the_leak_measurement_scans_each_field_it_planted_nothing_in_once(monkeypatch) -> None:
    episode = secret_episode()
    calls = _counting(monkeypatch)
    report = measure_episode_leak(episode, SALT)
    assert report.injected and not report.leaked
    assert len(calls) == len(set(calls))  # the copies' shared fields: scanned once, not once per copy
