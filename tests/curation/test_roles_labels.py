"""Role labels (pristine / recovery / inefficient / hard negative) and per-turn target reasons."""

from _verify_factory import CALC_S0, OK, call, fixed_files, make_episode, pristine_turns

from trajectory_platform.curation.verify.roles import (
    CONTEXT_REASONS,
    TARGET_REASONS,
    divergence_turn,
    label_admitted,
)

MIN_CALLS = 3


def test_pristine_has_no_error_and_stays_within_the_turn_bound():
    label = label_admitted(make_episode("p", pristine_turns(), fixed_files()), MIN_CALLS)
    assert label.role == "pristine" and label.t_div is None and label.t_rec is None
    assert label.turn_reasons == {2: "action", 4: "action", 6: "action", 8: "final_report"}
    assert label.target_turns == [2, 4, 6, 8]


def test_verified_but_long_without_errors_is_not_pristine():
    extra = [([call("list_files", path="calc")], [OK])]
    label = label_admitted(make_episode("long", extra + pristine_turns(), fixed_files()), MIN_CALLS)
    assert label.role == "inefficient"  # 4 calls > 1.2 x 3
    within = label_admitted(make_episode("ok", extra + pristine_turns(), fixed_files()), 4)
    assert within.role == "pristine"


def test_recovery_marks_divergence_diagnosis_correction_and_report():
    turns = [
        ([call("read_file", file_path="calc/ops.py")], [("ok", CALC_S0["calc/ops.py"], 0)]),  # 2
        (
            [call("edit_file", file_path="calc/ops.py", old="a-b", new="a+b")],  # 4: wrong snippet
            [("error", "old text not found in calc/ops.py", 1)],
        ),
        ([call("read_file", file_path="calc/ops.py")], [("ok", CALC_S0["calc/ops.py"], 0)]),  # 6: diagnosis
        ([call("edit_file", file_path="calc/ops.py", old="a - b", new="a + b")], [OK]),  # 8: corrected
        ([call("run_tests")], [("ok", "2 passed", 0)]),  # 10
    ]
    label = label_admitted(make_episode("r", turns, fixed_files()), MIN_CALLS)
    assert (label.role, label.t_div, label.t_rec) == ("recovery", 4, 8)
    assert label.t_div_reason == "error_observation"
    assert label.turn_reasons == {
        2: "action",
        4: "erroneous_proposal",
        6: "diagnosis",
        8: "corrected_call",
        10: "action",
        12: "final_report",
    }
    assert label.target_turns == [2, 6, 8, 10, 12]


def test_refused_proposal_stays_context_and_the_corrected_call_is_a_target():
    turns = [
        ([call("read_file", path="calc/ops.py")], [("refused", "unknown key 'path'", None)])
    ] + pristine_turns()
    label = label_admitted(make_episode("refused", turns, fixed_files()), MIN_CALLS)
    assert label.role == "recovery" and label.t_div == 2
    assert label.turn_reasons[2] == "refused_proposal"
    assert 2 not in label.target_turns
    assert label.turn_reasons[label.t_rec] == "corrected_call"
    assert label.t_rec in label.target_turns


def test_loop_repeats_and_truncated_turns_stay_context():
    read = ([call("read_file", file_path="calc/ops.py")], [OK])
    label = label_admitted(make_episode("loop", [read, read] + pristine_turns()[1:], fixed_files()), 10)
    assert label.turn_reasons[4] == "loop_repeat" and 4 not in label.target_turns
    cut = label_admitted(
        make_episode("cut", pristine_turns(), fixed_files(), finish_reason="length"), MIN_CALLS
    )
    assert cut.turn_reasons[8] == "truncated_turn" and 8 not in cut.target_turns


def test_every_reason_is_typed():
    assert set(CONTEXT_REASONS).isdisjoint(TARGET_REASONS)
    label = label_admitted(make_episode("p", pristine_turns(), fixed_files()), MIN_CALLS)
    assert set(label.turn_reasons.values()) <= set(CONTEXT_REASONS) | set(TARGET_REASONS)


def test_hard_negative_divergence_turns():
    gave_up = make_episode("gave_up", pristine_turns()[:1], CALC_S0)
    assert divergence_turn(gave_up) == (4, "unverified_report")
    wrong_edit = [
        pristine_turns()[0],
        ([call("edit_file", file_path="calc/ops.py", old="a - b", new="b - a")], [OK]),
    ]
    assert divergence_turn(make_episode("wrong", wrong_edit, CALC_S0)) == (4, "failing_edit")
    missing = [([call("read_file", file_path="calc/missing.py")], [("error", "No such file", 1)])]
    assert divergence_turn(make_episode("missing", missing, CALC_S0)) == (2, "unrecovered_error")
    read = ([call("read_file", file_path="calc/ops.py")], [OK])
    assert divergence_turn(make_episode("spin", [read, read, read], CALC_S0)) == (4, "loop_onset")


def test_reissuing_the_same_failing_call_is_a_loop_but_rereading_after_an_error_is_not():
    bad = ([call("read_file", file_path="calc/missing.py")], [("error", "No such file", 1)])
    assert divergence_turn(make_episode("retry", [bad, bad], CALC_S0)) == (2, "unrecovered_error")
    from trajectory_platform.curation.verify.calls import call_records
    from trajectory_platform.curation.verify.roles import loop_turns

    assert loop_turns(call_records(make_episode("retry", [bad, bad], CALC_S0))) == [4]


def test_transient_fault_diagnosed_then_retried_is_a_recovery_resumed_at_the_retry():
    turns = [
        ([call("run_tests")], [("error", "bash: run-tests: command not found", 127)]),  # 2: fault
        ([call("list_files", path=".")], [OK]),  # 4: diagnosis
        ([call("run_tests")], [("ok", "2 passed", 0)]),  # 6: resumption
    ]
    label = label_admitted(make_episode("transient", turns, fixed_files()), MIN_CALLS)
    assert (label.role, label.t_div, label.t_rec) == ("recovery", 2, 6)
    assert label.turn_reasons == {
        2: "erroneous_proposal",
        4: "diagnosis",
        6: "corrected_call",
        8: "final_report",
    }
