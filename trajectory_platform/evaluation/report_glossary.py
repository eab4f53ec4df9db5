"""What each number of the report means, in plain words, so it reads without the book.

One entry per measurement the report shows: a short label and a sentence saying what it counts
and which direction is good. The report prints the sentence beside the number; a figure without
an entry here is a test failure (``tests/evaluation/test_eval_report.py``), so a new measurement
cannot reach the page unexplained.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Term:
    """A measurement's label and its plain-language definition."""

    label: str
    meaning: str


MEASUREMENTS: dict[str, Term] = {
    "acceptance": Term(
        "acceptance (task success)",
        "Share of held-out tasks the model solved within the turn and token budget, judged by the "
        "task's sealed tests. Every trial counts: a stalled or timed-out one is a failure. Higher is better.",
    ),
    "recovery": Term(
        "recovery under injected faults",
        "Share of trials where the environment deliberately failed (a rate limit, a timeout, a changed "
        "tool manifest, ...), every fault actually fired, and the model still solved the task. "
        "Higher is better.",
    ),
    "retention": Term(
        "retention (tasks outside the training focus)",
        "Acceptance on kinds of task the training data did not target: does the tuned model still do "
        "its other jobs? A drop means training made it forget. Higher is better.",
    ),
    "sfa": Term(
        "SFA (schema-following accuracy)",
        "Share of the model's tool calls that name a tool it was offered and whose arguments satisfy "
        "that tool's schema as delivered in the prompt. Higher is better.",
    ),
    "pre": Term(
        "PRE (parametric recall error)",
        "Share of tool calls that use an argument name from the training data that the schema shown "
        "at that moment does not have: the model recalls a memorized interface instead of reading the "
        "one in front of it. Lower is better; it matters most on renamed schemas.",
    ),
    "fabricated_observation_rate": Term(
        "fabricated-observation rate",
        "Share of trials in which the model wrote a tool result itself instead of waiting for the tool "
        "to answer. Lower is better; 0 is the goal.",
    ),
    "runaway_rate": Term(
        "runaway rate",
        "Share of the model's turns that hit the output-length limit without ending properly (no "
        "end-of-turn token). Lower is better; a high value means the model does not know when to stop.",
    ),
    "cost_per_accepted": Term(
        "cost per accepted task (USD)",
        "Total spend on every attempted task (input and output tokens and sandbox seconds at declared "
        "prices, not a real bill) divided by the number of tasks solved. With nothing solved the total "
        "spend is shown instead. Lower is better.",
    ),
    "difference": Term(
        "paired difference in acceptance",
        "Candidate acceptance minus baseline acceptance over the same tasks, with a 95% interval. Both "
        "models ran identical tasks, seeds and budgets, so only the tasks where exactly one of them "
        "succeeded (the discordant pairs) move the estimate. If the interval includes 0, the data "
        "cannot tell a gain from chance. p is the McNemar test's probability of a split at least this "
        "uneven if neither model were better; it is under 0.05 exactly when the interval excludes 0.",
    ),
    "n": Term(
        "n (paired trials)",
        "Number of held-out acceptance tasks each model attempted; the interval narrows as n grows.",
    ),
}
"""The evaluation's measurements (keys of ``scorecard.json``)."""

CALL_CATEGORIES: dict[str, Term] = {
    "valid": Term("valid", "Parsed, named an offered tool, matched its schema and ran without error."),
    "malformed_serialization": Term(
        "malformed", "The call could not be parsed (broken JSON or call markup)."
    ),
    "truncated_proposal": Term(
        "truncated", "The turn hit the output-length limit before the call was complete."
    ),
    "undeclared_tool": Term("undeclared tool", "The call named a tool that was not offered at that moment."),
    "schema_violation": Term(
        "schema violation", "Arguments missing, misnamed or of the wrong type for the delivered schema."
    ),
    "tool_execution_error": Term(
        "tool error", "A well-formed call that the tool itself rejected when it ran."
    ),
}
"""Why a tool call failed, each cause pointing at a different fix."""

DATASET_QUALITY: dict[str, Term] = {
    "pipeline_configuration": Term("pipeline configuration", "Which curation pipeline produced the data."),
    "accepted_yield": Term(
        "accepted yield (η)",
        "Share of the logged episodes the verifiers admitted as clean training data. Higher is cheaper data.",
    ),
    "redaction_leakage": Term(
        "secret leakage (Λ_leak)",
        "Share of planted fake secrets (canaries) that survived redaction into the corpus. Must be 0.",
    ),
    "redaction_leakage_interval": Term(
        "secret leakage, 95% interval",
        "The range Λ_leak could plausibly take given how many canaries were planted.",
    ),
    "redaction_leak_sample_records": Term(
        "records with planted canaries", "How many records the leakage rate was measured on."
    ),
    "flakiness_index": Term(
        "flakiness index (R_flake)",
        "Share of verified episodes whose tests gave different verdicts on repeated runs of the same "
        "workspace, on tasks still trusted: a task whose own reference solution already flipped is "
        "retired with its episodes (quarantined as flaky, not counted here). Above 0.02 the tests are "
        "too unreliable to trust as a filter. Lower is better.",
    ),
    "downstream_pass_rate": Term(
        "downstream pass rate",
        "The candidate's acceptance above: whether a model trained on this data actually got better "
        "at the tasks, the number the other columns stand in for.",
    ),
    "cost_per_clean_trajectory": Term(
        "cost per clean trajectory",
        "Verifier seconds spent per admitted episode (seconds, not dollars). Lower is cheaper data.",
    ),
    "admitted": Term("admitted episodes", "Episodes the verifiers accepted as training data."),
    "attempted": Term("attempted episodes", "Episodes the verifiers judged."),
}
"""The dataset-quality scorecard of the corpus the candidate was trained on."""

SCHEMA_REGIMES: dict[str, str] = {
    "familiar": "tools and argument names as in training",
    "renamed": "the same tools with renamed arguments",
    "unfamiliar_tool_family": "a family of tools training never showed",
}
"""The three kinds of held-out tool interface SFA and PRE are measured on."""
