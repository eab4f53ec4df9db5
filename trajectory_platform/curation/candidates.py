"""Training candidates: one labelled episode as splits, decontamination, mixture and preferences see it.

Upstream (``verified_traces`` -> ``redacted_corpus``) stores an episode as the columns of
:data:`~trajectory_platform.traces.schema.EPISODE_SCHEMA` plus the verification labels ``sink``,
``role``, ``t_div``, ``t_rec`` and ``target_turns``. This module turns such a table into typed
:class:`Candidate` values so the rest of curation III never indexes raw dict rows, and names the
one convention curation III adds: how a derived record names its parent.

Derived records (redacted, augmented, re-prompted) name their parent in ``extra_json`` as
``{"parent_episode_id": "<id>"}`` or, when a table carries it, in a ``parent_episode_id`` column.
The split assignment resolves the chain to its root and the derived record inherits the root's split.
"""

from __future__ import annotations

import fnmatch
import json
from collections.abc import Iterable
from dataclasses import dataclass
from typing import TypeVar

import pyarrow as pa

from trajectory_platform.traces.record import Episode
from trajectory_platform.traces.schema import EPISODE_SCHEMA

PARENT_KEY = "parent_episode_id"
"""Key in ``extra_json`` (or column name) by which a derived record names the record it came from."""

PROMPT_REWRITE_KEY = "context_distilled"
"""Key in ``extra_json`` by which a derived record declares the system-prompt rewrite it went
through (``teacher_prompt_digest`` -> ``student_prompt_digest``: context distillation): its
episode ran under another prompt than the one it now shows, which verification must know (a
compaction's timing counted that prompt's tokens)."""

ANCHOR_KEY = "anchor"
"""Column of a table a platform stage wrote (a round's DAgger labels, a mixture) marking the
candidates that stage made anchors. An anchor is an external demonstration (human or expert): filled
first, winning its duplicate group, exempt from the per-fixture cap, never retired by a round (see
:func:`trajectory_platform.curation.dedup.refresh_round`). So it is decided by where the platform got
the data: that column, or an ingest source the user declared (:func:`from_anchor_source`), never a
value inside the record (``extra_json`` or ``lineage.model``): ten episodes recording the gym expert's
model name all escaped the cap (red team, 2026-12-06)."""

PASS_SINKS = frozenset({"admitted"})
FAIL_SINKS = frozenset({"hard_negative"})


class _Verdict:
    """What a verification sink and a license action mean, shared by a whole-episode
    :class:`Candidate` and its compact :class:`EpisodeKeys` so the two can never disagree."""

    __slots__ = ()
    sink: str | None
    license_action: str | None

    @property
    def trainable_license(self) -> bool:
        """Curation II's fence: only ``admit`` (or no fence recorded) may train; quarantine and block
        never do."""
        return self.license_action in (None, "admit")

    @property
    def passed(self) -> bool | None:
        """True for a verified pass, False for a verified failure, None when the oracle never decided."""
        if self.sink in PASS_SINKS:
            return True
        if self.sink in FAIL_SINKS:
            return False
        return None


@dataclass
class Candidate(_Verdict):
    """One episode with the labels curation I attached; the unit every curation III function takes."""

    episode: Episode
    sink: str | None = None
    role: str | None = None
    t_div: int | None = None
    t_rec: int | None = None
    target_turns: list[int] | None = None
    parent_episode_id: str | None = None
    anchor: bool = False
    license_action: str | None = None

    @property
    def episode_id(self) -> str:
        return self.episode.episode_id

    @property
    def fixture_id(self) -> str | None:
        return self.episode.task.fixture_id

    @property
    def repo_family(self) -> str | None:
        return self.episode.task.repo_family

    @property
    def tool_family(self) -> str | None:
        return self.episode.task.tool_family

    @property
    def domain(self) -> str | None:
        return self.episode.task.domain


@dataclass(slots=True)
class EpisodeKeys(_Verdict):
    """What curation III's decisions read of one episode, without the episode: its identity, task
    keys and labels, the texts decontamination screens (prompt, digests of its normalized actions,
    workspace diff), the digest of its action sequence (dedup, diversity) and, when measured, its
    selected target tokens. The split/mixture stage holds one of these per corpus episode instead of
    a :class:`Candidate` (whose events and messages are most of an episode's memory); it is built
    from a candidate by ``split_mixture_stage`` and read by the same decision functions."""

    episode_id: str
    fixture_id: str | None
    repo_family: str | None
    tool_family: str | None
    domain: str | None
    sink: str | None
    role: str | None
    t_div: int | None
    parent_episode_id: str | None
    anchor: bool
    license_action: str | None
    prompt: str | None
    actions: tuple[str, ...]
    """Digests of the normalized tool calls, in order (``decontam.action_keys``)."""
    diff: str | None
    action_digest: str
    """``dedup.sequence_digest`` of the normalized action sequence."""
    tokens: int | None = None
    """Selected target tokens under the mixture's counter; None when not measured."""


Labelled = Candidate | EpisodeKeys
"""What the split, decontamination and mixture decisions accept: a whole candidate, or its keys."""


def _extra(episode: Episode) -> dict:
    if not episode.extra_json:
        return {}
    try:
        value = json.loads(episode.extra_json)
    except json.JSONDecodeError:
        return {}
    return value if isinstance(value, dict) else {}


def from_anchor_source(episode: Episode, anchor_sources: Iterable[str]) -> bool:
    """Was ``episode`` ingested from a declared anchor source? ``anchor_sources`` are patterns
    (``fnmatch``) over its ``source_file``: the path ingest read it from, relative to the trace
    source, which ingest writes and no record can state."""
    return any(fnmatch.fnmatchcase(episode.source_file, pattern) for pattern in anchor_sources)


def candidate_from_row(row: dict, anchor_sources: frozenset[str] = frozenset()) -> Candidate:
    """Build a :class:`Candidate` from one table row (episode columns plus optional label columns);
    an anchor by the row's :data:`ANCHOR_KEY` column or its source (:func:`from_anchor_source`)."""
    episode = Episode.from_dict({name: row.get(name) for name in EPISODE_SCHEMA.names})
    extra = _extra(episode)
    parent = row.get(PARENT_KEY) or extra.get(PARENT_KEY)
    return Candidate(
        episode=episode,
        sink=row.get("sink"),
        role=row.get("role"),
        t_div=row.get("t_div"),
        t_rec=row.get("t_rec"),
        target_turns=None if row.get("target_turns") is None else [int(i) for i in row["target_turns"]],
        parent_episode_id=str(parent) if parent else None,
        anchor=bool(row.get(ANCHOR_KEY)) or from_anchor_source(episode, anchor_sources),
        license_action=row.get("license_action"),
    )


def candidates_from_table(table: pa.Table, anchor_sources: frozenset[str] = frozenset()) -> list[Candidate]:
    """All rows of ``table`` as candidates, in table order; missing label columns stay ``None``.

    ``target_turns`` stays ``None`` when the column is absent or null (no selection was made) and is
    an empty list when curation I selected nothing: the two mean different things downstream.
    """
    return [candidate_from_row(row, anchor_sources) for row in table.to_pylist()]


L = TypeVar("L", Candidate, EpisodeKeys)


def candidates_by_id(candidates: Iterable[L]) -> dict[str, L]:
    """Index by episode id; a repeated id is a contract violation upstream and raises."""
    index: dict[str, L] = {}
    for candidate in candidates:
        if candidate.episode_id in index:
            raise ValueError(f"episode_id {candidate.episode_id!r} appears twice in the corpus")
        index[candidate.episode_id] = candidate
    return index
