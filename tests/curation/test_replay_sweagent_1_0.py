"""Replay of SWE-agent 1.0's file tools: the windowed tools called as functions with JSON arguments
(``open``, ``goto``, ``scroll_*``, ``create``, ``edit`` by search/replace and by line range),
``insert`` and ``filemap`` (JSON or thought-action lines), and the thought-action
``str_replace_editor`` line.

Every recorded observation here is written by hand from SWE-agent 1.0's tool sources (the
windowed library's first-line arithmetic, the tools' printed strings), not produced by the replay:
a replay that renders, edits or parses otherwise fails these tests."""

from __future__ import annotations

import dataclasses
import json
import re

from _verify_factory import CALC_S0, fixed_files
from test_replay import environment, episode_of, verify

from trajectory_platform.curation.verify.calls import call_records
from trajectory_platform.curation.verify.replay import replay_episode
from trajectory_platform.gym.sandbox import unified_diff
from trajectory_platform.traces.ingest import ingest_paths
from trajectory_platform.traces.record import Event, ToolCall

ROOT = "/calc__repo"
OPS = f"{ROOT}/calc/ops.py"
BIG = "".join(f"line {i}\n" for i in range(1, 301))
RETRY = "###SWE-AGENT-RETRY-WITH-OUTPUT###"
REPLACED_V1 = (
    "Text replaced. Please review the changes and make sure they are correct:\n\n"
    "1. The edited file is correctly indented\n2. The edited file does not contain duplicate lines\n"
    "3. The edit does not break existing functionality\n\nEdit the file again if necessary.\n"
)
UPDATED = (
    "File updated. Please review the changes and make sure they are correct\n"
    "(correct indentation, no duplicate lines, etc). Edit the file again if necessary.\n"
)
REJECTED = (
    "Your proposed edit has introduced new syntax error(s). Please read this error message carefully "
    "and then retry editing the file.\n\nERRORS:\n- F821 undefined name 'c'\n\n"
    "Your changes have NOT been applied. Please fix your edit command and try again.\n" + RETRY
)


def footer(open_file: str | None) -> str:
    return f"\n(Open file: {open_file or 'n/a'})\n(Current directory: {ROOT})\nbash-$"


def call(i: int, name: str, arguments: dict, output: str, open_file: str | None = None):
    """A function-calling turn as SWE-agent 1.0 records it: JSON arguments, the answer with the
    state footer of the run's configuration."""
    shown = output or "Your command ran successfully and did not produce any output."
    return ToolCall(f"c{i}", name, json.dumps(arguments)), Event(
        "tool", content=shown + footer(open_file), tool_call_id=f"c{i}"
    )


def line(action: str, output: str, open_file: str | None = None):
    """A thought-action turn: the command line, named after its first word."""
    shown = output or "Your command ran successfully and did not produce any output."
    return ToolCall(None, action.split()[0], action), Event("tool", content=shown + footer(open_file))


def window(shown_as: str, text: str, lines: range) -> str:
    """The 1.0 viewer's rendering of ``lines`` (1-based) of ``text``, its status line naming the
    file as ``shown_as``."""
    body = text.split("\n")
    total = len(text.splitlines())
    above = f"({lines.start - 1} more lines above)\n" if lines.start > 1 else ""
    below = f"\n({total - lines.stop + 1} more lines below)" if lines.stop <= total else ""
    numbered = "\n".join(f"{i}:{body[i - 1]}" for i in lines)
    return f"[File: {shown_as} ({total} lines total)]\n{above}{numbered}{below}"


def swe_agent(turns, s0=None, diff=None):
    """The episode of a SWE-agent log and the environment it ran on."""
    episode = dataclasses.replace(episode_of(turns, diff), source_format="swe-agent")
    env = environment() if s0 is None else dataclasses.replace(environment(), s0_files=s0)
    return episode, env


def test_json_windowed_calls_move_the_window_by_its_first_line():
    big = f"{ROOT}/big.txt"
    turns = [
        call(
            0, "open", {"path": "big.txt", "line_number": 150}, window("big.txt", BIG, range(133, 233)), big
        ),
        call(1, "goto", {"line_number": 10}, window(big, BIG, range(1, 101)), big),
        call(2, "scroll_down", {}, window(big, BIG, range(99, 199)), big),
        call(3, "scroll_up", {}, window(big, BIG, range(1, 101)), big),
        call(4, "open", {"path": big, "line_number": 290}, window(big, BIG, range(201, 301)), big),
        call(5, "goto", {"line_number": 400}, "Error: <line> must be less than or equal to 300", big),
    ]
    episode, env = swe_agent(turns, {**CALC_S0, "big.txt": BIG})
    result = replay_episode(episode, env)
    assert (result.observations, result.drift_turns, result.unsupported_turns) == ("verified", [], [])

    pre_1_0 = window(big, BIG, range(101, 201))  # the pre-1.0 viewer's centred window
    turns[2] = call(2, "scroll_down", {}, pre_1_0, big)
    episode, env = swe_agent(turns, {**CALC_S0, "big.txt": BIG})
    assert replay_episode(episode, env).drift_turns == [6]


def test_search_and_replace_edit_replays_its_answers_and_its_file():
    fixed = fixed_files()["calc/ops.py"]
    turns = [
        call(
            0,
            "open",
            {"path": "calc/ops.py"},
            window("calc/ops.py", CALC_S0["calc/ops.py"], range(1, 7)),
            OPS,
        ),
        call(
            1,
            "edit",
            {"search": "return a - b", "replace": "return a + b"},
            REPLACED_V1 + window(OPS, fixed, range(1, 7)),
            OPS,
        ),
        call(
            2,
            "edit",
            {"search": "a * b", "replace": "a * b"},
            "Your search and replace strings are the same. No changes were made. Please modify your "
            f"search or replace strings.\n{RETRY}",
            OPS,
        ),
        call(
            3,
            "edit",
            {"search": "a / b", "replace": "a // b"},
            "Your edit was not applied (file not modified): Text 'a / b' not found in displayed lines "
            "(or anywhere in the file).\nPlease modify your search string. Did you forget to properly "
            "handle whitespace/indentation?\nYou can also call `open` again to re-display the file with "
            f"the correct context.\n\n{RETRY}",
            OPS,
        ),
    ]
    episode, env = swe_agent(turns, diff=unified_diff(CALC_S0, fixed_files()))
    result = replay_episode(episode, env)
    assert result.final_files == fixed_files()
    assert (result.observations, result.drift_turns) == ("verified", []), "any release's banner"
    (verdict,) = verify([episode], env)
    assert (verdict.sink, verdict.reason) == ("admitted", "passed_stages_1_to_4")

    tampered = {**CALC_S0, "calc/ops.py": CALC_S0["calc/ops.py"].replace("a - b", "a * b")}
    episode, env = swe_agent(turns, diff=unified_diff(CALC_S0, tampered))
    (verdict,) = verify([episode], env)
    assert (verdict.sink, verdict.reason) == ("tamper_quarantine", "final_state_mismatch")

    turns[1] = call(
        1,
        "edit",
        {"search": "return a - b", "replace": "return a + b"},
        REPLACED_V1 + window(OPS, fixed, range(1, 6)),
    )
    episode, env = swe_agent(turns)
    assert replay_episode(episode, env).drift_turns == [4]


def test_a_line_range_edit_the_linter_refuses_leaves_the_file_and_compares_by_outcome():
    fixed = fixed_files()["calc/ops.py"]
    opened = window("calc/ops.py", CALC_S0["calc/ops.py"], range(1, 7))
    refused = {"start_line": 2, "end_line": 2, "replacement_text": "    return a + c"}
    accepted = {"start_line": 2, "end_line": 2, "replacement_text": "    return a + b\n"}
    turns = [
        call(0, "open", {"path": "calc/ops.py"}, opened, OPS),
        call(1, "edit", refused, REJECTED, OPS),
        call(2, "edit", accepted, UPDATED + window(OPS, fixed, range(1, 7)), OPS),
    ]
    episode, env = swe_agent(turns)
    result = replay_episode(episode, env)
    assert result.final_files == fixed_files()
    assert (result.drift_turns, result.unchecked_turns) == ([], [4]), "a refusal is compared by outcome"

    turns[1] = call(1, "edit", refused, UPDATED + window(OPS, fixed, range(1, 7)), OPS)
    episode, env = swe_agent(turns)
    (drift,) = replay_episode(episode, env).drift
    assert (drift.turn, drift.recorded_status, drift.replayed_status) == (4, "ok", "error")


def test_create_then_insert_as_function_and_as_command_line():
    shown = f"{ROOT}/reproduce.py"
    after_json = "\nx = 1\nprint(x)"
    after_line = "\ny = 2\nx = 1\nprint(x)"
    turns = [
        call(0, "create", {"filename": "reproduce.py"}, "[File: reproduce.py (1 lines total)]\n1:", shown),
        call(1, "insert", {"text": "x = 1\nprint(x)"}, window(shown, after_json, range(1, 4)), shown),
        line("insert 'y = 2' 1", window(shown, after_line, range(1, 5)), shown),
    ]
    episode, env = swe_agent(turns)
    result = replay_episode(episode, env)
    assert result.final_files == {**CALC_S0, "reproduce.py": after_line}
    assert (result.observations, result.drift_turns) == ("verified", [])

    turns[2] = line(
        "insert 'y = 2' 1", window(shown, after_line.replace("y = 2", "y = 3"), range(1, 5)), shown
    )
    episode, env = swe_agent(turns)
    assert replay_episode(episode, env).drift_turns == [6]


LONG = (
    "import os\n\n\ndef long_one(x):\n    a = 1\n    b = 2\n    c = 3\n    d = 4\n    e = 5\n"
    "    return a + b + c + d + e + x\n    # a comment closing the body belongs to it\n\n\n"
    "def short(x):\n    return x\n"
)
FILEMAP = (
    "     1 import os\n     2 \n     3 \n     4 def long_one(x):\n     5 ... eliding lines 5-11 ...\n"
    "    12 \n    13 \n    14 def short(x):\n    15     return x"
)


def test_filemap_elides_long_function_bodies():
    s0 = {**CALC_S0, "pkg/long.py": LONG, "pkg/broken.py": "def f(:\n"}
    turns = [line("filemap pkg/long.py", FILEMAP), line("filemap pkg/broken.py", "     1 def f(:")]
    episode, env = swe_agent(turns, s0)
    result = replay_episode(episode, env)
    assert (result.drift_turns, result.unchecked_turns) == ([], [4]), "tree-sitter's recovery is not ast's"

    unelided = "\n".join(f"{i + 1:6d} {text}" for i, text in enumerate(LONG.splitlines()))
    episode, env = swe_agent([line("filemap pkg/long.py", unelided)], s0)
    assert replay_episode(episode, env).drift_turns == [2]


NOT_FOUND = f"No replacement was performed, old_str `a ~ b` did not appear verbatim in {OPS}."


NUMBERED = "".join(f"{i:6}\t{text}\n" for i, text in enumerate(CALC_S0["calc/ops.py"].split("\n"), 1))


def text_editor_turns(failed_answer: str = NOT_FOUND):
    return [
        line(
            f"str_replace_editor view {OPS}", f"Here's the result of running `cat -n` on {OPS}:\n{NUMBERED}"
        ),
        line(f"str_replace_editor str_replace {OPS} --old_str 'a ~ b' --new_str 'a + b'", failed_answer),
        line(
            f"str_replace_editor str_replace {OPS} --old_str 'return a - b' --new_str 'return a + b'",
            f"The file {OPS} has been edited. Here's the result of running `cat -n` on a snippet of {OPS}:",
        ),
        line(
            f"str_replace_editor create {ROOT}/notes.txt --file_text 'two\nlines'",
            f"File created successfully at: {ROOT}/notes.txt",
        ),
        line(
            f"str_replace_editor insert {OPS} --insert_line",
            "usage: str_replace_editor [-h] [--file_text FILE_TEXT] ...\n"
            "str_replace_editor: error: argument --insert_line: expected one argument",
        ),
    ]


def test_a_text_mode_editor_line_replays_through_the_editor_with_bash_words():
    after = {**fixed_files(), "notes.txt": "two\nlines"}
    episode, env = swe_agent(text_editor_turns(), diff=unified_diff(CALC_S0, after))
    result = replay_episode(episode, env)
    assert result.final_files == after
    assert (result.drift_turns, result.unchecked_turns) == ([], [4, 6, 8, 10]), "the view is compared"

    episode, env = swe_agent(text_editor_turns(), diff=unified_diff(CALC_S0, fixed_files()))
    (verdict,) = verify([episode], env)
    assert (verdict.sink, verdict.reason) == ("tamper_quarantine", "final_state_mismatch")

    claimed = f"The file {OPS} has been edited."
    episode, env = swe_agent(text_editor_turns(claimed))
    (drift,) = replay_episode(episode, env).drift
    assert (drift.turn, drift.recorded_status, drift.replayed_status) == (4, "ok", "error")

    expanded = [line(f"str_replace_editor view $HOME/{OPS}", "")]
    episode, env = swe_agent(expanded)
    assert replay_episode(episode, env).unsupported_turns == [2], "bash would expand it: not read"


def test_real_1_0_function_calling_logs_replay(real_root):
    """The test-repo runs (../shared/data/real): their one file is shown whole when opened, so
    S0 comes from the log itself. Both replay verified: the GPT-4 run's
    ``python3 /SWE-agent__test-repo/tests/missing_colon.py`` runs on the workspace the sandbox also
    shows at the root the log's state footer names (it drifted while the workspace was only at
    ``/workspace``)."""
    logs = [
        "trajectories/demonstrations/function_calling_simple.traj",
        "tests/test_data/trajectories/gpt4__swe-agent-test-repo__default_from_url__t-0.00__p-0.95__"
        "c-3.00__install-1/6e44b9__sweagenttestrepo-1c2844.traj",
    ]
    for log in logs:
        (episode,) = ingest_paths([real_root / "swe-agent" / log]).episodes
        opened = next(e.content or "" for e in episode.events if "[File:" in (e.content or ""))
        s0 = {"tests/missing_colon.py": "".join(f"{m[1]}\n" for m in re.finditer(r"(?m)^\d+:(.*)$", opened))}
        env = dataclasses.replace(environment(task_id=episode.task.fixture_id), s0_files=s0)
        result = replay_episode(episode, env)
        assert (result.unsupported_turns, result.drift_turns) == ([], []), log
        # the submit call is not re-run: its answer is the log's word alone (red team, round 10)
        submitted = [r.answer for r in call_records(episode) if r.call.name == "submit"]
        answers = [i for i, e in enumerate(episode.events) if any(e is a for a in submitted)]
        assert result.unreplayed_answers == answers, log
        assert result.observations == ("unverified" if answers else "verified"), log
        assert result.data()["recorded_root"] == "mounted"
        assert result.final_files["tests/missing_colon.py"].startswith(
            "#!/usr/bin/env python3\n\n\ndef division(a: float, b: float) -> float:\n"
        )
        assert result.turns_replayed == 4

    edit = next(e for e in episode.events if (e.content or "").startswith("Replaced 1 occurrences"))
    edit.content = (edit.content or "").replace("-> float:", "-> float")
    assert replay_episode(episode, env).drift_turns == [6], "a tampered answer drifts"

    ran = next(e for e in episode.events if (e.content or "").startswith("8.2\n"))
    ran.content = (ran.content or "").replace("8.2", "8.3", 1)
    assert replay_episode(episode, env).drift_turns == [6, 8], "so does a forged output of the absolute path"
