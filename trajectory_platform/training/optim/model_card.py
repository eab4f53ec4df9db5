"""The model card (``README.md``) of a checkpoint: what it was trained from, and how it scored.

A checkpoint folder is what people pass around; the card lets them judge it without the platform:
the base model and its digest, the data it was trained on (dataset digest, corpus version, member
count and digest, target policy), the training run (objective, steps, losses, optimizer,
precision) and the candidate's artifact digest, all read from the training manifest. When a
scorecard exists its figures and the release decision with its reasons are added; until then the
card says how to get one. Written when training ends and rewritten where the scorecard is produced;
``checkpoint_digest`` covers the weight and config files only, so the card never changes the
artifact it describes.
"""

from __future__ import annotations

import json
import os
from collections.abc import Mapping
from pathlib import Path
from typing import Any

MODEL_CARD = "README.md"


def _figure(value: Any) -> str:
    if value is None:
        return "n/a"
    return f"{value:.4f}" if isinstance(value, float) else str(value)


def _rates(block: Mapping[str, Any] | None, name: str) -> str:
    if not block:
        return f"| {name} | n/a | n/a | n/a |"
    difference = block.get("difference") or {}
    interval = (
        f"{_figure(difference.get('estimate'))} [{_figure(difference.get('ci_low'))}, "
        f"{_figure(difference.get('ci_high'))}]"
        if difference
        else "n/a"
    )
    return f"| {name} | {_figure(block.get('candidate'))} | {_figure(block.get('baseline'))} | {interval} |"


def _scorecard_lines(scorecard: Mapping[str, Any] | None, report: str | None) -> list[str]:
    if scorecard is None:
        return [
            "No scorecard yet. `trajectory-platform evaluate --candidate THIS_FOLDER --out DIR` measures it "
            "against its base on held-out tasks and adds the release decision here.",
        ]
    lines = [
        f"**Release decision: {scorecard.get('decision')}**",
        "",
        *[f"- {reason}" for reason in scorecard.get("reasons") or []],
        "",
        f"Paired held-out trials per arm: {scorecard.get('n')}. Rates are the share of trials passed; the "
        "difference is candidate minus baseline with its paired interval.",
        "",
        "| measure | candidate | baseline | difference [interval] |",
        "|---|---:|---:|---|",
        _rates(scorecard.get("acceptance"), "acceptance (tests pass)"),
        _rates(scorecard.get("recovery"), "recovery (after an injected fault)"),
        _rates(scorecard.get("retention"), "retention (tasks the base already solved)"),
    ]
    if report:
        lines += ["", f"Full report: `{report}`"]
    return lines


def model_card(
    manifest: Mapping[str, Any], scorecard: Mapping[str, Any] | None = None, report: str | None = None
) -> str:
    """The card's markdown from a training manifest (and a scorecard with its report path)."""
    corpus = manifest.get("corpus") or {}
    update = manifest.get("update") or {}
    results = manifest.get("results") or {}
    candidate = manifest.get("candidate") or {}
    targets = manifest.get("prediction_targets") or {}
    lora = (update.get("parameter_artifact") or {}).get("kind") == "lora"
    header = {
        "library_name": "peft" if lora else "transformers",
        "pipeline_tag": "text-generation",
        "tags": ["trajectory-platform", "tool-use", str(update.get("objective"))],
    }
    front = "---\n" + "\n".join(f"{k}: {json.dumps(v)}" for k, v in header.items()) + "\n---\n"
    validation = results.get("validation") or []
    body = [
        f"# {Path(str(candidate.get('path', 'checkpoint'))).name}",
        "",
        f"A tool-using policy fine-tuned by trajectory_platform ({update.get('objective')}) on verified, "
        "redacted agent episodes, supervised only on the assistant turns curation selected.",
        "",
        "## Base model",
        "",
        f"- path: `{update.get('base_model')}`",
        f"- digest (sha256 of its weights): `{update.get('base_digest')}`",
        "",
        "## Training data",
        "",
        f"- dataset: `{corpus.get('dataset_path')}`, digest `{corpus.get('dataset_digest')}`",
        f"- corpus version: `{corpus.get('corpus_version')}`",
        f"- members: {corpus.get('member_count')} examples, digest `{corpus.get('members_digest')}`",
        f"- targets: {targets.get('target_policy')}; {targets.get('label_convention')}",
        "",
        "## Training",
        "",
        f"- objective {update.get('objective')}, {results.get('steps')} steps, {update.get('precision')}, "
        f"parameters: {(update.get('parameter_artifact') or {}).get('kind')}",
        f"- optimizer: `{json.dumps(update.get('optimizer'), sort_keys=True)}`; seeds "
        f"`{json.dumps(update.get('seeds'), sort_keys=True)}`",
        f"- train loss: {_figure(results.get('train_loss_first'))} -> "
        f"{_figure(results.get('train_loss_last'))}"
        + (f"; last validation loss {_figure(validation[-1].get('loss'))}" if validation else ""),
        f"- artifact digest: `{candidate.get('artifact_digest')}` ({candidate.get('format')})",
        "- everything above and more: `training_manifest.json` in this folder",
        "",
        "## Evaluation",
        "",
        *_scorecard_lines(scorecard, report),
        "",
    ]
    return front + "\n" + "\n".join(body)


def write_model_card(
    checkpoint_dir: Path,
    manifest: Mapping[str, Any],
    scorecard: Mapping[str, Any] | None = None,
    report: str | None = None,
) -> Path:
    """Write (or rewrite) ``checkpoint_dir/README.md`` atomically; returns its path."""
    path = Path(checkpoint_dir) / MODEL_CARD
    tmp = path.with_name(f".{MODEL_CARD}.{os.getpid()}.tmp")
    tmp.write_text(model_card(manifest, scorecard, report), encoding="utf-8")
    os.replace(tmp, path)
    return path
