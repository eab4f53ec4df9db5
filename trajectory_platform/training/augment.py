"""Schema augmentation as declared, versioned transformations with lineage (fine-tuning 16.7.1, table 9).

A policy that sees one static tool signature memorizes its keys instead of reading the schema in
its prompt. Each transformation here derives a new episode from an admitted one and keeps the
transcript coherent:

- ``rename``: tool and argument identifiers get fresh two-part names from the tokenizer's
  identifier pool, changed *together* in the schema, every call (name and argument keys), the
  delivered-input manifests, and every text that mentions them (observations, error messages,
  prompts, prose). Snake_case identifiers are replaced as whole words anywhere; a plain-word
  identifier (``path``) only where it is quoted (``'path'``, ``"path"``, `` `path` ``), as error
  messages cite arguments, so ordinary prose keeps its meaning. Values and observations are
  otherwise unchanged: a rename is meaning-preserving (the runtime's adapter maps the new names).
- ``reorder``: tool declarations in a different (seeded) order; calls and their dependencies are
  untouched.
- ``distractor``: extra read-only tool declarations with coherent names and schemas that no call
  uses (longer prompt, a selection decision).
- ``remove_optional``: drop an optional argument from a schema. Only an argument no recorded call
  used can be removed without changing any observation; when every optional argument was used,
  the derived record would need fresh execution evidence from the gym (a replay), so it is
  skipped with the counted reason ``needs_fresh_evidence`` rather than spliced onto stale results.

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
from collections.abc import Sequence
from dataclasses import dataclass, field

from trajectory_platform.traces.record import Episode, Event, ToolSpec, canonical_json
from trajectory_platform.training.corpus import IDENTIFIER_NOUNS, IDENTIFIER_VERBS
from trajectory_platform.training.masked_dataset import EpisodeInput
from trajectory_platform.training.serialize import event_of_dict, transcript_tokens

AUGMENT_VERSION = "schema-augment-v1"
TRANSFORMATIONS = ("rename", "reorder", "distractor", "remove_optional")
PARENT_KEY = "parent_episode_id"


class Skip(Exception):
    """The transformation does not apply to this episode; ``reason`` is counted."""

    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason


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


def _fresh_identifier(rng: random.Random, taken: set[str], text: str) -> str:
    for _ in range(200):
        name = f"{rng.choice(IDENTIFIER_VERBS)}_{rng.choice(IDENTIFIER_NOUNS)}"
        if name not in taken and not re.search(rf"\b{re.escape(name)}\b", text):
            taken.add(name)
            return name
    raise Skip("no_fresh_identifier")


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


def _rename_event(event: Event, tools: dict[str, str], args: dict[str, str],
                  patterns: list[tuple[re.Pattern, str]]) -> None:
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
        raise Skip("no_tools")
    text = _all_text(episode)
    taken = {t.name for t in episode.tools}
    tools = {t.name: _fresh_identifier(rng, taken, text) for t in episode.tools}
    arg_names = sorted({a for t in episode.tools for a in (_schema(t).get("properties") or {})})
    args = {a: _fresh_identifier(rng, taken, text) for a in arg_names}
    patterns = [(_text_pattern(old), new) for old, new in {**tools, **args}.items()]
    for tool in episode.tools:
        tool.name = tools[tool.name]
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
        raise Skip("fewer_than_two_tools")
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
        name = _fresh_identifier(rng, taken, text)
        verb, noun = name.split("_", 1)
        schema = {"additionalProperties": False, "properties": {noun: {"type": "string"}},
                  "required": [noun], "type": "object"}
        episode.tools.append(ToolSpec(name=name, description=f"{verb} a {noun} (read-only)",
                                      parameters_json=canonical_json(schema), version=AUGMENT_VERSION))
        added.append(name)
    return {"added": added}


def remove_optional(episode: Episode, rng: random.Random) -> dict:
    """Drop one optional argument no call used; else skip (``needs_fresh_evidence``)."""
    calls = [c for e in episode.events for c in e.tool_calls]
    used = {(c.name, k) for c in calls for k in (_arguments(c.arguments) or {})}
    optional = [(t, a) for t in episode.tools
                for a in (_schema(t).get("properties") or {}) if a not in (_schema(t).get("required") or [])]
    if not optional:
        raise Skip("no_optional_argument")
    unused = [(t, a) for t, a in optional if (t.name, a) not in used]
    if not unused:
        raise Skip("needs_fresh_evidence")
    tool, arg = rng.choice(unused)
    schema = _schema(tool)
    schema["properties"] = {k: v for k, v in schema["properties"].items() if k != arg}
    tool.parameters_json = canonical_json(schema)
    return {"tool": tool.name, "removed": arg}


_APPLY = {"rename": rename, "reorder": reorder, "distractor": distractor, "remove_optional": remove_optional}


def derive(parent: Episode, kind: str, seed: int) -> Episode:
    """One derived episode (a deep copy, transformed, with lineage); raises :class:`Skip`."""
    if kind not in _APPLY:
        raise ValueError(f"unknown transformation {kind!r}; choose from {TRANSFORMATIONS}")
    child = copy.deepcopy(parent)
    rng = random.Random(f"{seed}:{kind}:{parent.episode_id}")
    details = _APPLY[kind](child, rng)
    declaration = {"kind": kind, "version": AUGMENT_VERSION, "seed": seed, "details": details}
    digest = hashlib.sha256(canonical_json(declaration).encode()).hexdigest()[:8]
    child.episode_id = f"{parent.episode_id}~{kind}-{digest}"
    extra = json.loads(parent.extra_json) if parent.extra_json else {}
    extra = extra if isinstance(extra, dict) else {"parent_extra": extra}
    child.extra_json = canonical_json({**extra, PARENT_KEY: parent.episode_id, "augmentation": declaration})
    tools_digest = hashlib.sha256(canonical_json([vars(t) for t in child.tools]).encode()).hexdigest()
    child.lineage.tool_manifest_digest = tools_digest
    return child


@dataclass
class AugmentResult:
    """Derived episodes (each paired with its parent's index) and skips by transformation and reason."""

    derived: list[tuple[int, Episode]] = field(default_factory=list)
    skips: Counter = field(default_factory=Counter)


def token_expansion(parents: Sequence[Episode], result: AugmentResult, tokenizer: object) -> dict[str, float]:
    """Per transformation: derived transcript tokens / parent transcript tokens (table 9's cost)."""
    parent_tokens: dict[int, int] = {}
    totals: dict[str, list[int]] = {}
    for index, child in result.derived:
        if index not in parent_tokens:
            parent_tokens[index] = transcript_tokens(parents[index], tokenizer)
        kind = json.loads(child.extra_json)["augmentation"]["kind"]
        pair = totals.setdefault(kind, [0, 0])
        pair[0] += transcript_tokens(child, tokenizer)
        pair[1] += parent_tokens[index]
    return {kind: derived / parent for kind, (derived, parent) in sorted(totals.items()) if parent}


def augment_episodes(episodes: Sequence[Episode], kinds: Sequence[str], seed: int = 0) -> AugmentResult:
    """Apply each declared transformation to each episode; inapplicable ones are counted, not forced."""
    result = AugmentResult()
    for index, episode in enumerate(episodes):
        for kind in kinds:
            try:
                result.derived.append((index, derive(episode, kind, seed)))
            except Skip as skip:
                result.skips[f"{kind}:{skip.reason}"] += 1
    return result


def augment_inputs(inputs: Sequence[EpisodeInput], kinds: Sequence[str], seed: int = 0
                   ) -> tuple[list[EpisodeInput], AugmentResult]:
    """Inputs plus their derived records; a derived record keeps its parent's split, role and targets.

    Transformations never add, drop or reorder events, so curation's ``target_turns`` (event
    indices) still select the same turns in the derived record.
    """
    result = augment_episodes([item.episode for item in inputs], kinds, seed)
    derived = [dataclasses.replace(inputs[index], episode=child) for index, child in result.derived]
    return [*inputs, *derived], result
