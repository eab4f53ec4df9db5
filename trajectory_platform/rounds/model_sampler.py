"""A checkpoint as a round's sampler: the digest its trajectories carry is the checkpoint's content.

``ModelPolicy.describe`` names the model by content (the checkpoint's digest, the one a release gate
binds, and the tokenizer's), so the sampler digest is the runtime's own rule (the description,
digested: :func:`~trajectory_platform.rounds.sampling.policy_sampler`) and two rounds sampled from
different weights never share a digest; the checkpoint digest also goes into each trajectory's
``model_digest``.
"""

from __future__ import annotations

from dataclasses import replace

from trajectory_platform.evaluation.policy import ModelPolicy
from trajectory_platform.rounds.sampling import Sampler, policy_sampler


def model_sampler(policy: ModelPolicy) -> Sampler:
    """The sampler of a checkpoint-backed policy: its description's digest, and its checkpoint's."""
    return replace(policy_sampler(policy), model_digest=policy.content_digests["checkpoint"])
