"""Inspect AI's ``.eval`` log (its default log format since 0.3.46): a zip archive holding the log's
``header.json`` (``{"version", "status", "eval", "plan", "results", "stats", ...}``) and each sample
as ``samples/<id>_epoch_<n>.json``, plus summaries and a journal that repeat what those hold.

It is opened as the JSON log ``inspect eval --log-format json`` writes for the same run (the
header's fields and ``samples``: :func:`archive_document`), so the ``inspect`` reader reads both
layouts alike rather than holding a second reading of a sample. Why read it rather than skip it by
its suffix: a folder of Inspect logs holds nothing else, and a skipped file is a run read as empty.
"""

from __future__ import annotations

import json
import re
import zipfile
from pathlib import Path

ARCHIVE_SUFFIX = ".eval"
HEADER = "header.json"
_SAMPLE = re.compile(r"samples/(.+)_epoch_(\d+)\.json")


def is_archive(path: Path) -> bool:
    """Is ``path`` named as an Inspect ``.eval`` log?"""
    return path.name.lower().endswith(ARCHIVE_SUFFIX)


def archive_document(path: Path) -> bytes:
    """The archive as the JSON log of the same run: its header's fields and ``samples``, in the
    order of their file names (sample id, then epoch). A member that is not JSON is left as its
    text, so the ``inspect`` reader rejects that sample naming it; an archive without a header (a
    run still going, whose journal alone is written) or not a zip raises :class:`OSError`."""
    try:
        with zipfile.ZipFile(path) as archive:
            names = archive.namelist()
            if HEADER not in names:
                raise OSError(f"an Inspect .eval log without {HEADER} (a run not finished?)")
            header = json.loads(archive.read(HEADER))
            samples = sorted(
                (name for name in names if _SAMPLE.fullmatch(name)), key=lambda n: _sample_order(n)
            )
            read = [_member(archive, name) for name in samples]
    except (zipfile.BadZipFile, json.JSONDecodeError, UnicodeDecodeError) as exc:
        raise OSError(f"not a readable Inspect .eval log: {type(exc).__name__}") from exc
    if not isinstance(header, dict):
        raise OSError(f"an Inspect .eval log whose {HEADER} is not an object")
    return json.dumps({**header, "samples": read}).encode("utf-8")


def _sample_order(name: str) -> tuple[int, str, int]:
    match = _SAMPLE.fullmatch(name)
    assert match is not None
    sample, epoch = match.group(1), int(match.group(2))
    return (0, f"{int(sample):020d}", epoch) if sample.isdigit() else (1, sample, epoch)


def _member(archive: zipfile.ZipFile, name: str) -> object:
    text = archive.read(name).decode("utf-8", errors="replace")
    try:
        return json.loads(text)
    except json.JSONDecodeError:
        return text
