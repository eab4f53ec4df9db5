"""Whole-episode redaction, Λ_leak with canaries, and the corpus-level function."""

from __future__ import annotations

import json
import re
from dataclasses import replace

import pytest
from redact_factory import (
    API_SECRET,
    AWS_KEY,
    COMMIT_SHA,
    DB_PASSWORD,
    EMAIL,
    GITHUB_TOKEN,
    SALT,
    SHA256,
    secret_episode,
)

from trajectory_platform.curation.redact import (
    LeakDetected,
    RedactionConfig,
    measure_leak,
    redact_corpus,
    redact_episode,
)
from trajectory_platform.curation.redact.corpus import json_regressions
from trajectory_platform.curation.redact.leak import (
    FIELD_CLASS_CANARIES,
    FIELD_FORM,
    FORMS,
    FORMS_PER_EPISODE,
    SPLIT_FORM,
    TEXT_FORMS,
    episode_forms,
)
from trajectory_platform.traces.record import Event, ToolCall, canonical_json
from trajectory_platform.traces.schema import EPISODE_SCHEMA, episodes_to_table

SECRETS = (GITHUB_TOKEN, AWS_KEY, DB_PASSWORD, API_SECRET, EMAIL, "10.240.0.12", "dkowalski", "build-7.corp")
WEAK = RedactionConfig(entropy=False, pii=False)


def test_every_field_is_redacted_and_structure_survives():
    episode = secret_episode()
    before = canonical_json(episode.to_dict())
    redacted, findings = redact_episode(episode, SALT)
    text = canonical_json(redacted.to_dict())
    assert canonical_json(episode.to_dict()) == before  # input untouched
    for secret in SECRETS:
        assert secret not in text, secret
    assert COMMIT_SHA in text and SHA256 in text
    assert json_regressions(episode, redacted) == []
    call = redacted.events[2].tool_calls[0]
    assert call.id == "call_8fJk2LmN9pQrStUvWxYz0123" == redacted.events[3].tool_call_id
    assert json.loads(call.arguments)["command"].startswith(
        "curl -H 'Authorization: Bearer <REDACTED_GITHUB_TOKEN:"
    )
    assert json.loads(redacted.delivered_inputs[0].messages_json)[1]["content"] == redacted.events[1].content
    fields = {f.field.split("[")[0].split(".")[0] for f in findings}
    assert {"task", "tools", "events", "delivered_inputs", "outcome"} <= fields


def test_one_value_one_pseudonym_across_the_episode():
    redacted, _ = redact_episode(secret_episode(), SALT)
    text = canonical_json(redacted.to_dict())
    aws = set(re.findall(r"REDACTED_AWS_KEY[:_]([0-9a-f]{12})", text))
    github = set(re.findall(r"REDACTED_GITHUB_TOKEN[:_]([0-9a-f]{12})", text))
    assert len(aws) == 1 and len(github) == 1  # prompt, reasoning, shell word, schema, push URL
    assert text.count(next(iter(aws))) >= 3


def test_zero_canary_leaks_and_a_weakened_redactor_is_caught():
    report = measure_leak([secret_episode("a"), secret_episode("b")], SALT)
    pairs = len(secret_episode("a").events) - 1  # a split canary needs a pair of adjacent messages
    expected = sum(
        7 * (FORMS_PER_EPISODE - 1) + min(7, pairs)
        if SPLIT_FORM in episode_forms(i)
        else 7 * FORMS_PER_EPISODE
        for i in ("a", "b")
    ) + 2 * len(FIELD_CLASS_CANARIES)  # and one in a field of each class
    assert report.injected == expected and report.leaked == 0 and report.rate == 0.0
    weak = measure_leak([secret_episode("a")], SALT, WEAK)
    fields = {FIELD_FORM + name for name in FIELD_CLASS_CANARIES}
    assert weak.leaked > 0 and set(weak.leaked_by_form) <= {*episode_forms("a"), *fields}


def test_every_form_recognizes_its_own_survivors(monkeypatch):
    """With redaction switched off every canary of every form counts as leaked: a form whose
    survivors Λ_leak could not see would report zero whatever the redactor let through."""
    from trajectory_platform.curation.redact import leak

    monkeypatch.setattr(leak, "redact_text", lambda text, salt, config=None: (text, []))
    for record in (False, True):
        report = leak.measure_text_leak('{"a": 1}', "seed", SALT, json_record=record)
        assert report.leaked == report.injected == 7 * len(TEXT_FORMS)
        assert report.leaked_by_form == dict.fromkeys(TEXT_FORMS, 7)


def test_the_encodings_rotate_so_a_small_corpus_exercises_every_one():
    assert all(len(set(episode_forms(f"ep-{i}"))) == FORMS_PER_EPISODE for i in range(30))
    assert set().union(*(episode_forms(f"ep-{i}") for i in range(30))) == set(FORMS)


def test_corpus_redacts_passes_columns_through_and_refuses_a_leak():
    table = episodes_to_table([secret_episode("a"), secret_episode("b")])
    import pyarrow as pa

    table = table.append_column("role", pa.array(["pristine", "recovery"])).append_column(
        "target_turns", pa.array([[2, 4], [4]], pa.list_(pa.int32()))
    )
    result = redact_corpus(table, b"master")
    out = result.table
    assert out.num_rows == 2 and result.stats["rows_in"] == result.stats["rows_out"] + result.stats["blocked"]
    assert out.schema.names[: len(EPISODE_SCHEMA)] == EPISODE_SCHEMA.names
    assert out.column("role").to_pylist() == ["pristine", "recovery"]
    assert out.column("target_turns").to_pylist() == [[2, 4], [4]]
    assert len(set(out.column("lineage_id").to_pylist())) == 2
    assert result.leak.injected > 0 and result.leak.rate == 0.0 and result.stats["json_regressions"] == 0
    assert GITHUB_TOKEN not in str(out.to_pylist())
    assert redact_corpus(table, b"master").table.equals(out)  # deterministic
    with pytest.raises(LeakDetected):
        redact_corpus(table, b"master", WEAK)


def test_restricted_blocked_with_audit_and_strong_copyleft_quarantined():
    episodes = [secret_episode("mit")]
    gpl = secret_episode("gpl")
    gpl.task = replace(gpl.task, repo_family="gnu/tool", license="GPL-3.0-only")
    nc = secret_episode("nc")
    nc.task = replace(nc.task, repo_family="lab/data", license="CC-BY-NC-4.0")
    result = redact_corpus(episodes_to_table([*episodes, gpl, nc]), b"master")
    rows = {r["episode_id"]: r for r in result.table.to_pylist()}
    assert set(rows) == {"mit", "gpl"}
    assert rows["mit"]["license_tier"] == "permissive" and rows["mit"]["license_action"] == "admit"
    assert rows["gpl"]["license_tier"] == "strong_copyleft" and rows["gpl"]["license_action"] == "quarantine"
    audit = result.audit.to_pylist()
    assert [(a["episode_id"], a["license_tier"], a["action"]) for a in audit] == [
        ("nc", "restricted", "block")
    ]
    assert result.stats["blocked"] == 1 and result.stats["rows_in"] == 3


SEED_BLOCKS = 4
"""The many-seeds test in blocks of ten seeds per host: one block is one test, so ``make test``'s two
workers share the 80 reports (a single test of all of them kept one worker a minute or more)."""


@pytest.mark.parametrize("block", range(SEED_BLOCKS))
def test_no_canary_survives_across_many_seeds(block: int):
    """Fresh canaries per seed (random keys without digits, digit-only suffixes, ...): none may survive.
    (40 seeds per host over the blocks: every canary kind and text form is drawn anew 40 times each
    way, 80 in all; at 200, 120 and then 80 it was the suite's second-slowest test, two minutes of
    one worker, while the redaction rules it runs grew.)"""
    from trajectory_platform.curation.redact.leak import measure_text_leak

    seeds = range(block * 40 // SEED_BLOCKS, (block + 1) * 40 // SEED_BLOCKS)
    record = json.dumps({"messages": [{"role": "user", "content": f"key {AWS_KEY}"}]})
    reports = [measure_text_leak(record, f"seed-{i}", SALT, json_record=True) for i in seeds]
    reports += [measure_text_leak("a log line\n", f"text-{i}", SALT) for i in seeds]
    assert sum(r.injected for r in reports) == 2 * len(seeds) * 7 * len(TEXT_FORMS)  # 10,080 in all blocks
    assert sum(r.leaked for r in reports) == 0


def _messages(*contents: str):
    episode = secret_episode()
    return replace(episode, events=[replace(episode.events[1], content=content) for content in contents])


def test_a_plain_word_password_is_replaced_where_labelled_and_its_code_words_stay():
    """``POSTGRES_PASSWORD: postgres`` once turned every ``postgres`` of the episode (the image,
    the CLI, the module) into a pseudonym; a random password is still replaced wherever it recurs."""
    compose = (
        "services:\n  db:\n    image: postgres:16\n    environment:\n      POSTGRES_PASSWORD: postgres\n"
    )
    episode = _messages(
        compose,
        "pg_isready -U postgres && python -c 'from redis import Redis'",
        '{"password": "admin", "path": "admin/"}',
        "$ export DB_PASSWORD=Xq7rT2pLw9 ; later: echo Xq7rT2pLw9",
        "# REDIS_PASSWORD=redis",
    )
    redacted, _ = redact_episode(episode, SALT)
    texts = [event.content for event in redacted.events]
    assert "POSTGRES_PASSWORD: <REDACTED_PASSWORD:" in texts[0] and "image: postgres:16" in texts[0]
    assert texts[1] == episode.events[1].content, "code words spelled like a password stay"
    assert json.loads(texts[2]) == {"password": json.loads(texts[2])["password"], "path": "admin/"}
    assert json.loads(texts[2])["password"].startswith("<REDACTED_PASSWORD:")
    assert "Xq7rT2pLw9" not in texts[3], "a random password's echo is replaced as before"
    assert texts[4].startswith("# REDIS_PASSWORD=<REDACTED_PASSWORD:")


READ_BACK = "Walrus-Tr1cky-2025"
"""Memorable, not random: only the command that printed it says it is a secret."""


@pytest.mark.parametrize(
    "command",
    [
        "kubectl get secret db -o jsonpath='{.data.password}' | base64 -d",
        "kubectl -n prod get secret api -o go-template='{{.data.token | base64decode}}'",
        "vault kv get -field=password secret/db",
        "gcloud secrets versions access latest --secret=db-pass",
        "op read op://prod/db/password",
    ],
)
def test_what_a_secret_reader_printed_in_its_result_is_replaced_everywhere(command: str):
    episode = secret_episode()
    reader = ToolCall(id="call_read", name="execute_bash", arguments=json.dumps({"command": command}))
    episode.events += [
        Event(kind="assistant", content="", tool_calls=[reader]),
        Event(kind="tool", content=f"{READ_BACK}\n", tool_call_id="call_read", status="ok"),
        Event(kind="system", content=""),  # no cross-message split: the reader alone must find it
        Event(kind="assistant", content=f"Got {READ_BACK}, connecting."),
    ]
    redacted, findings = redact_episode(episode, SALT)
    assert READ_BACK not in json.dumps(redacted.to_dict())
    assert any(f.value == READ_BACK for f in findings)


def test_a_reader_that_printed_a_message_or_a_word_is_left_as_it_is():
    episode = secret_episode()
    reader = ToolCall(
        id="call_read",
        name="execute_bash",
        arguments=json.dumps({"command": "vault kv get -field=user secret/db"}),
    )
    listing = ToolCall(id="call_ls", name="execute_bash", arguments=json.dumps({"command": "ls build"}))
    episode.events += [
        Event(kind="assistant", content="", tool_calls=[reader, listing]),
        Event(
            kind="tool", content="No value found at secret/data/db\n", tool_call_id="call_read", status="ok"
        ),
        Event(kind="system", content=""),  # keeps the two results from reading as one split value
        Event(kind="tool", content=f"{READ_BACK}\n", tool_call_id="call_ls", status="ok"),
    ]
    redacted, findings = redact_episode(episode, SALT)
    assert not any(f.value == READ_BACK for f in findings)
    assert "No value found at secret/data/db" in redacted.events[-3].content


def test_a_credential_file_a_tool_printed_loses_its_password_line():
    episode = secret_episode()
    reader = ToolCall(id="call_cat", name="execute_bash", arguments=json.dumps({"command": "cat creds.txt"}))
    episode.events += [
        Event(kind="user", content="the VPN config says auth-user-pass creds.txt"),
        Event(kind="assistant", content="", tool_calls=[reader]),
        Event(kind="tool", content="bob\nWalrusTide77!\n", tool_call_id="call_cat", status="ok"),
    ]
    redacted, _ = redact_episode(episode, SALT)
    assert "WalrusTide77!" not in json.dumps(redacted.to_dict())
    assert redacted.events[-1].content.startswith("bob\n<REDACTED_PASSWORD:")
