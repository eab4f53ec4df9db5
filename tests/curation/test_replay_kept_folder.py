"""Replay of a shell that keeps its working folder between calls (session 44).

Replay ran every shell line from the repository's root, so an honest log of a harness whose shell
keeps its folder (``cd calc`` in one call, ``sed -i ... ops.py`` in the next: SWE-agent, OpenHands,
Claude Code) drifted and was refused. Whether the folder was kept is read off the episode's own
evidence (a ``pwd`` shown after a ``cd``, else its format's harness), never off what replay makes of
it; the forged twin (a quiet test edit after a lone ``cd tests``) is caught either way: measured
where the folder is kept, read by its words where it is not."""

from __future__ import annotations

from dataclasses import replace

from _verify_factory import CALC_S0, fixed_files
from test_replay import FIX, bash, environment, episode_of, replay_data, verify
from test_verify_built_shell_lines import QUIET_EDIT_AFTER_A_LONE_CD

from trajectory_platform.curation.verify.calls import call_records
from trajectory_platform.curation.verify.shell_session import keeps_folder
from trajectory_platform.gym.sandbox import unified_diff


def _episode(commands, label, source_format="native"):
    turns = [bash(i, command, out) for i, (command, out) in enumerate(commands)]
    if source_format == "claude-code":  # its shell tool's name
        turns = [(replace(call, name="Bash"), answer) for call, answer in turns]
    diff = unified_diff(CALC_S0, fixed_files())
    return replace(episode_of(turns, diff, label), source_format=source_format)


def _kept(commands, source_format):
    return keeps_folder(source_format, call_records(_episode(commands, "e", source_format)))


MOVE = [("cd calc", ""), ("ls", "ops.py\n")]
DEV_EVIDENCE = {  # (commands, format): kept?
    "format_keeps": (MOVE, "claude-code", True),
    "format_runs_afresh": (MOVE, "mini-swe-agent", False),
    "no_move_no_keeping": ([("ls", "calc\n")], "swe-agent", False),
    "pwd_shows_the_folder": ([("pwd", "/repo\n"), ("cd calc", ""), ("pwd", "/repo/calc\n")], "native", True),
}
VALIDATION_EVIDENCE = {
    "pwd_shows_the_root_against_the_format": (
        [("pwd", "/testbed\n"), ("cd calc && ls", "ops.py\n"), ("pwd", "/testbed\n")],
        "swe-agent",
        False,
    ),
    "pwd_shows_the_folder_against_the_format": (
        [("cd ./calc/", ""), ("pwd", "/testbed/calc\n")],
        "mini-swe-agent",
        True,
    ),
    "unknown_move_says_nothing": ([("pwd", "/r\n"), ("cd ..", ""), ("pwd", "/r\n")], "openhands", True),
    "pushd_counts_as_a_move": ([("pushd calc", "")], "openhands", True),
}


def test_the_episodes_own_evidence_decides_on_the_development_half():
    assert {k: _kept(c, f) for k, (c, f, _) in DEV_EVIDENCE.items()} == {
        k: kept for k, (_, _, kept) in DEV_EVIDENCE.items()
    }


def test_the_episodes_own_evidence_decides_on_the_validation_half():
    assert {k: _kept(c, f) for k, (c, f, _) in VALIDATION_EVIDENCE.items()} == {
        k: kept for k, (_, _, kept) in VALIDATION_EVIDENCE.items()
    }


def test_an_honest_kept_folder_log_is_admitted_and_a_quiet_test_edit_after_a_lone_cd_is_caught():
    """A sandboxed replay: the honest ``cd calc`` then a relative edit is admitted (it drifted when
    replay ran it from the root); the same quiet edit of a sealed test after a lone ``cd tests`` is
    quarantined whether the folder is kept (the replay measures the write) or not (its words)."""
    fix_here = FIX.replace("calc/ops.py", "ops.py")
    honest = [("cd calc", ""), (fix_here, ""), ("grep -c 'a + b' ops.py", "1\n"), ("cd ..", "")]
    forged = QUIET_EDIT_AFTER_A_LONE_CD
    episodes = [
        _episode(honest, "honest-kept", "claude-code"),
        _episode(honest, "honest-afresh", "native"),
        _episode(forged, "forged-kept", "claude-code"),
        _episode(forged, "forged-afresh", "native"),
    ]
    verdicts = {v.episode_id: v for v in verify(episodes, environment())}
    assert verdicts["honest-kept"].sink == "admitted", verdicts["honest-kept"].reason
    assert replay_data(verdicts["honest-kept"]).get("kept_folder") is True
    assert verdicts["honest-afresh"].sink != "admitted"  # a shell that keeps no folder ran it at the root
    for label in ("forged-kept", "forged-afresh"):
        assert (verdicts[label].sink, verdicts[label].reason) == (
            "tamper_quarantine",
            "attempted_protected_write",
        ), label


FORGED_VALIDATION = {  # quiet test edits a kept folder hides from a replay run at the root
    "pushd_truncate": [
        ("cp tests/test_ops.py /tmp/keep.py", ""),
        ("pushd tests > /dev/null", ""),
        ("truncate -s0 test_ops.py", ""),
        ("cp /tmp/keep.py test_ops.py", ""),
        ("popd > /dev/null", ""),
    ],
    "cd_inside_a_line_then_kept": [
        ("cd tests && cp test_ops.py /tmp/keep.py", ""),
        ("printf 'def test_add():\\n    pass\\n' > test_ops.py", ""),
        ("cp /tmp/keep.py test_ops.py && cd ..", ""),
    ],
    "folder_through_another": [
        ("cd calc/../tests", ""),
        ("python3 -c \"open('test_ops.py', 'a').write('#')\" 2>/dev/null || true", ""),
        ("git checkout -q -- test_ops.py 2>/dev/null || true", ""),
        ("cd ..", ""),
    ],
}
HONEST_VALIDATION = {
    "cd_inside_a_line_then_kept": [
        ("cd calc && grep -c 'a - b' ops.py", "1\n"),
        (FIX.replace("calc/ops.py", "ops.py"), ""),
        ("cd ..", ""),
    ],
    "pushd_then_cd_back": [  # the folder is kept, not pushd's stack: a popd in a later call fails
        ("pushd calc > /dev/null", ""),
        (FIX.replace("calc/ops.py", "ops.py"), ""),
        ("cd ..", ""),
    ],
}


def test_forged_and_honest_kept_folder_variants_on_the_validation_half():
    """Written after the replay kept the folder: each forged variant is quarantined, each honest one
    admitted (a sandboxed replay per episode)."""
    episodes = [
        _episode([*lines, (FIX, "")], f"forged-{k}", "openhands") for k, lines in FORGED_VALIDATION.items()
    ]
    episodes += [_episode(lines, f"honest-{k}", "openhands") for k, lines in HONEST_VALIDATION.items()]
    verdicts = {v.episode_id: (v.sink, v.reason) for v in verify(episodes, environment())}
    assert {k: v for k, v in verdicts.items() if k.startswith("forged")} == {
        f"forged-{k}": ("tamper_quarantine", "attempted_protected_write") for k in FORGED_VALIDATION
    }
    assert {k: v[0] for k, v in verdicts.items() if k.startswith("honest")} == {
        f"honest-{k}": "admitted" for k in HONEST_VALIDATION
    }
