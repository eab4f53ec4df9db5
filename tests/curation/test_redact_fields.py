"""Every string field of the trace record is classified once and redacted as its class says.

The walker once visited a hand-kept list of fields: the episode id, the licence, the lineage (its
sampling parameters a whole client config with an ``Authorization`` header), a tool's version, a
timestamp, a finish reason passed into the corpus, the exported dataset and its card unchanged, and
Λ_leak planted canaries only where the walker looked, so the gate could not see it (red team).
"""

from __future__ import annotations

import json
import re

import pyarrow as pa
import pytest
from redact_factory import AWS_KEY, GITHUB_TOKEN, SALT, secret_episode

from trajectory_platform.curation.redact import episode as episode_module
from trajectory_platform.curation.redact import measure_episode_leak, redact_corpus, redact_episode
from trajectory_platform.curation.redact.corpus import REDACTION_DROP_REASONS, admission_tier
from trajectory_platform.curation.redact.fields import FIELDS, KEY, OutOfClass
from trajectory_platform.curation.redact.leak import FIELD_FORM
from trajectory_platform.curation.redact.model import RedactionConfig
from trajectory_platform.curation.verify.tables import VERIFIED_SCHEMA
from trajectory_platform.traces.record import canonical_json
from trajectory_platform.traces.schema import EPISODE_SCHEMA, episode_row

JWT = "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJkZXBsb3kifQ.c2lnbmF0dXJlLW9mLXRoZS10b2tlbi14eXo"


def _string_leaves(kind: pa.DataType, path: str) -> list[str]:
    if pa.types.is_string(kind):
        return [path]
    if pa.types.is_list(kind):
        return _string_leaves(kind.value_type, f"{path}[]")
    if pa.types.is_struct(kind):
        return [leaf for field in kind for leaf in _string_leaves(field.type, f"{path}.{field.name}")]
    return []


def test_every_string_field_of_the_schema_has_exactly_one_class():
    """A field added to the record without a class fails here (and the walker raises on it)."""
    leaves = [
        leaf.lstrip(".") for field in EPISODE_SCHEMA for leaf in _string_leaves(field.type, f".{field.name}")
    ]
    assert len(leaves) == len(set(leaves))
    assert sorted(leaves) == sorted(FIELDS)


def test_the_walker_visits_every_classified_field_and_refuses_an_unclassified_one(monkeypatch):
    episode = secret_episode()
    walked = {path for path, *_ in episode_module.string_slots(episode)}
    generic = {re.sub(r"\[\d+\]", "[]", path) for path in walked}
    assert generic == set(FIELDS)
    monkeypatch.delitem(FIELDS, "tools[].version")
    episode.tools[0].version = "1.0"  # a string there, not in the table: refused, not passed
    with pytest.raises(episode_module.UnclassifiedField):
        list(episode_module.string_slots(episode))


def _texts(episode) -> str:
    return canonical_json(episode.to_dict())


def test_ids_names_versions_and_lineage_lose_a_secret_of_a_known_format():
    """The id class: known formats only, pseudonymized through the episode's one symbol table."""
    episode = secret_episode()
    episode.task.repo_family = f"https://x-access-token:{GITHUB_TOKEN}@github.com/acme/app"
    episode.task.tool_family = f"tf-{AWS_KEY}"
    episode.task.domain = f"dom-{GITHUB_TOKEN}"
    episode.lineage.model = "https://proxy:Zq8vL2mX9wR4@llm.internal/v1/gpt-4o"
    episode.lineage.tokenizer_digest = AWS_KEY
    episode.tools[0].version = f"v-{JWT}"
    episode.events[2].tool_calls[0].id = f"call_{AWS_KEY}"
    redacted, findings = redact_episode(episode, SALT)
    text = _texts(redacted)
    for secret in (GITHUB_TOKEN, AWS_KEY, JWT, "Zq8vL2mX9wR4"):
        assert secret not in text
    fields = {f.field for f in findings}
    assert {"task.repo_family", "task.tool_family", "lineage.model", "tools[0].version"} <= fields
    assert redacted.task.tool_family.startswith("tf-<REDACTED_AWS_KEY:")  # the readable part stays
    assert redacted.lineage.tokenizer_digest == redacted.task.tool_family.removeprefix(
        "tf-"
    )  # one value, one name


def test_locators_lose_a_secret_and_keep_the_rest_of_the_path():
    episode = secret_episode()
    episode.source_file = f"/logs/run-{AWS_KEY}.jsonl"
    redacted, _ = redact_episode(episode, SALT)
    assert AWS_KEY not in redacted.source_file
    assert redacted.source_file.startswith("/logs/run-<REDACTED_AWS_KEY:") and redacted.source_file.endswith(
        ".jsonl"
    )


def test_sampling_params_are_free_text_json_keys_and_values():
    episode = secret_episode()
    settings = {"temperature": 0.2, "headers": {"Authorization": f"Bearer {JWT}"}, GITHUB_TOKEN: 1}
    episode.lineage.sampling_params_json = json.dumps(settings)
    redacted, _ = redact_episode(episode, SALT)
    params = json.loads(redacted.lineage.sampling_params_json)
    assert params["temperature"] == 0.2 and JWT not in redacted.lineage.sampling_params_json
    assert GITHUB_TOKEN not in redacted.lineage.sampling_params_json


@pytest.mark.parametrize(
    ("path", "value"),
    [
        ("episode_id", f"ep-{GITHUB_TOKEN}"),
        ("source_format", f"native {GITHUB_TOKEN}"),
        ("events[2].finish_reason", f"stop-{AWS_KEY}"),
        ("events[0].timestamp", f"2026-{AWS_KEY}"),
        ("events[3].status", f"ok {AWS_KEY}"),
        ("outcome.terminal_status", f"done {AWS_KEY}"),
        ("events[1].kind", f"user-{AWS_KEY}"),
    ],
    ids=["key", "source_format", "finish_reason", "timestamp", "status", "terminal_status", "kind"],
)
def test_a_closed_class_refuses_the_episode_and_never_names_the_value(path: str, value: str):
    """The key (the join key of every later stage), vocabularies and timestamps are not rewritten:
    a value outside the class refuses the episode, named by the field and a keyed digest."""
    episode = secret_episode()
    owner = episode
    *parents, attr = path.replace("]", "").replace("[", ".").split(".")
    for part in parents:
        owner = owner[int(part)] if part.isdigit() else getattr(owner, part)
    setattr(owner, attr, value)
    with pytest.raises(OutOfClass) as refused:
        redact_episode(episode, SALT)
    assert (
        refused.value.field == path
        and AWS_KEY not in str(refused.value)
        and GITHUB_TOKEN not in str(refused.value)
    )


@pytest.mark.parametrize(
    ("field", "value"),
    [("finish_reason", "MAX_TOKENS"), ("finish_reason", "tool-calls"), ("timestamp", "2025-01-20 20:29:32")],
)
def test_values_inside_their_class_pass_unchanged(field: str, value: str):
    episode = secret_episode()
    setattr(episode.events[2], field, value)
    episode.events[0].timestamp = "1733478000.25"
    redacted, _ = redact_episode(episode, SALT)
    assert getattr(redacted.events[2], field) == value and redacted.events[0].timestamp == "1733478000.25"


def test_a_licence_carrying_a_secret_is_never_permissive():
    config = RedactionConfig()
    assert admission_tier(f"MIT OR {GITHUB_TOKEN}", config) == "restricted"
    assert admission_tier(f"MIT OR LicenseRef-{AWS_KEY}", config) == "restricted"  # a valid expression
    assert admission_tier("MIT/Apache-2.0", config) == "permissive"
    assert admission_tier("(MIT OR Apache-2.0) AND BSD-3-Clause", config) == "permissive"


def _verified(*episodes) -> pa.Table:
    rows = [{**episode_row(e), "sink": "admitted"} for e in episodes]
    return pa.Table.from_pylist(rows, schema=VERIFIED_SCHEMA)


def test_refused_and_blocked_episodes_are_audit_rows_that_hold_no_secret():
    kept = secret_episode("ep-0")
    refused = secret_episode(f"ep-{AWS_KEY}")
    refused.source_file = f"/logs/{GITHUB_TOKEN}.jsonl"
    blocked = secret_episode("ep-2")
    blocked.task.repo_family, blocked.task.license = f"fam-{GITHUB_TOKEN}", f"MIT OR {GITHUB_TOKEN}"
    result = redact_corpus(_verified(kept, refused, blocked), b"k" * 32, measure_leaks=False)
    assert result.table.column("episode_id").to_pylist() == ["ep-0"]
    rows = {row["reason"]: row for row in result.audit.to_pylist()}
    assert set(rows) == {"out_of_class", "license_blocked"} <= set(REDACTION_DROP_REASONS)
    assert rows["out_of_class"]["detail"].startswith(f"episode_id is not {KEY.shape}")
    audit = json.dumps(result.audit.to_pylist(), default=str)
    assert AWS_KEY not in audit and GITHUB_TOKEN not in audit
    assert rows["out_of_class"]["episode_id"].startswith("ep-<REDACTED_AWS_KEY:")


def test_the_leak_gate_plants_a_canary_in_every_field_class_and_sees_an_unwalked_one(monkeypatch):
    """Λ_leak plants one canary per field class; a walker that skips a class is caught."""
    episode = secret_episode()
    report = measure_episode_leak(episode, SALT)
    assert report.leaked == 0
    walk = episode_module.string_slots
    monkeypatch.setattr(
        episode_module,
        "string_slots",
        lambda e: (slot for slot in walk(e) if slot[3].name not in ("id", "locator", "license")),
    )
    seeds = [f"ep-{i}" for i in range(12)]
    leaked = {}
    for seed in seeds:
        episode.episode_id = seed
        for form, count in measure_episode_leak(episode, SALT).leaked_by_form.items():
            leaked[form] = leaked.get(form, 0) + count
    assert {FIELD_FORM + name for name in ("id", "locator", "license")} <= set(leaked)
