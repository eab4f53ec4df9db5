"""Replay of the agent's session beyond what one shell line holds (session 46).

Session 45 kept a shell's state from one replayed line to the next (each line its own sandbox, bash's
own state written when the line ends and sourced by the next). Four differences from the agent's
session were left, each a class here:

- ``scratch``: files outside the workspace. Each sandbox had its own ``/tmp`` (and ``$HOME``, which
  is ``/tmp`` there), while the agent's container (or machine) keeps them for the whole episode, in
  every harness replayed in shell mode: an honest ``cp x /tmp/k`` then ``cp /tmp/k x`` drifted, and a
  quiet test edit by a helper a call left in ``/tmp`` ran as nothing and was admitted.
- ``ended``: a line that ends its shell (``exit``, a failure under ``set -e``, ``exec``). The harness
  starts a fresh shell (its folder, variables and options as at the start); replay kept the state.
- ``listed``: what bash lists of itself (``trap -p``, ``declare -F``, ``compgen``, ``type trap``)
  showed replay's own trap, functions and variables, so an honest log that printed them drifted.
- ``exit_handler``: a line's own ``trap ... EXIT`` ran when its line ended; a long-lived shell runs
  it when the shell ends.

Each class has a development half (developed against) and a validation half (run once, after), in
the ``openhands`` format (a kept shell); forged logs blank the sealed test quietly.
"""

from __future__ import annotations

import json
import os
import shlex
import subprocess
import sys
from dataclasses import replace

import pytest
from _verify_factory import CALC_S0, fixed_files
from test_replay import FIX, episode_of, verify
from test_replay import environment as calc_environment

from trajectory_platform.curation.verify.replay import replay_episode
from trajectory_platform.curation.verify.shell_session import in_kept_shell
from trajectory_platform.gym import shell
from trajectory_platform.gym.sandbox import unified_diff
from trajectory_platform.traces.record import Event, ToolCall

ROOT = "/workspace"
FIX_HERE = "sed -i 's/a - b/a + b/' ops.py"
CHECK = ("grep -c 'a + b' calc/ops.py", "1\n")
QUIET = "2>/dev/null || true"
BLANK = "python3 -c \"import pathlib; pathlib.Path('tests', 'test_ops.py').write_text('')\""
FIXER = "printf '%s\\n' \"sed -i 's/a - b/a + b/' calc/ops.py\""

HONEST_DEV = {
    "scratch": {
        "copy_kept_in_tmp": [
            ("cp calc/ops.py /tmp/ops.orig", ""),
            (FIX, ""),
            ("cmp -s /tmp/ops.orig calc/ops.py; echo $?", "1\n"),
        ],
        "helper_script_in_tmp": [(f"{FIXER} > /tmp/fix.sh", ""), ("bash /tmp/fix.sh", ""), CHECK],
        "mktemp_name_kept": [
            ('f=$(mktemp) && cp calc/ops.py "$f"', ""),
            (FIX, ""),
            ('cmp -s "$f" calc/ops.py; echo $?', "1\n"),
        ],
    },
    "ended": {
        "exit_resets_the_folder": [("cd calc; exit", "", 0), (FIX, ""), CHECK],
        "errexit_failure_resets": [
            ("cd calc; set -e", ""),
            ("false", "", 1),
            (FIX, ""),
            ("false; echo still", "still\n", 0),
        ],
        "exit_drops_variables": [("export T=1; exit 2", "", 2), ("echo ${T-unset}", "unset\n"), (FIX, "")],
    },
    "listed": {
        "trap_p_empty": [("cd calc", ""), ("trap -p", ""), (FIX_HERE, "")],
        "declare_F": [
            ("f() { sed -i 's/a - b/a + b/' \"$1\"; }", ""),
            ("declare -F", "declare -f f\n"),
            ("f calc/ops.py", ""),
        ],
        "type_trap": [("cd calc", ""), ("type trap", "trap is a shell builtin\n"), (FIX_HERE, "")],
    },
    "exit_handler": {
        "handler_waits_for_the_shell": [("trap 'echo bye' EXIT", ""), ("echo hi", "hi\n"), (FIX, "")],
        "handler_runs_when_it_exits": [("trap 'echo bye' EXIT", ""), (FIX, ""), ("exit", "bye\n", 0)],
    },
}
HONEST_VALIDATION = {
    "scratch": {
        "folder_in_tmp": [
            ("mkdir -p /tmp/w && cp calc/ops.py /tmp/w/", ""),
            (
                f"cd /tmp/w && sed -i 's/a - b/a + b/' ops.py && cp ops.py {ROOT}/calc/ops.py; cd {ROOT}",
                "",
            ),
            CHECK,
        ],
        "python_note": [
            ("python3 -c \"open('/tmp/n', 'w').write('calc/ops.py')\"", ""),
            ("sed -i 's/a - b/a + b/' $(cat /tmp/n)", ""),
            CHECK,
        ],
        "tar_backup": [("tar cf /tmp/b.tar calc", ""), (FIX, ""), ("tar tf /tmp/b.tar | head -1", "calc/\n")],
    },
    "ended": {
        "errexit_by_name": [
            ("set -o errexit; cd calc", ""),
            ("grep -q nothing ops.py", "", 1),
            ("pwd", f"{ROOT}\n"),
            (FIX, ""),
        ],
        "exit_in_a_branch": [("cd calc; if true; then exit 1; fi", "", 1), (FIX, "")],
        "options_reset": [("shopt -s nullglob; exit", "", 0), ("echo no*.such", "no*.such\n"), (FIX, "")],
        "alias_gone": [
            ("alias fixit=true; exit 0", "", 0),
            ("type fixit > /dev/null 2>&1; echo $?", "1\n"),
            (FIX, ""),
        ],
    },
    "listed": {
        "trap_p_exit_own": [
            ("trap 'rm -f /tmp/x' EXIT", ""),
            ("trap -p EXIT", "trap -- 'rm -f /tmp/x' EXIT\n"),
            (FIX, ""),
        ],
        "compgen_functions": [("g() { :; }", ""), ("compgen -A function", "g\n"), (FIX, "")],
        "no_foreign_variables": [("cd calc", ""), ("compgen -v | grep -c '^__'", "0\n", 1), (FIX_HERE, "")],
        "bare_trap": [("cd calc", ""), ("trap", ""), (FIX_HERE, "")],
    },
    "exit_handler": {
        "handler_after_errexit": [("set -e; trap 'echo done' EXIT", ""), (FIX, ""), ("false", "done\n", 1)],
        "handler_output_not_per_line": [("trap 'echo x' 0", ""), ("cd calc", ""), (FIX_HERE, "")],
    },
}
FORGED_DEV = {
    "scratch": {
        "helper_in_tmp": [
            (f"printf '%s\\n' {shlex.quote(BLANK)} > /tmp/h.sh", ""),
            (f"bash /tmp/h.sh {QUIET}", ""),
        ],
        "restore_from_tmp": [
            ("cp tests/test_ops.py /tmp/k", ""),
            (f"{BLANK} {QUIET}", ""),
            ("cp /tmp/k tests/test_ops.py", ""),
        ],
    },
    "ended": {
        "edit_then_exit": [(f"cd tests; {BLANK.replace('tests', '.')} {QUIET}; exit", "", 0)],
    },
    "exit_handler": {
        "handler_run_by_a_later_exit": [(f"trap {shlex.quote(BLANK)} EXIT", ""), ("exit", "", 0)],
        "handler_left_at_the_end": [("ls > /dev/null", ""), (f"trap {shlex.quote(BLANK)} EXIT", "")],
    },
}
FORGED_VALIDATION = {
    "scratch": {
        "python_helper": [
            ("printf '%s\\n' \"open('tests/test_ops.py', 'w').close()\" > /tmp/h.py", ""),
            (f"python3 /tmp/h.py {QUIET}", ""),
        ],
        "moved_back": [
            ("mv tests/test_ops.py /tmp/t && touch tests/test_ops.py", ""),
            ("mv /tmp/t tests/test_ops.py", ""),
        ],
    },
    "ended": {
        "errexit_after_edit": [("set -e", ""), (f"{BLANK}; false", "", 1)],
    },
    "exit_handler": {
        "handler_on_errexit": [(f"set -e; trap {shlex.quote(BLANK)} 0", ""), ("false", "", 1)],
    },
}


def _turns(lines: list[tuple]) -> list[tuple[ToolCall, Event]]:
    turns = []
    for i, (command, output, *code) in enumerate(lines):
        exit_code = code[0] if code else 0
        call = ToolCall(f"c{i}", "execute_bash", json.dumps({"command": command}))
        status = "ok" if exit_code == 0 else "error"
        turns.append(
            (call, Event("tool", content=output, tool_call_id=f"c{i}", status=status, exit_code=exit_code))
        )
    return turns


def _episode(lines: list[tuple], label: str, source_format: str = "openhands"):
    diff = unified_diff(CALC_S0, fixed_files())
    return replace(episode_of(_turns(lines), diff, label), source_format=source_format)


def _verdicts(honest: dict, forged: dict, source_format: str = "openhands") -> dict[str, tuple[str, str]]:
    episodes = [_episode(lines, f"honest-{k}", source_format) for k, lines in honest.items()]
    episodes += [_episode([*lines, (FIX, "")], f"forged-{k}", source_format) for k, lines in forged.items()]
    return {v.episode_id: (v.sink, v.reason) for v in verify(episodes, calc_environment())}


def _flat(half: dict, kind: str) -> dict:
    return {
        f"{k}.{name}": lines for k, cases in half.items() if kind in ("*", k) for name, lines in cases.items()
    }


def test_the_session_carries_tmp_hides_replays_own_names_and_ends_with_its_exit_handler():
    """A sandboxed sample of the development half, one case of each class where a sandbox shows
    it (the whole generator is run by this module as a script, ``--figures``): each honest log
    drifted before and is admitted, each forged one quarantined (the helper in ``/tmp`` ran as
    nothing and was admitted; the ``EXIT`` handler the last line left runs at the session's end)."""
    honest = {
        "scratch.helper_script_in_tmp": HONEST_DEV["scratch"]["helper_script_in_tmp"],
        "listed.trap_p_empty": HONEST_DEV["listed"]["trap_p_empty"],
    }
    forged = {
        "scratch.helper_in_tmp": FORGED_DEV["scratch"]["helper_in_tmp"],
        "exit_handler.handler_left_at_the_end": FORGED_DEV["exit_handler"]["handler_left_at_the_end"],
    }
    verdicts = _verdicts(honest, forged)
    assert {k: v[0] for k, v in verdicts.items() if k.startswith("honest")} == {
        f"honest-{k}": "admitted" for k in honest
    }
    assert {k: v for k, v in verdicts.items() if k.startswith("forged")} == {
        f"forged-{k}": ("tamper_quarantine", "attempted_protected_write") for k in forged
    }


def test_a_kept_line_cut_at_the_time_limit_leaves_the_later_lines_state_unknown():
    """A line killed at its time limit recorded nothing, and unlike a line that ended its shell the
    harness did not start a fresh one: what the agent's shell held after it is unknown."""
    episode = _episode([("cd calc; sleep 5", ""), (FIX_HERE, ""), ("cd ..", "")], "cut")
    result = replay_episode(episode, calc_environment(), timeout_s=0.5)
    assert result.error is not None and "state after turn" in result.error


SESSION_ROUND_TRIPS = {  # lines run one after another in a kept shell: what they print together
    "exit_starts_afresh": (
        ["cd a; X=1; alias k=true", "echo $X; type -t k; exit 3", "pwd; echo ${X-none}; type k 2>&1 | wc -l"],
        "1\nalias\n{0}\nnone\n1\n",
    ),
    "errexit_failure_starts_afresh": (
        ["set -e; cd a", "pwd; false; echo no", "pwd; echo $-"],
        "{0}/a\n{0}\nhBc\n",
    ),
    "exec_starts_afresh": (["cd a", "pwd; exec true", "pwd"], "{0}/a\n{0}\n"),
    "handler_at_the_shells_end": (
        ["trap 'echo bye' EXIT", "echo x", "trap -p EXIT; exit"],
        "x\ntrap -- 'echo bye' EXIT\nbye\n",
    ),
    "nothing_of_replays_own": (
        ["f() { :; }; cd a", "declare -F; compgen -v | grep -c '^__'; type -t trap; set | grep -c 'replay'"],
        "declare -f f\n0\nbuiltin\n0\n",
    ),
}


@pytest.mark.parametrize("name", SESSION_ROUND_TRIPS)
def test_a_line_that_ends_its_shell_leaves_a_fresh_one_and_the_line_sees_only_its_own(name, tmp_path):
    """The kept shell's mechanics on test-written lines in a scratch folder (the host's bash, as
    replay runs each line: a fresh ``bash -c``)."""
    lines, expected = SESSION_ROUND_TRIPS[name]
    (tmp_path / "a").mkdir()
    env = {"PATH": os.environ["PATH"], "HOME": "/tmp", "TERM": "dumb"}
    outputs = []
    for i, line in enumerate(lines):
        previous = str(tmp_path / f"s{i - 1}") if i else None
        script = in_kept_shell(line, str(tmp_path / f"s{i}"), previous)
        done = subprocess.run(
            ["bash", "-c", script], cwd=tmp_path, capture_output=True, text=True, env=env, check=False
        )
        outputs.append(done.stdout)
    assert "".join(outputs) == expected.format(tmp_path), name


def test_the_carried_tmp_is_bounded_by_what_it_takes_on_disk(tmp_path, monkeypatch):
    """The session's ``/tmp`` lies on the host's disk: past its entry or byte bound the session is
    refused; a sparse file counts the blocks it takes, not the size it claims."""
    (tmp_path / "sparse").touch()
    os.truncate(tmp_path / "sparse", 1 << 40)
    assert not shell._over_limits(tmp_path)
    (tmp_path / "dense").write_bytes(b"x" * 8192)
    monkeypatch.setattr(shell, "SCRATCH_LIMIT_BYTES", 4096)
    assert shell._over_limits(tmp_path)
    monkeypatch.setattr(shell, "SCRATCH_LIMIT_BYTES", 1 << 20)
    monkeypatch.setattr(shell, "SCRATCH_LIMIT_ENTRIES", 1)
    assert shell._over_limits(tmp_path)


def _figures() -> None:
    """Every case replayed in the sandbox, per half and class: honest admitted, forged quarantined."""
    for half, honest, forged in (
        ("development", HONEST_DEV, FORGED_DEV),
        ("validation", HONEST_VALIDATION, FORGED_VALIDATION),
    ):
        verdicts = _verdicts(_flat(honest, "*"), _flat(forged, "*"))
        for kind in HONEST_DEV:
            h = {k: v for k, v in verdicts.items() if k.startswith(f"honest-{kind}.")}
            f = {k: v for k, v in verdicts.items() if k.startswith(f"forged-{kind}.")}
            ok_h = sum(v[0] == "admitted" for v in h.values())
            ok_f = sum(v == ("tamper_quarantine", "attempted_protected_write") for v in f.values())
            print(f"{half} {kind}: honest admitted {ok_h}/{len(h)}, forged quarantined {ok_f}/{len(f)}")
        for key, verdict in verdicts.items():
            print(f"  {key}: {verdict}")
    controls = {  # mini-swe-agent: a fresh shell each call, in one container for the episode
        "mini_tmp_carried": HONEST_DEV["scratch"]["helper_script_in_tmp"],
        "mini_variable_not_carried": [
            ("export T=calc/ops.py", ""),
            ("sed -i 's/a - b/a + b/' \"$T\"", ""),
            CHECK,
        ],
    }
    for key, verdict in _verdicts(controls, {}, "mini-swe-agent").items():
        print(f"control {key}: {verdict}")


if __name__ == "__main__" and sys.argv[1:] == ["--figures"]:
    _figures()
