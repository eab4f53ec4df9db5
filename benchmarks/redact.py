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

A second negative corpus of REAL text with no secret (lockfile digests, stdlib/site-packages
source, agent and shell transcripts; see ``benchmarks/negative_corpus.py``) counts
code-corrupting false positives: every finding there would rewrite a digest or a line of code.

``--credsweeper`` adds CredSweeper (ML validation on and off) as a third row, through
``benchmarks/credsweeper_scan.py`` run by ``--credsweeper-python`` (a venv with ``credsweeper``;
default: this interpreter, if it can import it). Its recall is scored like detect-secrets'.

Usage: ``.venv/bin/python benchmarks/redact.py [--data DIR] [--repeat N] [--credsweeper]
[--credsweeper-python PATH]``; the last stdout line is a JSON object with ``recall``,
``mb_per_s``, ``detect_secrets_recall``, ``detect_secrets_mb_per_s``, ``false_positives``,
``detect_secrets_false_positives``, ``code_corrupting_false_positives`` and
``detect_secrets_code_corrupting_false_positives`` (and ``credsweeper_*`` with the flag).

``--leak-sample [--episodes N] [--repeat N]`` is a second mode: ``redact_corpus`` over a gym
rollout's verified-shape table with canaries in every record (``leak_sample_fraction=1``, the old
behaviour) against the declared sample (:class:`RedactSettings` defaults), interleaved and repeated
on the same table; it prints each arm's seconds, the per-repeat ratio, the canaries each planted and
Λ_leak's 95% interval, and checks the two corpora are the same bytes (canaries go into copies).
"""

from __future__ import annotations

import argparse
import hashlib
import importlib.util
import json
import subprocess
import sys
import tempfile
import time
from collections import Counter, defaultdict
from pathlib import Path

import negative_corpus

from trajectory_platform.curation.redact import RedactionConfig, RedactSettings, redact_corpus, redact_text
from trajectory_platform.gym.rollout import rollout
from trajectory_platform.traces.ingest import ingest_paths
from trajectory_platform.traces.schema import episodes_to_table

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


def replace_on_lines(text: str, reported: list[tuple[int, str]]) -> str:
    """What a caller of a scanner that reports (line, value) can do: replace each value on its line."""
    lines = text.split("\n")
    for line_number, value in reported:
        if value and 0 < line_number <= len(lines):
            lines[line_number - 1] = lines[line_number - 1].replace(value, "<REDACTED>")
    return "\n".join(lines)


def run_detect_secrets(
    data: Path, texts: dict[str, str], repeat: int, paths: dict[str, Path] | None = None
) -> tuple[dict[str, str], dict[str, int], float]:
    """detect-secrets' scan of the same files; values replaced on their reported lines."""
    from detect_secrets.core.scan import scan_file
    from detect_secrets.settings import default_settings

    paths = paths or {path: data / path for path in texts}
    best = float("inf")
    reports: dict[str, list] = {}
    with default_settings():
        for _ in range(repeat):
            start = time.perf_counter()
            reports = {path: list(scan_file(str(paths[path]))) for path in texts}
            best = min(best, time.perf_counter() - start)
    redacted: dict[str, str] = {}
    counts: dict[str, int] = {}
    for path, secrets in reports.items():
        redacted[path] = replace_on_lines(texts[path], [(s.line_number, s.secret_value) for s in secrets])
        counts[path] = len({(s.secret_value, s.line_number) for s in secrets})
    return redacted, counts, best


class CredSweeperPass:
    """CredSweeper in its own interpreter (``benchmarks/credsweeper_scan.py`` over a pipe)."""

    def __init__(self, python: str) -> None:
        script = Path(__file__).with_name("credsweeper_scan.py")
        self.process = subprocess.Popen(
            [python, str(script)], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True
        )
        self.version = "?"

    def scan(
        self, texts: dict[str, str], paths: dict[str, Path], ml_threshold: object
    ) -> tuple[dict[str, str], dict[str, int], dict[str, list[dict]], float]:
        """Redacted text (values replaced on their lines), unique findings and findings per file,
        and the scan's wall time."""
        assert self.process.stdin and self.process.stdout
        by_path = {str(path.resolve()): name for name, path in paths.items()}
        request = {"paths": [str(paths[name].resolve()) for name in texts], "ml_threshold": ml_threshold}
        self.process.stdin.write(json.dumps(request) + "\n")
        self.process.stdin.flush()
        reply = json.loads(self.process.stdout.readline())
        self.version = reply["version"]
        found: dict[str, list[dict]] = defaultdict(list)
        for finding in reply["findings"]:
            name = by_path.get(str(Path(finding["path"]).resolve()))
            if name is not None:
                found[name].append(finding)
        redacted = {
            name: replace_on_lines(text, [(f["line"], f["value"]) for f in found.get(name, [])])
            for name, text in texts.items()
        }
        counts = {name: len({(f["value"], f["line"]) for f in found.get(name, [])}) for name in texts}
        return redacted, counts, dict(found), reply["seconds"]

    def close(self) -> None:
        if self.process.stdin:
            self.process.stdin.close()
        self.process.wait(timeout=30)


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


def mask(value: str) -> str:
    """A candidate secret as printed: its first 4 characters and its length, never the whole."""
    return f"{value[:4]}\u2026({len(value)})"


def context(text: str, start: int, end: int, width: int = 24) -> str:
    before = text[max(0, start - width) : start]
    after = text[end : end + width]
    return (before + "[" + mask(text[start:end]) + "]" + after).encode("unicode_escape").decode("ascii")


def our_negative_findings(texts: dict[str, str]) -> dict[str, list]:
    """Our findings per negative text, one per distinct (value, kind)."""
    config = RedactionConfig()
    found: dict[str, list] = {}
    for name, text in texts.items():
        _, findings = redact_text(text, BENCH_SALT, config)
        unique = {(f.value, f.kind): f for f in findings}
        if unique:
            found[name] = sorted(unique.values(), key=lambda f: f.start)
    return found


def is_pii(finding) -> bool:
    """Personal data (e-mail, home-directory user name, ...): redacted by policy, not a secret."""
    return finding.detector.startswith("pii:")


def halves_recall(labels: list[dict], redacted: dict[str, str]) -> dict[str, float]:
    return {
        half: recall([r for r in labels if half_of(r["file"]) == half], redacted)[0]
        for half in ("dev", "validation")
    }


def credsweeper_python(args: argparse.Namespace) -> str | None:
    if args.credsweeper_python:
        return args.credsweeper_python
    if args.credsweeper:
        if importlib.util.find_spec("credsweeper") is None:
            print("--credsweeper: credsweeper is not importable; use --credsweeper-python", file=sys.stderr)
            return None
        return sys.executable
    return None


CS_VARIANTS = {"credsweeper (ML)": "medium", "credsweeper (no ML)": 0}


def leak_sample_mode(episodes: int, repeat: int, seed: int) -> int:
    """Redact time with canaries in every record vs in the declared sample, side by side."""
    with tempfile.TemporaryDirectory(prefix="tp-bench-leak-") as tmp:
        summary = rollout(episodes, seed, Path(tmp), progress=False)
        ingested = ingest_paths([Path(tmp) / day for day in summary.days])
    table = episodes_to_table(sorted(ingested.episodes, key=lambda e: e.episode_id))
    arms = {"full": RedactSettings(leak_sample_fraction=1.0), "sample": RedactSettings()}
    seconds: dict[str, list[float]] = {name: [] for name in arms}
    results = {}
    for _ in range(repeat):  # interleaved: load from other processes hits both arms alike
        for name, settings in arms.items():
            start = time.perf_counter()
            results[name] = redact_corpus(table, BENCH_SALT, settings=settings)
            seconds[name].append(time.perf_counter() - start)
    ratios = [full / sample for full, sample in zip(seconds["full"], seconds["sample"], strict=True)]
    same = results["full"].table.equals(results["sample"].table)
    print(f"corpus: {table.num_rows} episodes (gym rollout, seed {seed}); same corpus bytes: {same}")
    for name, result in results.items():
        leak = result.leak.as_dict()
        print(
            f"{name:>7}: {' '.join(f'{t:.2f}s' for t in seconds[name])}; {leak['records_planted']} records, "
            f"{leak['injected']} canaries, Λ_leak {leak['rate']} [95% CI {leak['interval'][0]}, "
            f"{leak['interval'][1]}]"
        )
    print(f"full / sample per repeat: {' '.join(f'{r:.2f}x' for r in ratios)}")
    report = {
        "episodes": table.num_rows,
        "full_seconds": [round(t, 3) for t in seconds["full"]],
        "sample_seconds": [round(t, 3) for t in seconds["sample"]],
        "ratios": [round(r, 3) for r in ratios],
        "median_ratio": round(sorted(ratios)[len(ratios) // 2], 3),
        "full_canaries": results["full"].leak.as_dict(),
        "sample_canaries": results["sample"].leak.as_dict(),
        "same_corpus": same,
    }
    print(json.dumps(report, sort_keys=True))
    return 0 if same else 1


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", type=Path, default=DEFAULT_DATA)
    parser.add_argument("--real", type=Path, default=negative_corpus.DEFAULT_REAL)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--credsweeper", action="store_true", help="add CredSweeper as a third scanner")
    parser.add_argument("--credsweeper-python", help="interpreter of a venv with credsweeper installed")
    parser.add_argument("--list-all", action="store_true", help="print every finding on the negative corpus")
    parser.add_argument("--leak-sample", action="store_true", help="time Λ_leak: every record vs the sample")
    parser.add_argument("--episodes", type=int, default=300, help="rollout size for --leak-sample")
    parser.add_argument("--seed", type=int, default=7, help="rollout seed for --leak-sample")
    args = parser.parse_args(argv)
    if args.leak_sample:
        return leak_sample_mode(args.episodes, args.repeat, args.seed)
    if not (args.data / "labels.jsonl").exists():
        print(f"no labelled secrets corpus at {args.data}", file=sys.stderr)
        return 2
    texts, labels, negatives = load_corpus(args.data)
    megabytes = sum(len(t.encode("utf-8")) for t in texts.values()) / 1e6
    cs_python = credsweeper_python(args)
    cs = CredSweeperPass(cs_python) if cs_python else None
    sample_paths = {path: args.data / path for path in texts}

    # Interleaved and best-of-N, so load from other processes hits all sides alike.
    our_time = their_time = float("inf")
    cs_time = dict.fromkeys(CS_VARIANTS, float("inf"))
    cs_out: dict[str, tuple] = {}
    for _ in range(args.repeat):
        ours, our_counts, seconds = run_ours(texts, 1)
        our_time = min(our_time, seconds)
        theirs, their_counts, seconds = run_detect_secrets(args.data, texts, 1)
        their_time = min(their_time, seconds)
        for variant, threshold in CS_VARIANTS.items() if cs else ():
            cs_out[variant] = cs.scan(texts, sample_paths, threshold)
            cs_time[variant] = min(cs_time[variant], cs_out[variant][3])
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

    # Negative corpus of real text: every finding would corrupt a digest, code or a transcript.
    neg_corpus, neg_excluded = negative_corpus.build(args.real)
    neg_texts = {name: text for kind_texts in neg_corpus.values() for name, text in kind_texts.items()}
    kind_of = {name: kind for kind, kind_texts in neg_corpus.items() for name in kind_texts}
    our_neg = our_negative_findings(neg_texts)
    with tempfile.TemporaryDirectory(prefix="redact-negatives-") as tmp:
        neg_paths = negative_corpus.materialize(neg_corpus, Path(tmp))
        _, ds_neg_counts, _ = run_detect_secrets(Path(tmp), neg_texts, 1, neg_paths)
        cs_neg = {v: cs.scan(neg_texts, neg_paths, t) for v, t in CS_VARIANTS.items()} if cs else {}
    if cs:
        cs.close()

    by_rule: dict[str, list[int]] = defaultdict(lambda: [0, 0])
    for row in labels:
        by_rule[row["rule"]][0] += 1
    for rule, n in our_missed.items():
        by_rule[rule][1] += n
    print(
        f"corpus: {len(texts)} files, {megabytes:.3f} MB, {len(labels)} labelled values, "
        f"{len(negatives)} negatives"
    )
    cs_names = list(cs_out)
    header = f"{'':24}{'ours':>12}{'detect-secrets':>16}" + "".join(f"{n:>22}" for n in cs_names)
    print(header + f"{'ratio':>10}")
    cs_recall = {v: recall(labels, cs_out[v][0])[0] for v in cs_names}
    cs_halves = {v: halves_recall(labels, cs_out[v][0]) for v in cs_names}
    print(
        f"{'recall':24}{our_recall:>12.3f}{their_recall:>16.3f}"
        + "".join(f"{cs_recall[v]:>22.3f}" for v in cs_names)
        + f"{our_recall / max(their_recall, 1e-9):>10.2f}"
    )
    for half, (ours_h, theirs_h, n) in halves.items():
        print(
            f"{'recall, ' + half + f' ({n})':24}{ours_h:>12.3f}{theirs_h:>16.3f}"
            + "".join(f"{cs_halves[v][half]:>22.3f}" for v in cs_names)
        )
    our_mbs, their_mbs = megabytes / our_time, megabytes / their_time
    cs_mbs = {v: megabytes / cs_time[v] for v in cs_names}
    print(
        f"{'MB/s':24}{our_mbs:>12.3f}{their_mbs:>16.3f}"
        + "".join(f"{cs_mbs[v]:>22.3f}" for v in cs_names)
        + f"{our_mbs / their_mbs:>10.2f}"
    )
    cs_fp = {v: sum(cs_out[v][1][p] for p in negatives) for v in cs_names}
    print(
        f"{'FP findings (negatives)':24}{sum(our_fp.values()):>12}{sum(their_fp.values()):>16}"
        + "".join(f"{cs_fp[v]:>22}" for v in cs_names)
    )
    neg_rows: dict[str, dict[str, float]] = {}
    for kind, kind_texts in neg_corpus.items():
        neg_rows[kind] = {
            "files": len(kind_texts),
            "mb": sum(len(t.encode("utf-8")) for t in kind_texts.values()) / 1e6,
            "ours": sum(not is_pii(f) for n in kind_texts for f in our_neg.get(n, [])),
            "ours_pii": sum(is_pii(f) for n in kind_texts for f in our_neg.get(n, [])),
            "detect_secrets": sum(ds_neg_counts[n] for n in kind_texts),
            **{v: sum(cs_neg[v][1][n] for n in kind_texts) for v in cs_names},
        }
    for kind, row in neg_rows.items():
        print(
            f"{'code FP, ' + kind:24}{row['ours']:>12}{row['detect_secrets']:>16}"
            + "".join(f"{row[v]:>22}" for v in cs_names)
            + f"   ({row['files']} files, {row['mb']:.3f} MB; ours also {row['ours_pii']} PII)"
        )
    code_fp = sum(row["ours"] for row in neg_rows.values())
    pii_on_negatives = sum(row["ours_pii"] for row in neg_rows.values())
    ds_code_fp = sum(row["detect_secrets"] for row in neg_rows.values())
    print(
        f"{'code FP, total':24}{code_fp:>12}{ds_code_fp:>16}"
        + "".join(f"{sum(r[v] for r in neg_rows.values()):>22}" for v in cs_names)
    )
    print(
        "missed by rule (ours): " + ", ".join(f"{r} {m}/{by_rule[r][0]}" for r, m in our_missed.most_common())
    )
    print("false-positive findings by negative file (ours): " + json.dumps(our_fp, sort_keys=True))
    print("negative corpus exclusions (not counted):")
    for line in neg_excluded:
        print(f"  - {line}")
    print(
        f"our findings on the negative corpus ({code_fp} code-corrupting + {pii_on_negatives} personal data "
        "(real authors' e-mails and home-directory names: correct PII redaction, not counted); "
        "value = first 4 chars + length"
        + ("" if args.list_all else "; 2 per file and detector, --list-all for all")
        + "):"
    )
    for name, findings in our_neg.items():
        groups: dict[str, list] = defaultdict(list)
        for f in findings:
            groups[f"{f.detector}/{f.kind}"].append(f)
        for label, group in groups.items():
            shown = group if args.list_all else group[:2]
            for f in shown:
                print(f"  {kind_of[name]:10} {name} | {label} | {context(neg_texts[name], f.start, f.end)}")
            if len(group) > len(shown):
                more = len(group) - len(shown)
                print(f"  {kind_of[name]:10} {name} | {label} | ... and {more} more like these")
    for v in cs_names:
        adds: dict[str, Counter] = {"dev": Counter(), "validation": Counter()}
        for row in labels:
            theirs_text = cs_out[v][0].get(row["file"], "")
            if row["value"] in ours.get(row["file"], "") and row["value"] not in theirs_text:
                adds[half_of(row["file"])][row["rule"]] += 1
        union = {
            half: recall(
                [r for r in labels if half_of(r["file"]) == half],
                {
                    p: replace_on_lines(ours[p], [(f["line"], f["value"]) for f in cs_out[v][2].get(p, [])])
                    for p in ours
                },
            )[0]
            for half in ("dev", "validation")
        }
        print(
            f"{v} {cs.version if cs else ''} adds over ours: dev {dict(adds['dev'])}, "
            f"validation {dict(adds['validation'])}; union recall dev {union['dev']:.3f}, "
            f"validation {union['validation']:.3f}"
        )
        neg_rules = Counter(f["rule"] for found in cs_neg[v][2].values() for f in found)
        print(f"{v} code-FP findings by rule: {dict(neg_rules.most_common())}")
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
        "code_corrupting_false_positives": code_fp,
        "detect_secrets_code_corrupting_false_positives": ds_code_fp,
        "negative_corpus_pii_findings": pii_on_negatives,
        "negative_corpus_megabytes": round(sum(r["mb"] for r in neg_rows.values()), 4),
        "labelled_values": len(labels),
        "negative_files": len(negatives),
        "megabytes": round(megabytes, 4),
    }
    for v in cs_names:
        key = "credsweeper_ml" if "no ML" not in v else "credsweeper_no_ml"
        summary[f"{key}_recall_dev"] = round(cs_halves[v]["dev"], 4)
        summary[f"{key}_recall_validation"] = round(cs_halves[v]["validation"], 4)
        summary[f"{key}_mb_per_s"] = round(cs_mbs[v], 3)
        summary[f"{key}_false_positives"] = cs_fp[v]
        summary[f"{key}_code_corrupting_false_positives"] = sum(r[v] for r in neg_rows.values())
    print(json.dumps(summary, sort_keys=True))
    return 0


if __name__ == "__main__":
    sys.exit(main())
