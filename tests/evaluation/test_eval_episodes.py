"""Per-episode measures on hand-made turns replayed through the real runtime, and their aggregation."""

from __future__ import annotations

import random

import pytest

from trajectory_platform.evaluation.episodes import EpisodeMeasure, measure_episode
from trajectory_platform.evaluation.scorecard import CostModel, build_scorecard
from trajectory_platform.gym.library import build_library
from trajectory_platform.gym.policy import Policy, PolicyTurn
from trajectory_platform.gym.protocol import HOST_END, TOOL_OPEN, render_turn
from trajectory_platform.gym.runtime import RuntimeConfig, run_episode


class Replay(Policy):
    """Returns the given turns in order (text, finish_reason)."""

    name = "replay"

    def __init__(self, turns):
        self.turns = list(turns)

    def act(self, inp):
        text, finish = self.turns[inp.step]
        return PolicyTurn(text, finish_reason=finish)


def _fixture():
    return next(
        f for f in build_library(0) if f.fixture_id.endswith("@path") and f.task_kind == "report_value"
    )


def test_every_table_11_category_fabrication_and_runaway_are_counted():
    fixture = _fixture()
    turns = [
        ('<|call|>{"name": "read_file", "arguments": {bad json}}<|end_call|>', "stop"),
        (render_turn(calls=[("open_file", {"file_path": "x.py"})]), "stop"),
        (render_turn(calls=[("read_file", {"target_uri": "x.py"})]), "stop"),
        (
            render_turn(calls=[("read_file", {"file_path": "nope.py"})]) + TOOL_OPEN + "LIMIT = 3" + HOST_END,
            "stop",
        ),
        (render_turn(calls=[("read_file", {"file_path": "conf.py"})])[:-6], "length"),
        ("the value is 0", "stop"),
    ]
    result = run_episode(fixture, Replay(turns), config=RuntimeConfig(max_steps=10))
    m = measure_episode(
        result,
        item_id="i",
        suite="acceptance",
        regime="familiar",
        seed=0,
        task_kind="report_value",
        fault_kinds=[],
    )
    from trajectory_platform.evaluation.calls import classify_call

    assert [classify_call(c) for c in m.calls] == [
        "malformed_serialization",
        "undeclared_tool",
        "schema_violation",
        "tool_execution_error",  # declared and valid, but the file does not exist
        "truncated_proposal",
    ]
    assert (m.turns, m.call_turns, m.fabricated_turns, m.runaway_turns) == (6, 5, 1, 1)
    assert not m.accepted and m.terminal_status == "completed"


def _measure(item: str, accepted: bool, suite: str = "acceptance", **extra) -> EpisodeMeasure:
    base = dict(
        item_id=item,
        fixture_id=item.split("#")[0],
        suite=suite,
        regime="familiar",
        seed=0,
        task_kind="k",
        accepted=accepted,
        terminal_status="completed",
        fault_kinds=[],
        faults_fired=0,
        turns=2,
        call_turns=1,
        fabricated_turns=0,
        runaway_turns=0,
        generated_tokens=100_000,
        input_tokens=1_000_000,
        wall_s=10.0,
    )
    return EpisodeMeasure(**{**base, **extra})


def test_scorecard_pairs_items_counts_discordance_and_prices_attempts():
    cand = [
        _measure(f"t{i}#{a}", ok) for i, a, ok in [(0, 0, True), (0, 1, True), (1, 0, True), (1, 1, False)]
    ]
    base = [_measure(f"t{i}#{a}", False) for i, a in [(0, 0), (0, 1), (1, 0), (1, 1)]]
    cost = CostModel(
        usd_per_million_input_tokens=1.0, usd_per_million_output_tokens=10.0, usd_per_wall_second=0.1
    )
    card = build_scorecard(
        cand, base, training_keys=set(), training_keys_source="test", cost_model=cost, attempts=2
    )
    diff = card["acceptance"]["difference"]
    assert (diff["n"], diff["candidate_only"], diff["baseline_only"], diff["both_fail"]) == (4, 3, 0, 1)
    assert diff["estimate"] == 0.75 and diff["ci_high"] > 0.75  # four tasks say little about the gain
    # three discordant wins and no losses: McNemar z = 3 / sqrt(3), p = 0.083; the interval spans 0
    assert diff["p_value"] == pytest.approx(0.08326, abs=1e-5) and diff["ci_low"] < 0
    # each attempt: 1M input x $1 + 0.1M output x $10 + 10 s x $0.1 = $3; 4 attempts, 3 accepted
    assert abs(card["cost_per_accepted"]["candidate"]["value"] - 4.0) < 1e-9
    assert card["cost_per_accepted"]["baseline"]["value"] is None
    assert abs(card["cost_per_accepted"]["baseline"]["total_spend"] - 12.0) < 1e-9
    pass_k = card["acceptance"]["pass_k"]["candidate"]
    assert pass_k["pass_at_k"] == 1.0 and pass_k["pass_hat_k"] == 0.5 and pass_k["pass_at_1"] == 0.75
    assert card["recovery"] is None and card["retention"] is None  # no such trials: absent, not zero


def test_recovery_counts_a_fault_that_never_fired_as_a_failure():
    fired = _measure("r#0", True, suite="recovery", fault_kinds=["http_429"], faults_fired=1)
    unfired = _measure("r#1", True, suite="recovery", fault_kinds=["exit_127"], faults_fired=0)
    card = build_scorecard(
        [fired, unfired],
        [fired, unfired],
        training_keys=set(),
        training_keys_source="t",
        training_fault_kinds={"http_429"},
    )
    assert card["recovery"]["candidate"] == 0.5
    assert card["recovery"]["unseen_kinds"]["candidate"] == 0.0
    assert card["recovery"]["by_kind"]["candidate"]["exit_127"]["in_training"] is False


def test_fault_kinds_seen_in_a_corpus_are_the_injected_ones():
    from ablation.corpus import expert_corpus, learnable_split

    from trajectory_platform.evaluation.episodes import fault_kinds_seen

    train, _ = learnable_split()
    corpus = expert_corpus(train[:8], recovery_share=1.0, fault_kinds=["http_429", "missing_file"])
    assert fault_kinds_seen([i.episode for i in corpus]) == {"http_429", "missing_file"}
    assert fault_kinds_seen([i.episode for i in expert_corpus(train[:4])]) == set()


def _quoted_output_variants() -> list[str]:
    """Final answers that state a tool's output no tool printed (the verifier's fabrication class),
    drawn across its layouts: tallies before and after their word, runner summaries, per-test
    status lines, transcripts under several prompts, fenced blocks introduced as output."""
    commands = ["python -m pytest -q", "pytest tests/", "python -m unittest", "make test"]
    prompts = ["$ ", "% ", "user@box:~/repo$ ", "(venv) $ ", "PS C:\\repo> ", "root@ci:/src# "]
    tallies = [
        "{n} passed in 0.02s",
        "== 1 failed, {n} passed ==",
        "Ran {n} tests in 0.003s\n\nOK",
        "Tests passed: {n}",
        "OK ({n} tests)",
        "- {n} passed",
        "{n}/{n} passed",
    ]
    out = [f"Done. {t.format(n=n)}" for t in tallies for n in (2, 5)]
    out += [f"I checked it:\n{p}{c}\n{len(c) % 7 + 2} passed" for p in prompts for c in commands]
    out += [
        "Fixed.\ntests/test_conf.py::test_limit PASSED",
        "Fixed.\ntest_limit (tests.test_conf.Case) ... ok",
        "Running it printed:\n```\nLIMIT is 7\n```",
        "All green: 3 tests pass.",
    ]
    return out


def _split(items: list[str]) -> tuple[list[str], list[str]]:
    """Development and validation halves, by a seeded shuffle."""
    shuffled = random.Random(11).sample(items, len(items))
    return shuffled[::2], shuffled[1::2]


def _measured(turns) -> EpisodeMeasure:
    result = run_episode(_fixture(), Replay(turns), config=RuntimeConfig(max_steps=4), verify=False)
    return measure_episode(
        result, item_id="i", suite="acceptance", regime="familiar", seed=0, task_kind="k", fault_kinds=[]
    )


@pytest.mark.parametrize("half", [0, 1], ids=["development", "validation"])
def test_a_turn_quoting_output_no_tool_printed_is_a_fabricated_observation(half: int):
    """The scorecard counts fabrication by the verifier's one rule (``fabricated_turns``), not only
    the wire token: a policy that answers "2 passed" without running anything fabricates, and a
    scorecard that missed it would promote the checkpoint the verifier refuses targets from."""
    variants = _split(_quoted_output_variants())[half]
    missed = [text for text in variants if _measured([(text, "stop")]).fabricated_turns != 1]
    assert missed == [], f"{len(missed)}/{len(variants)} not counted: {missed[:3]}"


def test_a_wire_form_result_in_the_reasoning_is_counted_and_honest_answers_are_not():
    reasoning = render_turn(content="the value is 3", reasoning=f"{TOOL_OPEN}LIMIT = 3{HOST_END}")
    m = _measured([(reasoning, "stop")])
    assert (m.fabricated_turns, m.call_turns) == (1, 1)
    honest = [
        "The value is 3.",
        "All tests pass now.",
        "I edited conf.py; 2 of the checks in the task now hold.",
        "```python\nLIMIT = 3\n```",
    ]
    assert [_measured([(text, "stop")]).fabricated_turns for text in honest] == [0] * len(honest)
