"""The embedded default policy model and the one loader every model goes through.

No model hub is reachable, so the default is a small Llama-style causal LM, randomly
initialised from a seed on top of the locally trained default tokenizer, built once and cached
under ``<workdir>/models/default_base``. Any local Hugging Face causal-LM directory can be
configured instead; :func:`load_model` treats both identically, which is what keeps the default
an honest stand-in rather than a special case (see docs/training.md for what it can learn).
"""

from __future__ import annotations

import hashlib
import json
import shutil
import tempfile
from dataclasses import asdict, dataclass
from pathlib import Path

import torch
from transformers import AutoModelForCausalLM, LlamaConfig, LlamaForCausalLM, PreTrainedModel

from trajectory_platform.workdir import default_workdir

DEFAULT_BASE_DIRNAME = "models/default_base"
DEFAULT_MODEL_SEED = 0
DEFAULT_INFO = "default_model.json"


@dataclass(frozen=True)
class TinyLlamaShape:
    """Size of a from-scratch Llama; the defaults match the evaluation pilot (~0.6M parameters).

    Three layers of width 128 are the largest that trains a few thousand steps in minutes on two
    CPU cores. The input and output embeddings are *not* tied, though the vocabulary then holds
    two thirds of the parameters: tied, the rows of tokens that fill the same slot (the six first
    pieces of a file name, the digits of a value) were pulled toward one output direction until
    they were nearly the same input vector (cosine 0.97 and 0.79 after 2,000 steps), and a copy of
    one of them from the prompt or an observation could no longer tell them apart (issue 17,
    docs/training.md).
    """

    hidden_size: int = 128
    intermediate_size: int = 256
    num_hidden_layers: int = 3
    num_attention_heads: int = 4
    num_key_value_heads: int = 4
    max_position_embeddings: int = 4096
    rope_theta: float = 10000.0
    tie_word_embeddings: bool = False


def tiny_llama(
    vocab_size: int,
    *,
    seed: int = DEFAULT_MODEL_SEED,
    shape: TinyLlamaShape = TinyLlamaShape(),
    bos_token_id: int | None = None,
    eos_token_id: int | None = None,
    pad_token_id: int | None = None,
) -> LlamaForCausalLM:
    """A randomly initialised Llama whose weights depend only on ``seed`` and the shape."""
    config = LlamaConfig(
        vocab_size=vocab_size,
        attention_dropout=0.0,
        bos_token_id=bos_token_id,
        eos_token_id=eos_token_id,
        pad_token_id=pad_token_id,
        **asdict(shape),
    )
    generator_state = torch.random.get_rng_state()
    torch.manual_seed(seed)
    try:
        model = LlamaForCausalLM(config)
    finally:
        torch.random.set_rng_state(generator_state)
    return model.eval()


def default_base_dir(workdir: Path) -> Path:
    return Path(workdir) / DEFAULT_BASE_DIRNAME


def build_default_model(workdir: Path, *, seed: int = DEFAULT_MODEL_SEED) -> Path:
    """Build (once) and return the cached default base: default tokenizer + seeded tiny Llama.

    A second call returns the cached directory untouched, so every stage (training, the untrained
    baseline in evaluation) sees the same weights digest. The cache is keyed by the default
    tokenizer's files digest and the shape: a rebuilt tokenizer (new vocabulary) or another shape
    gets a new base.
    """
    from trajectory_platform.training.data.tokenizer import (
        build_default_tokenizer,
        load_tokenizer,
        tokenizer_files_digest,
    )

    tokenizer_dir = build_default_tokenizer(workdir)
    tokenizer_digest = tokenizer_files_digest(tokenizer_dir)
    target = default_base_dir(workdir)
    info_file = target / DEFAULT_INFO
    if info_file.exists():
        built = json.loads(info_file.read_text())
        same_shape = built.get("shape") == asdict(TinyLlamaShape())
        if built.get("tokenizer_digest") == tokenizer_digest and same_shape:
            return target
    tokenizer = load_tokenizer(tokenizer_dir)
    model = tiny_llama(
        len(tokenizer),
        seed=seed,
        bos_token_id=tokenizer.bos_token_id,
        eos_token_id=tokenizer.eos_token_id,
        pad_token_id=tokenizer.pad_token_id,
    )
    target.parent.mkdir(parents=True, exist_ok=True)
    staging = Path(tempfile.mkdtemp(prefix=".default_base.", dir=target.parent))
    model.save_pretrained(staging)
    tokenizer.save_pretrained(staging)
    info = {
        "seed": seed,
        "shape": asdict(TinyLlamaShape()),
        "weights_digest": weights_digest(model),
        "tokenizer_digest": tokenizer_digest,
    }
    # Written last: its presence marks a complete build.
    (staging / DEFAULT_INFO).write_text(json.dumps(info, indent=2, sort_keys=True))
    if target.exists():
        shutil.rmtree(target)
    staging.rename(target)
    return target


def load_model(
    path: Path | str | None = None,
    *,
    workdir: Path | None = None,
    device: str | torch.device = "cpu",
    attn_implementation: str = "sdpa",
) -> PreTrainedModel:
    """Load a local causal LM directory, or the cached default base when ``path`` is None.

    Weights stay in float32: on CUDA the loops run under bf16 autocast, which keeps fp32 master
    weights and optimizer moments (the precision the memory inventory declares).
    """
    if path is None:
        path = build_default_model(workdir or default_workdir())
    model = AutoModelForCausalLM.from_pretrained(
        str(path), dtype=torch.float32, attn_implementation=attn_implementation
    )
    # transformers wraps PreTrainedModel.to with functools.wraps, whose type loses the bound self
    return model.to(device)


def weights_digest(model: torch.nn.Module) -> str:
    """sha256 over parameter names, dtypes, shapes and bytes: binds a checkpoint's exact weights."""
    digest = hashlib.sha256()
    for name, tensor in sorted(model.state_dict().items()):
        cpu = tensor.detach().to("cpu").contiguous()
        digest.update(f"{name}|{cpu.dtype}|{tuple(cpu.shape)}".encode())
        digest.update(cpu.view(torch.uint8).numpy().tobytes() if cpu.numel() else b"")
    return digest.hexdigest()


def resolve_device(requested: str | None = None) -> torch.device:
    """``cuda`` when present (or requested), else ``cpu``: the same code runs on both."""
    if requested:
        return torch.device(requested)
    return torch.device("cuda" if torch.cuda.is_available() else "cpu")
