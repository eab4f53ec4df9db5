"""What the stages know about one episode: its fixture (if any) and its parsed final diff.

``FixtureContext`` is the curation-side view of a gym fixture: S0's files, the paths the agent may
not touch, the declared edit scope and the minimum tool calls. ``DiffView`` is the episode's final
workspace diff, parsed once and shared by the stages; when the diff does not parse, a tolerant
line scan still recovers the touched paths and added lines so that the tamper screen can run.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import PurePosixPath
from typing import Any

from trajectory_platform.curation.verify.pysource import parse_python
from trajectory_platform.gym.diffs import NULL_PATH, FilePatch, PatchError, header_path, parse_unified_diff
from trajectory_platform.gym.sandbox import SandboxError, apply_diff
from trajectory_platform.traces.record import Episode


@dataclass
class FixtureContext:
    """Curation's view of a fixture; ``handle`` is the gym object the dynamic stage runs."""

    fixture_id: str
    files: dict[str, str]
    protected: frozenset[str] = frozenset()
    edit_scope: tuple[str, ...] | None = None
    min_tool_calls: int | None = None
    timing_sensitive: bool = False
    s0_digest: str | None = None
    handle: Any = None
    oracle_timeout_s: float | None = None
    """The fixture's own oracle time limit, when it declares one (:meth:`timeout_s`)."""
    test_imports: frozenset[str] = frozenset()
    """Top-level modules the sealed tests import (stage 4 reads which a new module shadows)."""

    def timeout_s(self, default: float) -> float:
        """The oracle's time limit for this fixture: its own when declared, else ``default``."""
        return self.oracle_timeout_s if self.oracle_timeout_s is not None else default


@dataclass
class DiffView:
    """The final workspace diff: touched paths, added lines per path, and S0 / post-image files."""

    text: str
    patches: list[FilePatch] = field(default_factory=list)
    parse_error: PatchError | None = None
    added: dict[str, list[str]] = field(default_factory=dict)
    pre: dict[str, str] | None = None
    post: dict[str, str] | None = None
    apply_error: PatchError | None = None

    @property
    def paths(self) -> list[str]:
        return sorted(self.added)

    def text_of(self, path: str) -> str:
        """``path``'s post-image when there is one, else the lines the diff adds to it."""
        if self.post is not None and path in self.post:
            return self.post[path]
        return "\n".join(self.added.get(path, []))

    def changed_texts(self) -> dict[str, str]:
        """The post-image text of every path the diff changes (none without a post-image): what a
        module's name or an exported class may be read from by the screens of stages 2 and 4
        (:func:`.pysource.new_counts`' ``files``), one reading for both."""
        post = self.post or {}
        return {path: post[path] for path in self.paths if path in post}

    def code_paths(self) -> list[str]:
        """The changed paths the stages inspect as Python: every ``.py`` file, and any other changed
        file that parses as Python and that the diff's Python names (its file name or stem appears
        in a changed ``.py`` file): ``runpy.run_path('inventory/notes.txt')``,
        ``exec(open('notes.txt').read())`` run code the interpreter never asks the extension of.
        A note or data file no changed code names is never read as code."""
        python = [p for p in self.paths if p.endswith(".py")]
        named = "\n".join(self.text_of(p) for p in python)
        others = [
            p
            for p in self.paths
            if not p.endswith(".py")
            and (PurePosixPath(p).name in named or PurePosixPath(p).stem in named)
            and parse_python(self.text_of(p))[0] is not None
        ]
        return sorted(python + others)


def index_patches(view: DiffView) -> None:
    """Fill ``view.added`` from its parsed patches: every touched path (both names of a rename)
    with the lines added to it."""
    for patch in view.patches:
        for path in patch.paths:
            view.added.setdefault(path, [])
        view.added[patch.path].extend(patch.added_lines)


def _scanned_path(line: str) -> str:
    """The file a ``+++`` line of an unparseable diff names, for the tamper screen's evidence: the
    strict reading when it has one, else the raw text (the episode is rejected at stage 1 anyway)."""
    try:
        return header_path(line) or NULL_PATH
    except PatchError:
        return line[4:].partition("\t")[0].strip() or line[4:]


def build_diff_view(episode: Episode) -> DiffView:
    """Parse the episode's final workspace diff (stage 1 work: patches must parse)."""
    text = episode.outcome.workspace_diff or ""
    view = DiffView(text=text)
    try:
        view.patches = parse_unified_diff(text)
    except PatchError as exc:
        view.parse_error = exc
        current = None
        for line in text.splitlines():
            if line.startswith("+++ "):
                current = _scanned_path(line)
                view.added.setdefault(current, [])
            elif current and line.startswith("+"):
                view.added[current].append(line[1:])
        return view
    index_patches(view)
    return view


def apply_to_fixture(view: DiffView, fixture: FixtureContext) -> None:
    """Replay a parsed diff onto S0 (stage 2 work); records the post-image or why it failed.

    The gym's own applier is used so that the post-image judged here is byte-for-byte the one the
    sandbox would build from the same diff.
    """
    if view.parse_error is not None:
        return
    view.pre = fixture.files
    try:
        view.post = apply_diff(fixture.files, view.text) if view.text.strip() else dict(fixture.files)
    except SandboxError as exc:
        cause = exc.__cause__
        view.apply_error = cause if isinstance(cause, PatchError) else PatchError(str(exc))
