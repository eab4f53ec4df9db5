"""Serialize + mask throughput: ours vs ``apply_chat_template(return_assistant_tokens_mask=True)``.

Same conversations, same tokenizer (the embedded default), several conversation lengths. Three
methods:

- ``ours``: :func:`plan_examples` + :func:`mask_plan` (render once, tokenize once with offsets,
  locate spans from role tokens, verify every span, build labels);
- ``hf_assistant_mask``: transformers' ``apply_chat_template(..., return_assistant_tokens_mask=True)``
  (render once with generation markers, no verification, no per-turn selection);
- ``per_turn_rerender``: the quadratic pattern -- re-render and re-tokenize the prefix for every
  assistant turn to find its offsets (what some trainers do); run at the shorter lengths only.

The methods take turns within each repeat; tok/s is each method's best repeat, and ours/hf is the
median over repeats of the two methods' back-to-back throughput ratio (robust to a busy machine).
Prints a table, the scaling exponent of time vs turns per method (1.0 = linear), the agreement of
our target positions with HF's assistant mask, and a JSON object as the last line.

    .venv/bin/python benchmarks/mask.py [--turns 4,16,64,256] [--repeats 9]
"""

from __future__ import annotations

import argparse
import json
import math
import random
import statistics
import tempfile
import time
from pathlib import Path

from trajectory_platform.traces.record import Episode, Event, ToolCall, ToolSpec, canonical_json
from trajectory_platform.training.data.mask_settings import MaskConfig
from trajectory_platform.training.data.masking import TokenIds, mask_plan
from trajectory_platform.training.data.serialize import message_of, plan_examples, select_targets, tool_dict
from trajectory_platform.training.data.tokenizer import build_default_tokenizer, load_tokenizer

RERENDER_MAX_TURNS = 64


def conversation(turns: int, seed: int) -> Episode:
    """A gym-like episode with ``turns`` tool calls (each answered) and a final answer."""
    rng = random.Random(seed)
    schema = {"properties": {"file_path": {"type": "string"}}, "required": ["file_path"], "type": "object"}
    events = [Event("system", "You fix repositories."), Event("user", "What is WIDTH in conf.py?")]
    for k in range(turns):
        path = f"{rng.choice(['conf', 'params', 'limits'])}.py"
        events.append(
            Event(
                "assistant",
                "",
                tool_calls=[ToolCall(f"c{k}", "read_file", canonical_json({"file_path": path}))],
            )
        )
        lines = "\n".join(f"{name} = {rng.randrange(100)}" for name in ("WIDTH", "SIZE", "RATE", "DEPTH"))
        events.append(Event("tool", lines, tool_call_id=f"c{k}", status="ok"))
    events.append(Event("assistant", "18"))
    return Episode(
        episode_id=f"bench-{turns}-{seed}",
        source_format="native",
        source_file="bench",
        source_line=None,
        source_path=None,
        partition_date=None,
        tools=[ToolSpec("read_file", "read a text file", canonical_json(schema))],
        events=events,
    )


def ours(tokenizer, token_ids, episode: Episode) -> tuple[int, set[int]]:
    [plan] = plan_examples(episode, select_targets(episode))
    example = mask_plan(plan, tokenizer, MaskConfig(), token_ids)
    return example.n_tokens, {t for t, lab in enumerate(example.labels) if lab != -100}


def _messages(episode: Episode) -> tuple[list[dict], list[dict]]:
    return [message_of(e, "context") for e in episode.events], [tool_dict(t) for t in episode.tools]


def hf_assistant_mask(tokenizer, episode: Episode) -> tuple[int, set[int]]:
    messages, tools = _messages(episode)
    out = tokenizer.apply_chat_template(
        messages, tools=tools, tokenize=True, return_dict=True, return_assistant_tokens_mask=True
    )
    return len(out["input_ids"]), {t for t, m in enumerate(out["assistant_masks"]) if m}


def per_turn_rerender(tokenizer, episode: Episode) -> tuple[int, set[int]]:
    messages, tools = _messages(episode)
    targets: set[int] = set()
    n = 0
    for k, message in enumerate(messages):
        if message["role"] != "assistant":
            continue
        before = tokenizer.apply_chat_template(messages[:k], tools=tools, tokenize=False)
        through = tokenizer.apply_chat_template(messages[: k + 1], tools=tools, tokenize=False)
        start = len(tokenizer(before + "<|assistant|>", add_special_tokens=False)["input_ids"])
        n = len(tokenizer(through, add_special_tokens=False)["input_ids"])
        targets |= set(range(start, n))
    return n, targets


def timed(methods: dict, episodes: list[Episode], repeats: int) -> dict[str, list[float]]:
    """Seconds per pass over ``episodes``, per method; the methods take turns within every repeat
    (rotated order), so a busy spell on the shared machine hits them alike."""
    seconds: dict[str, list[float]] = {name: [] for name in methods}
    names = list(methods)
    for r in range(repeats):
        for name in names[r % len(names) :] + names[: r % len(names)]:
            start = time.perf_counter()
            for episode in episodes:
                methods[name](episode)
            seconds[name].append(time.perf_counter() - start)
    return seconds


def slope(points: list[tuple[int, float]]) -> float:
    """Least-squares slope of log(seconds per conversation) against log(turns)."""
    xs, ys = [math.log(t) for t, _ in points], [math.log(s) for _, s in points]
    mx, my = sum(xs) / len(xs), sum(ys) / len(ys)
    return sum((x - mx) * (y - my) for x, y in zip(xs, ys, strict=True)) / sum((x - mx) ** 2 for x in xs)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--turns", default="4,16,64,256")
    parser.add_argument("--conversations", type=int, default=8)
    parser.add_argument("--repeats", type=int, default=9)
    parser.add_argument("--tokenizer", type=Path, help="tokenizer directory (default: the embedded default)")
    args = parser.parse_args()
    path = args.tokenizer or build_default_tokenizer(Path(tempfile.gettempdir()) / "tp-bench-workdir")
    tokenizer = load_tokenizer(path)
    token_ids = TokenIds.of(tokenizer)
    methods = {
        "ours": lambda e: ours(tokenizer, token_ids, e),
        "hf_assistant_mask": lambda e: hf_assistant_mask(tokenizer, e),
        "per_turn_rerender": lambda e: per_turn_rerender(tokenizer, e),
    }
    rows, scaling = [], {m: [] for m in methods}
    print(
        f"{'turns':>6} {'tokens/conv':>11} "
        + " ".join(f"{m + ' tok/s':>24}" for m in methods)
        + f" {'ours/hf':>8} {'agree':>6}"
    )
    for turns in [int(t) for t in args.turns.split(",")]:
        episodes = [conversation(turns, seed) for seed in range(args.conversations)]
        run = {n: fn for n, fn in methods.items() if n != "per_turn_rerender" or turns <= RERENDER_MAX_TURNS}
        targets = {name: [fn(e) for e in episodes] for name, fn in run.items()}
        seconds = timed(run, episodes, args.repeats)
        tokens = sum(n for n, _ in targets["ours"])
        row = {"turns": turns, "tokens_per_conversation": tokens / len(episodes)}
        for name, times in seconds.items():
            row[f"{name}_tokens_per_s"] = tokens / min(times)
            scaling[name].append((turns, min(times) / len(episodes)))
        # Throughput ratio per repeat (the two ran back to back), then the median over repeats.
        paired = [hf / ours for ours, hf in zip(seconds["ours"], seconds["hf_assistant_mask"], strict=True)]
        row["ours_vs_hf"] = statistics.median(paired)
        pairs = zip(targets["ours"], targets["hf_assistant_mask"], strict=True)
        row["target_agreement_with_hf"] = sum(a[1] == b[1] for a, b in pairs) / len(episodes)
        rows.append(row)
        cells = " ".join(f"{row.get(f'{m}_tokens_per_s', float('nan')):>24,.0f}" for m in methods)
        print(
            f"{turns:>6} {row['tokens_per_conversation']:>11,.0f} {cells} {row['ours_vs_hf']:>8.2f}"
            f" {row['target_agreement_with_hf']:>6.2f}"
        )
    exponents = {name: round(slope(points), 3) for name, points in scaling.items() if len(points) > 1}
    print("time-vs-turns exponent (1.0 = linear): " + ", ".join(f"{k} {v}" for k, v in exponents.items()))
    print(
        json.dumps(
            {"benchmark": "mask", "rows": rows, "scaling_exponent": exponents, "tokenizer": str(path)},
            sort_keys=True,
        )
    )


if __name__ == "__main__":
    main()
