"""A verified table in, the redacted, sealed and license-fenced corpus out (what the asset and CLI call).

Per row: the license tier of its repository family decides admission (restricted families are
blocked and written to the audit list, never to the corpus); the episode columns are redacted, and
the verdict text columns with them (:func:`texts_beside`: the verifier quotes the record);
copyleft episodes are checked for copied spans; the stored (redacted) record is sealed with its
lineage envelope, binding the row's verdict columns too. Every other column passes through.
Λ_leak is measured on every run by planting canaries in a copy of each episode of a declared sample
(:class:`~trajectory_platform.curation.redact.settings.RedactSettings`).

Accounting: ``rows_in == rows_out + blocked``, always.
"""

from __future__ import annotations

import json
import time
from collections import Counter
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from operator import attrgetter
from pathlib import Path
from typing import Any

import pyarrow as pa
import pyarrow.parquet as pq

from trajectory_platform.curation.keys import derive_key
from trajectory_platform.curation.licenses import family_tiers, license_decision, license_tier
from trajectory_platform.curation.lineage import lineage_envelope
from trajectory_platform.curation.redact.engine import build_table, rewrite, scan
from trajectory_platform.curation.redact.episode import redact_row, string_slots
from trajectory_platform.curation.redact.fields import FIELDS, LICENSE, OutOfClass
from trajectory_platform.curation.redact.leak import (
    LeakReport,
    choose_leak_sample,
    episode_canary_count,
    measure_episode_leak,
)
from trajectory_platform.curation.redact.model import RedactionConfig
from trajectory_platform.curation.redact.pseudonym import pseudonym_digest
from trajectory_platform.curation.redact.settings import RedactSettings
from trajectory_platform.traces.drops import Tally
from trajectory_platform.traces.parquet import ParquetAppender, read_file_batches
from trajectory_platform.traces.record import Episode
from trajectory_platform.traces.schema import EPISODE_SCHEMA, episode_row

LINEAGE_FIELDS = [
    pa.field("lineage_id", pa.string(), nullable=False),
    pa.field("merkle_root", pa.string(), nullable=False),
    pa.field("lineage_json", pa.string(), nullable=False),
    pa.field("license_tier", pa.string(), nullable=False),
    pa.field("license_action", pa.string(), nullable=False),
    pa.field("taint", pa.bool_(), nullable=False),
    pa.field("taint_label", pa.string()),
    pa.field("redaction_findings", pa.int32(), nullable=False),
]
AUDIT_SCHEMA = pa.schema(
    [
        pa.field("episode_id", pa.string(), nullable=False),
        ("source_file", pa.string()),
        ("source_line", pa.int64()),
        ("partition_date", pa.timestamp("us")),
        ("repo_family", pa.string()),
        ("license", pa.string()),
        ("license_tier", pa.string()),
        ("action", pa.string()),
        pa.field("reason", pa.string(), nullable=False),
        ("detail", pa.string()),
    ]
)
"""One row per episode the stage leaves out (``rows_in == rows_out + audit rows``): ``reason`` is a
key of :data:`REDACTION_DROP_REASONS`, ``detail`` says it for a person (never record text)."""
REDACTION_DROP_REASONS = ("license_blocked", "nesting_too_deep", "out_of_class", "engine_error")
"""A restricted-licence family blocked at admission; a record nested too deep to redact; a field
whose value is outside its class (:class:`~trajectory_platform.curation.redact.fields.OutOfClass`:
an unknown vocabulary value, a timestamp that is no time, a secret in the episode id); an episode
the engine failed on (a bug, named by its exception's type: the rest of the day goes on)."""
AUDIT_IDENTITY = {
    "episode_id": "episode_id",
    "source_file": "source_file",
    "repo_family": "task.repo_family",
    "license": "task.license",
}
"""The audit row's text columns and the record fields they show: redacted as those fields are
(:func:`audit_identity`), so a blocked or refused episode's row holds no secret either."""
VERIFIER_SUITE_COLUMN = "verifier_suite_digest"
"""The cascade's column naming the sealed oracle that judged the row (``verified_traces``); sealed
into ``H_verify`` so a changed sealed test changes the lineage id."""


class LeakDetected(RuntimeError):
    """Raised instead of publishing a corpus in which a canary survived redaction."""


@dataclass
class CorpusResult:
    """The redacted table, the audit rows of blocked episodes, and what happened, for metadata."""

    table: pa.Table
    audit: pa.Table
    findings_by_kind: dict[str, int]
    leak: LeakReport
    stats: dict[str, Any] = field(default_factory=dict)


def corpus_tally(result: CorpusResult) -> Tally:
    """Rows in, redacted rows out (kept), and the audited ones by their reason."""
    reasons = Counter(str(r) for r in result.audit.column("reason").to_pylist())
    rows_out = result.stats["rows_out"]  # the rows written, also when they went to a file batch by batch
    return Tally(rows_out + sum(reasons.values()), rows_out, reasons)


def output_schema(upstream: pa.Schema) -> pa.Schema:
    """EPISODE_SCHEMA, then the upstream's other columns (verdicts) in order, then the lineage columns."""
    passthrough = [
        f for f in upstream if f.name not in EPISODE_SCHEMA.names and f.name not in _lineage_names()
    ]
    return pa.schema([*EPISODE_SCHEMA, *passthrough, *LINEAGE_FIELDS])


def _lineage_names() -> set[str]:
    return {f.name for f in LINEAGE_FIELDS}


def texts_beside(schema: pa.Schema) -> list[str]:
    """The pass-through text columns (the verifier's reasons, findings and triage), redacted with
    their row's episode: the verifier read the record before redaction and quotes it (a tool name,
    an argument that broke the schema, a path)."""
    bound_apart = _lineage_names() | {VERIFIER_SUITE_COLUMN}
    return [
        f.name
        for f in schema
        if f.name not in EPISODE_SCHEMA.names and f.name not in bound_apart and pa.types.is_string(f.type)
    ]


def verdict_of(row: dict[str, Any], schema: pa.Schema) -> dict[str, Any]:
    """The pass-through (verdict) columns of a row as plain JSON values, bound into the lineage seal
    beside the verifier suite digest (:data:`VERIFIER_SUITE_COLUMN`, bound as its own input)."""
    bound_apart = _lineage_names() | {VERIFIER_SUITE_COLUMN}
    names = [f.name for f in schema if f.name not in EPISODE_SCHEMA.names and f.name not in bound_apart]
    return json.loads(json.dumps({name: row.get(name) for name in names}, default=str, sort_keys=True))


def json_regressions(before: Episode, after: Episode) -> list[str]:
    """Field paths whose JSON parsed before redaction and no longer does (must always be empty)."""
    broken = []
    for (path, owner_before, attr, _), (_, owner_after, _, _) in zip(
        string_slots(before), string_slots(after), strict=True
    ):
        old, new = getattr(owner_before, attr), getattr(owner_after, attr)
        if old and _parses(old) and not (new and _parses(new)):
            broken.append(path)
    return broken


def _parses(text: str) -> bool:
    try:
        json.loads(text)
    except ValueError:
        return False
    return True


RowBatches = Callable[[], Iterable[pa.Table]]
"""The rows to redact as Arrow tables of at most ``batch_rows`` rows, in a fixed order, read afresh
on every call (a Parquet file read in record batches, or slices of a table): redaction passes over
its input twice and holds one batch of :class:`Episode` objects at a time."""


@dataclass
class _Plan:
    """The first, light pass over the whole input: each family's licence tier (the strictest licence
    any of its episodes declares) and the Λ_leak canary sample (drawn over every admitted row)."""

    tiers: dict[str, str]
    sample: set[str]
    config: RedactionConfig

    def tier(self, episode: Episode) -> str:
        family = episode.task.repo_family
        return self.tiers[family] if family else admission_tier(episode.task.license, self.config)


def admission_tier(spdx: str | None, config: RedactionConfig) -> str:
    """The licence tier redaction admits an episode under: :func:`license_tier` of the text as
    recorded (settled before the field is redacted, so the tiering still reads it), except that a
    licence carrying a secret of a known format is ``restricted``: it is no licence a person wrote,
    and must not count as permissive (``MIT OR <token>`` is a valid expression whose first choice is
    MIT). Blocked, it reaches only the audit list, redacted there (:func:`audit_identity`)."""
    if spdx and scan(spdx, config, LICENSE.context_for(None)):
        return "restricted"
    return license_tier(spdx)


def _episodes(rows: list[dict[str, Any]]) -> list[Episode]:
    return [Episode.from_dict({name: row.get(name) for name in EPISODE_SCHEMA.names}) for row in rows]


def _plan(
    batches: RowBatches, salt: bytes, settings: RedactSettings, measure_leaks: bool, config: RedactionConfig
) -> _Plan:
    """Pass 1: the (family, licence) pairs and, per row, what the canary sample is drawn from (its
    id, canaries, family and licence): a few short strings a row, never the row."""
    pairs: set[tuple[str | None, str | None]] = set()
    candidates: list[tuple[str, int, str | None, str | None]] = []
    for batch in batches():
        for episode in _episodes(batch.to_pylist()):
            task = episode.task
            pairs.add((task.repo_family, task.license))
            count = episode_canary_count(episode.episode_id, len(episode.events))
            candidates.append((episode.episode_id, count, task.repo_family, task.license))
    ordered = sorted(pairs, key=lambda p: (p[0] or "", p[1] or ""))
    plan = _Plan(family_tiers(ordered, lambda spdx: admission_tier(spdx, config)), set(), config)
    if measure_leaks:
        admitted = (
            (episode_id, count)
            for episode_id, count, family, spdx in candidates
            if (plan.tiers[family] if family else admission_tier(spdx, config)) != "restricted"
        )
        plan.sample = choose_leak_sample(
            admitted,
            salt,
            settings.leak_sample_fraction,
            settings.leak_min_canaries,
            settings.leak_sample_seed,
        )
    return plan


def redact_corpus(
    table: pa.Table,
    master_key: bytes,
    config: RedactionConfig | None = None,
    measure_leaks: bool = True,
    refuse_leaks: bool = True,
    settings: RedactSettings | None = None,
) -> CorpusResult:
    """Redact, fence and seal every row of ``table`` (EPISODE_SCHEMA columns plus any verdict columns),
    ``settings.batch_rows`` rows at a time (:func:`redact_batches`); the result is one table.

    Raises :class:`LeakDetected` when a canary survives (and ``refuse_leaks``), so a leaking corpus
    is never returned for publication.
    """
    settings = settings or RedactSettings()
    pieces: list[pa.Table] = []
    result = redact_batches(
        lambda: _slices(table, settings.batch_rows),
        table.schema,
        master_key,
        pieces.append,
        config,
        measure_leaks,
        refuse_leaks,
        settings,
    )
    result.table = pa.concat_tables([output_schema(table.schema).empty_table(), *pieces]).combine_chunks()
    return result


def redact_files(
    sources: Sequence[Path],
    out: Path,
    master_key: bytes,
    settings: RedactSettings | None = None,
    config: RedactionConfig | None = None,
) -> CorpusResult:
    """Verified Parquet files (a day of ``verified_traces``, the ``curate`` command's
    ``verified.parquet``) redacted into ``out``, read and written ``settings.batch_rows`` rows at a
    time (:func:`redact_batches`): neither the input nor the output is held as one table. Atomic:
    ``out`` appears only when every batch is written and no canary leaked (:class:`LeakDetected`).
    The files must share one schema (the first's is the input's)."""
    if not sources:
        raise ValueError("no verified files to redact")
    settings = settings or RedactSettings()
    schema = pq.read_schema(sources[0])
    with ParquetAppender(out, output_schema(schema)) as writer:
        return redact_batches(
            lambda: read_file_batches(sources, settings.batch_rows),
            schema,
            master_key,
            writer.write,
            config,
            settings=settings,
        )


def _slices(table: pa.Table, rows: int) -> list[pa.Table]:
    return [table.slice(start, rows) for start in range(0, table.num_rows, rows)]


def redact_batches(
    batches: RowBatches,
    schema: pa.Schema,
    master_key: bytes,
    write: Callable[[pa.Table], None],
    config: RedactionConfig | None = None,
    measure_leaks: bool = True,
    refuse_leaks: bool = True,
    settings: RedactSettings | None = None,
) -> CorpusResult:
    """Redact, fence and seal an input read in batches (rows of ``schema``), handing each batch's
    output rows (:func:`output_schema`) to ``write``; the returned result's ``table`` is empty.

    The whole-input decisions are made first, in a light pass (:func:`_plan`): each repository
    family's licence tier and the canary sample, so they are the same for any batch size. Canaries
    go into the episodes of the sample ``settings`` declare. Raises :class:`LeakDetected` after the
    last batch when a canary survived (and ``refuse_leaks``): a caller writing to a file drops it
    (:class:`~trajectory_platform.traces.parquet.ParquetAppender` does on the exception).
    """
    config = config or RedactionConfig()
    settings = settings or RedactSettings()
    salt, pipeline_key = derive_key(master_key, "redaction"), derive_key(master_key, "lineage")
    out_schema = output_schema(schema)
    beside = texts_beside(schema)
    plan = _plan(batches, salt, settings, measure_leaks, config)
    seconds = 0.0
    rows_in, rows_out, audit_rows = 0, 0, []
    kinds: Counter = Counter()
    leak = LeakReport()
    stats = Counter(text_bytes=0, json_regressions=0, quarantined=0, tainted=0)
    for batch in batches():
        rows = batch.to_pylist()
        rows_in += len(rows)
        out_rows = []
        for row, episode in zip(rows, _episodes(rows), strict=True):
            tier = plan.tier(episode)
            if tier == "restricted":
                identity = audit_identity(episode, salt, config)
                detail = f"restricted license family {identity['repo_family']}: blocked at admission"
                audit_rows.append(_audit_row(episode, identity, tier, "license_blocked", detail))
                continue
            stats["text_bytes"] += sum(
                len((getattr(o, a) or "").encode()) for _, o, a, _ in string_slots(episode)
            )
            started = time.perf_counter()
            try:
                redacted, verdict_texts, findings = redact_row(
                    episode, {name: row.get(name) for name in beside}, salt, config
                )
                if episode.episode_id in plan.sample:
                    leak.add(measure_episode_leak(episode, salt, config))
            except RecursionError:  # one pathological record is dropped with a reason, the batch goes on
                identity, detail = audit_identity(episode, salt, config), "nesting too deep to redact"
                audit_rows.append(_audit_row(episode, identity, tier, "nesting_too_deep", detail))
                continue
            except OutOfClass as refused:
                identity = audit_identity(episode, salt, config)
                audit_rows.append(_audit_row(episode, identity, tier, "out_of_class", refused.detail))
                continue
            except Exception as failure:  # noqa: BLE001 - an engine bug leaves one episode out, not the day
                audit_rows.append(_engine_failure_row(episode, tier, failure, salt, config))
                continue
            seconds += time.perf_counter() - started
            kinds.update(f.kind for f in findings)
            stats["json_regressions"] += len(json_regressions(episode, redacted))
            action, taint = license_decision(tier, redacted)
            stats["quarantined"] += action == "quarantine"
            stats["tainted"] += taint is not None
            row = {**row, **verdict_texts}
            verdict = verdict_of(row, schema)
            envelope = lineage_envelope(redacted, pipeline_key, row.get(VERIFIER_SUITE_COLUMN), verdict)
            out = {**row, **episode_row(redacted)}
            out.update(
                lineage_id=envelope.lineage_id,
                merkle_root=envelope.merkle_root,
                lineage_json=envelope.to_json(),
                license_tier=tier,
                license_action=action,
                taint=taint is not None,
                taint_label=taint,
                redaction_findings=len(findings),
            )
            out_rows.append(out)
        rows_out += len(out_rows)
        write(pa.Table.from_pylist(out_rows, schema=out_schema))
    leak.records_total = rows_out
    if refuse_leaks and leak.leaked:
        raise LeakDetected(
            f"{leak.leaked} of {leak.injected} canaries (in {leak.records_planted} sampled records) "
            f"survived redaction (Λ_leak={leak.rate:.4f}): "
            f"by form {leak.leaked_by_form}, by kind {leak.leaked_by_kind}; corpus not published"
        )
    totals: dict[str, Any] = dict(stats)  # the counts, then the run's figures (floats among them)
    totals.update(
        rows_in=rows_in,
        rows_out=rows_out,
        blocked=len(audit_rows),
        redact_seconds=round(seconds, 4),
        mb_per_s=round(stats["text_bytes"] / 1e6 / seconds, 3) if seconds else 0.0,
    )
    return CorpusResult(
        table=out_schema.empty_table(),
        audit=pa.Table.from_pylist(audit_rows, schema=AUDIT_SCHEMA),
        findings_by_kind=dict(sorted(kinds.items())),
        leak=leak,
        stats=totals,
    )


def audit_identity(episode: Episode, salt: bytes, config: RedactionConfig) -> dict[str, str | None]:
    """The audit row's text columns (:data:`AUDIT_IDENTITY`) redacted as their fields' class scans
    them, through one symbol table: a secret there (a token in a file name, in a repository
    family's URL, in the episode id of a refused episode) is its keyed pseudonym, the same one the
    corpus gives it, so a person holding the salt can still match the row to its log."""
    values = {column: attrgetter(path)(episode) for column, path in AUDIT_IDENTITY.items()}
    contexts = {column: FIELDS[path].context_for(None) for column, path in AUDIT_IDENTITY.items()}
    found = [f for column, text in values.items() if text for f in scan(text, config, contexts[column])]
    if not found:
        return values
    table = build_table(found, salt)
    return {column: text and rewrite(text, table, contexts[column]) for column, text in values.items()}


def _engine_failure_row(
    episode: Episode, tier: str, failure: Exception, salt: bytes, config: RedactionConfig
) -> dict[str, Any]:
    """The audit row of an episode the engine failed on (a bug: one such record, a UTF-7 run
    decoding to half a surrogate pair, failed a whole day). It is left out, never stored
    unredacted; its identity is redacted as usual or, if the engine fails there too, keyed digests."""
    try:
        identity = audit_identity(episode, salt, config)
    except Exception:  # noqa: BLE001 - the same bug may hold for the identity's own text
        identity = {
            column: text and f"sha256-hmac:{pseudonym_digest(salt, text)}"
            for column, text in ((c, attrgetter(p)(episode)) for c, p in AUDIT_IDENTITY.items())
        }
    detail = f"{type(failure).__name__} in the redaction engine: left out, never stored unredacted"
    return _audit_row(episode, identity, tier, "engine_error", detail)


def _audit_row(
    episode: Episode, identity: dict[str, str | None], tier: str, reason: str, detail: str
) -> dict[str, Any]:
    return {
        "episode_id": identity["episode_id"],
        "source_file": identity["source_file"],
        "source_line": episode.source_line,
        "partition_date": episode_row(episode)["partition_date"],
        "repo_family": identity["repo_family"],
        "license": identity["license"],
        "license_tier": tier,
        "action": "block",
        "reason": reason,
        "detail": detail,
    }
