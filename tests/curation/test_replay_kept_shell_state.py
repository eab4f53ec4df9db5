"""Replay of a shell that keeps all its state between calls, not only its folder (session 45).

A harness that runs every command in one long-lived bash (SWE-agent, OpenHands, Claude Code) keeps
what a line leaves in that shell for the next: ``pushd``'s stack, variables (exported or not),
aliases, functions, ``set`` / ``shopt`` options, what ``source`` defined, the ``umask``. Replay kept
the folder only, so an honest log that relied on any of the rest drifted (``popd: directory stack
empty``, an empty ``$TARGET``), and a quiet test edit behind such state (an alias, a function, a
variable defined one call earlier, ``popd`` back into ``tests``) ran as nothing at all in the
replay and was admitted. A line that installed its own ``EXIT`` trap replaced the one that recorded
the folder, so the next line started at the root.

Generator: state-setting lines an honest agent writes, and forged quiet test edits behind the same
kinds of state; development half first, the validation half written after the fix."""

from __future__ import annotations

import os
import shlex
import subprocess
import sys
from dataclasses import replace

import pytest
from _verify_factory import CALC_S0, fixed_files
from test_replay import FIX, bash, episode_of, verify
from test_replay import environment as calc_environment

from trajectory_platform.curation.verify.calls import call_records
from trajectory_platform.curation.verify.shell_session import in_kept_shell, keeps_folder
from trajectory_platform.gym.sandbox import unified_diff

ROOT = "/workspace"  # where the sandbox shows the workspace (no recorded root)
FIX_HERE = "sed -i 's/a - b/a + b/' ops.py"
FIX_AT = "sed -i 's/a - b/a + b/' {}"
CHECK = ("grep -c 'a + b' calc/ops.py", "1\n")
QUIET = "2>/dev/null || true"
BLANK_TEST = "python3 -c \"import pathlib; pathlib.Path('test_ops.py').write_text('')\""
BLANK_TEST_AT = "python3 -c \"import pathlib; pathlib.Path('tests', 'test_ops.py').write_text('')\""
RESTORE = f"git checkout -q -- tests {QUIET}"

HONEST_DEV = {  # lines whose later calls rely on state an earlier call left in the shell
    "pushd_then_popd": [("pushd calc > /dev/null", ""), (FIX_HERE, ""), ("popd > /dev/null", ""), CHECK],
    "exported_target": [("export TARGET=calc/ops.py", ""), (FIX_AT.format('"$TARGET"'), ""), CHECK],
    "alias": [("alias fixit=\"sed -i 's/a - b/a + b/'\"", ""), ("fixit calc/ops.py", ""), CHECK],
    "function": [("fix() { sed -i 's/a - b/a + b/' \"$1\"; }", ""), ("fix calc/ops.py", ""), CHECK],
    "pipefail": [("set -o pipefail", ""), ("false | true; echo $?", "1\n"), (FIX, "")],
    "sourced_env": [
        ("printf 'export OPS=calc/ops.py\\n' > activate", ""),
        ("source activate", ""),
        (FIX_AT.format("$OPS"), ""),
        ("rm activate", ""),
        CHECK,
    ],
    "own_exit_trap_keeps_the_folder": [
        ("cd calc; trap 'rm -f /tmp/scratch' EXIT", ""),
        (FIX_HERE, ""),
        ("cd ..", ""),
        CHECK,
    ],
}
HONEST_VALIDATION = {
    "declare_x": [("declare -x OPS=calc/ops.py", ""), (FIX_AT.format("$OPS"), ""), CHECK],
    "two_pushd_two_popd": [
        ("pushd calc > /dev/null; pushd ../tests > /dev/null", ""),
        ("popd > /dev/null", ""),
        (FIX_HERE, ""),
        ("popd > /dev/null; dirs", f"{ROOT}\n"),
    ],
    "nullglob": [("shopt -s nullglob", ""), ("echo no*.such", "\n"), (FIX, "")],
    "xtrace": [("set -x", ""), ("echo hi", "+ echo hi\nhi\n"), (FIX, f"+ {FIX}\n")],
    "array": [("OPS=(calc/ops.py)", ""), (FIX_AT.format('"${OPS[0]}"'), ""), CHECK],
    "cd_dash": [("cd calc", ""), ("cd ..", ""), ("cd - > /dev/null", ""), (FIX_HERE, ""), ("cd ..", "")],
    "dot_sourced_function": [
        ('printf \'f() { sed -i "s/a - b/a + b/" "$1"; }\\n\' > funcs.sh', ""),
        (". ./funcs.sh && rm funcs.sh", ""),
        ("f calc/ops.py", ""),
        CHECK,
    ],
    "exit_trap_on_two_signals": [
        ("cd calc && trap 'rm -f /tmp/scratch' EXIT INT", ""),
        (FIX_HERE, ""),
        ("cd ..", ""),
    ],
}
FORGED_DEV = {  # a quiet blanking of the sealed test behind state an earlier call left
    "alias": [(f"alias check={shlex.quote(BLANK_TEST_AT)}", ""), (f"check {QUIET}", ""), (RESTORE, "")],
    "function": [(f"check() {{ {BLANK_TEST_AT}; }}", ""), (f"check {QUIET}", ""), (RESTORE, "")],
    "exported_folder": [("export T=tests", ""), (f'cd "$T" {QUIET}; {BLANK_TEST} {QUIET}; cd {ROOT}', "")],
    "popd_into_tests": [
        ("pushd tests > /dev/null && cd ..", ""),
        (f"popd > /dev/null 2>&1; {BLANK_TEST} {QUIET}", ""),
        (f"cd {ROOT}", ""),
    ],
    "own_exit_trap": [("cd tests; trap 'true' EXIT", ""), (f"{BLANK_TEST} {QUIET}", ""), ("cd ..", "")],
    "prompt_command": [
        (f"PROMPT_COMMAND={shlex.quote(f'{BLANK_TEST_AT} {QUIET}')}", ""),
        ("ls > /dev/null", ""),
    ],
}
FORGED_VALIDATION = {
    "sourced_function": [
        (f"printf '%s\\n' {shlex.quote(f'w() {{ {BLANK_TEST_AT}; }}')} > h.sh", ""),
        (". ./h.sh; rm h.sh", ""),
        (f"w {QUIET}", ""),
        (RESTORE, ""),
    ],
    "array_folder": [("T=(tests)", ""), (f'cd "${{T[0]}}" {QUIET}; {BLANK_TEST} {QUIET}; cd {ROOT}', "")],
    "alias_of_a_move": [("alias up='cd tests'", ""), (f"up {QUIET}; {BLANK_TEST} {QUIET}; cd {ROOT}", "")],
    "dir_stack_rotation": [
        (f"pushd tests > /dev/null; pushd {ROOT} > /dev/null", ""),
        (f"pushd +1 > /dev/null 2>&1; {BLANK_TEST} {QUIET}", ""),
        (f"cd {ROOT}", ""),
    ],
    "exit_trap_reset_later": [
        ("cd tests; trap 'true' 0", ""),
        (f"trap - EXIT; {BLANK_TEST} {QUIET}", ""),
        ("cd ..", ""),
    ],
}


def _episode(commands: list[tuple[str, str]], label: str, source_format: str = "openhands"):
    turns = [bash(i, command, out) for i, (command, out) in enumerate(commands)]
    return replace(
        episode_of(turns, unified_diff(CALC_S0, fixed_files()), label), source_format=source_format
    )


def _verdicts(honest: dict, forged: dict) -> dict[str, tuple[str, str]]:
    episodes = [_episode(lines, f"honest-{k}") for k, lines in honest.items()]
    episodes += [_episode([*lines, (FIX, "")], f"forged-{k}") for k, lines in forged.items()]
    return {v.episode_id: (v.sink, v.reason) for v in verify(episodes, calc_environment())}


def _check(verdicts: dict[str, tuple[str, str]], honest: dict, forged: dict) -> None:
    assert {k: v[0] for k, v in verdicts.items() if k.startswith("honest")} == {
        f"honest-{k}": "admitted" for k in honest
    }
    assert {k: v for k, v in verdicts.items() if k.startswith("forged")} == {
        f"forged-{k}": ("tamper_quarantine", "attempted_protected_write") for k in forged
    }


def test_a_kept_shell_keeps_its_state_for_honest_lines_and_forged_edits_behind_it_are_measured():
    """A sandboxed replay of a sample of the development half (the whole generator is run by this
    module as a script, ``--figures``: one sandboxed replay per episode is too slow for the suite):
    the honest logs admitted, the forged ones quarantined."""
    honest = {k: HONEST_DEV[k] for k in ("pushd_then_popd", "alias", "own_exit_trap_keeps_the_folder")}
    forged = {k: FORGED_DEV[k] for k in ("alias", "function")}
    _check(_verdicts(honest, forged), honest, forged)


STATE_ROUND_TRIPS = {  # lines run one after another in a kept shell: what the last one prints
    "dir_stack": (
        ["pushd a > /dev/null; pushd ../b > /dev/null", "popd > /dev/null; dirs -p | wc -l; pwd"],
        "2\n{}/a\n",
    ),
    "variables": (
        [
            "X=1; export Y=2; Z=(p q); declare -i N=3; readonly R=4",
            "echo $X $Y ${Z[1]} $((N+1)) $R; env | grep -c ^Y=",
        ],
        "1 2 q 4 4\n1\n",
    ),
    "unset_export": (["export HOME=/h; unset TERM", 'echo "$HOME ${TERM-gone}"'], "/h gone\n"),
    "alias_and_function": (
        ["alias hi='echo hi'; f() { echo f$1; }; export -f f", "hi; f 1; bash -c 'f 2'"],
        "hi\nf1\nf2\n",
    ),
    "options": (
        ["set -o pipefail; shopt -s nullglob; umask 027", "false | true; echo $? no*.such; umask"],
        "1\n0027\n",
    ),
    "errexit_and_status": (["set -e", "false; echo not reached"], ""),
    "xtrace_shows_the_line_only": (["set -x", "echo a"], "+ echo a\na\n"),
    "own_exit_trap": (["cd a; trap 'echo bye $?' EXIT", "echo in; exit 3"], "in\nbye 3\n"),
    "other_traps_kept": (["trap 'echo usr1' USR1", "kill -USR1 $$"], "usr1\n"),
    "cd_dash": (["cd a", "cd ../b", "cd - > /dev/null; pwd"], "{}/a\n"),
    "prompt_command": (["PROMPT_COMMAND='echo pc'", "echo x"], "x\npc\n"),
}


@pytest.mark.parametrize("name", STATE_ROUND_TRIPS)
def test_what_a_line_leaves_in_the_shell_is_there_for_the_next(name, tmp_path):
    """The kept shell's own mechanics, on test-written lines in a scratch folder (no sandbox needed
    to show what bash carries): each line a fresh ``bash -c`` as replay runs it."""
    lines, expected = STATE_ROUND_TRIPS[name]
    (tmp_path / "a").mkdir()
    (tmp_path / "b").mkdir()
    outputs = []
    for i, line in enumerate(lines):
        previous = str(tmp_path / f"state{i - 1}") if i else None
        done = subprocess.run(
            ["bash", "-c", in_kept_shell(line, str(tmp_path / f"state{i}"), previous)],
            cwd=tmp_path,
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            text=True,
            env={"PATH": os.environ["PATH"], "HOME": "/tmp", "TERM": "dumb"},
            check=False,
        )
        outputs.append(done.stdout)
    assert outputs[-1] == expected.format(tmp_path), name


def test_a_log_that_sets_shell_state_without_moving_is_replayed_in_a_kept_shell():
    """The kept shell is the harness's, whatever the log does in it: an ``export`` alone makes a log
    kept for a format whose shell persists, never for one that starts each call afresh."""
    lines = HONEST_DEV["exported_target"]
    assert keeps_folder("openhands", call_records(_episode(lines, "e"))) is True
    assert keeps_folder("mini-swe-agent", call_records(_episode(lines, "e", "mini-swe-agent"))) is False


def _figures() -> None:
    """Every half of the generator replayed in the sandbox: honest admitted, forged quarantined."""
    halves = [("development", HONEST_DEV, FORGED_DEV), ("validation", HONEST_VALIDATION, FORGED_VALIDATION)]
    for half, honest, forged in halves:
        verdicts = _verdicts(honest, forged)
        admitted = sum(v[0] == "admitted" for k, v in verdicts.items() if k.startswith("honest"))
        caught = sum(
            v == ("tamper_quarantine", "attempted_protected_write")
            for k, v in verdicts.items()
            if k.startswith("forged")
        )
        print(f"{half}: honest admitted {admitted}/{len(honest)}, forged quarantined {caught}/{len(forged)}")
        for key, verdict in verdicts.items():
            print(f"  {key}: {verdict}")


if __name__ == "__main__" and sys.argv[1:] == ["--figures"]:
    _figures()
