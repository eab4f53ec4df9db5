"""Schema augmentation as declared, versioned transformations with lineage (fine-tuning 16.7.1, table 9).

A policy that sees one static tool signature memorizes its keys instead of reading the schema in
its prompt. Each transformation here derives a new episode from an admitted one and keeps the
transcript coherent:

- ``rename``: tool and argument identifiers get fresh names from the tokenizer's identifier
  inventory (one piece or two: :func:`~trajectory_platform.training.data.corpus.fresh_name`),
  changed *together* in the schema, every call (name and argument keys), the delivered-input
  manifests, and every text that mentions them (observations, error messages, prompts, prose).
  Snake_case identifiers are replaced as whole words anywhere; a plain-word identifier (``path``)
  only where it is quoted (``'path'``, ``"path"``, `` `path` ``), as error messages cite
  arguments, so ordinary prose keeps its meaning. Values and observations are
  otherwise unchanged: a rename is meaning-preserving (the runtime's adapter maps the new names).
- ``reorder``: tool declarations in a different (seeded) order; calls and their dependencies are
  untouched.
- ``distractor``: extra read-only tool declarations with coherent names and schemas that no call
  uses (longer prompt, a selection decision).
- ``remove_optional``: drop an optional argument from a schema (every declared version of the
  tool, and every schema text that quotes it). An argument no call used is removed with no further
  evidence. When every optional argument was used, the calls that used it are rewritten without
  it and the episode's dispatched calls are *replayed* in order in the gym: a fresh S0 workspace,
  the runtime's own validation, tools and truncation
  (:func:`~trajectory_platform.gym.runtime.replay_calls`). Each observation from the first
  rewritten call on is what the real tool returns without the argument, never a stale historical
  result. A validator refusal of a rewritten call is re-derived by the runtime's validator
  (``refused_call_uses_argument`` when the call would now run). The derived record is refused
  (a counted reason), never patched, when the replay cannot stand for the parent: an observation
  before the first rewritten call differs from the recorded one
  (``replay_diverges_before_rewrite``: an injected fault or a nondeterministic tool), a later
  call's status or exit code flips (``later_call_outcome_changed``: the turns after it were
  conditioned on it), or the sealed oracle's verdict on the final workspace differs from the
  parent's (``oracle_verdict_changed``). Episodes without a gym fixture (imported real logs)
  cannot be replayed: ``needs_fresh_evidence``.

A derived episode names its parent in ``extra_json`` (``parent_episode_id``, the curation
convention by which splits resolve a derived record to its root) together with the transformation
and its version; its id is ``<parent>~<kind>-<digest>``; it keeps the parent's split.
"""

from __future__ import annotations

import copy
import dataclasses
import hashlib
import json
import random
import re
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

from trajectory_platform.gym.fixtures import Fixture
from trajectory_platform.gym.library import get_fixture
from trajectory_platform.gym.oracle import run_oracle
from trajectory_platform.gym.runtime import (
    REFUSED,
    RuntimeConfig,
    approx_tokens,
    call_tags,
    dispatched_calls,
    recorded_config,
    refusal_reason,
    replay_calls,
    summary_lines,
)
from trajectory_platform.gym.sandbox import unified_diff
from trajectory_platform.gym.tools import MANIFEST_VERSIONS, TOOL_FAMILIES, manifest
from trajectory_platform.traces.drops import Drop, Tally
from trajectory_platform.traces.record import Episode, Event, ToolCall, ToolSpec, canonical_json
from trajectory_platform.training.data.corpus import fresh_name, identifier
from trajectory_platform.training.data.derived_ids import derived_id
from trajectory_platform.training.data.mask_settings import Augmentation
from trajectory_platform.training.data.masked_dataset import EpisodeInput
from trajectory_platform.training.data.serialize import argument_keys, event_of_dict, transcript_tokens

AUGMENT_VERSION = "schema-augment-v1"
TRANSFORMATIONS = ("rename", "reorder", "distractor", "remove_optional")
PARENT_KEY = "parent_episode_id"
SKIP_REASONS = (
    "no_tools",
    "fewer_than_two_tools",
    "no_fresh_identifier",
    "no_optional_argument",
    "needs_fresh_evidence",
    "fixture_not_in_gym",
    "fixture_digest_mismatch",
    "call_without_delivered_manifest",
    "observation_without_delivered_call",
    "refused_call_uses_argument",
    "replayed_call_refused",
    "replay_diverges_before_rewrite",
    "later_call_outcome_changed",
    "parent_outcome_unrecorded",
    "oracle_verdict_changed",
    "same_as_earlier_copy",
)
"""Every reason a transformation skips an episode (counted as ``<kind>:<reason>``)."""


class Skip(Exception):
    """The transformation does not apply to this episode; its
    :class:`~trajectory_platform.traces.drops.Drop` says why (``drop.reason`` is counted, qualified by
    the transformation: ``<kind>:<reason>``). A detail names indices, ids and counts, never text."""

    def __init__(self, drop: Drop) -> None:
        super().__init__(f"{drop.reason}: {drop.detail}" if drop.detail else drop.reason)
        self.drop = drop


def _schema(tool: ToolSpec) -> dict:
    return json.loads(tool.parameters_json) if tool.parameters_json else {}


def _arguments(arguments: str | None) -> dict | None:
    try:
        value = json.loads(arguments) if arguments else None
    except json.JSONDecodeError:
        return None
    return value if isinstance(value, dict) else None


def _all_text(episode: Episode) -> str:
    return canonical_json(episode.to_dict())


def _fresh_identifier(
    rng: random.Random, taken: set[str], text: str, draw: Callable[[random.Random], str] = fresh_name
) -> str:
    for _ in range(200):
        name = draw(rng)
        if name not in taken and not re.search(rf"\b{re.escape(name)}\b", text):
            taken.add(name)
            return name
    raise Skip(
        Drop("no_fresh_identifier", "200 draws from the identifier pool were all taken or in the text")
    )


def _text_pattern(old: str) -> re.Pattern:
    if "_" in old:
        return re.compile(rf"(?<![A-Za-z0-9_]){re.escape(old)}(?![A-Za-z0-9_])")
    return re.compile(rf"(?<=['\"`]){re.escape(old)}(?=['\"`])")


def _rewrite_text(text: str | None, patterns: list[tuple[re.Pattern, str]]) -> str | None:
    if not text:
        return text
    for pattern, new in patterns:
        text = pattern.sub(new, text)
    return text


def _rename_keys(value: dict, mapping: dict[str, str]) -> dict:
    return {mapping.get(k, k): v for k, v in value.items()}


def _rename_schema(schema: dict, args: dict[str, str]) -> dict:
    schema = dict(schema)
    if isinstance(schema.get("properties"), dict):
        schema["properties"] = _rename_keys(schema["properties"], args)
    if isinstance(schema.get("required"), list):
        schema["required"] = [args.get(a, a) for a in schema["required"]]
    return schema


def _rename_event(
    event: Event, tools: dict[str, str], args: dict[str, str], patterns: list[tuple[re.Pattern, str]]
) -> None:
    event.content = _rewrite_text(event.content, patterns)
    event.reasoning = _rewrite_text(event.reasoning, patterns)
    event.tool_name = tools.get(event.tool_name, event.tool_name) if event.tool_name else None
    for call in event.tool_calls:
        parsed = _arguments(call.arguments)
        if parsed is not None:
            call.arguments = canonical_json(_rename_keys(parsed, args))
        else:  # malformed arguments stay malformed; only quoted identifiers change
            call.arguments = _rewrite_text(call.arguments, patterns)
        call.name = tools.get(call.name, call.name) if call.name else None


def rename(episode: Episode, rng: random.Random) -> dict:
    """Rename every tool and argument identifier consistently (module docstring)."""
    if not episode.tools:
        raise Skip(Drop("no_tools", "the episode declares no tools"))
    text = _all_text(episode)
    taken = {t.name for t in episode.tools}
    tools = {t.name: _fresh_identifier(rng, taken, text) for t in episode.tools}
    arg_names = sorted(argument_keys(episode))
    args = {a: _fresh_identifier(rng, taken, text) for a in arg_names}
    return rename_to(episode, tools, args)


def rename_to(episode: Episode, tools: dict[str, str], args: dict[str, str]) -> dict:
    """Rename tools and argument keys by the given maps, everywhere :func:`rename` does: what a
    rename draws, or a fixed interface (a probe renaming a familiar episode to a held-out family's
    names while keeping everything else)."""
    patterns = [(_text_pattern(old), new) for old, new in {**tools, **args}.items()]
    for tool in episode.tools:
        tool.name = tools.get(tool.name, tool.name)
        tool.parameters_json = canonical_json(_rename_schema(_schema(tool), args))
        tool.description = _rewrite_text(tool.description, patterns)
    for event in episode.events:
        _rename_event(event, tools, args, patterns)
    for delivered in episode.delivered_inputs:
        if delivered.messages_json:
            messages = [event_of_dict(m) for m in json.loads(delivered.messages_json)]
            for message in messages:
                _rename_event(message, tools, args, patterns)
            delivered.messages_json = canonical_json([dataclasses.asdict(m) for m in messages])
    episode.task.prompt = _rewrite_text(episode.task.prompt, patterns)
    return {"tools": tools, "arguments": args}


def reorder(episode: Episode, rng: random.Random) -> dict:
    """Declare the tools in another order (calls and their order untouched)."""
    if len(episode.tools) < 2:
        raise Skip(Drop("fewer_than_two_tools", f"{len(episode.tools)} tool(s) declared"))
    order = list(range(len(episode.tools)))
    while order == sorted(order):
        rng.shuffle(order)
    episode.tools = [episode.tools[i] for i in order]
    return {"order": order}


def distractor(episode: Episode, rng: random.Random, count: int = 2) -> dict:
    """Add ``count`` read-only tool declarations that no call uses."""
    taken = {t.name for t in episode.tools}
    text = _all_text(episode)
    added = []
    for _ in range(count):
        name = _fresh_identifier(rng, taken, text, identifier)  # verb_noun: the description reads it
        verb, noun = name.split("_", 1)
        schema = {
            "additionalProperties": False,
            "properties": {noun: {"type": "string"}},
            "required": [noun],
            "type": "object",
        }
        episode.tools.append(
            ToolSpec(
                name=name,
                description=f"{verb} a {noun} (read-only)",
                parameters_json=canonical_json(schema),
                version=AUGMENT_VERSION,
            )
        )
        added.append(name)
    return {"added": added}


def _optional(tool: ToolSpec) -> list[str]:
    schema = _schema(tool)
    return [a for a in (schema.get("properties") or {}) if a not in (schema.get("required") or [])]


def remove_optional(episode: Episode, rng: random.Random) -> dict:
    """Drop one optional argument; an unused one needs no evidence, a used one a gym replay."""
    calls = [c for e in episode.events for c in e.tool_calls]
    used = {(c.name, k) for c in calls for k in (_arguments(c.arguments) or {})}
    optional = sorted({(t.name, a) for t in episode.tools for a in _optional(t)})
    if not optional:
        raise Skip(Drop("no_optional_argument", f"none of the {len(episode.tools)} declared tools has one"))
    unused = [pair for pair in optional if pair not in used]
    tool, arg = rng.choice(unused or optional)
    details = {"tool": tool, "removed": arg}
    fixture = None if unused else _gym_fixture(episode)
    before = copy.deepcopy(episode.events)
    touched: set[int] = set()
    if fixture is not None:
        evidence, touched = _replay_without(episode, fixture, tool, arg)
        details.update(evidence)
    touched |= _drop_from_schemas(episode, tool, arg)
    _resync_context(episode, before, sorted(touched))
    return details


def _gym_fixture(episode: Episode) -> Fixture:
    """The episode's gym fixture, as it was when the episode ran (its S0 digest), or a skip."""
    if not episode.task.fixture_id:
        raise Skip(
            Drop("needs_fresh_evidence", "every optional argument was used and no gym fixture can replay it")
        )
    try:
        fixture = get_fixture(episode.task.fixture_id)
    except KeyError:
        raise Skip(Drop("fixture_not_in_gym", f"fixture {episode.task.fixture_id}")) from None
    if episode.lineage.environment_digest not in (None, fixture.s0_digest):
        raise Skip(
            Drop(
                "fixture_digest_mismatch",
                f"fixture {fixture.fixture_id}: the episode ran on S0 "
                f"{str(episode.lineage.environment_digest)[:12]}, the gym's is {fixture.s0_digest[:12]}",
            )
        )
    return fixture


def _drop_from_schemas(episode: Episode, tool: str, arg: str) -> set[int]:
    """Remove ``arg`` from every declared version of ``tool`` and from every text quoting that schema
    (drift notices list the tools; refusals cite the delivered schema); the events it changed."""
    quoted: dict[str, str] = {}
    for spec in episode.tools:
        # a spec without parameters has no optional argument
        if spec.name == tool and spec.parameters_json and arg in _optional(spec):
            schema = _schema(spec)
            schema["properties"] = {k: v for k, v in schema["properties"].items() if k != arg}
            new = canonical_json(schema)
            quoted[spec.parameters_json] = new
            spec.parameters_json = new
    changed = set()
    for index, event in enumerate(episode.events):
        for old, new in quoted.items():
            if event.content and old in event.content:
                event.content = event.content.replace(old, new)
                changed.add(index)
    return changed


def _rewrite_calls(episode: Episode, tool: str, arg: str) -> dict[str | None, ToolCall]:
    """Drop ``arg`` from every call of ``tool`` that passed it; the originals by call id."""
    originals: dict[str | None, ToolCall] = {}
    for event in episode.events:
        for call in event.tool_calls:
            args = _arguments(call.arguments)
            if call.name == tool and args is not None and arg in args:
                originals[call.id] = copy.copy(call)
                new = canonical_json({k: v for k, v in args.items() if k != arg})
                if event.output_tokens is not None:
                    event.output_tokens -= approx_tokens(call.arguments) - approx_tokens(new)
                call.arguments = new
    return originals


def _revalidate_refusals(
    episode: Episode, originals: dict[str | None, ToolCall], tags: dict[str | None, str | None]
) -> set[int]:
    """A refused call that was rewritten: a validation refusal is re-derived from the runtime's own
    validator (its schema text is updated afterwards with the others); if the rewritten call would
    now be dispatched, the parent's continuation cannot stand (skip). Truncation and parse refusals
    do not depend on the arguments and stay. The refusal events changed."""
    calls = {c.id: c for e in episode.events for c in e.tool_calls}
    declared = _declared_schema_texts(episode)
    changed = set()
    for index, event in enumerate(episode.events):
        original = originals.get(event.tool_call_id) if event.kind == "refusal" else None
        if original is None or event.content != REFUSED + _as_declared(
            str(refusal_reason(original, _tag(tags, original.id))), declared
        ):
            continue
        reason = refusal_reason(calls[original.id], _tag(tags, original.id))
        if reason is None:
            # without the argument it would have run
            raise Skip(
                Drop(
                    "refused_call_uses_argument", f"the refusal at event {index} would now dispatch its call"
                )
            )
        event.content = REFUSED + _as_declared(reason, declared)
        changed.add(index)
    return changed


def _declared_schema_texts(episode: Episode) -> dict[str, str]:
    """The gym's schema text of each tool the episode declares -> the text the episode declares:
    they differ once an earlier derivation changed the schema (an argument removed), and the
    validator's refusals quote the gym's."""
    texts = {}
    for spec in episode.tools:
        family, _, version = (spec.version or "").partition("@")
        if family not in TOOL_FAMILIES or version not in MANIFEST_VERSIONS:
            continue  # not a gym manifest's tool (an added distractor)
        gym = next((t for t in manifest(family, version).specs() if t.name == spec.name), None)
        if gym is not None and gym.parameters_json and spec.parameters_json:
            texts[gym.parameters_json] = spec.parameters_json
    return texts


def _as_declared(text: str, declared: dict[str, str]) -> str:
    """``text`` with every quoted gym schema written as the episode declares it."""
    for gym, own in declared.items():
        text = text.replace(gym, own)
    return text


def _tag(tags: dict[str | None, str | None], call_id: str | None) -> str:
    """The manifest tag delivered with call ``call_id`` (a delivered input without one cannot be replayed)."""
    tag = tags[call_id]
    if tag is None:
        raise ValueError(f"call {call_id!r} was delivered without a tools_version tag")
    return tag


def _replay_without(episode: Episode, fixture: Fixture, tool: str, arg: str) -> tuple[dict, set[int]]:
    """Rewrite the calls that used ``arg`` and replace observations with a fresh gym replay; the
    evidence details and the events changed (rewritten turns, replaced observations)."""
    tags = call_tags(episode)
    originals = _rewrite_calls(episode, tool, arg)
    if set(originals) - set(tags):
        missing = len(set(originals) - set(tags))
        raise Skip(
            Drop(
                "call_without_delivered_manifest",
                f"{missing} rewritten call(s) without a delivered manifest tag",
            )
        )
    rewritten = {call_id for call_id in originals if call_id is not None}
    if len(rewritten) != len(originals):
        raise ValueError("a call that used the argument has no id: its observation cannot be matched")
    refusals = _revalidate_refusals(episode, originals, tags)
    try:
        dispatched = dispatched_calls(episode)
    except ValueError as exc:
        raise Skip(Drop("observation_without_delivered_call", str(exc))) from None
    config = recorded_config(episode)
    try:
        replay = replay_calls(fixture, [(tag, call) for _, tag, call in dispatched], config)
    except ValueError:
        raise Skip(Drop("replayed_call_refused", "the gym's validator refuses a rewritten call")) from None
    first = next((n for n, (_, _, call) in enumerate(dispatched) if call.id in rewritten), len(dispatched))
    changed: list[int] = []
    for n, ((index, _, call), fresh) in enumerate(zip(dispatched, replay.observations, strict=True)):
        event = episode.events[index]
        recorded = (event.content, event.status, event.exit_code)
        if n < first and recorded != (fresh.content, fresh.status, fresh.exit_code):
            raise Skip(Drop("replay_diverges_before_rewrite", f"the observation at event {index}"))
        if n > first and call.id not in rewritten and recorded[1:] != (fresh.status, fresh.exit_code):
            raise Skip(Drop("later_call_outcome_changed", f"the call answered at event {index}"))
        if recorded != (fresh.content, fresh.status, fresh.exit_code):
            event.content, event.status, event.exit_code = fresh.content, fresh.status, fresh.exit_code
            changed.append(index)
    workspace_changed = _settle_outcome(episode, fixture, replay.final_files, config)
    turns = {i for i, e in enumerate(episode.events) if {c.id for c in e.tool_calls} & rewritten}
    evidence = {
        "evidence": "gym_replay",
        "rewritten_calls": sorted(rewritten),
        "changed_observations": changed,
        "workspace_changed": workspace_changed,
    }
    return evidence, turns | set(changed) | refusals


def _settle_outcome(episode: Episode, fixture: Fixture, files: dict[str, str], config: RuntimeConfig) -> bool:
    """The replayed workspace becomes the outcome; when it differs from the parent's, the sealed
    oracle judges both and a changed verdict refuses the record. ``True`` when it differs."""
    outcome = episode.outcome
    diff = unified_diff(fixture.s0_files, files)
    if diff == (outcome.workspace_diff or ""):
        return False
    if outcome.workspace_diff is None:
        raise Skip(Drop("parent_outcome_unrecorded", "the parent recorded no workspace diff to judge"))
    timeout = config.test_timeout_s
    parent = run_oracle(fixture, outcome.workspace_diff, outcome.final_answer, timeout_s=timeout)
    child = run_oracle(fixture, files, outcome.final_answer, timeout_s=timeout)
    if parent.passed != child.passed:
        raise Skip(
            Drop(
                "oracle_verdict_changed",
                f"fixture {fixture.fixture_id}: the parent {'passes' if parent.passed else 'fails'}, "
                "the replay does not",
            )
        )
    outcome.workspace_diff = diff
    if outcome.verifier_results_json is not None:
        outcome.verifier_results_json = canonical_json(child.to_dict())
    return True


def _resync_context(episode: Episode, before: list[Event], changed: list[int]) -> None:
    """Make every copy of a changed event agree with it: compaction summaries (their lines are
    rewritten in step), compacted delivered-input messages, and the input-token counts."""
    lines = {
        old: new
        for i in changed
        for old, new in zip(summary_lines(before[i]), summary_lines(episode.events[i]), strict=True)
        if old != new
    }
    stale = set(changed)
    for index, event in enumerate(episode.events):
        if event.kind == "compaction" and event.content and lines:
            content = "\n".join(lines.get(line, line) for line in event.content.split("\n"))
            if content != event.content:
                event.content = content
                stale.add(index)
    # Token counts first: a response whose count changed is itself copied into later messages.
    for delivered in episode.delivered_inputs:
        if delivered.event_indices is None:
            raise ValueError(f"delivered input {delivered.call_index} lists no event indices to resync")
        if delivered.response_event_index is None:
            raise ValueError(f"delivered input {delivered.call_index} names no response event")
        if stale & set(delivered.event_indices):
            response = episode.events[delivered.response_event_index]
            if response.input_tokens is not None:
                seen = sum(approx_tokens(episode.events[i].content) for i in delivered.event_indices)
                if seen != response.input_tokens:
                    response.input_tokens = seen
                    stale.add(delivered.response_event_index)
    for delivered in episode.delivered_inputs:
        indices = delivered.event_indices or []
        if delivered.messages_json is not None and stale & set(indices):
            delivered.messages_json = canonical_json([dataclasses.asdict(episode.events[i]) for i in indices])


_APPLY = {"rename": rename, "reorder": reorder, "distractor": distractor, "remove_optional": remove_optional}


def derive(parent: Episode, kind: str, seed: int, draw: int = 0) -> Episode:
    """One derived episode (a deep copy, transformed, with lineage); raises :class:`Skip`.

    ``draw`` numbers the copies of one parent and transformation (``Augmentation.copies``): each
    has its own random stream, and draw 0 is the stream (and id) a single copy always had."""
    return _with_lineage(parent, *_transformed(parent, kind, seed, draw), kind, seed, draw)


def _transformed(parent: Episode, kind: str, seed: int, draw: int) -> tuple[Episode, dict]:
    """A deep copy of ``parent`` with ``kind`` applied from draw ``draw``'s stream, and the
    transformation's details (what makes two draws the same); raises :class:`Skip`."""
    if kind not in _APPLY:
        raise ValueError(f"unknown transformation {kind!r}; choose from {TRANSFORMATIONS}")
    child = copy.deepcopy(parent)
    stream = f"{seed}:{kind}:{draw}:" if draw else f"{seed}:{kind}:"
    return child, _APPLY[kind](child, random.Random(stream + parent.episode_id))


def _with_lineage(parent: Episode, child: Episode, details: dict, kind: str, seed: int, draw: int) -> Episode:
    """``child`` with its id, parent, declaration and tool-manifest digest set."""
    declaration: dict[str, object] = {"kind": kind, "version": AUGMENT_VERSION, "seed": seed}
    declaration["details"] = details
    if draw:
        declaration["draw"] = draw
    digest = hashlib.sha256(canonical_json(declaration).encode()).hexdigest()[:8]
    child.episode_id = derived_id(parent.episode_id, kind, digest)
    extra = json.loads(parent.extra_json) if parent.extra_json else {}
    extra = extra if isinstance(extra, dict) else {"parent_extra": extra}
    child.extra_json = canonical_json({**extra, PARENT_KEY: parent.episode_id, "augmentation": declaration})
    tools_digest = hashlib.sha256(canonical_json([vars(t) for t in child.tools]).encode()).hexdigest()
    child.lineage.tool_manifest_digest = tools_digest
    return child


@dataclass
class AugmentResult:
    """Derived episodes (each paired with its parent's index), and the attempts that were skipped,
    counted by ``<kind>:<reason>`` (the manifest's ``skips``) with the first :class:`Drop` of each."""

    derived: list[tuple[int, Episode]] = field(default_factory=list)
    skips: Counter[str] = field(default_factory=Counter)
    first_skips: dict[str, Drop] = field(default_factory=dict)
    attempts: int = 0

    def skip(self, kind: str, parent_id: str, drop: Drop) -> None:
        """Count ``drop`` under ``<kind>:<reason>``; the first of each names its parent episode."""
        key = f"{kind}:{drop.reason}"
        self.skips[key] += 1
        detail = f"{parent_id}: {drop.detail}" if drop.detail else parent_id
        self.first_skips.setdefault(key, Drop(drop.reason, detail))

    def tally(self) -> Tally:
        """Attempts (parents x transformations) in, derived (kept), skipped by ``<kind>:<reason>``."""
        return Tally(self.attempts, len(self.derived), Counter(self.skips))


def token_expansion(parents: Sequence[Episode], result: AugmentResult, tokenizer: object) -> dict[str, float]:
    """Per transformation: derived transcript tokens / parent transcript tokens (table 9's cost)."""
    parent_tokens: dict[int, int] = {}
    totals: dict[str, list[int]] = {}
    for index, child in result.derived:
        if index not in parent_tokens:
            parent_tokens[index] = transcript_tokens(parents[index], tokenizer)
        if child.extra_json is None:
            raise ValueError(f"derived episode {child.episode_id} has no augmentation declaration")
        kind = json.loads(child.extra_json)["augmentation"]["kind"]
        pair = totals.setdefault(kind, [0, 0])
        pair[0] += transcript_tokens(child, tokenizer)
        pair[1] += parent_tokens[index]
    return {kind: derived / parent for kind, (derived, parent) in sorted(totals.items()) if parent}


def augment_episodes(
    episodes: Sequence[Episode], kinds: Sequence[str], seed: int = 0, copies: int = 1
) -> AugmentResult:
    """Apply each declared transformation ``copies`` times to each episode, each draw afresh;
    inapplicable ones are counted, not forced, and so is a draw that repeats an earlier copy's
    transformation (``same_as_earlier_copy``: two tools have only two orders)."""
    result = AugmentResult()
    for index, episode in enumerate(episodes):
        for kind in kinds:
            seen: set[str] = set()
            for draw in range(copies):
                result.attempts += 1
                try:
                    child, details = _transformed(episode, kind, seed, draw)
                    if (transformation := canonical_json(details)) in seen:
                        raise Skip(Drop("same_as_earlier_copy", f"draw {draw} repeats an earlier draw"))
                except Skip as skip:
                    result.skip(kind, episode.episode_id, skip.drop)
                    continue
                seen.add(transformation)
                result.derived.append((index, _with_lineage(episode, child, details, kind, seed, draw)))
    return result


def augment_inputs(
    inputs: Sequence[EpisodeInput], augmentation: Augmentation
) -> tuple[list[EpisodeInput], AugmentResult]:
    """Inputs plus their derived records; a derived record keeps its parent's split, role and targets.

    Transformations never add, drop or reorder events, so curation's ``target_turns`` (event
    indices) still select the same turns in the derived record.
    """
    episodes = [item.episode for item in inputs]
    result = augment_episodes(episodes, augmentation.kinds, augmentation.seed, augmentation.copies)
    derived = [dataclasses.replace(inputs[index], episode=child) for index, child in result.derived]
    return [*inputs, *derived], result
