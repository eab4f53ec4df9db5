"""A plain ``ls`` lays its listing out for where its output goes: columns on the pseudo-terminal
SWE-agent 1.0's runtime ran commands on, one name a line into replay's pipe. Replay compares such a
listing by its names under the declared ``ls_names`` tolerance, recorded in the replay data; a
listing with a name added or dropped still drifts, and a listing whose layout the command fixed
(``ls -l``, a pipe) is compared exactly.

The columns here are GNU ls's own on an 80-column terminal (``ls -C -w 80``): the real SWE-agent
1.0 marshmallow run's, copied from its log, and a small one written by hand."""

from __future__ import annotations

import dataclasses
import json

from test_replay_recorded_root import ROOT, swe, swe_agent_episode

from trajectory_platform.curation.verify.replay import plain_listing, recorded_observation, replay_episode
from trajectory_platform.traces.ingest import ingest_paths
from trajectory_platform.traces.record import Event, ToolCall

COLUMNS = "README.md  calc/  show.py  tests/\n"
"""``ls -F`` of S0 (calc/, tests/, README.md, show.py) on an 80-column terminal."""
MARSHMALLOW = (
    "swe-agent/trajectories/demonstrations/replay__marshmallow-code__marshmallow-1867__function_calling"
    "__install-1/marshmallow-code__marshmallow-1867.traj"
)


def test_a_terminal_columns_listing_matches_by_names_and_says_so():
    episode, env = swe_agent_episode(
        [swe(0, "ls -F", COLUMNS), swe(1, f"cd {ROOT} && ls", "README.md  calc  show.py  tests")]
    )
    result = replay_episode(episode, env)
    assert (result.observations, result.drift_turns) == ("verified", [])
    assert result.data()["tolerated"] == {"ls_names": [2, 4]}

    exact = "README.md\ncalc/\nshow.py\ntests/\n"  # what a pipe gets: no tolerance needed
    episode, env = swe_agent_episode([swe(0, "ls -F", exact)])
    result = replay_episode(episode, env)
    assert result.observations == "verified" and "tolerated" not in result.data()


def test_a_forged_listing_still_drifts():
    for forged in ("README.md  calc/  secret.env  show.py  tests/\n", "README.md  calc/  tests/\n"):
        episode, env = swe_agent_episode([swe(0, "ls -F", forged)])
        result = replay_episode(episode, env)
        assert (result.drift_turns, result.tolerated) == ([2], {}), forged

    renamed = COLUMNS.replace("show.py", "show.pyc")
    episode, env = swe_agent_episode([swe(0, "ls -F", renamed)])
    assert replay_episode(episode, env).drift_turns == [2]


def test_a_layout_the_command_fixed_is_compared_exactly():
    for command in ("ls -F | cat", "ls -1F", "ls -F > /dev/stdout", "ls -F; true"):
        assert not plain_listing(command), command
        episode, env = swe_agent_episode([swe(0, command, COLUMNS)])
        assert replay_episode(episode, env).drift_turns == [2], command
    episode, env = swe_agent_episode([swe(0, "ls -CF", COLUMNS)])  # columns asked for: exact
    assert (replay_episode(episode, env).observations, plain_listing("ls -CF")) == ("verified", False)
    for command in ("ls -F", "ls -aF calc", "cd /calc__repo && ls -R", "ls -- -l"):
        assert plain_listing(command), command


def test_a_different_exit_code_is_not_tolerated():
    call = ToolCall("c0", "execute_bash", json.dumps({"command": "ls -F"}))
    answer = Event("tool", content=COLUMNS, tool_call_id="c0", status="error", exit_code=2)
    episode, env = swe_agent_episode([(call, answer)])
    (drift,) = replay_episode(episode, env).drift
    assert (drift.recorded_exit, drift.replayed_exit) == (2, 0)


def test_the_real_1_0_runs_columns_listing_matches_its_repository_by_names(real_root):
    """The marshmallow run's ``ls -F`` (SWE-ReX's 80-column pseudo-terminal: four rows, tabs) on a
    workspace holding the names it lists; without ``tox.ini`` it drifts."""
    (log,) = ingest_paths([real_root / MARSHMALLOW]).episodes
    listing = next(e for e in log.events if e.kind == "tool" and "azure-pipelines.yml" in (e.content or ""))
    recorded, _ = recorded_observation(listing)
    assert len(recorded.splitlines()) == 4 and "\t" in recorded
    names = recorded.split()
    s0 = {n.rstrip("/") + ("/keep" if n.endswith("/") else ""): "" for n in names}
    answer = Event("tool", content=listing.content, tool_call_id="c0")
    turn = (ToolCall("c0", "bash", json.dumps({"command": "ls -F"})), answer)
    episode, env = swe_agent_episode([turn])
    env = dataclasses.replace(env, s0_files=s0)
    result = replay_episode(episode, env)
    assert (result.observations, result.tolerated) == ("verified", {"ls_names": [2]})

    env = dataclasses.replace(env, s0_files={k: v for k, v in s0.items() if k != "tox.ini"})
    assert replay_episode(episode, env).drift_turns == [2]
