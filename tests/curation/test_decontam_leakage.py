"""Decontamination on each of the five axes, LeakageRate, and C_usable (eq. 4, napkin math 0.6)."""

from __future__ import annotations

import pytest
from splits_mixture_factory import candidate

from trajectory_platform.curation.decontam import (
    DecontamConfig,
    EvaluationItem,
    c_usable,
    changed_lines,
    decontaminate,
)
from trajectory_platform.curation.splits import (
    EXCLUDED,
    TEST,
    TRAIN,
    FixtureInfo,
    SplitPolicy,
    assign_splits,
    plan_splits,
)

EVAL_PROMPT = (
    "The invoice rounding helper drops cents when the currency has three decimal places; "
    "make totals exact for KWD and keep the existing tests green"
)
EVAL_DIFF = """--- a/billing/round.py
+++ b/billing/round.py
@@ -1,4 +1,4 @@
-    return round(amount, 2)
+    return round(amount, currency.decimals)
-    scale = 100
+    scale = 10 ** currency.decimals
"""
EVAL_ACTIONS = [
    ("grep", {"pattern": "round(", "path": "billing"}),
    ("read_file", {"file_path": "billing/round.py"}),
    ("edit", {"file_path": "billing/round.py", "old": "2", "new": "currency.decimals"}),
    ("run_tests", {"selector": "tests/test_round.py"}),
]


def plan():
    fixtures = [
        FixtureInfo(
            "eval-fx", "fam-eval", "read_v1", "bug_repair", prompt=EVAL_PROMPT, reference_diff=EVAL_DIFF
        ),
        FixtureInfo(
            "train-fx", "fam-train", "read_v1", "bug_repair", prompt="Add a retry to the HTTP client."
        ),
        FixtureInfo("train-fx2", "fam-train2", "read_v1", "bug_repair", prompt="Fix the date parser."),
    ]
    return plan_splits(
        [],
        fixtures,
        SplitPolicy(
            reserved_tool_families=(),
            reserved_domains=(),
            pinned=(("fam-eval", TEST), ("fam-train", TRAIN), ("fam-train2", TRAIN)),
        ),
    )


def train_candidate(episode_id: str, **fields):
    defaults = {
        "fixture_id": "train-fx",
        "repo_family": "fam-train",
        "prompt": "Add a retry to the HTTP client.",
    }
    return candidate(episode_id, **{**defaults, **fields})


def screen(*training, evaluation=(), external=()):
    the_plan = plan()
    assert the_plan.fixture_split("eval-fx") == TEST and the_plan.fixture_split("train-fx") == TRAIN
    everything = [*training, *evaluation]
    rows, report = decontaminate(everything, assign_splits(everything, the_plan), the_plan, external)
    return {r.episode_id: r for r in rows}, report


def test_clean_candidate_passes_all_axes():
    rows, report = screen(train_candidate("clean"))
    assert rows["clean"].split == TRAIN
    assert report.leaked == 0 and report.leakage_rate == 0.0


@pytest.mark.parametrize(
    ("fields", "axis"),
    [
        ({"prompt": "Please: " + EVAL_PROMPT.upper()}, "task_ngram"),
        ({"actions": EVAL_ACTIONS}, "action_sequence"),
        ({"diff": EVAL_DIFF.replace("    return", "\treturn")}, "diff"),
    ],
)
def test_each_axis_catches_its_leak(fields, axis):
    # The action axis compares against trajectories recorded on evaluation fixtures.
    evaluation = [candidate("eval-run", fixture_id="eval-fx", repo_family="fam-eval", actions=EVAL_ACTIONS)]
    rows, report = screen(train_candidate("leaky", **fields), train_candidate("clean"), evaluation=evaluation)
    assert rows["leaky"].split == EXCLUDED
    assert rows["leaky"].reason.startswith("decontamination:") and f"{axis}:" in rows["leaky"].reason
    assert rows["clean"].split == TRAIN
    assert report.by_axis.get(axis, 0) >= 1
    assert report.leakage_rate == pytest.approx(0.5)


def test_repo_family_axis_audits_an_assignment_that_put_an_evaluation_family_in_train():
    the_plan = plan()
    leaky = train_candidate("stale", repo_family="fam-eval", fixture_id=None)
    rows = assign_splits([leaky], the_plan)
    assert rows[0].split == TEST
    # An assignment made elsewhere (an older plan, a hand edit) claims train: the audit catches it.
    stale = [type(rows[0])(**{**rows[0].__dict__, "split": TRAIN})]
    screened, report = decontaminate([leaky], stale, the_plan)
    assert screened[0].split == EXCLUDED and "repo_family:" in screened[0].reason
    assert report.by_axis == {"repo_family": 1}


def test_an_episode_of_an_evaluation_fixture_is_placed_in_test_and_a_train_claim_is_caught_by_fixture_id():
    """Claims a training family, but attempted the evaluation fixture: the split places it by its
    task (the fixture's own labels), and an assignment made elsewhere that put it in train (an
    older plan, a hand edit) is caught by the fixture_id axis."""
    the_plan = plan()
    mislabeled = train_candidate("mislabeled", fixture_id="eval-fx")
    rows = assign_splits([mislabeled], the_plan)
    assert rows[0].split == TEST
    stale = [type(rows[0])(**{**rows[0].__dict__, "split": TRAIN})]
    screened, report = decontaminate([mislabeled], stale, the_plan)
    assert screened[0].split == EXCLUDED and "fixture_id:" in screened[0].reason
    assert report.by_axis.get("fixture_id", 0) == 1


def test_external_benchmark_items_join_the_index():
    external = [
        EvaluationItem("public-bench-17", prompt="Implement an LRU cache with O(1) get and put operations")
    ]
    leaky = train_candidate("bench", prompt="Implement an LRU cache with O(1) get and put operations please")
    rows, _ = screen(leaky, external=external)
    assert rows["bench"].split == EXCLUDED and "public-bench-17" in rows["bench"].reason


def test_small_overlaps_are_not_leaks():
    partial = "Round the totals. " + " ".join(EVAL_PROMPT.split()[:9])  # 2 of the eval prompt's 8-grams
    rows, _ = screen(
        train_candidate(
            "partial", prompt=partial, diff="--- a/x\n+++ b/x\n-    scale = 100\n+    scale = 1\n"
        )
    )
    assert rows["partial"].split == TRAIN


def test_changed_lines_ignore_headers_and_whitespace():
    assert changed_lines(EVAL_DIFF) == {
        "-return round(amount, 2)",
        "+return round(amount, currency.decimals)",
        "-scale = 100",
        "+scale = 10 ** currency.decimals",
    }


def test_c_usable_napkin_math_0_6():
    cost = 27.50
    lax = c_usable(cost * 0.6, cost * 0.3, cost * 0.1, 20, 0.25)
    strict = c_usable(cost * 0.6, cost * 0.3, cost * 0.1, 20, 0.0)
    assert lax == pytest.approx(1.833, abs=5e-4)
    assert strict == pytest.approx(1.375)
    assert (lax - strict) / strict == pytest.approx(0.333, abs=5e-4)
    with pytest.raises(ValueError):
        c_usable(1, 1, 1, 20, 1.0)


TEMPLATE = "Fix the source code so the whole test suite passes; do not change the tests and reply briefly."


def test_boilerplate_shared_by_training_closures_is_not_leakage_but_the_specific_part_is():
    fixtures = [
        FixtureInfo(
            "eval-fx",
            "fam-eval",
            "t",
            "d",
            prompt="Repository ledger: test_balance_negative fails. " + TEMPLATE,
        ),
        FixtureInfo(
            "tr-1", "fam-one", "t", "d", prompt="Repository inventory: test_subtotal fails. " + TEMPLATE
        ),
        FixtureInfo(
            "tr-2", "fam-two", "t", "d", prompt="Repository textkit: test_slugify fails. " + TEMPLATE
        ),
    ]
    pins = (("fam-eval", TEST), ("fam-one", TRAIN), ("fam-two", TRAIN))
    the_plan = plan_splits(
        [], fixtures, SplitPolicy(reserved_tool_families=(), reserved_domains=(), pinned=pins)
    )
    templated = candidate("templated", fixture_id="tr-1", repo_family="fam-one", prompt=fixtures[1].prompt)
    copied = candidate(
        "copied",
        fixture_id="tr-2",
        repo_family="fam-two",
        prompt="Note. " + fixtures[0].prompt,
    )
    rows, report = decontaminate([templated, copied], assign_splits([templated, copied], the_plan), the_plan)
    assert rows[0].split == TRAIN
    assert rows[1].split == EXCLUDED and "task_ngram" in rows[1].reason
    # Without the generic filter the template alone would have flagged the clean trajectory.
    strict = DecontamConfig(generic_min_closures=10**6)
    rows, _ = decontaminate([templated], assign_splits([templated], the_plan), the_plan, config=strict)
    assert rows[0].split == EXCLUDED
