"""The two-layer, 32-wide Llama the exactness tests of the loss, of its reduction and of the DPO
objective share: small enough for many gradients a test, with two heads so attention mixes
positions. One definition, so the proofs run on the same model shape."""

from trajectory_platform.training.optim.model import TinyLlamaShape

SHAPE = TinyLlamaShape(
    hidden_size=32,
    intermediate_size=64,
    num_hidden_layers=2,
    num_attention_heads=2,
    num_key_value_heads=2,
    max_position_embeddings=256,
)
