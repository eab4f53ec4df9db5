"""Failure triage: each of the four gates decided by evidence outside the model, and the report."""

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
from trajectory_platform.curation.verify.triage import CLASSES, refusal_rates, triage_episode, triage_report
from trajectory_platform.gym.policies import ScriptedExpert
from trajectory_platform.gym.runtime import RuntimeConfig, run_episode
from trajectory_platform.traces.record import Event

CONTEXT = fixture_context(make_fixture())


KEY = b"k" * 32


def triage(episode, batch=None, dynamic=None, threshold=0.2, seal_key=None, context=CONTEXT):
    rates = refusal_rates(batch or [episode])
    t_div = divergence_turn(episode)[0]
    return triage_episode(episode, context, dynamic or {}, rates, t_div, threshold, seal_key)


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
    compacted = make_episode("compacted", pristine_turns()[:2], CALC_S0)
    compacted.events.insert(3, Event("compaction", content="summary", replaces_through=2))
    assert triage(compacted).failure_class == "context_deficit"


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
