"""A negative corpus of REAL text that holds no secret, for ``benchmarks/redact.py``.

Every finding a redactor makes here would rewrite a digest, a line of code or a line of a
transcript: a code-corrupting false positive. Three kinds, all real, built at run time:

``lockfile``   package-integrity files: excerpts of public lockfiles committed under
               ``benchmarks/negatives/lockfiles`` (see ``PROVENANCE.md`` there), every
               ``*.dist-info/RECORD`` (sha256 digests) of a deterministic sample of the running
               interpreter's site-packages, and lockfiles found at known paths of this machine.
``source``     Python source from the interpreter's stdlib and site-packages: sorted paths, every
               Nth file up to a byte budget, test directories and known fake-credential files left
               out (:data:`SOURCE_EXCLUDED`).
``transcript`` tool observations of the real agent trajectories in ``shared/data/real``
               (SWE-agent, OpenHands, mini-SWE-agent) and the output of commands run now on this
               machine that cannot print a secret (``git log``, ``sha256sum``, ``pip list``,
               ``pip hash``, ``ls -la``).

Nothing outside ``benchmarks/negatives`` is copied into the repository. Text that does hold a
credential-like value on purpose is excluded with its reason in :data:`SOURCE_EXCLUDED` and
:data:`TRANSCRIPT_EXCLUDED`, never counted.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import sysconfig
from pathlib import Path

HERE = Path(__file__).resolve().parent
REPO = HERE.parent
FIXTURES = HERE / "negatives" / "lockfiles"
DEFAULT_REAL = REPO / ".." / "shared" / "data" / "real"

SOURCE_BUDGET = 350_000
RECORD_BUDGET = 250_000
TRANSCRIPT_BUDGET = 300_000

MACHINE_LOCKFILES = (
    # gsutil's vendored python-rsa Pipfile.lock (Google Cloud SDK image): real sha256 pins.
    Path("/usr/lib/google-cloud-sdk/platform/gsutil/third_party/rsa/Pipfile.lock"),
)

TEST_DIR_NAMES = frozenset({"test", "tests", "testing", "unittest", "idle_test", "lib2to3", "__pycache__"})
SOURCE_EXCLUDED = {
    # Files that hold fake or example credentials on purpose: they are not "text with no secret".
    "detect_secrets": "detect-secrets' own plugins and docs quote sample keys and tokens",
    "credsweeper": "CredSweeper's rules and samples quote sample keys and tokens",
    "trajectory_platform": "our own package (its redaction code quotes token formats)",
    "smtplib.py": "documents AUTH exchanges with literal example passwords",
    "imaplib.py": "documents LOGIN with literal example passwords",
    "poplib.py": "documents USER/PASS with literal example passwords",
}

TRANSCRIPT_SOURCES = ("swe-agent", "mini-swe-agent", "openhands")
TRANSCRIPT_PER_FILE = 60_000
TRANSCRIPT_EXCLUDED = {
    # SWE-agent CTF demonstrations print flags, keys and ciphertexts by design: they are the task.
    "/ctf/": "CTF challenges: observations print flags, keys and ciphertexts on purpose",
    # mini-SWE-agent's local.traj.json is a scripted dummy, not a real run (see PROVENANCE.md).
    "local.traj.json": "SYNTHETIC scripted trajectory, not real output",
}


def _read(path: Path) -> str:
    return path.read_bytes().decode("utf-8", errors="replace")


def _site_packages() -> list[Path]:
    paths = {Path(p) for p in (sysconfig.get_paths()["purelib"], sysconfig.get_paths()["platlib"])}
    return sorted(p for p in paths if p.is_dir())


def _every_nth(paths: list[Path], budget: int, step: int) -> list[Path]:
    chosen, total = [], 0
    for path in paths[::step]:
        size = path.stat().st_size
        if size == 0 or size > 60_000:
            continue
        if total + size > budget:
            break
        chosen.append(path)
        total += size
    return chosen


def lockfiles() -> dict[str, str]:
    texts = {f"lockfile/{p.name}": _read(p) for p in sorted(FIXTURES.iterdir()) if p.is_file()}
    for path in MACHINE_LOCKFILES:
        if path.is_file():
            texts[f"lockfile/machine:{path}"] = _read(path)
    records = sorted(r for sp in _site_packages() for r in sp.glob("*.dist-info/RECORD"))
    for path in _every_nth(records, RECORD_BUDGET, 2):
        texts[f"lockfile/RECORD:{path.parent.name}"] = _read(path)
    return texts


def _excluded_source(path: Path) -> bool:
    parts = set(path.parts)
    if parts & TEST_DIR_NAMES or path.name.startswith("test_") or path.name.endswith("_test.py"):
        return True
    return any(key in parts or path.name == key for key in SOURCE_EXCLUDED)


def source_files() -> dict[str, str]:
    stdlib = Path(sysconfig.get_paths()["stdlib"])
    roots = [stdlib, *_site_packages()]
    texts: dict[str, str] = {}
    for root in roots:
        skip = set() if root != stdlib else {"site-packages"}
        files = sorted(
            p
            for p in root.rglob("*.py")
            if not _excluded_source(p.relative_to(root)) and not (set(p.relative_to(root).parts) & skip)
        )
        for path in _every_nth(files, SOURCE_BUDGET // len(roots), 23):
            label = "stdlib" if root == stdlib else "site-packages"
            texts[f"source/{label}:{path.relative_to(root)}"] = _read(path)
    return texts


def _observations(node: object, out: list[str]) -> None:
    """Tool output inside a trajectory: SWE-agent ``observation``, OpenHands observation events'
    ``content``, mini-SWE-agent user turns carrying ``<returncode>``."""
    if isinstance(node, dict):
        if isinstance(node.get("observation"), str) and "content" in node:  # OpenHands event
            if isinstance(node["content"], str):
                out.append(node["content"])
        elif isinstance(node.get("observation"), str):  # SWE-agent step
            out.append(node["observation"])
        content = node.get("content")
        if node.get("role") in ("user", "tool") and isinstance(content, str) and "<returncode>" in content:
            out.append(content)
        for value in node.values():
            if isinstance(value, (dict, list)):
                _observations(value, out)
    elif isinstance(node, list):
        for value in node:
            _observations(value, out)


def _load_json_or_jsonl(path: Path) -> list[object]:
    text = _read(path)
    try:
        return [json.loads(text)]
    except json.JSONDecodeError:
        return [json.loads(line) for line in text.splitlines() if line.strip().startswith(("{", "["))]


_RAW_SUBJECT_ONLY = "commit %H%ntree %T%nparent %P%nauthor %an <%ae> %ad%ncommitter %cn <%ce> %cd%n%n    %s%n"
"""``git log --format=raw`` as git prints it, each message cut to its subject."""


def _commands() -> dict[str, list[str]]:
    stdlib = Path(sysconfig.get_paths()["stdlib"])
    digest_targets = [str(p) for p in sorted(stdlib.glob("*.py"))[:60]]
    wheels = sorted(Path("/opt/wheels").glob("*.whl"))[:6] if Path("/opt/wheels").is_dir() else []
    commands = {
        # Our own commit bodies quote token formats as our package does (SOURCE_EXCLUDED): they are
        # not text with no secret, so the log shows hashes, people, dates and subjects only.
        "git log --format=raw -n 200 (subjects)": [
            *("git", "-C", str(REPO), "log", f"--format={_RAW_SUBJECT_ONLY}", "--date=raw", "-n", "200")
        ],
        "sha256sum <stdlib *.py>": ["sha256sum", *digest_targets],
        "pip list": [sys.executable, "-m", "pip", "list", "--disable-pip-version-check"],
        "ls -la /usr/lib/x86_64-linux-gnu": ["ls", "-la", "/usr/lib/x86_64-linux-gnu"],
    }
    if wheels:
        commands["pip hash <wheels>"] = [sys.executable, "-m", "pip", "hash", *map(str, wheels)]
    return commands


def transcripts(real: Path = DEFAULT_REAL) -> tuple[dict[str, str], list[str]]:
    """Observation text per trajectory file and per command, and the exclusions applied."""
    texts: dict[str, str] = {}
    excluded: list[str] = []
    seen: set[str] = set()
    total = 0
    for source in TRANSCRIPT_SOURCES:
        for path in sorted((real / source).rglob("*")) if (real / source).is_dir() else []:
            if not path.is_file() or path.suffix not in (".traj", ".json", ".jsonl"):
                continue
            rel = str(path.relative_to(real))
            reason = next((why for key, why in TRANSCRIPT_EXCLUDED.items() if key in f"/{rel}"), None)
            if reason:
                excluded.append(f"{rel}: {reason}")
                continue
            found: list[str] = []
            for record in _load_json_or_jsonl(path):
                _observations(record, found)
            fresh = [o for o in found if o.strip() and o not in seen]  # replays repeat observations
            seen.update(fresh)
            text = "\n".join(fresh)
            if text and total < TRANSCRIPT_BUDGET:
                text = text[: min(TRANSCRIPT_PER_FILE, TRANSCRIPT_BUDGET - total)]
                texts[f"transcript/{rel}"] = text
                total += len(text)
    env = {**os.environ, "LC_ALL": "C", "GIT_PAGER": "cat"}
    for name, argv in _commands().items():
        try:
            run = subprocess.run(argv, capture_output=True, text=True, timeout=20, env=env, check=False)
        except (OSError, subprocess.TimeoutExpired):
            continue
        lines = run.stdout.splitlines()[:500]
        if lines:
            texts[f"transcript/$ {name}"] = f"$ {name}\n" + "\n".join(lines) + "\n"
    return texts, excluded


def build(real: Path = DEFAULT_REAL) -> tuple[dict[str, dict[str, str]], list[str]]:
    """``{kind: {name: text}}`` and the list of exclusions (file: reason)."""
    transcript_texts, excluded = transcripts(real)
    corpus = {"lockfile": lockfiles(), "source": source_files(), "transcript": transcript_texts}
    excluded += [f"source file or package {key!r}: {why}" for key, why in SOURCE_EXCLUDED.items()]
    return corpus, excluded


SAFE_NAME = re.compile(r"[^A-Za-z0-9._-]+")


def materialize(corpus: dict[str, dict[str, str]], root: Path) -> dict[str, Path]:
    """Write every text under ``root`` (for scanners that read files); name -> path."""
    paths: dict[str, Path] = {}
    for kind, texts in corpus.items():
        (root / kind).mkdir(parents=True, exist_ok=True)
        for index, (name, text) in enumerate(texts.items()):
            tail = SAFE_NAME.sub("_", name.rsplit("/", 1)[-1])[-80:]
            path = root / kind / f"{index:04d}_{tail}"
            path.write_text(text, encoding="utf-8")
            paths[name] = path
    return paths
