"""``split_assignments``, ``training_mixture`` and ``preference_pairs`` (curation III).

Thin: load ``redacted_corpus`` (and ``split_assignments``), call one stage function of
:mod:`trajectory_platform.curation.split_mixture_stage`, attach what a person reads (split sizes by
family / tool family / domain, leakage, declared vs realized shares), return the table.

The mixture is measured in selected target tokens. Curation never imports a tokenizer; this layer
may, so by default it passes the embedded default tokenizer's counter (the same vocabulary the
dataset and training stages use), built under the workdir if needed. ``token_measure: word_pieces``
selects the tokenizer-agnostic measure instead.
"""

from collections.abc import Callable

import pyarrow as pa
from dagster import AssetExecutionContext, AssetIn, Config, MetadataValue, Output, asset

from trajectory_platform.checks.mixture import MIXTURE_SHARES_CHECK, mixture_shares_result
from trajectory_platform.curation.decontam import DecontamConfig
from trajectory_platform.curation.mixture import TOKEN_MEASURE, MixturePolicy, count_tokens
from trajectory_platform.curation.split_mixture_stage import mixture_stage, preference_stage, split_stage
from trajectory_platform.curation.splits import SplitPolicy
from trajectory_platform.gym.library import build_library
from trajectory_platform.resources.settings import default_workdir
from trajectory_platform.sensors.automation import CURATION_CONDITION

DEFAULT_TOKENIZER_MEASURE = "default_tokenizer"


class SplitConfig(Config):
    """Split policy. ``reserved_tool_families`` defaults to the gym's fully renamed ``alias`` family
    (regimes B and C); ``reserved_domains`` empty means: reserve the least frequent domain."""

    fixture_seed: int = 0
    seed: int = 0
    train: float = 0.8
    validation: float = 0.1
    test: float = 0.1
    reserved_tool_families: list[str] = ["alias"]
    reserved_domains: list[str] = []
    prompt_overlap: float = 0.5
    action_overlap: float = 0.8
    diff_overlap: float = 0.5


class MixtureConfig(Config):
    """Declared shares in selected target tokens and the selection knobs. ``anchor_models``: recorded
    ``lineage.model`` values whose episodes are external expert demonstrations (the anchor); the
    embedded default names the gym's scripted expert."""

    alpha: float = 0.65
    beta: float = 0.25
    gamma: float = 0.10
    cap_per_fixture: int = 4
    k: int = 8
    band: float = 0.5
    seed: int = 0
    token_measure: str = DEFAULT_TOKENIZER_MEASURE
    tokenizer_path: str | None = None
    anchor_models: list[str] = ["scripted-expert"]

    def policy(self) -> MixturePolicy:
        return MixturePolicy(
            alpha=self.alpha,
            beta=self.beta,
            gamma=self.gamma,
            cap_per_fixture=self.cap_per_fixture,
            k=self.k,
            band=self.band,
            seed=self.seed,
        )

    def counter(self) -> tuple[Callable[[str], int], str]:
        """The token counter and the name recorded with every row."""
        if self.token_measure != DEFAULT_TOKENIZER_MEASURE:
            return count_tokens, TOKEN_MEASURE
        from trajectory_platform.training.tokenizer import load_tokenizer, token_counter

        return token_counter(load_tokenizer(self.tokenizer_path, workdir=default_workdir()))


@asset(
    ins={"redacted_corpus": AssetIn()},
    group_name="curation",
    automation_condition=CURATION_CONDITION,
    description="One row per corpus episode: repository family, dependency closure, split "
    "(train / validation / test / excluded), transfer regime for test rows, and the reason.",
)
def split_assignments(
    context: AssetExecutionContext, config: SplitConfig, redacted_corpus: pa.Table
) -> Output[pa.Table]:
    """Closure-disjoint splits over the fixture library, inherited by derived records, decontaminated."""
    policy = SplitPolicy(
        train=config.train,
        validation=config.validation,
        test=config.test,
        reserved_tool_families=tuple(config.reserved_tool_families) or None,
        reserved_domains=tuple(config.reserved_domains) or None,
        seed=config.seed,
    )
    decontam = DecontamConfig(
        prompt_overlap=config.prompt_overlap,
        action_overlap=config.action_overlap,
        diff_overlap=config.diff_overlap,
    )
    result = split_stage(redacted_corpus, build_library(config.fixture_seed), policy, decontam)
    summary = result.summary
    context.log.info(f"split_assignments: {summary['split_counts']}, leakage {summary['decontamination']}")
    return Output(
        result.table,
        metadata={
            "records_in": summary["records_in"],
            "split_counts": MetadataValue.json(summary["split_counts"]),
            "closure_split": MetadataValue.json(summary["closure_split"]),
            "reserved_tool_families": MetadataValue.json(summary["reserved_tool_families"]),
            "reserved_domains": MetadataValue.json(summary["reserved_domains"]),
            "evaluation_fixtures": summary["evaluation_fixtures"],
            "sizes_by_family_tool_domain": MetadataValue.json(summary["sizes"]),
            "leakage_rate": summary["decontamination"]["leakage_rate"],
            "leakage": MetadataValue.json(summary["decontamination"]),
            "c_usable_per_unit_cost": summary["c_usable_per_unit_cost"],
            "split_table": MetadataValue.md(_split_markdown(summary["sizes"])),
        },
    )


def _split_markdown(sizes: dict) -> str:
    lines = ["| split | axis | value | episodes |", "|---|---|---|---|"]
    for split, axes in sizes.items():
        for axis, counts in axes.items():
            lines.extend(f"| {split} | {axis} | {value} | {n} |" for value, n in counts.items())
    return "\n".join(lines)


@asset(
    ins={"redacted_corpus": AssetIn(), "split_assignments": AssetIn()},
    group_name="curation",
    automation_condition=CURATION_CONDITION,
    check_specs=[MIXTURE_SHARES_CHECK],
    description="The SFT mix (pristine + recovery, train split) in selected target tokens, with every "
    "episode column and the counted target_turns; hard negatives go to preference_pairs.",
)
def training_mixture(
    context: AssetExecutionContext,
    config: MixtureConfig,
    redacted_corpus: pa.Table,
    split_assignments: pa.Table,
):
    """Dedup, cap, and fill each class to its token target; realized shares reported and checked."""
    counter, measure = config.counter()
    anchors = frozenset(config.anchor_models)
    result = mixture_stage(redacted_corpus, split_assignments, config.policy(), counter, measure, anchors)
    summary = result.summary
    context.log.info(f"training_mixture: {summary['realized_token_shares']} ({measure})")
    yield Output(
        result.table,
        metadata={
            "token_measure": measure,
            "declared_shares": MetadataValue.json(summary["declared"]),
            "realized_token_shares": MetadataValue.json(summary["realized_token_shares"]),
            "realized_trajectory_shares": MetadataValue.json(summary["realized_trajectory_shares"]),
            "realized_tokens": MetadataValue.json(summary["realized_tokens"]),
            "within_bounds": summary["within_bounds"],
            "selected_target_tokens": sum(summary["realized_tokens"].values()),
            "sft_rows": summary["sft_rows"],
            "preference_negatives": summary["preference_negatives"],
            "considered": summary["considered"],
            "dropped": MetadataValue.json(summary["dropped"]),
            "fixtures_in_band": summary["fixtures_in_band"],
            "distinct_sequences_per_fixture": summary["distinct_sequences_per_fixture"],
            "anchors": summary["anchors"],
        },
    )
    yield mixture_shares_result(summary)


@asset(
    ins={"redacted_corpus": AssetIn(), "split_assignments": AssetIn()},
    group_name="curation",
    automation_condition=CURATION_CONDITION,
    description="Admitted DPO pairs: same fixture, same delivered prefix, ordered by the declared rule "
    "(pass over fail; cheaper pass over costlier), divergent spans marked, both episodes carried.",
)
def preference_pairs(
    context: AssetExecutionContext,
    config: MixtureConfig,
    redacted_corpus: pa.Table,
    split_assignments: pa.Table,
) -> Output[pa.Table]:
    """Pairs among train-split passes and the hard negatives the mixture routed to preference."""
    counter, _ = config.counter()
    anchors = frozenset(config.anchor_models)
    result = preference_stage(redacted_corpus, split_assignments, config.policy(), counter, anchors)
    summary = result.summary
    context.log.info(
        f"preference_pairs: {summary['pairs_admitted']} admitted of {summary['pairs_considered']}"
    )
    return Output(
        result.table,
        metadata={
            "pairs_admitted": summary["pairs_admitted"],
            "pairs_considered": summary["pairs_considered"],
            "pairs_refused": summary["pairs_refused"],
            "refusals_by_reason": MetadataValue.json(summary["refusals_by_reason"]),
            "admitted_by_rule": MetadataValue.json(summary["admitted_by_rule"]),
            "routed_negatives": summary["routed_negatives"],
            "negatives_unrouted": summary["negatives_unrouted"],
        },
    )
