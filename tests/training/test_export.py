"""The chat export: per-turn weights, files ``datasets`` loads, TRL tokenizing and training on it.

The equivalence that matters: TRL renders an exported example with the tokenizer's chat template to
exactly the platform's ``input_ids``, and the weighted turns of its assistant mask are exactly the
platform's targets, so training on the export in TRL optimizes what the platform's masks declare.
"""

from __future__ import annotations

import json
import math
from pathlib import Path

import datasets
import pyarrow as pa
import pytest
import yaml
from transformers import AutoModelForCausalLM
from trl import SFTConfig, SFTTrainer

from trajectory_platform.traces.record import Episode, Event, TaskIdentity, ToolCall, ToolSpec, canonical_json
from trajectory_platform.traces.schema import EPISODE_SCHEMA, episode_row
from trajectory_platform.training.data.export import export_chat, weighted_labels
from trajectory_platform.training.data.export_settings import ExportSettings
from trajectory_platform.training.data.export_stage import CorpusRecord, write_export
from trajectory_platform.training.data.labels import IGNORE_INDEX
from trajectory_platform.training.data.mask_settings import MaskConfig
from trajectory_platform.training.data.masked_dataset import build_masked_dataset, inputs_from_table, to_table
from trajectory_platform.training.data.tokenizer import load_tokenizer
from trajectory_platform.training.optim.model import default_base_dir

READ = {"properties": {"file_path": {"type": "string"}}, "required": ["file_path"], "type": "object"}
RUN = {
    "properties": {"pattern": {"type": "string"}, "verbose": {"default": 0, "type": "integer"}},
    "type": "object",
}


def _episode(
    episode_id: str, events: list[Event], *, tool: str = "read_file", schema: dict = READ
) -> Episode:
    return Episode(
        episode_id=episode_id,
        source_format="native",
        source_file=f"{episode_id}.jsonl",
        source_line=1,
        source_path=None,
        partition_date=None,
        task=TaskIdentity(license="MIT"),
        tools=[ToolSpec(tool, f"{tool} tool", canonical_json(schema))],
        events=events,
    )


def _mixture() -> pa.Table:
    """Four episodes: a recovery (first call refused, context), another tool schema with reasoning in
    validation, one with no selected turn, one with no assistant turn."""
    recovery = _episode(
        "ep-a",
        [
            Event("user", "What is WIDTH in conf.py?"),
            Event("assistant", "", tool_calls=[ToolCall("c1", "read_file", '{"path":"conf.py"}')]),
            Event(
                "refusal", "error: missing required argument 'file_path'", tool_call_id="c1", status="refused"
            ),
            Event("assistant", "", tool_calls=[ToolCall("c2", "read_file", '{"file_path":"conf.py"}')]),
            Event("tool", "WIDTH = 18", tool_call_id="c2", status="ok"),
            Event("assistant", "18"),
        ],
    )
    runner = _episode(
        "ep-b",
        [
            Event("system", "You are a careful agent."),
            Event("user", "Run the parser tests."),
            Event(
                "assistant",
                "Running them.",
                reasoning="the parser tests live in tests/",
                tool_calls=[ToolCall("r1", "run_tests", '{"pattern":"parser"}')],
            ),
            Event("tool", "3 passed", tool_call_id="r1", status="ok"),
            Event("assistant", "All 3 pass."),
        ],
        tool="run_tests",
        schema=RUN,
    )
    unselected = _episode("ep-c", recovery.events)
    silent = _episode("ep-d", [Event("user", "hello")])
    fields = [*EPISODE_SCHEMA, pa.field("role", pa.string()), pa.field("split", pa.string())]
    fields.append(pa.field("target_turns", pa.list_(pa.int32())))
    rows = [
        {**episode_row(recovery), "role": "recovery", "split": "train", "target_turns": [3, 5]},
        {**episode_row(runner), "role": "pristine", "split": "validation", "target_turns": [2, 4]},
        {**episode_row(unselected), "role": "recovery", "split": "train", "target_turns": []},
        {**episode_row(silent), "role": "pristine", "split": "train", "target_turns": []},
    ]
    return pa.Table.from_pylist(rows, schema=pa.schema(fields))


CORPUS = {"ep-a": CorpusRecord("lin-a", "permissive"), "ep-b": CorpusRecord("lin-b", "permissive")}
YIELDS = {"verify": {"records_in": 6, "kept": 4, "dropped": 2, "dropped_by_reason": {"failed": 2}}}
LEAK = {"rate": 0.0, "interval": [0.0, 0.0123], "confidence": 0.95, "injected": 300, "leaked": 0}


@pytest.fixture(scope="module")
def exported(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("export")
    write_export(
        inputs_from_table(_mixture()),
        out,
        settings=ExportSettings(rationale="target"),
        corpus=CORPUS,
        yields=YIELDS,
        leak=LEAK,
        provenance={"verified": True, "redacted": True, "by": "test"},
    )
    return out


def test_weights_follow_the_selected_turns_and_every_drop_has_a_reason():
    export = export_chat(inputs_from_table(_mixture()), MaskConfig(rationale="target"), {"ep-a": "lin-a"})
    assert [r["id"] for r in export.rows] == ["ep-a#0", "ep-b#0"]
    recovery, runner = export.rows
    assert [(m["role"], m["weight"]) for m in recovery["messages"]] == [
        ("user", 0),
        ("assistant", 0),  # the refused proposal is context
        ("tool", 0),
        ("assistant", 1),
        ("tool", 0),
        ("assistant", 1),
    ]
    call = recovery["messages"][3]["tool_calls"][0]
    assert call == {
        "id": "c2",
        "type": "function",
        "function": {"name": "read_file", "arguments": '{"file_path":"conf.py"}'},
    }
    assert recovery["messages"][4]["tool_call_id"] == "c2"
    assert recovery["tools"][0]["function"]["parameters"] == READ
    assert recovery["lineage_id"] == "lin-a" and runner["lineage_id"] is None
    assert runner["split"] == "validation" and runner["messages"][2]["reasoning_content"]
    tally = export.tally()
    assert tally.balanced and tally.kept == 2
    assert dict(tally.dropped) == {"no_target": 1, "no_invocation": 1}
    removed = export_chat(inputs_from_table(_mixture()), MaskConfig(rationale="removed"))
    assert all("reasoning_content" not in m for r in removed.rows for m in r["messages"])
    with pytest.raises(ValueError, match="no chat form"):
        export_chat(inputs_from_table(_mixture()), MaskConfig(rationale="context"))


def test_datasets_loads_the_jsonl_and_the_folder_exactly(exported: Path, tmp_path: Path):
    expected = [json.loads(line) for line in (exported / "chat.jsonl").read_text().splitlines()]
    assert [r["id"] for r in expected] == ["ep-a#0", "ep-b#0"]
    cache = str(tmp_path / "cache")
    lines = datasets.load_dataset(
        "json", data_files=str(exported / "chat.jsonl"), split="train", cache_dir=cache
    )
    for loaded, row in zip(lines, expected, strict=True):
        assert [{k: v for k, v in m.items() if v is not None} for m in loaded["messages"]] == row["messages"]
        assert loaded["tools"] == row["tools"]
    folder = datasets.load_dataset(str(exported / "hf"), cache_dir=cache)
    assert {name: split.num_rows for name, split in folder.items()} == {"train": 1, "validation": 1}
    assert folder["train"][0]["messages"] == expected[0]["messages"]  # Json features: exact dicts back
    assert folder["validation"][0]["tools"] == expected[1]["tools"]


def test_dataset_card_states_provenance_licences_yields_leak_and_splits(exported: Path, tmp_path: Path):
    card = (exported / "hf" / "README.md").read_text()
    header = yaml.safe_load(card.split("---\n")[1])
    assert header["license"] == "mit"
    assert header["configs"][0]["data_files"] == [
        {"split": "train", "path": "data/train.parquet"},
        {"split": "validation", "path": "data/validation.parquet"},
    ]
    assert "`MIT` 2" in card and "`permissive` 2" in card
    assert "2 sealed lineage envelopes" in card and "`native` 2" in card
    assert "| verify | 6 | 4 | 2 | `failed` 2 |" in card
    assert "| export | 4 | 2 | 2 | `no_invocation` 1, `no_target` 1 |" in card
    assert "Λ_leak = 0.0000" in card and "[0.0000, 0.0123]" in card
    assert "| validation | 1 | `data/validation.parquet` |" in card
    again = tmp_path / "again"
    write_export(
        inputs_from_table(_mixture()),
        again,
        settings=ExportSettings(rationale="target"),
        corpus=CORPUS,
        yields=YIELDS,
        leak=LEAK,
        provenance={"verified": True, "redacted": True, "by": "test"},
    )
    for name in ("chat.jsonl", "hf/README.md", "hf/data/train.parquet", "hf/data/validation.parquet"):
        assert (again / name).read_bytes() == (exported / name).read_bytes(), name


def test_trl_tokenizes_the_export_as_the_platform_masks_and_trains(
    exported: Path, eval_workdir: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
):
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    base = default_base_dir(eval_workdir)
    tokenizer = load_tokenizer(base)
    platform = to_table(
        build_masked_dataset(inputs_from_table(_mixture()), tokenizer, MaskConfig(rationale="target"))
    )
    masked = {row["example_id"]: row for row in platform.to_pylist()}
    data = datasets.load_dataset(
        "json", data_files=str(exported / "chat.jsonl"), split="train", cache_dir=str(tmp_path / "cache")
    )
    args = SFTConfig(
        output_dir=str(tmp_path / "trl"),
        assistant_only_loss=True,
        max_steps=2,
        per_device_train_batch_size=2,
        learning_rate=1e-3,
        logging_steps=1,
        save_strategy="no",
        report_to="none",
        use_cpu=True,
        dataloader_num_workers=0,
    )
    model = AutoModelForCausalLM.from_pretrained(base)
    trainer = SFTTrainer(model=model, args=args, train_dataset=data, processing_class=tokenizer)
    prepared = trainer.train_dataset
    for example, tokens in zip(data, prepared, strict=True):
        reference = masked[example["id"]]
        assert tokens["input_ids"] == reference["input_ids"]
        rendered = tokenizer.apply_chat_template(
            example["messages"],
            tools=example["tools"],
            return_dict=True,
            return_assistant_tokens_mask=True,
        )
        labels = weighted_labels(example["messages"], rendered["input_ids"], rendered["assistant_masks"])
        assert labels == reference["labels"]
        # TRL alone trains every assistant turn: the refused proposal too, which the weights leave out
        trl_targets = sum(label != IGNORE_INDEX for label in tokens["labels"])
        assert trl_targets >= sum(label != IGNORE_INDEX for label in labels)
    batch = trainer.data_collator([prepared[0], prepared[1]])
    assert batch["labels"].shape == batch["input_ids"].shape
    trainer.train()
    losses = [entry["loss"] for entry in trainer.state.log_history if "loss" in entry]
    assert len(losses) == 2 and all(math.isfinite(loss) for loss in losses)


def test_weighted_labels_refuses_a_mask_that_does_not_match_the_turns():
    messages = [{"role": "user", "content": "q"}, {"role": "assistant", "content": "a", "weight": 1}]
    assert weighted_labels(messages, [5, 6, 7, 8], [0, 0, 1, 1]) == [IGNORE_INDEX, IGNORE_INDEX, 7, 8]
    with pytest.raises(ValueError, match="2 turns but the example 1"):
        weighted_labels(messages, [5, 6, 7, 8], [1, 0, 1, 1])
