"""Recorded shell commands, file-editor calls and a brought environment's tools, re-run in the
sandbox: file state carries over, nothing leaves the workspace, time and output are bounded, and
nothing runs unconfined unless the user opted out."""

from __future__ import annotations

import os
import time

import pytest

from trajectory_platform.gym import isolation, shell
from trajectory_platform.gym.shell import EditorCall, ReplayRunError, run_commands, run_tool_calls

S0 = {"pkg/a.txt": "alpha\n", "README.md": "readme\n"}


def test_commands_run_in_order_on_one_workspace_and_the_final_files_show_their_effect():
    run = run_commands(
        S0,
        ["touch x", "echo beta > pkg/b.txt", "cat pkg/b.txt; rm README.md", "pwd; exit 3", "echo oops >&2"],
    )
    outputs = [(r.output, r.exit_code, r.timed_out) for r in run.results]
    assert outputs == [
        ("", 0, False),
        ("", 0, False),
        ("beta\n", 0, False),
        ("/workspace\n", 3, False),
        ("oops\n", 0, False),
    ]
    assert run.final_files == {"pkg/a.txt": "alpha\n", "pkg/b.txt": "beta\n", "x": ""}
    assert [r.command for r in run.results][0] == "touch x"


def test_a_command_cannot_write_or_read_outside_the_workspace(tmp_path):
    secret = tmp_path / "host-secret.txt"
    secret.write_text("host only\n", encoding="utf-8")
    run = run_commands(
        S0,
        [
            f"echo pwned > {tmp_path}/escape.txt",
            "echo pwned > ../escape.txt",
            f"cat {secret}",
            "touch /usr/escape",
            f"ln -s {secret} link.txt",
        ],
    )
    assert not (tmp_path / "escape.txt").exists()
    assert all(r.exit_code != 0 for r in run.results[:4]), [r.output for r in run.results]
    assert "host only" not in "".join(r.output for r in run.results)
    assert "link.txt" not in run.final_files, "a symbolic link is never followed back onto the host"
    assert set(run.final_files) == set(S0)


@pytest.mark.skipif(os.geteuid() != 0, reason="the uid is dropped only when the platform runs as root")
def test_commands_run_as_the_unprivileged_user():
    (result,) = run_commands(S0, ["id -u"]).results
    assert int(result.output) in isolation.sandbox_uids()


def test_the_timeout_is_enforced_and_background_jobs_die_with_their_command():
    start = time.monotonic()
    run = run_commands(S0, ["sleep 30", "sleep 30 & echo started", "echo next"], timeout_s=1.0)
    elapsed = time.monotonic() - start
    slow, background, after = run.results
    assert slow.timed_out and slow.exit_code == shell.KILLED
    assert background.output == "started\n" and not background.timed_out
    assert after.output == "next\n"
    assert elapsed < 8, elapsed


def test_the_total_budget_bounds_the_whole_run():
    run = run_commands(S0, ["sleep 30", "echo never"], timeout_s=5.0, total_timeout_s=1.0)
    assert [r.timed_out for r in run.results] == [True, True]
    assert run.results[1].output == ""


def test_there_is_no_network():
    probe = (
        f"{isolation.interpreter()} -I -S -c "
        "\"import socket; socket.create_connection(('1.1.1.1', 53), timeout=2)\""
    )
    (result,) = run_commands(S0, [probe]).results
    assert result.exit_code != 0
    assert "Network is unreachable" in result.output


def test_output_is_capped_with_a_marker():
    (result,) = run_commands(S0, ["head -c 200000 /dev/zero | tr '\\0' a"]).results
    kept = result.output.split("\n[output truncated")[0]
    assert kept == "a" * shell.OUTPUT_LIMIT_BYTES
    assert result.output.endswith(f"[output truncated: {200000 - shell.OUTPUT_LIMIT_BYTES} more bytes]")


def test_the_platforms_environment_does_not_reach_a_command(monkeypatch):
    monkeypatch.setenv("TP_TEST_API_KEY", "sk-should-not-leak")
    (result,) = run_commands(S0, ["env"]).results
    assert "sk-should-not-leak" not in result.output
    assert "PATH=" in result.output


def test_without_bubblewrap_nothing_runs_unless_the_user_opted_out(monkeypatch, tmp_path):
    monkeypatch.setattr(isolation, "probe", lambda: "bubblewrap (bwrap) is not installed")
    monkeypatch.delenv(isolation.OPT_OUT_ENV, raising=False)
    with pytest.raises(isolation.IsolationUnavailable):
        run_commands(S0, [f"touch {tmp_path}/ran"])
    assert not (tmp_path / "ran").exists()
    monkeypatch.setenv(isolation.OPT_OUT_ENV, "1")
    (result,) = run_commands(S0, ["echo unconfined; touch made"]).results
    assert result.output == "unconfined\n"


TOOLS = {
    "envtools/__init__.py": "",
    "envtools/impl.py": (
        "import os\n\n\n"
        "def call(name, arguments, root):\n"
        "    path = os.path.join(root, arguments.get('path', ''))\n"
        "    if name == 'write_file':\n"
        "        with open(path, 'w') as fh:\n"
        "            fh.write(arguments['content'])\n"
        "        return 'wrote ' + arguments['path']\n"
        "    if name == 'read_file':\n"
        "        with open(path) as fh:\n"
        "            return fh.read()\n"
        "    if name == 'spin':\n"
        "        while True:\n"
        "            pass\n"
        "    if name == 'shout':\n"
        "        print('noise on stdout')\n"
        "        return 42\n"
        "    raise KeyError(name)\n"
    ),
}


def test_an_environments_own_tools_answer_each_call_in_the_sandbox():
    calls = [
        ("read_file", {"path": "pkg/a.txt"}),
        ("write_file", {"path": "pkg/c.txt", "content": "gamma\n"}),
        ("read_file", {"path": "pkg/c.txt"}),
        ("shout", {}),
        ("nope", {}),
        ("spin", {}),
    ]
    run = run_tool_calls(S0, TOOLS, "envtools.impl:call", calls, timeout_s=1.0)
    got = [(r.name, r.output, r.error, r.timed_out) for r in run.results]
    assert got == [
        ("read_file", "alpha\n", False, False),
        ("write_file", "wrote pkg/c.txt", False, False),
        ("read_file", "gamma\n", False, False),
        ("shout", "tool returned int, not str", True, False),
        ("nope", "KeyError: 'nope'", True, False),
        ("spin", "", True, True),
    ]
    assert run.final_files == {**S0, "pkg/c.txt": "gamma\n"}


def test_a_tools_module_that_does_not_load_is_an_error_naming_the_entry_point():
    with pytest.raises(ReplayRunError, match="envtools.impl:missing"):
        run_tool_calls(S0, TOOLS, "envtools.impl:missing", [("read_file", {"path": "pkg/a.txt"})])
    with pytest.raises(ReplayRunError, match="not 'module:function'"):
        run_tool_calls(S0, TOOLS, "envtools.impl", [])


def edit(command: str, path: str, **arguments: object) -> EditorCall:
    return EditorCall({"command": command, "path": path, **arguments})


def test_editor_calls_and_shell_commands_act_in_order_on_one_workspace():
    run = run_commands(
        S0,
        [
            edit("view", "/testbed/pkg/a.txt"),
            edit("str_replace", "/testbed/pkg/a.txt", old_str="alpha", new_str="ALPHA"),
            "cat pkg/a.txt",
            edit("create", "/workspace/pkg/b.txt", file_text="one\nthree\n"),
            edit("insert", "/workspace/pkg/b.txt", insert_line=1, new_str="two"),
            "cat pkg/b.txt",
            edit("str_replace", "/workspace/pkg/b.txt", old_str="three\n", new_str=None),
            edit("undo_edit", "/workspace/pkg/b.txt"),
            edit("view", "/repo/pkg/b.txt", view_range=[2, 3]),
            edit("view", "/testbed"),
        ],
    )
    assert [r.exit_code for r in run.results] == [0] * 10
    assert run.results[0].output.endswith("     1\talpha\n     2\t\n")
    assert run.results[2].output == "ALPHA\n", "the shell sees the editor's change"
    assert run.results[5].output == "one\ntwo\nthree\n", "insert puts new_str after line N"
    assert run.results[8].output.endswith("     2\ttwo\n     3\tthree\n"), "undo restored the deleted line"
    assert "/testbed/pkg/b.txt" in run.results[9].output
    assert run.final_files == {
        "pkg/a.txt": "ALPHA\n",
        "pkg/b.txt": "one\ntwo\nthree\n",
        "README.md": "readme\n",
    }
    assert not any(r.refused for r in run.results)


def test_editor_calls_fail_as_the_real_tool_fails_and_leave_the_file_as_it_was():
    files = {"pkg/a.txt": "x = 1\nx = 1\n"}
    run = run_commands(
        files,
        [
            edit("str_replace", "/testbed/pkg/a.txt", old_str="y = 2", new_str="z"),
            edit("str_replace", "/testbed/pkg/a.txt", old_str="x = 1", new_str="z"),
            edit("str_replace", "/testbed/pkg/a.txt", old_str="x = 1\nx", new_str="x = 1\nx"),
            edit("create", "/testbed/pkg/a.txt", file_text="overwritten"),
            edit("create", "/testbed/nodir/c.txt", file_text="c"),
            edit("insert", "/testbed/pkg/a.txt", insert_line=9, new_str="late"),
            edit("undo_edit", "/testbed/pkg/a.txt"),
            edit("view", "/testbed/missing.txt"),
            edit("view", "pkg/a.txt"),
            edit("delete", "/testbed/pkg/a.txt"),
            edit("str_replace", "/testbed/pkg", old_str="a", new_str="b"),
        ],
    )
    assert [r.exit_code for r in run.results] == [shell.EDITOR_ERROR_EXIT] * 11
    outputs = [r.output for r in run.results]
    assert "did not appear verbatim" in outputs[0]
    assert "Multiple occurrences" in outputs[1] and "[1, 2]" in outputs[1]
    assert "must be different" in outputs[2]
    assert "File already exists" in outputs[3]
    assert "No edit history" in outputs[6]
    assert "not an absolute path" in outputs[8]
    assert not any(r.refused for r in run.results)
    assert run.final_files == files


def test_editor_arguments_are_data_never_a_shell_line():
    text = "$(touch pwned) `touch pwned2`; touch pwned3\n"
    run = run_commands(
        S0,
        [
            edit("create", "/testbed/x.sh", file_text=text),
            edit("str_replace", "/testbed/pkg/a.txt", old_str="alpha", new_str="'; touch pwned4 #"),
        ],
    )
    assert run.final_files == {**S0, "x.sh": text, "pkg/a.txt": "'; touch pwned4 #\n"}


def test_an_editor_path_outside_the_workspace_is_refused_inside_the_driver(tmp_path):
    outside = tmp_path / "host"
    outside.mkdir()
    (outside / "secret.txt").write_text("host only\n", encoding="utf-8")
    run = run_commands(
        S0,
        [
            edit("view", "/etc/passwd"),
            edit("create", "/tmp/reproduce.py", file_text="print(1)\n"),
            edit("create", "/testbed/../escape.txt", file_text="pwned"),
            f"ln -s {outside} out; ln -s /etc etc",
            edit("view", "/testbed/out/secret.txt"),
            edit("create", "/testbed/out/planted.txt", file_text="pwned"),
            edit("str_replace", "/workspace/etc/hostname", old_str="a", new_str="b"),
            edit("view", "/testbed/pkg/a.txt"),
        ],
    )
    refused = [r.refused for r in run.results]
    assert refused == [True, True, True, False, True, True, True, False]
    assert all(r.exit_code != 0 for r, no in zip(run.results, refused, strict=True) if no)
    assert "host only" not in "".join(r.output for r in run.results)
    assert sorted(p.name for p in outside.iterdir()) == ["secret.txt"]
    assert not (tmp_path / "escape.txt").exists()
    assert set(run.final_files) == set(S0), "links are never collected"
