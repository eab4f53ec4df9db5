"""Codex patches carried by a shell call: the Codex CLI intercepts ``[apply_patch, PATCH]``
(``applypatch`` too) and a ``bash -lc`` script that is one ``apply_patch`` heredoc (after ``cd
<folder> &&`` or not; the ``exec_command`` tool's ``cmd`` alike) and applies the patch itself,
never running a shell (``codex-rs/apply-patch``). Replay ran those as shell lines, where
``apply_patch`` is not found: the edit recorded between the calls was never made, the call drifted
and every later call saw another workspace than the agent's. Each episode applies the fix, takes it
back and applies it again, in one form after another: a patch applies only to the file the one
before it left (its outcome is compared), and the final state is the fix. Development forms
developed against, validation forms run once after (both first drifted on the test's own recorded
summary of a patch written from ``calc``, which Codex prints by the path the patch names); the
control is a heredoc that is no patch, still run by the shell."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from test_replay import FIXED, environment
from test_replay_coding_clis import PATCH, PATCHED, ROOT, codex_session, shell, wrapped

from trajectory_platform.curation.verify.cli_tools import patch_invocation
from trajectory_platform.curation.verify.replay import replay_episode

BACK = PATCH.replace("-    return a - b\n+    return a + b", "-    return a + b\n+    return a - b")
"""The fix taken back."""
HERE = PATCH.replace("calc/ops.py", "ops.py")
"""The patch as written from ``calc``."""
PATCHED_HERE = wrapped("Success. Updated the following files:\nM ops.py\n")
"""What Codex answers for the patch written from ``calc``: the path as the patch names it."""


def _heredoc(patch: str, delimiter: str = "'EOF'", before: str = "") -> str:
    return f"{before}apply_patch <<{delimiter}\n{patch}\nEOF\n"


def _exec(cmd: str, **more: str) -> dict:
    return {"type": "function_call", "name": "exec_command", "arguments": json.dumps({"cmd": cmd, **more})}


DEV = [
    (shell(["bash", "-lc", _heredoc(PATCH)]), PATCHED),
    (shell(["applypatch", BACK]), PATCHED),
    (shell(["bash", "-lc", _heredoc(HERE, before="cd calc && ")]), PATCHED_HERE),
]
VALIDATION = [
    (shell(["bash", "-lc", _heredoc(PATCH, '"EOF"')]), PATCHED),
    (
        shell(
            ["bash", "-lc", _heredoc(BACK.replace("calc/ops.py", "ops.py"), "EOF")], workdir=f"{ROOT}/calc"
        ),
        PATCHED_HERE,
    ),
    (_exec(_heredoc(PATCH)), PATCHED),
]


@pytest.mark.parametrize("half", ["development", "validation"])
def test_a_patch_carried_by_a_shell_call_is_applied_as_codex_applies_it(half: str, tmp_path: Path):
    turns = DEV if half == "development" else VALIDATION
    result = replay_episode(codex_session(tmp_path / "rollout.jsonl", turns), environment())
    assert (result.error, result.drift_turns, result.turns_replayed) == (None, [], len(turns))
    assert result.final_files == FIXED


def test_a_heredoc_that_is_no_patch_is_the_shells():
    assert patch_invocation(["bash", "-lc", "cat <<'EOF' > notes.txt\napply_patch\nEOF\n"]) is None
    assert patch_invocation(["bash", "-lc", _heredoc(PATCH) + "rm -f calc/ops.py\n"]) is None
    assert patch_invocation(["python3", "-c", _heredoc(PATCH)]) is None
    assert patch_invocation(["bash", "-lc", _heredoc(PATCH, before="cd $(mktemp -d) && ")]) is None
