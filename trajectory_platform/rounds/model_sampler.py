"""A checkpoint as a round's sampler: the digest its trajectories carry is the checkpoint's content.

``ModelPolicy.describe`` names the model by its directory, which says nothing about the weights in
it (a retrained checkpoint can land in the same folder). The sampler digest here hashes the
checkpoint's content digest (``training.optim.checkpoint.checkpoint_digest``, the same one a release
gate binds) with the rest of the policy's description (decoding, tool view), so two rounds sampled
from different weights never share a digest and the stale-corpus trigger compares the right thing.
"""

from __future__ import annotations

from trajectory_platform.evaluation.policy import ModelPolicy
from trajectory_platform.gym.tools import sha256_digest
from trajectory_platform.rounds.sampling import Sampler
from trajectory_platform.traces.record import canonical_json
from trajectory_platform.training.optim.checkpoint import checkpoint_digest


def model_sampler(policy: ModelPolicy) -> Sampler:
    """The sampler of a checkpoint-backed policy: its checkpoint digest and decoding, digested."""
    checkpoint = checkpoint_digest(policy.model_dir)
    described = {k: v for k, v in policy.describe().items() if k != "model_dir"}  # decoding, tool view
    description = {**described, "checkpoint": checkpoint}
    return Sampler(policy, sha256_digest(canonical_json(description)), model_digest=checkpoint)
