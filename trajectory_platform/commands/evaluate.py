"""``trajectory-platform evaluate``: closed-loop scorecard of a candidate checkpoint against a baseline.

Both arms run the same held-out gym trials (test split of the curation split plan: acceptance,
fault-injected recovery and retention suites) under the same seeds, budgets and decoding. Writes
``OUT/scorecard.json`` (acceptance with the paired interval on the difference, call validity,
SFA / PRE by schema regime, recovery, fabrication and runaway rates, retention, resources, cost per
accepted task, the release decision and its reasons, bound to artifact digests and the evaluation
manifest), ``OUT/episodes.jsonl`` and ``OUT/report.html``. The last stdout line is a JSON summary.
"""

from __future__ import annotations

import argparse
from pathlib import Path

import torch

from trajectory_platform.commands import emit_summary, fail
from trajectory_platform.evaluation.episodes import fault_kinds_seen
from trajectory_platform.evaluation.gate import GateRule
from trajectory_platform.evaluation.harness import SuiteSpec
from trajectory_platform.evaluation.policy import Decoding
from trajectory_platform.evaluation.run import EvaluationRequest, evaluate
from trajectory_platform.training.masked_dataset import read_inputs


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser(
        "evaluate",
        help="closed-loop scorecard + release gate: candidate vs baseline on paired held-out trials",
        description=__doc__.split("\n\n", 1)[1],
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("--candidate", required=True, type=Path, help="checkpoint directory to evaluate")
    parser.add_argument(
        "--baseline",
        type=Path,
        default=None,
        help="incumbent checkpoint (default: the candidate's base model, else the untrained default base)",
    )
    parser.add_argument(
        "--out", required=True, type=Path, help="directory for scorecard.json and report.html"
    )
    parser.add_argument("--episodes", type=int, default=8, help="acceptance trials per arm (default 8)")
    parser.add_argument("--attempts", type=int, default=1, help="seeds per task: pass@k / pass^k when > 1")
    parser.add_argument(
        "--recovery-episodes", type=int, default=None, help="fault-injected trials (default episodes/2)"
    )
    parser.add_argument(
        "--retention-episodes", type=int, default=None, help="retention trials (default episodes/2)"
    )
    parser.add_argument("--seed", type=int, default=0, help="suite draw and episode seed")
    parser.add_argument("--library-seed", type=int, default=0, help="gym fixture library seed")
    parser.add_argument("--learnable-only", action="store_true", help="only the gym's learnable family")
    parser.add_argument("--max-steps", type=int, default=8, help="turn budget per trial")
    parser.add_argument("--max-new-tokens", type=int, default=64, help="output limit per turn")
    parser.add_argument(
        "--max-generated-tokens", type=int, default=600, help="generated-token budget per trial"
    )
    parser.add_argument(
        "--sample", action="store_true", help="sample (pinned seeds) instead of greedy decoding"
    )
    parser.add_argument("--temperature", type=float, default=1.0)
    parser.add_argument("--top-p", type=float, default=1.0)
    parser.add_argument("--alpha", type=float, default=0.05, help="two-sided level of the paired intervals")
    parser.add_argument(
        "--min-gain", type=float, default=0.0, help="gate: the interval's low end must exceed this"
    )
    parser.add_argument(
        "--training-corpus",
        type=Path,
        default=None,
        help="the candidate's training episodes (Parquet / native JSONL): recovery is then split into "
        "fault kinds the corpus showed and kinds it never did",
    )
    parser.add_argument("--workdir", type=Path, default=None, help="where the default base model lives")
    parser.add_argument("--device", default="cpu")
    parser.add_argument(
        "--threads", type=int, default=1, help="torch CPU threads (small models: 1 is fastest)"
    )
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    if (
        not (args.candidate / "config.json").exists()
        and not (args.candidate / "adapter_config.json").exists()
    ):
        return fail(f"{args.candidate}: not a checkpoint directory (no config.json or adapter_config.json)")
    if args.baseline is not None and not (args.baseline / "config.json").exists():
        return fail(f"{args.baseline}: not a checkpoint directory (no config.json)")
    if args.episodes < 1:
        return fail("--episodes must be at least 1")
    if args.training_corpus is not None and not args.training_corpus.exists():
        return fail(f"{args.training_corpus}: no such training corpus")
    torch.set_num_threads(max(1, args.threads))
    fault_kinds = None
    if args.training_corpus is not None:
        inputs, _ = read_inputs(args.training_corpus)
        fault_kinds = fault_kinds_seen([item.episode for item in inputs])
    half = max(1, args.episodes // 2)
    request = EvaluationRequest(
        candidate=args.candidate,
        baseline=args.baseline,
        out=args.out,
        workdir=args.workdir,
        suite=SuiteSpec(
            episodes=args.episodes,
            attempts=args.attempts,
            recovery_episodes=half if args.recovery_episodes is None else args.recovery_episodes,
            retention_episodes=half if args.retention_episodes is None else args.retention_episodes,
            seed=args.seed,
            library_seed=args.library_seed,
            learnable_only=args.learnable_only,
        ),
        decoding=Decoding(
            max_new_tokens=args.max_new_tokens,
            do_sample=args.sample,
            temperature=args.temperature,
            top_p=args.top_p,
            seed=args.seed,
        ),
        max_steps=args.max_steps,
        max_generated_tokens=args.max_generated_tokens,
        rule=GateRule(min_acceptance_ci_low=args.min_gain),
        alpha=args.alpha,
        device=args.device,
        training_fault_kinds=fault_kinds,
    )
    try:
        card = evaluate(request)
    except ValueError as error:
        return fail(str(error))
    acceptance = card["acceptance"]
    emit_summary(
        {
            "scorecard": str(args.out / "scorecard.json"),
            "report": str(args.out / "report.html"),
            "n": card["n"],
            "acceptance": {k: acceptance[k] for k in ("candidate", "baseline")},
            "difference": acceptance["difference"],
            "decision": card["decision"],
            "reasons": card["reasons"],
        }
    )
    return 0
