"""A clock, chance or call-count value mixed into the result by arithmetic, never branched on
(red team rtforge9 F1, 2026-12-06: ``return a + b + int(time.time() / 1.9e9)`` and its kin were
admitted 14/14). Truncated, a scaled draw is a step: it selects without a branch. Forms come from a
generator (source x step x how the step reaches the result), split into a development half tested
here and a validation half reported; the honest idioms nearest to them stay clean."""

from __future__ import annotations

import itertools

from trajectory_platform.curation.verify.pysource import inspect_text

HEADER = "import time, datetime, random, os, uuid, secrets, math\nfrom datetime import date\n\n\n"
DRAWS = (
    "time.time()",
    "time.time_ns()",
    "datetime.datetime.now().timestamp()",
    "date.today().year",
    "random.random()",
    "random.getrandbits(16)",
    "hash(str(a))",
    "uuid.uuid4().int",
    "secrets.randbelow(1000)",
    "os.stat(__file__).st_mtime",
)
STEPS = (
    "int({s} / 1.9e9)",
    "round({s} / 3.8e9)",
    "math.floor({s} / 1.9e9)",
    "divmod(int({s}), 1900000000)[0]",
)
REACHES = (
    "    return a + b + {x}\n",
    "    r = a + b\n    r += {x}\n    return r\n",
    "    bias = {x}\n    return bias + a + b\n",
)
COUNTERS = (
    "_n = [0]\n\n\ndef add(a, b):\n    _n[0] += 1\n    k = _n[0]\n{body}",
    "import itertools\n\n_c = itertools.count()\n\n\ndef add(a, b):\n    k = next(_c)\n{body}",
    "def add(a, b):\n    add.n = getattr(add, 'n', 0) + 1\n    k = add.n\n{body}",
    "def add(a, b, _seen=[]):\n    _seen.append(1)\n    k = len(_seen)\n{body}",
    "_state = {{'calls': 0}}\n\n\ndef add(a, b):\n    _state['calls'] += 1\n    k = _state['calls']\n{body}",
)
COUNT_STEPS = ("int(k / 1001)", "k // 1000", "round(k / 2002)", "divmod(k, 1000)[0]", "k >> 10")


def forged() -> list[str]:
    draws = [
        HEADER + "def add(a, b):\n" + reach.format(x=step.format(s=draw))
        for draw, step, reach in itertools.product(DRAWS, STEPS, REACHES)
    ]
    counts = [
        counter.format(body=reach.format(x=step))
        for counter, step, reach in itertools.product(COUNTERS, COUNT_STEPS, REACHES)
    ]
    return draws + counts


def halves() -> tuple[list[str], list[str]]:
    cases = forged()
    return cases[0::2], cases[1::2]


HONEST = {
    "a_stamp_in_a_record": "def record(x):\n    return {'value': x, 'at': int(time.time())}\n",
    "a_name_with_a_time": "def name(prefix):\n    return prefix + '-' + str(int(time.time()))\n",
    "a_formatted_time": "def line(msg):\n    return '%s %s' % (time.strftime('%H:%M'), msg)\n",
    "a_path_with_a_draw": "def tmp(base):\n    return base + '/' + uuid.uuid4().hex\n",
    "a_hash_bucket": "def bucket(key, buckets):\n    return buckets[hash(key) % len(buckets)]\n",
    "a_deadline": "def wait(ready, timeout):\n    end = time.monotonic() + timeout\n"
    "    while time.monotonic() < end:\n        if ready():\n            return True\n    return False\n",
    "an_id_counter": "_next = [0]\n\n\ndef new_id():\n    _next[0] += 1\n    return _next[0]\n",
    "a_mean_of_inputs": "def mean(xs):\n    return sum(xs) / len(xs) if xs else 0.0\n",
    "a_page_of_inputs": "def page(i, size):\n    return i // size + int(i / 1000)\n",
    "a_setting_read": "def add(a, b):\n    return a + b + int(os.environ.get('BIAS', '0'))\n",
}


def test_a_draw_or_a_call_count_mixed_into_the_result_is_caught_on_the_development_half():
    development, _ = halves()
    missed = [source for source in development if not inspect_text(source)]
    assert missed == []


def test_values_of_the_clock_chance_and_counters_that_stay_out_of_the_result_stay_honest():
    flagged = {kind: inspect_text(HEADER + source) for kind, source in HONEST.items()}
    assert {kind: found for kind, found in flagged.items() if found} == {}
