"""Can the default model learn to copy a tool name out of its tool block, and under which
curriculum? (issue 17, Deliver 5: the release gate holds the embedded default on renamed-schema PRE.)

``schema_probe.py`` shows that no ``make run`` checkpoint writes an offered renamed tool's name
(teacher-forced 0/12 on the reserved ``alias`` family). Whole renamed episodes behind a ~400-token
tool block may simply be too hard a first lesson; the context warm-up taught the same model to copy
a file name out of the user's prompt once few tokens competed for its attention. This benchmark
trains the learning curve's generated ``report_value`` corpus (familiar tool families) together
with renamed copies of it (schema augmentation's ``rename``, ``--copies`` draws per episode) and
shows the renamed copies in an easier *view* first:

- ``full``: the whole tool block (what the product's dataset trains on);
- ``before`` / ``after``: ``focus`` plus the tool declared right before / after the called one
  (one distractor: the name to copy is no longer the block's first / no longer the nearest);
- ``focus``: only the tools the episode calls (here: the one read tool, its name the block's first
  token);
- ``used``: ``focus`` with the schema reduced to the properties the calls pass, so the first key is
  the first declared property (with the whole schema it is the first *used* one); ``keys``: ``used``
  in the ``short`` form;
- ``short``: ``focus`` in the signature view (no argument descriptions) with the system prompt's
  text left out: about 60 tokens between the name and the call;
- ``line``: ``short`` with each tool reduced to its name and description (an empty schema):
  the tool-name copy alone, about 40 tokens from the call;
- ``menu``: every tool reduced so, the called one not the first (the selection, shortest);
- ``compact``: every tool in the ``short`` form: the first key of the tool the call names, looked
  up among every tool's keys (``used`` has only the called tool's, so "the first declared
  property" passes it).

``--renamed-only line:2000,short:1000`` first trains renamed copies alone, stage by stage in each
stage's view (a copy pre-training); then the context warm-up (``--preamble-warmup`` steps:
familiar examples without their preamble, renamed copies in ``--view``); then everything in full
view. ``--reword`` has the renamed copies reword tool descriptions too (:data:`REWORDINGS`), as
the reserved family does; ``--reorder`` has them declare their tools in a drawn order (every
family declares the read tool second, so otherwise "the second name" is a shortcut). ``--init
CHECKPOINT`` continues from a saved ``curriculum-checkpoint`` (the weights only: a fresh optimizer
and schedule), so a next stage is screened without retraining the ones before it; with ``--steps
0`` it only probes that checkpoint. Every
``--eval-every`` steps ``schema_probe.probe`` scores, teacher-forced, the first call's tool name and
first key on held-out tasks: the familiar ``path`` family, the reserved ``alias`` family, ``path``
tasks with ``alias``'s names (``schema_probe.RESERVED_NAMES``), ``alias`` with the called tool
declared elsewhere (``schema_probe.MOVED_CALLED``: the position check), and held-out renamed copies
in full view and in every view trained on, as renamed (``renamed_*``) and also reordered
(``reordered_*``). Chance on a renamed name is about 0.015 (the rename
pool's first-token marginal). Results and what they showed: benchmarks/results/README.md.

Usage: ``.venv/bin/python benchmarks/schema_curriculum.py [--view short] [--copies 1]
[--renamed-only VIEW[+VIEW]:STEPS,...] [--reword] [--reorder] [--tasks 2400] [--steps 3000]
[--preamble-warmup 2000] [--eval-every 500] [--items 12] [--seed 0] [--threads 1] [--workdir DIR]
[--init CHECKPOINT]``.
Prints one JSON row per evaluation and a final JSON line.
"""

from __future__ import annotations

import argparse
import copy
import dataclasses
import json
import random
import sys
import tempfile
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import torch
from ablation.corpus import HELD_OUT_FAMILY, compact_tool, expert_corpus, task_numbers, training_fixtures
from schema_probe import MOVED_CALLED, RESERVED_NAMES, held_out_inputs, held_out_rows, probe

from trajectory_platform.evaluation.settings import SuiteSpec
from trajectory_platform.gym.library import learnable_fixture
from trajectory_platform.gym.tools import TOOL_FAMILIES, manifest
from trajectory_platform.traces.record import Episode, canonical_json
from trajectory_platform.training.data.augment import derive
from trajectory_platform.training.data.dataset import rows_from_table, split_examples
from trajectory_platform.training.data.masked_dataset import EpisodeInput, build_masked_dataset, to_table
from trajectory_platform.training.data.tokenizer import load_tokenizer
from trajectory_platform.training.optim.attention import VARLEN_ATTENTION
from trajectory_platform.training.optim.loop import run_loop
from trajectory_platform.training.optim.model import build_default_model, load_model
from trajectory_platform.training.optim.settings import OptimizerSettings
from trajectory_platform.training.optim.sft import Example, StepStats, sft_step_function

KINDS = ("report_value",)
"""The shortest task kind: one read, one answer; the first call is the copy under test."""


def called_tools(episode: Episode) -> set[str]:
    """The names of the tools ``episode``'s calls name."""
    return {call.name for event in episode.events for call in event.tool_calls if call.name}


def _declaring(episode: Episode, names: set[str]) -> Episode:
    """A copy of ``episode`` declaring only the tools in ``names`` (the original is untouched)."""
    kept = copy.deepcopy(episode)
    kept.tools = [tool for tool in kept.tools if tool.name in names]
    return kept


def focus_view(episode: Episode) -> Episode:
    """``episode`` declaring only the tools its calls name."""
    return _declaring(episode, called_tools(episode))


def _with_neighbour(episode: Episode, offset: int) -> Episode:
    """:func:`focus_view` plus the tool declared ``offset`` places from the first called one."""
    called = called_tools(episode)
    at = next(index for index, tool in enumerate(episode.tools) if tool.name in called) + offset
    neighbours = {tool.name for tool in episode.tools[max(at, 0) : at + 1]}  # none past either end
    return _declaring(episode, called | neighbours)


def after_view(episode: Episode) -> Episode:
    """The called tool and the one declared after it: a distractor whose name is nearer the call
    than the name to copy (the full block has three such)."""
    return _with_neighbour(episode, 1)


def before_view(episode: Episode) -> Episode:
    """The tool declared before the called one, and the called one: the name to copy is no longer
    the block's first (in the full block it is the second)."""
    return _with_neighbour(episode, -1)


def used_view(episode: Episode) -> Episode:
    """:func:`focus_view` with each called tool's schema reduced to the properties its calls pass.

    A call writes its keys sorted and a schema declares its properties sorted, so with the whole
    schema the first key is the first *used* property (a selection: ``report_value`` skips the
    line-limit one); declaring only the used ones makes it the first declared property, a copy."""
    passed: dict[str, set[str]] = {}
    for event in episode.events:
        for call in event.tool_calls:
            passed.setdefault(call.name or "", set()).update(json.loads(call.arguments or "{}"))
    used = focus_view(episode)
    for index, tool in enumerate(used.tools):
        schema = json.loads(tool.parameters_json or "{}")
        keys = passed[tool.name]
        schema["properties"] = {k: v for k, v in schema.get("properties", {}).items() if k in keys}
        schema["required"] = [k for k in schema.get("required", []) if k in keys]
        used.tools[index] = dataclasses.replace(tool, parameters_json=canonical_json(schema))
    return used


def _without_system_text(episode: Episode) -> Episode:
    """``episode`` (already a copy) with the system prompt's text left out."""
    for event in episode.events:
        if event.kind == "system":
            event.content = ""
    return episode


def _names_only(episode: Episode) -> Episode:
    """``episode`` (already a copy) with each tool reduced to its name and description (an empty
    schema) and no system text. Its keys are no longer declared, so only the tool name of such a
    view is a fair probe."""
    episode.tools = [dataclasses.replace(tool, parameters_json="{}") for tool in episode.tools]
    return _without_system_text(episode)


def compact_view(episode: Episode) -> Episode:
    """Every tool in the signature view (name, description, argument keys and types), the system
    prompt's text left out: the key's lookup (the first property of the tool the call just named)
    among every tool, at about a third of the full block's length."""
    compact = copy.deepcopy(episode)
    compact.tools = [compact_tool(tool) for tool in compact.tools]
    return _without_system_text(compact)


def short_view(episode: Episode) -> Episode:
    """:func:`focus_view` in the signature view, the system prompt's text left out: the fewest
    tokens between a declared name and the call that copies it while the keys stay declared."""
    return compact_view(focus_view(episode))


def keys_view(episode: Episode) -> Episode:
    """:func:`used_view` in the :func:`short_view` form: the first key is the first declared
    property with only the other used keys and their types between it and the call."""
    return short_view(used_view(episode))


def line_view(episode: Episode) -> Episode:
    """The called tool alone, as its name and description: the tool-name copy alone, about 40
    tokens from the call."""
    return _names_only(focus_view(episode))


def menu_view(episode: Episode) -> Episode:
    """Every tool as its name and description: the selection (which name goes with the
    description of what the task needs) at the shortest distance, where ``line`` has nothing to
    select and the full block puts 700 tokens around it."""
    return _names_only(copy.deepcopy(episode))


VIEWS: dict[str, Callable[[Episode], Episode]] = {
    "full": copy.deepcopy,
    "after": after_view,
    "before": before_view,
    "focus": focus_view,
    "used": used_view,
    "short": short_view,
    "compact": compact_view,
    "keys": keys_view,
    "line": line_view,
    "menu": menu_view,
}


REWORDINGS: dict[str, tuple[str, ...]] = {
    "list": ("list the files in a folder", "show the documents under a directory", "list documents"),
    "read": ("show a file", "read a document", "print the text of a file", "view a text file"),
    "edit": ("replace a snippet in a document", "change one exact snippet in a file", "patch a file"),
    "write": ("save a file", "write a document", "create or replace a document"),
    "run_tests": ("run the tests", "run the checks", "check the repository's test suite"),
}
"""Other descriptions of each operation a ``--reword`` copy may show. Renamed copies otherwise keep
the familiar descriptions (every training family says "read a text file"), so a model can pick the
called tool by a description it has seen; the reserved ``alias`` family rewords them all. These
are built from the same words in other combinations; ``alias``'s own descriptions are never among
them (a test checks)."""


def reworded(episode: Episode, seed: int) -> Episode:
    """``episode`` with each single-purpose tool's familiar description replaced by one of
    :data:`REWORDINGS` for its operation (or kept), drawn per episode and tool."""
    operations = {
        tool.description: tool.op
        for family in TOOL_FAMILIES
        if family not in SuiteSpec.reserved_tool_families
        for tool in manifest(family).tools
        if tool.op in REWORDINGS
    }
    out = copy.deepcopy(episode)
    for tool in out.tools:
        op = operations.get(tool.description or "")
        if op is not None:
            rng = random.Random(f"{seed}:{episode.episode_id}:{tool.name}")
            tool.description = rng.choice((tool.description, *REWORDINGS[op]))
    return out


def renamed(
    inputs: Sequence[EpisodeInput], seed: int, copies: int, reorder: bool = False
) -> list[EpisodeInput]:
    """``copies`` renamed derivations of each input (draws 0..copies-1, as ``augment_copies``),
    each also declaring its tools in a drawn order when ``reorder``."""

    def derived(episode: Episode, draw: int) -> Episode:
        episode = derive(episode, "rename", seed, draw)
        return derive(episode, "reorder", seed, draw) if reorder else episode

    return [
        dataclasses.replace(item, episode=derived(item.episode, draw))
        for draw in range(copies)
        for item in inputs
    ]


def in_view(inputs: Sequence[EpisodeInput], views: str) -> list[EpisodeInput]:
    """``inputs`` with every episode shown in each of ``views`` (``after+full``: both)."""
    return [
        dataclasses.replace(item, episode=VIEWS[view](item.episode))
        for view in views.split("+")
        for item in inputs
    ]


def token_rows(inputs: Sequence[EpisodeInput], tokenizer: Any) -> list[list[int]]:
    """Rendered, tokenized examples (the dataset stage's template and masks)."""
    return to_table(build_masked_dataset(list(inputs), tokenizer)).column("input_ids").to_pylist()


def probe_rows(tokenizer: Any, items: int, seed: int, views: Sequence[str]) -> dict[str, list[list[int]]]:
    """Held-out probe sets: familiar ``path``, reserved ``alias`` (also with its called tool moved
    and with only its names), and renamed copies of held-out ``path`` tasks (another rename seed
    than training's) in full view and in each of ``views``: as renamed (``renamed_*``, the read
    tool second like every family declares it) and also reordered (``reordered_*``, where the
    place says nothing); and ``alias`` with its called tool moved in each of ``views`` too
    (``alias_moved_*``: the reserved family's new descriptions read where the block is short)."""
    held_out = [
        learnable_fixture(HELD_OUT_FAMILY, task, "path", seed) for task in task_numbers(0, items, KINDS)
    ]
    experts = expert_corpus(held_out, seed=seed)
    rows = {
        family: held_out_rows(family, items, KINDS, seed, tokenizer)
        for family in ("path", "alias", RESERVED_NAMES, MOVED_CALLED)
    }
    for prefix, reorder in (("renamed", False), ("reordered", True)):
        copies = renamed(experts, seed + 1, 1, reorder)
        for view in dict.fromkeys(["full", *views]):
            rows[f"{prefix}_{view}"] = token_rows(in_view(copies, view), tokenizer)
    moved = held_out_inputs(MOVED_CALLED, items, KINDS, seed)
    for view in [view for view in dict.fromkeys(views) if view != "full"]:
        rows[f"{MOVED_CALLED}_{view}"] = token_rows(in_view(moved, view), tokenizer)
    return rows


def parse_stages(text: str) -> list[tuple[str, int]]:
    """``--renamed-only``: ``line:2000,short:1000`` is renamed copies alone for 2,000 steps in the
    line view, then 1,000 in the short view; ``after+full:500`` shows every copy in both views
    (a mixture keeps the earlier lesson's signal while the new one forms); empty is no such phase."""
    stages = []
    for stage in filter(None, text.split(",")):
        views, _, steps = stage.partition(":")
        if not set(views.split("+")) <= set(VIEWS) or not steps.isdigit():
            raise ValueError(
                f"--renamed-only: {stage!r} is not VIEW[+VIEW...]:STEPS with each VIEW one of {sorted(VIEWS)}"
            )
        stages.append((views, int(steps)))
    return stages


def phase_of(step: int, stages: Sequence[tuple[str, int]], warmup: int) -> str:
    """Which data a step trains on: ``renamed_only:<view>`` (renamed copies alone, in a stage's
    view), then ``warmup`` (familiar without preamble, renamed in ``--view``), then ``full``."""
    start = 0
    for view, count in stages:
        if step < start + count:
            return f"renamed_only:{view}"
        start += count
    return "warmup" if step < start + warmup else "full"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n", 1)[0])
    parser.add_argument(
        "--view", choices=sorted(VIEWS), default="short", help="renamed copies' view before the full phase"
    )
    parser.add_argument("--copies", type=int, default=1, help="renamed draws per training episode")
    parser.add_argument(
        "--renamed-only",
        default="",
        help="renamed copies alone first, VIEW:STEPS[,VIEW:STEPS...] (a copy pre-training)",
    )
    parser.add_argument(
        "--reword",
        action="store_true",
        help="renamed copies also reword tool descriptions (REWORDINGS), as the alias family does",
    )
    parser.add_argument(
        "--reorder",
        action="store_true",
        help="renamed copies also declare their tools in a drawn order: every family declares the read "
        "tool second, so without it a model can select by position (the alias_moved probe shows it)",
    )
    parser.add_argument("--tasks", type=int, default=2400)
    parser.add_argument("--steps", type=int, default=3000)
    parser.add_argument("--preamble-warmup", type=int, default=2000)
    parser.add_argument("--eval-every", type=int, default=500)
    parser.add_argument("--items", type=int, default=12)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--threads", type=int, default=1)
    parser.add_argument("--workdir", type=Path, default=None)
    parser.add_argument(
        "--init", type=Path, default=None, help="start from this checkpoint's weights, not the untrained base"
    )
    args = parser.parse_args(argv)
    try:
        stages = parse_stages(args.renamed_only)
    except ValueError as error:
        parser.error(str(error))
    torch.set_num_threads(args.threads)
    started = time.monotonic()
    workdir = args.workdir or Path(tempfile.mkdtemp(prefix="schema-curriculum-"))
    base = args.init or build_default_model(workdir)
    tokenizer = load_tokenizer(base)
    familiar = expert_corpus(training_fixtures(args.tasks, args.seed, KINDS), seed=args.seed)
    sources = familiar
    if args.reword:
        sources = [dataclasses.replace(i, episode=reworded(i.episode, args.seed)) for i in familiar]
    copies = renamed(sources, args.seed, args.copies, args.reorder)

    def examples(inputs: Sequence[EpisodeInput]) -> list[Example]:
        table = to_table(build_masked_dataset(list(inputs), tokenizer))
        return split_examples(
            rows_from_table(table, source="curriculum"), capacity=2048, vocab_size=len(tokenizer)
        ).train

    model = load_model(base, device="cpu")
    model.set_attn_implementation(VARLEN_ATTENTION)

    def phase_data(phase: str) -> tuple[list[Example], int]:
        """A phase's examples and its context warm-up steps (the warm-up phase: all of them)."""
        if phase == "full":
            return examples([*familiar, *copies]), 0
        if phase == "warmup":
            return examples([*familiar, *in_view(copies, args.view)]), args.steps
        return examples(in_view(copies, phase.removeprefix("renamed_only:"))), 0

    phases = dict.fromkeys(phase_of(step, stages, args.preamble_warmup) for step in range(args.steps))
    data = {phase: phase_data(phase) for phase in phases}
    steps = {
        phase: sft_step_function(
            model,
            rows,
            examples_per_step=8,
            micro_batches=1,
            capacity=2048,
            normalization="token",
            seed=args.seed,
            head="targets",
            shared_prefix=True,
            preamble_warmup_steps=warmup,
        )
        for phase, (rows, warmup) in data.items()
    }
    trained_views = [view for views, _ in stages for view in views.split("+")]
    probes = probe_rows(tokenizer, args.items, args.seed, [*trained_views, args.view])
    print(
        f"{ {k: len(v[0]) for k, v in data.items()} } examples, setup {time.monotonic() - started:.0f} s",
        file=sys.stderr,
    )
    done = [0]
    curve: list[dict[str, Any]] = []

    def step(index: int) -> StepStats:
        done[0] = index + 1
        return steps[phase_of(index, stages, args.preamble_warmup)](index)

    def evaluate() -> dict[str, Any]:
        saved = workdir / "curriculum-checkpoint"
        model.save_pretrained(saved)
        tokenizer.save_pretrained(saved)
        reloaded = load_model(saved)  # the probe runs the plain attention a served model would
        row: dict[str, Any] = {"step": done[0], "elapsed_s": round(time.monotonic() - started)}
        row |= {name: probe(reloaded, rows, tokenizer) for name, rows in probes.items()}
        curve.append(row)
        print(json.dumps(row), file=sys.stderr)
        model.train()
        return {}

    run_loop(
        model,
        step,
        max_steps=args.steps,
        settings=OptimizerSettings(learning_rate=3e-3),
        eval_fn=evaluate,
        eval_every=args.eval_every,
        description="curriculum",
    )
    print(json.dumps({"args": {k: str(v) for k, v in vars(args).items()}, "curve": curve}))
    return 0


if __name__ == "__main__":
    sys.exit(main())
