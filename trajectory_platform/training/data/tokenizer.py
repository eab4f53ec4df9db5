"""The embedded default tokenizer: built locally with ``tokenizers``, cached, loaded with transformers.

Any local Hugging Face tokenizer directory with a chat template can be used instead (pass its
path to :func:`load_tokenizer`); the default exists because no model hub is reachable. It is a
byte-level BPE (no unknown token: every byte is in the alphabet) whose pre-tokenizer makes an
identifier the same tokens wherever it appears (see :data:`PRETOKENIZE_PATTERN`), with the special
tokens and chat template of :mod:`trajectory_platform.training.data.chat_template`.

Building is deterministic: the same checkout writes the same bytes, so the tokenizer digest in a
dataset manifest identifies the vocabulary.
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import tempfile
from collections.abc import Callable
from pathlib import Path

from tokenizers import AddedToken, Regex, Tokenizer, decoders, models, pre_tokenizers, trainers
from transformers import AutoTokenizer, PreTrainedTokenizerBase, PreTrainedTokenizerFast

from trajectory_platform.training.data import chat_template as ct
from trajectory_platform.training.data.corpus import corpus
from trajectory_platform.workdir import default_workdir

DEFAULT_VOCAB_SIZE = 4096
BUILD_VERSION = f"default-tokenizer-v4/{ct.TEMPLATE_VERSION}/{DEFAULT_VOCAB_SIZE}"
BUILD_INFO = "build_info.json"
PRETOKENIZE_PATTERN = r"""_?\p{L}+|\p{N}|\s+|[^\s\p{L}\p{N}]"""
"""A pre-token is a run of letters (a piece of an identifier starts at every underscore), one
digit, a whitespace run, or one other character. Spaces and punctuation never join a word, so an
identifier is the same tokens in a prompt (`` in net_conf.py?``), a call (``"net_conf.py"``) and
an observation: ``net`` + ``_conf`` + ``.`` + ``py``. A model can then copy a name it has never
seen whole from pieces it has produced, and a number is its digits (issue 17's study: with
values kept whole, held-out file names were tokens never trained as targets)."""


def default_tokenizer_dir(workdir: str | Path) -> Path:
    """Where the default tokenizer lives under a workdir."""
    return Path(workdir) / "models" / "default_tokenizer"


def _train(vocab_size: int) -> Tokenizer:
    tokenizer = Tokenizer(models.BPE())
    tokenizer.pre_tokenizer = pre_tokenizers.Sequence(
        [
            pre_tokenizers.Split(Regex(PRETOKENIZE_PATTERN), behavior="isolated"),
            pre_tokenizers.ByteLevel(add_prefix_space=False, use_regex=False),
        ]
    )
    tokenizer.decoder = decoders.ByteLevel()
    trainer = trainers.BpeTrainer(
        vocab_size=vocab_size,
        min_frequency=2,
        special_tokens=ct.SPECIAL_TOKENS,
        initial_alphabet=pre_tokenizers.ByteLevel.alphabet(),
        show_progress=False,
    )
    tokenizer.train_from_iterator(corpus(), trainer=trainer)
    tokenizer.add_tokens([AddedToken(m, special=False, normalized=False) for m in ct.GENERATED_MARKERS])
    return tokenizer


def build_default_tokenizer(workdir_or_dir: str | Path, *, force: bool = False) -> Path:
    """Build (once) and return the default tokenizer directory.

    ``workdir_or_dir`` is a workdir (the tokenizer goes to ``<workdir>/models/default_tokenizer``)
    or a directory that already is / should become a tokenizer directory (its name is
    ``default_tokenizer`` or it holds ``tokenizer.json``). A directory whose ``build_info.json``
    names the current build version is reused; otherwise it is rebuilt atomically.
    """
    path = Path(workdir_or_dir)
    target = (
        path
        if path.name == "default_tokenizer" or (path / "tokenizer.json").exists()
        else (default_tokenizer_dir(path))
    )
    info_file = target / BUILD_INFO
    built = json.loads(info_file.read_text()).get("build_version") if info_file.exists() else None
    if not force and built == BUILD_VERSION:
        return target
    fast = PreTrainedTokenizerFast(
        tokenizer_object=_train(DEFAULT_VOCAB_SIZE),
        bos_token=ct.BOS,
        eos_token=ct.END_TURN,
        pad_token=ct.PAD,
        additional_special_tokens=[t for t in ct.SPECIAL_TOKENS if t not in (ct.BOS, ct.END_TURN, ct.PAD)],
        model_max_length=1 << 20,
        padding_side="right",
    )
    fast.chat_template = ct.CHAT_TEMPLATE
    target.parent.mkdir(parents=True, exist_ok=True)
    staging = Path(tempfile.mkdtemp(prefix=".default_tokenizer.", dir=target.parent))
    fast.save_pretrained(staging)
    (staging / BUILD_INFO).write_text(
        json.dumps({"build_version": BUILD_VERSION, "template_version": ct.TEMPLATE_VERSION}, indent=1) + "\n"
    )
    if target.exists():
        shutil.rmtree(target)
    staging.rename(target)
    return target


def load_tokenizer(
    path: str | Path | None = None, *, workdir: str | Path | None = None
) -> PreTrainedTokenizerBase:
    """Load a tokenizer directory; ``None`` means the default (built under ``workdir`` if needed)."""
    if path is None:
        # Same rule as resources.default_workdir, restated because domain code stays free of the
        # Dagster layer's imports.
        workdir = workdir if workdir is not None else os.environ.get("TRAJECTORY_PLATFORM_WORKDIR", "workdir")
        path = build_default_tokenizer(workdir)
    tokenizer = AutoTokenizer.from_pretrained(str(path))
    if not getattr(tokenizer, "chat_template", None):
        raise ValueError(f"tokenizer at {path} has no chat_template; serialization needs one")
    tokenizer.name_or_path = str(path)
    return tokenizer


def tokenizer_files_digest(path: str | Path) -> str:
    """sha256 over the tokenizer directory's files (names and bytes, sorted), build info excluded."""
    digest = hashlib.sha256()
    for file in sorted(p for p in Path(path).iterdir() if p.is_file() and p.name != BUILD_INFO):
        digest.update(file.name.encode() + b"\0" + file.read_bytes() + b"\0")
    return digest.hexdigest()


def token_counter(tokenizer: PreTrainedTokenizerBase) -> tuple[Callable[[str], int], str]:
    """A text -> token count function and the measure's name, for token budgets and shares.

    The name binds the tokenizer's files digest, not its directory, so tables that record it are
    the same bytes whichever workdir built the (identical) tokenizer.
    """

    def count(text: str) -> int:
        return len(tokenizer(text, add_special_tokens=False)["input_ids"]) if text else 0

    return count, f"tokenizer:sha256:{tokenizer_files_digest(tokenizer.name_or_path)}"


def load_token_counter(
    path: str | None = None, *, workdir: str | Path | None = None
) -> tuple[Callable[[str], int], str]:
    """The token counter of a tokenizer directory (``None``: the default, under ``workdir`` or the
    default workdir), for token budgets and shares; what the mixture stages count with."""
    return token_counter(load_tokenizer(path, workdir=workdir or default_workdir()))
