"""A real SWE-agent pre-1.0 log (the HumanEvalFix demonstration in ../shared/data/real) replays in
the sandbox: its repository is one file, which the log shows whole when it opens it, so its S0 is
rebuilt from the log itself. The agent runs ``python main.py``, which drifted while the sandbox had
no ``python``."""

from __future__ import annotations

import dataclasses
import re

from test_replay import environment

from trajectory_platform.curation.verify.replay import replay_episode
from trajectory_platform.gym import isolation
from trajectory_platform.traces.ingest import ingest_paths

LOG = (
    "swe-agent/trajectories/demonstrations/human_thought__swe-bench-HumanEvalFix-python__lcb__t-0.00"
    "__p-0.95__c-4.00__install-0/humanevalfix-python-0.traj"
)


def test_a_real_pre_1_0_log_running_python_replays_verified(real_root, monkeypatch):
    (episode,) = ingest_paths([real_root / LOG]).episodes
    opened = next(
        e.content or "" for e in episode.events if e.kind == "tool" and "[File:" in (e.content or "")
    )
    main = "".join(f"{m.group(1)}\n" for m in re.finditer(r"(?m)^\d+:(.*)$", opened))
    s0 = {"main.py": main}  # its `ls -a` lists .git: the replay's workspace is a checkout
    env = dataclasses.replace(environment(task_id=episode.task.fixture_id), s0_files=s0)

    result = replay_episode(episode, env)
    assert (result.observations, result.turns_replayed, result.drift_turns) == ("verified", 4, [])
    assert result.final_files == {**s0, "main.py": main.replace("elem - elem2", "abs(elem - elem2)")}

    monkeypatch.setattr(isolation, "INTERPRETER_NAMES", ("python3",))
    assert replay_episode(episode, env).drift_turns == [8], "`python main.py` needs the name `python`"
