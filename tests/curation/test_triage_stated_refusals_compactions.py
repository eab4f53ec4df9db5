"""Triage's gates 2 and 3 read a refusal or a compaction as measured only where the verifier
re-derives it (the delivered schema refuses the call, replay re-derived the answer, the gym's
runtime writes that refusal or that compaction); a brought log's other refusals and its compactions
are its own statement, ranked after every measured gate and said to be so, and a gym log's are no
evidence. The batch's refusal rate counts measured refusals alone."""

from __future__ import annotations

import copy

import test_replay as T
from _verify_factory import CALC_S0, call, make_episode, make_fixture, pristine_turns

from trajectory_platform.curation.verify.dynamic import fixture_context
from trajectory_platform.curation.verify.triage import STATED, RefusalTally, triage_episode
from trajectory_platform.gym.policies import BEHAVIOURS
from trajectory_platform.gym.runtime import REFUSED, RuntimeConfig, run_episode
from trajectory_platform.traces.record import Episode, Event

GYM = fixture_context(make_fixture())
BROUGHT = fixture_context(T.environment())
READ_OK = ("ok", "def add(a, b):\n    return a - b\n", 0)


def _replayed(episode: Episode) -> dict:
    return {"replay": {"verified_answers": [i for i, e in enumerate(episode.events) if e.kind == "tool"]}}


def _triage(episode: Episode, context, batch: list[Episode] = (), t_div: int | None = None):
    """Triage as the cascade does: the batch's rates from every episode as verified."""
    tally = RefusalTally()
    for other in [episode, *batch]:
        tally.add(other, context, _replayed(other))
    t_div = len(episode.events) if t_div is None else t_div
    return triage_episode(episode, context, _replayed(episode), tally.rates(), t_div)


def _brought(episode: Episode) -> Episode:
    episode.source_format, episode.task.fixture_id = "openai", T.TASK
    return episode


def _stated_refusals(name: str, count: int = 3) -> list[Episode]:
    """Brought logs whose harness answered a valid call ``refused``: the log's word alone."""
    turns = [([call("read_file", file_path="calc/ops.py")], [("refused", "refused by policy", None)])]
    return [_brought(make_episode(f"{name}{i}", turns, CALC_S0)) for i in range(count)]


def test_a_brought_logs_refusals_are_its_own_statement_after_every_measured_gate():
    refused = _stated_refusals("r")
    verdict = _triage(refused[0], BROUGHT, refused[1:])
    assert verdict.failure_class == "interface_ambiguity" and verdict.evidence[0].endswith(STATED)
    cut = copy.deepcopy(refused[0])  # the harness also says it timed out: also its word, a gate earlier
    cut.outcome.terminal_status, cut.outcome.final_answer, cut.events = "timeout", None, cut.events[:-1]
    assert _triage(cut, BROUGHT, refused[1:]).failure_class == "runtime_defect"


def test_stated_refusals_never_make_a_measured_rate():
    """One schema-invalid call (measured) among many fine ones is the policy's; logs stating
    refusals of the same tool in the batch do not turn it into a measured interface ambiguity."""
    invalid = [([call("read_file", path="calc/ops.py")], [("refused", "unknown key 'path'", None)])]
    episode = _brought(make_episode("invalid", invalid, CALC_S0))
    fine = [_brought(make_episode(f"f{i}", pristine_turns(), CALC_S0)) for i in range(20)]
    assert _triage(episode, BROUGHT, fine).failure_class == "policy_incapability"
    flooded = _triage(
        episode, BROUGHT, fine + _stated_refusals("flood", 40)
    )  # ranked, and said, as their word
    assert flooded.evidence == [
        "read_file@path@1.0: 41/61 calls refused or invalid across the batch" + STATED
    ]
    assert _triage(episode, BROUGHT, fine[:2]).evidence == [
        "read_file@path@1.0: 1/3 calls refused or invalid across the batch"
    ]


def _gym_refusal(reason: str) -> list[Episode]:
    """Gym logs whose valid read was answered by a refusal carrying ``reason``."""
    turns = [([call("read_file", file_path="calc/ops.py")], [("refused", f"{REFUSED}{reason}", None)])]
    return [make_episode(f"g{i}", turns, CALC_S0) for i in range(3)]


def test_a_gym_refusal_counts_only_in_the_runtimes_words():
    for reason in ("unknown tool", "schema violation: path"):  # a valid call the runtime runs
        forged = _gym_refusal(reason)
        assert _triage(forged[0], GYM, forged[1:]).failure_class == "policy_incapability", reason
    stale = run_episode(make_fixture(), BEHAVIOURS["stale_schema"]()).episode
    assert any(e.kind == "refusal" for e in stale.events)
    verdict = _triage(stale, GYM)
    assert verdict.failure_class == "interface_ambiguity" and not verdict.evidence[0].endswith(STATED)


def _compacted_by_the_runtime() -> Episode:
    config = RuntimeConfig(compaction_watermark_tokens=50, keep_recent_events=1)
    episode = run_episode(make_fixture(), BEHAVIOURS["wrong_fix"](), config=config).episode
    assert any(e.kind == "compaction" for e in episode.events)
    return episode


def _forged_compactions(episode: Episode) -> dict[str, Episode]:
    first = next(i for i, e in enumerate(episode.events) if e.kind == "compaction")

    def edited(change) -> Episode:
        forged = copy.deepcopy(episode)
        change(forged.events)
        return forged

    return {
        "summary rewritten": edited(lambda ev: setattr(ev[first], "content", "the spec says use core.py")),
        "cut moved": edited(lambda ev: setattr(ev[first], "replaces_through", 2)),
        "inserted early": edited(
            lambda ev: ev.insert(3, Event("compaction", content="summary", replaces_through=2))
        ),
    }


def test_a_compaction_is_measured_only_where_the_runtime_wrote_it():
    genuine = _compacted_by_the_runtime()
    verdict = _triage(genuine, GYM)
    assert verdict.failure_class == "context_deficit" and "compacted" in verdict.evidence[0]
    assert not verdict.evidence[0].endswith(STATED)
    for name, forged in _forged_compactions(genuine).items():
        assert _triage(forged, GYM).failure_class == "policy_incapability", name


def test_a_brought_logs_compaction_is_its_own_statement_after_every_measured_gate():
    compacted = _brought(make_episode("c", pristine_turns()[:2], CALC_S0))
    compacted.events.insert(3, Event("compaction", content="summary", replaces_through=2))
    verdict = _triage(compacted, BROUGHT)
    assert verdict.failure_class == "context_deficit" and verdict.evidence[0].endswith(STATED)
    invalid = [([call("read_file", path="calc/ops.py")], [("refused", "unknown key 'path'", None)])]
    measured = _brought(make_episode("m", invalid, CALC_S0))
    measured.events.insert(3, Event("compaction", content="summary", replaces_through=2))
    verdict = _triage(measured, BROUGHT)  # the schema refused the call: measured, so it ranks first
    assert verdict.failure_class == "interface_ambiguity" and not verdict.evidence[0].endswith(STATED)
