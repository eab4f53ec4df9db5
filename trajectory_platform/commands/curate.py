"""``trajectory-platform curate LOGS... --envs DIR --out OUT``: a user's logs -> a dataset fit to train on.

The safe road from raw logs to token rows, in one command: ingest, the verifier cascade (against the
gym library and the user's registered task environments), redaction with lineage and license
fencing, splits and the token mixture, then the masked dataset. It composes the domain functions
the Dagster assets call, in their order, so the dataset is what the asset graph would have built
from the same logs. Each stage's output lands under OUT::

    ingest/    traces.parquet, rejects.parquet
    verify/    verdicts.parquet, triage_report.parquet, ledger.json, verified.parquet
    redacted/  corpus.parquet, license_audit.parquet
    split/     split_assignments.parquet, training_mixture.parquet, preference_pairs.parquet
    dataset.jsonl, dataset.jsonl.manifest.json

The mixture tables and the dataset manifest carry the provenance (verified and redacted) that
``mask`` and ``train`` require. The last stdout line is a JSON summary: records in, every stage's
kept / dropped by reason, sinks (unverifiable by reason), admitted, examples and target tokens.

Ingest, verify and redact stream: each reads the previous stage's Parquet file and holds
``batch_rows`` episodes at a time (``--set ingest.batch_rows=N``, ``verify.``, ``redact.``), so
their memory does not grow with the corpus (docs/operations.md, "Batch sizes and the memory bound").
"""

from __future__ import annotations

import argparse
import dataclasses
import functools
import json
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

from trajectory_platform.commands import emit_summary, fail
from trajectory_platform.commands._files import not_text
from trajectory_platform.commands._settings import (
    SettingError,
    add_set_option,
    checked_values,
    parse_settings,
    unknown_key,
)
from trajectory_platform.commands.ingest import LOGS, nothing_normalized
from trajectory_platform.traces.adapters import FORMAT_NAMES
from trajectory_platform.workdir import default_workdir

if TYPE_CHECKING:
    import pyarrow as pa

    from trajectory_platform.curation.redact import RedactSettings
    from trajectory_platform.curation.split_mixture_stage import MixtureSettings, SplitSettings
    from trajectory_platform.curation.verify.cascade import VerifySettings
    from trajectory_platform.traces.ingest_settings import IngestSettings
    from trajectory_platform.training.data.mask_settings import DatasetSettings

STAGES = ("ingest", "verify", "redact", "split", "mixture", "dataset")
"""The stages ``--set`` reaches (see :func:`stage_settings_classes`)."""


def stage_settings_classes() -> dict[str, type]:
    """Each stage ``--set`` reaches, with the settings dataclass its asset's config comes from."""
    from trajectory_platform.curation.redact import RedactSettings
    from trajectory_platform.curation.split_mixture_stage import MixtureSettings, SplitSettings
    from trajectory_platform.curation.verify.cascade import VerifySettings
    from trajectory_platform.traces.ingest_settings import IngestSettings
    from trajectory_platform.training.data.mask_settings import DatasetSettings

    return {
        "ingest": IngestSettings,
        "verify": VerifySettings,
        "redact": RedactSettings,
        "split": SplitSettings,
        "mixture": MixtureSettings,
        "dataset": DatasetSettings,
    }


def register(subparsers: argparse._SubParsersAction) -> None:
    """Add the ``curate`` subcommand."""
    parser = subparsers.add_parser(
        "curate",
        help="logs + task environments -> verified, redacted, split, token-masked dataset (one command)",
        description="Ingest LOGS, verify every episode with the verifier cascade (gym fixtures, then the "
        "task environments registered in --envs, linked by task.fixture_id), redact secrets and "
        "personal data (canary-checked; the key is $TRAJECTORY_PLATFORM_SALT or the workdir's "
        "secrets/pipeline.key), split by repository family, compose the token mixture and mask it. "
        "Writes every stage's output under OUT and OUT/dataset.jsonl (+ .manifest.json), ready for "
        "`trajectory-platform train --dataset OUT/dataset.jsonl`. The last stdout line is a JSON summary.",
    )
    parser.add_argument("logs", nargs="+", type=Path, metavar="LOGS", help="log files or folders")
    parser.add_argument(
        "--envs",
        type=Path,
        default=None,
        metavar="DIR",
        help="task environment registry (`trajectory-platform env import`); default: the workdir's "
        "environments/ when it exists, else gym fixtures only (real logs then end unverifiable)",
    )
    parser.add_argument("--out", required=True, type=Path, metavar="OUT", help="output folder")
    parser.add_argument(
        "--workdir", type=Path, default=None, help="tokenizer cache, pipeline key (default: the workdir)"
    )
    parser.add_argument(
        "--format", default="auto", choices=("auto", *FORMAT_NAMES), help="log format (default: detected)"
    )
    parser.add_argument("--fixture-seed", type=int, default=0, help="gym fixture library seed (default 0)")
    parser.add_argument("--tokenizer", default="", help="HF tokenizer directory (default: the embedded one)")
    add_set_option(
        parser,
        "STAGE.FIELD=VALUE",
        f"a setting of one stage ({', '.join(STAGES)}), e.g. --set verify.reruns=3 (JSON values; repeatable)",
        dest="set",
    )
    parser.add_argument("--no-progress", action="store_true", help="hide the progress bars on stderr")
    parser.set_defaults(func=run)


@dataclasses.dataclass(frozen=True)
class Settings:
    """Every stage's settings for one curate run (the assets' settings dataclasses)."""

    ingest: IngestSettings
    verify: VerifySettings
    redact: RedactSettings
    split: SplitSettings
    mixture: MixtureSettings
    dataset: DatasetSettings


def stage_settings(args: argparse.Namespace) -> Settings:
    """The settings of each stage: defaults, the shared flags, then ``--set`` (SettingError on an
    unknown stage or field or a refused value, before any work)."""
    shared: dict[str, dict[str, Any]] = {
        "ingest": {},
        "verify": {"fixture_seed": args.fixture_seed},
        "redact": {},
        "split": {"fixture_seed": args.fixture_seed},
        "mixture": {"tokenizer_path": args.tokenizer},
        "dataset": {"tokenizer_path": args.tokenizer},
    }
    from trajectory_platform.resources.stage_config import settings_from

    values = parse_settings(args.set)
    for stage in values:
        if stage not in STAGES:
            raise SettingError(unknown_key("stage", stage, STAGES))
    built: dict[str, Any] = {}
    for stage, kind in stage_settings_classes().items():
        given = checked_values(stage, values.get(stage, {}), kind)
        built[stage] = settings_from({**shared[stage], **given}, kind)
    if "seed" not in values.get("mixture", {}):  # as in `split`: the mixture follows the split seed
        built["mixture"] = dataclasses.replace(built["mixture"], seed=built["split"].seed)
    return Settings(**built)


def registry(args: argparse.Namespace, workdir: Path) -> tuple[Path | None, int] | str:
    """The environment registry to verify against and its size, or why it is not one."""
    from trajectory_platform.environments.format import ENVIRONMENT_FILE, EnvironmentFormatError
    from trajectory_platform.environments.registry import INDEX_FILE, REGISTRY_DIR, EnvironmentCatalog

    root = args.envs
    if root is None:
        root = workdir / REGISTRY_DIR
        if not (root / INDEX_FILE).is_file():
            return None, 0
    if not root.is_dir():
        return f"--envs {root}: no such folder"
    if not (root / INDEX_FILE).is_file():
        hint = (
            f"it is one environment ({ENVIRONMENT_FILE}), not a registry"
            if (root / ENVIRONMENT_FILE).is_file()
            else f"no {INDEX_FILE}"
        )
        return (
            f"--envs {root}: not an environment registry ({hint}); register environments with "
            f"`trajectory-platform env import ENV_DIR... --registry {root}`"
        )
    try:
        return root, len(EnvironmentCatalog(root).environments())
    except EnvironmentFormatError as exc:
        return f"--envs {root}: {exc}"


def _say(message: str) -> None:
    print(f"curate: {message}", file=sys.stderr, flush=True)


def _write_json(path: Path, value: Any) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(value, indent=2, sort_keys=True, default=str) + "\n", encoding="utf-8")


def run(args: argparse.Namespace) -> int:
    """Check the inputs, run the stages in order, write each one's output, print the summary."""
    missing = [str(path) for path in args.logs if not path.exists()]
    if missing:
        return fail(f"no such log file or folder: {', '.join(missing)}")
    if refusal := not_text(args.logs, LOGS):
        return fail(refusal)
    if args.tokenizer and not (Path(args.tokenizer) / "tokenizer_config.json").is_file():
        return fail(f"--tokenizer {args.tokenizer}: not a tokenizer directory (no tokenizer_config.json)")
    workdir = (args.workdir or default_workdir()).resolve()
    try:
        settings = stage_settings(args)
    except ValueError as exc:
        return fail(str(exc))
    found = registry(args, workdir)
    if isinstance(found, str):
        return fail(found)
    envs, registered = found
    _say(f"environments: {envs} ({registered} registered)" if envs else "environments: none (gym only)")
    return Curation(args, workdir, settings, envs).run()


class Curation:
    """One curate run: the stages in order, each writing under OUT and adding to the summary."""

    def __init__(self, args: argparse.Namespace, workdir: Path, settings: Settings, envs: Path | None):
        self.args, self.workdir, self.settings, self.envs = args, workdir, settings, envs
        self.out: Path = args.out
        self.progress = not args.no_progress
        self.stages: dict[str, dict[str, Any]] = {}
        self.summary: dict[str, Any] = {}

    def run(self) -> int:
        """Every stage; exit 1 when no record was normalized or no example came out, 3 when a
        canary survived redaction."""
        from trajectory_platform.curation.redact.corpus import LeakDetected

        traces = self.ingest()
        if isinstance(traces, str):
            return fail(traces, 1)
        verified = self.verify(traces)
        try:
            corpus, provenance = self.redact(verified)
        except LeakDetected as exc:
            return fail(f"redaction: {exc}; nothing after verify/ was written", code=3)
        mixture = self.split(corpus, provenance)
        examples = self.dataset(mixture, provenance)
        emit_summary({**self.summary, "stages": self.stages, "provenance": provenance, "out": str(self.out)})
        if not examples:
            _say("no training example came out: see the sinks and each stage's drops in the summary")
        return 0 if examples else 1

    def ingest(self) -> Path | str:
        """``ingest/traces.parquet`` (written ``batch_rows`` episodes at a time), or why no episode
        came out (before any stage runs on nothing)."""
        from trajectory_platform.traces.ingest import ingest_to

        _say("ingest")
        folder = self.out / "ingest"
        result, _ = ingest_to(
            self.args.logs, folder, self.args.format, settings=self.settings.ingest, progress=self.progress
        )
        if result.records_in == 0:
            return f"no log records found in {', '.join(map(str, self.args.logs))}"
        if not result.normalized:
            return nothing_normalized(result, self.args.format)
        self.stages["ingest"] = result.tally().metadata()
        self.summary["records_in"] = result.records_in
        return folder / "traces.parquet"

    def verify(self, traces: Path) -> Path:
        """Verify the trace table a batch at a time; the verdicts, triage and ledger, and
        ``verify/verified.parquet`` (episodes with their verdict columns) for redaction."""
        import pyarrow.parquet as pq

        from trajectory_platform.curation.verify.calibration import CALIBRATION_CACHE_DIR
        from trajectory_platform.curation.verify.cascade import fixtures_lookup
        from trajectory_platform.curation.verify.tables import VerdictsFile, verify_files
        from trajectory_platform.resources.secrets import workdir_salt
        from trajectory_platform.traces.parquet import write_parquet

        settings = self.settings.verify
        _say(f"verify: {pq.ParquetFile(traces).metadata.num_rows} episodes")
        lookup = fixtures_lookup(settings.fixture_seed, self.envs)
        config = settings.cascade(
            self.progress,
            master_key=workdir_salt(self.workdir).key(),
            calibration_cache=self.workdir / CALIBRATION_CACHE_DIR,
        )
        folder = self.out / "verify"
        with VerdictsFile(folder / "verdicts.parquet") as verdicts_file:
            result = verify_files([traces], folder / "verified.parquet", lookup, config, verdicts_file.write)
        write_parquet(result.triage, folder / "triage_report.parquet")
        ledger = {**result.ledger.summary(), "calibration_cache": result.calibration_cache.to_dict()}
        _write_json(folder / "ledger.json", ledger)
        for warning in ledger["warnings"]:
            _say(f"warning: {warning}")
        sinks = result.counts("sink")
        self.stages["verify"] = result.tally().metadata()
        self.summary |= {
            "sinks": sinks,
            "unverifiable_by_reason": result.unverifiable_by_reason(),
            "replays_retried": result.tallies.replays_retried,
            "roles": result.counts("role"),
            "admitted": sinks.get("admitted", 0),
            "calibration_cache": result.calibration_cache.to_dict(),
        }
        return folder / "verified.parquet"

    def redact(self, verified: Path) -> tuple[Path, dict[str, Any]]:
        """Redact the verified table a batch at a time into ``redacted/corpus.parquet`` (not written
        when a canary leaks: :class:`LeakDetected`); returns its path and the provenance."""
        import pyarrow.parquet as pq

        from trajectory_platform.curation.redact.corpus import corpus_tally, redact_files
        from trajectory_platform.resources.secrets import workdir_salt
        from trajectory_platform.traces.parquet import write_parquet
        from trajectory_platform.training.data.provenance import curated

        salt = workdir_salt(self.workdir)
        _say(f"redact: {pq.ParquetFile(verified).metadata.num_rows} episodes (key from {salt.source})")
        corpus = self.out / "redacted" / "corpus.parquet"
        result = redact_files([verified], corpus, salt.key(), self.settings.redact)
        write_parquet(result.audit, self.out / "redacted" / "license_audit.parquet")
        self.stages["redact"] = corpus_tally(result).metadata()
        self.summary |= {
            "findings_by_kind": dict(sorted(result.findings_by_kind.items())),
            "leak_rate": result.leak.rate,
            "leak_rate_interval": result.leak.as_dict()["interval"],
            "leak_sample_records": result.leak.records_planted,
        }
        provenance = curated(
            "curate",
            environments=str(self.envs) if self.envs else None,
            fixture_seed=self.settings.verify.fixture_seed,
            salt_source=salt.source,
            canaries_injected=result.leak.injected,
            canaries_leaked=result.leak.leaked,
        )
        return corpus, provenance

    def split(self, corpus: Path, provenance: dict[str, Any]) -> pa.Table:
        """Split, mixture and pairs over ``redacted/corpus.parquet``, read ``split.batch_rows`` rows
        at a time (the stage holds compact keys per episode, not the corpus); returns the mixture."""
        import pyarrow.parquet as pq

        from trajectory_platform.curation.split_mixture_stage import curation_stage
        from trajectory_platform.environments.table import registered_fixtures
        from trajectory_platform.gym.library import build_library
        from trajectory_platform.traces.parquet import write_parquet
        from trajectory_platform.training.data.masked_dataset import load_target_counter
        from trajectory_platform.training.data.provenance import with_provenance
        from trajectory_platform.training.data.tokenizer import load_token_counter

        split_settings, mixture_settings = self.settings.split, self.settings.mixture
        _say(f"split and mixture: {pq.ParquetFile(corpus).metadata.num_rows} episodes")
        library = build_library(split_settings.fixture_seed)
        environments = registered_fixtures(self.envs) if self.envs else []
        counters = mixture_settings.counters(
            functools.partial(load_token_counter, workdir=self.workdir),
            functools.partial(load_target_counter, workdir=self.workdir),
        )
        stage = curation_stage(corpus, library, split_settings, mixture_settings, counters, environments)
        split, mixture, pairs, measure = stage.split, stage.mixture, stage.pairs, counters[2]
        folder = self.out / "split"
        write_parquet(split.table, folder / "split_assignments.parquet")
        write_parquet(with_provenance(mixture.table, provenance), folder / "training_mixture.parquet")
        write_parquet(with_provenance(pairs.table, provenance), folder / "preference_pairs.parquet")
        self.stages |= {
            "split": split.tally().metadata(),
            "mixture": mixture.tally().metadata(),
            "preference_pairs": pairs.tally().metadata(),
        }
        self.summary |= {
            "split_counts": split.summary["split_counts"],
            "token_measure": measure,
            "realized_token_shares": mixture.summary["realized_token_shares"],
        }
        return mixture.table

    def dataset(self, mixture: pa.Table, provenance: dict[str, Any]) -> int:
        from trajectory_platform.commands.mask import write_dataset
        from trajectory_platform.training.data.dataset_stage import run_dataset_stage

        settings = self.settings.dataset
        _say(f"dataset: {mixture.num_rows} episodes in the training mixture")
        stage = run_dataset_stage(
            mixture,
            settings.tokenizer_dir(self.workdir),
            settings.mask_config(),
            augmentation=settings.augmentation(),
            batch_rows=settings.batch_rows,
            source=str(self.out / "split" / "training_mixture.parquet"),
            provenance=provenance,
            progress=self.progress,
        )
        path = self.out / "dataset.jsonl"
        manifest_path = write_dataset(stage.table, stage.manifest, path)
        stats = stage.manifest["stats"]
        self.stages["dataset"] = stage.dataset.tally().metadata()
        self.summary |= {
            "examples": stage.table.num_rows,
            "target_tokens": stats["selected_targets"],
            "stored_tokens": stats["stored_tokens"],
            "dataset": str(path),
            "manifest": str(manifest_path),
        }
        return stage.table.num_rows
