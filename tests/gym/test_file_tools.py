"""The coding CLIs' file tools as the replay driver performs them (``gym/_file_tools.py``), on a
folder of its own: each tool's rules, and all of a call's changes or none."""

from __future__ import annotations

from pathlib import Path

import pytest

from trajectory_platform.gym._file_tools import ToolError, Unreplayable, perform

OPS = "def add(a, b):\n    return a - b\n\n\ndef mul(a, b):\n    return a * b\n"


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    (tmp_path / "calc").mkdir()
    (tmp_path / "calc" / "ops.py").write_text(OPS)
    return tmp_path


def run(repo: Path, operation: str, **arguments: object) -> dict:
    def resolve(raw: str) -> str:
        assert raw.startswith("/repo/"), raw
        return str(repo / raw.removeprefix("/repo/"))

    return perform(operation, {"base": "/repo", **arguments}, resolve)


def patch(*lines: str) -> str:
    return "\n".join(["*** Begin Patch", *lines, "*** End Patch"])


def test_a_patch_updates_adds_moves_and_deletes_files(repo):
    (repo / "old.txt").write_text("x\n")
    (repo / "gone.txt").write_text("y\n")
    answer = run(
        repo,
        "apply_patch",
        patch=patch(
            "*** Update File: calc/ops.py",
            "@@ def add(a, b):",
            "-    return a - b",
            "+    return a + b",
            "*** Add File: docs/NOTES.md",
            "+fixed add",
            "*** Update File: old.txt",
            "*** Move to: new.txt",
            "@@",
            "-x",
            "+z",
            "*** Delete File: gone.txt",
        ),
    )
    assert (repo / "calc" / "ops.py").read_text() == OPS.replace("a - b", "a + b")
    assert (repo / "docs" / "NOTES.md").read_text() == "fixed add\n"
    assert (repo / "new.txt").read_text() == "z\n" and not (repo / "old.txt").exists()
    assert not (repo / "gone.txt").exists()
    assert answer["output"].splitlines()[1:] == [
        "M calc/ops.py",
        "A docs/NOTES.md",
        "M new.txt",
        "D gone.txt",
    ]


def test_a_hunk_is_found_after_the_last_one_ignoring_whitespace_as_codex_does(repo):
    (repo / "calc" / "ops.py").write_text("a = 1\nb = 2  \na = 1\n")
    run(
        repo,
        "apply_patch",
        patch=patch("*** Update File: calc/ops.py", "@@", " a = 1", "-b = 2", "+b = 3", "-a = 1", "+a = 4"),
    )
    assert (repo / "calc" / "ops.py").read_text() == "a = 1\nb = 3\na = 4\n", "trailing spaces ignored"
    run(
        repo,
        "apply_patch",
        patch=patch("*** Update File: calc/ops.py", "@@", "-a = 4", "+a = 5", "*** End of File"),
    )
    assert (repo / "calc" / "ops.py").read_text() == "a = 1\nb = 3\na = 5\n"


def test_a_patch_with_one_hunk_that_does_not_apply_changes_nothing(repo):
    with pytest.raises(ToolError, match="Failed to find expected lines"):
        run(
            repo,
            "apply_patch",
            patch=patch(
                "*** Add File: added.txt",
                "+new",
                "*** Update File: calc/ops.py",
                "@@",
                "-    return a ~ b",
                "+    return a + b",
            ),
        )
    assert not (repo / "added.txt").exists() and (repo / "calc" / "ops.py").read_text() == OPS
    with pytest.raises(ToolError, match="Begin Patch"):
        run(repo, "apply_patch", patch="*** Update File: calc/ops.py\n-x\n+y")


def test_an_edit_replaces_one_occurrence_all_with_replace_all_or_as_many_as_expected(repo):
    seen = run(repo, "read", path="/repo/calc/ops.py")["seen"]
    ab = [{"old": "(a, b)", "new": "(x, y)"}]
    with pytest.raises(ToolError, match="Found 2 matches"):
        run(repo, "edit", path="/repo/calc/ops.py", edits=ab, require_read=True, seen=seen)
    with pytest.raises(ToolError, match="Expected 1 occurrence"):
        run(repo, "edit", path="/repo/calc/ops.py", edits=[{**ab[0], "expected": 1}])
    answer = run(repo, "edit", path="/repo/calc/ops.py", edits=[{**ab[0], "expected": 2}])
    assert (repo / "calc" / "ops.py").read_text().count("(x, y)") == 2 and answer["seen"].count("(x, y)") == 2
    steps = [{"old": "(x, y)", "new": "(a, b)", "replace_all": True}, {"old": "a - b", "new": "a + b"}]
    run(repo, "edit", path="/repo/calc/ops.py", edits=steps, require_read=True, seen=answer["seen"])
    assert (repo / "calc" / "ops.py").read_text() == OPS.replace("a - b", "a + b")


def test_an_edit_whose_second_step_fails_changes_nothing(repo):
    steps = [{"old": "a - b", "new": "a + b"}, {"old": "no such text", "new": "x"}]
    with pytest.raises(ToolError, match="not found"):
        run(repo, "edit", path="/repo/calc/ops.py", edits=steps)
    assert (repo / "calc" / "ops.py").read_text() == OPS


def test_claude_code_edits_and_overwrites_only_what_the_agent_read_unchanged(repo):
    path = "/repo/calc/ops.py"
    fix = [{"old": "a - b", "new": "a + b"}]
    with pytest.raises(ToolError, match="has not been read"):
        run(repo, "write", path=path, content="x\n", require_read=True)
    seen = run(repo, "read", path=path)["seen"]
    (repo / "calc" / "ops.py").write_text(OPS + "# changed by a command\n")
    with pytest.raises(ToolError, match="modified since read"):
        run(repo, "edit", path=path, edits=fix, require_read=True, seen=seen)
    created = run(repo, "write", path="/repo/new/module.py", content="x = 1\n", require_read=True)
    assert created["output"] == created["seen"] == "x = 1\n", "the file after the call"


def test_an_empty_old_text_creates_a_missing_file_and_nothing_else(repo):
    run(repo, "edit", path="/repo/calc/new.py", edits=[{"old": "", "new": "x = 1\n"}])
    assert (repo / "calc" / "new.py").read_text() == "x = 1\n"
    with pytest.raises(ToolError, match="already exists"):
        run(repo, "edit", path="/repo/calc/ops.py", edits=[{"old": "", "new": "x"}])
    with pytest.raises(ToolError, match="exactly the same"):
        run(repo, "edit", path="/repo/calc/ops.py", edits=[{"old": "a", "new": "a"}])
    with pytest.raises(ToolError, match="does not exist"):
        run(repo, "read", path="/repo/missing.py")


def test_an_edit_that_matches_only_with_straight_quotes_is_not_guessed(repo):
    (repo / "calc" / "ops.py").write_text("msg = \u201chello\u201d\n")
    with pytest.raises(Unreplayable):
        run(repo, "edit", path="/repo/calc/ops.py", edits=[{"old": 'msg = "hello"', "new": 'msg = "hi"'}])
