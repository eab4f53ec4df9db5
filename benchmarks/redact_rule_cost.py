"""Each redaction rule's share of scan time, this checkout beside a baseline checkout, so a rule whose
cost grows with a line's length (a regex that backtracks, a view built for nothing) shows up before
it costs the suite minutes (one rule's quadratic here-string pattern once made every canary block
of the suite 20 s -> 28 s).

Every ``find_*`` and ``drop_*`` function of :mod:`trajectory_platform.curation.redact` (the rules
and the filters after them), each decoded view by its decoder's name (``view:<name>``: the
decoder's pattern, its decoding and the view's assembly) and the replacement stage
(``truncated_heads``, ``partial_copies``, ``build_table``, ``rewrite``) is timed by its self time:
what it spent less what the timed functions it called spent, so the shares add up to the whole
and a scan nested in a rule counts for the rules it ran. ``(rest)`` is everything else (the
engine's own loop, the JSON walk).

Workloads (``--workloads``, comma-separated), each redacted whole:

- ``canary``: the canary test's ``measure_text_leak`` over ``--seeds`` seeds (a JSON record and a
  log line each, every canary kind and text form).
- ``long_line``: one line of about 20,000 characters of shell words, pipes, ``+`` signs, quotes,
  assignments and percent escapes (no secret), through ``redact_text``.

Usage: ``.venv/bin/python benchmarks/redact_rule_cost.py [--baseline ../base] [--workloads
canary,long_line] [--seeds 2] [--top 25]``. Each arm runs in a fresh process with its checkout
first on ``PYTHONPATH``; the table lists the rules by the larger of their two shares, and the last
stdout line is a JSON object with every rule's seconds per arm and workload.
"""

from __future__ import annotations

import argparse
import importlib
import inspect
import json
import os
import pkgutil
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from types import ModuleType
from typing import Any

HERE = Path(__file__).resolve().parents[1]
SALT = b"x" * 32
PACKAGE = "trajectory_platform.curation.redact"
STAGES = ("truncated_heads", "partial_copies", "build_table", "rewrite")
REST = "(rest)"
_LONG_LINE_WORDS = (
    "echo",
    "'a b'",
    "|",
    "grep",
    "-v",
    "x+y",
    '"quoted text"',
    "a=b+c",
    "%2Fpath%20x",
    "||",
    "cat",
    "file.txt",
    "k=v&n=m+o",
    "$HOME",
    "'it''s'",
    "--flag=1",
)


def long_line(length: int = 20_000) -> str:
    """One line of ``length`` characters or so, cycling through shell words that open many rules'
    gates (pipes, ``+``, quotes, ``=``, ``%``) and hold no secret."""
    words: list[str] = []
    size = 0
    while size < length:
        word = _LONG_LINE_WORDS[len(words) % len(_LONG_LINE_WORDS)] + str(len(words) % 97)
        words.append(word)
        size += len(word) + 1
    return " ".join(words)


class RuleClock:
    """Self time per rule name: a stack of (name, start, time in timed callees)."""

    def __init__(self) -> None:
        self.seconds: dict[str, float] = {}
        self._stack: list[list[Any]] = []

    def enter(self, name: str) -> None:
        self._stack.append([name, time.process_time(), 0.0])

    def leave(self) -> None:
        name, started, inner = self._stack.pop()
        spent = time.process_time() - started
        self.seconds[name] = self.seconds.get(name, 0.0) + spent - inner
        if self._stack:
            self._stack[-1][2] += spent

    def timed(self, name: str, function: Callable[..., Any]) -> Callable[..., Any]:
        """``function`` with its self time counted under ``name`` (a generator's per item)."""
        if inspect.isgeneratorfunction(function):

            def generator(*args: Any, **kwargs: Any) -> Iterator[Any]:
                self.enter(name)
                try:
                    items = function(*args, **kwargs)
                finally:
                    self.leave()
                while True:
                    self.enter(name)
                    try:
                        item = next(items)
                    except StopIteration:
                        return
                    finally:
                        self.leave()
                    yield item

            return generator

        def plain(*args: Any, **kwargs: Any) -> Any:
            self.enter(name)
            try:
                return function(*args, **kwargs)
            finally:
                self.leave()

        return plain


def _modules() -> list[ModuleType]:
    package = importlib.import_module(PACKAGE)
    names = sorted(info.name for info in pkgutil.iter_modules(package.__path__))
    return [importlib.import_module(f"{PACKAGE}.{name}") for name in names]


def instrument(clock: RuleClock) -> Callable[[], None]:
    """Time every rule of the package on ``clock`` (rebinding each name wherever a module imported
    it); returns the function that puts the originals back."""
    modules = _modules()
    rules: dict[int, tuple[str, Callable[..., Any]]] = {}
    for module in modules:
        for name, value in vars(module).items():
            wanted = name.startswith(("find_", "drop_")) or name in STAGES
            if wanted and inspect.isfunction(value) and value.__module__.startswith(PACKAGE):
                rules.setdefault(id(value), (name, value))
    wrappers = {key: clock.timed(name, value) for key, (name, value) in rules.items()}
    undo: list[tuple[ModuleType, str, object]] = []
    for module in modules:
        for name, value in list(vars(module).items()):
            if id(value) in wrappers and rules[id(value)][1] is value:
                undo.append((module, name, value))
                setattr(module, name, wrappers[id(value)])
    decoders = importlib.import_module(f"{PACKAGE}.decoders")
    view = getattr(decoders, "_view")  # noqa: B009 (a private name, rebound below)

    def named_view(name: str, *args: Any) -> Any:
        clock.enter("view:" + name.rsplit("+", 1)[-1])
        try:
            return view(name, *args)
        finally:
            clock.leave()

    undo.append((decoders, "_view", view))
    setattr(decoders, "_view", named_view)  # noqa: B010

    def restore() -> None:
        for module, name, value in undo:
            setattr(module, name, value)

    return restore


def _canary(seeds: int) -> None:
    from trajectory_platform.curation.redact.leak import measure_text_leak

    record = json.dumps({"messages": [{"role": "user", "content": "key AKIAIOSFODNN7EXAMPLE"}]})
    for i in range(seeds):
        measure_text_leak(record, f"seed-{i}", SALT, json_record=True)
        measure_text_leak("a log line\n", f"text-{i}", SALT)


def _long_line(seeds: int) -> None:
    from trajectory_platform.curation.redact.engine import redact_text

    redact_text(long_line(), SALT)


WORKLOADS = {"canary": _canary, "long_line": _long_line}


def rule_seconds(workload: str, seeds: int) -> dict[str, float]:
    """Each rule's self seconds over one workload in this process, :data:`REST` for the remainder."""
    clock = RuleClock()
    restore = instrument(clock)
    try:
        clock.enter(REST)
        try:
            WORKLOADS[workload](seeds)
        finally:
            clock.leave()
    finally:
        restore()
    return clock.seconds


def _arm(tree: Path, workload: str, seeds: int) -> dict[str, float]:
    env = {**os.environ, "PYTHONPATH": str(tree)}
    command = [sys.executable, __file__, "--worker", workload, "--seeds", str(seeds)]
    done = subprocess.run(command, env=env, cwd=tree, capture_output=True, text=True, check=True)
    return json.loads(done.stdout.strip().splitlines()[-1])


def table(arms: dict[str, dict[str, float]], top: int) -> list[str]:
    """Rows of rule, then each arm's share of its total and its seconds, largest share first."""
    totals = {arm: sum(seconds.values()) or 1.0 for arm, seconds in arms.items()}
    names = {name for seconds in arms.values() for name in seconds}

    def share(arm: str, name: str) -> float:
        return arms[arm].get(name, 0.0) / totals[arm]

    ranked = sorted(names, key=lambda name: (-max(share(arm, name) for arm in arms), name))
    header = f"{'rule':<40}" + "".join(f"{arm:>22}" for arm in arms)
    rows = [header]
    for name in ranked[:top]:
        cells = "".join(f"{100 * share(arm, name):>10.1f}% {arms[arm].get(name, 0.0):>9.3f}s" for arm in arms)
        rows.append(f"{name:<40}{cells}")
    rows.append(f"{'total':<40}" + "".join(f"{'':>11}{totals[arm]:>10.3f}s" for arm in arms))
    return rows


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--baseline", type=Path, help="checkout to compare with (e.g. main's worktree)")
    parser.add_argument("--workloads", default="canary,long_line")
    parser.add_argument("--seeds", type=int, default=2, help="canary seeds")
    parser.add_argument("--top", type=int, default=25, help="rules listed per workload")
    parser.add_argument("--worker", choices=sorted(WORKLOADS), help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.worker:
        print(json.dumps(rule_seconds(args.worker, args.seeds)))
        return 0
    trees = {"branch": HERE}
    if args.baseline is not None:
        trees = {"baseline": args.baseline.resolve(), **trees}
    report: dict[str, dict[str, dict[str, float]]] = {}
    for workload in args.workloads.split(","):
        report[workload] = {arm: _arm(tree, workload, args.seeds) for arm, tree in trees.items()}
        print(f"== {workload}")
        print("\n".join(table(report[workload], args.top)))
    print(json.dumps(report, sort_keys=True))
    return 0


if __name__ == "__main__":
    sys.exit(main())
