"""Replay verification of a log from a brought environment: re-execute what the agent did, compare.

A deployed agent's log claims, turn by turn, what each action printed, and at the end what the
workspace became. For an episode on a brought environment (``fixture.source == "environment"``)
this module re-executes the recorded actions on a fresh S0 in the gym sandbox and checks both
claims, as the environment's :class:`~trajectory_platform.gym.fixtures.ReplaySpec` allows:

- **shell** (``replay.shell``): the recorded shell commands (a ``bash`` / ``execute_bash`` /
  ``run`` ... call with its command under ``command`` / ``cmd`` / ``script``; a text action as
  SWE-agent and mini-swe-agent record it, the command line itself) are run again in order on one
  workspace (:class:`gym.shell.LiveShell`). Calls of the Anthropic-style file editor SWE-agent (>= 1.0) and
  OpenHands use (:data:`EDITOR_TOOLS`: ``view``, ``create``, ``str_replace``, ``insert``,
  ``undo_edit``), with JSON arguments or as the command line SWE-agent 1.0 runs in thought-action
  mode (``str_replace_editor str_replace /repo/x.py --old_str '...' --new_str '...'``: its words
  split as bash splits them, then read with the tool's own argument declarations), are performed
  in the same order on the same workspace, in the sandbox, with the real tool's semantics
  (:class:`gym.shell.EditorCall`); their outputs are the tool's own rendering and are not compared
  (``unchecked_turns``), but a recorded failure (its status, or for a log without one, an answer
  that is not one of the editor's success messages) must be a replayed failure and vice versa, and
  their effect on the files is part of the replayed final state. SWE-agent's pre-1.0 commands
  (``open``, ``goto``, ``scroll_*``, ``create``, ``edit A:B`` ... ``end_of_edit``, ``find_file``,
  ``search_*``: text actions) run in the same sandbox as SWE-agent's own bash functions
  (:mod:`sweagent_commands`); in a SWE-agent 1.0 run (:func:`is_1_0_run`) its file tools, called
  as functions with JSON arguments or as command lines, run as 1.0's windowed library and tools
  (:mod:`sweagent_tools`: the window kept by its first line, ``edit`` by search and replace or by
  line range, ``insert``, ``filemap``). Either way the viewer's state is carried between them and
  their outputs are compared like a shell command's. A call of any other tool (cursor mode's
  ``set_cursors`` among them), a command line bash would expand rather than split, or an editor
  path outside the workspace, cannot be re-executed here: the episode is then not replayable
  (``unsupported_turns``, the calls named in the finding), never silently judged from half its
  actions.
- **tools** (``replay.tools_entry_point``): every recorded call goes to the environment's own tools
  implementation in the sandbox (:func:`gym.shell.run_tool_calls`), shell tools included.
- **none**: nothing is re-executed; the final state is S0 plus the recorded workspace diff, and
  the per-turn observations are ``unverified``.

Each replayed turn's output is compared with the observation that answered the call, both
normalized (:func:`normalize`: line endings, timestamps, durations, hex addresses, PIDs, temp paths,
trailing whitespace, plus the environment's own patterns). The harness framing a log format puts
around an output (mini-swe-agent's ``<returncode>``/``<output>`` tags, SWE-agent's ``OBSERVATION:``
header, state footer and sentence for an empty output) is taken off first, and a recorded exit
code must match too; the one exception is a declared tolerance (:data:`TOLERANCES`: a plain
``ls`` listing compared by its names, since its layout follows the terminal the agent's runtime
had), applied only where its rule says and recorded in the replay data. A refused call never ran
and is not replayed; a call nothing answered is replayed (its effect on the files counts) but
cannot be compared (``unchecked_turns``). A truncated observation is compared by what it shows
(:mod:`clipped`: the head, and the tail where the harness shows one, in a registered clip form).

Agent containers hold the repository at a fixed absolute path and logs use it
(``python3 /testbed/x.py``, ``cd /testbed && pytest``). Where the log records that path
(:func:`repository_root`: SWE-agent's state footer, mini-swe-agent's configured ``cwd``,
OpenHands' recorded ``working_dir``; never a guess), shell mode shows the workspace there too, as
the commands' working directory (:class:`gym.shell.LiveShell`'s ``mount_at``), unless
:func:`gym.isolation.mount_refusal` refuses the path (it would shadow a folder the sandbox mounts
for itself): then the episode replays at ``/workspace`` as before and the replay data's
``recorded_root`` names the refusal's code. A root inside ``/workspace`` itself holds S0 in that
folder of the workspace instead (:func:`inner_folder`; ``inside_workspace``). A replayed shell
output showing the sandbox's own workspace path is compared with it written as the recorded root
(:func:`sweagent_commands.shown`).

:func:`check_replay` is the cascade's use of it: drift sends the episode to ``unverifiable``
(``replay_drift``); a replayed final state that differs from the recorded diff is tamper evidence
(``final_state_mismatch``; files git ignores are left out, as git leaves them out of the diffs it
makes: :func:`final_ignored`, S0's ``.gitignore`` files for what S0 holds, git itself in the
replayed checkout for what the actions added); a replayed file holding bytes that are not UTF-8 is
``final_state_not_text`` (``unverifiable``: no text can state it); otherwise the replayed state,
less the new files git ignores, is the post-image the oracle judges.
Findings and data never hold record text (an observation may hold a secret): turn indices, lengths
and hashes only.
"""

from __future__ import annotations

import functools
import hashlib
import json
import re
import secrets
import shlex
import time
from collections import Counter
from collections.abc import Callable, Collection, Mapping
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

import pathspec

from trajectory_platform.curation.shell_split import bash_words, is_operator
from trajectory_platform.curation.verify.calls import CallRecord, after_cd, call_records
from trajectory_platform.curation.verify.cli_tools import (
    FILE,
    NO_EFFECT,
    READ_FILE,
    SNIPPET_TOOLS,
    UNSUPPORTED,
    CliCall,
    cli_call,
    cli_observation,
    command_session_calls,
    edit_snippet,
    frame_call,
    read_listing,
    session_root,
)
from trajectory_platform.curation.verify.clipped import Shown, shown_parts, shows
from trajectory_platform.curation.verify.context import DiffView, FixtureContext, index_patches
from trajectory_platform.curation.verify.delta import protected_reason
from trajectory_platform.curation.verify.edit_lint import LintUnavailable, introduced, lint, listing
from trajectory_platform.curation.verify.git_history import (
    SHOWS_THE_FILES,
    history_subcommand,
    shown_file_text,
)
from trajectory_platform.curation.verify.gym_context import context_findings, refusal_text_is_the_runtimes
from trajectory_platform.curation.verify.read_tools import OUTPUT, ReadClaims, claims_contradict, listed
from trajectory_platform.curation.verify.shell_session import (
    SESSION,
    in_kept_shell,
    kept_scope,
    pending_exit_handler,
    session_end,
    shown_folders,
)
from trajectory_platform.curation.verify.sweagent_commands import (
    UNORDERED,
    Report,
    Setting,
    WindowState,
    command_name,
    command_script,
    edit_rejected,
    recorded_root,
    recorded_viewer,
    shown,
    split_report,
    unknown_footer_path,
)
from trajectory_platform.curation.verify.sweagent_tools import (
    EDITOR_FILE_VIEW,
    ONLY_1_0,
    SEARCH,
    WINDOWED,
    Invocation,
    banner_free,
    editor_arguments,
    editor_failed,
    invocation,
    refusal,
    tool_script,
    without_retry_token,
)
from trajectory_platform.curation.verify.verdicts import Finding, StageVerdict
from trajectory_platform.curation.verify.volatile import Span, pair, pair_any_order
from trajectory_platform.gym import isolation
from trajectory_platform.gym.diffs import PatchError, parse_unified_diff
from trajectory_platform.gym.fixtures import Fixture, ReplaySpec
from trajectory_platform.gym.runtime import (
    delivered_tags,
    dispatched_calls,
    recorded_config,
    recorded_faults,
    refusal_reason,
    replay_calls,
)
from trajectory_platform.gym.sandbox import SandboxError, Workspace, apply_diff, not_text, unified_diff
from trajectory_platform.gym.shell import (
    GIT_DIR,
    OUTPUT_LIMIT_BYTES,
    Action,
    EditorCall,
    FileToolCall,
    Fingerprint,
    LiveShell,
    ReplayRunError,
    collect_files,
    fingerprints,
    first_change,
    run_tool_calls,
)
from trajectory_platform.gym.tools import drifted
from trajectory_platform.traces.adapters.mini_swe_agent import SUBMIT_MARKER
from trajectory_platform.traces.record import Episode, Event, ToolCall

EDITOR_ABBREVIATED = "This file is too large to display entirely. Showing abbreviated version."
"""How SWE-agent's editor heads a large file's view it abbreviated (elided bodies)."""
EDITOR_TOOLS = ("str_replace_editor", "str_replace_based_edit_tool")
"""Tool names of the Anthropic-style file editor (SWE-agent's ``edit_anthropic`` bundle, OpenHands'
``str_replace_editor``, Anthropic's text editor tool): replayed as edits, not as shell lines."""
EDITOR_STATUSES = ("ok", "error", "truncated")
"""Recorded statuses that say whether an editor call failed (``truncated``: it printed, so it ran)."""
NON_ACTIONS = ("finish", "submit", "think", "task_complete")
"""Calls that end or annotate an episode without acting on the workspace (unless the
environment's own tool manifest declares a tool of that name)."""
OBSERVATIONS = ("verified", "drift", "unverified")
_CLOCK = r"\d{1,2}:\d{2}:\d{2}(?:[.,]\d+)?"
_ISO = r"\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}(?::\d{2}(?:[.,]\d+)?)?(?:Z|[+-]\d{2}:?\d{2})?"
_STAMP = rf"(?:{_ISO}|{_CLOCK})"
_SECONDS = r"\d+(?:\.\d+)? ?(?:ms|us|µs|ns|s|sec|secs|seconds)"
_MONTH = r"(?:Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Oct|Nov|Dec)"
DEFAULT_NORMALIZE: tuple[tuple[str, str], ...] = (
    (rf"(?m)^([\[(]?)(?>{_STAMP})(?=[\])]?[ \t,|:-]+\S)", r"\1<TIME>"),
    (
        r"(?m)^(.*\b(?:passed|failed|errors?|skipped|xfailed|xpassed|warnings?|deselected|no tests ran)\b"
        rf".*? in ){_SECONDS}(?: \({_CLOCK}\))?(?=(?: =+)?[ \t]*$)",
        r"\1<DURATION>",
    ),
    (rf"(?m)^(Ran \d+ tests? in ){_SECONDS}[ \t]*$", r"\1<DURATION>"),
    (r"(?m)^((?:real|user|sys)[ \t]+)\d+m\d+(?:\.\d+)?s[ \t]*$", r"\1<DURATION>"),
    (rf"(?im)^(.*\belapsed(?: time)?[ \t]*[:=]?[ \t]*){_SECONDS}\b", r"\1<DURATION>"),
    (
        rf"(?m)^([-dlcbps][-rwxsStT]{{9}}[.+@]?[ \t].*?[ \t])"
        rf"{_MONTH} +\d{{1,2}} +(?:\d{{1,2}}:\d{{2}}|\d{{4}})\b",
        r"\1<DATE>",
    ),
    (r"\bat 0x[0-9a-fA-F]+\b", "at <ADDR>"),
    (r"\b0x[0-9a-fA-F]{12,16}\b", "<ADDR>"),
    (r"\b(?i:pid)\b[ =:]*\d+", "pid <PID>"),
    (r"/tmp/[\w.\-/]+", "<TMP>"),
    (r"(?m)^bash: line \d+: ", "bash: "),
    (r"(?m)^index ([0-9a-f]{7})[0-9a-f]*\.\.([0-9a-f]{7})[0-9a-f]*", r"index \1..\2"),
    (r"(?m)^On branch \S+$", "On branch <BRANCH>"),
)
"""Spans that differ between two honest runs of the same command: (pattern, placeholder). The last
is the shell's, not the run's: ``bash -c`` names the script line in an error an interactive shell
reports without it.

A time is told by its PLACE, never by its shape: a date-time or clock heading a line that goes
on (a log line's stamp, optionally in brackets; a line that is only a date-time is a value), the
duration a test runner prints after its counts (pytest's ``2 passed in 0.01s (0:00:00)``,
unittest's ``Ran 2 tests in 0.001s``), ``time``'s ``real``/``user``/``sys`` lines, an ``elapsed``
report, and the modification date of an ``ls -l`` line. Any number with a time unit, any clock
and any ISO date anywhere were erased before, so a value the program computes and prints with a
unit (a latency ``17 ms``, a scheduled ``09:30:00``) was never compared: a red team recorded
``23 ms`` where the buggy code printed ``17 ms`` and replay called it verified
(2026-12-06).

A memory address is told by its place or its width, never by being hex: the address in an object's
repr (``<Foo object at 0x7f...>``), or a value of pointer width (12 to 16 digits: a 64-bit user or
kernel address, zero-padded or not). Any ``0x`` run of 4 or more digits was erased before, and hex
is a program's output as often as noise (a hash, a colour, ``hex(add(...))``): a red team recorded
the fixed answer ``0x12345`` where the buggy code printed ``0xdcbb``, and replay called it verified
(2026-12-06).

A ``git diff``'s ``index`` line names the blobs before and after by abbreviated hashes, which are
the same wherever the content is (a blob's hash is its content's), but abbreviated to a length git
picks by the repository's size: 7 digits in the replay's one-commit checkout, 10 to 12 in a large
project's. Both are cut to their first 7 digits, so the content claim is still compared. The
branch ``git status`` names is the agent's repository's (``master``, ``main``, ``dev``), not
something the actions made.
(:meth:`gym.shell.LiveShell.make_checkout`: the replay's workspace is a checkout, as the agent's
was.)"""
_DEFAULT = tuple((re.compile(p), r) for p, r in DEFAULT_NORMALIZE)
TOLERANCES = ("ls_names", "ls_long")
"""Comparison tolerances replay declares, each applied only where its rule says and recorded by
name with its turns in the replay data (``tolerated``); a turn outside them is compared exactly.

``ls_names``: a plain ``ls`` listing (:func:`plain_listing`) printed in its default format
matches when it lists the same names, each as often, in any layout and order, directory by
directory (:func:`listing_blocks`: a listing of several directories, or ``ls -R``, heads each
block with its ``DIR:`` line; a red team moved a file from ``calc/`` to ``tests/`` when the headers
were compared as one more name, 2026-12-06). ``ls`` lays its
default listing out for where its output goes: columns as wide as a terminal is (SWE-agent 1.0's
runtime, SWE-ReX, runs commands on a pseudo-terminal of pexpect's default 80 columns; OpenHands on
a wider tmux pane), one name a line into a pipe (replay's sandbox, mini-swe-agent's subprocess),
sorted by the container's locale. A name added, dropped or renamed still drifts, as does a
different exit code.

``ls_long``: one ``ls`` printing a long listing (:func:`long_listing`: ``-l``, ``-n``, ``-g``,
``-o``) matches when each block lists the same entries (:func:`long_entries`: the kind, the
permission bits S0 decides, the name, and a regular file's size), in any order; other lines (an
error) are compared exactly. The columns left out are the container's, not the files': owner and
group, one word each (the agent's ``root``, the sandbox's unnamed uid), link counts and sizes of
folders (a disk's 4096 against a memory file system's), the ``total`` of blocks, the dates (the
replay wrote the files now), the column widths and order (``-t`` sorts by those dates)."""
LISTING_FORMATS = frozenset("lgno1mxC")
"""``ls``'s short options that choose its layout (long, one a line, commas, columns): the
tolerance covers only the default layout, the one ``ls`` picks by where its output goes; a listing
whose command chose one is compared exactly (as is one with ``--format``)."""
_MINI_FRAME = re.compile(r"\A\s*<returncode>(-?\d+)</returncode>\s*<output>\n?(.*)</output>\s*\Z", re.DOTALL)
_SWE_AGENT_FOOTER = re.compile(
    r"\n*\(Open file: (?:n/a|/[\w.@+/-]*)\)\n\(Current directory: /[\w.@+/-]*\)\n?(?:bash-\$)?\s*\Z"
)
"""SWE-agent's state footer, stripped: each field one absolute path (or ``n/a``), never free text (an
instruction there was replay-verified: red team rtforge9 F10); a footer of another shape stays in
the compared text."""
_NAME = re.compile(r"[A-Za-z_][\w.\-]{0,63}")
_SWE_AGENT_HEADER = re.compile(r"\AOBSERVATION:\n")
SWE_AGENT_NO_OUTPUT = "Your command ran successfully and did not produce any output."
"""What SWE-agent's ``next_step_no_output_template`` shows for a command that printed nothing."""


@dataclass(frozen=True)
class TurnDrift:
    """One turn whose replayed output differs from its recorded observation (sizes and hashes of
    the normalized texts, never the texts)."""

    turn: int
    recorded_chars: int
    replayed_chars: int
    recorded_sha256: str
    replayed_sha256: str
    recorded_exit: int | None = None
    replayed_exit: int | None = None
    recorded_status: str | None = None
    replayed_status: str | None = None
    """For an editor call, whose output is not compared: ``ok`` / ``error`` as recorded and replayed."""

    def as_dict(self) -> dict[str, Any]:
        return {k: v for k, v in self.__dict__.items() if v is not None}


@dataclass
class ReplayResult:
    """What re-executing one episode showed.

    ``observations``: ``verified`` (every replayed turn matched its observation, exactly or under a
    declared tolerance: ``tolerated``), ``drift`` (some did not: ``drift_turns``, the assistant
    event indices) or ``unverified`` (nothing was re-executed, or some replayed turn had no
    comparable observation, or the episode could not be replayed: ``unsupported_turns`` /
    ``error``). ``final_files`` is the workspace after the last replayed action (mode ``none``: S0
    plus the recorded diff), ``None`` when not replayed.
    """

    mode: str
    turns_replayed: int
    drift_turns: list[int]
    final_files: dict[str, str] | None
    observations: str
    wall_s: float
    unchecked_turns: list[int] = field(default_factory=list)
    unsupported_turns: list[int] = field(default_factory=list)
    drift: list[TurnDrift] = field(default_factory=list)
    error: str | None = None
    tolerated: dict[str, list[int]] = field(default_factory=dict)
    """The turns whose output matched only under a declared tolerance (:data:`TOLERANCES`), by
    tolerance: verified, and said so."""
    recorded_root: str | None = None
    """For a log that records its repository root (:func:`repository_root`): ``mounted`` when the
    sandbox showed the workspace there too, ``inside_workspace`` when S0 was placed there inside
    the workspace folder (:func:`inner_folder`), else why it refused to
    (:data:`gym.isolation.MOUNT_REFUSALS`; the path itself is record text and is not kept)."""
    kept_folder: bool = False
    """Whether shell mode ran each line from the folder the previous one left, as the agent's shell
    kept it (:func:`.shell_session.keeps_folder`), rather than from the repository's root."""
    exit_codes: list[tuple[Event, int]] = field(default_factory=list, repr=False)
    """Each replayed shell observation with the exit code its command had in the sandbox."""
    unreplayed_answers: list[int] = field(default_factory=list)
    """The event indices of the answers to calls replay did not re-run (a coding CLI's tools that
    change nothing, whose answer no convention reads) or re-ran without re-deriving what they
    print (a read of the agent's repository history, :mod:`.git_history`), and every answer no
    re-executed action accounts for (:func:`_stray_answers`): their status and text are the log's
    word alone, so they are never evidence of a fault or of its repair
    (:func:`roles.label_admitted`)."""
    verified_answers: list[int] = field(default_factory=list)
    """The event indices of the answers whose output (and exit code, status) replay re-derived and
    found as recorded: the only observations whose words are measured rather than the log's own
    (triage reads runtime and missing-file evidence off these alone, :mod:`.triage`)."""
    protected_writes: list[tuple[int, str]] = field(default_factory=list)
    """Each call (its turn) that changed a protected path (:func:`.delta.protected_reason`), with
    the first such path: measured in the sandbox after every replayed call
    (:func:`gym.shell.fingerprints`: content, kind, link count, permission bits, inode and change
    time), so a write undone later, or inside the same command, counts, by whatever command it was
    made (:func:`check_replay`: ``attempted_protected_write``)."""
    ignored_new: frozenset[str] | None = field(default=None, repr=False)
    """The files S0 lacks that git ignored in the replayed checkout after the last action, as git
    itself answered there (:meth:`gym.shell.LiveShell.ignored_files`: every ignore rule git
    honours, those the actions wrote included); ``None`` where it was not asked (no new file, a
    mode without a checkout) or could not say: then S0's own ``.gitignore`` files decide
    (:func:`final_ignored`)."""
    writes_measured: bool = False
    """Whether every replayed call's writes were measured (shell or tools mode, run to its end): the delta
    audit then reads no call's words for writes but those replay did not run
    (:func:`.delta.screen_diff`)."""

    def establish_exit_codes(self) -> int:
        """Give observations the log left without a status the exit code replay measured.

        OpenAI-style tool messages carry no status, so a failed command there looks like any other
        observation and a recovery would be labelled pristine. Once replay has shown that the
        recorded output is what the command really prints, its exit code is a verified fact of the
        episode: an observation with no status gets ``exit_code`` and ``error`` / ``ok`` from it.
        Returns how many observations were given a status.
        """
        given = 0
        for answer, code in self.exit_codes:
            if answer.status is None and answer.exit_code is None:
                answer.exit_code = code
                answer.status = "ok" if code == 0 else "error"
                given += 1
        return given

    def data(self) -> dict[str, Any]:
        """The stage verdict's record of the replay (deterministic: no timings, no record text)."""
        data: dict[str, Any] = {
            "mode": self.mode,
            "observations": self.observations,
            "turns_replayed": self.turns_replayed,
            "drift_turns": self.drift_turns,
        }
        if self.unchecked_turns:
            data["unchecked_turns"] = self.unchecked_turns
        if self.unsupported_turns:
            data["unsupported_turns"] = self.unsupported_turns
        if self.drift:
            data["drift"] = [d.as_dict() for d in self.drift]
        if self.error:
            data["error"] = self.error
        if self.tolerated:
            data["tolerated"] = {name: self.tolerated[name] for name in sorted(self.tolerated)}
        if self.recorded_root:
            data["recorded_root"] = self.recorded_root
        if self.kept_folder:
            data["kept_folder"] = True
        if self.unreplayed_answers:
            data["unreplayed_answers"] = self.unreplayed_answers
        if self.verified_answers:
            data["verified_answers"] = self.verified_answers
        if self.protected_writes:
            data["protected_write_turns"] = sorted({turn for turn, _ in self.protected_writes})
        if self.writes_measured:
            data["writes_measured"] = True
        return data


def replay_mode(spec: ReplaySpec | None) -> str:
    """``tools`` when the environment brings its tools implementation, else ``shell`` when its shell
    commands may be re-run, else ``none``."""
    if spec is not None and spec.tools_entry_point:
        return "tools"
    return "shell" if spec is not None and spec.shell else "none"


def normalize(text: str, patterns: tuple[str, ...] = ()) -> str:
    """``text`` with the spans that honestly differ between runs replaced by placeholders."""
    return erased(text, patterns)[0]


def erased(text: str, patterns: tuple[str, ...] = ()) -> tuple[str, list[Span]]:
    """:func:`normalize`'s text and, in order, each span a default rule erased
    (:class:`volatile.Span`), for :mod:`volatile` to pair with the other run's."""
    spans: list[Span] = []

    def erase(match: re.Match[str], placeholder: str) -> str:
        edges = not match.string[: match.start()].strip(), not match.string[match.end() :].strip()
        spans.append(Span(placeholder, match.group(0), *edges))
        return match.expand(placeholder)

    text = text.replace("\r\n", "\n").replace("\r", "\n")
    for pattern, placeholder in _DEFAULT:
        text = pattern.sub(functools.partial(erase, placeholder=placeholder), text)
    for extra in patterns:
        text = re.sub(extra, "<N>", text)
    return "\n".join(line.rstrip() for line in text.split("\n")).strip("\n"), spans


def volatile_agree(recorded: str, replayed: str, patterns: tuple[str, ...] = ()) -> bool:
    """Whether the spans :func:`normalize` erases in a recorded output pair one for one with those it
    erases in the replayed output (:func:`volatile.pair`: as many, in the same order, by the same
    rule, each pair values that rule lets differ between runs). Erasing a shape anywhere let a
    forged answer carry any text in it (``/tmp/NOTE_TO_AGENTS...`` where the program printed
    ``/tmp/x``, a computed ``23`` in ``/tmp/result-23.txt``) and still be replay-verified (red team
    rtforge9 F6, 2026-12-06); a literal placeholder in a recorded answer no longer matches an erased
    span either."""
    return pair(erased(recorded, patterns)[1], erased(replayed, patterns)[1])


def same_output(recorded: str, replayed: str, patterns: tuple[str, ...] = ()) -> bool:
    """Whether a recorded text stands for a replayed one: equal once normalized, every erased span
    paired (:func:`volatile_agree`). The one comparison of two runs' texts; a text normalized on its
    own is evidence of nothing in the spans it erased."""
    (ours, our_spans), (theirs, their_spans) = erased(recorded, patterns), erased(replayed, patterns)
    return ours == theirs and pair(our_spans, their_spans)


def compile_patterns(patterns: tuple[str, ...]) -> None:
    """Raise :class:`ValueError` naming the first of an environment's patterns that does not compile."""
    for pattern in patterns:
        try:
            re.compile(pattern)
        except re.error as exc:
            raise ValueError(f"replay.normalize pattern {pattern!r}: {exc}") from exc


def recorded_observation(event: Event) -> tuple[str, int | None]:
    """The output an observation records, without its log format's framing, and its exit code.

    SWE-agent frames an output with its ``next_step_template`` (``OBSERVATION:`` in >= 1.0, a state
    footer before) and shows a fixed sentence for an empty one; mini-swe-agent wraps it in tags;
    the coding CLIs have framings of their own (:func:`cli_tools.cli_observation`)."""
    text = event.content or ""
    framed = _MINI_FRAME.match(text)
    if framed:
        return framed.group(2), int(framed.group(1))
    if (unframed := cli_observation(text, event.status == "error")) is not None:
        return unframed
    text = _SWE_AGENT_HEADER.sub("", _SWE_AGENT_FOOTER.sub("", text))
    return ("" if text.strip() == SWE_AGENT_NO_OUTPUT else text), event.exit_code


def simple_command_words(command: str) -> list[str] | None:
    """The words of ``command`` when it is one simple command, optionally after ``cd DIR &&``
    (bash's splitting, quotes removed), else ``None``: a pipe, a redirection, a list of commands, a
    substitution or a line break makes it more than one program's run, which neither a listing's
    tolerance nor a program's exit status may be read from."""
    line = command.strip()
    if "\n" in line or "`" in line or "$(" in line:
        return None
    split = bash_words(line)
    if split is None:
        return None
    words = after_cd(split)
    if not words or any(is_operator(word) for word in words):
        return None
    return words


def plain_listing(command: str) -> bool:
    """Whether ``command`` is one ``ls`` writing its default-format listing straight to the
    output (:data:`TOLERANCES`' ``ls_names``): optionally after ``cd DIR &&``, no pipe,
    redirection, other command or substitution, and no option that chooses the layout
    (:data:`LISTING_FORMATS`, ``--format``)."""
    words = simple_command_words(command)
    if words is None or words[:1] != ["ls"]:
        return False
    options = True
    for word in words[1:]:
        options = options and word != "--"
        if options and _fixes_layout(word):
            return False
    return True


def _fixes_layout(word: str) -> bool:
    """Whether an ``ls`` argument is an option that chooses the listing's layout."""
    if word.startswith("--"):
        return word.startswith("--format")
    return word.startswith("-") and bool(set(word[1:]) & LISTING_FORMATS)


def _tolerance(record: CallRecord, recorded: str, replayed: str, patterns: tuple[str, ...]) -> str | None:
    """The declared tolerance (:data:`TOLERANCES`) under which a shell turn's differing output
    matches the recorded one, or ``None``."""
    command = record.shell_command
    if command is None:
        return None
    (ours, our_spans), (theirs, their_spans) = erased(recorded, patterns), erased(replayed, patterns)
    if not pair_any_order(our_spans, their_spans):
        return None  # a listing's erased spans pair in any order, but pair (a temp name, a date)
    if plain_listing(command):
        return "ls_names" if listing_blocks(ours) == listing_blocks(theirs) else None
    if long_listing(command):
        return "ls_long" if long_entries(ours) == long_entries(theirs) else None
    return None


LONG_FORMATS = frozenset("lngo")
"""``ls``'s short options that print a long listing (:data:`TOLERANCES`' ``ls_long``)."""
_LONG_ENTRY = re.compile(r"([-dlcbps])([-rwxsStT]{9})[.+@]? +\d+ +(?:\S+ +){0,2}?(\S+) +<(?:DATE|TIME)> (.*)")
"""A long listing's entry line: kind, permission bits, link count, owner and group (each one word,
either or both left out by ``-g`` / ``-o``), size, date, name. The owner and group were matched
by any text, so an instruction stood there in a verified answer (red team rtforge9, 2026-12-06)."""
_NOT_FROM_S0 = str.maketrans({"x": "-", "s": "S", "t": "T"})
"""Permission bits as replay can know them: S0 is text without modes, so whether a file may be
executed is the agent's checkout's (``x`` and ``-`` read alike); read, write, set-id and sticky
bits are compared (a file shown world-writable, or set-uid, that the checkout never made so)."""


def long_listing(command: str) -> bool:
    """Whether ``command`` is one ``ls`` printing a long listing (an option of
    :data:`LONG_FORMATS`) straight to the output: optionally after ``cd DIR &&``, no pipe,
    redirection, other command or substitution."""
    words = simple_command_words(command)
    if words is None or words[:1] != ["ls"]:
        return False
    options = words[1 : words.index("--")] if "--" in words else words[1:]
    return any(w.startswith("-") and not w.startswith("--") and set(w[1:]) & LONG_FORMATS for w in options)


def long_entries(listing: str) -> list[tuple[str, tuple[str, ...]]]:
    """A long listing's blocks (:func:`listing_blocks`' headers), each as its lines sorted, an
    entry line (:data:`_LONG_ENTRY`, dates already normalized) written as its kind, its permission
    bits as far as S0 decides them (:data:`_NOT_FROM_S0`; not for ``.`` and ``..``: the folder the
    sandbox made and its parent are the container's), its name and, for a regular file, its size;
    the ``total`` line left out."""
    blocks = []
    for block in re.split(r"\n\s*\n", listing.strip()):
        lines = block.strip().split("\n")
        header = lines[0] if lines[0].endswith(":") else ""
        kept = []
        for line in lines[1:] if header else lines:
            if re.fullmatch(r"total \S+", line.strip()):
                continue
            entry = _LONG_ENTRY.fullmatch(line.strip())
            if entry is None:
                kept.append(line)
            else:
                kind, bits, size, name = entry.groups()
                bits = "" if name in (".", "..") else bits.translate(_NOT_FROM_S0)
                kept.append(f"{kind}{bits} {name} {size if kind == '-' else ''}")
        blocks.append((header, tuple(sorted(kept))))
    return sorted(blocks)


def listing_blocks(listing: str) -> list[tuple[str, tuple[str, ...]]]:
    """A listing's blocks, each as (its ``DIR:`` header, or empty for the operands ``ls`` lists
    first; its names, sorted), in sorted order: ``ls`` separates the blocks of several directories
    by a blank line and heads each with the directory's name and a colon, whatever the layout of
    the names inside it. Blocks are sorted since the container's locale ordered the operands."""
    blocks = []
    for block in re.split(r"\n\s*\n", listing.strip()):
        lines = block.strip().split("\n")
        header = lines[0] if lines[0].endswith(":") else ""
        names = lines[1:] if header else lines
        blocks.append((header, tuple(sorted(" ".join(names).split()))))
    return sorted(blocks)


def is_editor(record: CallRecord) -> bool:
    """Whether the call is one of the file editor's (:data:`EDITOR_TOOLS`): with JSON arguments,
    or a thought-action line naming it, as SWE-agent 1.0 records its ``edit_anthropic`` bundle
    outside function-calling mode."""
    name = (record.call.name or "").lower()
    raw = record.call.arguments or ""
    if name not in EDITOR_TOOLS:
        return False
    if record.arguments is not None and raw.strip().startswith("{"):
        return isinstance(record.arguments.get("command"), str)
    return raw.split(maxsplit=1)[:1] == [record.call.name]


def editor_call(record: CallRecord, root: str | None = None) -> EditorCall | str | None:
    """What replay runs for an editor call (:func:`is_editor`), or ``None`` when it cannot.

    JSON arguments are the call's; a thought-action line's words (split as SWE-agent's bash split
    them) go through the tool's own argument declarations (:func:`sweagent_tools.editor_arguments`).
    A line the tool's parser refuses never reached the editor: it is replayed as that refusal, a
    shell line printing the parser's complaint and exiting 2 as argparse does, touching nothing.
    ``root`` is the repository root the log shows, a name of the workspace like
    :data:`gym.shell.EDITOR_ROOTS`."""
    if not is_editor(record):
        return None
    roots = (root,) if root else ()
    raw = record.call.arguments or ""
    if record.arguments is not None and raw.strip().startswith("{"):
        return EditorCall(record.arguments, roots)
    arguments = editor_arguments(raw)
    if isinstance(arguments, str):
        return f"echo {shlex.quote(f'str_replace_editor: error: {arguments}')} >&2; exit 2"
    return EditorCall(arguments, roots) if arguments is not None else None


def sweagent_line(record: CallRecord) -> str | None:
    """The action line of one of SWE-agent's pre-1.0 commands (a text action naming one of
    :data:`sweagent_commands.COMMANDS`), or ``None``."""
    raw = record.call.arguments or ""
    if raw.strip().startswith("{") or command_name(raw) != record.call.name:
        return None
    return raw


def is_1_0_run(episode: Episode, records: list[CallRecord]) -> bool:
    """Whether the episode ran SWE-agent 1.0's file tools (:mod:`sweagent_tools`) rather than the
    pre-1.0 commands: a SWE-agent log calling one of them as a function (function calling came
    with 1.0), or a text action naming a command only 1.0 has (``insert``, ``filemap``). A 1.0 run
    in thought-action mode that uses neither reads as pre-1.0 (the logs do not say which)."""
    for record in records:
        name, raw = record.call.name or "", (record.call.arguments or "").strip()
        if raw.startswith("{"):
            if episode.source_format == "swe-agent" and name in (*WINDOWED, *SEARCH):
                return True
        elif name in ONLY_1_0 and raw.split(maxsplit=1)[:1] == [name]:
            return True
    return False


Viewer = str | Invocation
"""A call of SWE-agent's file viewer: a pre-1.0 command line, or a 1.0 tool call."""


def viewer_call(record: CallRecord, modern: bool) -> Viewer | None:
    """The call as one of SWE-agent's viewer commands, or ``None``: in a 1.0 run
    (:func:`is_1_0_run`) its tools' calls, JSON or text (a search command as the pre-1.0 line it
    still is); otherwise a pre-1.0 command line."""
    if modern:
        raw = record.call.arguments or ""
        is_json = record.arguments is not None and raw.strip().startswith("{")
        call = invocation(record.call.name or "", raw, record.arguments if is_json else None)
        if call is not None:
            return call.search_line() if call.name in SEARCH else call
        if is_json or record.call.name in (*WINDOWED, *SEARCH):
            return None
    return sweagent_line(record)


def _digest(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()[:16]


def _drift(
    turn: int,
    recorded_output: tuple[str, int | None],
    output: str,
    exit_code: int | None,
    patterns: tuple[str, ...],
    any_order: bool = False,
) -> TurnDrift | None:
    """How a replayed output differs from the recorded one (:func:`recorded_observation`: text and
    exit code), or ``None`` (``any_order``: the output lists lines in an order only the file system
    fixed)."""
    recorded_text, recorded_exit = recorded_output
    if any_order:
        recorded_text, output = (_in_order(text, patterns) for text in (recorded_text, output))
    (recorded, ours), (replayed, theirs) = erased(recorded_text, patterns), erased(output, patterns)
    if recorded == replayed and pair(ours, theirs) and not _exit_differs(recorded_exit, exit_code):
        return None
    return _turn_drift(turn, recorded, replayed, recorded_exit, exit_code)


def _in_order(text: str, patterns: tuple[str, ...]) -> str:
    """A listing's lines in a fixed order (by their normalized text), for commands whose order is
    the file system's: each line keeps its own values for :func:`volatile_agree` to pair."""
    lines = text.replace("\r\n", "\n").replace("\r", "\n").split("\n")
    return "\n".join(sorted(lines, key=lambda line: normalize(line, patterns)))


def _exit_differs(recorded_exit: int | None, exit_code: int | None) -> bool:
    """Whether both exit codes are known and differ."""
    return recorded_exit is not None and exit_code is not None and recorded_exit != exit_code


def _turn_drift(
    turn: int, recorded: str, replayed: str, recorded_exit: int | None, exit_code: int | None
) -> TurnDrift:
    """The drift of a turn whose normalized outputs (or exit codes, where both are known) differ:
    sizes and digests, never the text."""
    differs = _exit_differs(recorded_exit, exit_code)
    return TurnDrift(
        turn,
        len(recorded),
        len(replayed),
        _digest(recorded),
        _digest(replayed),
        recorded_exit if differs else None,
        exit_code if differs else None,
    )


def _known_paths(files: Collection[str]) -> frozenset[str]:
    """The files and folders (root-relative) that ``files`` hold: what a state footer may name."""
    return frozenset(path.rsplit("/", depth)[0] for path in files for depth in range(path.count("/") + 1))


def _named_text(records: list[CallRecord]) -> str:
    """Every call's command and arguments as one text: the paths the agent itself named."""
    return "\n".join(f"{record.shell_command or ''}\n{json.dumps(record.arguments)}" for record in records)


def _clipped_drift(
    turn: int,
    clip: Shown,
    recorded_output: tuple[str, int | None],
    output: str,
    exit_code: int | None,
    patterns: tuple[str, ...],
) -> TurnDrift | None:
    """How a truncated answer (:func:`clipped.shown_parts`) contradicts the replayed output, or
    ``None``: the head and tail it shows must be the output's (:func:`clipped.shows`) and the exit
    code its framing or the log records, if any, the replayed one. A truncated answer was not
    compared at all before, on the log's own word that it was truncated (red team, 2026-12-06)."""
    recorded_exit = clip.exit_code if clip.exit_code is not None else recorded_output[1]
    if shows(clip, output, lambda text: erased(text, patterns)) and not _exit_differs(
        recorded_exit, exit_code
    ):
        return None
    return _turn_drift(
        turn, normalize(recorded_output[0], patterns), normalize(output, patterns), recorded_exit, exit_code
    )


def _status_drift(
    turn: int,
    answer: Event,
    output: str,
    failed: tuple[bool, bool],
    patterns: tuple[str, ...],
) -> TurnDrift | None:
    """An edit whose recorded outcome (``failed``: recorded, replayed) is not what replay showed,
    or ``None``."""
    recorded_failed, replayed_failed = failed
    if recorded_failed == replayed_failed:
        return None
    recorded, replayed = normalize(recorded_observation(answer)[0], patterns), normalize(output, patterns)
    return TurnDrift(
        turn,
        len(recorded),
        len(replayed),
        _digest(recorded),
        _digest(replayed),
        recorded_status="error" if recorded_failed else "ok",
        replayed_status="error" if replayed_failed else "ok",
    )


def _actions(
    records: list[CallRecord], fixture: Fixture, mode: str, modern: bool, cli: dict[int, CliCall]
) -> tuple[list[CallRecord], list[int], list[CallRecord]]:
    """The calls to re-execute, in order, the turns of calls this mode cannot re-execute, and those
    of a coding CLI's calls that change nothing in the repository (``cli``:
    :func:`cli_tools.cli_call` by the ``id`` of the episode's call, since one turn may make several
    calls): not re-run, nothing to compare."""
    declared = {str(tool.get("name")) for tool in fixture.tools or []}
    actions: list[CallRecord] = []
    unsupported: list[int] = []
    skipped: list[CallRecord] = []
    for record in records:
        name = record.call.name or ""
        if record.refused or (name.lower() in NON_ACTIONS and name not in declared):
            continue
        if (known := cli.get(id(record.call))) is not None:
            if known.kind == NO_EFFECT:
                skipped.append(record)
            elif known.kind == UNSUPPORTED:
                unsupported.append(record.turn)
            else:
                actions.append(record)
            continue
        if mode == "tools":
            if record.arguments is None:
                unsupported.append(record.turn)
            else:
                actions.append(record)
            continue
        if is_editor(record):
            if editor_call(record) is None:
                unsupported.append(record.turn)
            else:
                actions.append(record)
            continue
        if viewer_call(record, modern) is not None:
            actions.append(record)
            continue
        command = record.shell_command
        if command is None or (modern and name in (*WINDOWED, *SEARCH)):
            unsupported.append(record.turn)
        elif not command.lstrip().startswith(f"echo {SUBMIT_MARKER}"):
            actions.append(record)
    return actions, sorted(set(unsupported)), skipped


def replay_gym_episode(episode: Episode, fixture: Fixture) -> ReplayResult:
    """Re-execute a gym episode's dispatched calls through the gym's own runtime (its validator, its
    tools, the fault schedule the episode records) on a fresh S0.

    The gym is deterministic (each test run's scheduler seed is drawn from the files and the run's
    number), so every observation must come back exactly as recorded, status and exit code too, and
    the workspace must end where the recorded diff says. A log of a gym episode whose events do not
    produce its diff (only a final answer; the edit call taken out; a wrong edit beside the right
    diff), or whose observations were written by hand (a read that lies, a test run that says it
    passed, an exit 137 the runtime never gave, making a recovery demonstration out of a clean run)
    was admitted before (red team, 2026-12-06): nothing tied a gym episode's events to its diff.
    """
    start = time.perf_counter()
    try:
        dispatched = dispatched_calls(episode, untagged=fixture.manifest.tag)
        replay = replay_calls(
            fixture,
            [(tag, call) for _, tag, call in dispatched],
            recorded_config(episode),
            recorded_faults(episode),
        )
    except (ValueError, TypeError) as exc:  # a call or a recorded setting the runtime refuses
        return ReplayResult("gym", 0, [], None, "unverified", time.perf_counter() - start, error=str(exc))
    turn_of = {call.id: i for i, event in enumerate(episode.events) for call in event.tool_calls}
    drift = []
    verified = []
    for (index, _, call), fresh in zip(dispatched, replay.observations, strict=True):
        answer = episode.events[index]
        if (answer.content, answer.status, answer.exit_code) == (
            fresh.content,
            fresh.status,
            fresh.exit_code,
        ):
            verified.append(index)
        else:
            recorded, replayed = answer.content or "", fresh.content or ""
            drift.append(
                TurnDrift(
                    turn_of[call.id],
                    len(recorded),
                    len(replayed),
                    _digest(recorded),
                    _digest(replayed),
                    answer.exit_code,
                    fresh.exit_code,
                    answer.status,
                    fresh.status,
                )
            )
    return ReplayResult(
        "gym",
        len(dispatched),
        sorted({d.turn for d in drift}),
        replay.final_files,
        "drift" if drift else "verified",
        time.perf_counter() - start,
        drift=drift,
        verified_answers=verified,
    )


def replay_episode(
    episode: Episode,
    fixture: Fixture,
    timeout_s: float = 10.0,
    protected: Callable[[str], bool] | None = None,
) -> ReplayResult:
    """Re-execute ``episode``'s recorded actions on ``fixture``'s S0 as its replay spec allows;
    ``protected`` says which workspace paths the agent must not write (shell and tools mode measure
    each call's writes to them: :attr:`ReplayResult.protected_writes`)."""
    start = time.perf_counter()
    spec = fixture.replay or ReplaySpec()
    mode = replay_mode(fixture.replay)
    if mode == "none":
        recorded = episode.outcome.workspace_diff or ""
        try:
            final = apply_diff(fixture.s0_files, recorded) if recorded.strip() else dict(fixture.s0_files)
        except SandboxError as exc:
            return ReplayResult(mode, 0, [], None, "unverified", time.perf_counter() - start, error=str(exc))
        return ReplayResult(mode, 0, [], final, "unverified", time.perf_counter() - start)
    records = call_records(episode)
    modern = is_1_0_run(episode, records)
    root = repository_root(episode)
    cli: dict[int, CliCall] = {}  # by the id of the episode's own call object: a turn may hold several
    if mode == "shell":
        cli = {id(r.call): c for r in records if (c := cli_call(r, episode.source_format, root)) is not None}
        if episode.source_format == "codex":
            cli.update(command_session_calls(records, episode.extra().get("command_sessions"), cli, root))
    actions, unsupported, skipped = _actions(records, fixture, mode, modern, cli)
    if unsupported:
        return ReplayResult(
            mode, 0, [], None, "unverified", time.perf_counter() - start, unsupported_turns=unsupported
        )
    refusal = isolation.mount_refusal(root) if root is not None and mode == "shell" else None
    inside = inner_folder(root, refusal, actions, modern)
    refusal = None if inside else refusal
    mounted = "mounted" if root is not None and mode == "shell" and refusal is None else None
    mounted = "inside_workspace" if inside else mounted
    setting = Setting(secrets.token_hex(16), root, *recorded_viewer(episode))
    folders = shown_folders(episode, records) if mode == "shell" else None
    kept = kept_scope(episode.source_format, records, folders) if mode == "shell" else None
    try:
        compile_patterns(spec.normalize)
        mount_at = root if mounted == "mounted" else None
        run = _execute(
            fixture, spec, mode, actions, timeout_s, setting, modern, cli, mount_at, inside, protected, kept
        )
    except (ReplayRunError, SandboxError, ValueError, LintUnavailable) as exc:
        return ReplayResult(
            mode,
            0,
            [],
            None,
            "unverified",
            time.perf_counter() - start,
            error=str(exc),
            recorded_root=mounted or refusal,
        )
    if run.refused:
        return ReplayResult(
            mode, 0, [], None, "unverified", time.perf_counter() - start, unsupported_turns=run.refused
        )
    if lost := _state_lost(run.lost_state, actions):
        return ReplayResult(
            mode,
            0,
            [],
            None,
            "unverified",
            time.perf_counter() - start,
            error=f"the kept shell's state after turn {lost} is unknown: the line was cut at its time limit",
            recorded_root=mounted or refusal,
            kept_folder=kept is not None,
            protected_writes=run.protected_writes,
            writes_measured=protected is not None,
        )
    drift: list[TurnDrift] = []
    # A refused call never ran: its answer is the log's word alone, neither compared nor a status
    # replay established (a forged listing recorded as "refused" counted as verified, 2026-12-06).
    refused = [record for record in records if record.refused]
    unchecked: list[int] = [*run.unchecked, *(record.turn for record in (*skipped, *refused))]
    answer_at = {id(event): index for index, event in enumerate(episode.events)}
    unreplayed = sorted({answer_at[id(r.answer)] for r in (*skipped, *refused) if r.answer is not None})
    shown_root = _shown_root(root, refusal) if mode == "shell" and not inside else None
    exit_codes: list[tuple[Event, int]] = []
    tolerated: dict[str, list[int]] = {}
    verified: list[int] = []
    paths, named = _known_paths((*fixture.s0_files, *run.final)), _named_text(records)
    for record, (output, exit_code) in zip(actions, run.outputs, strict=True):
        known = cli.get(id(record.call))
        compared = False
        content = (record.answer.content or "") if record.answer is not None else ""
        if unknown_footer_path(content, root, paths, named) is not None and (
            stray := _drift(record.turn, (content, None), output, None, spec.normalize)
        ):
            drift.append(stray)  # the footer is compared as text: it is no framing replay knows
            continue
        if known is not None and known.claims is not None:
            replayed = shown(output, run.workspace, shown_root)
            found, compared = _claims_drift(record, known.claims, replayed, spec.normalize)
            unchecked += [] if compared else [record.turn]
            drift += [found] if found is not None else []
        elif mode == "shell" and known is not None and known.kind == FILE and exit_code is not None:
            found = _file_tool_drift(record, output, exit_code, spec.normalize)
            found, compared = (
                (found, False)
                if found is not None
                else _read_drift(record, known, output, exit_code, spec.normalize)
            )
            unchecked += [] if compared else [record.turn]
            drift += [found] if found is not None else []
        elif known is not None and not known.compared:
            unchecked.append(record.turn)
            found = _claimed_failure_drift(record, output, exit_code, spec.normalize)
            drift += [found] if found is not None else []
        elif mode == "shell" and is_editor(record) and exit_code is not None:
            found = _editor_drift(record, output, exit_code, spec.normalize)
            if found is None:
                found, compared = _editor_view_drift(record, output, spec.normalize)
            unchecked += [] if compared else [record.turn]
            drift += [found] if found is not None else []
        elif mode == "shell" and record.turn in run.unchecked:
            continue
        elif mode == "shell" and (viewer := viewer_call(record, modern)) is not None:
            found, compared = _sweagent_drift(record, viewer, output, root, spec.normalize)
            drift += [found] if found is not None else []
            unchecked += [] if compared else [record.turn]
        elif record.answer is None:
            unchecked.append(record.turn)
        elif mode == "shell" and (read := history_subcommand(record.shell_command or "")) is not None:
            unchecked.append(record.turn)  # the agent's repository's history: the log's word alone
            unreplayed.append(answer_at[id(record.answer)])
            if read in SHOWS_THE_FILES:  # ... but the files' text it shows is the workspace's
                recorded_text = shown_file_text(recorded_observation(record.answer)[0])
                replayed_text = shown_file_text(shown(output, run.workspace, shown_root))
                found = _drift(record.turn, (recorded_text, None), replayed_text, None, spec.normalize)
                drift += [found] if found is not None else []
        else:
            observed, replayed = recorded_observation(record.answer), shown(output, run.workspace, shown_root)
            clip = shown_parts(observed[0]) if record.answer.status == "truncated" else None
            claimed = frame_call(record.answer.content or "")
            called = (
                (record.shell_command or "").strip(),
                (record.arguments or {}).get("directory") or "(root)",
            )
            if claimed is not None and (claimed[0].strip(), claimed[1]) != called:
                # the frame names another command or folder than the call's: its whole text is the answer
                found = _drift(
                    record.turn, (record.answer.content or "", None), replayed, None, spec.normalize
                )
            elif clip is not None:
                found = _clipped_drift(record.turn, clip, observed, replayed, exit_code, spec.normalize)
            else:
                found = _drift(record.turn, observed, replayed, exit_code, spec.normalize)
            shell = mode == "shell" and found is not None
            tolerance = _tolerance(record, observed[0], replayed, spec.normalize) if shell else None
            if found is not None and found.recorded_exit is None and tolerance is not None:
                tolerated.setdefault(tolerance, []).append(record.turn)
                found = None
            if found is None:
                found = _claimed_failure_drift(record, output, exit_code, spec.normalize)
            if found is not None:
                drift.append(found)
            elif exit_code is not None:
                exit_codes.append((record.answer, exit_code))
            compared = True
        if compared and found is None and record.answer is not None:
            verified.append(answer_at[id(record.answer)])
    unaccounted = _stray_answers(episode, actions, unreplayed)
    unreplayed += unaccounted
    unchecked += [turn for index in unaccounted if (turn := _turn_of(episode, index)) is not None]
    drift_turns = sorted({d.turn for d in drift})
    observations = "drift" if drift else "unverified" if unchecked or unaccounted else "verified"
    return ReplayResult(
        mode,
        len(actions),
        drift_turns,
        run.final,
        observations,
        time.perf_counter() - start,
        unchecked_turns=sorted(set(unchecked)),
        drift=drift,
        tolerated=tolerated,
        recorded_root=mounted or refusal,
        kept_folder=kept is not None,
        exit_codes=exit_codes,
        unreplayed_answers=sorted(set(unreplayed)),
        verified_answers=sorted(set(verified)),
        protected_writes=run.protected_writes,
        writes_measured=protected is not None,
        ignored_new=run.ignored_new,
    )


def _stray_answers(episode: Episode, actions: list[CallRecord], unreplayed: list[int]) -> list[int]:
    """The tool and refusal events no re-executed action answered and replay has not already
    listed as the log's word (``unreplayed``): a second answer under a call's id, one naming an id
    no call has (or none, past the id-less calls of its turn), one after a turn without calls or
    ahead of the first turn, the answer of a call replay skips (:data:`NON_ACTIONS`, the submit
    line). Replay compares only the one answer :func:`.calls.call_records` pairs with each call,
    so these were neither compared nor marked and the verdict said ``observations: verified``
    with a forged listing in the trained context (red team, round 10). Honest logs hold them too
    (a tau-bench transfer answered after a text turn, fireact's ``finish`` answers), so they are
    not a fault: they are marked ``unreplayed_answers`` (never evidence, never quoted: only
    ``verified_answers`` back a quotation) and their turn ``unchecked``."""
    answer_at = {id(event): index for index, event in enumerate(episode.events)}
    paired = {answer_at[id(r.answer)] for r in actions if r.answer is not None}
    return [
        index
        for index, event in enumerate(episode.events)
        if event.kind in ("tool", "refusal") and index not in paired and index not in unreplayed
    ]


def _turn_of(episode: Episode, index: int) -> int | None:
    """The assistant turn an event at ``index`` follows (``None`` ahead of the first turn)."""
    return next((i for i in range(index - 1, -1, -1) if episode.events[i].kind == "assistant"), None)


def repository_root(episode: Episode) -> str | None:
    """The absolute path the agent's container held the repository at, where the log records it:
    SWE-agent's state footer (:func:`sweagent_commands.recorded_root`), the working directory
    mini-swe-agent's saved configuration ran every command in (``info.config.environment.cwd``,
    which the adapter keeps in ``extra_json``; ``/testbed`` in its SWE-bench configuration), or the
    shell directory OpenHands' first command observation records (``extras.metadata.working_dir``,
    kept as ``extra_json``'s ``working_dir``; ``/workspace`` or ``/workspace/<repo>`` in its
    evaluation runs), or the folder a coding CLI's session ran in (:func:`cli_tools.session_root`:
    Claude Code's and Codex's ``cwd``, Goose's ``working_dir``, the folder whose hash is a Gemini
    session's ``projectHash``).
    ``None`` when the log records none: replay never guesses one."""
    if (session := session_root(episode)) is not None:
        return session
    if episode.source_format not in ("mini-swe-agent", "openhands"):
        return recorded_root(episode)
    extra = episode.extra()
    if episode.source_format == "openhands":
        cwd = extra.get("working_dir")
    else:
        config = extra.get("config")
        environment = config.get("environment") if isinstance(config, dict) else None
        cwd = environment.get("cwd") if isinstance(environment, dict) else None
    return (cwd.rstrip("/") or "/") if isinstance(cwd, str) and cwd else None


def inner_folder(
    root: str | None, refusal: str | None, actions: list[CallRecord], modern: bool
) -> str | None:
    """The workspace-relative folder S0 is placed at when the recorded root lies inside the
    sandbox's own workspace folder (``/workspace/<repo>``, where OpenHands' evaluation runtime
    keeps the repository), else ``None``.

    A second bind there would land inside the writable workspace
    (:func:`gym.isolation.mount_refusal`: ``sandbox_directory``), so instead the workspace stands
    for the container's ``/workspace`` and holds S0 at ``<repo>``: every shell command starts
    there, an absolute path names what it named in the container, a file the agent wrote beside
    the repository (``/workspace/test.c``) stays out of the final state as it stayed out of the
    repository's diff, and editor paths under ``/workspace`` resolve as they did. Not for a run
    with SWE-agent's viewer commands, whose state is kept relative to the workspace."""
    parent = f"{isolation.WORKSPACE_MOUNT}/"
    if refusal != "sandbox_directory" or root is None or not root.startswith(parent):
        return None
    if any(viewer_call(record, modern) is not None for record in actions):
        return None
    return root.removeprefix(parent)


def _shown_root(root: str | None, refusal: str | None) -> str | None:
    """The root a replayed output's workspace path is written as (:func:`sweagent_commands.shown`):
    the recorded one, unless it names no folder a path could lie under (``/``, a malformed one)."""
    return None if root is None or root == "/" or refusal == "malformed" else root


def _editor_drift(
    record: CallRecord, output: str, exit_code: int, patterns: tuple[str, ...]
) -> TurnDrift | None:
    """An editor call whose recorded outcome is not the replayed one, or ``None``. The outcome is
    the recorded status where the log has one, else what the recorded answer says
    (:func:`sweagent_tools.editor_failed`: SWE-agent records no status); the answer's text itself
    is the tool's own rendering and is not compared."""
    answer = record.answer
    if answer is None or answer.status == "refused":
        return None
    if answer.status in EDITOR_STATUSES:
        recorded_failed = answer.status == "error"
    else:
        recorded_failed = editor_failed(recorded_observation(answer)[0])
    return _status_drift(record.turn, answer, output, (recorded_failed, exit_code != 0), patterns)


def _editor_view_drift(
    record: CallRecord, output: str, patterns: tuple[str, ...]
) -> tuple[TurnDrift | None, bool]:
    """An editor ``view`` of a file whose recorded answer is not the replayed one, or ``None``, and
    whether it was compared at all. The replay runs the editor's own rules, so it prints what the
    tool printed: the header and the file's numbered lines (compared like a shell answer, a
    truncated one by what it shows, :mod:`clipped`). Such a view was never compared before, and a
    listing with an instruction injected into it stayed as training context (red team,
    2026-12-06). Other answers (an edit's snippet, a directory's listing) are the tool's
    rendering in wordings that vary by release and stay unchecked, as does SWE-agent's abbreviated
    view of a large file (:data:`EDITOR_ABBREVIATED`: its elisions follow a syntax tree the driver
    does not reproduce)."""
    answer = record.answer
    if answer is None or answer.status == "error" or not output.startswith(EDITOR_FILE_VIEW):
        return None, False
    observed = recorded_observation(answer)
    if EDITOR_ABBREVIATED in observed[0]:
        return None, False
    clip = shown_parts(observed[0]) if answer.status == "truncated" else None
    if clip is not None:
        return _clipped_drift(record.turn, clip, (observed[0], None), output, None, patterns), True
    return _drift(record.turn, (observed[0], None), output, None, patterns), True


def _file_tool_drift(
    record: CallRecord, output: str, exit_code: int, patterns: tuple[str, ...]
) -> TurnDrift | None:
    """A coding CLI's file tool call whose recorded outcome is not the replayed one, or ``None``
    where the log says nothing of its outcome. The outcome is the recorded status (Claude Code's
    ``is_error``, Gemini's call status) or exit code (Codex's); the text is the tool's own rendering
    and is not compared."""
    answer = record.answer
    if answer is None:
        return None
    recorded_exit = recorded_observation(answer)[1]
    if recorded_exit is not None:
        recorded_failed = recorded_exit != 0
    elif answer.status in ("ok", "error"):
        recorded_failed = answer.status == "error"
    else:
        return None
    return _status_drift(record.turn, answer, output, (recorded_failed, exit_code != 0), patterns)


def _read_drift(
    record: CallRecord, known: CliCall, output: str, exit_code: int, patterns: tuple[str, ...] = ()
) -> tuple[TurnDrift | None, bool]:
    """A Claude Code ``Read`` whose recorded answer shows lines the file replay read does not hold,
    or text no ``Read`` prints (:func:`cli_tools.read_listing`), or an ``Edit`` / ``Write`` whose
    snippet of the changed file does (:func:`cli_tools.edit_snippet`; ``output`` is the file's text
    after the call), and whether it was compared at all. A file tool's answer is otherwise its own
    rendering and is not compared, but these show the file: a fabricated one (an instruction
    injected into it, another body) is context the policy would be trained on. A ``Read`` recorded
    as failing (its status already agrees with replay's) must show the tool's own error. Codex's
    ``apply_patch`` prints a summary replay reproduces with the tool's own rules, so a successful
    one is compared whole (text appended to it was kept as context, red team 2026-12-06)."""
    answer = record.answer
    action = known.action
    if not isinstance(action, FileToolCall) or answer is None:
        return None, False
    if action.name == "apply_patch":
        if answer.status == "error" or exit_code != 0:
            return None, False
        return _drift(record.turn, (recorded_observation(answer)[0], None), output, None, patterns), True
    if action.name == "Read":
        claims = read_listing(answer.content or "", answer.status == "error")
    elif action.name in SNIPPET_TOOLS and answer.status != "error" and isinstance(record.arguments, dict):
        snippet = edit_snippet(record.arguments, answer.content or "")
        if snippet is None:
            return None, False  # "The file X has been updated.": the tool's rendering, no file shown
        claims = snippet
    else:
        return None, False
    return _claims_drift(record, claims, {READ_FILE: output} if exit_code == 0 else {})


def _claims_drift(
    record: CallRecord,
    claims: ReadClaims,
    sources: str | Mapping[str, str | bool],
    patterns: tuple[str, ...] = (),
) -> tuple[TurnDrift | None, bool]:
    """A read tool's answer showing what the workspace did not hold at that point, or a shell
    answer showing a line its command did not print (:func:`read_tools.claims_contradict`), and
    whether it was compared at all (a listing that did not come back concludes nothing). ``sources``:
    the replayed output (with the listing's marker), or the files already read. The drift holds
    sizes and hashes of the answer and of what replay found (the files read, without the run's
    marker, or the output: a second replay must give the same hash)."""
    if not isinstance(sources, str):
        found, files = json.dumps(sources, sort_keys=True), dict(sources)
        contradicted = claims_contradict(claims, files)
    elif claims.of_output:
        found = sources
        contradicted = claims_contradict(
            claims,
            {OUTPUT: sources},
            lambda text: normalize(text, patterns),
            lambda shown_line, held: volatile_agree(shown_line, held, patterns),
        )
    else:
        found = sources.rpartition(claims.marker)[2]
        listing = listed(claims, sources)
        if listing is None:
            return None, False
        contradicted = claims_contradict(claims, listing)
    if not contradicted:
        return None, True
    answer = record.answer.content or "" if record.answer is not None else ""
    return TurnDrift(record.turn, len(answer), len(found), _digest(answer), _digest(found)), True


def _claimed_failure_drift(
    record: CallRecord, output: str, exit_code: int | None, patterns: tuple[str, ...]
) -> TurnDrift | None:
    """A shell command the log records as an error (status ``error``: Claude Code's ``is_error``,
    Goose's ``isError``) that succeeded in replay, or ``None``.

    The status is what the role labeller reads (a failed call then a success make an episode a
    ``recovery``, the rarer and more valuable demonstration), and nothing else compared it: a
    passing command recorded as an error with its true output (the output and the exit code in its
    framing agree, the status lies), or a command whose output is never compared (Goose's shell, a
    Gemini answer in another shape) recorded as a crash, minted one. Only this direction is a
    contradiction: a call status of ``ok`` may mean the tool ran (Gemini's ``success`` for a
    command that exited 1), and the exit code, where the log records one, is compared already."""
    answer = record.answer
    if answer is None or answer.status != "error" or exit_code != 0:
        return None
    return _status_drift(record.turn, answer, output, (True, False), patterns)


def _sweagent_drift(
    record: CallRecord, viewer: Viewer, output: str, root: str | None, patterns: tuple[str, ...]
) -> tuple[TurnDrift | None, bool]:
    """A viewer command's drift, if any, and whether its output was compared at all.

    Its output is compared like a shell command's (``find_file``'s listing in any order) once the
    log shows the repository root its paths print under; an edit the linter rejected, in the
    log or in replay, is compared by that outcome only (the rejection's text is flake8's). A 1.0
    tool's answer is compared without the retry line SWE-agent's loop reads and with the
    search-and-replace banner in any of its releases' wordings (:func:`sweagent_tools.banner_free`)."""
    answer = record.answer
    if answer is None or answer.status == "truncated" or root is None:
        return None, False
    recorded, _ = recorded_observation(answer)
    if isinstance(viewer, Invocation):
        name = viewer.name
        recorded, output = banner_free(without_retry_token(recorded)), banner_free(output)
    else:
        name = command_name(viewer) or ""
    edits = _edits(viewer)
    recorded_rejected = edits and edit_rejected(recorded)
    if edits and (recorded_rejected or edit_rejected(output)):
        failed = (recorded_rejected, edit_rejected(output))
        return _status_drift(record.turn, answer, output, failed, patterns), False
    drift = _drift(record.turn, (recorded, None), output, None, patterns, any_order=name in UNORDERED)
    return drift, True


@dataclass
class _Run:
    """What running the actions gave: each one's (output, exit code), the final files, the turns
    of editor calls refused for a path outside the workspace, and the turns whose output cannot
    be compared (:attr:`sweagent_commands.Report.checked`)."""

    outputs: list[tuple[str, int | None]]
    final: dict[str, str]
    refused: list[int] = field(default_factory=list)
    unchecked: list[int] = field(default_factory=list)
    workspace: str = isolation.WORKSPACE_MOUNT
    """Where the commands saw the workspace (:attr:`gym.shell.LiveShell.workspace_path`)."""
    protected_writes: list[tuple[int, str]] = field(default_factory=list)
    """:attr:`ReplayResult.protected_writes`."""
    ignored_new: frozenset[str] | None = None
    """:attr:`ReplayResult.ignored_new`."""
    lost_state: list[int] = field(default_factory=list)
    """The turns of kept-shell lines cut at the time limit: what the agent's shell held after them
    is unknown (a line that ended its shell, ``exit`` or ``set -e``, left a fresh one)."""


@dataclass
class _Watch:
    """The protected paths of a replayed workspace, fingerprinted as S0 has them and after each
    call (:attr:`ReplayResult.protected_writes`). ``inside``: the folder of the workspace S0 is
    placed at (:func:`inner_folder`); what lies outside it is not the repository's."""

    root: Path
    protected: Callable[[str], bool]
    inside: str | None
    last: dict[str, Fingerprint] = field(default_factory=dict)

    def __post_init__(self) -> None:
        self.last = fingerprints(str(self.root), self.watched)

    def watched(self, rel: str) -> bool:
        if self.inside:
            if not rel.startswith(f"{self.inside}/"):
                return False
            rel = rel.removeprefix(f"{self.inside}/")
        return self.protected(rel)

    def changed(self) -> str | None:
        """The first protected path the call just run changed (content, kind, link count,
        permission bits, inode, change time; created or removed), or ``None``."""
        now = fingerprints(str(self.root), self.watched)
        path = first_change(self.last, now)
        self.last = now
        return path.removeprefix(f"{self.inside}/") if path is not None and self.inside else path


def _execute(
    fixture: Fixture,
    spec: ReplaySpec,
    mode: str,
    actions: list[CallRecord],
    timeout_s: float,
    setting: Setting,
    modern: bool,
    cli: dict[int, CliCall],
    mount_at: str | None = None,
    inside: str | None = None,
    protected: Callable[[str], bool] | None = None,
    kept: str | None = None,
) -> _Run:
    """Run the actions in the sandbox (``modern``: a SWE-agent 1.0 run, :func:`is_1_0_run`; ``cli``:
    a coding CLI's calls, :func:`cli_tools.cli_call`, by the id of each call; ``mount_at``: the
    recorded repository root the shell mode shows the workspace at too; ``inside``: the folder of
    the workspace S0 is placed at instead, :func:`inner_folder`; ``protected``: the paths whose
    writes shell mode measures after each call, :class:`_Watch`)."""
    if mode == "tools":
        entry = spec.tools_entry_point or ""
        calls = [(r.call.name or "", r.arguments or {}) for r in actions]
        tool_run = run_tool_calls(
            fixture.s0_files, spec.tools_files, entry, calls, timeout_s, watched=protected
        )
        changed = zip(actions, tool_run.changed or [], strict=False)
        writes = [(record.turn, path) for record, path in changed if path is not None]
        return _Run(
            [(r.output, None) for r in tool_run.results], tool_run.final_files, protected_writes=writes
        )
    return _run_shell(
        fixture.s0_files, actions, timeout_s, setting, modern, cli, mount_at, inside, protected, kept
    )


def _run_shell(
    files: dict[str, str],
    actions: list[CallRecord],
    timeout_s: float,
    setting: Setting,
    modern: bool,
    cli: dict[int, CliCall],
    mount_at: str | None = None,
    inside: str | None = None,
    protected: Callable[[str], bool] | None = None,
    kept: str | None = None,
) -> _Run:
    """Shell mode's run, on one workspace held across all the actions. Each of SWE-agent's viewer
    commands needs the viewer state the one before it left (read from its output), so the actions
    run in batches that each end at such a command; an edit of a Python file (pre-1.0 ``edit``,
    1.0 ``edit`` and ``insert``) also starts a batch of its own, so that the file read just before
    it is the one it edits, for its linter (:func:`_lint_refusal`). A pre-1.0 edit the linter
    refuses has that file put back and runs again, told the errors, printing SWE-agent's refusal
    (SWE-agent's ``edit`` writes the open file only, so this is the workspace it ran on); a 1.0
    edit it refuses has the file and the viewer put back as the tool's own undo does, and answers
    the refusal. Without viewer commands it is a single batch. A viewer command's exit code is
    ``None``: SWE-agent records none and its commands report failure in their text.

    The workspace is copied in once and read back once (a batch used to copy and read back the
    whole tree) and handed to the sandbox user once (:class:`LiveShell`'s ``exclusive``). With
    ``inside`` (:func:`inner_folder`) S0 lies in that folder of the workspace, every shell command
    starts there, and the final state is that folder's files. With ``protected``, the protected
    paths are fingerprinted after every action (:class:`_Watch`). With ``kept``, each shell line
    starts in the state the one before it left (the whole session, or the folder alone: ``kept``,
    :data:`.shell_session.KEPT_BY_FORMAT`; :func:`.shell_session.in_kept_shell`), a line cut at
    the time limit is in :attr:`_Run.lost_state`, and an ``EXIT`` handler the last line left runs
    once the final state is read, as the agent's shell ran it when the session ended after the
    log's last call (its protected writes are the last shell line's)."""
    state = WindowState()
    previous = ""
    run = _Run([], {})
    batch: list[tuple[CallRecord, Action]] = []
    placed = {f"{inside}/{path}": text for path, text in files.items()} if inside else files
    with (
        Workspace(placed) as ws,
        LiveShell(ws.root, exclusive=True, mount_at=mount_at, scratch=True) as shell,
    ):
        shell.make_checkout(inside or "")
        checkout = f"{shell.workspace_path}/{inside}" if inside else shell.workspace_path
        state_name = f"{GIT_DIR}/shell"
        session = _KeptState(
            f"{checkout}/{state_name}", f"{inside}/{state_name}" if inside else state_name, kept or SESSION
        )
        watch = _Watch(ws.root, protected, inside) if protected is not None else None
        for index, record in enumerate(actions):
            viewer = viewer_call(record, modern)
            linted = viewer is not None and _edits(viewer) and state.file.endswith(".py")
            if linted and batch:
                _run_batch(shell, batch, timeout_s, run, watch, session)
                batch = []
            script_state = replace(state, last_action=previous)
            command = _command(record, viewer, script_state, setting, cli.get(id(record.call)))
            if kept and isinstance(command, str):
                command = session.wrap(record, command)
            if inside and isinstance(command, str):
                start = shlex.quote(f"{isolation.WORKSPACE_MOUNT}/{inside}")
                command = f"cd -- {start} || exit; {command}"
            batch.append((record, command))
            previous = (viewer if isinstance(viewer, str) else record.call.arguments or "").strip()
            if viewer is None and index < len(actions) - 1:
                continue
            before = shell.read(state.file) if linted else None
            _run_batch(shell, batch, timeout_s, run, watch, session)
            batch = []
            if viewer is None:
                continue
            report = split_report(run.outputs[-1][0], setting.marker, state)
            modern_call = isinstance(viewer, Invocation)
            if before is not None and (errors := _lint_refusal(before, shell, report, modern_call)):
                shell.restore(report.state.file, before)
                if isinstance(viewer, Invocation):
                    report = Report(refusal(errors), state, report.workspace)
                else:
                    again_script = command_script(viewer, script_state, setting, errors)
                    (again,) = shell.run_all([again_script], timeout_s)
                    report = split_report(again.output, setting.marker, state)
            state = report.state
            run.unchecked += [] if report.checked else [record.turn]
            run.outputs[-1] = (shown(report.text, report.workspace, setting.root), None)
        run.final = collect_files(ws.root, skip=f"{inside}/{GIT_DIR}" if inside else GIT_DIR)
        if (closing := session.end(shell)) is not None:  # the session's end, after its final state
            shell.run(closing, timeout_s)
            if watch is not None and (path := watch.changed()) is not None:
                run.protected_writes.append((max(r.turn for r in actions if id(r) in session.wrapped), path))
        if inside:
            prefix = f"{inside}/"
            run.final = {p.removeprefix(prefix): t for p, t in run.final.items() if p.startswith(prefix)}
        if any(path not in files for path in run.final):
            run.ignored_new = shell.ignored_files(inside or "")
        run.refused = sorted(set(run.refused))
        run.workspace = shell.workspace_path
        return run


def _state_lost(lost: list[int], actions: list[CallRecord]) -> int | None:
    """The first turn after which a kept shell's state is unknown (:attr:`_Run.lost_state`) while a
    later shell line ran in it, which then started in a state the agent's shell may not have had;
    ``None`` where every line recorded its state, or only the last did not."""
    last = max((r.turn for r in actions if r.shell_command is not None), default=None)
    return next((turn for turn in lost if last is not None and turn < last), None)


def _edits(viewer: Viewer) -> bool:
    """Whether a viewer command edits the open file (and is linted)."""
    if isinstance(viewer, Invocation):
        return viewer.name in ("edit", "insert")
    return command_name(viewer) == "edit"


def _command(
    record: CallRecord, viewer: Viewer | None, state: WindowState, setting: Setting, cli: CliCall | None
) -> Action:
    """What the sandbox runs for one action: a coding CLI's shell line or file tool call, a viewer
    command's script, an editor call, or the recorded shell command."""
    if cli is not None and cli.action is not None:
        return cli.action
    if isinstance(viewer, Invocation):
        return tool_script(viewer, state, setting)
    if viewer is not None:
        return command_script(viewer, state, setting)
    return editor_call(record, setting.root) or record.shell_command or ""


@dataclass
class _KeptState:
    """The state files of a replay's kept shell, one a line, named ``path``-NONCE in the sandbox
    (``rel``-NONCE in the workspace): each line starts from the file the line before it wrote
    (:func:`.shell_session.in_kept_shell`), and a line that ended its shell wrote none, so the next
    starts afresh. ``wrapped``: the ids of the call records run so."""

    path: str
    rel: str
    scope: str = SESSION
    """What the harness keeps (:data:`.shell_session.KEPT_BY_FORMAT`): the session, or the folder."""
    last: str | None = None
    wrapped: set[int] = field(default_factory=set)

    def wrap(self, record: CallRecord, command: str) -> str:
        """``command`` as the kept shell runs it, after the line wrapped before it."""
        previous = f"{self.path}-{self.last}" if self.last else None
        self.last = secrets.token_hex(8)
        self.wrapped.add(id(record))
        return in_kept_shell(command, f"{self.path}-{self.last}", previous, self.scope)

    def end(self, shell: LiveShell) -> str | None:
        """What ends the kept shell after its last line (:func:`.shell_session.session_end`), where
        that line left an ``EXIT`` handler for it to run; else ``None``."""
        if self.last is None or not pending_exit_handler(shell.read(f"{self.rel}-{self.last}")):
            return None
        return session_end(f"{self.path}-{self.last}")


def _run_batch(
    shell: LiveShell,
    batch: list[tuple[CallRecord, Action]],
    timeout_s: float,
    run: _Run,
    watch: _Watch | None = None,
    session: _KeptState | None = None,
) -> None:
    """Run one batch in ``shell``, adding each command's (output, exit code) to the run's outputs,
    the turns of refused editor calls to its refusals, with a ``watch``, each command after which a
    protected path was not as S0 has it to its protected writes, and with a kept shell's
    ``session``, each of its lines cut at the time limit to its lost states (what the agent's shell
    held after it is unknown; a line that ended its shell left a fresh one, as the harness starts
    one)."""

    def measure(index: int) -> None:
        if watch is not None and (path := watch.changed()) is not None:
            run.protected_writes.append((batch[index][0].turn, path))

    limits = [output_limit(record) for record, _ in batch]
    results = shell.run_all(
        [command for _, command in batch], timeout_s, after_each=measure, output_limits=limits
    )
    if session is not None:
        wrapped = zip(batch, results, strict=True)
        run.lost_state += [r.turn for (r, _), res in wrapped if res.timed_out and id(r) in session.wrapped]
    run.refused += [r.turn for (r, _), res in zip(batch, results, strict=True) if res.refused]
    run.outputs += [(res.output, res.exit_code) for res in results]


def output_limit(record: CallRecord) -> int:
    """How much of a replayed command's output is kept: twice what its recorded answer holds, at
    least the shell's usual :data:`gym.shell.OUTPUT_LIMIT_BYTES`. A harness that records outputs
    whole (native logs, Claude Code) records answers longer than that cap, and the replay's output
    cut there, marker and all, was compared with the whole answer: every honest answer over 64 KiB
    drifted (red team rtforge9, 2026-12-06: ``seq 1 20000``, a build log, a JSON dump; 0 of 6
    kept). Kept to twice the recorded size rather than without bound, so what a replay holds is
    proportional to the log (a line printing without end keeps no more); an output longer than
    that is no normalization of the answer, and drifts. A truncated answer (:mod:`clipped`) says
    nothing of the whole output's size and keeps the usual cap."""
    answer = record.answer
    if answer is None or answer.status == "truncated":
        return OUTPUT_LIMIT_BYTES
    recorded = len(recorded_observation(answer)[0].encode("utf-8", "replace"))
    return max(OUTPUT_LIMIT_BYTES, 2 * recorded)


def _lint_refusal(before: str, shell: LiveShell, report: Report, modern: bool = False) -> str:
    """The errors SWE-agent's linter would refuse the edit that ``report`` describes for, as
    its refusal lists them; empty when the edit stands. ``before`` is the open file's text before
    the edit. Like SWE-agent, only a Python file is linted; one outside the workspace (it has no
    workspace-relative path) is not. SWE-agent 1.0 (``modern``) forgives, besides the errors it
    had before, any error above the edit's first line."""
    path = report.state.file
    after = shell.read(path) if path.endswith(".py") else None
    if report.edited is None or after is None:
        return ""
    first, last, count = report.edited
    errors = introduced(lint(before), lint(after), first, last, count)
    return listing([e for e in errors if e.line >= first] if modern else errors)


# ------------------------------------------------------------------------------- the cascade step


@dataclass
class ReplayCheck:
    """The cascade's replay step for one episode: the result, and either the sink it decides
    (``sink``, ``findings``) or the diff view the later stages judge (``view``)."""

    result: ReplayResult
    view: DiffView
    sink: str | None = None
    findings: list[Finding] = field(default_factory=list)

    @property
    def reason(self) -> str:
        return self.findings[0].code if self.findings else ""

    def verdict(self) -> StageVerdict:
        """The dynamic stage's verdict for an episode the replay itself routed (timed as the replay)."""
        passed = False if self.sink == "tamper_quarantine" else None
        return StageVerdict(
            "dynamic",
            passed=passed,
            wall_s=self.result.wall_s,
            findings=list(self.findings),
            data={"replay": self.result.data()},
            timings={"replay_s": self.result.wall_s},
        )

    def record(self, dynamic: StageVerdict) -> None:
        """Add the replay to the dynamic stage it preceded: its data, and its time to the stage's."""
        dynamic.data["replay"] = self.result.data()
        dynamic.wall_s += self.result.wall_s
        dynamic.timings["replay_s"] = self.result.wall_s


def _view_of(pre: dict[str, str], post: dict[str, str]) -> DiffView:
    """The diff view of a replayed final state, as stage 1 would have parsed it from a log."""
    view = DiffView(text=unified_diff(pre, post), pre=pre, post=post)
    try:
        view.patches = parse_unified_diff(view.text)
    except PatchError as exc:
        view.parse_error = exc
        return view
    index_patches(view)
    return view


def check_replay(
    episode: Episode, context: FixtureContext, diff: DiffView, timeout_s: float = 10.0
) -> ReplayCheck | None:
    """Replay an episode on a brought environment before stage 3; ``None`` for a gym fixture (its
    episodes are replayed at stage 4: :func:`check_gym_events`).

    ``diff`` is the recorded diff's view after stage 2 (its ``post`` is S0 plus the recorded diff).
    """
    fixture = context.handle
    if not isinstance(fixture, Fixture) or fixture.source != "environment":
        return None
    result = replay_episode(
        episode, fixture, timeout_s, lambda path: protected_reason(path, context) is not None
    )
    check = ReplayCheck(result, diff)
    if result.protected_writes:  # gaming evidence outranks what else the replay showed
        turn, path = result.protected_writes[0]
        check.sink = "tamper_quarantine"
        check.findings.append(
            Finding(
                "attempted_protected_write",
                f"{len(result.protected_writes)} replayed call(s) changed a protected path; "
                f"first: {path} ({protected_reason(path, context)})",
                event_index=turn,
                path=path,
            )
        )
    elif result.error is not None:
        check.sink = "unverifiable"
        check.findings.append(Finding("replay_failed", result.error))
    elif result.unsupported_turns:
        check.sink = "unverifiable"
        turns = result.unsupported_turns
        check.findings.append(
            Finding(
                "replay_unsupported_call",
                f"{len(turns)} call(s) cannot be re-executed in {result.mode} mode: "
                + ", ".join(_call_names(episode, turns)),
                event_index=turns[0],
            )
        )
    elif result.drift:
        check.sink = "unverifiable"
        first = result.drift[0]
        check.findings.append(
            Finding(
                "replay_drift",
                f"{len(result.drift_turns)} of {result.turns_replayed} replayed turn(s) differ from the "
                f"recorded observation; first: recorded {first.recorded_chars} chars "
                f"(sha256:{first.recorded_sha256}), replayed {first.replayed_chars} chars "
                f"(sha256:{first.replayed_sha256})",
                event_index=first.turn,
            )
        )
    elif result.mode != "none" and result.final_files is not None:
        _judge_final_state(check, episode, context, diff, result.final_files, result.ignored_new)
    if check.sink is None:
        result.establish_exit_codes()
    return check


def check_gym_events(
    episode: Episode, context: FixtureContext, diff: DiffView, seal_key: bytes | None
) -> ReplayCheck | None:
    """Stage 4's last check on an episode the gym's runtime logged (``native``, on a gym fixture;
    ``None`` on any other: a log in another format on a gym task never gets here, it is
    ``unverifiable`` as ``gym_log_not_replayable``, since the gym cannot replay the tools it ran
    under and its observations would be trusted unchecked): its events, replayed
    (:func:`replay_gym_episode`), must give its recorded observations and its recorded diff. The
    gym's tools print the same thing every run, so any difference is the log's: ``replay_drift``,
    ``final_state_mismatch``, or ``replay_failed`` for an observation no tagged call made or a call
    the runtime would have refused. Run last, on what passed every other check, so a tampered
    episode keeps the reason the audit gave it, and the replay's cost falls on admissions only."""
    fixture = context.handle
    if (
        not isinstance(fixture, Fixture)
        or fixture.source == "environment"
        or episode.source_format != "native"
    ):
        return None
    result = replay_gym_episode(episode, fixture)
    check = ReplayCheck(result, diff)
    check.findings.extend(_runtime_log_findings(episode, fixture, seal_key))  # first: a log no runtime writes
    if check.findings:
        check.sink = "tamper_quarantine"
        return check
    if result.error is not None:
        check.findings.append(Finding("replay_failed", result.error))
    elif result.drift:
        first = result.drift[0]
        check.findings.append(
            Finding(
                "replay_drift",
                f"{len(result.drift_turns)} of {result.turns_replayed} call(s) got another observation from "
                f"the gym than the log records; first: recorded {first.recorded_chars} chars "
                f"(sha256:{first.recorded_sha256}), replayed {first.replayed_chars} chars "
                f"(sha256:{first.replayed_sha256})",
                event_index=first.turn,
            )
        )
    elif result.final_files is not None:
        _judge_final_state(check, episode, context, diff, result.final_files)
    if not check.findings:
        check.findings.extend(_final_answer_findings(episode))
    check.sink = check.sink or ("tamper_quarantine" if check.findings else None)
    return check


def _runtime_log_findings(episode: Episode, fixture: Fixture, seal_key: bytes | None) -> list[Finding]:
    """What the gym's runtime always logs and a hand-written log need not, each a way a red team
    had a forged episode admitted (2026-12-06): every call named by its own id (two calls under one
    id hid a backdoor write from the replay) and answered (a call with no answer was never replayed
    yet trained on); a refusal only of a call the runtime refuses (a refused valid call made a
    clean run a recovery demonstration); a turn without calls only last, or answered by a refusal
    (the runtime ends the episode at the first: a text turn inserted before the answer was trained
    on); the task's own prompt, and tools the task's manifests deliver. A third (the same day)
    kept all that and edited what training reads instead: a refusal only in the runtime's words
    (:func:`.gym_context.refusal_text_is_the_runtimes`), one user turn, and the system prompt,
    compaction summaries and delivered inputs the runtime wrote (:func:`.gym_context.context_findings`)."""
    events = episode.events
    calls = [(i, call) for i, event in enumerate(events) for call in event.tool_calls]
    ids = Counter(call.id for _, call in calls)
    if None in ids or any(n > 1 for n in ids.values()):
        return [Finding("duplicate_call_id", "calls share an id, or have none")]
    answers = {e.tool_call_id: i for i, e in enumerate(events) if e.kind in ("tool", "refusal")}
    unanswered = [i for i, call in calls if call.id not in answers]
    if unanswered:
        return [Finding("unanswered_call", "a call the log shows no answer to", unanswered[0])]
    tags = delivered_tags(episode, fixture.manifest.tag)
    for index, call in calls:
        answer, tag = answers[call.id], tags.get(call.id)
        refused = events[answer].kind == "refusal" and events[index].finish_reason != "length"
        if refused and tag and refusal_reason(call, tag) is None:
            return [Finding("refusal_not_the_runtimes", "a call the runtime would have run", answer)]
    call_of: dict[str | None, tuple[int, ToolCall | None]] = {call.id: (index, call) for index, call in calls}
    latest_turn = -1
    for index, event in enumerate(events):
        latest_turn = index if event.kind == "assistant" else latest_turn
        if event.kind != "refusal":
            continue
        turn, refused_call = call_of.get(event.tool_call_id, (latest_turn, None))
        tag = tags.get(event.tool_call_id)
        if (
            latest_turn < 0
            or (event.tool_call_id is not None and refused_call is None)
            or not refusal_text_is_the_runtimes(event, refused_call, tag, events[turn])
        ):
            return [Finding("refusal_not_the_runtimes", "a refusal the runtime does not write", index)]
    turns = [i for i, e in enumerate(events) if e.kind == "assistant"]
    for index in turns[:-1]:
        after = events[index + 1] if index + 1 < len(events) else None
        answered_by_refusal = after is not None and after.kind == "refusal"
        if (
            not events[index].tool_calls
            and events[index].finish_reason != "length"
            and not answered_by_refusal
        ):
            return [
                Finding("turn_after_final_answer", "the runtime ends an episode at its first answer", index)
            ]
    users = [e for e in events if e.kind == "user"]
    if len(users) > 1 or any(user.content != fixture.prompt for user in users):
        return [Finding("prompt_not_the_tasks", "a user turn that is not the task's prompt")]
    delivered = {
        (s.name, s.version): s for m in (fixture.manifest, drifted(fixture.manifest)) for s in m.specs()
    }
    if any(delivered.get((s.name, s.version)) != s for s in episode.tools):
        return [
            Finding("tools_not_the_tasks", "a tool the task's manifests do not deliver, or another schema")
        ]
    return context_findings(episode, fixture, seal_key)


def _final_answer_findings(episode: Episode) -> list[Finding]:
    """The gym takes an episode's final answer from its last turn's text, and the oracle judges
    the outcome's copy: the two must agree, or the oracle passes one answer while training learns
    another (a red team's report episode: the right name in the outcome, a wrong one in the turn
    trained on, 2026-12-06)."""
    answer = episode.outcome.final_answer
    last = max((i for i, e in enumerate(episode.events) if e.kind == "assistant"), default=None)
    if answer is None or last is None:
        return []
    if episode.events[last].tool_calls:
        return [Finding("final_answer_mismatch", "the episode answers, but its last turn calls a tool", last)]
    if (episode.events[last].content or "").strip() == answer.strip():
        return []
    return [Finding("final_answer_mismatch", "the outcome's final answer is not the last turn's text", last)]


def git_ignored(s0: dict[str, str]) -> Callable[[str], bool]:
    """Whether S0's ``.gitignore`` files ignore a path: a recorded diff git made (SWE-agent's
    submission, a ``git diff`` after ``git add -A``) never holds such a file, though the replayed
    actions may well have written one (a log, a build directory).

    Every ``.gitignore`` in S0 applies below its own directory, with git's semantics
    (:class:`pathspec.GitIgnoreSpec`, read shallowest first): the deepest file with a matching
    pattern decides, and a negated pattern (``!keep.log``) un-ignores. S0's own, not the final
    state's: an episode cannot hide its changes by editing the ``.gitignore``."""
    specs = [
        (path.rpartition("/")[0], pathspec.GitIgnoreSpec.from_lines(s0[path].splitlines()))
        for path in sorted(s0, key=lambda p: (p.count("/"), p))
        if path == ".gitignore" or path.endswith("/.gitignore")
    ]

    def ignored(path: str) -> bool:
        verdict = False
        for folder, spec in specs:
            if folder and not path.startswith(f"{folder}/"):
                continue
            decided = spec.check_file(path[len(folder) + 1 :] if folder else path).include
            verdict = verdict if decided is None else decided
        return verdict

    return ignored


def final_ignored(s0: dict[str, str], ignored_new: Collection[str] | None) -> Callable[[str], bool]:
    """Whether git leaves a path of the replayed final state out of the diffs it makes there: a
    path S0 holds by S0's own ``.gitignore`` files (:func:`git_ignored`: the agent's checkout may
    not have tracked it, and a rule the actions wrote never hides a change to it, as git never
    ignores a tracked file); a path S0 lacks as git answered in the replayed checkout
    (``ignored_new``, :attr:`ReplayResult.ignored_new`), so a ``.gitignore`` a tool or the agent
    wrote during the run (``.pytest_cache/``'s, a ``build/`` line) counts as it counted for the
    agent's ``git add -A && git diff``; without that answer, by S0's rules.

    Why git's answer for new files is safe to take: such a file is out of the recorded post-image
    the oracle and the later stages judge, with a recorded diff (it is not in it) and without one
    (:func:`_judge_final_state` leaves it out, as git would ship it), so hiding one gains nothing
    that deleting it before the end would not; tests and harness hooks the actions wrote are
    caught by their effect first (:attr:`ReplayResult.protected_writes`). Before, only S0's rules
    counted, and every honest log that ran ``pytest`` was ``final_state_mismatch`` for the four
    files of ``.pytest_cache/`` (red team, 2026-12-06)."""
    by_s0 = git_ignored(s0)
    if ignored_new is None:
        return by_s0
    asked = frozenset(ignored_new)
    return lambda path: by_s0(path) if path in s0 else path in asked


def _call_names(episode: Episode, turns: list[int]) -> list[str]:
    """The names of the calls at ``turns``, each once; a name that does not read as a command or
    tool name (a text action's first word can be anything) is shown as ``<unnamed>``, never as
    record text."""
    names = {r.turn: r.call.name or "" for r in call_records(episode)}
    return sorted({n if _NAME.fullmatch(n) else "<unnamed>" for n in (names.get(t, "") for t in turns)})


def _judge_final_state(
    check: ReplayCheck,
    episode: Episode,
    context: FixtureContext,
    diff: DiffView,
    final: dict[str, str],
    ignored_new: Collection[str] | None = None,
) -> None:
    """A recorded diff must be what the replayed actions produced; without one, the replayed state
    is the post-image, as git would make it: without the files S0 lacks that git ignores
    (:func:`final_ignored`). The oracle judged them before when the log left its diff out, so a fix
    put in an ignored file (``local_settings.py``, ``_version.py``, ``build/``), which git never
    carries into a diff, passed, while the same log with git's diff failed (red team, 2026-12-06).
    A path git ignores (:func:`final_ignored`) is let through only where the recorded
    diff leaves it as S0 has it (replayed actions write logs and build output a git diff never
    holds); one the diff itself changes must be what the actions made: a red team's diff added an
    ignored module the commands never wrote, and the oracle judged it (2026-12-06). So is a file of
    the checkout's ``.git`` folder (an S0 that lists one), which the replay's final state leaves out.

    A file the actions left holding bytes that are not UTF-8 (:func:`gym.sandbox.not_text`) is
    ``final_state_not_text``, ``unverifiable``, unless it is let through as above: the platform's
    state, a recorded diff and the trained text are text, so such a file can be neither compared
    nor judged as what a checkout holds (one let through is left as S0 has it, as git leaves it
    out of a diff). Read with ``errors="replace"``, a raw 0xE9 that ``sed``
    wrote into a string literal became U+FFFD: the module imported for the oracle, the recorded
    diff held the same U+FFFD, and on a real checkout it was a ``SyntaxError`` (red team,
    2026-12-06). Not tamper: an honest edit of a Latin-1 data file ends here too. A text file that
    differs is still ``final_state_mismatch`` first."""
    has_diff = episode.outcome.workspace_diff is not None
    recorded = diff.post if has_diff and diff.post is not None else dict(context.files)
    ignored = final_ignored(context.files, ignored_new)

    def let_through(path: str) -> bool:
        unlisted = ignored(path) or path.startswith(f"{GIT_DIR}/")  # the checkout's own folder
        return unlisted and recorded.get(path) == context.files.get(path)

    binary = sorted(p for p, text in final.items() if not_text(text) and not let_through(p))
    differing = sorted(
        p
        for p in set(recorded) | set(final)
        if recorded.get(p) != final.get(p) and not let_through(p) and p not in binary
    )
    if has_diff and differing:
        check.sink = "tamper_quarantine"
        check.findings.append(
            Finding(
                "final_state_mismatch",
                f"the recorded diff differs from the replayed actions' result in {len(differing)} "
                f"file(s): {_listed(differing)}",
                path=differing[0],
            )
        )
    elif binary:
        check.sink = "unverifiable"
        check.findings.append(
            Finding(
                "final_state_not_text",
                f"the replayed actions left {len(binary)} file(s) holding bytes that are not UTF-8: "
                f"{_listed(binary)}",
                path=binary[0],
            )
        )
    elif not has_diff:  # what is left that is not text is let through: as S0 has it, as git leaves it
        kept = {p: context.files[p] if not_text(t) else t for p, t in final.items() if p in context.files}
        kept.update({p: t for p, t in final.items() if p not in context.files and not let_through(p)})
        check.view = _view_of(context.files, dict(sorted(kept.items())))


def _listed(paths: list[str]) -> str:
    """The first paths of a finding, and whether there are more."""
    return ", ".join(paths[:5]) + (" ..." if len(paths) > 5 else "")
