"""A checkout of the same files is made by git once and copied after (``gym/shell.py``
``Checkouts``): the differential check made the same two checkouts again in its second judge, a
sandbox and three git processes each. The copy must be the checkout git makes (the same commit,
tree, refs and every ``.git`` byte but the index's stat fields), and nothing a run writes into its
copy may reach the next one."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest

from trajectory_platform.gym import shell
from trajectory_platform.gym.sandbox import Workspace
from trajectory_platform.gym.shell import GIT_DIR, Checkouts

FILES = {
    "calc/__init__.py": "",
    "calc/ops.py": "def add(a, b):\n    return a + b\n",
    ".gitignore": "calc/\n",  # `git add -f`: tracked all the same
    "data/table.csv": "a,b\n1,2\n",
}


def _git(root: Path, *args: str) -> str:
    # safe.directory: the checkout is the sandbox user's, this test may run as root
    return subprocess.run(
        ["git", "-c", "safe.directory=*", *args], cwd=root, capture_output=True, text=True, check=True
    ).stdout


def _git_bytes(root: Path) -> dict[str, tuple[int, bytes | None]]:
    """Every entry of ``root``'s ``.git`` but the index: its mode and bytes (``None``: a folder)."""
    found: dict[str, tuple[int, bytes | None]] = {}
    for path in sorted((root / GIT_DIR).rglob("*")):
        rel = path.relative_to(root).as_posix()
        if rel != f"{GIT_DIR}/index":
            found[rel] = (path.lstat().st_mode, None if path.is_dir() else path.read_bytes())
    return found


@pytest.fixture
def counted(monkeypatch: pytest.MonkeyPatch) -> list[Path]:
    """The workspaces git itself made a checkout of (the real ``make_checkout``, counted)."""
    made: list[Path] = []
    real = shell.make_checkout

    def counting(root: Path) -> None:
        made.append(root)
        real(root)

    monkeypatch.setattr(shell, "make_checkout", counting)
    return made


def test_a_copied_checkout_is_the_one_git_makes(counted: list[Path]) -> None:
    checkouts = Checkouts()
    with Workspace(FILES) as first, Workspace(FILES) as second, Workspace(FILES) as fresh:
        checkouts.make(first.root, FILES)
        checkouts.make(second.root, FILES)
        shell.make_checkout(fresh.root)
        assert counted == [first.root, fresh.root]  # the second was copied, not made
        head = _git(fresh.root, "rev-parse", "HEAD")
        for root in (first.root, second.root):
            assert _git(root, "rev-parse", "HEAD") == head
            assert _git(root, "ls-files", "-s") == _git(fresh.root, "ls-files", "-s")
            assert _git(root, "status", "--porcelain") == ""
            assert _git_bytes(root) == _git_bytes(fresh.root)


def test_a_write_into_a_copied_checkout_never_reaches_the_next_copy(counted: list[Path]) -> None:
    checkouts = Checkouts()
    with Workspace(FILES) as first:
        checkouts.make(first.root, FILES)
        made = _git_bytes(first.root)
        head = _git(first.root, "rev-parse", "HEAD")
    with Workspace(FILES) as second:
        checkouts.make(second.root, FILES)
        (second.root / "calc" / "ops.py").write_text("def add(a, b):\n    return 5\n", encoding="utf-8")
        _git(second.root, "-c", "user.name=x", "-c", "user.email=x@x", "commit", "-qam", "rewritten")
        (second.root / GIT_DIR / "config").write_text("[core]\n\tfsmonitor = /bin/false\n", encoding="utf-8")
        os.chmod(second.root / GIT_DIR / "HEAD", 0o666)
    with Workspace(FILES) as third:
        checkouts.make(third.root, FILES)
        assert _git(third.root, "rev-parse", "HEAD") == head
        assert _git_bytes(third.root) == made
    assert len(counted) == 1


def test_other_files_or_a_brought_repository_are_made_by_git(counted: list[Path]) -> None:
    checkouts = Checkouts()
    other = {**FILES, "calc/ops.py": "def add(a, b):\n    return a + b  \n"}  # one byte more
    brought = {**FILES, ".git/HEAD": "ref: refs/heads/main\n"}
    with Workspace(FILES) as a, Workspace(other) as b, Workspace(brought) as c, Workspace(brought) as d:
        for workspace, files in ((a, FILES), (b, other), (c, brought), (d, brought)):
            checkouts.make(workspace.root, files)
        assert counted == [a.root, b.root, c.root, d.root]
        assert _git(a.root, "rev-parse", "HEAD") != _git(b.root, "rev-parse", "HEAD")
