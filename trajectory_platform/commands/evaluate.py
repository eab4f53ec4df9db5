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

from trajectory_platform.commands import emit_summary, fail
from trajectory_platform.commands._settings import add_settings_arguments, settings_from_args


def register(subparsers: argparse._SubParsersAction) -> None:
    """Add the ``evaluate`` subcommand."""
    from trajectory_platform.evaluation.settings import EvaluationSettings

    parser = subparsers.add_parser(
        "evaluate",
        help="closed-loop scorecard + release gate: candidate vs baseline on paired held-out trials",
        description=__doc__.split("\n\n", 1)[1],
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("--candidate", required=True, type=Path, help="checkpoint directory to evaluate")
    parser.add_argument(
        "--out", required=True, type=Path, help="directory for scorecard.json and report.html"
    )
    add_settings_arguments(parser, EvaluationSettings, {"baseline_path": ("--baseline",)})
    parser.add_argument(
        "--training-corpus",
        type=Path,
        default=None,
        help="the candidate's training episodes (Parquet / native JSONL): recovery is then split into "
        "fault kinds the corpus showed and kinds it never did",
    )
    parser.add_argument("--workdir", type=Path, default=None, help="where the default base model lives")
    parser.add_argument("--device", default="cpu", help="torch device of both arms (default: cpu)")
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    """Check the checkpoints and settings, run both arms, print the scorecard summary."""
    import torch

    from trajectory_platform.evaluation.episodes import fault_kinds_seen
    from trajectory_platform.evaluation.run import EvaluationRequest, evaluate
    from trajectory_platform.evaluation.settings import EvaluationSettings
    from trajectory_platform.training.data.masked_dataset import read_inputs

    if (
        not (args.candidate / "config.json").exists()
        and not (args.candidate / "adapter_config.json").exists()
    ):
        return fail(f"{args.candidate}: not a checkpoint directory (no config.json or adapter_config.json)")
    settings = settings_from_args(EvaluationSettings, args)
    if settings.baseline_path and not (Path(settings.baseline_path) / "config.json").exists():
        return fail(f"{settings.baseline_path}: not a checkpoint directory (no config.json)")
    if settings.episodes < 1:
        return fail("--episodes must be at least 1")
    if settings.max_new_tokens < 0:
        return fail("--max-new-tokens must not be negative")
    if args.training_corpus is not None and not args.training_corpus.exists():
        return fail(f"{args.training_corpus}: no such training corpus")
    torch.set_num_threads(max(1, settings.threads))
    fault_kinds = None
    if args.training_corpus is not None:
        inputs, _ = read_inputs(args.training_corpus)
        fault_kinds = fault_kinds_seen([item.episode for item in inputs])
    request = EvaluationRequest.from_settings(
        settings,
        args.candidate,
        args.out,
        workdir=args.workdir,
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
