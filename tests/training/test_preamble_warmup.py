"""The context warm-up (training/optim/sft.py ``without_preamble``, data/dataset.py ``preamble_end``).

For its first ``preamble_warmup_steps`` an SFT run trains on each example without its preamble (the
tool block and system prompt). These tests hold the warm-up to what it promises: it drops only
target-free context (never a target, never the opening token), it applies to exactly the first N
steps and to nothing else, validation scores whole examples, and the run's manifest records it.
"""

from __future__ import annotations

import json
import random

import pyarrow as pa
from shared_prefix_factory import SHAPE, VOCAB

from trajectory_platform.training.data.dataset import preamble_end, rows_from_table, split_examples
from trajectory_platform.training.data.derived_ids import derived_id
from trajectory_platform.training.data.labels import IGNORE_INDEX
from trajectory_platform.training.optim.model import tiny_llama
from trajectory_platform.training.optim.runner import TrainRequest, run_training
from trajectory_platform.training.optim.sft import sft_step_function, without_preamble

TOOLS, SYSTEM, USER = 30, 12, 8


def _row(index: int, rng: random.Random) -> dict:
    """bos | tool block | system | user | assistant targets, with the masking stage's spans."""
    tools = [rng.randrange(20, 60) for _ in range(TOOLS)]
    system = [rng.randrange(60, 90) for _ in range(SYSTEM)]
    user = [rng.randrange(90, 200) for _ in range(USER)]
    answer = [*reversed(user[:4]), 3]
    ids = [1, *tools, *system, *user, 5, *answer]
    labels = [IGNORE_INDEX] * (len(ids) - len(answer)) + answer
    system_start = 1 + TOOLS
    user_start = system_start + SYSTEM
    spans = [
        {"kind": "system", "start": system_start, "end": user_start},
        {"kind": "user", "start": user_start, "end": user_start + USER},
        {"kind": "assistant", "start": user_start + USER, "end": len(ids)},
    ]
    return {
        "example_id": f"ex{index}",
        "episode_id": f"ep{index}",
        "input_ids": ids,
        "labels": labels,
        "spans_json": json.dumps(spans),
    }


def _rows(count: int = 16) -> list[dict]:
    rng = random.Random(4)
    return [_row(index, rng) for index in range(count)]


def test_the_preamble_ends_at_the_first_turn_that_is_not_the_system_prompt():
    row = _rows(1)[0]
    assert preamble_end(row) == 1 + TOOLS + SYSTEM
    assert preamble_end({**row, "spans_json": None}) == 1  # no spans: nothing is a preamble
    early = list(row["labels"])
    early[5] = row["input_ids"][5]  # a target inside the tool block: the preamble stops before it
    assert preamble_end({**row, "labels": early}) == 5


def test_a_renamed_derivation_keeps_its_preamble():
    """Its call names exist only in its tool block; other derivations warm up like their parent."""
    row = _rows(1)[0]
    renamed = {**row, "episode_id": derived_id(row["episode_id"], "rename", "0a1b2c3d")}
    assert preamble_end(renamed) == 1
    reordered = {**renamed, "episode_id": derived_id(row["episode_id"], "reorder", "0a1b2c3d")}
    assert preamble_end(reordered) == 1 + TOOLS + SYSTEM
    twice = {**row, "episode_id": derived_id(reordered["episode_id"], "rename", "deadbeef")}
    assert preamble_end(twice) == 1
    # a "~" in an imported log's own id is not a derivation
    assert preamble_end({**row, "episode_id": "log~rename-me"}) == 1 + TOOLS + SYSTEM


def test_without_preamble_keeps_every_target_and_the_opening_token():
    [example] = split_examples(
        rows_from_table(pa.Table.from_pylist(_rows(1)), source="t"),
        capacity=256,
        vocab_size=VOCAB,
        validation_fraction=0,
    ).train
    cut = without_preamble(example)
    assert len(cut["input_ids"]) == len(example["input_ids"]) - TOOLS - SYSTEM
    assert cut["input_ids"][0] == example["input_ids"][0]
    targets = [t for t in example["labels"] if t != IGNORE_INDEX]
    assert [t for t in cut["labels"] if t != IGNORE_INDEX] == targets
    assert cut["input_ids"][1:] == example["input_ids"][1 + TOOLS + SYSTEM :]
    assert without_preamble(cut) == cut  # idempotent
    assert without_preamble({**example, "preamble_end": 1}) == {**example, "preamble_end": 1}


def test_exactly_the_first_n_steps_train_without_the_preamble():
    """Step k of a warm-up run is the plain run's step k on cut examples while k < N, and the plain
    run's own step from N on (same data order, same models)."""
    examples = split_examples(
        rows_from_table(pa.Table.from_pylist(_rows()), source="t"),
        capacity=256,
        vocab_size=VOCAB,
        validation_fraction=0,
    ).train
    cut = [without_preamble(e) for e in examples]

    def first_steps(data: list[dict], warmup: int, steps: range) -> list[tuple[float, int, int]]:
        model = tiny_llama(VOCAB, seed=3, shape=SHAPE)
        step = sft_step_function(
            model,
            data,
            examples_per_step=4,
            micro_batches=1,
            capacity=256,
            normalization="token",
            seed=0,
            preamble_warmup_steps=warmup,
        )
        return [(round(s.loss, 5), s.targets, s.stored_tokens) for s in map(step, steps)]

    assert first_steps(examples, 2, range(2)) == first_steps(cut, 0, range(2))
    assert first_steps(examples, 2, range(2, 4)) == first_steps(examples, 0, range(2, 4))
    warm, whole = first_steps(examples, 2, range(1))[0], first_steps(examples, 0, range(1))[0]
    assert warm[1] == whole[1] and warm[2] == whole[2] - 4 * (TOOLS + SYSTEM)


def test_a_run_records_its_warmup_and_validates_on_whole_examples(eval_workdir, tmp_path):
    table = pa.Table.from_pylist(_rows(24))
    outcomes = {
        warmup: run_training(
            TrainRequest(
                out=tmp_path / f"warm-{warmup}",
                workdir=eval_workdir,
                max_steps=2,
                capacity=256,
                examples_per_step=8,
                eval_every=0,
                preamble_warmup_steps=warmup,
            ),
            table,
        )
        for warmup in (0, 2)
    }
    plain, warm = outcomes[0], outcomes[2]
    assert warm.manifest["update"]["preamble_warmup_steps"] == 2
    assert plain.manifest["update"]["preamble_warmup_steps"] == 0
    assert warm.loop.stored_tokens < plain.loop.stored_tokens  # the preambles were left out
    assert warm.loop.validation[-1]["target_count"] == plain.loop.validation[-1]["target_count"]
