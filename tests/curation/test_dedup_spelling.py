"""Dedup compares actions, not their spelling: a path or a shell line written another way that does
the same thing is the same action, and one that does something else is not (curation/dedup.py)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from splits_mixture_factory import candidate, episode

from trajectory_platform.curation.dedup import (
    action_sequence,
    dedup_and_cap,
    fixture_signal,
    normalize_action,
)
from trajectory_platform.gym.sandbox import SandboxError, Workspace
from trajectory_platform.traces.record import Event, ToolCall

RESPELLINGS = [
    "./calc/ops.py",
    "calc//ops.py",
    "calc/./ops.py",
    "calc/ops.py/",
    " calc/ops.py ",
    "././calc///./ops.py",
]
"""Spellings of ``calc/ops.py`` the gym's tools act on as that very file."""
OTHER_FILES = [
    "Calc/ops.py",
    "calc/OPS.py",
    "calc/../calc/ops.py",
    "calc/ops.py.bak",
    "ops.py",
    "/calc/ops.py",
]
"""Paths that name another file, or none: case is not folded, ``..`` never resolved."""


def _action(tool: str, /, **arguments: object) -> str:
    return normalize_action(ToolCall("c", tool, json.dumps(arguments)))


@pytest.mark.parametrize("spelling", RESPELLINGS)
@pytest.mark.parametrize(
    ("tool", "key"),
    [
        ("read_file", "file_path"),
        ("read_file", "target_uri"),
        ("fs", "location"),
        ("cat", "name"),
        ("Read", "file_path"),
    ],
)
def test_a_respelled_workspace_path_is_the_same_action(tool, key, spelling):
    assert _action(tool, **{key: spelling}) == _action(tool, **{key: "calc/ops.py"})


@pytest.mark.parametrize("other", OTHER_FILES)
def test_a_path_naming_another_file_stays_another_action(other):
    assert _action("read_file", file_path=other) != _action("read_file", file_path="calc/ops.py")


def test_every_spelling_of_the_workspace_itself_is_one_folder():
    spellings = {_action("list_files", path=p) for p in ("", ".", "./", " ./. ", ".//")}
    assert len(spellings) == 1


def test_only_path_arguments_are_read_as_paths():
    """The text an edit replaces is content: ``./x`` there is not ``x``."""
    assert _action("edit_file", file_path="a.py", old="./x", new="y") != _action(
        "edit_file", file_path="a.py", old="x", new="y"
    )
    assert _action("read_file", file_path="a.py", match="a//b") != _action(
        "read_file", file_path="a.py", match="a/b"
    )


def test_a_key_is_a_path_where_the_tool_takes_one_there():
    """``cat``'s ``name`` is its path after drift (the gym's manifests say so); a lookup's is a name."""
    assert _action("lookup", name="a//b") != _action("lookup", name="a/b")
    assert _action("lookup", name="") != _action("lookup", name=".")


def test_a_url_under_a_path_key_is_not_respelled():
    assert _action("open", uri="file:///etc/hosts") != _action("open", uri="file:/etc/hosts")


def _session(path: str, cwd: str = "/home/dev/proj") -> tuple[str, ...]:
    events = [
        Event(kind="user", content="Fix it."),
        Event(kind="assistant", tool_calls=[ToolCall("c1", "Read", json.dumps({"file_path": path}))]),
        Event(kind="tool", tool_call_id="c1", content="     1\tx = 1", status="ok"),
    ]
    session = episode("cli", events=events, extra={"cwd": cwd})
    return action_sequence(session.__class__(**{**session.__dict__, "source_format": "claude-code"}))


def test_an_absolute_path_inside_the_recorded_root_is_the_relative_path():
    assert _session("/home/dev/proj/calc/ops.py") == _session("calc/ops.py")
    assert _session("/home/dev/proj/./calc//ops.py") == _session("calc/ops.py")
    assert _session("/home/dev/other/calc/ops.py") != _session("calc/ops.py")
    assert _session("/home/dev/projx/calc/ops.py") != _session("calc/ops.py")
    assert _session("/etc//hosts") == _session("/etc/hosts")


@pytest.mark.parametrize(
    "line", ["cat 'calc/ops.py'", 'cat "calc/ops.py"', "cat  calc/ops.py", "'cat' calc/ops.py"]
)
def test_a_shell_line_quoted_otherwise_is_the_same_command(line):
    assert _action("bash", command=line) == _action("bash", command="cat calc/ops.py")
    assert normalize_action(ToolCall("c", "bash", line)) == normalize_action(
        ToolCall("c", "bash", "cat calc/ops.py")
    )


@pytest.mark.parametrize(
    ("quoted", "bare"),
    [
        ("echo 'a;b'", "echo a;b"),  # an operator quoted is a word
        ("ls '*.py'", "ls *.py"),  # a glob quoted is not expanded
        ("cat 'a b'", "cat a b"),  # one word, not two
        ("echo '$HOME'", "echo $HOME"),  # an expansion quoted is text
    ],
)
def test_quoting_that_changes_what_runs_is_another_command(quoted, bare):
    assert _action("bash", command=quoted) != _action("bash", command=bare)


def test_quotes_in_a_call_that_is_no_shell_command_are_kept():
    """A search query's quotes ask for a phrase; an editor's text is content."""
    assert normalize_action(ToolCall("c", "search", '"New York"')) != normalize_action(
        ToolCall("c", "search", "New York")
    )
    assert _action("replace", file_path="a.py", old="f('a')", new="x") != _action(
        "replace", file_path="a.py", old="f(a)", new="x"
    )


def test_one_trajectory_respelled_is_one_sequence_for_dedup_and_diversity():
    """The red team's case: one run with its path spelled four ways counts once, as four verbatim
    copies do; a run on another file still counts."""
    spellings = ["calc/ops.py", "./calc/ops.py", "calc//ops.py", "calc/./ops.py"]
    runs = [
        candidate(
            f"run-{i}",
            actions=[
                ("read_file", {"file_path": path}),
                ("edit_file", {"file_path": path, "old": "a - b", "new": "a + b"}),
                ("run_tests", {}),
            ],
        )
        for i, path in enumerate(spellings)
    ]
    other = candidate("other", actions=[("read_file", {"file_path": "calc/util.py"}), ("run_tests", {})])
    kept = [s.episode_id for s in dedup_and_cap([*runs, other], cap_per_fixture=10) if s.kept]
    assert len(kept) == 2 and "other" in kept
    assert fixture_signal([*runs, other])[0].distinct_passing_sequences == 2


def _opened(workspace: Workspace, path: str) -> Path | None:
    try:
        return workspace.resolve(path)
    except SandboxError:
        return None


def test_dedup_merges_paths_exactly_where_the_gyms_tools_act_on_one_file():
    """The rule is the tools' own: every respelling opens the file, every other path does not."""
    with Workspace({"calc/ops.py": "x = 1\n", "ops.py": "y = 2\n"}) as workspace:
        target = workspace.resolve("calc/ops.py")
        assert all(_opened(workspace, spelling) == target for spelling in RESPELLINGS)
        assert all(_opened(workspace, other) != target for other in OTHER_FILES)


SHELL_SPELLINGS = [
    "./calc/ops.py",
    "calc//ops.py",
    "c'alc'/ops.py",
    "$'calc/ops.py'",
    "$'calc/ops\\x2epy'",
    "calc/op\\s.py",
    '"$PWD/calc/ops.py"',
    "${PWD}/calc/ops.py",
]
"""Spellings of ``calc/ops.py`` inside a shell line that bash hands the program as that very file."""


@pytest.mark.parametrize("spelling", SHELL_SPELLINGS)
@pytest.mark.parametrize(
    "program", ["cat {}", "head -n 5 {}", "grep -n add {}", "sed -n 1,5p {}", "python {}"]
)
def test_a_file_respelled_inside_a_shell_line_is_the_same_action(program, spelling):
    assert _action("bash", command=program.format(spelling)) == _action(
        "bash", command=program.format("calc/ops.py")
    )
    assert normalize_action(ToolCall("c", "bash", program.format(spelling))) == normalize_action(
        ToolCall("c", "bash", program.format("calc/ops.py"))
    )


@pytest.mark.parametrize(
    ("one", "other"),
    [
        ("grep -n a//b calc/ops.py", "grep -n a/b calc/ops.py"),  # a pattern, not a path
        ("grep -A 2 a//b f", "grep -A 2 a/b f"),  # after an option's value
        ("grep -e a//b f", "grep -e a/b f"),  # the pattern given by an option
        ("sed -n s/a/b/p f", "sed -n s/a/bp f"),  # a script
        ("python x.py a//b", "python x.py a/b"),  # the script's own argument
        ("ls -I a//b", "ls -I a/b"),  # an option's value
        ("./run.sh", "run.sh"),  # a program bash looks up elsewhere
        ("cat calc/../calc/ops.py", "cat calc/ops.py"),  # never resolved
        ("cat 'calc\\ops.py'", "cat calc/ops.py"),  # a backslash is a file name's character in a shell
        ("cat '$PWD/calc/ops.py'", "cat calc/ops.py"),  # quoted: no expansion
        ("cat $PWDX/calc/ops.py", "cat calc/ops.py"),  # another variable
    ],
)
def test_a_shell_word_that_is_no_path_or_another_file_stays_another_action(one, other):
    assert _action("bash", command=one) != _action("bash", command=other)


@pytest.mark.parametrize("tool", ["Bash", "run_shell_command"])
def test_a_shell_calls_narration_is_not_part_of_the_action(tool):
    """Claude Code's ``description`` says what the command is for; the command is what runs."""
    assert _action(tool, command="pytest -q", description="Run the tests", timeout=60000) == _action(
        tool, command="pytest -q", description="Check the fix"
    )
    assert _action(tool, command="pytest -q") != _action(tool, command="pytest -x")


def test_another_tools_description_is_content():
    assert _action("create_issue", title="t", description="a") != _action(
        "create_issue", title="t", description="b"
    )


def _run(*calls: tuple[str, dict[str, object]], source_format: str = "claude-code") -> tuple[str, ...]:
    events = [Event(kind="user", content="Fix it.")]
    for index, (tool, arguments) in enumerate(calls):
        events += [
            Event(kind="assistant", tool_calls=[ToolCall(f"c{index}", tool, json.dumps(arguments))]),
            Event(kind="tool", tool_call_id=f"c{index}", content="x", status="ok"),
        ]
    session = episode("cli", events=events)
    return action_sequence(session.__class__(**{**session.__dict__, "source_format": source_format}))


READ = ("Read", {"file_path": "calc/ops.py"})
FIX = ("Edit", {"file_path": "calc/ops.py", "old_string": "a - b", "new_string": "a + b"})
TESTS = ("Bash", {"command": "pytest -q", "description": "Run the tests"})


@pytest.mark.parametrize("command", ["true", ":", "echo done", "pwd", " ", "sleep 1"])
@pytest.mark.parametrize("at", [0, 1, 2, 3])
def test_padding_a_run_with_no_ops_is_the_same_run(command, at):
    """The red team's case: calls that change nothing and show nothing of the workspace, added
    anywhere to a run, make no new action sequence."""
    calls = [READ, FIX, TESTS]
    assert _run(*calls[:at], ("Bash", {"command": command}), *calls[at:]) == _run(*calls)


@pytest.mark.parametrize(
    "again",
    [
        READ,
        ("Read", {"file_path": "./calc/ops.py"}),
        ("Bash", {"command": "cat calc/ops.py"}),
        ("Grep", {"pattern": "add"}),
    ],
)
def test_reading_again_what_was_read_with_nothing_changed_since_is_the_same_run(again):
    shown = [READ, ("Bash", {"command": "cat calc/ops.py"}), ("Grep", {"pattern": "add"})]
    assert _run(*shown, again, FIX, TESTS) == _run(*shown, FIX, TESTS)
    assert _run(*shown, FIX, TESTS, TESTS) == _run(*shown, FIX, TESTS)


def test_a_read_after_a_change_and_a_repeated_action_that_may_change_something_count():
    bare = _run(READ, FIX, TESTS)
    assert _run(READ, FIX, READ, TESTS) != bare  # the file changed since the first read
    assert _run(READ, FIX, FIX, TESTS) != bare  # a second edit is an action (it fails, or edits again)
    assert _run(READ, ("Bash", {"command": "echo x > calc/ops.py"}), FIX, TESTS) != bare  # writes
    booking = ("book_flight", {"flight": "HAT023"})
    assert _run(booking, booking, source_format="openai") != _run(booking, source_format="openai")


def test_mini_swe_agents_submission_is_an_action_not_padding():
    submit = ("bash", {"command": "echo COMPLETE_TASK_AND_SUBMIT_FINAL_OUTPUT"})
    assert _run(READ, FIX, TESTS, submit) != _run(READ, FIX, TESTS)


@pytest.mark.parametrize(
    "command",
    ["true; :", "echo ok > /dev/null", "true && pwd", "echo a >/dev/null 2>&1", "echo ''", 'printf ""'],
)
def test_a_line_of_no_ops_is_padding(command):
    """An empty quoted word is a word like any other (``echo ''`` prints as ``echo`` does): it was
    once read as an operator, for the empty set of its characters is inside every set."""
    assert _run(READ, ("Bash", {"command": command}), FIX, TESTS) == _run(READ, FIX, TESTS)


@pytest.mark.parametrize(
    "command", ["echo x > calc/ops.py", "true && rm calc/ops.py", "echo $(rm x)", "(true)"]
)
def test_a_line_that_may_do_something_is_no_padding(command):
    assert _run(READ, ("Bash", {"command": command}), FIX, TESTS) != _run(READ, FIX, TESTS)


def test_a_gym_tools_repeated_read_is_padding_by_its_manifests_op():
    read, listing = ("fs", {"op": "read", "path": "calc/ops.py"}), ("list_files", {"path": "."})
    write, tests = ("fs", {"op": "write", "path": "calc/ops.py", "content": "x"}), ("run_tests", {})
    assert _run(listing, read, listing, read, tests, tests, source_format="native") == _run(
        listing, read, tests, source_format="native"
    )
    assert _run(tests, write, tests, source_format="native") != _run(tests, write, source_format="native")
    assert _run(write, write, source_format="native") != _run(write, source_format="native")
