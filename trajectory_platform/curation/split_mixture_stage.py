"""Curation III as three table-in, table-out stages: split assignment, mixture, preference pairs.

Each function is what one Dagster asset calls (the asset only loads, calls, attaches metadata):

- :func:`split_stage`: ``redacted_corpus`` + fixture library + brought environments ->
  ``split_assignments`` (closure split, inheritance by derived records, decontamination, LeakageRate);
- :func:`mixture_stage`: ``redacted_corpus`` + ``split_assignments`` -> ``training_mixture``
  (the SFT rows, with every episode column and the counted ``target_turns``);
- :func:`preference_stage`: ``redacted_corpus`` + ``split_assignments`` -> ``preference_pairs``.

:func:`curation_stage` runs the three over one reading of the corpus (the ``split`` and ``curate``
commands). Each reads the corpus (a table, or its Parquet file) ``batch_rows`` rows at a time and
keeps :class:`~trajectory_platform.curation.candidates.EpisodeKeys` and pair profiles per episode,
not episodes; the rows an output carries whole are read again by id. Tables are sorted by their
key so the same input gives byte-identical Parquet, whatever the batch size.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TypeAlias

import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq

from trajectory_platform.curation.candidates import (
    ANCHOR_KEY,
    PARENT_KEY,
    Candidate,
    EpisodeKeys,
    Labelled,
    candidates_by_id,
    candidates_from_table,
)
from trajectory_platform.curation.decontam import (
    DecontamConfig,
    DecontamReport,
    EvaluationItem,
    action_keys,
    c_usable,
    decontaminate,
)
from trajectory_platform.curation.dedup import action_sequence, dedup_and_cap, sequence_digest
from trajectory_platform.curation.mixture import (
    NEGATIVE,
    PREFERENCE,
    SFT,
    TOKEN_MEASURE,
    Mixture,
    MixturePolicy,
    TargetCounter,
    TokenCounter,
    compose_mixture,
    count_tokens,
    measured_tokens,
    mixture_class,
    selected_turns,
    token_shares,
)
from trajectory_platform.curation.preferences import PairDecision, PairProfile, pair_decisions, pair_profile
from trajectory_platform.curation.splits import (
    SPLITS,
    TRAIN,
    SplitAssignment,
    SplitPlan,
    SplitPolicy,
    assign_splits,
    plan_with_environments,
    reason_key,
    split_sizes,
    straddling_closures,
    unused_pins,
)
from trajectory_platform.gym.rollout_logs import ROLLOUT_LOGS
from trajectory_platform.traces.batching import check_batch_rows
from trajectory_platform.traces.drops import Tally
from trajectory_platform.traces.parquet import read_batches
from trajectory_platform.traces.schema import EPISODE_SCHEMA, episode_row

DEFAULT_DECONTAM = DecontamConfig()
DEFAULT_BATCH_ROWS = 256
"""Corpus rows the split, mixture and preference stages read and convert at once unless told
(``SplitSettings.batch_rows``; the same default as ingest, verify and redact)."""
DEFAULT_MIXTURE_POLICY = MixturePolicy()

SPLIT_ASSIGNMENTS_SCHEMA = pa.schema(
    [
        pa.field("episode_id", pa.string(), nullable=False),
        ("fixture_id", pa.string()),
        ("repo_family", pa.string()),
        pa.field("closure_id", pa.string(), nullable=False),
        ("tool_family", pa.string()),
        ("domain", pa.string()),
        pa.field("split", pa.string(), nullable=False),
        ("fixture_split", pa.string()),
        ("regime", pa.string()),
        ("parent_episode_id", pa.string()),
        pa.field("reason", pa.string(), nullable=False),
    ]
)
"""``split``: train / validation / test / excluded. ``fixture_split``: the library plan's split of the
row's fixture (null when the fixture is not in the library), kept so a check can audit ``split``
against it. ``regime``: the transfer regime a test row measures (fine-tuning 16.7.2)."""

MIXTURE_FIELDS = [
    pa.field("role", pa.string(), nullable=False),
    pa.field("destination", pa.string(), nullable=False),
    pa.field("split", pa.string(), nullable=False),
    ("fixture_id", pa.string()),
    ("closure_id", pa.string()),
    pa.field("selected_target_tokens", pa.int64(), nullable=False),
    ("token_measure", pa.string()),
    ("target_turns", pa.list_(pa.int32())),
    ("sink", pa.string()),
    ("t_div", pa.int32()),
    ("t_rec", pa.int32()),
    ("anchor", pa.bool_()),
    ("in_band", pa.bool_()),
    ("parent_episode_id", pa.string()),
]
TRAINING_MIXTURE_SCHEMA = pa.schema([*EPISODE_SCHEMA, *MIXTURE_FIELDS])
"""Every episode column plus the mixture columns: the SFT mix, ready to serialize without a join."""

EPISODE_TYPE = pa.struct(list(EPISODE_SCHEMA))


def sft_token_shares(training_mixture: pa.Table) -> dict[str, float]:
    """Each role's share of the selected target tokens a ``training_mixture`` table really holds
    (the SFT mix only: hard negatives went to preference data), sorted by role."""
    totals: dict[str, float] = {}
    for role, tokens in zip(
        training_mixture.column("role").to_pylist(),
        training_mixture.column("selected_target_tokens").to_pylist(),
        strict=True,
    ):
        totals[role] = totals.get(role, 0) + tokens
    return {k: round(v, 6) for k, v in sorted(token_shares(totals).items())}


PREFERENCE_PAIRS_SCHEMA = pa.schema(
    [
        pa.field("pair_id", pa.string(), nullable=False),
        ("fixture_id", pa.string()),
        pa.field("split", pa.string(), nullable=False),
        pa.field("rule", pa.string(), nullable=False),
        ("reason", pa.string()),
        pa.field("chosen_episode_id", pa.string(), nullable=False),
        pa.field("rejected_episode_id", pa.string(), nullable=False),
        ("prefix_digest", pa.string()),
        pa.field("branch_event_index", pa.int32(), nullable=False),
        ("chosen_span_start", pa.int32()),
        ("chosen_span_end", pa.int32()),
        ("rejected_span_start", pa.int32()),
        ("rejected_span_end", pa.int32()),
        ("chosen_turns", pa.list_(pa.int32())),
        ("rejected_turns", pa.list_(pa.int32())),
        ("chosen_cost_calls", pa.int64()),
        ("chosen_cost_tokens", pa.int64()),
        ("rejected_cost_calls", pa.int64()),
        ("rejected_cost_tokens", pa.int64()),
        ("chosen", EPISODE_TYPE),
        ("rejected", EPISODE_TYPE),
    ]
)
"""Admitted pairs only (refusals are counted in the stage summary). ``chosen`` / ``rejected`` carry the
whole episodes so the tokenizing stage needs no join; it scores the assistant events listed in
``chosen_turns`` / ``rejected_turns`` (the divergent spans) with the shared prefix as context."""


def _pin(item: str) -> tuple[str, str]:
    """``"family:split"`` as the policy's (family, split) pair; a malformed one fails naming it."""
    family, sep, split = item.rpartition(":")
    if not sep or not family or split not in SPLITS:
        raise ValueError(f"pinned {item!r}: expected FAMILY:SPLIT with SPLIT one of {', '.join(SPLITS)}")
    return family, split


@dataclass(frozen=True)
class SplitSettings:
    """What a user sets for the split stage, with the product's defaults: their one source. The
    ``split`` CLI's flags and the ``split_assignments`` asset's config are derived from these
    fields. Reserved tool families default to the gym's fully renamed ``alias`` family (regimes B
    and C); no reserved domain means: reserve the least frequent domain."""

    fixture_seed: int = field(default=0, metadata={"help": "gym fixture library seed"})
    seed: int = field(default=SplitPolicy.seed, metadata={"help": "split seed"})
    train: float = field(default=SplitPolicy.train, metadata={"help": "share of fixtures in the train split"})
    validation: float = field(
        default=SplitPolicy.validation, metadata={"help": "share of fixtures in the validation split"}
    )
    test: float = field(default=SplitPolicy.test, metadata={"help": "share of fixtures in the test split"})
    reserved_tool_families: tuple[str, ...] = field(
        default=("alias",), metadata={"help": "tool families held for test"}
    )
    reserved_domains: tuple[str, ...] = field(
        default=(), metadata={"help": "domains held for test (none: the least frequent one)"}
    )
    pinned: tuple[str, ...] = field(
        default=("learn-delta:test",),
        metadata={
            "help": "FAMILY:SPLIT decisions the plan keeps (the default holds out the learnable "
            "family the release gate's competence is measured on)"
        },
    )
    prompt_overlap: float = field(
        default=DecontamConfig.prompt_overlap,
        metadata={"help": "decontamination: share of an evaluation prompt's 8-grams that marks a match"},
    )
    action_overlap: float = field(
        default=DecontamConfig.action_overlap,
        metadata={"help": "decontamination: share of an evaluation item's action 3-grams that marks a match"},
    )
    diff_overlap: float = field(
        default=DecontamConfig.diff_overlap,
        metadata={"help": "decontamination: share of an evaluation fix's diff lines that marks a match"},
    )
    min_environment_closures: int = field(
        default=SplitPolicy.min_environment_closures,
        metadata={
            "help": "closures of brought environments' own families needed before any is held out "
            "(fewer: all train)"
        },
    )
    batch_rows: int = field(
        default=DEFAULT_BATCH_ROWS,
        metadata={
            "help": "corpus rows read and converted at once by the split, mixture and pairs: the "
            "stage holds compact keys per episode, not episodes (the tables are the same for any value)"
        },
    )

    def __post_init__(self) -> None:
        if self.min_environment_closures < 1:
            raise ValueError(
                f"min_environment_closures must be at least 1, got {self.min_environment_closures}"
            )
        check_batch_rows(self.batch_rows)

    def policy(self) -> SplitPolicy:
        """The split policy these settings declare."""
        return SplitPolicy(
            train=self.train,
            validation=self.validation,
            test=self.test,
            reserved_tool_families=self.reserved_tool_families or None,
            reserved_domains=self.reserved_domains or None,
            pinned=tuple(_pin(item) for item in self.pinned),
            seed=self.seed,
            min_environment_closures=self.min_environment_closures,
        )

    def decontamination(self) -> DecontamConfig:
        """The decontamination thresholds these settings declare."""
        return DecontamConfig(
            prompt_overlap=self.prompt_overlap,
            action_overlap=self.action_overlap,
            diff_overlap=self.diff_overlap,
        )


DEFAULT_TOKENIZER_MEASURE = "default_tokenizer"
"""``MixtureSettings.token_measure`` for counting in the training tokenizer (any other value:
word pieces, no tokenizer)."""


@dataclass(frozen=True)
class MixtureSettings:
    """What a user sets for the mixture and preference stages, with the product's defaults: their
    one source (the ``split`` CLI's mixture flags and the ``training_mixture`` / ``preference_pairs``
    config). Shares are of selected target tokens; ``anchor_sources`` are the ingest sources whose
    episodes are external demonstrations (patterns over ``source_file``, :func:`from_anchor_source`;
    by default the gym's own scripted rollout)."""

    alpha: float = field(
        default=MixturePolicy.alpha, metadata={"help": "pristine share of target tokens (bounds 0.60-0.70)"}
    )
    beta: float = field(
        default=MixturePolicy.beta, metadata={"help": "recovery share of target tokens (bounds 0.20-0.30)"}
    )
    gamma: float = field(
        default=MixturePolicy.gamma,
        metadata={"help": "hard-negative share of target tokens (to preference data; at most 0.20)"},
    )
    cap_per_fixture: int = field(
        default=MixturePolicy.cap_per_fixture, metadata={"help": "samples kept per fixture"}
    )
    pair_passes_per_fixture: int = field(
        default=MixturePolicy.pair_passes_per_fixture,
        metadata={"help": "distinct verified passes per fixture in the preference-pair pool"},
    )
    k: int = field(
        default=MixturePolicy.k, metadata={"help": "P_inform: attempts the next round plans per fixture"}
    )
    band: float = field(
        default=MixturePolicy.band, metadata={"help": "P_inform at or above which a fixture is informative"}
    )
    seed: int = field(default=MixturePolicy.seed, metadata={"help": "selection seed"})
    token_measure: str = field(
        default=DEFAULT_TOKENIZER_MEASURE,
        metadata={
            "help": f"{DEFAULT_TOKENIZER_MEASURE!r}: the training tokenizer; anything else: word pieces"
        },
    )
    tokenizer_path: str = field(
        default="", metadata={"help": "tokenizer directory ('': the embedded default)"}
    )
    anchor_sources: tuple[str, ...] = field(
        default=(ROLLOUT_LOGS,),
        metadata={
            "help": "trace-source paths (fnmatch patterns over source_file) whose logs are external "
            "demonstrations; never a value a record states"
        },
    )

    def counter(
        self, in_tokenizer: Callable[[str | None], tuple[TokenCounter, str]]
    ) -> tuple[TokenCounter, str]:
        """The token counter and the measure name recorded with every row: word pieces, or the
        training tokenizer that ``in_tokenizer`` loads (from ``tokenizer_path``, or the default)."""
        if self.token_measure != DEFAULT_TOKENIZER_MEASURE:
            return count_tokens, TOKEN_MEASURE
        return in_tokenizer(self.tokenizer_path or None)

    def counters(
        self,
        in_tokenizer: Callable[[str | None], tuple[TokenCounter, str]],
        in_dataset: Callable[[str | None], tuple[TargetCounter, str]],
    ) -> tuple[TokenCounter, TargetCounter | None, str]:
        """:meth:`counter`, plus the selected-target counter ``in_dataset`` loads (the dataset
        stage's own count, so the mixture's tokens are the ones ``token_masked_dataset`` labels;
        ``None`` under word pieces), and the measure name of the mixture's tokens."""
        counter, measure = self.counter(in_tokenizer)
        if self.token_measure != DEFAULT_TOKENIZER_MEASURE:
            return counter, None, measure
        target_counter, target_measure = in_dataset(self.tokenizer_path or None)
        return counter, target_counter, target_measure

    def policy(self) -> MixturePolicy:
        """The mixture policy these settings declare."""
        return MixturePolicy(
            alpha=self.alpha,
            beta=self.beta,
            gamma=self.gamma,
            cap_per_fixture=self.cap_per_fixture,
            pair_passes_per_fixture=self.pair_passes_per_fixture,
            k=self.k,
            band=self.band,
            seed=self.seed,
        )


@dataclass
class SplitStageResult:
    table: pa.Table
    plan: SplitPlan
    decontam: DecontamReport
    summary: dict

    def tally(self) -> Tally:
        """Episodes in, assigned a split (kept), and the excluded ones by reason key."""
        rows = self.table.select(["split", "reason"]).to_pylist()
        excluded = Counter(reason_key(str(r["reason"])) for r in rows if r["split"] == "excluded")
        return Tally(len(rows), len(rows) - sum(excluded.values()), excluded)


def assignments_by_reason(table: pa.Table) -> dict[str, dict[str, int]]:
    """Rows of a ``split_assignments`` table per split and reason key: every row is counted once, so
    the counts sum to the rows in (the excluded ones are the stage's drops)."""
    counts: Counter[tuple[str, str]] = Counter(
        (str(r["split"]), reason_key(str(r["reason"]))) for r in table.select(["split", "reason"]).to_pylist()
    )
    by_split: dict[str, dict[str, int]] = {}
    for (split, key), n in sorted(counts.items()):
        by_split.setdefault(split, {})[key] = n
    return by_split


def trained_by_plan(settings: SplitSettings, fixtures: Iterable) -> Callable[[Any], bool]:
    """Whether the split plan of ``settings`` over ``fixtures`` trains on a fixture-like object (by
    its repository family, tool family and domain): e.g. to generate only training tasks it keeps."""
    plan = plan_with_environments(fixtures, (), settings.policy())
    return lambda fixture: plan.place(fixture.repo_family, fixture.tool_family, fixture.domain)[0] == TRAIN


DEFAULT_SPLIT_POLICY = SplitSettings().policy()
"""The split plan's product defaults (the learnable family's held-out member pinned to test)."""


CANDIDATE_COLUMNS = (*EPISODE_SCHEMA.names, "sink", "role", "t_div", "t_rec", "target_turns")
"""What a candidate reads of a corpus row (with the optional lineage and license columns below)."""
OPTIONAL_COLUMNS = (PARENT_KEY, ANCHOR_KEY, "license_action")

Corpus: TypeAlias = pa.Table | Path | Sequence[Path]
"""What the stages read: the corpus as a table, or its Parquet file, or its files in order (the
days of ``redacted_corpus`` as the warehouse stores them), read a batch at a time."""


def corpus_batches(corpus: Corpus, batch_rows: int) -> Iterator[pa.Table]:
    """The corpus's candidate columns in order, at most ``batch_rows`` rows at a time (Arrow record
    batches: from files, only one batch is ever decoded; a file's columns are its own, as a day may
    lack an optional column)."""
    check_batch_rows(batch_rows)
    if isinstance(corpus, pa.Table):
        table = corpus.select(_candidate_columns(corpus.column_names))
        for batch in table.to_batches(max_chunksize=batch_rows):
            yield pa.Table.from_batches([batch])
        return
    for path in [corpus] if isinstance(corpus, Path) else corpus:
        yield from read_batches(Path(path), batch_rows, _candidate_columns(pq.read_schema(path).names))


def _candidate_columns(names: Sequence[str]) -> list[str]:
    return [name for name in (*CANDIDATE_COLUMNS, *OPTIONAL_COLUMNS) if name in names]


def corpus_candidates(corpus: pa.Table, anchor_sources: frozenset[str] = frozenset()) -> list[Candidate]:
    """The corpus as candidates, reading only the columns a candidate uses, :data:`DEFAULT_BATCH_ROWS`
    rows at a time: converting the whole table to dicts first (every verification and redaction
    column included) held the corpus twice over beside the candidates."""
    return [
        candidate
        for table in corpus_batches(corpus, DEFAULT_BATCH_ROWS)
        for candidate in candidates_from_table(table, anchor_sources)
    ]


@dataclass
class CorpusScan:
    """The corpus as curation III decides on it, from one pass over its rows in batches: each
    episode's :class:`EpisodeKeys` (corpus order) and, for the episodes a preference pair may use
    (a trainable pass or hard negative), its :class:`PairProfile`. No episode is held: the rows the
    outputs carry whole are read again by id (:func:`selected_candidates`)."""

    keys: list[EpisodeKeys]
    profiles: dict[str, PairProfile]


def scan_corpus(
    corpus: Corpus,
    batch_rows: int = DEFAULT_BATCH_ROWS,
    anchor_sources: frozenset[str] = frozenset(),
    counter: TokenCounter | None = None,
    target_counter: TargetCounter | None = None,
    pairs: bool = False,
) -> CorpusScan:
    """Convert each corpus row once, a batch at a time, into what every decision needs. ``counter``
    (and ``target_counter``): measure the selected target tokens of every trainable mixture-class
    episode (None: the split alone, which counts none); ``pairs``: profile the pair pool's episodes
    (token costs by ``counter``). Equal prompts, diffs and action runs are held once."""
    texts: dict[str, str] = {}
    runs: dict[tuple[str, ...], tuple[str, ...]] = {}
    keys: list[EpisodeKeys] = []
    profiles: dict[str, PairProfile] = {}
    for table in corpus_batches(corpus, batch_rows):
        for candidate in candidates_from_table(table, anchor_sources):
            episode = candidate.episode
            sequence = action_sequence(episode)
            actions = action_keys(sequence)
            mixable = candidate.trainable_license and mixture_class(candidate) is not None
            keys.append(
                EpisodeKeys(
                    episode_id=candidate.episode_id,
                    fixture_id=candidate.fixture_id,
                    repo_family=candidate.repo_family,
                    tool_family=candidate.tool_family,
                    domain=candidate.domain,
                    sink=candidate.sink,
                    role=candidate.role,
                    t_div=candidate.t_div,
                    parent_episode_id=candidate.parent_episode_id,
                    anchor=candidate.anchor,
                    license_action=candidate.license_action,
                    prompt=_shared(texts, episode.task.prompt),
                    actions=runs.setdefault(actions, actions),
                    diff=_shared(texts, episode.outcome.workspace_diff),
                    action_digest=sequence_digest(sequence),
                    tokens=measured_tokens(candidate, counter, target_counter)
                    if counter is not None and mixable
                    else None,
                )
            )
            if pairs and counter is not None and _may_pair(candidate):
                profiles[candidate.episode_id] = pair_profile(candidate, counter)
    return CorpusScan(keys, profiles)


def _shared(texts: dict[str, str], text: str | None) -> str | None:
    return None if text is None else texts.setdefault(text, text)


def _may_pair(candidate: Labelled) -> bool:
    """Whether a train-split episode could join the pair pool: a trainable pass, or a trainable hard
    negative the mixture may route to preference data."""
    return candidate.trainable_license and (candidate.passed is True or mixture_class(candidate) == NEGATIVE)


def selected_candidates(
    corpus: Corpus, episode_ids: set[str], batch_rows: int, anchor_sources: frozenset[str] = frozenset()
) -> dict[str, Candidate]:
    """The candidates of ``episode_ids`` (the rows an output carries whole), read again a batch at a
    time; only the chosen rows of a batch are converted."""
    wanted = pa.array(sorted(episode_ids), pa.string())
    found: dict[str, Candidate] = {}
    for table in corpus_batches(corpus, batch_rows):
        chosen = table.filter(pc.is_in(table.column("episode_id"), value_set=wanted))
        found.update((c.episode_id, c) for c in candidates_from_table(chosen, anchor_sources))
    return found


def _plan(fixtures: Iterable, environments: Iterable, policy: SplitPolicy) -> SplitPlan:
    plan = plan_with_environments(fixtures, environments, policy)
    if unused := unused_pins(plan, policy):
        raise ValueError(
            f"pinned {unused}: no such family in the fixture library or the registered environments"
        )
    return plan


def split_stage(
    corpus: Corpus,
    fixtures: Iterable,
    policy: SplitPolicy = DEFAULT_SPLIT_POLICY,
    decontam_config: DecontamConfig = DEFAULT_DECONTAM,
    external: Iterable[EvaluationItem] = (),
    environments: Iterable = (),
    batch_rows: int = DEFAULT_BATCH_ROWS,
) -> SplitStageResult:
    """Plan the split over the fixture library and the brought ``environments`` (their fixtures,
    :func:`~trajectory_platform.curation.splits.plan_with_environments`), assign every corpus row,
    and decontaminate train against every evaluation fixture, environments' included. The corpus
    is read ``batch_rows`` rows at a time and held as :class:`EpisodeKeys`.

    rows in = rows out: every episode gets exactly one row (split train / validation / test /
    excluded, with its reason).
    """
    plan = _plan(fixtures, environments, policy)
    return _split(scan_corpus(corpus, batch_rows).keys, plan, policy, external, decontam_config)


def _split(
    keys: Sequence[EpisodeKeys],
    plan: SplitPlan,
    policy: SplitPolicy,
    external: Iterable[EvaluationItem],
    decontam_config: DecontamConfig,
) -> SplitStageResult:
    candidates_by_id(keys)  # a repeated episode id fails here, loudly
    rows, report = decontaminate(keys, assign_splits(keys, plan), plan, external, decontam_config)
    rows.sort(key=lambda r: r.episode_id)
    table = pa.Table.from_pylist([_assignment_row(r, plan) for r in rows], schema=SPLIT_ASSIGNMENTS_SCHEMA)
    counts = Counter(r.split for r in rows)
    summary = {
        "records_in": len(keys),
        "split_counts": dict(sorted(counts.items())),
        "closure_split": dict(sorted(plan.closure_split.items())),
        "reserved_tool_families": sorted(plan.reserved_tool_families),
        "reserved_domains": sorted(plan.reserved_domains),
        "evaluation_fixtures": len(plan.evaluation_fixtures()),
        "sizes": split_sizes(rows),
        "straddling": straddling_closures(rows),
        "decontamination": report.as_dict(),
        # Eq. 4 in units of one accepted trajectory's cost: how much each usable one costs.
        "c_usable_per_unit_cost": c_usable(1.0, 0.0, 0.0, 1, report.leakage_rate),
        "assignments_by_reason": assignments_by_reason(table),
        "environments": _environment_summary(plan, policy),
    }
    return SplitStageResult(table, plan, report, summary)


def _environment_summary(plan: SplitPlan, policy: SplitPolicy) -> dict:
    """Where the brought environments landed: how many per split, and each closure's split."""
    splits = {e: plan.fixture_split(e) for e in plan.environment_ids}
    closures = {plan.closure(plan.fixtures[e].repo_family) for e in plan.environment_ids}
    return {
        "registered": len(splits),
        "by_split": dict(sorted(Counter(splits.values()).items())),
        "closure_split": {c: plan.closure_split[c] for c in sorted(closures)},
        "min_environment_closures": policy.min_environment_closures,
    }


def _assignment_row(row: SplitAssignment, plan: SplitPlan) -> dict:
    data = dict(row.__dict__)
    fixture_id = row.fixture_id
    data["fixture_split"] = plan.fixture_split(fixture_id) if fixture_id in plan.fixtures else None
    return data


def assignments_from_table(table: pa.Table) -> list[SplitAssignment]:
    """``split_assignments`` rows back as :class:`SplitAssignment` values."""
    names = SplitAssignment.__dataclass_fields__
    return [SplitAssignment(**{k: v for k, v in row.items() if k in names}) for row in table.to_pylist()]


@dataclass
class MixtureStageResult:
    table: pa.Table
    mixture: Mixture
    summary: dict

    def tally(self) -> Tally:
        """Candidates considered, selected (kept), and the rest by drop reason."""
        dropped = Counter(self.mixture.dropped)
        return Tally(self.mixture.considered, self.mixture.considered - sum(dropped.values()), dropped)


def mixture_stage(
    corpus: Corpus,
    split_assignments: pa.Table,
    policy: MixturePolicy = DEFAULT_MIXTURE_POLICY,
    counter: TokenCounter = count_tokens,
    token_measure: str = TOKEN_MEASURE,
    anchor_sources: frozenset[str] = frozenset(),
    target_counter: TargetCounter | None = None,
    batch_rows: int = DEFAULT_BATCH_ROWS,
) -> MixtureStageResult:
    """Compose the mixture and return its SFT rows (pristine and recovery) as ``training_mixture``.

    Hard negatives chosen for the γ share are destination ``preference``: they are counted in the
    shares (metadata) and feed :func:`preference_stage`, never the SFT table. Episodes read from an
    an ``anchor_sources`` source are the external anchor (first in line, exempt from caps). The corpus
    is read twice, ``batch_rows`` rows at a time: its keys, then the selected rows.
    """
    scan = scan_corpus(corpus, batch_rows, anchor_sources, counter, target_counter)
    assignments = assignments_from_table(split_assignments)
    mixture = compose_mixture(scan.keys, assignments, policy, counter, target_counter)
    episodes = selected_candidates(corpus, _sft_ids(mixture), batch_rows, anchor_sources)
    return _mixture_result(mixture, assignments, episodes, token_measure)


def _sft_ids(mixture: Mixture) -> set[str]:
    return {row.episode_id for row in mixture.rows if row.destination == SFT}


def _mixture_result(
    mixture: Mixture,
    assignments: Sequence[SplitAssignment],
    episodes: dict[str, Candidate],
    token_measure: str,
) -> MixtureStageResult:
    """The ``training_mixture`` table (the SFT rows, each with its whole episode) and its summary."""
    assignment_of = {a.episode_id: a for a in assignments}
    rows = []
    for row in mixture.rows:
        if row.destination != SFT:
            continue
        candidate = episodes[row.episode_id]
        assignment = assignment_of[row.episode_id]
        rows.append(
            {
                **episode_row(candidate.episode),
                "role": row.role,
                "destination": row.destination,
                "split": assignment.split,
                "fixture_id": row.fixture_id,
                "closure_id": assignment.closure_id,
                "selected_target_tokens": row.selected_target_tokens,
                "token_measure": token_measure,
                "target_turns": selected_turns(candidate),
                "sink": candidate.sink,
                "t_div": candidate.t_div,
                "t_rec": candidate.t_rec,
                "anchor": row.anchor,
                "in_band": row.in_band,
                "parent_episode_id": candidate.parent_episode_id,
            }
        )
    rows.sort(key=lambda r: r["episode_id"])
    table = pa.Table.from_pylist(rows, schema=TRAINING_MIXTURE_SCHEMA)
    summary = {
        **mixture.summary(),
        "token_measure": token_measure,
        "sft_rows": len(rows),
        "sft_target_tokens": sum(r["selected_target_tokens"] for r in rows),
        "preference_negatives": sum(1 for r in mixture.rows if r.destination == PREFERENCE),
        "fixtures_in_band": sum(1 for s in mixture.signals.values() if s["in_band"]),
        "fixtures_with_signal": len(mixture.signals),
        "distinct_sequences_per_fixture": _mean([s["distinct"] for s in mixture.signals.values()]),
        "anchors": sum(1 for r in mixture.rows if r.anchor),
    }
    return MixtureStageResult(table, mixture, summary)


def _mean(values: Sequence[float]) -> float:
    return round(sum(values) / len(values), 4) if values else 0.0


@dataclass
class PreferenceStageResult:
    table: pa.Table
    decisions: list[PairDecision]
    summary: dict

    def tally(self) -> Tally:
        """Pairs considered, admitted (kept), and the refused ones by reason."""
        refusals = _refusals(self.decisions)
        return Tally(len(self.decisions), len(self.decisions) - sum(refusals.values()), refusals)


def preference_stage(
    corpus: Corpus,
    split_assignments: pa.Table,
    policy: MixturePolicy = DEFAULT_MIXTURE_POLICY,
    counter: TokenCounter = count_tokens,
    anchor_sources: frozenset[str] = frozenset(),
    target_counter: TargetCounter | None = None,
    batch_rows: int = DEFAULT_BATCH_ROWS,
) -> PreferenceStageResult:
    """Admissible pairs among train-split trajectories.

    Rejected-side failures are the hard negatives the mixture routed to preference (the γ budget);
    every verified pass in the train split (pristine, recovery, or a costlier inefficient pass) may
    take part, because preferring a cheaper pass over a costlier one is also a declared rule.
    ``anchor_sources`` and ``target_counter`` must match :func:`mixture_stage`'s so both route the same
    negatives. The corpus is read twice, ``batch_rows`` rows at a time: keys and pair profiles,
    then the admitted pairs' episodes.
    """
    scan = scan_corpus(corpus, batch_rows, anchor_sources, counter, target_counter, pairs=True)
    assignments = assignments_from_table(split_assignments)
    mixture = compose_mixture(scan.keys, assignments, policy, counter, target_counter)
    decisions, summary = _pair_decisions(scan, assignments, mixture)
    episodes = selected_candidates(corpus, _pair_ids(decisions), batch_rows, anchor_sources)
    return _preference_result(decisions, summary, episodes)


def _pair_decisions(
    scan: CorpusScan, assignments: Sequence[SplitAssignment], mixture: Mixture
) -> tuple[list[PairDecision], dict]:
    """Every pair decided over the pool, and the pool's counts. The pool: the hard negatives the
    mixture routed (already bounded by the γ budget) and the train split's trainable passes, one per
    (fixture, action sequence) and at most ``pair_passes_per_fixture`` per fixture (seeded, anchors
    included), so the pairs a fixture contributes stay bounded however many episodes it gathers."""
    routed = {r.episode_id for r in mixture.rows if r.destination == PREFERENCE}
    train = {a.episode_id for a in assignments if a.split == TRAIN}
    eligible = [k for k in scan.keys if k.episode_id in train and k.trainable_license]
    passes = [k for k in eligible if k.passed is True and k.episode_id not in routed]
    policy = mixture.policy
    selections = dedup_and_cap(passes, policy.pair_passes_per_fixture, policy.seed, anchors_exempt=False)
    kept = {s.episode_id for s in selections if s.kept} | routed
    pool = [scan.profiles[k.episode_id] for k in eligible if k.episode_id in kept]
    unrouted = sum(
        1 for k in scan.keys if k.episode_id in train and k.passed is False and k.episode_id not in routed
    )
    passes_left_out = Counter(s.drop.reason for s in selections if s.drop is not None)
    return pair_decisions(pool), {
        "pool": len(pool),
        "routed_negatives": len(routed),
        "negatives_unrouted": unrouted,
        "passes_left_out_of_pool": dict(sorted(passes_left_out.items())),
    }


def _pair_ids(decisions: Sequence[PairDecision]) -> set[str]:
    return {i for d in decisions if d.admitted for i in (d.chosen_episode_id, d.rejected_episode_id)}


def _preference_result(
    decisions: list[PairDecision], pool_counts: dict, episodes: dict[str, Candidate]
) -> PreferenceStageResult:
    """The ``preference_pairs`` table (admitted pairs, both episodes whole) and its summary."""
    rows = [_pair_row(d, episodes) for d in decisions if d.admitted]
    rows.sort(key=lambda r: r["pair_id"])
    refusals = _refusals(decisions)
    summary = {
        **pool_counts,
        "pairs_considered": len(decisions),
        "pairs_admitted": len(rows),
        "pairs_refused": sum(refusals.values()),
        "refusals_by_reason": dict(sorted(refusals.items())),
        "admitted_by_rule": dict(sorted(Counter(r["rule"] for r in rows).items())),
    }
    return PreferenceStageResult(
        pa.Table.from_pylist(rows, schema=PREFERENCE_PAIRS_SCHEMA), decisions, summary
    )


@dataclass
class CurationResult:
    """The three curation III tables of one corpus."""

    split: SplitStageResult
    mixture: MixtureStageResult
    pairs: PreferenceStageResult


def curation_stage(
    corpus: Corpus,
    fixtures: Iterable,
    split: SplitSettings,
    mixture: MixtureSettings,
    counters: tuple[TokenCounter, TargetCounter | None, str],
    environments: Iterable = (),
) -> CurationResult:
    """:func:`split_stage`, :func:`mixture_stage` and :func:`preference_stage` over one reading of the
    corpus (``split.batch_rows`` rows at a time: each row converted once into its keys and pair
    profile), then one more reading for the rows the mixture and the pairs carry whole; the same
    tables as the three stages. ``counters``: :meth:`MixtureSettings.counters`' token counter,
    target counter and measure name. What the ``split`` and ``curate`` commands run."""
    counter, target_counter, measure = counters
    anchors, policy = frozenset(mixture.anchor_sources), mixture.policy()
    plan = _plan(fixtures, environments, split.policy())
    scan = scan_corpus(corpus, split.batch_rows, anchors, counter, target_counter, pairs=True)
    split_result = _split(scan.keys, plan, split.policy(), (), split.decontamination())
    assignments = assignments_from_table(split_result.table)
    composed = compose_mixture(scan.keys, assignments, policy, counter, target_counter)
    decisions, pool_counts = _pair_decisions(scan, assignments, composed)
    wanted = _sft_ids(composed) | _pair_ids(decisions)
    del scan  # the keys are done with; only the chosen episodes are read back
    episodes = selected_candidates(corpus, wanted, split.batch_rows, anchors)
    return CurationResult(
        split_result,
        _mixture_result(composed, assignments, episodes, measure),
        _preference_result(decisions, pool_counts, episodes),
    )


def _refusals(decisions: Sequence[PairDecision]) -> Counter[str]:
    """Refused pairs by reason key (:data:`~trajectory_platform.curation.preferences.REFUSAL_REASONS`)."""
    return Counter(d.refusal.reason for d in decisions if d.refusal is not None)


def _pair_row(decision: PairDecision, by_id: dict[str, Candidate]) -> dict:
    chosen, rejected = by_id[decision.chosen_episode_id], by_id[decision.rejected_episode_id]
    chosen_span, rejected_span = decision.chosen_span, decision.rejected_span
    chosen_cost, rejected_cost = decision.chosen_cost, decision.rejected_cost
    if chosen_span is None or rejected_span is None or chosen_cost is None or rejected_cost is None:
        raise ValueError(f"pair {decision.pair_id} is admitted without its spans and costs")
    return {
        "pair_id": decision.pair_id,
        "fixture_id": decision.fixture_id,
        "split": TRAIN,
        "rule": decision.rule,
        "reason": decision.reason,
        "chosen_episode_id": decision.chosen_episode_id,
        "rejected_episode_id": decision.rejected_episode_id,
        "prefix_digest": decision.prefix_digest,
        "branch_event_index": decision.branch_event_index,
        "chosen_span_start": chosen_span[0],
        "chosen_span_end": chosen_span[1],
        "rejected_span_start": rejected_span[0],
        "rejected_span_end": rejected_span[1],
        "chosen_turns": decision.chosen_turns,
        "rejected_turns": decision.rejected_turns,
        "chosen_cost_calls": chosen_cost[0],
        "chosen_cost_tokens": chosen_cost[1],
        "rejected_cost_calls": rejected_cost[0],
        "rejected_cost_tokens": rejected_cost[1],
        "chosen": episode_row(chosen.episode),
        "rejected": episode_row(rejected.episode),
    }
