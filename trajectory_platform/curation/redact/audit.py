"""Invariants of a published corpus, recomputed from the stored rows (what the asset checks call).

Each function reads the corpus as Arrow tables in batches (a day's file read a row group at a
time, or ``[table]``), holds one batch of episodes at a time, and returns the offending rows (empty
= the invariant holds), so a check can show a person exactly which episodes to look at.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable, Iterable, Iterator
from typing import Any

import pyarrow as pa
import pyarrow.compute as pc

from trajectory_platform.curation.keys import derive_key
from trajectory_platform.curation.licenses import ACTIONS, TAINT_LABEL
from trajectory_platform.curation.lineage import LineageEnvelope, verify_lineage
from trajectory_platform.curation.redact.corpus import VERIFIER_SUITE_COLUMN, json_regressions, verdict_of
from trajectory_platform.curation.redact.episode import redact_episode
from trajectory_platform.curation.redact.leak import (
    LeakReport,
    choose_leak_sample,
    episode_canary_count,
    measure_episode_leak,
)
from trajectory_platform.curation.redact.model import RedactionConfig
from trajectory_platform.curation.redact.pseudonym import PSEUDONYM_RE
from trajectory_platform.curation.redact.settings import RedactSettings
from trajectory_platform.traces.record import Episode, canonical_json
from trajectory_platform.traces.schema import EPISODE_SCHEMA

Batches = Iterable[pa.Table]
"""A corpus's rows as Arrow tables, in their stored order."""


def stored_episodes(table: pa.Table) -> list[Episode]:
    """The episode columns of a corpus table as :class:`Episode` objects."""
    return [Episode.from_dict(row) for row in table.select(EPISODE_SCHEMA.names).to_pylist()]


def _episodes(batches: Batches) -> Iterator[Episode]:
    for table in batches:
        yield from stored_episodes(table)


def leak_and_residue(
    batches: Callable[[], Batches],
    master_key: bytes,
    config: RedactionConfig | None = None,
    settings: RedactSettings | None = None,
) -> tuple[LeakReport, list]:
    """Λ_leak with canaries planted into the stored episodes of the stage's canary sample, and
    residual findings in every stored episode.

    A stored episode must already be clean: redacting it again finds nothing, so every episode is
    redacted again. Canaries go into the records :func:`.leak.choose_leak_sample` draws under
    ``settings`` (the stage's own :class:`RedactSettings`: a tenth of the records and at least 200
    canaries by default), not into every record: Λ_leak's interval narrows with the canaries
    planted, not the share of records carrying them, and planting into a copy of every record cost
    about three times the redaction it audits. ``batches`` is read twice (the first pass reads only
    ids and event counts, to draw the sample), hence a callable.
    """
    settings = settings or RedactSettings()
    salt = derive_key(master_key, "redaction")
    counted = (
        (episode_id, episode_canary_count(episode_id, events))
        for table in batches()
        for episode_id, events in zip(
            table.column("episode_id").to_pylist(),
            pc.list_value_length(table.column("events")).fill_null(0).to_pylist(),
            strict=True,
        )
    )
    sample = choose_leak_sample(
        counted, salt, settings.leak_sample_fraction, settings.leak_min_canaries, settings.leak_sample_seed
    )
    leak = LeakReport()
    residue: list[dict[str, Any]] = []
    for episode in _episodes(batches()):
        _, findings = redact_episode(episode, salt, config)
        residue.extend({"episode_id": episode.episode_id, "field": f.field, "kind": f.kind} for f in findings)
        leak.records_total += 1
        if episode.episode_id in sample:
            leak.add(measure_episode_leak(episode, salt, config))
    return leak, residue


def pseudonym_conflicts(batches: Batches) -> list[dict[str, Any]]:
    """Pseudonym digests that appear under more than one kind (one value must keep one pseudonym)."""
    kinds: dict[str, set[str]] = defaultdict(set)
    episodes: dict[str, set[str]] = defaultdict(set)
    for episode in _episodes(batches):
        for match in PSEUDONYM_RE.finditer(canonical_json(episode.to_dict())):
            kind, digest = (
                (match.group(1), match.group(2)) if match.group(1) else (match.group(3), match.group(4))
            )
            kinds[digest].add(kind)
            episodes[digest].add(episode.episode_id)
    return [
        {"digest": digest, "kinds": sorted(found), "episodes": sorted(episodes[digest])[:5]}
        for digest, found in sorted(kinds.items())
        if len(found) > 1
    ]


def json_breakage(before: Batches, after: Batches) -> list[dict[str, Any]]:
    """Fields that parsed as JSON upstream and no longer parse in the corpus, matched by episode id.

    Both in episode id order (a verified day is stored sorted by id and redaction keeps its order),
    so the two are walked side by side, one batch of each at a time; an input out of that order is
    refused rather than matched wrongly.
    """
    upstream = _in_id_order(_episodes(before), "the upstream table")
    original = next(upstream, None)
    broken = []
    for episode in _in_id_order(_episodes(after), "the corpus"):
        while original is not None and original.episode_id < episode.episode_id:
            original = next(upstream, None)
        if original is not None and original.episode_id == episode.episode_id:
            broken += [
                {"episode_id": episode.episode_id, "field": p} for p in json_regressions(original, episode)
            ]
    return broken


def _in_id_order(episodes: Iterator[Episode], what: str) -> Iterator[Episode]:
    last = ""
    for episode in episodes:
        if episode.episode_id < last:
            raise ValueError(f"{what} is not in episode id order: {episode.episode_id!r} after {last!r}")
        last = episode.episode_id
        yield episode


def lineage_failures(batches: Batches, master_key: bytes) -> list[dict[str, Any]]:
    """Rows whose stored envelope no longer matches the stored record and its verdict columns."""
    pipeline_key = derive_key(master_key, "lineage")
    failures = []
    for table in batches:
        for row, episode in zip(table.to_pylist(), stored_episodes(table), strict=True):
            stored = LineageEnvelope.from_json(row["lineage_json"])
            verdict = verify_lineage(
                episode, stored, pipeline_key, row.get(VERIFIER_SUITE_COLUMN), verdict_of(row, table.schema)
            )
            if (
                not verdict.ok
                or stored.lineage_id != row["lineage_id"]
                or stored.merkle_root != row["merkle_root"]
            ):
                failures.append(
                    {"episode_id": episode.episode_id, "mismatched": list(verdict.mismatched) or ["columns"]}
                )
    return failures


def license_violations(table: pa.Table) -> list[dict[str, Any]]:
    """Rows that break the fencing policy: a restricted tier, or an action other than the tier's."""
    bad = []
    for row in table.select(
        ["episode_id", "license_tier", "license_action", "taint", "taint_label"]
    ).to_pylist():
        tier, action = row["license_tier"], row["license_action"]
        expected = "quarantine" if row["taint"] else ACTIONS.get(tier)
        label_ok = row["taint"] == (row["taint_label"] == TAINT_LABEL)
        if tier == "restricted" or tier not in ACTIONS or action != expected or not label_ok:
            bad.append({**row, "expected_action": expected})
    return bad
