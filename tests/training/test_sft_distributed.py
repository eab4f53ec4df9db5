"""Global reduction across torch.distributed workers: two gloo ranks == one process, same batch."""

from __future__ import annotations

import torch
import torch.distributed as dist
import torch.multiprocessing as mp

from trajectory_platform.training.optim.model import TinyLlamaShape, tiny_llama
from trajectory_platform.training.optim.sft import accumulate_gradients, collate_micro_batches

SHAPE = TinyLlamaShape(
    hidden_size=32,
    intermediate_size=64,
    num_hidden_layers=1,
    num_attention_heads=2,
    num_key_value_heads=2,
    max_position_embeddings=64,
)


def _examples() -> list[dict]:
    """Uneven shards on purpose: rank 0 gets 2 long examples, rank 1 gets 6 short ones."""
    lengths = [40, 36, 6, 7, 8, 9, 10, 11]
    out = []
    for index, length in enumerate(lengths):
        ids = [(5 * index + 3 * t) % 60 + 2 for t in range(length)]
        targets = length // 2 if index < 2 else 1
        out.append({"input_ids": ids, "labels": [-100] * (length - targets) + ids[length - targets :]})
    return out


def _grads(model) -> torch.Tensor:
    return torch.cat([p.grad.flatten() for p in model.parameters()])


def _worker(rank: int, init_file: str, results) -> None:
    """One data-parallel rank; forked, so it inherits the imports instead of paying for them again."""
    torch.set_num_threads(1)
    dist.init_process_group("gloo", init_method=f"file://{init_file}", rank=rank, world_size=2)
    try:
        shard = _examples()[:2] if rank == 0 else _examples()[2:]
        for normalization in ("token", "example"):
            model = tiny_llama(64, seed=3, shape=SHAPE)
            stats = accumulate_gradients(model, collate_micro_batches(shard, 1, 64), normalization)
            results.put((rank, normalization, stats.loss, stats.denominator, _grads(model).tolist()))
    finally:
        dist.destroy_process_group()


def test_two_workers_reduce_numerators_and_denominators_globally(tmp_path):
    results = mp.get_context("fork").Queue()
    workers = mp.start_processes(
        _worker, args=(str(tmp_path / "init"), results), nprocs=2, start_method="fork", join=False
    )
    outcome = {}
    for _ in range(4):  # drain before joining: a worker blocks on a full pipe until we read
        rank, normalization, *values = results.get(timeout=120)
        outcome[(rank, normalization)] = values
    while not workers.join():
        pass
    for normalization in ("token", "example"):
        model = tiny_llama(64, seed=3, shape=SHAPE)
        single = accumulate_gradients(model, collate_micro_batches(_examples(), 1, 64), normalization)
        for rank in (0, 1):
            loss, denominator, grads = outcome[(rank, normalization)]
            assert denominator == single.denominator
            assert abs(loss - single.loss) < 1e-5 * max(1.0, abs(single.loss))
            torch.testing.assert_close(torch.tensor(grads), _grads(model), rtol=1e-4, atol=1e-6)
