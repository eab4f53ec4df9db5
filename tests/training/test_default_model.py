"""The embedded default base: untied embeddings (issue 17) and a cache keyed by tokenizer and shape."""

from __future__ import annotations

import dataclasses
import json

import torch

from trajectory_platform.training.optim.model import (
    DEFAULT_INFO,
    TinyLlamaShape,
    build_default_model,
    load_model,
)


def test_the_default_base_keeps_input_and_output_embeddings_apart(tmp_path, lay_default_tokenizer):
    """Tied, the rows of tokens filling one slot (file-name pieces, digits) collapsed into one input
    vector and could no longer be copied; untied, a token's input row is its own."""
    base = build_default_model(lay_default_tokenizer(tmp_path))
    model = load_model(base, device="cpu")
    assert model.config.tie_word_embeddings is False
    inputs, outputs = model.get_input_embeddings().weight, model.get_output_embeddings().weight
    assert inputs.shape == outputs.shape and inputs.data_ptr() != outputs.data_ptr()
    assert not torch.equal(inputs, outputs)
    info = json.loads((base / DEFAULT_INFO).read_text())
    assert info["shape"] == dataclasses.asdict(TinyLlamaShape())


def test_a_cached_base_of_another_shape_is_rebuilt(tmp_path, lay_default_tokenizer):
    base = build_default_model(lay_default_tokenizer(tmp_path))
    info_file = base / DEFAULT_INFO
    info = json.loads(info_file.read_text())
    assert build_default_model(tmp_path) == base and json.loads(info_file.read_text()) == info  # cached
    stale = {**info, "shape": {**info["shape"], "tie_word_embeddings": True}, "weights_digest": "old"}
    info_file.write_text(json.dumps(stale))  # a base built before the embeddings were untied
    assert build_default_model(tmp_path) == base
    assert json.loads(info_file.read_text()) == info  # rebuilt: same seed and shape, same weights
