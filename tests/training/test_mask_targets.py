"""Selected-target masks: recovery conversation, label alignment, rationale, truncation, stats."""

from __future__ import annotations

import itertools
import json
import re
from pathlib import Path

import pytest
import torch
from tokenizers import normalizers, processors
from transformers import LlamaConfig, LlamaForCausalLM

from trajectory_platform.traces.drops import Drop
from trajectory_platform.traces.ingest import ingest_paths
from trajectory_platform.traces.record import Episode, Event, ToolCall, ToolSpec, canonical_json
from trajectory_platform.training.data.chat_template import END_TURN
from trajectory_platform.training.data.labels import IGNORE_INDEX
from trajectory_platform.training.data.mask_settings import MaskConfig
from trajectory_platform.training.data.masking import (
    MASK_DROP_REASONS,
    Misaligned,
    dilution_factor,
    label_misalignment,
    mask_plan,
    mask_plans,
    target_share,
)
from trajectory_platform.training.data.serialize import plan_examples, select_targets
from trajectory_platform.training.data.tokenizer import load_tokenizer

EDIT_SCHEMA = {
    "type": "object",
    "properties": {"path": {"type": "string"}, "patch": {"type": "string"}},
    "required": ["path", "patch"],
}


def _tool(name: str, description: str, parameters: dict) -> dict:
    function = {"name": name, "description": description, "parameters": parameters}
    return {"type": "function", "function": function}


def _call(call_id: str, name: str, arguments: str) -> list[dict]:
    return [{"id": call_id, "type": "function", "function": {"name": name, "arguments": arguments}}]


RECOVERY = {
    "tools": [
        _tool("edit_file", "Edit a file.", EDIT_SCHEMA),
        _tool("show_schema", "Show a schema.", {"type": "object", "properties": {"tool": {}}}),
    ],
    "messages": [
        {"role": "system", "content": "You repair code."},
        {"role": "user", "content": "Fix the pool leak in src/pool.py"},
        {
            "role": "assistant",
            "content": "",
            "weight": 0,
            "tool_calls": _call("c1", "edit_file", '{"file_path": "src/pool.py"}'),
        },
        {"role": "tool", "tool_call_id": "c1", "content": "refused: missing required argument 'path'"},
        {
            "role": "assistant",
            "content": "Checking the schema.",
            "weight": 1,
            "tool_calls": _call("c2", "show_schema", '{"tool": "edit_file"}'),
        },
        {"role": "tool", "tool_call_id": "c2", "content": "edit_file(path: str, patch: str)"},
        {
            "role": "assistant",
            "content": "",
            "tool_calls": _call("c3", "edit_file", '{"path": "src/pool.py", "patch": "release()"}'),
        },
        {"role": "tool", "tool_call_id": "c3", "content": "ok: 3 passed"},
        {"role": "assistant", "content": "Fixed: the pool now releases connections."},
    ],
}


@pytest.fixture(scope="module")
def tok(default_tokenizer):
    return load_tokenizer(default_tokenizer)


@pytest.fixture
def recovery_episode(tmp_path) -> Episode:
    path = tmp_path / "recovery.jsonl"
    path.write_text(json.dumps(RECOVERY) + "\n")
    result = ingest_paths([path])
    assert len(result.episodes) == 1 and not result.rejects
    return result.episodes[0]


def target_runs(tok, example) -> list[str]:
    """Decode each maximal run of target positions."""
    runs = []
    for is_target, group in itertools.groupby(
        range(len(example.labels)), key=lambda t: example.labels[t] != IGNORE_INDEX
    ):
        if is_target:
            runs.append(tok.decode([example.input_ids[t] for t in group]))
    return runs


def test_recovery_targets_are_exactly_the_selected_turns_with_end_tokens(tok, recovery_episode):
    selection = select_targets(recovery_episode)
    assert selection.policy == "openai_weight" and selection.indices == {4, 6, 8}
    [example] = mask_plans(plan_examples(recovery_episode, selection), tok, MaskConfig()).examples
    assert target_runs(tok, example) == [
        "Checking the schema."
        '<|call|>{"name": "show_schema", "arguments": {"tool": "edit_file"}}<|end_call|>' + END_TURN,
        '<|call|>{"name": "edit_file", "arguments": '
        '{"path": "src/pool.py", "patch": "release()"}}<|end_call|>' + END_TURN,
        "Fixed: the pool now releases connections." + END_TURN,
    ]
    for span in example.spans:
        targets = span.target_end - span.target_start
        if span.kind != "assistant" or span.event_index == 2:
            assert targets == 0, span  # the refused call, every observation, system and user are context
    assert label_misalignment(example.input_ids, example.labels) is None


def test_without_weights_refused_proposals_are_still_context(tok, recovery_episode):
    for event in recovery_episode.events:
        event.weight = None
    recovery_episode.events[3].status = "refused"
    selection = select_targets(recovery_episode)
    assert selection.policy == "all_assistant_except_refused" and selection.indices == {4, 6, 8}
    # Curation's selection wins, and a tool event is never a target.
    assert select_targets(recovery_episode, target_turns=[6, 3]).indices == {6}


def test_label_convention_single_shift_and_double_shift_detected(tok, recovery_episode):
    [example] = mask_plans(
        plan_examples(recovery_episode, select_targets(recovery_episode)), tok, MaskConfig()
    ).examples
    double_shifted = example.labels[1:] + [IGNORE_INDEX]
    assert label_misalignment(example.input_ids, double_shifted) is not None
    # The model shifts exactly once: its loss equals our manual logits[t-1] -> labels[t] loss.
    torch.manual_seed(0)
    config = LlamaConfig(
        vocab_size=len(tok),
        hidden_size=32,
        intermediate_size=64,
        num_hidden_layers=1,
        num_attention_heads=4,
        num_key_value_heads=4,
    )
    model = LlamaForCausalLM(config).eval()
    ids, labels = torch.tensor([example.input_ids]), torch.tensor([example.labels])
    with torch.no_grad():
        out = model(input_ids=ids, labels=labels)
    manual = torch.nn.functional.cross_entropy(out.logits[0, :-1], labels[0, 1:], ignore_index=IGNORE_INDEX)
    assert float(out.loss) == pytest.approx(float(manual), rel=1e-5)
    first_target = example.labels.index(next(lab for lab in example.labels if lab != IGNORE_INDEX))
    assert tok.convert_ids_to_tokens(example.input_ids[first_target - 1]) == "<|assistant|>"


def _episode(events, tools=()) -> Episode:
    return Episode(
        episode_id="ep",
        source_format="native",
        source_file="t",
        source_line=1,
        source_path=None,
        partition_date=None,
        tools=list(tools),
        events=events,
    )


def test_rationale_modes_and_truncated_turns(tok):
    events = [
        Event("user", "List the files."),
        Event(
            "assistant",
            "",
            reasoning="Use list_dir first.",
            tool_calls=[ToolCall("c1", "list_dir", '{"path": "."}')],
        ),
        Event("tool", "a.py b.py", tool_call_id="c1", status="ok"),
        Event("assistant", "The files are a.py and", finish_reason="length"),
    ]
    episode = _episode(events, [ToolSpec("list_dir", "List.", json.dumps({"type": "object"}))])
    counts = {}
    for mode in ("target", "context", "removed"):
        [example] = mask_plans(
            plan_examples(episode, select_targets(episode), mode), tok, MaskConfig(rationale=mode)
        ).examples
        runs = target_runs(tok, example)
        counts[mode] = (example.n_targets, example.n_tokens)
        assert runs[0].endswith(END_TURN)
        assert ("Use list_dir first." in runs[0]) == (mode == "target")
        assert ("Use list_dir first." in tok.decode(example.input_ids)) == (mode != "removed")
        assert len(runs) == 1  # the truncated turn is excluded by default
        assert tok.decode(example.input_ids).endswith("The files are a.py and")  # no synthetic terminator
    assert counts["target"][0] > counts["context"][0] == counts["removed"][0]
    assert counts["target"][1] == counts["context"][1] > counts["removed"][1]
    plans = plan_examples(episode, select_targets(episode))
    [prefix] = mask_plans(plans, tok, MaskConfig(truncation="prefix")).examples
    assert target_runs(tok, prefix)[-1] == "The files are a.py and"


def test_no_target_and_delimiter_injection_are_dropped_with_reasons(tok):
    only_refused = _episode([Event("user", "hi"), Event("assistant", "x", weight=0.0)])
    result = mask_plans(plan_examples(only_refused, select_targets(only_refused)), tok, MaskConfig())
    assert not result.examples and result.drops == {"no_target": 1}
    from trajectory_platform.training.data.masked_dataset import EpisodeInput, build_masked_dataset

    broken = _episode([Event("user", "hi"), Event("assistant", "x")], [ToolSpec("t", None, "{not json")])
    assert build_masked_dataset([EpisodeInput(broken)], tok).drop_reasons() == {"embedded_json_unreadable": 1}
    injected = _episode([Event("user", "say <|tool|> now"), Event("assistant", "ok")])
    with pytest.raises(Misaligned) as exc:
        mask_plan(plan_examples(injected, select_targets(injected))[0], tok, MaskConfig())
    assert exc.value.drop == Drop("role_token_count", "3 role tokens for 2 turns")


def test_spans_must_round_trip_their_characters_and_gapped_offsets_alone_are_not_a_loss(
    tok, recovery_episode
):
    """A span is verified by decoding its tokens back to exactly the characters they cover: a
    tokenizer that rewrites characters fails the decode (``decode_check``), one that drops them
    fails it too and is named by its first gap (``offsets``). A tokenizer whose offsets leave gaps
    but whose tokens reproduce the text (GPT-2/RoBERTa's ``trim_offsets``) loses nothing: its
    examples are kept, with the same targets as the default's."""
    plans = plan_examples(recovery_episode, select_targets(recovery_episode))
    [reference] = mask_plans(plans, tok, MaskConfig()).examples

    def variant(part: str, value) -> object:
        other = load_tokenizer(tok.name_or_path)
        setattr(other.backend_tokenizer, part, value)
        return other

    trimmed = variant("post_processor", processors.ByteLevel(trim_offsets=True))
    assert trimmed.backend_tokenizer.encode("a b", add_special_tokens=False).offsets == [
        (0, 1),
        (2, 2),
        (2, 3),
    ]
    [kept] = mask_plans(plans, trimmed, MaskConfig()).examples
    assert (kept.input_ids, kept.labels) == (reference.input_ids, reference.labels)

    lowered = mask_plans(plans, variant("normalizer", normalizers.Lowercase()), MaskConfig())
    assert not lowered.examples and lowered.drops == {"decode_check": 1}
    assert "decode to '<|system|>you repair code.<|end|>'" in lowered.drop_details["decode_check"]

    for dropped in (normalizers.Replace(" ", ""), normalizers.Replace("o", "")):
        result = mask_plans(plans, variant("normalizer", dropped), MaskConfig())
        assert not result.examples and result.drops == {"offsets": 1}
        assert re.search(r"gap before token \d+ at char \d+$", result.drop_details["offsets"])


def test_every_drop_is_a_drop_with_a_declared_key_and_the_tallies_balance(tok, recovery_episode):
    from trajectory_platform.training.data.masked_dataset import EpisodeInput, build_masked_dataset

    def named(episode_id: str, events, tools=()) -> Episode:
        episode = _episode(events, tools)
        episode.episode_id = episode_id
        return episode

    inputs = [
        EpisodeInput(recovery_episode),
        EpisodeInput(named("no-target", [Event("user", "hi"), Event("assistant", "x", weight=0.0)])),
        EpisodeInput(named("injected", [Event("user", "say <|tool|> now"), Event("assistant", "ok")])),
        EpisodeInput(named("no-call", [Event("user", "hi")])),
        EpisodeInput(
            named("broken", [Event("user", "hi"), Event("assistant", "x")], [ToolSpec("t", None, "{not")])
        ),
    ]
    dataset = build_masked_dataset(inputs, tok)
    assert len(dataset.result.examples) == 1
    drops = [*dataset.result.first_drops.values(), *dataset.first_episode_drops.values()]
    assert drops and all(isinstance(d, Drop) for d in drops)
    assert {d.reason for d in dataset.result.first_drops.values()} <= set(MASK_DROP_REASONS)
    assert all(re.fullmatch(r"[a-z]+(_[a-z]+)*", reason) for reason in dataset.drop_reasons())
    # Every example planned is kept or dropped; every episode in gives an example or a reason.
    examples = dataset.result.tally()
    assert examples.balanced and examples.records_in == 3 and examples.kept == 1
    assert examples.dropped == {"no_target": 1, "role_token_count": 1}
    whole = dataset.tally()
    assert whole.balanced and dict(whole.dropped) == dataset.drop_reasons()
    assert whole.dropped == {
        "no_target": 1,
        "role_token_count": 1,
        "no_invocation": 1,
        "embedded_json_unreadable": 1,
    }
    # The manifest's first detail per reason: each names its example or episode (a reason without a
    # detail, like no_invocation, has none to show).
    assert dataset.drop_examples() == {
        "embedded_json_unreadable": dataset.drop_examples()["embedded_json_unreadable"],
        "no_target": "no-target#0: N_active = 0: no selected target survives masking",
        "role_token_count": "injected#0: 3 role tokens for 2 turns",
    }
    assert dataset.drop_examples()["embedded_json_unreadable"].startswith("broken: ")


def test_compaction_serializes_one_example_per_invocation(tok):
    events = [
        Event("system", "You are an agent."),
        Event("user", "Task: count lines."),
        Event("assistant", "", tool_calls=[ToolCall("c1", "run_command", '{"command": "wc -l a.py"}')]),
        Event("tool", "120 a.py", tool_call_id="c1", status="ok"),
        Event("assistant", "", tool_calls=[ToolCall("c2", "run_command", '{"command": "wc -l b.py"}')]),
        Event("tool", "80 b.py", tool_call_id="c2", status="ok"),
        Event("compaction", "Summary: a.py has 120 lines, b.py has 80.", replaces_through=5),
        Event("assistant", "200 lines in total."),
    ]
    episode = _episode(events)
    plans = plan_examples(episode, select_targets(episode))
    assert [p.invocations for p in plans] == [[2, 4], [7]]
    # Without a manifest: system and task kept, raw turns 2-5 replaced by the summary.
    assert [t.event_index for t in plans[1].turns] == [0, 1, 6, 7]
    examples = mask_plans(plans, tok, MaskConfig()).examples
    assert [target_runs(tok, e)[-1] for e in examples] == [
        '<|call|>{"name": "run_command", "arguments": {"command": "wc -l b.py"}}<|end_call|>' + END_TURN,
        "200 lines in total." + END_TURN,
    ]
    assert "120 a.py" not in tok.decode(examples[1].input_ids)


def test_napkin_math_16_1_test_vector():
    assert dilution_factor(16_384, 800) == pytest.approx(20.5, abs=0.05)
    assert dilution_factor(16_384, 2_200) == pytest.approx(7.4, abs=0.05)
    assert target_share(16_384, 800) == pytest.approx(0.049, abs=5e-4)
    assert target_share(16_384, 2_200) == pytest.approx(0.134, abs=5e-4)
    observation_share = 12_640 / 16_384
    assert observation_share == pytest.approx(0.771, abs=5e-4)
    # Doubling observations: (16,384 + 12,640 - 1) / 800 = 36.3x (the seed's systems insight).
    assert dilution_factor(16_384 + 12_640, 800) == pytest.approx(36.3, abs=0.05)


def test_cli_writes_jsonl_and_manifest(tmp_path, tok):
    from trajectory_platform.cli import main

    src = tmp_path / "in.jsonl"
    src.write_text(json.dumps(RECOVERY) + "\n")
    out = tmp_path / "o" / "out.jsonl"
    argv = ["mask", str(src), "--out", str(out), "--tokenizer", tok.name_or_path, "--no-progress"]
    assert main([*argv, "--unsafe-unverified-input"]) == 0  # a hand-made episode: nothing verified it
    [row] = [json.loads(line) for line in out.read_text().splitlines()]
    assert len(row["input_ids"]) == len(row["labels"]) and row["n_targets"] > 0
    manifest = json.loads(Path(f"{out}.manifest.json").read_text())
    assert Path(manifest["tokenizer_path"]) == Path(tok.name_or_path).resolve()
    assert manifest["counts"]["examples_out"] == 1 and manifest["rationale_mode"] == "context"


def test_pruned_manifests_give_per_invocation_examples_and_an_expansion_factor(tok):
    from trajectory_platform.traces.record import DeliveredInput
    from trajectory_platform.training.data.masked_dataset import EpisodeInput, build_masked_dataset

    events = [Event("user", "Sum the files.")]
    for k in range(3):
        call = ToolCall(f"c{k}", "read_file", f'{{"file_path":"f{k}"}}')
        events += [
            Event("assistant", "", tool_calls=[call]),
            Event("tool", f"{k + 1}0 lines", tool_call_id=f"c{k}", status="ok"),
        ]
    events.append(Event("assistant", "60"))
    episode = _episode(events)

    # The runtime pruned every observation but the latest one from each call's input.
    def kept(response: int) -> list[int]:
        return [j for j in range(response) if events[j].kind != "tool" or j == response - 1]

    episode.delivered_inputs = [DeliveredInput(call, r, kept(r)) for call, r in enumerate((1, 3, 5, 7))]
    dataset = build_masked_dataset([EpisodeInput(episode)], tok)
    examples = dataset.result.examples
    # Call 3 still saw an append-only history, so it shares call 1's example; 5 and 7 saw pruned ones.
    assert [e.invocations for e in examples] == [[1, 3], [5], [7]]
    assert all(e.n_targets > 0 for e in examples) and dataset.per_invocation_episodes == 1
    assert "10 lines" not in tok.decode(examples[2].input_ids)  # pruned before call 5
    assert (
        dataset.expansion_factor
        == pytest.approx(sum(e.n_tokens for e in examples) / dataset.transcript_tokens)
        and dataset.expansion_factor > 1.3
    )
    # A call whose compacted input is shown nowhere is dropped with a reason, not guessed.
    episode.delivered_inputs[2] = DeliveredInput(2, 5, None, None, compacted=True)
    dataset = build_masked_dataset([EpisodeInput(episode)], tok)
    assert dataset.drop_reasons() == {"compacted_prefix_unknown": 1}
    assert [e.invocations for e in dataset.result.examples] == [[1, 3], [7]]


CHATML = (
    "{%- for message in messages -%}"
    "{{- '<|im_start|>' + message.role + '\\n' -}}"
    "{%- if message.role == 'assistant' -%}"
    "{%- generation -%}"
    "{{- message.content or '' -}}"
    "{%- for call in message.tool_calls or [] -%}"
    "{{- '<tool_call>' + call.function.name + ' ' + call.function.arguments + '</tool_call>' -}}"
    "{%- endfor -%}"
    "{{- '<|im_end|>' -}}"
    "{%- endgeneration -%}"
    "{{- '\\n' -}}"
    "{%- else -%}"
    "{{- (message.content or '') + '<|im_end|>\\n' -}}"
    "{%- endif -%}"
    "{%- endfor -%}"
)


def test_a_foreign_chat_template_goes_through_the_same_code(tok, recovery_episode, tmp_path):
    """Any HF tokenizer whose template marks {% generation %} works: ChatML-style, other terminator."""
    foreign = load_tokenizer(tok.name_or_path)
    foreign.add_special_tokens({"eos_token": "<|im_end|>", "additional_special_tokens": ["<|im_start|>"]})
    foreign.chat_template = CHATML
    foreign.save_pretrained(tmp_path / "chatml")
    foreign = load_tokenizer(tmp_path / "chatml")
    [example] = mask_plans(
        plan_examples(recovery_episode, select_targets(recovery_episode)), foreign, MaskConfig()
    ).examples
    assert target_runs(foreign, example) == [
        'Checking the schema.<tool_call>show_schema {"tool": "edit_file"}</tool_call><|im_end|>',
        '<tool_call>edit_file {"path": "src/pool.py", "patch": "release()"}</tool_call><|im_end|>',
        "Fixed: the pool now releases connections.<|im_end|>",
    ]
    assert example.observation_tokens > 0 and label_misalignment(example.input_ids, example.labels) is None
    # A template without generation markers cannot be mapped: every example is dropped, with the reason.
    foreign.chat_template = CHATML.replace("{%- generation -%}", "").replace("{%- endgeneration -%}", "")
    plans = plan_examples(recovery_episode, select_targets(recovery_episode))
    result = mask_plans(plans, foreign, MaskConfig())
    assert not result.examples and result.drops == {"generation_blocks": 1}


def test_gym_shaped_compacted_manifests_share_one_example_after_each_compaction(tok):
    import dataclasses

    from trajectory_platform.traces.record import DeliveredInput

    events = [Event("system", "Agent."), Event("user", "Fix conf.py.")]
    for k in range(2):
        read = ToolCall(f"c{k}", "read_file", '{"file_path":"conf.py"}')
        events += [
            Event("assistant", "", tool_calls=[read]),
            Event("tool", f"WIDTH = {k}", tool_call_id=f"c{k}", status="ok"),
        ]
    events.append(Event("compaction", "Summary: read conf.py once.", replaces_through=3))
    events += [
        Event("assistant", "", tool_calls=[ToolCall("c2", "run_tests", "{}")]),
        Event("tool", "1 passed", tool_call_id="c2", status="ok"),
        Event("assistant", "Done."),
    ]

    def manifest(call: int, response: int, indices: list[int]) -> DeliveredInput:
        compacted = 6 in indices
        messages = canonical_json([dataclasses.asdict(events[j]) for j in indices]) if compacted else None
        return DeliveredInput(call, response, indices, messages, compacted=compacted)

    episode = _episode(events)
    episode.delivered_inputs = [
        manifest(0, 2, [0, 1]),
        manifest(1, 4, [0, 1, 2, 3]),
        manifest(2, 7, [0, 1, 6, 4, 5]),
        manifest(3, 9, [0, 1, 6, 4, 5, 7, 8]),
    ]
    plans = plan_examples(episode, select_targets(episode))
    assert [p.invocations for p in plans] == [[2, 4], [7, 9]]
    assert [t.event_index for t in plans[1].turns] == [0, 1, 6, 4, 5, 7, 8, 9]
    assert [t.target for t in plans[1].turns] == [False] * 5 + [True, False, True]  # call 4 was trained in #0
