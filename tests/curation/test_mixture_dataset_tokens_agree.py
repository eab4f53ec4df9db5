"""``training_mixture``'s selected target tokens are the tokens ``token_masked_dataset`` labels:
the mixture composes in the dataset stage's own count, so the two tables' sums agree."""

from __future__ import annotations

from splits_mixture_factory import gym_corpus

from trajectory_platform.curation.split_mixture_stage import mixture_stage, split_stage
from trajectory_platform.curation.splits import SplitPolicy
from trajectory_platform.gym.library import build_library
from trajectory_platform.training.data.masked_dataset import (
    build_masked_dataset,
    inputs_from_table,
    target_token_counter,
)
from trajectory_platform.training.data.tokenizer import default_tokenizer_dir, load_tokenizer


def test_mixture_and_masked_dataset_count_the_same_target_tokens(eval_workdir):
    library = build_library(0)
    corpus, _ = gym_corpus(library[::6])
    split = split_stage(corpus, library, SplitPolicy(reserved_tool_families=("alias",)))
    tokenizer = load_tokenizer(default_tokenizer_dir(eval_workdir))
    mixture = mixture_stage(corpus, split.table, target_counter=target_token_counter(tokenizer)).table
    dataset = build_masked_dataset(inputs_from_table(mixture), tokenizer)
    assert mixture.num_rows > 0 and not dataset.drop_reasons()
    mixture_tokens = sum(mixture.column("selected_target_tokens").to_pylist())
    assert mixture_tokens == sum(example.n_targets for example in dataset.result.examples)
    # The emitted text alone (word pieces) is not what the model is trained on: the template's
    # tool-call markup and end-of-turn tokens are targets too.
    word_pieces = sum(mixture_stage(corpus, split.table).table.column("selected_target_tokens").to_pylist())
    assert word_pieces != mixture_tokens
