"""Fixture calibration cached across runs, keyed by everything that decides its outcome.

Calibrating a timing-sensitive fixture runs its reference solution ``calibration_runs`` times
(:func:`~trajectory_platform.curation.verify.dynamic.calibrate_oracle`); re-running that on every
verification redoes the same work whenever nothing about the fixture changed. The outcome is kept
on disk under a key hashed from the content that decides it, never from an id (two fixtures with
one id and different tests get different keys):

- the fixture's S0 files, sealed tests, reference files and reference answer, its tests folder,
  its FAIL_TO_PASS / PASS_TO_PASS ids and (for a brought environment) its content digest;
- the sealed runner's bytecode digest (it carries the interpreter's magic number, so a new Python
  or a changed runner is a new key) and whether isolation was opted out of;
- the calibration run count and the oracle's time limit.

One entry is one JSON file ``<key>.json`` holding its key, the format and the run outcomes. An
entry that does not parse, names another key, another format or the wrong number of runs is
ignored and recomputed (counted as ``rejected``), never trusted; entries are written atomically
(a temp file in the same folder, then :func:`os.replace`). No folder (``None``): nothing is cached.
"""

from __future__ import annotations

import hashlib
import json
import os
import tempfile
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

from trajectory_platform.curation.verify.context import FixtureContext
from trajectory_platform.curation.verify.dynamic import DynamicConfig, calibrate_oracle
from trajectory_platform.gym import isolation
from trajectory_platform.gym.sandbox import runner_bytecode, s0_digest

CALIBRATION_CACHE_DIR = "cache/calibration"
"""Where a workdir keeps the cache (relative to the workdir): the asset and the CLI both use it."""
CACHE_FORMAT = 1


def calibration_key(fixture: FixtureContext, config: DynamicConfig) -> str:
    """The hex digest of everything that decides a calibration's outcome (see the module docstring)."""
    handle = fixture.handle
    material = {
        "format": CACHE_FORMAT,
        "s0": s0_digest(handle.s0_files),
        "sealed_tests": s0_digest(handle.sealed_tests),
        "reference_files": s0_digest(handle.reference_files),
        "reference_answer": handle.reference_answer,
        "tests_dir": handle.tests_dir,
        "fail_to_pass": list(handle.fail_to_pass),
        "pass_to_pass": list(handle.pass_to_pass),
        "environment_digest": getattr(handle, "environment_digest", None),
        "runner": hashlib.sha256(runner_bytecode()).hexdigest(),
        "unconfined": isolation.unsafe_opt_out(),
        "calibration_runs": config.calibration_runs,
        "timeout_s": fixture.timeout_s(config.oracle_timeout_s),
    }
    return hashlib.sha256(json.dumps(material, sort_keys=True).encode()).hexdigest()


@dataclass
class CalibrationCache:
    """Calibrations through an on-disk cache at ``root`` (``None``: always computed), counted."""

    root: Path | None = None
    hits: int = 0
    misses: int = 0
    rejected: int = 0
    """Entries found but not trusted (unreadable, foreign or malformed): recomputed, counted as misses too."""

    @classmethod
    def summed(cls, root: Path | None, caches: Iterable[CalibrationCache]) -> CalibrationCache:
        """One set of counters over ``caches`` (each thread and each calibration round counts its own)."""
        caches = list(caches)
        return cls(
            root,
            hits=sum(c.hits for c in caches),
            misses=sum(c.misses for c in caches),
            rejected=sum(c.rejected for c in caches),
        )

    def calibrate(self, fixture: FixtureContext, config: DynamicConfig) -> list[bool]:
        """The fixture's calibration outcomes: from the cache when a trusted entry exists, else run
        (and stored, when there is a cache)."""
        if self.root is None:
            self.misses += 1
            return calibrate_oracle(fixture, config)
        key = calibration_key(fixture, config)
        path = self.root / f"{key}.json"
        cached = self._read(path, key, config.calibration_runs)
        if cached is not None:
            self.hits += 1
            return cached
        self.misses += 1
        runs = calibrate_oracle(fixture, config)
        _write_atomic(path, {"format": CACHE_FORMAT, "key": key, "runs": runs})
        return runs

    def _read(self, path: Path, key: str, expected_runs: int) -> list[bool] | None:
        try:
            entry = json.loads(path.read_text(encoding="utf-8"))
        except FileNotFoundError:
            return None
        except (OSError, ValueError):
            self.rejected += 1
            return None
        runs = entry.get("runs") if isinstance(entry, dict) else None
        if not (
            isinstance(entry, dict)
            and entry.get("format") == CACHE_FORMAT
            and entry.get("key") == key
            and isinstance(runs, list)
            and len(runs) == expected_runs
            and all(isinstance(run, bool) for run in runs)
        ):
            self.rejected += 1
            return None
        return list(runs)

    def to_dict(self) -> dict[str, int | bool]:
        """The counts for a stage's metadata and summaries."""
        return {
            "enabled": self.root is not None,
            "hits": self.hits,
            "misses": self.misses,
            "rejected": self.rejected,
        }


def _write_atomic(path: Path, entry: dict) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.stem[:16]}-", suffix=".tmp", dir=path.parent)
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as out:
            json.dump(entry, out, sort_keys=True)
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
