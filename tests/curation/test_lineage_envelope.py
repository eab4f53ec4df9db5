"""Lineage envelope: deterministic, content-addressed, and every bound input is detected when changed."""

from __future__ import annotations

import copy
import hashlib

import pytest
from redact_factory import secret_episode

from trajectory_platform.curation.lineage import (
    LineageEnvelope,
    lineage_envelope,
    merkle_root,
    trajectory_steps,
    verifier_suite_digest,
    verify_lineage,
)

KEY = b"k-pipe"
VERDICT = {"role": "pristine", "sink": "admitted", "target_turns": [2, 4]}


def _flip_last_byte(value: str) -> str:
    return value[:-1] + ("0" if value[-1] != "0" else "1")


def test_merkle_root_vectors():
    leaf = lambda data: hashlib.sha256(b"\x00" + data).digest()  # noqa: E731
    assert merkle_root([]) == hashlib.sha256(b"").hexdigest()
    assert merkle_root([b"a"]) == leaf(b"a").hex()
    ab = hashlib.sha256(b"\x01" + leaf(b"a") + leaf(b"b")).digest()
    assert merkle_root([b"a", b"b"]) == ab.hex()
    assert merkle_root([b"a", b"b", b"c"]) == hashlib.sha256(b"\x01" + ab + leaf(b"c")).hexdigest()
    assert merkle_root([b"b", b"a"]) != merkle_root([b"a", b"b"])  # order is bound


def test_deterministic_and_keyed():
    episode = secret_episode()
    first = lineage_envelope(episode, KEY, "sha256:" + "ab" * 32, VERDICT)
    again = lineage_envelope(copy.deepcopy(episode), KEY, "sha256:" + "ab" * 32, dict(VERDICT))
    assert first == again and len(first.lineage_id) == 64
    assert (
        lineage_envelope(episode, b"other-key", "sha256:" + "ab" * 32, VERDICT).lineage_id != first.lineage_id
    )
    assert LineageEnvelope.from_json(first.to_json()) == first
    assert verify_lineage(episode, first, KEY, "sha256:" + "ab" * 32, VERDICT).ok
    assert verify_lineage(episode, first.lineage_id, KEY, "sha256:" + "ab" * 32, VERDICT).ok


LINEAGE_FIELDS = {
    "model_digest": "model",
    "tokenizer_digest": "prompt",
    "tool_manifest_digest": "tools",
    "environment_digest": "env",
    "sampling_params_json": "sample",
}


@pytest.mark.parametrize(("field", "component"), sorted(LINEAGE_FIELDS.items()))
def test_one_byte_change_in_a_bound_digest_is_detected(field, component):
    episode = secret_episode()
    stored = lineage_envelope(episode, KEY, None, VERDICT)
    changed = copy.deepcopy(episode)
    value = getattr(changed.lineage, field)
    changed_value = value.replace("0.2", "0.3") if field == "sampling_params_json" else _flip_last_byte(value)
    assert sum(a != b for a, b in zip(value, changed_value, strict=True)) == 1
    setattr(changed.lineage, field, changed_value)
    verdict = verify_lineage(changed, stored, KEY, None, VERDICT)
    assert not verdict.ok and verdict.mismatched == (component,)
    assert verdict.expected_id != stored.lineage_id


@pytest.mark.parametrize("field", ["adapter_digest", "prompt_template_digest", "sampler_policy_digest"])
def test_setting_a_missing_digest_is_detected(field):
    episode = secret_episode()
    stored = lineage_envelope(episode, KEY)
    changed = copy.deepcopy(episode)
    setattr(changed.lineage, field, "sha256:" + "00" * 32)
    assert not verify_lineage(changed, stored, KEY).ok


def test_verifier_suite_verdict_tool_schema_and_stored_record_are_bound():
    episode = secret_episode()
    stored = lineage_envelope(episode, KEY, "sha256:" + "ab" * 32, VERDICT)
    assert verify_lineage(episode, stored, KEY, "sha256:" + "ab" * 31 + "ac", VERDICT).mismatched == (
        "verify",
    )
    relabelled = {**VERDICT, "role": "recovery"}
    assert verify_lineage(episode, stored, KEY, "sha256:" + "ab" * 32, relabelled).mismatched == ("verify",)
    schema = copy.deepcopy(episode)
    schema.tools[0].parameters_json = schema.tools[0].parameters_json.replace("string", "strinG")
    assert verify_lineage(schema, stored, KEY, "sha256:" + "ab" * 32, VERDICT).mismatched == ("tools",)
    # every stored step: one byte of any event, the diff, the identity
    for mutate in (
        lambda e: setattr(e.events[3], "content", e.events[3].content[:-1] + " "),
        lambda e: setattr(e.outcome, "workspace_diff", e.outcome.workspace_diff + "\n"),
        lambda e: setattr(e, "source_line", 2),
        lambda e: e.events.reverse(),
    ):
        edited = copy.deepcopy(episode)
        mutate(edited)
        assert verify_lineage(edited, stored, KEY, "sha256:" + "ab" * 32, VERDICT).mismatched == (
            "trajectory",
        )
    forged = LineageEnvelope(
        stored.episode_id, stored.components, stored.merkle_root, _flip_last_byte(stored.lineage_id)
    )
    assert verify_lineage(episode, forged, KEY, "sha256:" + "ab" * 32, VERDICT).mismatched == ("lineage_id",)


def test_steps_cover_every_event():
    episode = secret_episode()
    assert len(trajectory_steps(episode)) == 1 + len(episode.events) + len(episode.delivered_inputs) + 1


def test_a_sealed_test_change_changes_the_lineage_id_the_corpus_seals():
    """The verifier suite is the judging fixture's sealed oracle: editing one sealed test gives a new
    suite digest, and the redacted corpus seals it into ``H_verify`` (a new lineage id)."""
    import pyarrow as pa
    from _verify_factory import make_fixture

    from trajectory_platform.curation.redact import redact_corpus
    from trajectory_platform.curation.redact.corpus import VERIFIER_SUITE_COLUMN
    from trajectory_platform.traces.schema import EPISODE_SCHEMA, episode_row

    fixture = make_fixture()
    edited = make_fixture()
    edited.sealed_tests["tests/test_ops.py"] += "\n\ndef test_extra():\n    assert True\n"
    renamed_prompt = make_fixture()
    renamed_prompt.prompt = "another statement of the same task"
    digest, edited_digest = verifier_suite_digest(fixture), verifier_suite_digest(edited)
    assert digest.startswith("sha256:") and edited_digest != digest
    assert verifier_suite_digest(renamed_prompt) == digest  # the prompt is not the suite

    schema = pa.schema([*EPISODE_SCHEMA, pa.field(VERIFIER_SUITE_COLUMN, pa.string())])

    def sealed(suite: str | None) -> dict:
        row = {**episode_row(secret_episode()), VERIFIER_SUITE_COLUMN: suite}
        table = pa.Table.from_pylist([row], schema=schema)
        return redact_corpus(table, KEY, measure_leaks=False).table.to_pylist()[0]

    first, again, after_edit = sealed(digest), sealed(digest), sealed(edited_digest)
    assert first["lineage_id"] == again["lineage_id"]
    assert after_edit["lineage_id"] != first["lineage_id"]
    stored = LineageEnvelope.from_json(first["lineage_json"])
    changed = LineageEnvelope.from_json(after_edit["lineage_json"])
    assert [c for c in stored.components if stored.components[c] != changed.components[c]] == ["verify"]
