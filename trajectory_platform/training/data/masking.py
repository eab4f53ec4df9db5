"""Selected-target masks over rendered examples (fine-tuning 16.4), verified, never patched.

Each :class:`~trajectory_platform.training.data.serialize.ExamplePlan` is rendered **once** with the
tokenizer's own chat template and tokenized once with offsets. Turn spans are then found in the
token array itself -- every message starts with its role token, so message k spans from the k-th
role token to the next -- which keeps the work linear in the conversation length (no per-turn
re-render, the quadratic pattern of some trainers).

Labels follow the Hugging Face convention: aligned with ``input_ids``, ``-100`` = no loss, and the
model shifts once internally. A selected assistant turn's target is its body after the role label
(the role label is supplied by the runtime as the generation prompt), through its authentic
``eos`` terminator; rationale is target, context or removed as declared; a turn recorded as truncated
is excluded (default) or supervised on its prefix only, and never gets a synthetic terminator.

Verification, per example (a failure raises :class:`Misaligned` carrying a
:class:`~trajectory_platform.traces.drops.Drop`; :func:`mask_plans` drops the example and counts its
reason):

- ``role_token_count``: the role tokens found do not match the turns (a role delimiter inside
  content, or a template that does not open every message with its role token);
- ``role_token_mismatch``: a span opens with another role's token;
- ``offsets``: a token straddles a span boundary, or a span's tokens lose characters (they do not
  decode to the characters they cover, and the detail names the first gap in their offsets);
- ``decode_check``: a span does not decode to its rendered characters (no gap: the tokens rewrote
  them), or lost its content;
- ``terminator``: a complete selected turn does not end with exactly one eos token;
- ``generation_blocks``: a template without the platform's role tokens marks a different number of
  ``{% generation %}`` blocks than there are assistant turns;
- ``first_position_target``: position 0 carries a target (nothing precedes it to predict it);
- ``no_target``: N_active = 0 after masking;
- ``over_max_length``: longer than the declared maximum (never truncated silently);
- ``compacted_prefix_unknown``: the call's manifest says its input was compacted but neither the
  manifest nor the event log shows what it saw.
"""

from __future__ import annotations

import bisect
import contextlib
import itertools
from collections import Counter
from collections.abc import Callable, Iterable
from dataclasses import asdict, dataclass, field
from typing import Any, cast

from transformers import PreTrainedTokenizerBase
from transformers.utils.chat_template_utils import render_jinja_template

from trajectory_platform.traces.drops import Drop, Tally
from trajectory_platform.training.data import chat_template as ct
from trajectory_platform.training.data.labels import IGNORE_INDEX, target_count
from trajectory_platform.training.data.mask_settings import MaskConfig
from trajectory_platform.training.data.serialize import (
    OBSERVATION_KINDS,
    ExamplePlan,
)

MASK_DROP_REASONS = (
    "role_token_count",
    "role_token_mismatch",
    "offsets",
    "decode_check",
    "terminator",
    "generation_blocks",
    "first_position_target",
    "no_target",
    "over_max_length",
    "compacted_prefix_unknown",
)
"""Every reason an example is dropped for (the module docstring says what each means)."""

# transformers annotates render_jinja_template ``-> str``, but it returns (rendered texts, generation
# (start, end) spans per conversation); its keyword arguments include the template's variables.
_render_jinja_template = cast(
    "Callable[..., tuple[list[str], list[list[tuple[int, int]]]]]", render_jinja_template
)


@dataclass
class Span:
    """One rendered turn in token coordinates; ``target_*`` is the supervised sub-range (or empty)."""

    event_index: int | None
    kind: str
    start: int
    end: int
    target_start: int
    target_end: int


@dataclass
class MaskedExample:
    """One verified training example."""

    example_id: str
    episode_id: str
    input_ids: list[int]
    labels: list[int]
    spans: list[Span]
    invocations: list[int]
    rationale_tokens: int = 0

    @property
    def n_tokens(self) -> int:
        return len(self.input_ids)

    @property
    def n_targets(self) -> int:
        return target_count(self.labels)

    @property
    def observation_tokens(self) -> int:
        return sum(s.end - s.start for s in self.spans if s.kind in OBSERVATION_KINDS)

    def spans_as_dicts(self) -> list[dict[str, Any]]:
        return [asdict(s) for s in self.spans]


class Misaligned(Exception):
    """An example that failed verification; its :class:`~trajectory_platform.traces.drops.Drop` says
    why (``drop.reason`` is the counted key, one of the module docstring's)."""

    def __init__(self, drop: Drop) -> None:
        super().__init__(f"{drop.reason}: {drop.detail}")
        self.drop = drop

    @property
    def reason(self) -> str:
        return self.drop.reason

    @property
    def detail(self) -> str:
        return self.drop.detail


@dataclass
class TokenIds:
    """The special-token ids masking relies on, resolved once per tokenizer."""

    roles: dict[int, str]
    eos: int
    reasoning_close: int

    @classmethod
    def of(cls, tokenizer: PreTrainedTokenizerBase) -> TokenIds | None:
        """The platform template's ids, or ``None`` for a tokenizer without its role tokens."""
        vocab = tokenizer.get_vocab()
        needed = [*ct.ROLE_TOKENS.values(), ct.REASONING_CLOSE, ct.END_TURN]
        if any(token not in vocab for token in needed) or tokenizer.eos_token != ct.END_TURN:
            return None
        roles = {vocab[token]: role for role, token in ct.ROLE_TOKENS.items()}
        return cls(roles=roles, eos=tokenizer.eos_token_id, reasoning_close=vocab[ct.REASONING_CLOSE])


def render(
    plan: ExamplePlan, tokenizer: PreTrainedTokenizerBase, with_blocks: bool = True
) -> tuple[str, list[tuple[int, int]]]:
    """The example's text, rendered once with the tokenizer's own chat template, and the character
    spans of its ``{% generation %}`` blocks (empty when the template has none, or when
    ``with_blocks`` is off: the platform template's spans come from its role tokens, and tracking
    the blocks costs a third of the render)."""
    template = tokenizer.get_chat_template()
    rendered, blocks = _render_jinja_template(
        conversations=[[t.message for t in plan.turns]],
        tools=plan.tools or None,
        chat_template=template,
        return_assistant_tokens_mask=with_blocks and "generation" in template,
        **tokenizer.special_tokens_map,
    )
    return rendered[0], [(start, end) for start, end in (blocks[0] if blocks else [])]


@dataclass(frozen=True)
class _Tokens:
    """A rendered text's token ids, with the characters each token covers looked up on demand.

    A fast tokenizer's offsets stay in its Rust ``Encoding`` until asked for: span verification
    needs only the tokens at span edges, and converting every token's offsets to Python tuples
    costs a tenth of the tokenization itself.
    """

    ids: list[int]
    token_chars: Callable[[int], tuple[int, int] | None]
    all_offsets: Callable[[], list[tuple[int, int]]]

    def chars(self, token: int) -> tuple[int, int]:
        """Characters [start, end) of ``token``; a token without characters cannot be verified."""
        found = self.token_chars(token)
        if found is None:
            raise Misaligned(Drop("offsets", f"token {token} covers no characters"))
        return found


def _check_span(
    text: str, tokens: _Tokens, start: int, end: int, tokenizer: PreTrainedTokenizerBase, content: str
) -> None:
    """Tokens [start, end) reproduce exactly the characters they cover, and own them.

    No earlier token may reach into the span (byte-level tokens of one multi-byte character may
    overlap each other, but not across a span edge). The span's tokens, decoded alone, must give
    back its characters character for character and contain the turn's content: a tokenizer that
    drops or rewrites characters fails here. When one does, the reason names the first token that
    leaves a gap (``offsets``), else the decode (``decode_check``).
    """
    (first, _), (_, last) = tokens.chars(start), tokens.chars(end - 1)
    if start > 0 and tokens.chars(start - 1)[1] > first:
        raise Misaligned(Drop("offsets", f"token {start - 1} straddles the span boundary at token {start}"))
    decoded = _decode(tokenizer, tokens.ids[start:end])
    if decoded == text[first:last] and (not content or content in decoded):
        return
    offsets = tokens.all_offsets()
    pairs = zip(offsets[start : end - 1], offsets[start + 1 : end], strict=True)
    gap = next((t for t, (before, at) in enumerate(pairs, start + 1) if at[0] > before[1]), None)
    if gap is not None:
        raise Misaligned(Drop("offsets", f"gap before token {gap} at char {offsets[gap][0]}"))
    raise Misaligned(Drop("decode_check", f"tokens {start}:{end} decode to {decoded[:60]!r}"))


# A fast tokenizer's Rust backend is called directly where the Python wrapper's argument and
# result conversion cost as much as the work itself (the decode runs once per span). Both give
# the same ids, offsets and text as the wrapper with these options; slow tokenizers use it.


def _encode(tokenizer: PreTrainedTokenizerBase, text: str) -> _Tokens:
    """``text``'s tokens, no special tokens added."""
    backend = getattr(tokenizer, "backend_tokenizer", None)
    if backend is not None:
        encoding = backend.encode(text, add_special_tokens=False)
        return _Tokens(encoding.ids, encoding.token_to_chars, lambda: encoding.offsets)
    out = tokenizer(text, add_special_tokens=False, return_offsets_mapping=True)
    offsets = [(int(a), int(b)) for a, b in out["offset_mapping"]]
    return _Tokens(out["input_ids"], offsets.__getitem__, lambda: offsets)


def _decode(tokenizer: PreTrainedTokenizerBase, ids: list[int]) -> str:
    """``ids`` as text, special tokens kept, no clean-up."""
    backend = getattr(tokenizer, "backend_tokenizer", None)
    if backend is not None:
        return str(backend.decode(ids, skip_special_tokens=False))
    return cast(str, tokenizer.decode(ids, skip_special_tokens=False, clean_up_tokenization_spaces=False))


def _token_range(starts: list[int], ends: list[int], char_start: int, char_end: int) -> tuple[int, int]:
    """Tokens covering characters [char_start, char_end) (``starts``/``ends``: token char offsets).

    A token straddling either edge means the template text and the span disagree: misaligned.
    """
    first = bisect.bisect_right(ends, char_start)
    last = bisect.bisect_left(starts, char_end, lo=first)
    head_straddles = first < len(starts) and starts[first] < char_start
    if head_straddles or (last > first and ends[last - 1] > char_end):
        raise Misaligned(
            Drop("offsets", f"a token straddles the span boundary at chars {char_start}:{char_end}")
        )
    return first, last


def _positions(ids: list[int], wanted: Iterable[int]) -> list[int]:
    """Positions of the tokens in ``wanted``, ascending: a C-level ``list.index`` search per
    occurrence (a few per turn) instead of a Python test per token."""
    found = []
    for token in wanted:
        at = -1
        with contextlib.suppress(ValueError):
            while True:
                at = ids.index(token, at + 1)
                found.append(at)
    return sorted(found)


def _native_spans(
    plan: ExamplePlan,
    tokenizer: PreTrainedTokenizerBase,
    config: MaskConfig,
    token_ids: TokenIds,
    text: str,
    tokens: _Tokens,
) -> tuple[list[Span], int]:
    """Spans from the platform template's role tokens (every turn, observations included)."""
    ids = tokens.ids
    starts = _positions(ids, token_ids.roles)
    if len(starts) != len(plan.turns):
        raise Misaligned(Drop("role_token_count", f"{len(starts)} role tokens for {len(plan.turns)} turns"))
    spans: list[Span] = []
    rationale_tokens = 0
    for k, turn in enumerate(plan.turns):
        start, end = starts[k], (starts[k + 1] if k + 1 < len(starts) else len(ids))
        if token_ids.roles[ids[start]] != turn.message["role"]:
            raise Misaligned(
                Drop(
                    "role_token_mismatch",
                    f"turn {k} is {turn.message['role']}, token says {token_ids.roles[ids[start]]}",
                )
            )
        _check_span(text, tokens, start, end, tokenizer, turn.message.get("content") or "")
        target_start = target_end = start
        if turn.kind == "assistant":
            body = ids[start + 1 : end]
            complete = bool(body) and body[-1] == token_ids.eos and body.count(token_ids.eos) == 1
            if not turn.truncated and not complete:
                raise Misaligned(Drop("terminator", f"turn {k} does not end with exactly one eos"))
            if turn.truncated and token_ids.eos in body:
                raise Misaligned(Drop("terminator", f"truncated turn {k} carries an eos"))
            after_reasoning = start + 1
            if turn.message.get("reasoning_content"):
                after_reasoning = start + 1 + body.index(token_ids.reasoning_close) + 1
                rationale_tokens += after_reasoning - start - 1
            if turn.target and (not turn.truncated or config.truncation == "prefix"):
                target_start = start + 1 if config.rationale == "target" else after_reasoning
                target_end = end
        spans.append(Span(turn.event_index, turn.kind, start, end, target_start, target_end))
    return spans, rationale_tokens


def _generic_spans(
    plan: ExamplePlan,
    tokenizer: PreTrainedTokenizerBase,
    config: MaskConfig,
    text: str,
    blocks: list[tuple[int, int]],
    tokens: _Tokens,
) -> tuple[list[Span], int]:
    """Spans for any Hugging Face chat template with ``{% generation %}`` blocks.

    Assistant turns are the template's generation blocks (one per assistant message, in order);
    observations are located by their content, searched forward in the rendered text; everything
    else is context. A complete selected turn must end with a special token (the template's
    terminator inside its generation block).
    """
    assistant = [t for t in plan.turns if t.kind == "assistant"]
    if len(blocks) != len(assistant):
        raise Misaligned(
            Drop(
                "generation_blocks",
                f"{len(blocks)} generation blocks for {len(assistant)} "
                "assistant turns (does the template mark them?)",
            )
        )
    terminators = set(tokenizer.all_special_ids)
    ids, offsets = tokens.ids, tokens.all_offsets()
    starts, ends = [o[0] for o in offsets], [o[1] for o in offsets]
    spans: list[Span] = []
    rationale_tokens, cursor, block = 0, 0, 0
    for turn in plan.turns:
        if turn.kind != "assistant":
            content = turn.message.get("content") or ""
            found = text.find(content, cursor) if content else -1
            if found < 0:
                continue
            start, end = _token_range(starts, ends, found, found + len(content))
            cursor = found + len(content)
            spans.append(Span(turn.event_index, turn.kind, start, end, start, start))
            continue
        char_start, char_end = blocks[block]
        block += 1
        start, end = _token_range(starts, ends, char_start, char_end)
        cursor = char_end
        _check_span(text, tokens, start, end, tokenizer, turn.message.get("content") or "")
        ends_special = end > start and ids[end - 1] in terminators
        if not turn.truncated and not ends_special:
            raise Misaligned(
                Drop("terminator", "the generation block does not end with the template's end token")
            )
        target_start, target_end = start, end
        reasoning = turn.message.get("reasoning_content")
        found = text.find(reasoning, char_start, char_end) if reasoning else -1
        if found >= 0 and reasoning:  # found only when there is a reasoning text
            after = _token_range(starts, ends, char_start, found + len(reasoning))[1]
            rationale_tokens += after - start
            target_start = start if config.rationale == "target" else after
        if turn.truncated:  # the template may have appended its terminator; it is never a target
            target_end = end - 1 if ends_special else end
        if not turn.target or (turn.truncated and config.truncation == "exclude"):
            target_start = target_end = start
        spans.append(Span(turn.event_index, turn.kind, start, end, target_start, target_end))
    return spans, rationale_tokens


def mask_plan(
    plan: ExamplePlan,
    tokenizer: PreTrainedTokenizerBase,
    config: MaskConfig,
    token_ids: TokenIds | None = None,
) -> MaskedExample:
    """Render, tokenize, locate spans, verify and mask one example; raises :class:`Misaligned`.

    ``token_ids`` (resolved from the tokenizer when not given) are the platform template's ids;
    a tokenizer without them gets its spans from its template's generation blocks, so any Hugging
    Face chat template that marks them works through the same code.
    """
    if plan.problem is not None:
        raise Misaligned(Drop(plan.problem, f"calls {plan.invocations}"))
    token_ids = token_ids or TokenIds.of(tokenizer)
    text, blocks = render(plan, tokenizer, with_blocks=token_ids is None)
    tokens = _encode(tokenizer, text)
    ids = tokens.ids
    if config.max_length is not None and len(ids) > config.max_length:
        raise Misaligned(Drop("over_max_length", f"{len(ids)} tokens > {config.max_length}"))
    if token_ids is not None:
        spans, rationale_tokens = _native_spans(plan, tokenizer, config, token_ids, text, tokens)
    else:
        spans, rationale_tokens = _generic_spans(plan, tokenizer, config, text, blocks, tokens)
    labels = [IGNORE_INDEX] * len(ids)
    for span in spans:
        labels[span.target_start : span.target_end] = ids[span.target_start : span.target_end]
    if labels[0] != IGNORE_INDEX:
        raise Misaligned(Drop("first_position_target", "position 0 has no preceding prediction"))
    example = MaskedExample(
        plan.example_id, plan.episode_id, ids, labels, spans, list(plan.invocations), rationale_tokens
    )
    if example.n_targets == 0:
        raise Misaligned(Drop("no_target", "N_active = 0: no selected target survives masking"))
    return example


def label_misalignment(input_ids: list[int], labels: list[int]) -> int | None:
    """First position whose label is neither ``-100`` nor the token at that position, else ``None``.

    Labels are aligned with ``input_ids`` and the model shifts once; a loader that shifts them
    itself (a double shift) makes every target disagree with its own position, which this finds.
    """
    if len(input_ids) != len(labels):
        return min(len(input_ids), len(labels))
    return next(
        (
            t
            for t, (tok, lab) in enumerate(zip(input_ids, labels, strict=True))
            if lab != IGNORE_INDEX and lab != tok
        ),
        None,
    )


def marked_text(
    tokenizer: PreTrainedTokenizerBase,
    input_ids: list[int],
    labels: list[int],
    open_mark: str = "[[",
    close_mark: str = "]]",
) -> str:
    """The decoded example with every run of target positions wrapped in marks (for people)."""
    parts: list[str] = []
    run: list[int] = []
    is_target = False
    for token, label in [*zip(input_ids, labels, strict=True), (None, IGNORE_INDEX)]:
        target = label != IGNORE_INDEX
        if run and (target != is_target or token is None):
            # a flat list of ids decodes to one string
            text = cast(
                str, tokenizer.decode(run, skip_special_tokens=False, clean_up_tokenization_spaces=False)
            )
            parts.append(f"{open_mark}{text}{close_mark}" if is_target else text)
            run = []
        if token is None:  # the end sentinel: its run was flushed just above
            break
        run.append(token)
        is_target = target
    return "".join(parts)


def audit_example(input_ids: list[int], labels: list[int], spans: list[dict[str, Any]]) -> list[str]:
    """Structural problems of a stored example, checked without the tokenizer (asset checks).

    ``n_active``: no target; ``offsets``: labels not aligned with ids, spans out of order,
    overlapping or past the end, or a target range outside its span;
    ``target_in_context``: a label outside every selected assistant span (an observation, system
    or user position carrying loss).
    """
    problems = []
    if not target_count(labels):
        problems.append("n_active")
    ordered = (
        bool(spans)
        and spans[-1]["end"] <= len(input_ids)
        and all(a["end"] <= b["start"] for a, b in itertools.pairwise(spans))
    )
    inside = all(s["start"] <= s["target_start"] <= s["target_end"] <= s["end"] for s in spans)
    if label_misalignment(input_ids, labels) is not None or not ordered or not inside:
        problems.append("offsets")
    selected = [range(s["target_start"], s["target_end"]) for s in spans if s["kind"] == "assistant"]
    allowed = {t for positions in selected for t in positions}
    if any(label != IGNORE_INDEX and t not in allowed for t, label in enumerate(labels)):
        problems.append("target_in_context")
    return problems


@dataclass
class DatasetStats:
    """Token accounting of a masked dataset (notebook 16.1 quantities, summed over examples)."""

    examples: int = 0
    stored_tokens: int = 0
    selected_targets: int = 0
    observation_tokens: int = 0
    rationale_tokens: int = 0
    prediction_terms: int = 0

    def add(self, example: MaskedExample) -> None:
        self.examples += 1
        self.stored_tokens += example.n_tokens
        self.selected_targets += example.n_targets
        self.observation_tokens += example.observation_tokens
        self.rationale_tokens += example.rationale_tokens
        self.prediction_terms += example.n_tokens - 1

    def as_dict(self) -> dict[str, Any]:
        return {
            "examples": self.examples,
            "stored_tokens": self.stored_tokens,
            "selected_targets": self.selected_targets,
            "target_share": target_share(self.stored_tokens, self.selected_targets),
            "dilution_factor": dilution_factor(self.stored_tokens, self.selected_targets, self.examples),
            "observation_tokens": self.observation_tokens,
            "observation_share": self.observation_tokens / self.stored_tokens if self.stored_tokens else 0.0,
            "rationale_tokens": self.rationale_tokens,
        }


def target_share(stored_tokens: int, selected_targets: int) -> float:
    """N_active / T: the fraction of stored positions that carry a target."""
    return selected_targets / stored_tokens if stored_tokens else 0.0


def dilution_factor(stored_tokens: int, selected_targets: int, examples: int = 1) -> float:
    """(T - 1) / N_active: how much an unmasked causal loss would shrink each target's weight.

    Summed over ``examples`` (each loses its first position to the missing preceding prediction).
    """
    return (stored_tokens - examples) / selected_targets if selected_targets else float("inf")


@dataclass
class MaskResult:
    """Examples kept, the dropped ones counted by reason (with the first :class:`Drop` of each
    reason, for a person), and stats."""

    examples: list[MaskedExample] = field(default_factory=list)
    drops: Counter[str] = field(default_factory=Counter)
    first_drops: dict[str, Drop] = field(default_factory=dict)
    stats: DatasetStats = field(default_factory=DatasetStats)

    def add_drop(self, drop: Drop) -> None:
        """Count ``drop`` under its reason; the first one with a detail is the reason's example."""
        self.drops[drop.reason] += 1
        if drop.detail:
            self.first_drops.setdefault(drop.reason, drop)

    @property
    def drop_details(self) -> dict[str, str]:
        """Reason -> the first dropped example's detail (the manifest's ``drop_examples``)."""
        return {reason: drop.detail for reason, drop in self.first_drops.items()}

    def tally(self) -> Tally:
        """Examples planned (in), kept, and dropped by reason."""
        return Tally.of(len(self.examples), self.drops)


def mask_plans(
    plans: Iterable[ExamplePlan],
    tokenizer: PreTrainedTokenizerBase,
    config: MaskConfig,
    result: MaskResult | None = None,
) -> MaskResult:
    """Mask every plan; misaligned examples are dropped and counted, never patched."""
    result = result or MaskResult()
    token_ids = TokenIds.of(tokenizer)
    for plan in plans:
        try:
            example = mask_plan(plan, tokenizer, config, token_ids)
        except Misaligned as exc:
            result.add_drop(Drop(exc.drop.reason, f"{plan.example_id}: {exc.drop.detail}"))
            continue
        result.examples.append(example)
        result.stats.add(example)
    return result
