"""Failure triage: each of the four gates decided by evidence outside the model, and the report."""

from _verify_factory import CALC_S0, OK, answered_ok, call, make_episode, make_fixture, pristine_turns

from trajectory_platform.curation.verify.dynamic import fixture_context
from trajectory_platform.curation.verify.roles import divergence_turn
from trajectory_platform.curation.verify.triage import CLASSES, refusal_rates, triage_episode, triage_report
from trajectory_platform.traces.record import Event

CONTEXT = fixture_context(make_fixture())


def triage(episode, batch=None, dynamic=None, threshold=0.2):
    rates = refusal_rates(batch or [episode])
    return triage_episode(episode, CONTEXT, dynamic or {}, rates, divergence_turn(episode)[0], threshold)


def test_runtime_defect_from_exit_codes_timeouts_and_oracle_runs():
    killed = make_episode("oom", [([call("run_tests")], [("error", "Killed", 137)])], CALC_S0)
    verdict = triage(killed)
    assert verdict.failure_class == "runtime_defect" and "exit 137" in verdict.evidence[0]
    slow = make_episode("timeout", pristine_turns()[:1], CALC_S0)
    slow.outcome.terminal_status = "timeout"
    assert triage(slow).failure_class == "runtime_defect"
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
    for index, text in enumerate(ORDINARY_FAILURES):
        episode = make_episode(f"ordinary{index}", [([call("run_tests")], [("error", text, 1)])], CALC_S0)
        assert triage(episode).failure_class == "policy_incapability", text
    for index, text in enumerate(SUBSTRATE_FAILURES):
        episode = make_episode(f"substrate{index}", [([call("run_tests")], [("error", text, 1)])], CALC_S0)
        assert triage(episode).failure_class == "runtime_defect", text
