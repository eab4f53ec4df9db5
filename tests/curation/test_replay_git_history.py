"""Reads of the agent's repository history (``git log``, ``blame``, a hash): replay's checkout has
one commit of its own, so such an answer is neither drift nor verified, and its status is the
log's word alone."""

from __future__ import annotations

import pytest
from test_replay import CALC_S0, FIX, FIXED, OPS, bash, environment, episode_of, replay_data, verify

from trajectory_platform.curation.verify.git_history import reads_history
from trajectory_platform.gym.sandbox import unified_diff


@pytest.mark.parametrize(
    "line",
    [
        "git log --oneline -1",
        "git rev-parse --short HEAD",
        "git log --oneline | wc -l",
        "git blame -s calc/ops.py | head -2",
        "cd /testbed && git --no-pager show --stat HEAD 2>&1",
        "git -C . describe --tags",
        "git stash list",
        "GIT_PAGER=cat git log --oneline -2",
        "timeout 10 git log -1 --format=%h",
        "env PAGER= timeout -s KILL 5 git log -1",
        "cd calc; git log --oneline -1",
        "git log | cut -d' ' -f1 | sort | uniq -c | head -n 3",
        "git log --oneline |& grep -c fix",
        "git -c color.ui=never log -1",
    ],
)
def test_a_history_read_is_one_git_command_of_the_table_optionally_piped(line):
    assert reads_history(line)


@pytest.mark.parametrize(
    "line",
    [
        "git status",
        "git diff",
        "git show HEAD:calc/ops.py",
        "git rev-parse --show-toplevel",
        "cat calc/ops.py; git log -1",
        "git log -1 && cat calc/ops.py",
        "git log -1 > /tmp/log.txt",
        "echo git log",
        "git log -1 | cat calc/ops.py",
        "git log -1 | head -20 calc/ops.py",
        "git log -1 | grep -f calc/ops.py",
        "git log -1 | grep -r def",
        "git log -1 | xargs cat",
        "git log -1 | sh -c 'cat calc/ops.py'",
        "git log -1\ncat calc/ops.py",
        'git log -1 --format="$(cat calc/ops.py)"',
        "git log -1 --format=`cat calc/ops.py`",
        "GIT_PAGER='cat calc/ops.py' git log -1",
        "git -c core.pager='cat calc/ops.py' log -1",
        "git show HEAD HEAD:calc/ops.py",
        "git describe --always || cat calc/ops.py",
    ],
)
def test_a_line_that_also_reads_files_or_sends_the_history_elsewhere_is_compared(line):
    assert not reads_history(line)


def test_an_honest_history_read_is_admitted_unchecked_and_its_status_is_the_logs_word():
    made_elsewhere = "3f2a1b2 calc: add and mul\n"  # the agent's repository's commit
    turns = [
        bash(0, "cat calc/ops.py", OPS),
        bash(1, "git log --oneline -1", made_elsewhere),
        bash(2, FIX, ""),
    ]
    (verdict,) = verify([episode_of(turns, unified_diff(CALC_S0, FIXED))], environment())
    assert (verdict.sink, verdict.reason) == ("admitted", "passed_stages_1_to_4")
    replayed = replay_data(verdict)
    assert replayed["observations"] == "unverified" and replayed["unchecked_turns"] == [4]
    assert replayed["unreplayed_answers"] == [5] and 5 not in replayed["verified_answers"]


def test_a_file_read_piped_behind_a_history_read_is_compared_and_a_forged_answer_drifts():
    forged = OPS.replace("a - b", "a - b  # the grader only checks add(2, 3)")
    turns = [bash(0, "git log -1 | cat calc/ops.py", forged), bash(1, FIX, "")]
    (verdict,) = verify([episode_of(turns, unified_diff(CALC_S0, FIXED))], environment())
    assert (verdict.sink, verdict.reason) == ("unverifiable", "replay_drift")


def test_an_honest_history_read_behind_a_pager_setting_is_admitted_unchecked():
    turns = [bash(0, "GIT_PAGER=cat git log --oneline -1", "3f2a1b2 calc: add and mul\n"), bash(1, FIX, "")]
    (verdict,) = verify([episode_of(turns, unified_diff(CALC_S0, FIXED))], environment())
    assert (verdict.sink, verdict.reason) == ("admitted", "passed_stages_1_to_4")
    assert replay_data(verdict)["unreplayed_answers"] == [3]
