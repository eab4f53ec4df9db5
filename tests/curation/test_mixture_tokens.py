"""Mixture in selected target tokens (napkin math 0.3), dedup, caps, P_inform (eq. 3), anchors."""

from __future__ import annotations

import re

import pytest
from splits_mixture_factory import candidate

from trajectory_platform.curation.dedup import (
    dedup_and_cap,
    fixture_signal,
    normalize_action,
    p_inform,
    refresh_round,
)
from trajectory_platform.curation.mixture import (
    MIXTURE_DROP_REASONS,
    NEGATIVE,
    PREFERENCE,
    PRISTINE,
    RECOVERY,
    SFT,
    MixturePolicy,
    bound_violation,
    compose_mixture,
    count_tokens,
    plan_token_targets,
    selected_target_tokens,
    sft_shares,
    token_shares,
    trajectory_mix_token_shares,
)
from trajectory_platform.curation.splits import TRAIN, SplitAssignment
from trajectory_platform.traces.drops import Drop
from trajectory_platform.traces.record import Event, ToolCall


def test_napkin_math_0_3_trajectory_mix_is_not_a_token_mix():
    shares = trajectory_mix_token_shares(
        50_000,
        {PRISTINE: 0.65, RECOVERY: 0.25, NEGATIVE: 0.10},
        {PRISTINE: 7_200, RECOVERY: 18_500, NEGATIVE: 9_800},
    )
    assert round(shares[PRISTINE] * 100, 2) == 45.50
    assert round(shares[RECOVERY] * 100, 2) == 44.97
    assert round(shares[NEGATIVE] * 100, 2) == 9.53
    # Declared 65/25/10 by trajectory violates the token bounds: recovery is 45% of the tokens.
    assert not 0.20 <= shares[RECOVERY] <= 0.30


@pytest.mark.parametrize(("p", "expected"), [(0.05, 0.34), (0.5, 0.99), (0.95, 0.34), (0.0, 0.0), (1.0, 0.0)])
def test_p_inform_equation_3_k8(p, expected):
    assert round(p_inform(p, 8), 2) == expected


def test_p_inform_rejects_nonsense():
    with pytest.raises(ValueError):
        p_inform(1.5, 8)


def test_normalized_action_ignores_key_order_spacing_tmpdirs_and_pseudonyms():
    a = ToolCall("1", "Read_File", '{"file_path": "/tmp/ws123/src/a.py", "limit": 5}')
    b = ToolCall("2", "read_file", '{"limit":5,"file_path":"/tmp/other9/src/a.py"}')
    assert normalize_action(a) == normalize_action(b)
    c = ToolCall("3", "bash", '{"command": "export KEY=<REDACTED_AWS_KEY:0123456789ab>"}')
    d = ToolCall("4", "bash", '{"command": "export  KEY=<REDACTED_AWS_KEY:ba9876543210>"}')
    assert normalize_action(c) == normalize_action(d)
    assert normalize_action(ToolCall("5", "x", "{not json")) == "x(raw:{not json)"


def test_dedup_keeps_one_per_sequence_prefers_anchor_and_caps_per_fixture():
    same = [("read_file", {"file_path": "src/a.py"}), ("run_tests", {})]
    twins = [candidate(f"twin-{i}", actions=same) for i in range(8)]
    anchor = candidate("expert", actions=same, anchor=True)
    distinct = [candidate(f"d-{i}", actions=[("read_file", {"file_path": f"src/{i}.py"})]) for i in range(6)]
    pool = [*twins, anchor, *distinct]
    selections = {s.episode_id: s for s in dedup_and_cap(pool, cap_per_fixture=3)}
    assert len(selections) == len(pool)  # in = kept + dropped
    # Eight near-identical passing runs count as one, and that one is the external anchor.
    assert selections["expert"].kept
    assert all(
        not selections[f"twin-{i}"].kept and "expert" in selections[f"twin-{i}"].reason for i in range(8)
    )
    kept_distinct = [d.episode_id for d in distinct if selections[d.episode_id].kept]
    assert len(kept_distinct) == 3  # the cap; the anchor is exempt from it
    assert all(
        "cap of 3" in selections[d.episode_id].reason for d in distinct if not selections[d.episode_id].kept
    )
    reasons = {s.drop.reason for s in selections.values() if s.drop is not None}
    assert reasons == {"duplicate_action_sequence", "fixture_cap"}


def test_fixture_signal_band_and_diversity():
    runs = [
        candidate(f"mid-{i}", fixture_id="fx-mid", role="pristine" if i < 4 else "hard_negative")
        for i in range(8)
    ]
    solved = [candidate(f"easy-{i}", fixture_id="fx-easy", actions=[("run_tests", {})]) for i in range(8)]
    signals = {s.fixture_id: s for s in fixture_signal([*runs, *solved], k=8)}
    assert signals["fx-mid"].pass_rate == 0.5 and signals["fx-mid"].in_band
    assert round(signals["fx-mid"].p_inform, 2) == 0.99
    assert signals["fx-easy"].pass_rate == 1.0 and not signals["fx-easy"].in_band
    assert signals["fx-easy"].distinct_sequences == 1  # collapse: eight runs, one strategy
    assert signals["fx-mid"].distinct_sequences == 8


def test_refresh_round_retires_stale_samples_but_never_the_anchor():
    anchor = candidate("human-demo", fixture_id="fx-1", anchor=True)
    old = [candidate("old-1", fixture_id="fx-1"), candidate("old-2", fixture_id="fx-2")]
    new = [candidate("new-1", fixture_id="fx-1")]
    corpus, report = refresh_round([anchor, *old], new)
    ids = [c.episode_id for c in corpus]
    assert "human-demo" in ids and "old-2" in ids and "new-1" in ids and "old-1" not in ids
    assert report["retired_stale"] == ["old-1"] and report["anchors"] == 1


def test_selected_target_tokens_count_only_selected_assistant_turns():
    full = candidate("t", actions=[("read_file", {"file_path": "a.py"}), ("run_tests", {})])
    assistant = [i for i, e in enumerate(full.episode.events) if e.kind == "assistant"]
    only_last = candidate(
        "t2", actions=[("read_file", {"file_path": "a.py"}), ("run_tests", {})], target_turns=[assistant[-1]]
    )
    assert 0 < selected_target_tokens(only_last) < selected_target_tokens(full)
    # A target index pointing at an observation or system turn contributes nothing.
    bogus = candidate("t3", target_turns=[0, 1, 3])
    assert selected_target_tokens(bogus) == 0
    # The token measure is a parameter: a counter of characters gives a different, consistent count.
    assert selected_target_tokens(full, len) > selected_target_tokens(full, count_tokens)


def test_hard_negative_counts_through_divergence_plus_two_turns():
    actions = [("read_file", {"file_path": f"f{i}.py"}) for i in range(6)]
    neg = candidate("neg", role="hard_negative", actions=actions, t_div=4)
    whole = candidate("neg-whole", role="hard_negative", actions=actions, t_div=None)
    assert selected_target_tokens(neg) < selected_target_tokens(whole)


def _pool(n_pristine: int, n_recovery: int, n_negative: int) -> list:
    pool = []
    for i in range(n_pristine):
        pool.append(
            candidate(
                f"p{i}",
                role=PRISTINE,
                fixture_id=f"fx-p{i % 40}",
                actions=[("read_file", {"file_path": f"p{i}.py"})],
            )
        )
    for i in range(n_recovery):
        acts = [
            ("run_tests", {"n": i}),
            ("read_file", {"file_path": f"r{i}.py"}),
            ("edit", {"file_path": f"r{i}.py"}),
        ]
        pool.append(candidate(f"r{i}", role=RECOVERY, fixture_id=f"fx-r{i % 40}", actions=acts + acts))
    for i in range(n_negative):
        pool.append(
            candidate(
                f"n{i}",
                role=NEGATIVE,
                fixture_id=f"fx-n{i % 40}",
                actions=[("bash", {"command": f"ls {i}"})] * 3,
            )
        )
    return pool


def _all_train(pool) -> list[SplitAssignment]:
    return [
        SplitAssignment(c.episode_id, c.fixture_id, "fam", "closure:fam", None, None, TRAIN, None, None, "")
        for c in pool
    ]


def test_compose_mixture_realizes_shares_inside_bounds_and_routes_negatives_to_preference():
    pool = _pool(200, 120, 80)
    mixture = compose_mixture(pool, _all_train(pool), MixturePolicy(cap_per_fixture=10))
    shares = mixture.token_shares
    assert 0.60 <= shares[PRISTINE] <= 0.70 and 0.20 <= shares[RECOVERY] <= 0.30
    assert mixture.within_bounds()
    # The declared 65/25 would train a 72/28 SFT mix once negatives leave: the plan aims at 69/31.
    assert shares[PRISTINE] == pytest.approx(0.62, abs=0.02) and shares[NEGATIVE] == pytest.approx(
        0.10, abs=0.02
    )
    assert 0.60 <= mixture.sft_token_shares[PRISTINE] <= 0.70
    assert mixture.summary()["realized_sft_token_shares"] == pytest.approx(mixture.sft_token_shares, abs=1e-6)
    destinations = {(r.role, r.destination) for r in mixture.rows}
    assert destinations == {(PRISTINE, SFT), (RECOVERY, SFT), (NEGATIVE, PREFERENCE)}
    # Trajectory shares differ from token shares: recovery traces are longer.
    assert mixture.trajectory_shares[RECOVERY] < shares[RECOVERY]
    summary = mixture.summary()
    assert summary["considered"] == summary["selected"] + sum(summary["dropped"].values())


def test_compose_mixture_accounts_for_non_train_and_unverified_records():
    pool = _pool(30, 15, 6)
    extra = [
        candidate("quarantined", role=None, sink="tamper_quarantine"),
        candidate("held-out", role=PRISTINE),
    ]
    assignments = _all_train(pool + extra[:1]) + [
        SplitAssignment("held-out", "fx", "fam", "closure:fam", None, None, "test", None, None, "")
    ]
    mixture = compose_mixture(pool + extra, assignments)
    selected = {r.episode_id for r in mixture.rows}
    assert "quarantined" not in selected and "held-out" not in selected
    assert mixture.dropped["not_train_split"] == 1
    assert mixture.first_drops["not_train_split"] == Drop("not_train_split", "held-out: split test")
    assert mixture.considered == len(selected) + sum(mixture.dropped.values())
    assert set(mixture.dropped) <= set(MIXTURE_DROP_REASONS) and set(mixture.first_drops) == set(
        mixture.dropped
    )
    assert all(re.fullmatch(r"[a-z]+(_[a-z]+)*", reason) for reason in MIXTURE_DROP_REASONS)
    assert mixture.first_drops["not_a_mixture_class"].detail.startswith("quarantined: sink tamper_quarantine")


def test_plan_token_targets_scarce_negatives_shift_inside_bounds():
    targets = plan_token_targets(1000, 200, 50)
    shares = token_shares(targets)
    assert 0.60 <= shares[PRISTINE] <= 0.70 and 0.20 <= shares[RECOVERY] <= 0.30
    assert targets[NEGATIVE] == 50 and targets[RECOVERY] == pytest.approx(200)
    assert sft_shares(targets)[PRISTINE] <= 0.70
    plentiful = token_shares(plan_token_targets(1000, 1000, 1000))
    assert plentiful == pytest.approx({PRISTINE: 0.69 * 0.9, RECOVERY: 0.31 * 0.9, NEGATIVE: 0.10})


@pytest.mark.parametrize("negative", [0, 20, 80, 1000])
def test_plan_keeps_the_sft_mix_actually_trained_inside_alpha(negative):
    """Negatives leave for preference data, so α ≤ 0.70 must hold for pristine / (pristine +
    recovery) itself, not only over the whole budget (the declared 65/25/10 trains 72/28)."""
    targets = plan_token_targets(1000, 1000, negative)
    assert 0.60 <= sft_shares(targets)[PRISTINE] <= 0.70, targets
    assert bound_violation(targets, MixturePolicy()) == pytest.approx(0.0, abs=1e-12)


def test_a_whole_budget_mix_with_a_72_percent_sft_mix_is_out_of_bounds():
    declared = {PRISTINE: 650, RECOVERY: 250, NEGATIVE: 100}
    assert token_shares(declared)[PRISTINE] == 0.65  # inside α over the whole budget...
    assert sft_shares(declared)[PRISTINE] == pytest.approx(0.722, abs=1e-3)  # ...but not what SFT trains
    assert bound_violation(declared, MixturePolicy()) == pytest.approx(0.022, abs=1e-3)


def test_small_lumpy_pool_is_repaired_into_bounds():
    """Two pristine (900, 500), two recovery (400, 100), one negative (100) tokens: whole records
    make shares lumpy; keeping everything (1400/500/100) is inside α/β over the whole budget but
    trains a 74% pristine SFT mix, so the selection is 900/400/100 (69% of SFT, 64/29/7 overall)."""

    def sized(episode_id: str, role: str, n: int):
        events = [Event(kind="system", content="s"), Event(kind="user", content="u")]
        events.append(Event(kind="assistant", content="x" * n))
        return candidate(
            episode_id, role=role, fixture_id=f"fx-{episode_id}", events=events, target_turns=[2]
        )

    pool = [sized("p0", PRISTINE, 900), sized("p1", PRISTINE, 500), sized("r0", RECOVERY, 400)]
    pool += [sized("r1", RECOVERY, 100), sized("n0", NEGATIVE, 100)]
    mixture = compose_mixture(pool, _all_train(pool), counter=len)
    assert mixture.within_bounds(), mixture.summary()
    assert mixture.realized_tokens == {PRISTINE: 900, RECOVERY: 400, NEGATIVE: 100}


def test_without_pristine_data_no_mix_is_admissible_and_the_summary_says_so():
    pool = _pool(0, 10, 6)
    mixture = compose_mixture(pool, _all_train(pool), MixturePolicy(cap_per_fixture=10))
    assert not mixture.within_bounds()
    assert mixture.token_shares[RECOVERY] > 0.30
    # Negatives still go to preference, in proportion to the SFT tokens kept.
    assert 0 < mixture.realized_tokens[NEGATIVE] <= mixture.realized_tokens[RECOVERY] * 0.10 / 0.90 + 1
    assert {r.destination for r in mixture.rows if r.role == NEGATIVE} == {PREFERENCE}


def test_an_anchor_is_where_the_platform_got_the_episode_never_what_it_says_of_itself():
    """Anchors escape the per-fixture cap, win duplicate groups and are never retired, and were
    read from the record: ``extra_json {"anchor": true}`` or ``lineage.model`` naming the gym's
    expert; ten episodes recording that model all survived a cap of 4 (red team). Now only the
    ingest source the user declared (``source_file``, written by ingest) or a platform-written
    ``anchor`` column makes one."""
    import pyarrow as pa

    from trajectory_platform.curation.candidates import ANCHOR_KEY, candidates_from_table
    from trajectory_platform.curation.dedup import dedup_and_cap
    from trajectory_platform.curation.split_mixture_stage import MixtureSettings
    from trajectory_platform.traces.schema import episodes_to_table

    sources = frozenset(MixtureSettings().anchor_sources)
    claims = []
    for k in range(10):  # distinct action sequences on one fixture
        actions = [("read_file", {"file_path": f"f{k}.py"})]
        c = candidate(f"claims-{k}", fixture_id="fx-1", actions=actions, extra={"anchor": True})
        c.episode.lineage.model = "scripted-expert"
        c.episode.source_file = "2026-11-01/user-upload.jsonl"
        claims.append(c.episode)
    rollout = candidate("rollout", fixture_id="fx-2").episode
    rollout.source_file = "2026-11-01/gym-rollout-seed0.jsonl"
    table = episodes_to_table([*claims, rollout])
    read = candidates_from_table(table, sources)
    assert {c.episode_id: c.anchor for c in read} == {
        **dict.fromkeys((e.episode_id for e in claims), False),
        "rollout": True,
    }
    assert sum(s.kept for s in dedup_and_cap(read[:10], cap_per_fixture=4, seed=0)) == 4
    assert not any(c.anchor for c in candidates_from_table(table))  # no source declared: no anchor
    stamped = table.append_column(ANCHOR_KEY, pa.array([True] + [False] * 10))  # a stage's own column
    assert [c.anchor for c in candidates_from_table(stamped)] == [True] + [False] * 10


def test_license_quarantined_records_never_enter_the_mixture():
    pool = _pool(40, 20, 8)
    for c in pool[:5]:
        c.license_action = "quarantine"
    mixture = compose_mixture(pool, _all_train(pool), MixturePolicy(cap_per_fixture=10))
    assert mixture.dropped["license_not_trainable"] == 5
    assert mixture.first_drops["license_not_trainable"].detail.endswith(": license action quarantine")
    assert not {c.episode_id for c in pool[:5]} & {r.episode_id for r in mixture.rows}


def test_sft_token_shares_are_what_the_mixture_table_holds():
    import pyarrow as pa

    from trajectory_platform.curation.split_mixture_stage import sft_token_shares

    table = pa.table({"role": ["recovery", "pristine", "pristine"], "selected_target_tokens": [30, 50, 20]})
    assert sft_token_shares(table) == {"pristine": 0.7, "recovery": 0.3}  # no hard-negative share
    assert sft_token_shares(table.slice(0, 0)) == {}
