"""The corpus invariants the redaction checks recompute, read in batches (``curation/redact/audit.py``)."""

from __future__ import annotations

import pytest
from redact_factory import secret_episode

from trajectory_platform.curation.redact import redact_corpus
from trajectory_platform.curation.redact.audit import json_breakage, leak_and_residue, lineage_failures
from trajectory_platform.curation.redact.model import RedactionConfig
from trajectory_platform.curation.redact.settings import RedactSettings
from trajectory_platform.traces.schema import episodes_to_table

MASTER = b"master"
WEAK = RedactionConfig(entropy=False, pii=False)


def _day():
    verified = episodes_to_table([secret_episode(f"ep-{i}") for i in range(5)])
    return verified, redact_corpus(verified, MASTER).table


def test_batches_give_the_figures_of_the_whole_day() -> None:
    verified, corpus = _day()
    halves = [corpus.slice(0, 2), corpus.slice(2)]
    whole_leak, whole_residue = leak_and_residue(lambda: [corpus], MASTER)
    leak, residue = leak_and_residue(lambda: halves, MASTER)
    assert leak.as_dict() == whole_leak.as_dict() and leak.injected > 0 and leak.leaked == 0
    assert residue == whole_residue == []
    assert lineage_failures(halves, MASTER) == []
    assert json_breakage([verified.slice(0, 3), verified.slice(3)], halves) == []


def test_canaries_go_into_the_stages_sample_and_every_episode_is_redacted_again() -> None:
    """The check plants canaries in the records the stage's sample rule draws (not every record)
    and still re-redacts every record, so a residue anywhere and a weak redactor are both caught."""
    _, corpus = _day()
    one = RedactSettings(leak_sample_fraction=0.0, leak_min_canaries=1)
    leak, residue = leak_and_residue(lambda: [corpus], MASTER, settings=one)
    assert (leak.records_planted, leak.records_total) == (1, 5) and leak.injected > 0 and residue == []
    everyone, _ = leak_and_residue(lambda: [corpus], MASTER)  # five small records: under 200 canaries
    assert (everyone.records_planted, everyone.records_total) == (5, 5)
    weak, _ = leak_and_residue(lambda: [corpus], MASTER, WEAK, one)
    assert weak.leaked > 0
    rows = corpus.to_pylist()
    rows[4]["events"][0]["content"] += " AKIAQWERTYUIOP234567"  # a key left in an unsampled record
    leaky = corpus.from_pylist(rows, schema=corpus.schema)
    _, found = leak_and_residue(lambda: [leaky], MASTER, settings=one)
    assert [(f["episode_id"], f["kind"]) for f in found] == [("ep-4", "AWS_KEY")]


def test_json_breakage_matches_by_id_across_batches_and_refuses_another_order() -> None:
    verified, corpus = _day()
    rows = corpus.to_pylist()
    rows[3]["events"][2]["tool_calls"][0]["arguments"] = '{"command": '  # no longer parses
    broken = corpus.from_pylist(rows, schema=corpus.schema)
    # the corpus's rows come in other batches than the upstream's, and one upstream row is missing
    found = json_breakage([verified.slice(0, 1), verified.slice(2)], [broken.slice(0, 4), broken.slice(4)])
    assert found == [{"episode_id": "ep-3", "field": "events[2].tool_calls[0].arguments"}]
    with pytest.raises(ValueError, match="not in episode id order"):
        json_breakage([verified], [broken.take([1, 0, 2, 3, 4])])
