"""The training mixture, composed and measured in selected target tokens.

Curation §Corpus composition ratios: ``D_train = α T_pristine ∪ β T_recover ∪ γ T_negative`` with
``α ∈ [0.60, 0.70]``, ``β ∈ [0.20, 0.30]``, ``γ ≈ 0.10``. Napkin math 0.3 shows why the unit must be
tokens: a 65/25/10 mix *by trajectory* is 45.50/44.97/9.53 *by token*, because recovery traces are
long. Fine-tuning 16.5.1 adds which tokens: the selected target tokens, the unit in which class
shares reach the parameter update unchanged under token averaging.

Hard negatives are the γ component and go to preference data (destination ``preference``), never
into the SFT mix (destination ``sft``). Two sets of bounds hold at once: the seed's, over the whole
budget (α + β + γ = 1), and α's bounds over the SFT mix actually trained (pristine + recovery),
because once the negatives leave for preference data the SFT optimizer sees pristine at
α / (α + β): a declared 65/25/10 would train a 72/28 SFT mix, past α ≤ 0.70. With γ ≈ 0.10 both
hold for an SFT pristine share in [0.667, 0.70]; the plan aims inside that band
(:func:`sft_pristine_target`).

Token measure. Curation sits below training (data flows traces → gym → curation → training), so it
never imports a tokenizer. :func:`count_tokens` is the declared, tokenizer-agnostic default measure
(word pieces: runs of letters/digits/underscore, and each other non-space character) over each
selected turn's emitted text; any callable ``str -> int`` can be passed instead. A
:data:`TargetCounter` counts whole episodes instead: the Dagster asset passes the dataset stage's own
count (the chat template's rendering of each target turn, its tool-call markup and end-of-turn token
included), so ``training_mixture.selected_target_tokens`` sums to ``token_masked_dataset.n_targets``.
The asset records which measure it used.
"""

from __future__ import annotations

import hashlib
import re
from collections import Counter
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field

from trajectory_platform.curation.candidates import Candidate, EpisodeKeys, Labelled
from trajectory_platform.curation.dedup import dedup_and_cap, fixture_signal
from trajectory_platform.curation.splits import TRAIN, SplitAssignment
from trajectory_platform.traces.drops import Drop
from trajectory_platform.traces.record import Episode, Event

TokenCounter = Callable[[str], int]
TargetCounter = Callable[[Episode, Sequence[int]], int]
"""Selected target tokens of an episode's given turns, as the model is trained on them."""

PRISTINE, RECOVERY, NEGATIVE = "pristine", "recovery", "hard_negative"
SFT, PREFERENCE = "sft", "preference"
NEGATIVE_POST_DIVERGENCE_TURNS = 2
"""Napkin math 0.3: a hard negative is kept through the divergence turn plus two exploratory turns."""
MIXTURE_DROP_REASONS = (
    "not_train_split",
    "license_not_trainable",
    "not_a_mixture_class",
    "no_target_tokens",
    "duplicate_action_sequence",
    "fixture_cap",
    "token_budget",
)
"""Why a considered candidate is not in the mixture, in the order :func:`compose_mixture` decides:
outside the train split, fenced by its license, neither pristine / recovery nor a hard negative, no
selected target tokens, a duplicate action sequence of its fixture, over the per-fixture cap, or its
class already filled to its token target."""

_PIECE = re.compile(r"\w+|[^\w\s]")
TOKEN_MEASURE = "word_pieces_v1"


def count_tokens(text: str) -> int:
    """The default, tokenizer-agnostic measure: word pieces (``\\w+`` runs and single punctuation)."""
    return len(_PIECE.findall(text))


def event_target_text(event: Event, include_reasoning: bool = False) -> str:
    """The text a model emits in an assistant turn: content and every tool call (name and arguments).

    Reasoning is context by default (the rationale mode is declared by the dataset stage).
    """
    parts = [event.content or ""]
    if include_reasoning and event.reasoning:
        parts.append(event.reasoning)
    parts.extend(f"{call.name or ''} {call.arguments or ''}" for call in event.tool_calls)
    return "\n".join(p for p in parts if p)


def selected_turns(candidate: Candidate) -> list[int]:
    """Event indices whose tokens the mixture counts.

    SFT roles: the ``target_turns`` curation I selected (assistant events only); when no selection
    was recorded at all (``None``) every assistant turn, declared as a fallback. Hard negatives:
    assistant turns through ``t_div`` plus :data:`NEGATIVE_POST_DIVERGENCE_TURNS` after it.
    """
    events = candidate.episode.events
    assistant = [i for i, e in enumerate(events) if e.kind == "assistant"]
    if candidate.role == NEGATIVE or candidate.sink == NEGATIVE:
        if candidate.t_div is None:
            return assistant
        before = [i for i in assistant if i <= candidate.t_div]
        after = [i for i in assistant if i > candidate.t_div][:NEGATIVE_POST_DIVERGENCE_TURNS]
        return before + after
    if candidate.target_turns is None:
        return assistant
    return [
        i
        for i in sorted(set(candidate.target_turns))
        if 0 <= i < len(events) and events[i].kind == "assistant"
    ]


def selected_target_tokens(
    candidate: Candidate, counter: TokenCounter = count_tokens, target_counter: TargetCounter | None = None
) -> int:
    """The candidate's selected target tokens: ``target_counter`` over its selected turns when
    given, else ``counter`` over each selected turn's emitted text."""
    turns = selected_turns(candidate)
    if target_counter is not None:
        return target_counter(candidate.episode, turns)
    events = candidate.episode.events
    return sum(counter(event_target_text(events[i])) for i in turns)


def measured_tokens(
    candidate: Labelled, counter: TokenCounter = count_tokens, target_counter: TargetCounter | None = None
) -> int:
    """:func:`selected_target_tokens`, or the count its :class:`EpisodeKeys` kept (measured when the
    keys were made, under the same counters)."""
    if not isinstance(candidate, EpisodeKeys):
        return selected_target_tokens(candidate, counter, target_counter)
    if candidate.tokens is None:
        raise ValueError(f"{candidate.episode_id}: its keys carry no selected target tokens")
    return candidate.tokens


def token_shares(tokens: Mapping[str, float]) -> dict[str, float]:
    """Each class's share of the total; all zero when there is nothing."""
    total = sum(tokens.values())
    return {k: (v / total if total else 0.0) for k, v in tokens.items()}


def trajectory_mix_token_shares(
    trajectories: int, trajectory_shares: dict[str, float], mean_tokens: dict[str, float]
) -> dict[str, float]:
    """Napkin math 0.3: token shares realized by a mix declared in trajectories."""
    counts = {k: round(trajectories * share) for k, share in trajectory_shares.items()}
    return token_shares({k: counts[k] * mean_tokens[k] for k in counts})


@dataclass(frozen=True)
class MixturePolicy:
    """Declared shares (in selected target tokens) and their admissible bounds, the cap of SFT samples
    per fixture, and the cap of distinct verified passes per fixture in the preference pool (pairs
    grow with the square of a fixture's pool; the cap keeps an easy fixture from dominating the
    preference data and the stage's memory from growing with the corpus)."""

    alpha: float = 0.65
    beta: float = 0.25
    gamma: float = 0.10
    alpha_bounds: tuple[float, float] = (0.60, 0.70)
    beta_bounds: tuple[float, float] = (0.20, 0.30)
    gamma_max: float = 0.20
    margin: float = 0.01
    cap_per_fixture: int = 4
    pair_passes_per_fixture: int = 16
    k: int = 8
    band: float = 0.5
    seed: int = 0


def sft_shares(tokens: Mapping[str, float]) -> dict[str, float]:
    """Pristine and recovery shares of the SFT mix alone (hard negatives train DPO, not SFT)."""
    return token_shares({PRISTINE: tokens.get(PRISTINE, 0), RECOVERY: tokens.get(RECOVERY, 0)})


def bound_violation(tokens: Mapping[str, float], policy: MixturePolicy) -> float:
    """How far the shares of ``tokens`` lie outside the bounds (0 when inside): α and β over the whole
    budget, γ under ``gamma_max``, and α's bounds over the SFT mix (pristine + recovery)."""
    shares, sft = token_shares(dict(tokens)), sft_shares(tokens)
    (a_lo, a_hi), (b_lo, b_hi) = policy.alpha_bounds, policy.beta_bounds
    a, b, g, s = shares[PRISTINE], shares[RECOVERY], shares[NEGATIVE], sft[PRISTINE]
    return (
        max(0.0, a_lo - a)
        + max(0.0, a - a_hi)
        + max(0.0, b_lo - b)
        + max(0.0, b - b_hi)
        + max(0.0, g - policy.gamma_max)
        + max(0.0, a_lo - s)
        + max(0.0, s - a_hi)
    )


def sft_pristine_target(policy: MixturePolicy) -> float:
    """The pristine share of the SFT mix the plan aims for: the declared α / (α + β), moved
    ``policy.margin`` inside α's bounds (0.65 / 0.90 = 0.722 becomes 0.69 by default)."""
    (lo, hi), inset = policy.alpha_bounds, policy.margin
    return min(max(policy.alpha / (policy.alpha + policy.beta), lo + inset), hi - inset)


def plan_token_targets(
    pristine: float, recovery: float, negative: float, policy: MixturePolicy = MixturePolicy()
) -> dict[str, float]:
    """Token targets per class that keep every share in bounds (:func:`bound_violation`) while
    keeping the most data.

    With enough hard negatives the SFT mix is split at :func:`sft_pristine_target` and scaled to the
    scarcer of pristine and recovery, with negatives at γ of the whole. With fewer, every negative is
    used and the split moves inside the bounds (the band narrows as γ shrinks: with no negatives at
    all only α = 0.70, β = 0.30 is admissible), found by bisection on the SFT total. Targets aim
    ``policy.margin`` inside each bound (at most a quarter of the band's width γ), so that filling
    whole trajectories does not push a share across it.
    """
    if pristine <= 0 or recovery <= 0:
        # No admissible mix exists (the check will say so); keep what there is, negatives in proportion.
        budget = (pristine + recovery) * policy.gamma / (policy.alpha + policy.beta)
        return {PRISTINE: pristine, RECOVERY: recovery, NEGATIVE: min(negative, budget)}
    share = sft_pristine_target(policy)
    sft_total = min(pristine / share, recovery / (1 - share))
    wanted_negative = policy.gamma / (1 - policy.gamma) * sft_total
    if negative >= wanted_negative:
        plan = {PRISTINE: share * sft_total, RECOVERY: (1 - share) * sft_total, NEGATIVE: wanted_negative}
        if bound_violation(plan, policy) == 0.0:
            return plan
        negative = wanted_negative
    (alpha_lo, alpha_hi), (beta_lo, beta_hi) = policy.alpha_bounds, policy.beta_bounds

    def split_for(total_sft: float) -> tuple[float, float] | None:
        budget = total_sft + negative
        g = negative / budget
        if g > policy.gamma_max:
            return None
        inset = min(policy.margin, g / 4)
        lo = max(
            alpha_lo + inset,
            1 - g - beta_hi + inset,
            (alpha_lo + inset) * (1 - g),
            (total_sft - recovery) / budget,
        )
        hi = min(alpha_hi - inset, 1 - g - beta_lo - inset, (alpha_hi - inset) * (1 - g), pristine / budget)
        if lo > hi:
            return None
        a = min(max(share * (1 - g), lo), hi)
        return a * budget, total_sft - a * budget

    # Feasible SFT totals form an interval (too little SFT makes γ too large, too much narrows the
    # band past what the pools allow): scan for its top, then bisect to the boundary.
    steps = 256
    grid = [(pristine + recovery) * i / steps for i in range(steps, 0, -1)]
    top = next((t for t in grid if split_for(t) is not None), None)
    best = None if top is None else split_for(top)
    if top is not None and top < pristine + recovery:
        low, high = top, top + (pristine + recovery) / steps
        for _ in range(50):
            mid = (low + high) / 2
            found = split_for(mid)
            if found is None:
                high = mid
            else:
                low, best = mid, found
    if best is None:
        return {PRISTINE: 0.0, RECOVERY: 0.0, NEGATIVE: negative}
    return {PRISTINE: best[0], RECOVERY: best[1], NEGATIVE: negative}


@dataclass(frozen=True)
class MixtureRow:
    """One selected record of ``training_mixture``."""

    episode_id: str
    fixture_id: str | None
    role: str
    destination: str
    selected_target_tokens: int
    anchor: bool
    in_band: bool


@dataclass
class Mixture:
    """The selected rows, the accounting of everything considered, and realized shares."""

    rows: list[MixtureRow]
    dropped: dict[str, int]
    """Candidates not selected, by reason key (:data:`MIXTURE_DROP_REASONS`)."""
    considered: int
    targets: dict[str, float]
    realized_tokens: dict[str, int]
    realized_trajectories: dict[str, int]
    policy: MixturePolicy
    signals: dict[str, dict] = field(default_factory=dict)
    first_drops: dict[str, Drop] = field(default_factory=dict)
    """The first candidate dropped for each reason, for a person."""

    @property
    def token_shares(self) -> dict[str, float]:
        return token_shares(dict(self.realized_tokens))

    @property
    def trajectory_shares(self) -> dict[str, float]:
        return token_shares(dict(self.realized_trajectories))

    @property
    def sft_token_shares(self) -> dict[str, float]:
        """Pristine and recovery shares of the SFT rows: the mix the SFT optimizer trains on."""
        return sft_shares(dict(self.realized_tokens))

    def within_bounds(self) -> bool:
        """Every bound of :func:`bound_violation`, the SFT mix's α included."""
        return bound_violation(dict(self.realized_tokens), self.policy) == 0.0

    def summary(self) -> dict:
        return {
            "declared": {
                PRISTINE: self.policy.alpha,
                RECOVERY: self.policy.beta,
                NEGATIVE: self.policy.gamma,
            },
            "bounds": {PRISTINE: list(self.policy.alpha_bounds), RECOVERY: list(self.policy.beta_bounds)},
            "sft_bounds": {PRISTINE: list(self.policy.alpha_bounds)},
            "gamma_max": self.policy.gamma_max,
            "realized_token_shares": {k: round(v, 6) for k, v in self.token_shares.items()},
            "realized_sft_token_shares": {k: round(v, 6) for k, v in self.sft_token_shares.items()},
            "realized_trajectory_shares": {k: round(v, 6) for k, v in self.trajectory_shares.items()},
            "realized_tokens": dict(self.realized_tokens),
            "realized_trajectories": dict(self.realized_trajectories),
            "token_targets": {k: round(v, 3) for k, v in self.targets.items()},
            "within_bounds": self.within_bounds(),
            "considered": self.considered,
            "selected": len(self.rows),
            "dropped": dict(sorted(self.dropped.items())),
            "drop_examples": {reason: d.detail for reason, d in sorted(self.first_drops.items())},
        }


def mixture_class(candidate: Labelled) -> str | None:
    """The mixture class a candidate would fill (pristine, recovery, hard negative), or None."""
    if candidate.role == NEGATIVE or candidate.sink == NEGATIVE:
        return NEGATIVE
    if candidate.passed and candidate.role in (PRISTINE, RECOVERY):
        return candidate.role
    return None


def _fill_class(ordered: list[Labelled], tokens: dict[str, int], target: float) -> list[Labelled]:
    """First-fit in priority order: take a record when it still fits under ``target`` tokens."""
    chosen: list[Labelled] = []
    total = 0
    for candidate in ordered:
        if total + tokens[candidate.episode_id] <= target + 1e-9:
            chosen.append(candidate)
            total += tokens[candidate.episode_id]
    return chosen


def _repair_into_bounds(
    ordered: dict[str, list[Labelled]],
    chosen: dict[str, list[Labelled]],
    tokens: dict[str, int],
    policy: MixturePolicy,
    max_moves: int = 500,
) -> dict[str, list[Labelled]]:
    """Whole trajectories make shares lumpy on a small pool: add or drop single records (the move that
    most reduces the distance to the bounds; ties keep more tokens, then priority order) until the
    shares are inside or no move helps. A no-op when the first-fit already landed inside."""
    if not ordered[PRISTINE] or not ordered[RECOVERY]:
        return chosen  # no admissible mix exists; moving records around would only disguise that
    selected = {kind: {c.episode_id for c in chosen[kind]} for kind in ordered}
    totals = {kind: sum(tokens[e] for e in selected[kind]) for kind in ordered}
    for _ in range(max_moves):
        current = bound_violation(totals, policy)
        if current == 0.0:
            break
        best: tuple[float, int] | None = None
        move: tuple[str, str, int] | None = None
        for kind, pool in ordered.items():
            for candidate in pool:
                sign = -1 if candidate.episode_id in selected[kind] else 1
                trial = {**totals, kind: totals[kind] + sign * tokens[candidate.episode_id]}
                score = (bound_violation(trial, policy), -sum(trial.values()))
                if score[0] < current and (best is None or score < best):
                    best, move = score, (kind, candidate.episode_id, sign)
        if move is None:
            break
        kind, episode_id, sign = move
        (selected[kind].add if sign > 0 else selected[kind].discard)(episode_id)
        totals[kind] += sign * tokens[episode_id]
    return {kind: [c for c in pool if c.episode_id in selected[kind]] for kind, pool in ordered.items()}


def compose_mixture(
    candidates: Sequence[Labelled],
    assignments: Sequence[SplitAssignment],
    policy: MixturePolicy = MixturePolicy(),
    counter: TokenCounter = count_tokens,
    target_counter: TargetCounter | None = None,
) -> Mixture:
    """Select the training mixture from train-split candidates, in selected target tokens.

    Order of operations: keep train split only, and only what the license fence admits; classify
    (pristine / recovery admitted, hard negative); drop records with no selected target tokens;
    dedup by normalized action sequence and cap per fixture (anchors exempt); plan token targets
    (:func:`plan_token_targets`); fill each class first-fit in priority order (anchors, then fixtures
    in the informative P_inform band, then a seeded hash), then repair lumpy selections into the
    bounds. Every considered candidate is either selected or counted under a drop reason
    (:data:`MIXTURE_DROP_REASONS`; the first :class:`Drop` of each is kept in ``first_drops``).
    """
    split_of = {a.episode_id: a.split for a in assignments}
    signals = {s.fixture_id: s for s in fixture_signal(candidates, policy.k, policy.band)}
    dropped: Counter[str] = Counter()
    first_drops: dict[str, Drop] = {}

    def drop(episode_id: str, reason: str, detail: str) -> None:
        dropped[reason] += 1
        first_drops.setdefault(reason, Drop(reason, f"{episode_id}: {detail}"))

    pools: dict[str, list[Labelled]] = {PRISTINE: [], RECOVERY: [], NEGATIVE: []}
    tokens: dict[str, int] = {}
    for candidate in candidates:
        split = split_of.get(candidate.episode_id)
        kind = mixture_class(candidate)
        if split != TRAIN:
            drop(candidate.episode_id, "not_train_split", f"split {split}")
        elif not candidate.trainable_license:
            drop(candidate.episode_id, "license_not_trainable", f"license action {candidate.license_action}")
        elif kind is None:
            drop(candidate.episode_id, "not_a_mixture_class", f"sink {candidate.sink}, role {candidate.role}")
        else:
            tokens[candidate.episode_id] = measured_tokens(candidate, counter, target_counter)
            if tokens[candidate.episode_id] <= 0:
                drop(candidate.episode_id, "no_target_tokens", "no selected target tokens")
            else:
                pools[kind].append(candidate)
    for kind, pool in pools.items():
        selections = dedup_and_cap(pool, policy.cap_per_fixture, policy.seed)
        keep = {s.episode_id for s in selections if s.kept}
        for selection in selections:
            if selection.drop is not None:
                drop(selection.episode_id, selection.drop.reason, selection.drop.detail)
        pools[kind] = [c for c in pool if c.episode_id in keep]

    def priority(candidate: Labelled) -> tuple:
        signal = signals.get(candidate.fixture_id or "")
        in_band = bool(signal and signal.in_band)
        seeded = hashlib.sha256(f"{policy.seed}:{candidate.episode_id}".encode()).hexdigest()
        return (not candidate.anchor, not in_band, seeded)

    available = {kind: float(sum(tokens[c.episode_id] for c in pool)) for kind, pool in pools.items()}
    targets = plan_token_targets(available[PRISTINE], available[RECOVERY], available[NEGATIVE], policy)
    rows: list[MixtureRow] = []
    realized_tokens: dict[str, int] = {}
    realized_trajectories: dict[str, int] = {}
    ordered = {kind: sorted(pool, key=priority) for kind, pool in pools.items()}
    chosen = {kind: _fill_class(ordered[kind], tokens, targets[kind]) for kind in ordered}
    chosen = _repair_into_bounds(ordered, chosen, tokens, policy)
    for kind in (PRISTINE, RECOVERY, NEGATIVE):
        picked = {c.episode_id for c in chosen[kind]}
        for candidate in pools[kind]:
            if candidate.episode_id not in picked:
                drop(candidate.episode_id, "token_budget", f"the {kind} class is filled to its token target")
        realized_tokens[kind] = sum(tokens[c.episode_id] for c in chosen[kind])
        realized_trajectories[kind] = len(chosen[kind])
        for candidate in sorted(chosen[kind], key=lambda c: c.episode_id):
            signal = signals.get(candidate.fixture_id or "")
            rows.append(
                MixtureRow(
                    episode_id=candidate.episode_id,
                    fixture_id=candidate.fixture_id,
                    role=kind,
                    destination=PREFERENCE if kind == NEGATIVE else SFT,
                    selected_target_tokens=tokens[candidate.episode_id],
                    anchor=candidate.anchor,
                    in_band=bool(signal and signal.in_band),
                )
            )
    return Mixture(
        rows=rows,
        dropped=dict(dropped),
        considered=len(candidates),
        targets=targets,
        realized_tokens=realized_tokens,
        realized_trajectories=realized_trajectories,
        policy=policy,
        signals={
            f: {
                "pass_rate": s.pass_rate,
                "p_inform": s.p_inform,
                "in_band": s.in_band,
                "distinct": s.distinct_sequences,
            }
            for f, s in signals.items()
        },
        first_drops=first_drops,
    )
