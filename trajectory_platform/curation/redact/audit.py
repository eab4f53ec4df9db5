"""Invariants of a published corpus, recomputed from the stored table (what the asset checks call).

Each function returns the offending rows (empty = the invariant holds), so a check can show a
person exactly which episodes to look at.
"""

from __future__ import annotations

from collections import defaultdict
from typing import Any

import pyarrow as pa

from trajectory_platform.curation.licenses import ACTIONS, TAINT_LABEL
from trajectory_platform.curation.lineage import LineageEnvelope, verify_lineage
from trajectory_platform.curation.redact.corpus import VERIFIER_SUITE_COLUMN, json_regressions, verdict_of
from trajectory_platform.curation.redact.episode import redact_episode
from trajectory_platform.curation.redact.leak import LeakReport, measure_leak
from trajectory_platform.curation.redact.model import RedactionConfig
from trajectory_platform.curation.redact.pseudonym import PSEUDONYM_RE, derive_key
from trajectory_platform.traces.record import Episode, canonical_json
from trajectory_platform.traces.schema import EPISODE_SCHEMA


def stored_episodes(table: pa.Table) -> list[Episode]:
    """The episode columns of a corpus table as :class:`Episode` objects."""
    return [Episode.from_dict(row) for row in table.select(EPISODE_SCHEMA.names).to_pylist()]


def leak_and_residue(
    table: pa.Table, master_key: bytes, config: RedactionConfig | None = None
) -> tuple[LeakReport, list]:
    """Λ_leak with canaries planted into the stored episodes, and residual findings in them.

    A stored episode must already be clean: redacting it again finds nothing.
    """
    salt = derive_key(master_key, "redaction")
    episodes = stored_episodes(table)
    residue = []
    for episode in episodes:
        _, findings = redact_episode(episode, salt, config)
        residue += [{"episode_id": episode.episode_id, "field": f.field, "kind": f.kind} for f in findings]
    return measure_leak(episodes, salt, config), residue


def pseudonym_conflicts(table: pa.Table) -> list[dict[str, Any]]:
    """Pseudonym digests that appear under more than one kind (one value must keep one pseudonym)."""
    kinds: dict[str, set[str]] = defaultdict(set)
    episodes: dict[str, set[str]] = defaultdict(set)
    for episode in stored_episodes(table):
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


def json_breakage(before: pa.Table, after: pa.Table) -> list[dict[str, Any]]:
    """Fields that parsed as JSON upstream and no longer parse in the corpus, matched by episode id."""
    upstream = {e.episode_id: e for e in stored_episodes(before)}
    broken = []
    for episode in stored_episodes(after):
        original = upstream.get(episode.episode_id)
        if original is not None:
            broken += [
                {"episode_id": episode.episode_id, "field": p} for p in json_regressions(original, episode)
            ]
    return broken


def lineage_failures(table: pa.Table, master_key: bytes) -> list[dict[str, Any]]:
    """Rows whose stored envelope no longer matches the stored record and its verdict columns."""
    pipeline_key = derive_key(master_key, "lineage")
    failures = []
    rows = table.to_pylist()
    for row, episode in zip(rows, stored_episodes(table), strict=True):
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
