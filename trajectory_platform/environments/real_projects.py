"""The shipped real-project example: task environments built from real open-source libraries, and
agent logs against them in two real formats (issue 18).

Nothing of those libraries is copied into this repository. At run time the builder reads the source
of three small, dependency-free, permissively licensed libraries installed from the package index
(pinned in ``pyproject.toml``: ``toposort``, ``mdurl``, ``tomli``), lays it out as S0, and
reintroduces one real-looking bug with an edit we wrote; the reference solution is the inverse (the
library's own code), and the oracle is sealed tests we wrote (``real_projects/<name>/tests/``)
over the library's documented behaviour. A library at a version other than its pin is refused:
the bug edit was written against that exact text.

The logs are generated at run time too, by a scripted agent acting through
:func:`trajectory_platform.gym.shell.run_commands` in the real sandbox, so every recorded
observation is exactly what replay reproduces (and no library text is stored here). Four episodes:
a success (SWE-agent ``.traj``), a recovery (OpenAI chat: an edit that crashes, then the fix), a
failure (SWE-agent: a partial fix the oracle rejects) and one whose observation shows a planted fake
AWS key (OpenAI chat: the redaction engine must remove it). Each records its final workspace diff.
"""

from __future__ import annotations

import ast
import base64
import hashlib
import importlib.metadata
import json
import tempfile
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from trajectory_platform.environments.format import TaskEnvironment, write_environment
from trajectory_platform.environments.registry import ImportResult, import_environments
from trajectory_platform.gym.fixtures import ReplaySpec
from trajectory_platform.gym.sandbox import unified_diff
from trajectory_platform.gym.shell import ShellRun, run_commands

DATA_DIR = Path(__file__).with_name("real_projects")
TRACE_DAY = "2026-11-03"
"""The trace-source day the example's logs are laid under (one the bundled samples already use, so
the example adds no partition to the embedded run)."""
TESTS_DIR = "tests"
COMMAND_TIMEOUT_S = 20.0
BASH_TOOL = {
    "name": "bash",
    "description": "Run a bash command in the repository root and return its combined output.",
    "parameters": {
        "type": "object",
        "properties": {"command": {"type": "string", "description": "the command line to run"}},
        "required": ["command"],
        "additionalProperties": False,
    },
}
SYSTEM_PROMPT = (
    "You are an autonomous programmer working in a shell at the root of a Python repository. "
    "Run one bash command per turn; when the issue is fixed, say so."
)


ORACLE_TIMEOUT_S = 60.0
"""A real library's sealed suite declares a time limit well above what it needs (about half a second
per run here): the verifier re-runs an oracle whose run used more than half its limit in CPU time,
and a run past the limit (wall clock, the hard stop for a hanging test) fails, so a tight limit
would make the verdicts, and the Parquet bytes, depend on how loaded the machine is."""


class RealProjectError(RuntimeError):
    """The example cannot be built here (a library missing or at another version than its pin)."""


@dataclass(frozen=True)
class Edit:
    """Replace the one occurrence of ``old`` in ``path`` by ``new`` (our bug, written by us)."""

    path: str
    old: str
    new: str


@dataclass(frozen=True)
class Project:
    """One library made into a task: where its source comes from, the bug, the issue text."""

    name: str
    task_id: str
    distribution: str
    version: str
    license: str
    files: tuple[str, ...]
    """Source files as the distribution installs them; the same paths in S0."""
    bug: tuple[Edit, ...]
    statement: str
    fail_to_pass: tuple[str, ...]
    """Test function names (in ``tests/test_<name>.py``) the bug makes fail."""


PROJECTS: tuple[Project, ...] = (
    Project(
        name="toposort",
        task_id="real-toposort-self-dependency",
        distribution="toposort",
        version="1.10",
        license="Apache-2.0",
        files=("toposort.py",),
        bug=(
            Edit(
                "toposort.py",
                "{item: set(e for e in dep if e != item) for item, dep in data.items()}",
                "{item: set(dep) for item, dep in data.items()}",
            ),
        ),
        statement=(
            "toposort raises CircularDependencyError when an item lists itself among its dependencies, "
            "e.g. toposort_flatten({1: {1, 2}, 2: set()}). The documented behaviour is that "
            "self-dependencies are ignored, which would give [2, 1]. Fix toposort.py."
        ),
        fail_to_pass=("test_self_dependency_is_ignored", "test_self_dependency_only_item"),
    ),
    Project(
        name="mdurl",
        task_id="real-mdurl-decode-exclude",
        distribution="mdurl",
        version="0.1.2",
        license="MIT",
        files=(
            "mdurl/__init__.py",
            "mdurl/_decode.py",
            "mdurl/_encode.py",
            "mdurl/_format.py",
            "mdurl/_parse.py",
            "mdurl/_url.py",
        ),
        bug=(Edit("mdurl/_decode.py", "result += cache[b1]", "result += chr(b1)"),),
        statement=(
            "mdurl.decode ignores its exclude set: mdurl.decode('a%2Fb') returns 'a/b', although '/' is "
            "one of the reserved characters (DECODE_DEFAULT_CHARS) that must stay percent-encoded. "
            "Fix the decoder in mdurl/_decode.py."
        ),
        fail_to_pass=(
            "test_decode_keeps_reserved_characters_encoded",
            "test_decode_honours_a_custom_exclude_set",
        ),
    ),
    Project(
        name="tomli",
        task_id="real-tomli-multiline-newline",
        distribution="tomli",
        version="2.5.0",
        license="MIT",
        files=("tomli/__init__.py", "tomli/_parser.py", "tomli/_re.py", "tomli/_types.py"),
        bug=(
            Edit(
                "tomli/_parser.py",
                '    pos += 3\n    if src.startswith("\\n", pos):\n        pos += 1\n',
                "    pos += 3\n",
            ),
        ),
        statement=(
            "tomli keeps the newline that directly follows the opening delimiter of a multi-line string: "
            'tomli.loads(\'s = """\\nhello"""\') gives {"s": "\\nhello"}. TOML 1.0 says that newline is '
            "trimmed (for basic and literal multi-line strings). Fix tomli/_parser.py."
        ),
        fail_to_pass=(
            "test_newline_after_opening_basic_delimiter_is_trimmed",
            "test_newline_after_opening_literal_delimiter_is_trimmed",
            "test_only_the_first_newline_is_trimmed",
        ),
    ),
)

SECRET_PROJECT = "toposort"
SECRET_FILE = "deploy.env"


def fake_aws_credentials() -> tuple[str, str]:
    """A fake AWS key pair in the real shapes (``AKIA`` + 16, 40-character secret), derived from a
    fixed label so the example is byte-stable and no key-shaped string is stored in the repository."""
    digest = hashlib.sha256(b"trajectory-platform real-project example: not a real key").digest()
    key_id = "AKIA" + base64.b32encode(digest).decode("ascii")[:16]
    secret = base64.b64encode(hashlib.sha256(digest).digest()).decode("ascii")[:40]
    return key_id, secret


def _secret_file() -> str:
    key_id, secret = fake_aws_credentials()
    return (
        "# staging deploy credentials (read by scripts/deploy.sh)\n"
        f"AWS_ACCESS_KEY_ID={key_id}\n"
        f"AWS_SECRET_ACCESS_KEY={secret}\n"
        "AWS_DEFAULT_REGION=eu-west-1\n"
    )


# ------------------------------------------------------------------------------- environments


def installed_sources(project: Project) -> dict[str, str]:
    """The library's files as installed, refused unless the installed version is the pin."""
    try:
        dist = importlib.metadata.distribution(project.distribution)
    except importlib.metadata.PackageNotFoundError as exc:
        raise RealProjectError(
            f"{project.distribution}=={project.version} is not installed (pinned in pyproject.toml for the "
            "real-project example): run `make setup`"
        ) from exc
    if dist.version != project.version:
        raise RealProjectError(
            f"{project.distribution} {dist.version} is installed, but the real-project example is pinned to "
            f"{project.version} (pyproject.toml): its bug edit was written against that version's source "
            "and may not apply. Install the pinned version (`make setup`)."
        )
    files = {}
    for rel in project.files:
        path = Path(str(dist.locate_file(rel)))
        if not path.is_file():
            raise RealProjectError(f"{project.distribution} {dist.version}: {rel} is not installed at {path}")
        files[rel] = path.read_text(encoding="utf-8")
    return files


def _apply_edits(files: dict[str, str], edits: tuple[Edit, ...], project: Project) -> dict[str, str]:
    out = dict(files)
    for edit in edits:
        count = out.get(edit.path, "").count(edit.old)
        if count != 1:
            raise RealProjectError(
                f"{project.distribution} {project.version}: the bug edit of {edit.path} matches {count} "
                "places (expected exactly 1): the installed source is not the one it was written for"
            )
        out[edit.path] = out[edit.path].replace(edit.old, edit.new)
    return out


def sealed_tests(project: Project) -> dict[str, str]:
    """Our oracle for ``project``, keyed by its path in the workspace (``tests/test_<name>.py``)."""
    folder = DATA_DIR / project.name / TESTS_DIR
    return {f"{TESTS_DIR}/{p.name}": p.read_text(encoding="utf-8") for p in sorted(folder.glob("test_*.py"))}


def _test_ids(tests: dict[str, str]) -> list[str]:
    """``tests/test_x.py::test_name`` for every module-level test function, in definition order."""
    return [
        f"{rel}::{node.name}"
        for rel, source in sorted(tests.items())
        for node in ast.parse(source).body
        if isinstance(node, ast.FunctionDef) and node.name.startswith("test_")
    ]


def build_environment(project: Project) -> TaskEnvironment:
    """The task environment of ``project``: the installed source with our bug as S0, the original as
    the reference, our sealed tests as the oracle, a bash tool replayed in the sandbox."""
    original = installed_sources(project)
    if project.name == SECRET_PROJECT:
        original[SECRET_FILE] = _secret_file()
    s0 = _apply_edits(original, project.bug, project)
    tests = sealed_tests(project)
    ids = _test_ids(tests)
    failing = [i for i in ids if i.partition("::")[2] in project.fail_to_pass]
    if len(failing) != len(project.fail_to_pass):
        raise RealProjectError(f"{project.name}: fail_to_pass names a test its sealed tests lack")
    return TaskEnvironment(
        task_id=project.task_id,
        statement=project.statement,
        repo_family=f"pypi/{project.distribution}",
        domain="bug_repair",
        license=project.license,
        tool_family="bash",
        tools=[dict(BASH_TOOL)],
        s0_files=s0,
        sealed_tests=tests,
        tests_dir=TESTS_DIR,
        fail_to_pass=failing,
        pass_to_pass=[i for i in ids if i not in failing],
        oracle_timeout_s=ORACLE_TIMEOUT_S,
        references=[unified_diff(s0, original)],
        python=">=3.11",
        packages=[],
        replay=ReplaySpec(shell=True),
    )


# ------------------------------------------------------------------------------------- agent


@dataclass(frozen=True)
class Turn:
    """One scripted agent turn: what it says, and the bash command it runs."""

    thought: str
    command: str


@dataclass(frozen=True)
class Script:
    """One scripted episode on one environment, recorded in one log format."""

    name: str
    project: str
    log_format: str
    """``swe-agent`` (a ``.traj`` document) or ``openai`` (one chat record in a JSONL file)."""
    kind: str
    """What it demonstrates: ``success``, ``recovery``, ``failure`` or ``secret``."""
    turns: tuple[Turn, ...]
    closing: str


_PY = "python3 -c"
_TOPOSORT_FIX = (
    "sed -i 's/{item: set(dep) for item, dep in data.items()}/"
    "{item: set(e for e in dep if e != item) for item, dep in data.items()}/' toposort.py"
)
_TOPOSORT_CHECK = (
    f"{_PY} 'from toposort import toposort_flatten; print(toposort_flatten({{1: {{1, 2}}, 2: set()}}))'"
)
_MDURL_CHECK = f'{_PY} \'import mdurl; print(mdurl.decode("a%2Fb"), mdurl.decode("a%20b"))\''
_TOMLI_CHECK = f'{_PY} \'import tomli; print(repr(tomli.loads("s = \\"\\"\\"\\nhello\\"\\"\\"")["s"]))\''

SCRIPTS: tuple[Script, ...] = (
    Script(
        name="toposort-success",
        project="toposort",
        log_format="swe-agent",
        kind="success",
        turns=(
            Turn(
                "Find where the dependencies are copied.",
                "grep -n 'for item, dep in data.items()' toposort.py",
            ),
            Turn("The copy keeps self-dependencies; the docstring says they are discarded.", _TOPOSORT_FIX),
            Turn("Check the example from the issue again.", _TOPOSORT_CHECK),
        ),
        closing="Self-dependencies are discarded again; submitting.",
    ),
    Script(
        name="mdurl-recovery",
        project="mdurl",
        log_format="openai",
        kind="recovery",
        turns=(
            Turn("Reproduce the issue.", _MDURL_CHECK),
            Turn("Look at how single bytes are decoded.", "grep -n 'b1 < 0x80' -A 3 mdurl/_decode.py"),
            Turn(
                "Keep excluded characters encoded by checking the exclude set here.",
                "sed -i 's/result += chr(b1)/result += seq[i : i + 3] if chr(b1) in exclude else chr(b1)/' "
                "mdurl/_decode.py",
            ),
            Turn("Run the reproduction again.", _MDURL_CHECK),
            Turn(
                "exclude is not in scope in repl_func_with_cache; it receives the cache built from it. "
                "Use the cache, which already maps excluded characters to their escapes.",
                "sed -i 's/result += seq\\[i : i + 3\\] if chr(b1) in exclude else chr(b1)/"
                "result += cache[b1]/' mdurl/_decode.py",
            ),
            Turn("Run the reproduction again.", _MDURL_CHECK),
        ),
        closing="mdurl.decode now keeps reserved characters such as %2F encoded and still decodes the rest.",
    ),
    Script(
        name="tomli-failure",
        project="tomli",
        log_format="swe-agent",
        kind="failure",
        turns=(
            Turn("Reproduce the issue.", _TOMLI_CHECK),
            Turn(
                "Find the multi-line string parser.",
                "grep -n 'def parse_multiline_str' -A 4 tomli/_parser.py",
            ),
            Turn(
                "Strip the leading newline from basic multi-line strings after parsing.",
                "sed -i 's/^        pos, result = parse_basic_str(src, pos, multiline=True)$/&\\n"
                '        result = result.lstrip("\\\\n")/\' tomli/_parser.py',
            ),
            Turn("Check the example again.", _TOMLI_CHECK),
        ),
        closing="The newline after the opening delimiter is gone; submitting.",
    ),
    Script(
        name="toposort-secret",
        project="toposort",
        log_format="openai",
        kind="secret",
        turns=(
            Turn("See what the repository holds.", "ls -a"),
            Turn("Check the deployment settings before touching the code.", f"cat {SECRET_FILE}"),
            Turn("Find where the input is copied.", "grep -n 'Discard self-dependencies' -A 1 toposort.py"),
            Turn("Discard self-dependencies when copying the input, as the docstring says.", _TOPOSORT_FIX),
            Turn("Check again.", _TOPOSORT_CHECK),
        ),
        closing="toposort now ignores self-dependencies: toposort_flatten({1: {1, 2}, 2: set()}) == [2, 1].",
    ),
)


@dataclass
class Recorded:
    """One script as the sandbox answered it: per-command results and the final workspace diff."""

    script: Script
    environment: TaskEnvironment
    run: ShellRun
    diff: str


def record(script: Script, environment: TaskEnvironment) -> Recorded:
    """Run the script's commands in order on a fresh S0 in the sandbox."""
    run = run_commands(environment.s0_files, [t.command for t in script.turns], COMMAND_TIMEOUT_S)
    return Recorded(script, environment, run, unified_diff(environment.s0_files, run.final_files))


def swe_agent_traj(rec: Recorded) -> dict[str, Any]:
    """A SWE-agent (function-calling) ``.traj`` document, as SWE-agent 1.x writes one."""
    env, script = rec.environment, rec.script
    history: list[dict[str, Any]] = [
        {"role": "system", "content": SYSTEM_PROMPT, "agent": "main", "message_type": "system_prompt"},
        {"role": "user", "content": env.statement, "agent": "main", "message_type": "observation"},
    ]
    steps = []
    actions = [
        (t.thought, "bash", t.command, r.output) for t, r in zip(script.turns, rec.run.results, strict=True)
    ]
    actions.append((script.closing, "submit", "submit", rec.diff))
    for number, (thought, tool, action, observation) in enumerate(actions, 1):
        call_id = f"call_{number}"
        arguments = json.dumps({"command": action}) if tool == "bash" else "{}"
        history.append(
            {
                "role": "assistant",
                "content": thought,
                "thought": thought,
                "action": action,
                "agent": "main",
                "message_type": "action",
                "tool_calls": [
                    {"id": call_id, "type": "function", "function": {"name": tool, "arguments": arguments}}
                ],
            }
        )
        history.append(
            {
                "role": "tool",
                "content": observation,
                "agent": "main",
                "message_type": "observation",
                "tool_call_ids": [call_id],
            }
        )
        steps.append(
            {
                "action": action,
                "observation": observation,
                "response": thought,
                "thought": thought,
                "execution_time": 0.0,
                "state": {"working_dir": "/workspace"},
            }
        )
    return {
        "environment": "main",
        "trajectory": steps,
        "history": history,
        "info": {
            "exit_status": "submitted",
            "submission": rec.diff,
            "model_stats": {
                "instance_cost": 0,
                "tokens_sent": 0,
                "tokens_received": 0,
                "api_calls": len(steps),
            },
        },
        "replay_config": json.dumps(
            {"problem_statement": {"id": env.task_id}, "agent": {"name": script.name}}
        ),
    }


def openai_record(rec: Recorded) -> dict[str, Any]:
    """One OpenAI Chat Completions conversation with a ``bash`` tool, its task in ``metadata``."""
    env, script = rec.environment, rec.script
    messages: list[dict[str, Any]] = [
        {"role": "system", "content": SYSTEM_PROMPT},
        {"role": "user", "content": env.statement},
    ]
    for number, (turn, result) in enumerate(zip(script.turns, rec.run.results, strict=True), 1):
        call_id = f"call_{number}"
        arguments = json.dumps({"command": turn.command})
        call = {"id": call_id, "type": "function", "function": {"name": "bash", "arguments": arguments}}
        messages.append({"role": "assistant", "content": turn.thought, "tool_calls": [call]})
        messages.append({"role": "tool", "tool_call_id": call_id, "content": result.output})
    messages.append({"role": "assistant", "content": script.closing})
    return {
        "id": script.name,
        "messages": messages,
        "tools": [{"type": "function", "function": dict(BASH_TOOL)}],
        "metadata": {"task_id": env.task_id, "workspace_diff": rec.diff},
    }


# ----------------------------------------------------------------------------------- layout


@dataclass
class Example:
    """What :func:`build_example` wrote: environment directories and log files."""

    environments: list[Path]
    logs: list[Path]


def build_example(out: Path) -> Example:
    """Build the three environments under ``out/environments/`` and record the four episodes under
    ``out/traces/<TRACE_DAY>/real_projects/``. Deterministic: the same bytes on every run."""
    environments = {p.name: build_environment(p) for p in PROJECTS}
    env_dirs = [write_environment(env, out / "environments" / env.task_id) for env in environments.values()]
    day = out / "traces" / TRACE_DAY / "real_projects"
    day.mkdir(parents=True, exist_ok=True)
    logs = []
    for script in SCRIPTS:
        rec = record(script, environments[script.project])
        if script.log_format == "swe-agent":
            path = day / f"{script.name}.traj"
            text = json.dumps(swe_agent_traj(rec), indent=1, ensure_ascii=False) + "\n"
        else:
            path = day / f"{script.name}.jsonl"
            text = json.dumps(openai_record(rec), ensure_ascii=False) + "\n"
        path.write_text(text, encoding="utf-8")
        logs.append(path)
    return Example(env_dirs, logs)


@dataclass
class Laid:
    """What :func:`lay_example` did: the registry imports and the log files it wrote or updated."""

    imports: list[ImportResult]
    logs_updated: int


def lay_example(registry: Path, trace_root: Path, progress: Callable[[str], None] | None = None) -> Laid:
    """Build the example, import its environments into ``registry`` (validated there, like any
    brought environment) and lay its logs under ``trace_root/<TRACE_DAY>/real_projects/``.

    Logs whose bytes are unchanged are left alone (their mtimes, and the new-logs sensor, stay put).
    Raises :class:`RealProjectError` when an environment is refused: the shipped example is broken.
    """
    with tempfile.TemporaryDirectory(prefix="tp-real-projects-") as tmp:
        example = build_example(Path(tmp))
        imports = import_environments(example.environments, registry, progress=progress)
        refused = [f"{r.task_id}: {'; '.join(r.reasons)}" for r in imports if r.status == "refused"]
        if refused:
            raise RealProjectError(f"the real-project example's environments were refused: {refused}")
        updated = 0
        for log in example.logs:
            target = trace_root / log.relative_to(Path(tmp) / "traces")
            data = log.read_bytes()
            if target.is_file() and target.read_bytes() == data:
                continue
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_bytes(data)
            updated += 1
    return Laid(imports, updated)
