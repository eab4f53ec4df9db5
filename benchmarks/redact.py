"""Redaction recall, false positives and throughput against detect-secrets on the same text.

Data: ``<repo>/../shared/data/secrets/credsweeper`` (CredSweeper's labelled samples; see its
PROVENANCE.md). A labelled value counts as caught when it no longer appears anywhere in the
redacted file. Files with no label are the negatives: every finding there is reported as a
false-positive finding (some of them do hold credential-like strings CredSweeper only reports in
deep-scan modes, so this is an upper bound). detect-secrets (default plugins and filters) scans
the same files in the same run; since it reports values without offsets, its "redaction" replaces
each reported value on its reported line, which is all a caller of its API can do.

Generalization is measured honestly: the labelled files are split by a digest of their name into a
development half (the only one rules may be tuned on) and a validation half; recall is reported
on each.

Usage: ``.venv/bin/python benchmarks/redact.py [--data DIR] [--repeat N]``; the last stdout line is
a JSON object with ``recall``, ``mb_per_s``, ``detect_secrets_recall``, ``detect_secrets_mb_per_s``,
``false_positives`` and ``detect_secrets_false_positives``.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import sys
import time
from collections import Counter, defaultdict
from pathlib import Path

from trajectory_platform.curation.redact import RedactionConfig, redact_text

DEFAULT_DATA = Path(__file__).resolve().parents[1] / ".." / "shared" / "data" / "secrets" / "credsweeper"
BENCH_SALT = b"benchmark-salt"


def load_corpus(data: Path) -> tuple[dict[str, str], list[dict], list[str]]:
    """Sample texts by relative path, the label rows, and the unlabelled (negative) files."""
    labels = [json.loads(line) for line in (data / "labels.jsonl").read_text().splitlines() if line.strip()]
    texts = {
        f"samples/{p.name}": p.read_bytes().decode("utf-8", errors="replace")
        for p in sorted((data / "samples").iterdir())
        if p.is_file()
    }
    labelled = {row["file"] for row in labels}
    negatives = sorted(path for path in texts if path not in labelled)
    return texts, labels, negatives


def run_ours(texts: dict[str, str], repeat: int) -> tuple[dict[str, str], dict[str, int], float]:
    """Redacted text and finding count per file, and the best wall time over ``repeat`` runs."""
    config = RedactionConfig()
    best = float("inf")
    redacted: dict[str, str] = {}
    counts: dict[str, int] = {}
    for _ in range(repeat):
        start = time.perf_counter()
        for path, text in texts.items():
            out, findings = redact_text(text, BENCH_SALT, config)
            redacted[path] = out
            counts[path] = len({(f.value, f.kind) for f in findings})
        best = min(best, time.perf_counter() - start)
    return redacted, counts, best


def run_detect_secrets(
    data: Path, texts: dict[str, str], repeat: int
) -> tuple[dict[str, str], dict[str, int], float]:
    """detect-secrets' scan of the same files; values replaced on their reported lines."""
    from detect_secrets.core.scan import scan_file
    from detect_secrets.settings import default_settings

    best = float("inf")
    reports: dict[str, list] = {}
    with default_settings():
        for _ in range(repeat):
            start = time.perf_counter()
            reports = {path: list(scan_file(str(data / path))) for path in texts}
            best = min(best, time.perf_counter() - start)
    redacted: dict[str, str] = {}
    counts: dict[str, int] = {}
    for path, secrets in reports.items():
        lines = texts[path].split("\n")
        for secret in secrets:
            if secret.secret_value and 0 < secret.line_number <= len(lines):
                index = secret.line_number - 1
                lines[index] = lines[index].replace(secret.secret_value, "<REDACTED>")
        redacted[path] = "\n".join(lines)
        counts[path] = len({(s.secret_value, s.line_number) for s in secrets})
    return redacted, counts, best


def half_of(path: str) -> str:
    """``dev`` or ``validation``, by a digest of the file's name: a file (and every label in it)
    is in one half, so rules tuned on the development half are measured on files never seen."""
    return "dev" if hashlib.sha256(path.encode()).digest()[0] % 2 == 0 else "validation"


def recall(labels: list[dict], redacted: dict[str, str]) -> tuple[float, Counter]:
    """Share of labelled values that no longer appear in their redacted file; misses by rule."""
    missed: Counter = Counter()
    for row in labels:
        if row["value"] in redacted.get(row["file"], row["value"]):
            missed[row["rule"]] += 1
    return 1 - sum(missed.values()) / len(labels), missed


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", type=Path, default=DEFAULT_DATA)
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args(argv)
    if not (args.data / "labels.jsonl").exists():
        print(f"no labelled secrets corpus at {args.data}", file=sys.stderr)
        return 2
    texts, labels, negatives = load_corpus(args.data)
    megabytes = sum(len(t.encode("utf-8")) for t in texts.values()) / 1e6

    # Interleaved and best-of-N, so load from other processes hits both sides alike.
    our_time = their_time = float("inf")
    for _ in range(args.repeat):
        ours, our_counts, seconds = run_ours(texts, 1)
        our_time = min(our_time, seconds)
        theirs, their_counts, seconds = run_detect_secrets(args.data, texts, 1)
        their_time = min(their_time, seconds)
    our_recall, our_missed = recall(labels, ours)
    their_recall, _ = recall(labels, theirs)
    halves = {
        half: (
            recall([r for r in labels if half_of(r["file"]) == half], ours)[0],
            recall([r for r in labels if half_of(r["file"]) == half], theirs)[0],
            sum(half_of(r["file"]) == half for r in labels),
        )
        for half in ("dev", "validation")
    }
    our_fp = {p: our_counts[p] for p in negatives if our_counts[p]}
    their_fp = {p: their_counts[p] for p in negatives if their_counts[p]}

    by_rule: dict[str, list[int]] = defaultdict(lambda: [0, 0])
    for row in labels:
        by_rule[row["rule"]][0] += 1
    for rule, n in our_missed.items():
        by_rule[rule][1] += n
    print(
        f"corpus: {len(texts)} files, {megabytes:.3f} MB, {len(labels)} labelled values, "
        f"{len(negatives)} negatives"
    )
    print(f"{'':24}{'ours':>12}{'detect-secrets':>16}{'ratio':>10}")
    print(
        f"{'recall':24}{our_recall:>12.3f}{their_recall:>16.3f}{our_recall / max(their_recall, 1e-9):>10.2f}"
    )
    for half, (ours_h, theirs_h, n) in halves.items():
        print(f"{'recall, ' + half + f' ({n})':24}{ours_h:>12.3f}{theirs_h:>16.3f}")
    our_mbs, their_mbs = megabytes / our_time, megabytes / their_time
    print(f"{'MB/s':24}{our_mbs:>12.3f}{their_mbs:>16.3f}{our_mbs / their_mbs:>10.2f}")
    print(f"{'FP findings (negatives)':24}{sum(our_fp.values()):>12}{sum(their_fp.values()):>16}")
    print(
        "missed by rule (ours): " + ", ".join(f"{r} {m}/{by_rule[r][0]}" for r, m in our_missed.most_common())
    )
    print("false-positive findings by negative file (ours): " + json.dumps(our_fp, sort_keys=True))
    summary = {
        "recall": round(our_recall, 4),
        "recall_dev": round(halves["dev"][0], 4),
        "recall_validation": round(halves["validation"][0], 4),
        "detect_secrets_recall_validation": round(halves["validation"][1], 4),
        "mb_per_s": round(our_mbs, 3),
        "detect_secrets_recall": round(their_recall, 4),
        "detect_secrets_mb_per_s": round(their_mbs, 3),
        "throughput_ratio": round(our_mbs / their_mbs, 2),
        "false_positives": sum(our_fp.values()),
        "detect_secrets_false_positives": sum(their_fp.values()),
        "labelled_values": len(labels),
        "negative_files": len(negatives),
        "megabytes": round(megabytes, 4),
    }
    print(json.dumps(summary, sort_keys=True))
    return 0


if __name__ == "__main__":
    sys.exit(main())
