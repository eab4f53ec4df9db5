"""Tokenize one ``preference_pairs`` row into scored spans for span DPO (fine-tuning 16.8).

Curation carries both whole episodes per pair and the assistant events each side scores
(``chosen_turns`` / ``rejected_turns``). Each side is rendered with the same serializer and
masks as SFT (:mod:`trajectory_platform.training.data.serialize`, :mod:`~.masking`), with the pair's
turns as the selected targets, so a DPO score covers exactly the tokens an SFT target would, and
the conditioning prefix (every token before the branch turn) must render to identical tokens on
both sides. A pair that does not (a side that is not one verified transcript, a compacted
history, no target, a prefix that renders differently) is refused with a
:class:`~trajectory_platform.traces.drops.Drop`; nothing is patched. The stage over a whole table
is :mod:`trajectory_platform.training.data.preference_dataset`; the optimizer wing only reads the
token rows (:meth:`PreferencePair.from_row`).
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from transformers import PreTrainedTokenizerBase

from trajectory_platform.traces.drops import Drop
from trajectory_platform.traces.record import Episode
from trajectory_platform.training.data.labels import target_positions
from trajectory_platform.training.data.mask_settings import MaskConfig
from trajectory_platform.training.data.masking import MaskedExample, Misaligned, TokenIds, mask_plan
from trajectory_platform.training.data.serialize import plan_examples, select_targets

SIDES = ("chosen", "rejected")


@dataclass(frozen=True)
class PreferencePair:
    """One admitted comparison: chosen (preferred) and rejected token ids with their scored indices."""

    pair_id: str
    chosen_ids: tuple[int, ...]
    chosen_selected: tuple[int, ...]
    rejected_ids: tuple[int, ...]
    rejected_selected: tuple[int, ...]

    @classmethod
    def from_row(cls, row: dict[str, Any], index: int) -> PreferencePair:
        """Read a token row (``preference_dataset``); a selected index must have a preceding position."""
        pair = cls(
            pair_id=str(row.get("pair_id", index)),
            chosen_ids=tuple(int(t) for t in row["chosen_input_ids"]),
            chosen_selected=tuple(int(t) for t in row["chosen_selected"]),
            rejected_ids=tuple(int(t) for t in row["rejected_input_ids"]),
            rejected_selected=tuple(int(t) for t in row["rejected_selected"]),
        )
        for name, ids, selected in (
            ("chosen", pair.chosen_ids, pair.chosen_selected),
            ("rejected", pair.rejected_ids, pair.rejected_selected),
        ):
            if not selected:
                raise ValueError(f"pair {pair.pair_id}: {name} has no selected tokens")
            if min(selected) < 1 or max(selected) >= len(ids):
                raise ValueError(f"pair {pair.pair_id}: {name} selected index outside 1..{len(ids) - 1}")
        return pair


class PairRefused(ValueError):
    """A preference row that cannot become a scored token pair; ``drop`` says why."""

    def __init__(self, reason: str, detail: str) -> None:
        super().__init__(f"{reason}: {detail}")
        self.drop = Drop(reason, detail)


def is_episode_pair(row: dict[str, Any]) -> bool:
    """Whether ``row`` is one of curation's episode pairs (not yet tokenized)."""
    return "chosen_input_ids" not in row and "chosen" in row and "rejected" in row


def _side(
    side: str,
    row: dict[str, Any],
    tokenizer: PreTrainedTokenizerBase,
    config: MaskConfig,
    token_ids: TokenIds | None,
) -> MaskedExample:
    """One side rendered and masked like an SFT example, with the pair's turns as its targets."""
    try:
        episode = Episode.from_dict(row[side])
        turns = [int(t) for t in row[f"{side}_turns"] or []]
    except (KeyError, TypeError, ValueError, AttributeError) as error:
        kind = type(error).__name__
        raise PairRefused(
            "unreadable_pair", f"{side} episode or turns missing or malformed ({kind})"
        ) from None
    try:
        plans = plan_examples(episode, select_targets(episode, target_turns=turns), config.rationale)
    except json.JSONDecodeError:
        raise PairRefused(
            "embedded_json_unreadable",
            f"{side} episode {episode.episode_id}: a tool schema or delivered-input manifest is not JSON",
        ) from None
    if len(plans) != 1:
        raise PairRefused(
            "not_one_transcript",
            f"{side} episode {episode.episode_id} renders to {len(plans)} examples; a pair needs one "
            "verified transcript per side (history rewritten by compaction or pruning, or no assistant turn)",
        )
    try:
        return mask_plan(plans[0], tokenizer, config, token_ids)
    except Misaligned as error:  # its detail may quote rendered text: only the reason goes on
        raise PairRefused(
            error.reason,
            f"{side} episode {episode.episode_id} fails the SFT mask verification ({error.reason})",
        ) from None


def _branch_start(side: str, example: MaskedExample, branch: int) -> int:
    """The first token of the branch turn (its role token): every token before it is conditioning."""
    starts = [s.start for s in example.spans if s.event_index == branch and s.kind == "assistant"]
    if not starts:
        raise PairRefused(
            "branch_turn_missing",
            f"{side} episode {example.episode_id} renders no assistant turn at event {branch}",
        )
    return starts[0]


def pair_token_row(
    row: dict[str, Any],
    tokenizer: PreTrainedTokenizerBase,
    config: MaskConfig | None = None,
    token_ids: TokenIds | None = None,
) -> dict[str, Any]:
    """One ``PREFERENCE_PAIRS_SCHEMA`` row -> one ``PREFERENCE_DATASET_SCHEMA`` row (or
    :class:`PairRefused`)."""
    config = config or MaskConfig()
    token_ids = token_ids or TokenIds.of(tokenizer)
    pair_id = row.get("pair_id")
    branch = row.get("branch_event_index")
    if pair_id is None or branch is None:
        raise PairRefused("unreadable_pair", "pair_id or branch_event_index missing")
    chosen, rejected = (_side(side, row, tokenizer, config, token_ids) for side in SIDES)
    prefix = _branch_start("chosen", chosen, branch)
    if (
        _branch_start("rejected", rejected, branch) != prefix
        or chosen.input_ids[:prefix] != rejected.input_ids[:prefix]
    ):
        raise PairRefused(
            "prefix_tokens_differ",
            f"pair {pair_id}: the conditioning prefix before the branch at event {branch} renders to "
            "different tokens on the two sides",
        )
    out: dict[str, Any] = {
        "pair_id": str(pair_id),
        "split": row.get("split"),
        "rule": row.get("rule"),
        "chosen_episode_id": chosen.episode_id,
        "rejected_episode_id": rejected.episode_id,
        "branch_event_index": int(branch),
        "prefix_tokens": prefix,
    }
    for side, example in zip(SIDES, (chosen, rejected), strict=True):
        selected = target_positions(example.labels)
        if min(selected) < prefix:
            raise PairRefused(
                "target_before_branch",
                f"pair {pair_id}: a {side} turn before the branch at event {branch} is selected "
                "(shared context carries no score)",
            )
        out |= {
            f"{side}_input_ids": example.input_ids,
            f"{side}_labels": example.labels,
            f"{side}_selected": list(selected),
            f"{side}_spans_json": json.dumps(example.spans_as_dicts(), separators=(",", ":")),
        }
    return out


def pair_from_row(
    row: dict[str, Any], tokenizer: PreTrainedTokenizerBase, config: MaskConfig | None = None
) -> PreferencePair:
    """One ``PREFERENCE_PAIRS_SCHEMA`` row -> token ids and selected indices for both sides."""
    return PreferencePair.from_row(pair_token_row(row, tokenizer, config), 0)
