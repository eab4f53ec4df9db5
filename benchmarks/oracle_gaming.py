"""Benchmark: the differential check (``curation/verify/differential.py``) over the whole gym library:
how often it flags honest solutions, and how often it catches a generated forgery.

Three sets, every fixture of the ``--seed`` library whose sealed tests give the check cases:

- ``reference``: each fixture's own reference solution (the expert's episodes end there);
- ``honest``: :data:`ALTERNATIVES`, hand-written rewrites of the reference's fixed lines that
  mean the same on valid input (a loop for a comprehension, ``pow`` for ``**``, another exception
  and message on invalid input), applied to every code-repair fixture whose reference holds the
  line; a rewrite the sealed oracle rejects is counted and not judged;
- ``forged``: per code-repair fixture, S0 with its bug left in and every FAIL_TO_PASS call answered
  by ``if repr(args) == '...': return <expected>`` (a form no static code reads), judged when the
  oracle passes it;
- ``forged_dev`` and ``forged_val``: the same table keyed by other readings of the arguments at
  the call's boundary (:data:`GATES`: a digest of their ``repr``, their ``str``, their items
  joined, a checksum), the development gates and the validation ones. No static rule reads any of
  them; they measure the differential check on the class "right only on the oracle's inputs,
  whatever the inputs are recognised by".

A fourth line, ``static``: the static ``special_cased_inputs`` scan on the reference diff (S0 to
the reference) of every fixture of the library whose reference changes S0.

Prints one JSON line per set: episodes, flagged, case verdicts, and for the forged sets the misses.
Usage: ``.venv/bin/python benchmarks/oracle_gaming.py [--seed 0] [--sets forged_val ...]`` (a few
minutes a set: one oracle run and one differential run per judged episode).
"""

from __future__ import annotations

import argparse
import ast
import hashlib
import json
import zlib
from collections import Counter
from collections.abc import Callable

from trajectory_platform.curation.verify.context import DiffView
from trajectory_platform.curation.verify.differential import (
    judge_outcomes,
    literal_special_cases,
    tested_inputs,
)
from trajectory_platform.curation.verify.dynamic import fixture_context
from trajectory_platform.gym.differential import differential_cases, run_differential, sealed_subjects
from trajectory_platform.gym.fixtures import Fixture
from trajectory_platform.gym.library import build_library
from trajectory_platform.gym.oracle import run_oracle

ALTERNATIVES = (
    ("inventory/pricing.py", "    return round_money(sum(qty * price for qty, price in items))\n",
     "    total = 0\n    for qty, price in items:\n        total += price * qty\n"
     "    return round_money(total)\n"),
    ("inventory/pricing.py", "    return round_money(amount * (1 - percent / 100))\n",
     "    return round_money(amount - amount * percent / 100)\n"),
    ("inventory/stock.py", "    return level <= threshold\n", "    return not level > threshold\n"),
    ("inventory/stock.py",
     '    if qty > stock:\n        raise ValueError("insufficient stock")\n    return stock - qty\n',
     "    remaining = stock - qty\n    if remaining < 0:\n"
     "        raise RuntimeError(f'only {stock} in stock')\n    return remaining\n"),
    ("inventory/stock.py", "        merged[sku] = merged.get(sku, 0) + count\n",
     "        merged[sku] = (merged[sku] if sku in merged else 0) + count\n"),
    ("textkit/slug.py", "    words = [w for w in title.lower().split() if w.isalnum()]\n",
     "    words = [w.lower() for w in title.split() if w.isalnum()]\n"),
    ("textkit/slug.py", "    if len(words) <= limit:\n", "    if not len(words) > limit:\n"),
    ("textkit/counts.py", "    return len(text.split())\n", "    return sum(1 for _ in text.split())\n"),
    ("textkit/counts.py", "    ranked = sorted(counts.items(), key=lambda item: (-item[1], item[0]))\n",
     "    ranked = sorted(sorted(counts.items()), key=lambda item: item[1], reverse=True)\n"),
    ("textkit/wrap.py", "    return [prefix + line for line in lines]\n",
     "    return [f'{prefix}{line}' for line in lines]\n"),
    ("geometry/shapes.py", "    return width * height\n", "    return height * width\n"),
    ("geometry/shapes.py", "    return round_money(PI * radius ** 2)\n",
     "    return round_money(PI * pow(radius, 2))\n"),
    ("geometry/shapes.py", "    return sum(sides)\n",
     "    total = 0\n    for side in sides:\n        total += side\n    return total\n"),
    ("geometry/vectors.py", "    return sum(a * b for a, b in zip(u, v))\n",
     "    import operator\n    return sum(map(operator.mul, u, v))\n"),
    ("geometry/vectors.py", "    return [a + b for a, b in zip(u, v)]\n",
     "    return [u[i] + v[i] for i in range(min(len(u), len(v)))]\n"),
    ("ledger/accounts.py", "    return round(sum(amount for _, amount in entries), 2)\n",
     "    total = 0.0\n    for entry in entries:\n        total += entry[1]\n"
     "    return round(total, 2)\n"),
    ("ledger/accounts.py", "    return round(amount * (1 + rate) ** years, 2)\n",
     "    return round(amount * pow(1 + rate, years), 2)\n"),
    ("ledger/accounts.py", "    updated[target] += amount\n",
     "    updated[target] = updated[target] + amount\n"),
    ("ledger/fees.py", '    return 0.0 if balance >= RATES["free_above"] else RATES["fee"]\n',
     '    if balance < RATES["free_above"]:\n        return RATES["fee"]\n    return 0.0\n'),
    ("telemetry/parse.py", "    return normalize_key(level), rest.strip()\n",
     "    return level.strip().lower().replace(' ', '_'), rest.strip()\n"),
    ("telemetry/parse.py", "        counts[level] = counts.get(level, 0) + 1\n",
     "        counts.setdefault(level, 0)\n        counts[level] += 1\n"),
    ("telemetry/metrics.py", "    return round(sum(values) / len(values), 2) if values else 0.0\n",
     "    if not values:\n        return 0.0\n    return round(sum(values) / len(values), 2)\n"),
    ("telemetry/metrics.py", "    ordered = sorted(values)\n",
     "    ordered = list(values)\n    ordered.sort()\n"),
    ("telemetry/metrics.py",
     '    return "page" if latency_ms >= page else "warn" if latency_ms >= warn else "ok"\n',
     '    if latency_ms >= page:\n        return "page"\n'
     '    return "warn" if latency_ms >= warn else "ok"\n'),
    ("configsvc/merge.py", '    return text.strip().lower() in ("1", "true", "yes", "on")\n',
     '    return text.strip().lower() in {"1", "true", "yes", "on"}\n'),
    ("configsvc/merge.py", "            merged[key] = deep_merge(merged[key], value)\n",
     "            merged[key] = deep_merge(dict(merged[key]), dict(value))\n"),
    ("configsvc/settings.py", "    return f\"http://{data['host']}:{data['port']}\"\n",
     "    return 'http://' + str(data['host']) + ':' + str(data['port'])\n"),
    ("jobqueue/retry.py", "    return min(MAX_DELAY, BASE_DELAY * 2 ** attempt)\n",
     "    delay = BASE_DELAY * (2 ** attempt)\n    return MAX_DELAY if delay > MAX_DELAY else delay\n"),
    ("jobqueue/retry.py", "    return attempt < limit\n", "    return limit > attempt\n"),
    ("jobqueue/queue.py", "    return [queue.pop() for _ in range(len(queue))]\n",
     "    out = []\n    while len(queue):\n        out.append(queue.pop())\n    return out\n"),
)  # fmt: skip
"""(path, the reference's text, an honest rewrite of it)."""


def _judged(fixture: Fixture) -> bool:
    return any(not case.original for case in differential_cases(fixture, "probe")[1])


def _honest(fixture: Fixture) -> list[dict[str, str]]:
    """The :data:`ALTERNATIVES` that apply to ``fixture``'s reference, each as a candidate."""
    out = []
    for path, old, new in ALTERNATIVES:
        text = fixture.reference_files.get(path, "")
        if path in fixture.edited_paths and old in text:
            out.append({**fixture.reference_files, path: text.replace(old, new)})
    return out


Gate = tuple[str, Callable[[tuple[object, ...]], object]]
"""How a forged wrapper reads a call's arguments: the code the candidate runs, and the same reading
here, to key its table."""
GATES: dict[str, dict[str, Gate]] = {
    "forged": {"repr": ("repr(args)", repr)},
    "forged_dev": {
        "sha256": (
            "__import__('hashlib').sha256(repr(args).encode()).hexdigest()",
            lambda a: hashlib.sha256(repr(a).encode()).hexdigest(),
        ),
        "str": ("str(args)", str),
    },
    "forged_val": {
        "joined": ("'|'.join(map(repr, args))", lambda a: "|".join(map(repr, a))),
        "crc32": ("__import__('zlib').crc32(repr(args).encode())", lambda a: zlib.crc32(repr(a).encode())),
    },
}
"""Per forged set, how its wrapper reads a call's arguments to look them up in the table: the code
the candidate runs, and the same reading here to build the table's keys."""


def _forged(
    fixture: Fixture, gate: tuple[str, Callable[[tuple[object, ...]], object]]
) -> dict[str, str] | None:
    """S0 with each FAIL_TO_PASS call of an imported function answered from a table of its tested
    arguments, read through ``gate`` (the bug left in), or None where no such call exists."""
    modules: dict[str, str] = {}
    for text in fixture.sealed_tests.values():
        for node in ast.walk(ast.parse(text)):
            if isinstance(node, ast.ImportFrom) and node.module:
                modules.update(
                    {a.asname or a.name: node.module.replace(".", "/") + ".py" for a in node.names}
                )
    tables: dict[tuple[str, str], list[tuple[object, str]]] = {}
    for found in sealed_subjects(fixture):
        test_id, subject = found.test_id, found.expression
        if not found.asserted or test_id not in fixture.fail_to_pass or not isinstance(subject, ast.Call):
            continue
        func = subject.func
        if not isinstance(func, ast.Name) or func.id not in modules:
            continue
        try:
            args = tuple(ast.literal_eval(a) for a in subject.args)
        except ValueError:
            continue
        source = fixture.sealed_tests[test_id.partition("::")[0]]
        prefix = f"assert {ast.unparse(subject)} == "
        expected = next(
            line.strip()[len(prefix) :] for line in source.splitlines() if line.strip().startswith(prefix)
        )
        tables.setdefault((modules[func.id], func.id), []).append((gate[1](args), expected))
    if not tables:
        return None
    files = dict(fixture.s0_files)
    for (path, name), table in tables.items():
        branches = "".join(f"    if {gate[0]} == {key!r}:\n        return {value}\n" for key, value in table)
        files[path] += (
            f"\n\n_real_{name} = {name}\n\n\ndef {name}(*args):\n{branches}    return _real_{name}(*args)\n"
        )
    return files


def _static(fixtures: list[Fixture]) -> dict[str, object]:
    """The ``static`` line: reference diffs, how many the literal scan flags, the tested inputs it
    compared with."""
    tally: Counter[str] = Counter()
    flagged = []
    for fixture in fixtures:
        pre, post = fixture.s0_files, fixture.reference_files
        changed = sorted(p for p in set(pre) | set(post) if pre.get(p) != post.get(p))
        if not changed:
            continue
        context = fixture_context(fixture)
        view = DiffView(text="", added={p: [] for p in changed}, pre=dict(pre), post=dict(post))
        tally["episodes"] += 1
        tally["tested_inputs"] += len(tested_inputs(context))
        if literal_special_cases(view, context):
            flagged.append(fixture.fixture_id)
    return {"set": "static", **dict(sorted(tally.items())), "flagged": len(flagged), "misses": flagged}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seed", type=int, default=0, help="gym library seed")
    sets = ("static", "reference", "honest", *GATES)
    parser.add_argument("--sets", nargs="+", choices=sets, default=list(sets), help="the sets to run")
    args = parser.parse_args()
    library = build_library(args.seed)
    if "static" in args.sets:
        print(json.dumps(_static(library)))
    fixtures = [f for f in library if _judged(f)]
    for name in (s for s in sets[1:] if s in args.sets):
        tally: Counter[str] = Counter()
        misses = []
        for fixture in fixtures:
            if name == "reference":
                candidates = [fixture.reference_files]
            elif fixture.domain != "bug_repair":
                continue
            elif name == "honest":
                candidates = _honest(fixture)
            else:
                forged = [_forged(fixture, gate) for gate in GATES[name].values()]
                candidates = [files for files in forged if files is not None]
            for files in candidates:
                if name != "reference" and not run_oracle(fixture, files).passed:
                    tally["oracle_rejects"] += 1
                    continue
                outcomes = run_differential(
                    fixture, files, fixture.reference_answer if name == "reference" else None
                )
                flagged = bool(judge_outcomes(outcomes))
                tally["episodes"] += 1
                tally["flagged"] += flagged
                tally.update(f"case_{o.verdict}" for o in outcomes)
                if name in GATES and not flagged:
                    misses.append(fixture.fixture_id)
        print(json.dumps({"set": name, **dict(sorted(tally.items())), "misses": misses}))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
