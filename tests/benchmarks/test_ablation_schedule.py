"""The order a full ablation's runs start in (benchmarks/ablation/schedule.py): references first,
a seed's variants as soon as its own reference passed (never a failed seed's), the costliest
first."""

from __future__ import annotations

from concurrent.futures import Future, ThreadPoolExecutor

from ablation.schedule import Key, RunQueue, costliest_first, drain

STEP = {"selected": 0.15, "all_token": 0.20, "augmented": 0.27, "recovery": 0.19}
OTHERS = ("all_token", "augmented", "recovery", "compute_matched")


def test_variants_start_costliest_first_and_a_variant_sharing_a_cost_takes_its_time():
    assert costliest_first(STEP, OTHERS) == ("augmented", "all_token", "compute_matched", "recovery")


def test_references_come_first_and_a_seed_that_misses_the_gate_queues_nothing():
    queue = RunQueue(range(3), "selected", costliest_first(STEP, OTHERS))
    assert [queue.pop(), queue.pop()] == [("selected", 0), ("selected", 1)]
    queue.reference_finished(1, passed=False)
    queue.reference_finished(0, passed=True)
    assert queue.pending == [
        ("selected", 2),
        ("augmented", 0),
        ("all_token", 0),
        ("compute_matched", 0),
        ("recovery", 0),
    ]
    assert queue.pop() == ("selected", 2)
    queue.reference_finished(2, passed=True)
    assert queue.pending[:2] == [("augmented", 0), ("augmented", 2)]
    assert [key[0] for key in queue.pending].count("recovery") == 2


def test_a_replication_starts_from_its_first_seed():
    queue = RunQueue(range(3, 5), "selected", ("augmented",))
    assert [queue.pop(), queue.pop()] == [("selected", 3), ("selected", 4)]
    queue.reference_finished(4, passed=True)
    assert queue.pending == [("augmented", 4)]


def _started(gate: dict[int, bool], workers: int) -> list[Key]:
    """The runs ``drain`` starts, in order, each finishing at once; references pass as ``gate`` says."""
    queue = RunQueue(sorted(gate), "selected", costliest_first(STEP, OTHERS))
    started: list[Key] = []

    def start(key: Key) -> Future[Key]:
        started.append(key)
        future: Future[Key] = Future()
        future.set_result(key)
        return future

    def finished(key: Key, result: Key) -> None:
        assert result == key
        if key[0] == "selected":
            queue.reference_finished(key[1], gate[key[1]])

    drain(queue, workers, start, finished)
    return started


def test_drain_starts_every_gated_run_once_and_nothing_of_a_failed_seed():
    started = _started({0: True, 1: False, 2: True}, workers=2)
    expected = [("selected", s) for s in range(3)] + [(v, s) for s in (0, 2) for v in OTHERS]
    assert sorted(started) == sorted(expected)
    assert started[:3] == [("selected", 0), ("selected", 1), ("selected", 2)]


def test_drain_with_no_seed_past_the_gate_runs_the_references_only():
    assert _started({0: False, 1: False, 2: False}, workers=2) == [("selected", s) for s in range(3)]


def test_drain_over_a_real_pool_returns_every_result_and_queues_what_passed():
    queue = RunQueue(range(2), "selected", ("augmented",))
    results: dict[Key, str] = {}
    with ThreadPoolExecutor(max_workers=2) as pool:

        def finished(key: Key, result: str) -> None:
            results[key] = result
            if key[0] == "selected":
                queue.reference_finished(key[1], passed=True)

        drain(queue, 2, lambda key: pool.submit(lambda: f"{key[0]}-{key[1]}"), finished)
    assert results == {
        ("selected", 0): "selected-0",
        ("selected", 1): "selected-1",
        ("augmented", 0): "augmented-0",
        ("augmented", 1): "augmented-1",
    }
