"""Dedup by normalized action sequence, caps per fixture, P_inform, diversity, and the external anchor.

Curation §The self-improvement loop: a model trained on its own verified outputs loses the tails of
its distribution. Four measures keep the loop healthy, and each is a function here:

- cap samples per fixture (:func:`dedup_and_cap`), so easy fixtures do not dominate a round;
- deduplicate by normalized action sequence (:func:`action_sequence`), so eight near-identical passing
  trajectories count as one;
- keep an anchor of external demonstrations that no round replaces (:func:`refresh_round`);
- track diversity, the number of distinct action sequences per fixture (:func:`fixture_signal`).

Equation 3, :func:`p_inform`, says where the training signal lives: a fixture solved with probability
``p`` yields something new to learn among ``k`` attempts with probability ``1 - (1-p)^k - p^k``.
"""

from __future__ import annotations

import hashlib
import json
import re
import shlex
from collections import defaultdict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import PurePosixPath

from trajectory_platform.curation.candidates import Candidate, EpisodeKeys, Labelled
from trajectory_platform.curation.shell_split import bash_words, is_operator
from trajectory_platform.curation.verify.calls import CallRecord
from trajectory_platform.curation.verify.read_tools import READ_TOOLS
from trajectory_platform.curation.verify.replay import repository_root
from trajectory_platform.curation.verify.sweagent_tools import shell_words
from trajectory_platform.gym.sandbox import SandboxError, workspace_relative
from trajectory_platform.gym.tools import PATH_KEYS_BY_TOOL, reads_only
from trajectory_platform.traces.adapters.mini_swe_agent import SUBMIT_MARKER
from trajectory_platform.traces.drops import Drop
from trajectory_platform.traces.record import Episode, ToolCall, canonical_json

_TMP_PATH = re.compile(r"(?:/private)?/(?:tmp|var/folders)/[^\s\"']*")
_LONG_HEX = re.compile(r"\b[0-9a-f]{12,}\b", re.IGNORECASE)
_PSEUDONYM = re.compile(r"<REDACTED_([A-Z_]+):[0-9a-f]+>")
_SPACE = re.compile(r"\s+")

PATH_KEYS = frozenset(
    {"file_path", "path", "paths", "filename", "file_name", "file", "dir", "directory", "dir_path"}
    | {"absolute_path", "notebook_path", "workdir", "cwd"}
)
"""Argument keys whose values name files or folders for any tool: those of the coding CLIs and agent
scaffolds the adapters read (Claude Code's and Gemini's ``file_path``, SWE-agent's ``file_name`` /
``dir``, Codex's ``workdir``...). A gym tool's own path keys come from its manifests
(:data:`gym.tools.PATH_KEYS_BY_TOOL`: ``cat(name=...)`` after drift), for that tool only."""


def path_keys(tool: str) -> frozenset[str]:
    """The argument keys of ``tool`` (lowercased) whose values are paths."""
    return PATH_KEYS | PATH_KEYS_BY_TOOL.get(tool, frozenset())


def _normal_path(path: str, root: str | None) -> str:
    """One spelling per file: ``calc/ops.py``, ``./calc/ops.py``, ``calc//ops.py``, ``calc/./ops.py/``
    and, where the log records its repository root, ``<root>/calc/ops.py`` all name one file, so
    they are one action. A path inside the workspace is read by the gym's own rule
    (:func:`gym.sandbox.workspace_relative`); any other path (absolute outside the root, or with
    ``..``) only loses repeated slashes and ``.`` components. ``..`` is never resolved and case is
    never folded: after a symbolic link, or on a case-sensitive file system, those name another
    file. A URL (``scheme://``) is not a path and stays as written."""
    text = path.strip()
    if "://" in text:
        return text
    base = root.rstrip("/") if root else None
    if base and (text == base or text.startswith(f"{base}/")):
        text = text[len(base) :].lstrip("/")
    try:
        return workspace_relative(text) or "."
    except SandboxError:
        return PurePosixPath(text).as_posix()


PATH_OPERANDS: dict[str, str] = {
    "cat": "",
    "tac": "s",
    "head": "nc",
    "tail": "ncs",
    "less": "bhjkopxyzPtT",
    "more": "n",
    "wc": "",
    "nl": "bdfhilnsvw",
    "ls": "ITw",
    "stat": "c",
    "file": "efmP",
    "tree": "LIPoHT",
    "du": "dBtX",
    "cd": "",
    "touch": "drt",
    "rm": "",
    "rmdir": "",
    "mkdir": "m",
    "cp": "tS",
    "mv": "tS",
    "diff": "ILxXFSDW",
    "cmp": "inb",
    "pytest": "kmpcorW",
    "md5sum": "",
    "sha256sum": "",
}
"""Programs whose every operand names a file or folder, each with its short options that take a
value (the next word, when not attached to the option): in a shell line running one of them, an
operand spelled another way (:func:`_normal_path`) is the same action."""
SCRIPT_FIRST: dict[str, str] = {
    "grep": "ABCmefdD",
    "egrep": "ABCmefdD",
    "fgrep": "ABCmefdD",
    "rg": "ABCmefgtTMj",
    "sed": "efl",
    "awk": "fvF",
    "gawk": "fvFe",
}
"""Programs whose first operand is a pattern or script and the rest files, with their short options
that take a value; when an option gives the script (:data:`_SCRIPT_OPTIONS`: ``grep -e P``,
``sed -f F``) no operand is read as a path."""
_SCRIPT_OPTIONS = {
    "grep": "ef",
    "egrep": "ef",
    "fgrep": "ef",
    "rg": "ef",
    "sed": "ef",
    "awk": "f",
    "gawk": "fe",
}
RUNS_A_FILE = frozenset({"python", "python3", "bash", "sh"})
"""Interpreters whose first word, when it is no option, is the script file they run (what follows
is the script's own arguments, never read as paths)."""
_PATH_WORD = re.compile(r"[\w.\-+@%,:~/]+")
"""A word that can be a path as written: no blank, quote, backslash, glob or expansion character
(a word with one is a pattern, a script or text, and stays as written)."""
NO_OPS = frozenset({"true", ":", "pwd", "echo", "printf", "sleep", "clear"})
"""Programs that change nothing and show nothing of the workspace (a shell line running one of them
alone, no redirection): padding, not an action (:func:`action_sequence`). mini-swe-agent's
``echo COMPLETE_TASK_AND_SUBMIT_FINAL_OUTPUT`` is its submission, an action."""
NARRATION_KEYS = frozenset({"description", "explanation", "justification", "timeout"})
"""Arguments of a shell call that say what the command is for (Claude Code's ``description``, the
Gemini CLI's, Cursor's ``explanation``, Codex's ``justification``) or how long to wait for it, not
what runs: two calls of one command under other narration are one action."""


def _operands(words: list[str]) -> list[int] | None:
    """The indices of ``words`` (a simple command, program first) that name files, by the program's
    rule (:data:`PATH_OPERANDS`, :data:`SCRIPT_FIRST`, :data:`RUNS_A_FILE`); ``None`` for a program
    none of them knows, or a line whose options this rule does not read (a long option without
    ``=``, which may take the next word; an option giving a script-first program its script)."""
    program = words[0]
    if program in RUNS_A_FILE:
        return [1] if words[1:2] and not words[1].startswith("-") else []
    values = PATH_OPERANDS.get(program, SCRIPT_FIRST.get(program))
    if values is None:
        return None
    scripts = _SCRIPT_OPTIONS.get(program, "")
    operands: list[int] = []
    options, skip = True, False
    for index, word in enumerate(words[1:], start=1):
        if skip:
            skip = False
        elif options and word == "--":
            options = False
        elif options and word.startswith("--"):
            if "=" not in word:
                return None
        elif options and word.startswith("-") and word != "-":
            flags = word[1:]
            if any(flag in scripts for flag in flags):
                return None
            taking = next((i for i, flag in enumerate(flags) if flag in values), None)
            skip = taking == len(flags) - 1
        else:
            operands.append(index)
    return operands[1:] if program in SCRIPT_FIRST else operands


def _normal_command(line: str, root: str | None = None) -> str:
    """A shell command line bash only splits, unquotes and decodes, as its words quoted one way, each
    word naming a file (:func:`_operands`) in its one spelling (:func:`_normal_path`): ``cat 'a'``,
    ``cat "a"``, ``cat  a``, ``cat ./a``, ``cat $'a'``, ``cat "$PWD/a"`` run the same program on the
    same file (``$PWD`` is the shell's folder, which ``./`` names too). A line bash would do more
    with (an expansion, operator, redirection, glob, line break: :func:`shell_words` refuses it)
    stays as written, since there quoting changes what runs."""
    words = shell_words(line, {"PWD": "."})
    if not words:
        return line
    for index in _operands(words) or []:
        if _PATH_WORD.fullmatch(words[index]):
            words[index] = _normal_path(words[index], root)
    return shlex.join(words)


def _normalize_value(
    value: object, root: str | None = None, paths: frozenset[str] = frozenset(), key: str | None = None
) -> object:
    """Erase what differs between runs of the same action: temp dirs, hashes, pseudonyms, spacing,
    and the spelling of a path (under a key in ``paths``, or in a list under one)."""
    if isinstance(value, str):
        text = _normal_path(value, root) if key in paths else value
        text = _PSEUDONYM.sub(r"<REDACTED_\1>", text)
        text = _TMP_PATH.sub("<tmp>", text)
        text = _LONG_HEX.sub("<hex>", text)
        return _SPACE.sub(" ", text).strip()
    if isinstance(value, dict):
        return {str(k): _normalize_value(v, root, paths, str(k)) for k, v in value.items()}
    if isinstance(value, list):
        return [_normalize_value(v, root, paths, key) for v in value]
    return value


READ_PROGRAMS = frozenset(
    {"cat", "head", "tail", "less", "more", "wc", "nl", "tac", "ls", "stat", "file", "tree", "du"}
    | {"grep", "egrep", "fgrep", "rg", "diff", "cmp", "md5sum", "sha256sum", "pytest"}
)
"""Programs that only show the workspace (a shell line running one alone, no write in it)."""
_CLI_READ_TOOLS = frozenset(READ_TOOLS) | {("claude-code", "Read")}
"""The coding CLIs' read tools, by (source format, tool name)."""


@dataclass(frozen=True)
class _Action:
    """One call as dedup compares it: its normalized text, whether it is padding (a shell line
    running only a program of :data:`NO_OPS`, or nothing), and whether it only shows the workspace
    (:func:`_reads_only`)."""

    text: str
    no_op: bool
    reads: bool


_LIST_OPERATORS = frozenset({";", "&&", "||", "|", "&"})
_TO_NOWHERE = {">": ("/dev/null",), ">>": ("/dev/null",), "&>": ("/dev/null",), ">&": ("1", "2")}
"""Redirections that send output nowhere, or to the other stream, by the word that follows."""


def _no_op_line(command: str) -> bool:
    """Whether a shell line only pads: blank, or commands of :data:`NO_OPS` joined by list operators
    or pipes, their output sent nowhere (``true; :``, ``echo ok > /dev/null``). A substitution
    (``$``, a backquote) may run anything, any other redirection writes or reads a file, and
    mini-swe-agent's submission line (:data:`SUBMIT_MARKER`) ends the run: none is padding. A quoted
    operator read as one only splits a line into more commands, each of which must be a no-op."""
    if not command.strip():
        return True
    if "$" in command or "`" in command or SUBMIT_MARKER in command:
        return False
    tokens = bash_words(command)
    if tokens is None:
        return False
    segments: list[list[str]] = [[]]
    index = 0
    while index < len(tokens):
        token = tokens[index]
        if token in _LIST_OPERATORS:
            segments.append([])
        elif token in _TO_NOWHERE:
            if tokens[index + 1 : index + 2] not in ([target] for target in _TO_NOWHERE[token]):
                return False
            index += 1
        elif is_operator(token):
            return False
        else:
            segments[-1].append(token)
        index += 1
    commands = [segment for segment in segments if segment]
    return bool(commands) and all(segment[0] in NO_OPS for segment in commands)


def _reads_only(record: CallRecord, words: list[str] | None, source_format: str | None) -> bool:
    """Whether a call only shows the workspace: a shell line running one of :data:`READ_PROGRAMS`
    with no write in it (:attr:`CallRecord.is_write`), a gym tool whose op reads
    (:func:`gym.tools.reads_only`, in the gym's own logs), or a coding CLI's read tool
    (:data:`_CLI_READ_TOOLS`). Any other call may change something (an API call books, a script
    writes), so it is never read as a repeat."""
    name = record.call.name or ""
    if record.shell_command is not None:
        return bool(words and words[0] in READ_PROGRAMS) and not record.is_write
    if source_format == "native":
        return reads_only(name, record.arguments or {})
    return (source_format, name) in _CLI_READ_TOOLS


def _action(call: ToolCall, root: str | None, source_format: str | None = None) -> _Action:
    """``call`` normalized (:func:`normalize_action`), with what it does (:class:`_Action`)."""
    name = (call.name or "<no-name>").strip().lower()
    raw = call.arguments or ""
    try:
        parsed = json.loads(raw) if raw.strip() else {}
    except json.JSONDecodeError:
        parsed = None
    record = CallRecord(0, call, parsed if isinstance(parsed, dict) else None, None, None, False, None)
    command = record.shell_command
    words = shell_words(command, {"PWD": "."}) if command is not None else None
    no_op = command is not None and _no_op_line(command)
    if parsed is None:
        text = f"{name}(raw:{_normalize_value(_normal_command(raw, root) if command == raw else raw)})"
    else:
        if command is not None and isinstance(parsed, dict):
            parsed = {
                k: _normal_command(v, root) if v is command else v
                for k, v in parsed.items()
                if k not in NARRATION_KEYS
            }
        text = f"{name}({canonical_json(_normalize_value(parsed, root, path_keys(name)))})"
    return _Action(text, no_op, _reads_only(record, words, source_format))


def normalize_action(call: ToolCall, root: str | None = None) -> str:
    """``name(canonical normalized arguments)``; an unparsable argument string is kept, normalized, as text.

    Argument key order never matters (canonical JSON sorts keys); tool names compare case-insensitively;
    a shell command's quoting and the spelling of the files it names (:func:`_normal_command`, for
    the calls that run a shell line: :attr:`CallRecord.shell_command`), a shell call's narration
    (:data:`NARRATION_KEYS`) and a path argument's spelling (:func:`_normal_path`; ``root``: the
    repository root the log records, :func:`replay.repository_root`) do not either.
    """
    return _action(call, root).text


def action_sequence(episode: Episode) -> tuple[str, ...]:
    """What the episode did, in event order: every proposed tool call (refused proposals count: they
    were actions), normalized, except padding: a call that does nothing (:data:`NO_OPS`), and a
    call that only shows the workspace (:func:`_reads_only`) repeating one made since the last call
    that may have changed something (it shows what was shown already). So a run padded with
    no-ops or re-reads is the same sequence as the run."""
    root = repository_root(episode)
    sequence: list[str] = []
    shown: set[str] = set()
    for event in episode.events:
        if event.kind != "assistant":
            continue
        for call in event.tool_calls:
            action = _action(call, root, episode.source_format)
            if action.no_op or (action.reads and action.text in shown):
                continue
            sequence.append(action.text)
            shown = shown | {action.text} if action.reads else set()
    return tuple(sequence)


def sequence_digest(sequence: Sequence[str]) -> str:
    return hashlib.sha256("\n".join(sequence).encode()).hexdigest()


def action_digest(candidate: Labelled) -> str:
    """The digest of a candidate's normalized action sequence: what dedup and diversity compare
    (kept in :class:`EpisodeKeys`, so the split/mixture stage does not hold the actions)."""
    if isinstance(candidate, EpisodeKeys):
        return candidate.action_digest
    return sequence_digest(action_sequence(candidate.episode))


def p_inform(p: float, k: int) -> float:
    """Equation 3: probability that ``k`` attempts at pass rate ``p`` give a mix of passes and failures."""
    if not 0.0 <= p <= 1.0 or k < 1:
        raise ValueError(f"p_inform needs 0 <= p <= 1 and k >= 1, got p={p}, k={k}")
    return 1.0 - (1.0 - p) ** k - p**k


@dataclass(frozen=True)
class FixtureSignal:
    """Per-fixture rollout statistics: pass rate, informativeness, diversity."""

    fixture_id: str
    attempts: int
    passes: int
    pass_rate: float
    p_inform: float
    in_band: bool
    distinct_sequences: int
    distinct_passing_sequences: int


def fixture_signal(candidates: Iterable[Labelled], k: int = 8, band: float = 0.5) -> list[FixtureSignal]:
    """P_inform(p̂, k) per fixture from repeated verified rollouts; ``in_band`` when it reaches ``band``.

    ``p̂`` counts only attempts the oracle decided (admitted vs hard negative); ``k`` is the number of
    attempts the next round plans per fixture. The informative band is where the sampling budget of
    the next round belongs.
    """
    attempts: dict[str, list[Labelled]] = defaultdict(list)
    for candidate in candidates:
        if candidate.fixture_id:
            attempts[candidate.fixture_id].append(candidate)
    signals: list[FixtureSignal] = []
    for fixture_id in sorted(attempts):
        rows = attempts[fixture_id]
        decided = [c for c in rows if c.passed is not None]
        passes = sum(1 for c in decided if c.passed)
        rate = passes / len(decided) if decided else 0.0
        informative = p_inform(rate, k)
        signals.append(
            FixtureSignal(
                fixture_id=fixture_id,
                attempts=len(decided),
                passes=passes,
                pass_rate=rate,
                p_inform=informative,
                in_band=bool(decided) and informative >= band,
                distinct_sequences=len({action_digest(c) for c in rows}),
                distinct_passing_sequences=len({action_digest(c) for c in decided if c.passed}),
            )
        )
    return signals


def _seeded(seed: int, episode_id: str) -> str:
    return hashlib.sha256(f"{seed}:{episode_id}".encode()).hexdigest()


@dataclass(frozen=True)
class Selection:
    """Whether a candidate survived dedup and caps, and the :class:`Drop` saying why not when it did
    not (``duplicate_action_sequence`` or ``fixture_cap``)."""

    episode_id: str
    action_digest: str
    drop: Drop | None = None

    @property
    def kept(self) -> bool:
        return self.drop is None

    @property
    def reason(self) -> str:
        """For a person: why it was dropped (empty when kept)."""
        return self.drop.detail if self.drop is not None else ""


def dedup_and_cap(
    candidates: Sequence[Labelled], cap_per_fixture: int = 4, seed: int = 0, anchors_exempt: bool = True
) -> list[Selection]:
    """Keep one trajectory per (fixture, normalized action sequence), then at most ``cap_per_fixture``.

    Within a duplicate group the anchor wins (external data is never displaced by self-generated
    data), then a seeded hash decides. Anchors are exempt from the cap unless ``anchors_exempt`` is
    off (the preference pool, where an anchor is one more side of a pair, not data to protect). Every
    input gets exactly one :class:`Selection`, in input order, so in = kept + dropped is checkable.
    """
    if cap_per_fixture < 1:
        raise ValueError("cap_per_fixture must be at least 1")
    digests = {c.episode_id: action_digest(c) for c in candidates}
    order = sorted(candidates, key=lambda c: (not c.anchor, _seeded(seed, c.episode_id)))
    representative: dict[tuple[str | None, str], str] = {}
    per_fixture: dict[str | None, int] = defaultdict(int)
    drops: dict[str, Drop | None] = {}
    for candidate in order:
        key = (candidate.fixture_id or candidate.episode_id, digests[candidate.episode_id])
        if key in representative:
            drops[candidate.episode_id] = Drop(
                "duplicate_action_sequence", f"duplicate action sequence of {representative[key]}"
            )
            continue
        representative[key] = candidate.episode_id
        if candidate.anchor and anchors_exempt:
            drops[candidate.episode_id] = None
        elif candidate.fixture_id and per_fixture[candidate.fixture_id] >= cap_per_fixture:
            drops[candidate.episode_id] = Drop(
                "fixture_cap", f"cap of {cap_per_fixture} per fixture reached for {candidate.fixture_id}"
            )
        else:
            per_fixture[candidate.fixture_id] += 1
            drops[candidate.episode_id] = None
    return [Selection(c.episode_id, digests[c.episode_id], drops[c.episode_id]) for c in candidates]


def refresh_round(
    previous: Sequence[Candidate], new_round: Sequence[Candidate]
) -> tuple[list[Candidate], dict]:
    """The corpus for the next round: resampled fixtures replace their stale samples; anchors stay.

    Curation: "resample every fixture in the band with the new policy before each training round";
    the anchor of external demonstrations is never replaced. Returns the corpus and a report of
    what was retired, so nothing leaves silently.
    """
    resampled = {c.fixture_id for c in new_round if c.fixture_id}
    kept: list[Candidate] = []
    retired: list[str] = []
    for candidate in previous:
        if not candidate.anchor and candidate.fixture_id in resampled:
            retired.append(candidate.episode_id)
        else:
            kept.append(candidate)
    corpus = kept + list(new_round)
    report = {
        "retired_stale": retired,
        "kept_previous": len(kept),
        "added": len(new_round),
        "anchors": sum(1 for c in corpus if c.anchor),
    }
    return corpus, report
