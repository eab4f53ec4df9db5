"""Failure triage: each of the four gates decided by evidence outside the model, and the report."""

import copy

import test_replay as T
from _verify_factory import (
    CALC_S0,
    OK,
    answered_ok,
    call,
    make_episode,
    make_fixture,
    pristine_turns,
    writing_turns,
)

from trajectory_platform.curation.verify.dynamic import fixture_context
from trajectory_platform.curation.verify.roles import divergence_turn
from trajectory_platform.curation.verify.triage import (
    CLASSES,
    STATED,
    RefusalTally,
    triage_episode,
    triage_report,
)
from trajectory_platform.gym.fixtures import ReplaySpec
from trajectory_platform.gym.policies import ScriptedExpert
from trajectory_platform.gym.runtime import RuntimeConfig, run_episode
from trajectory_platform.gym.sandbox import unified_diff
from trajectory_platform.traces.record import Event

CONTEXT = fixture_context(make_fixture())


KEY = b"k" * 32


def replayed(episode, *, but=()):
    """Stage 3's data of a replay that re-derived every answer of ``episode`` (but those at ``but``)."""
    answers = [i for i, e in enumerate(episode.events) if e.kind == "tool" and i not in but]
    return {"replay": {"verified_answers": answers}}


def triage(episode, batch=None, dynamic=None, threshold=0.2, seal_key=None, context=CONTEXT):
    """Triage ``episode`` as the cascade does; by default its answers were all replayed and matched."""
    data = replayed(episode) if dynamic is None else dynamic
    tally = RefusalTally()
    for other in batch or [episode]:
        tally.add(other, context, data if other is episode else replayed(other))
    t_div = divergence_turn(episode)[0]
    return triage_episode(episode, context, data, tally.rates(), t_div, threshold, seal_key)


def test_a_gym_logs_end_counts_only_under_its_runtimes_seal():
    """A wrong fix stating ``timeout`` was triaged a runtime defect (red team, 2026-12-06): a gym
    log's end is the runtime's only where the runtime sealed it."""
    wrong = {**CALC_S0, "calc/ops.py": CALC_S0["calc/ops.py"].replace("a - b", "a * b")}
    stated = make_episode("stated", writing_turns({"calc/ops.py": wrong["calc/ops.py"]}), wrong)
    stated.outcome.terminal_status = "timeout"
    stated.events[-1].finish_reason = "length"
    assert triage(stated, seal_key=KEY).failure_class == "policy_incapability", "no seal: the log's word"
    assert triage(stated).failure_class == "policy_incapability", "no key: nothing is the runtime's"
    slow = run_episode(
        make_fixture(), ScriptedExpert(), config=RuntimeConfig(wall_timeout_s=0.0), seal_key=KEY
    )
    assert triage(slow.episode, seal_key=b"other" * 8).failure_class == "policy_incapability"
    assert triage(slow.episode, seal_key=KEY).failure_class == "runtime_defect"
    other = make_episode("other", writing_turns({"calc/ops.py": wrong["calc/ops.py"]}), wrong)
    moved = copy.deepcopy(slow.episode)  # the genuine timeout's id and seal kept over a wrong fix's run
    moved.events, moved.outcome.workspace_diff = other.events, other.outcome.workspace_diff
    assert triage(moved, seal_key=KEY).failure_class == "policy_incapability", "the seal binds the run"
    completed = run_episode(make_fixture(), ScriptedExpert(), seal_key=KEY).episode
    assert completed.outcome.terminal_status == "completed"
    completed.outcome.terminal_status = "timeout"  # sealed as completed, stated as a timeout
    assert triage(completed, seal_key=KEY).failure_class == "policy_incapability"
    unfinished = make_episode("cut", pristine_turns()[:2], CALC_S0, final_report=None)
    unfinished.outcome.terminal_status = "timeout"
    for label in ("openhands", "claude-code", "langsmith"):  # relabelled, it escaped the seal: the
        unfinished.source_format = label  # task decides it is a gym log, not what the record says
        assert triage(unfinished, seal_key=KEY).failure_class == "policy_incapability", label


def test_a_brought_logs_stated_end_is_its_own_word_and_outranks_nothing():
    """A brought log's harness is the only source of how it ended: kept, said to be the log's own
    statement, after the measured gates, and not where the agent ended the episode itself."""
    brought = fixture_context(T.environment())
    unfinished = make_episode("cut", pristine_turns()[:2], CALC_S0, final_report=None)
    unfinished.source_format, unfinished.outcome.terminal_status = "openai", "timeout"
    verdict = triage(unfinished, context=brought)
    assert verdict.failure_class == "runtime_defect"
    assert verdict.evidence == [
        "the log states its harness ended the episode: timeout (the log's own statement)"
    ]
    answered = make_episode("answered", pristine_turns(), CALC_S0)
    answered.source_format = "openai"
    answered.outcome.terminal_status = "timeout"
    assert triage(answered, context=brought).failure_class == "policy_incapability", "the agent ended it"
    missing = [([call("read_file", file_path="calc/core.py")], [("error", "No such file or directory", 2)])]
    lost = make_episode("lost", missing, CALC_S0, final_report=None)
    lost.source_format, lost.outcome.terminal_status = "openai", "timeout"
    assert triage(lost, context=brought).failure_class == "context_deficit", "measured evidence first"


def test_runtime_defect_from_exit_codes_timeouts_and_oracle_runs():
    killed = make_episode("oom", [([call("run_tests")], [("error", "Killed", 137)])], CALC_S0)
    verdict = triage(killed)
    assert verdict.failure_class == "runtime_defect" and "exit 137" in verdict.evidence[0]
    slow = run_episode(
        make_fixture(), ScriptedExpert(), config=RuntimeConfig(wall_timeout_s=0.0), seal_key=KEY
    )
    assert slow.terminal_status == "timeout"
    sealed = triage(slow.episode, seal_key=KEY)
    assert sealed.failure_class == "runtime_defect" and sealed.evidence == [
        "the runtime ended the episode: timeout (sealed)"
    ]
    flaky = make_episode("flaky", pristine_turns()[:1], CALC_S0)
    assert triage(flaky, dynamic={"inconsistent": True, "run_outcomes": [False, True]}).failure_class == (
        "runtime_defect"
    )
    rate_limited = make_episode(
        "429", [([call("run_tests")], [("error", "HTTP 429 Too Many Requests", 1)])], CALC_S0
    )
    assert triage(rate_limited).failure_class == "runtime_defect"


def test_a_recovered_substrate_error_is_not_the_cause():
    turns = [([call("run_tests")], [("error", "HTTP 429 Too Many Requests", 1)]), ([call("run_tests")], [OK])]
    assert triage(make_episode("ok429", turns, CALC_S0)).failure_class == "policy_incapability"


def test_context_deficit_from_missing_files_and_compaction():
    missing = [([call("read_file", file_path="calc/core.py")], [("error", "No such file or directory", 2)])]
    verdict = triage(make_episode("missing", missing, CALC_S0))
    assert verdict.failure_class == "context_deficit" and verdict.subject == "missing calc/core.py"
    compacted = make_episode("compacted", pristine_turns()[:2], CALC_S0)  # a summary no runtime wrote
    compacted.events.insert(3, Event("compaction", content="summary", replaces_through=2))
    # a gym log's compaction is evidence only as its runtime writes it, a brought log's is its own
    # statement: test_triage_stated_refusals_compactions.py
    assert triage(compacted).failure_class == "policy_incapability"


def test_interface_ambiguity_from_batch_refusal_rates():
    refused = [([call("read_file", path="calc/ops.py")], [("refused", "unknown key 'path'", None)])]
    confused = [make_episode(f"c{i}", refused, CALC_S0) for i in range(3)]
    fine = [make_episode(f"f{i}", pristine_turns(), CALC_S0) for i in range(3)]
    verdict = triage(confused[0], batch=confused + fine)
    assert verdict.failure_class == "interface_ambiguity"
    assert verdict.subject == "read_file@path@1.0" and "3/6" in verdict.evidence[0]
    # the same refusal in a batch where the tool is almost always used correctly is the policy's
    many_fine = [make_episode(f"g{i}", pristine_turns(), CALC_S0) for i in range(20)]
    assert triage(confused[0], batch=[confused[0], *many_fine]).failure_class == "policy_incapability"


def test_interface_ambiguity_from_schema_drift():
    fixture = make_fixture()
    episode = make_episode(
        "drift",
        [([call("read_file", file_path="calc/ops.py")], [("refused", "unknown key", None)])],
        CALC_S0,
        tools_version="path@2.0",
    )
    episode.tools = fixture.manifest.specs() + make_fixture_v2().manifest.specs()
    many_fine = [
        make_episode(f"g{i}", answered_ok(pristine_turns()), CALC_S0, tools_version="path@2.0")
        for i in range(20)
    ]
    verdict = triage(episode, batch=[episode, *many_fine])
    assert verdict.failure_class == "interface_ambiguity" and "schema drift" in verdict.evidence[0]


def make_fixture_v2():
    fixture = make_fixture()
    fixture.tool_version = "2.0"
    return fixture


def test_policy_incapability_is_the_residual():
    wrong = [
        pristine_turns()[0],
        ([call("edit_file", file_path="calc/ops.py", old="a - b", new="b - a")], [OK]),
    ]
    verdict = triage(make_episode("wrong", wrong, CALC_S0))
    assert verdict.failure_class == "policy_incapability"


def test_report_groups_by_class_and_subject_with_remedies():
    rows = [
        ("a", triage(make_episode("a", [([call("run_tests")], [("error", "Killed", 137)])], CALC_S0))),
        ("b", triage(make_episode("b", [([call("run_tests")], [("error", "Killed", 137)])], CALC_S0))),
        ("c", triage(make_episode("c", pristine_turns()[:1], CALC_S0))),
    ]
    report = triage_report(rows).to_pylist()
    assert [r["failure_class"] for r in report] == ["runtime_defect", "policy_incapability"]
    assert report[0]["episodes"] == 2 and report[0]["share"] == round(2 / 3, 6)
    assert report[0]["example_episode_ids"] == ["a", "b"]
    assert "sandbox" in report[0]["remedy"] and "recovery" in report[1]["remedy"]
    assert set(CLASSES) == {"runtime_defect", "context_deficit", "interface_ambiguity", "policy_incapability"}


ORDINARY_FAILURES = [
    "AssertionError: expected the room to be booked",
    'File "calc/ops.py", line 503, in add\nAssertionError',
    "FAILED tests/test_calc.py::test_timeout_is_honoured - assert 2 == 3",
    "error: expected 504 rows, got 503",
    "zoom level out of range",
    # a test's assertion about the code and a program's own words (red team, 2026-12-06)
    "E       assert resp.status_code == 503",
    "E       Failed: DID NOT RAISE TimeoutError",
    "player Killed by goblin",
]
ORDINARY_VALIDATION = [  # not used while writing the rule
    ">       assert response.status == 429",
    "FAILED tests/test_http.py::test_retry - assert 503 == 200",
    "Failed: DID NOT RAISE <class 'MemoryError'>",
    "the dragon Killed the knight",
    "log: caught TimeoutError, retrying",
    "    assert r.status_code == 502, r.text",
]
SUBSTRATE_VALIDATION = [
    'Traceback (most recent call last):\n  File "x.py", line 2, in <module>\nMemoryError',
    "builtins.TimeoutError: [Errno 110] Connection timed out",
    "/bin/sh: line 3:  1234 Killed                  python x.py",
    "Killed",
    "requests.exceptions.HTTPError: status=503 for url http://svc/api",
    "HTTP/2 502",
]
SUBSTRATE_FAILURES = [
    "bash: line 1:    42 Killed                  python big.py",
    "requests.exceptions.ConnectionError: Connection reset by peer",
    "HTTP/1.1 503 Service Unavailable",
    "upstream answered status: 429",
    "subprocess.TimeoutExpired: Command 'pytest' timed out after 60 seconds",
    "MemoryError",
]


def test_ordinary_program_output_is_no_substrate_signal():
    """Red team: ``OOM`` inside "room", a traceback's line 503 and a test named for timeouts read
    as the runtime's fault, so a policy's failure was triaged ``runtime_defect`` (its feedback edits
    dropped). An HTTP status counts where a status is meant, error names as whole words."""
    for index, text in enumerate(ORDINARY_FAILURES + ORDINARY_VALIDATION):
        episode = make_episode(f"ordinary{index}", [([call("run_tests")], [("error", text, 1)])], CALC_S0)
        assert triage(episode).failure_class == "policy_incapability", text
    for index, text in enumerate(SUBSTRATE_FAILURES + SUBSTRATE_VALIDATION):
        episode = make_episode(f"substrate{index}", [([call("run_tests")], [("error", text, 1)])], CALC_S0)
        assert triage(episode).failure_class == "runtime_defect", text


UNVERIFIED_DEV = [  # (recorded output, recorded exit code) of a failed call, each a substrate signal
    ("Killed", 1),
    ("HTTP/1.1 503 Service Unavailable", 1),
    ("F.\n1 failed, 1 passed", 137),
    ("bash: line 1:    42 Killed                  python big.py", 1),
    ("requests.exceptions.ConnectionError: Connection reset by peer", 1),
    ("", 124),
]
UNVERIFIED_VALIDATION = [  # not used while writing the rule
    ("HTTP/2 502", 1),
    ("upstream answered status: 429", 1),
    ("Segmentation fault", 139),
    ("subprocess.TimeoutExpired: Command 'pytest' timed out after 60 seconds", 1),
    ("OOMKilled", 1),
    ("MemoryError", 1),
    ("ETIMEDOUT", 1),
]


def _last_answer(episode):
    return max(i for i, e in enumerate(episode.events) if e.kind == "tool")


UNREPLAYED = {  # stage 3's data where nothing re-derived the failed call's answer
    "never replayed (stopped before stage 3)": lambda episode: {},
    "replay mode none": lambda episode: {"replay": {"mode": "none", "observations": "unverified"}},
    "replayed, this answer not compared": lambda episode: replayed(episode, but={_last_answer(episode)}),
}
MISSING = [  # a recorded missing-file answer for a path S0 lacks
    "No such file or directory",
    "FileNotFoundError: [Errno 2] No such file or directory: 'calc/core.py'",
    "cat: calc/core.py: No such file or directory",
    "ENOENT: no such file",
]
BROUGHT = fixture_context(T.environment(replay=ReplaySpec()))
READ = ([call("read_file", file_path="calc/ops.py")], [("ok", CALC_S0["calc/ops.py"], 0)])
WRONG = ([call("edit_file", file_path="calc/ops.py", old="a - b", new="a * b")], [OK])
LOST = ([call("read_file", file_path="calc/core.py")], [("error", "No such file or directory", 2)])
LOST_ANSWER = 7  # system, user, read, its answer, the wrong edit, its answer, this read, its answer


def _forged(name, turns, answered=True):
    """A wrong fix (read, a wrong edit, then ``turns``), its answers written out (no gym run);
    ``answered``: the agent ends it with its report, else the log ends on its last call."""
    return make_episode(name, [READ, WRONG, *turns], CALC_S0, final_report="fixed add" if answered else None)


def _unmeasured_cases(half):
    for (text, code), (mode, data) in ((c, m) for c in half for m in UNREPLAYED.items()):
        yield f"{text!r}/{code} under {mode}", [([call("run_tests")], [("error", text, code)])], data


def _caught(turns, data):
    """A policy failure with an unmeasured substrate answer is not read as the runtime's: in a gym
    log it is no evidence; in a brought log the agent answered after it is the policy's failure;
    in one the log ends on, it is the log's own statement, which a measured gate (a replayed
    missing-file read) outranks."""
    for episode, context in ((_forged("gym", turns), CONTEXT), (_forged("answered", turns), BROUGHT)):
        if triage(episode, dynamic=data(episode), context=context).failure_class != "policy_incapability":
            return False
    unfinished = _forged("unfinished", turns, answered=False)
    verdict = triage(unfinished, dynamic=data(unfinished), context=BROUGHT)
    if verdict.failure_class != "runtime_defect" or not all(
        line.endswith(STATED) for line in verdict.evidence
    ):
        return False
    lost = _forged("lost", [LOST, *turns], answered=False)
    measured = data(lost)
    answers = measured.setdefault("replay", {}).get("verified_answers", [])
    measured["replay"]["verified_answers"] = sorted({*answers, LOST_ANSWER})
    outranked = triage(lost, dynamic=measured, context=BROUGHT)
    return outranked.failure_class == "context_deficit" and not outranked.evidence[0].endswith(STATED)


def test_a_calls_answer_is_runtime_evidence_only_where_replay_verified_it():
    """Red team: a wrong fix whose log recorded ``Killed``, ``HTTP/1.1 503`` or exit 137 under replay
    mode ``none`` was a ``runtime_defect`` on gate 1. An answer replay did not re-derive is the log's
    word: nothing in a gym log, the log's own statement after the measured gates in a brought one,
    and not where the agent ended the episode itself."""
    for half in (UNVERIFIED_DEV, UNVERIFIED_VALIDATION):
        missed = [name for name, turns, data in _unmeasured_cases(half) if not _caught(turns, data)]
        assert missed == [], missed
    for text, code in UNVERIFIED_DEV + UNVERIFIED_VALIDATION:  # replayed and matched: measured
        measured = triage(_forged("m", [([call("run_tests")], [("error", text, code)])]))
        assert measured.failure_class == "runtime_defect" and not measured.evidence[0].endswith(STATED)


def test_a_missing_file_answer_is_context_evidence_only_where_replay_verified_it():
    """The same root on gate 2: a recorded ``No such file`` answer nothing re-derived made a policy
    failure a ``context_deficit``. Unmeasured, it counts in a brought log for a path the call names
    and S0 lacks (S0 bears that out), never for a shell line naming none."""
    for text in MISSING:
        named = [([call("read_file", file_path="calc/core.py")], [("error", text, 2)])]
        unnamed = [([call("bash", command="cat calc/core.py")], [("error", text, 1)])]
        for mode, data in UNREPLAYED.items():
            for turns in (named, unnamed):
                gym = _forged("gym", turns)
                assert triage(gym, dynamic=data(gym)).failure_class == "policy_incapability", (text, mode)
            brought, shell = _forged("brought", named), _forged("shell", unnamed)
            verdict = triage(brought, dynamic=data(brought), context=BROUGHT)
            assert verdict.failure_class == "context_deficit" and verdict.evidence[0].endswith(STATED)
            assert triage(shell, dynamic=data(shell), context=BROUGHT).failure_class == "policy_incapability"
        for turns in (named, unnamed):
            measured = triage(_forged("m", turns))
            assert measured.failure_class == "context_deficit" and not measured.evidence[0].endswith(STATED)


def test_the_cascade_reads_runtime_evidence_off_the_answers_its_replay_verified():
    """End to end (stage 3's replay data into triage): a recorded ``Killed`` under replay mode
    ``none``, the agent answering after it, is the policy's failure; a command the shell replay
    really saw killed (exit 137, in the sandbox too) is the runtime's, answered or not."""
    wrong = unified_diff(
        CALC_S0, {**CALC_S0, "calc/ops.py": CALC_S0["calc/ops.py"].replace("a - b", "a * b")}
    )
    stated = [T.bash(0, "cat calc/ops.py", T.OPS), T.bash(1, "python -m pytest -q", "Killed\n", exit_code=1)]
    (forged,) = T.verify([T.episode_of(stated, wrong, "forged")], T.environment(replay=ReplaySpec()))
    assert (forged.sink, forged.triage_class) == ("hard_negative", "policy_incapability")
    breaks = T.bash(1, "sed -i 's/a - b/a * b/' calc/ops.py", "")
    killed = [T.bash(0, "cat calc/ops.py", T.OPS), breaks, T.bash(2, "kill -9 $$", "", exit_code=137)]
    (measured,) = T.verify([T.episode_of(killed, wrong, "killed")], T.environment())
    assert measured.sink == "hard_negative", measured.reason
    assert measured.triage_evidence == ["execute_bash exit 137 (killed (OOM?))"]
