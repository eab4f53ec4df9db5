"""The two-layer, 32-wide Llama the exactness tests of the loss, of its reduction and of the DPO
objective share: small enough for many gradients a test, with two heads so attention mixes
positions. One definition, so the proofs run on the same model shape; and the one way those tests
build a preference pair."""

from collections.abc import Sequence

from trajectory_platform.training.data.preference_tokens import PreferencePair
from trajectory_platform.training.optim.model import TinyLlamaShape

SHAPE = TinyLlamaShape(
    hidden_size=32,
    intermediate_size=64,
    num_hidden_layers=2,
    num_attention_heads=2,
    num_key_value_heads=2,
    max_position_embeddings=256,
)


def branch_pair(
    pair_id: str, prefix: Sequence[int], chosen: Sequence[int], rejected: Sequence[int]
) -> PreferencePair:
    """A pair whose two sequences share ``prefix`` and then branch: the scored tokens of each are
    exactly its branch, as in a preference pair built from one conversation's two responses."""
    return PreferencePair(
        pair_id,
        (*prefix, *chosen),
        tuple(range(len(prefix), len(prefix) + len(chosen))),
        (*prefix, *rejected),
        tuple(range(len(prefix), len(prefix) + len(rejected))),
    )
