"""The release gate holds on missing or regressing evidence and promotes only on the rule."""

from trajectory_platform.evaluation.gate import REQUIRED_MEASUREMENTS, decide


def _good_scorecard():
    return {
        "acceptance": {"candidate": 0.66, "baseline": 0.60, "difference": {"estimate": 0.06, "ci_low": 0.02}},
        "call_validity": {"candidate": {}, "baseline": {}},
        "sfa": {"candidate": {"renamed": 0.9}, "baseline": {"renamed": 0.9}},
        "pre": {"candidate": {"renamed": 0.02}, "baseline": {"renamed": 0.02}},
        "recovery": {"candidate": 0.5, "baseline": 0.4},
        "fabricated_observation_rate": {"candidate": 0.0, "baseline": 0.0},
        "retention": {"candidate": 0.8, "baseline": 0.8},
        "cost_per_accepted": {"candidate": 2.0, "baseline": 2.1},
    }


ARTIFACTS = {"candidate": "sha256:aa", "baseline": "sha256:bb"}
MANIFEST = {"fixtures": ["f1"], "seeds": [0], "decoding": {"temperature": 0}}


def test_promotes_when_rule_met_and_binds_inputs():
    decision = decide(_good_scorecard(), ARTIFACTS, MANIFEST)
    assert decision.decision == "promote"
    other = decide(_good_scorecard(), {**ARTIFACTS, "candidate": "sha256:ab"}, MANIFEST)
    assert other.binding_digest != decision.binding_digest
    moved = decide(_good_scorecard(), {**ARTIFACTS, "candidate_path": "/elsewhere/ckpt"}, MANIFEST)
    assert moved.binding_digest == decision.binding_digest  # identity, not location, is bound


def test_release_critique_pattern_is_held():
    card = _good_scorecard()
    card["pre"] = {"candidate": {"renamed": 0.12}, "baseline": {"renamed": 0.02}}
    card["acceptance"]["difference"]["ci_low"] = -0.0004
    decision = decide(card, ARTIFACTS, MANIFEST)
    assert decision.decision == "hold"
    assert any("PRE on renamed" in r for r in decision.reasons)
    assert any("acceptance gain not established" in r for r in decision.reasons)


def test_missing_measurement_holds():
    for name in REQUIRED_MEASUREMENTS:
        card = _good_scorecard()
        card[name] = None
        decision = decide(card, ARTIFACTS, MANIFEST)
        assert decision.decision == "hold", name
        assert any(name in r for r in decision.reasons)


def _silent_baseline_card(candidate_pre: float) -> dict:
    """The paired renamed trials ran; the baseline (an untrained base) proposed no call there."""
    card = _good_scorecard()
    card["sfa"] = {"candidate": {"renamed": 0.9}, "baseline": {}}
    card["pre"] = {"candidate": {"renamed": candidate_pre}, "baseline": {}}
    card["calls_by_regime"] = {"candidate": {"renamed": 6, "familiar": 40}, "baseline": {}}
    return card


def test_silent_baseline_is_measured_and_compared_at_zero():
    assert decide(_silent_baseline_card(0.0), ARTIFACTS, MANIFEST).decision == "promote"
    held = decide(_silent_baseline_card(0.5), ARTIFACTS, MANIFEST)
    assert held.decision == "hold"
    assert [f.clause for f in held.findings] == ["pre"]
    assert "0.000 -> 0.500" in held.reasons[0] and "baseline proposed no call" in held.reasons[0]


def test_silent_candidate_or_unrecorded_calls_stay_missing():
    card = _silent_baseline_card(0.0)
    card["calls_by_regime"] = {"candidate": {}, "baseline": {}}  # nobody called: nothing measured
    assert [f.clause for f in decide(card, ARTIFACTS, MANIFEST).findings] == ["missing"]
    del card["calls_by_regime"]  # a scorecard without call counts cannot tell silence from absence
    assert decide(card, ARTIFACTS, MANIFEST).decision == "hold"
