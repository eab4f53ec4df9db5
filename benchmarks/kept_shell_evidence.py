"""Measurement: the harness table of shells that keep their state (``KEPT_BY_FORMAT``) against the
logs' own evidence, on a folder of real logs.

For every ingested episode with shell calls, by format: whether a line changes the shell's state
(the logs replay would run in a kept shell), whether one moves it (``cd`` / ``pushd`` / ``popd``),
what the log's own evidence says (a ``pwd`` shown after a ``cd``; the folders its harness shows
after each call: OpenHands' ``working_dir``, SWE-agent's state footer) and whether that agrees with
the table. And how many lines use what a long-lived session holds beyond one line's state (session
46): a background job (``&``, ``nohup``, ``disown``), an ``EXIT`` trap, ``exit``, ``set -e``, a
``/tmp`` path, a listing of the shell's own state (``trap -p``, ``declare -p/-F/-f``, a bare
``set``, ``compgen``). Nothing is replayed: this reads the logs only.

Usage: ``.venv/bin/python benchmarks/kept_shell_evidence.py [FOLDER]`` (default: the real logs in
``../shared/data/real`` beside the clone, as ``benchmarks/ingest.py`` finds them); the last line is JSON.
"""

from __future__ import annotations

import json
import sys
from collections import Counter, defaultdict
from pathlib import Path

from trajectory_platform.curation.shell_split import bash_words, is_operator
from trajectory_platform.curation.verify.calls import call_records
from trajectory_platform.curation.verify.shell_session import (
    KEPT_BY_FORMAT,
    moves,
    sets_state,
    shown_evidence,
    shown_folders,
)
from trajectory_platform.traces.ingest import ingest_paths

DEFAULT_ROOT = Path(__file__).resolve().parents[1] / ".." / "shared" / "data" / "real"
_LISTINGS = {"trap": ("-p",), "declare": ("-p", "-F", "-f"), "typeset": ("-p", "-F", "-f")}


def session_uses(line: str) -> list[str]:
    """What of a long-lived session ``line`` uses (see the module's docstring), by its words."""
    words = bash_words(line) or line.split()
    starts = [(w, words[i + 1 : i + 2]) for i, w in enumerate(words) if i == 0 or is_operator(words[i - 1])]
    uses = {
        "background job": "&" in words or any(w in ("nohup", "disown") for w, _ in starts),
        "EXIT trap": any(w == "trap" for w, _ in starts)
        and any(w in ("EXIT", "0", "SIGEXIT") for w in words),
        "exit": any(w == "exit" for w, _ in starts),
        "set -e": any(w == "set" and n[:1] and n[0].startswith("-") and "e" in n[0] for w, n in starts),
        "/tmp": any("/tmp" in w for w in words),
        "lists the shell's state": any(
            (w in _LISTINGS and n[:1] and n[0] in _LISTINGS[w])
            or w == "compgen"
            or (w == "set" and (not n or is_operator(n[0])))
            for w, n in starts
        ),
    }
    return [name for name, used in uses.items() if used]


def measure(folder: Path) -> dict[str, dict[str, int]]:
    """Counts per source format (see the module's docstring)."""
    counts: dict[str, Counter[str]] = defaultdict(Counter)
    for episode in ingest_paths([folder]).episodes:
        records = call_records(episode)
        lines = [r.shell_command for r in records if r.shell_command is not None]
        if not lines:
            continue
        tally = counts[episode.source_format]
        tally["with shell calls"] += 1
        tally["shell lines"] += len(lines)
        for line in lines:
            for use in session_uses(line):
                tally[f"lines: {use}"] += 1
        tally["sets state"] += any(sets_state(line) for line in lines)
        tally["moves"] += any(moves(line) for line in lines)
        folders = shown_folders(episode, records)
        tally["shows folders"] += any(f is not None for f in folders)
        evidence = shown_evidence(records, folders)
        if evidence is None:
            continue
        table = episode.source_format in KEPT_BY_FORMAT
        tally[f"evidence: {'kept' if evidence else 'afresh'}"] += 1
        tally["evidence agrees with the table" if evidence == table else "evidence against the table"] += 1
    return {name: dict(sorted(tally.items())) for name, tally in sorted(counts.items())}


def main() -> None:
    folder = Path(sys.argv[1]) if len(sys.argv) > 1 else DEFAULT_ROOT
    result = measure(folder)
    for name, tally in result.items():
        kept = "kept" if name in KEPT_BY_FORMAT else "afresh"
        print(f"{name} (table: {kept}): " + ", ".join(f"{k} {v}" for k, v in tally.items()))
    print(json.dumps(result, sort_keys=True))


if __name__ == "__main__":
    main()
