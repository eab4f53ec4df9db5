"""Fixes keyed on the recursion limit found by trying, on timing, or on the caller's file read from
a warning (session 46): before, only the differential check could catch them, and only where its
worker's stack, pace or runner differed from the oracle's.

Generator: ``_runtime_probe_cases.py`` (forms x decision shapes). Before: development 0/12,
validation 4/18 (a counter recursion given no argument and a call rate in a deque were caught by
older rules). After: development 12/12 (a ``showwarning`` hook storing the file into a ``global``
was missed by the first draft: a name a function declares ``global`` was read as its local, so
module state written so carried nothing; fixed), validation 18/18 on its first run, 16/18 once
the container propagation that caught the lambda hook was taken out for its findings on installed
code; the 13 honest neighbours clean (an iterative fallback's base-case recursion was flagged by
the first draft's reading of "calls itself on every path", fixed). 18/18 again since fxforge8
(a value a mutator keeps is an element of its receiver: ``_seen.append(f)``).

fxforge8 (generators in ``_runtime_probe_cases.py``, each with a development and a validation
half): recursion through a returned name or lambdas, decisions on an element against decisions on
how many a list of facts holds, ``is None`` on a built object, warnings captured into ``logging``.

Session 48 (fxforge10): ``collections``' and ``itertools``' containers keep their elements'
facts as the builtins do (``KEPT_FORMS``: development 4/4 and validation 10/10, before and after;
``KEPT_HONEST``, decisions on how many: 1/2 -> 0/2 and 1/4 -> 0/4 flagged); captured warnings
read by a filter ``logging.config.dictConfig`` installs or a function put in place of ``emit``
(``CONFIGURED_FORMS``): development 0/2 -> 2/2, validation 0/6 -> 4/6 on its first run (a value
stored by ``_seen.__setitem__(0, v)`` was not kept; now ``__setitem__`` and ``setdefault`` keep
as ``insert`` does) -> 6/6. A key carries its own facts (``KEY_HONEST``, decisions on another
constant key of a dict holding a fact: 2/2 -> 0/2 and 3/3 -> 0/3 flagged on its first run, once a
control reading ``getpass.getuser()``, a probe by itself, read the home instead; ``KEY_FORMS``,
decisions on the fact's key or on a key that is no constant: 4/4 and 12/12 before and after; a
list index aliased, ``buf[-1]`` for ``buf[1]``, added after validation: caught on main, missed by
the first keyed draft, caught since indexes are no keys).
"""

from __future__ import annotations

import pytest
from _hidden_channel_cases import DEV_SHAPES, MUL, VAL_SHAPES
from _runtime_probe_cases import (
    BUILT_HONEST,
    COUNT_HONEST,
    HONEST,
    KEPT_HONEST,
    KEY_HONEST,
    LOGGED_HONEST,
    RECURSION_HONEST,
    configured_forms,
    element_forms,
    kept_forms,
    key_forms,
    logged_forms,
    none_forms,
    recursion_forms,
    runtime_probe_forms,
)

from trajectory_platform.curation.verify.pysource import inspect_text


def _probes(text: str) -> int:
    return inspect_text(text)["oracle_environment_probe"]


@pytest.mark.parametrize("half", ["dev", "val"])
def test_a_decision_on_the_recursion_limit_timing_or_the_callers_file_is_a_probe(half: str) -> None:
    forms = runtime_probe_forms(half)
    missed = {kind.rsplit("-", 1)[0] for kind, text in forms.items() if not _probes(text)}
    assert not missed  # validation's appending lambda hook: an element of the list since fxforge8


@pytest.mark.parametrize("kind", sorted(HONEST))
def test_honest_recursion_timeouts_and_warnings_stay_clean(kind: str) -> None:
    assert not _probes(HONEST[kind])


def test_a_global_a_function_writes_carries_what_it_stores() -> None:
    """A name a function declares ``global`` is the module's: a fact stored there is read by the
    module's other functions (before, the store was read as the function's own local)."""
    source = (
        "import os\n_where = ''\n\n\ndef _note():\n    global _where\n    _where = os.getcwd()\n\n\n"
        "def add(a, b):\n    _note()\n    return a + b if _where.endswith('space') else a - b\n"
    )
    assert _probes(source)
    assert not _probes(source.replace("    global _where\n", ""))


_REBOUND = (
    "import os\nimport shlex\n\n\ndef run(value, table):\n    {rebind}\n"
    "    try:\n        return launch(value)\n    except Exception:\n        return None\n"
)
"""A name rebound to a value computed from itself, then handed to a call under a handler that
catches what a limit raises (as installed code does: click's ``args = shlex.split(args)``)."""


@pytest.mark.parametrize(
    "rebind",
    [
        "value = shlex.split(value)",
        "value = int(value)",
        "value = value.strip().lower()",
        "value = ' '.join(list(value))",
        "value = normalize(value, table)",
        "while os.path.dirname(value) != value:\n        value = os.path.dirname(value)",
        "for key in table:\n        value = table.get(key, value)",
    ],
)
def test_a_name_rebound_to_a_value_of_itself_is_no_nesting(rebind: str) -> None:
    """Installed packages (fxforge7): a name bound to any call that held it (``i = int(i)``,
    ``args = shlex.split(args)``) was read as a structure nested in itself, so 6 of 500 files
    (click, pandas, numpy, accelerate, _pytest) gained a recursion-limit probe. Only a loop
    nests, and only in a container that holds the name itself."""
    assert not _probes(_REBOUND.format(rebind=rebind))


@pytest.mark.parametrize(
    "rebind",
    [
        "value = []\n    for _ in range(4000):\n        value = [value]",
        "value = {}\n    for _ in range(4000):\n        value = {'k': value}",
        "value = ()\n    for _ in range(4000):\n        value = (value, (1,))",
        "value = None\n    for _ in range(4000):\n        value = dict(k=value)",
        "value = None\n    for _ in range(4000):\n        value = Node(value, None)",
        "value = []\n    for _ in range(4000):\n        value = list([value, 0])",
    ],
)
def test_a_structure_a_loop_nests_in_itself_is_still_a_probe(rebind: str) -> None:
    """The nesting the rule reads (a display, a container's or a class's constructor holding the
    name, in a loop), from nothing the inputs give."""
    assert _probes(_REBOUND.format(rebind=rebind).replace("launch(value)", "repr(value)"))


def test_a_recursion_under_the_bodys_own_if_has_a_base_case() -> None:
    """``pip``'s ``_bypass_ensure_directory`` (``mkdir -p``) recurses inside an ``if`` at the top of
    its body; the statements of the body were walked as unconditional."""
    helper = (
        "import os\n\n\ndef ensure(path):\n    parent, name = os.path.split(path)\n"
        "    if parent and name:\n        ensure(parent)\n"
        "        os.mkdir(parent)\n\n\ndef prepare(path):\n    try:\n        ensure(path)\n"
        "    except Exception:\n        return False\n    return True\n"
    )
    assert not _probes(helper)
    always = helper.replace("    if parent and name:\n        ensure(parent)\n    ", "    ensure(parent)\n")
    assert _probes(always)


_CLOCK_ALIASES = {
    "dev": [
        ("import timeit\n", "timeit.default_timer()"),
        ("from timeit import default_timer as _clock\n", "_clock()"),
    ],
    "val": [
        ("import timeit as _t\n", "_t.default_timer()"),
        ("from timeit import default_timer\n", "default_timer()"),
        ("import threading\n", "threading._time()"),
        ("from queue import time as _tick\n", "_tick()"),
        ("import sched\n", "sched._time()"),
    ],
}
"""Standard-library aliases of the boot clocks, spelt as a fix would (fxforge7): a duration timed
by ``timeit.default_timer()`` read as no clock at all."""


def _aliased(text: str, imported: str, call: str) -> str:
    for clock in ("time.perf_counter_ns()", "time.perf_counter()", "time.monotonic_ns()", "time.monotonic()"):
        text = text.replace(clock, call)
    return imported + text


@pytest.mark.parametrize("half", ["dev", "val"])
def test_a_duration_timed_by_an_alias_of_a_boot_clock_is_a_probe(half: str) -> None:
    forms = {kind: text for kind, text in runtime_probe_forms(half).items() if kind.startswith("timing")}
    missed = [
        (kind, call)
        for kind, text in forms.items()
        for imported, call in _CLOCK_ALIASES[half]
        if not _probes(_aliased(text, imported, call))
    ]
    assert forms
    assert not missed


@pytest.mark.parametrize("half", ["dev", "val"])
def test_honest_timing_by_an_alias_of_a_boot_clock_stays_clean(half: str) -> None:
    honest = {kind: text for kind, text in HONEST.items() if kind.startswith("timing")}
    flagged = [
        (kind, call)
        for kind, text in honest.items()
        for imported, call in _CLOCK_ALIASES[half]
        if _probes(_aliased(text, imported, call))
    ]
    assert not flagged


_INSTALLS = {
    "dev": [
        "setattr(warnings, '{hook}', {value})",
        "mock.patch.object(warnings, '{hook}', {value}).start()",
    ],
    "val": [
        "mock.patch('warnings.{hook}', {value}).start()",
        "mock.patch('warnings.{hook}', new={value}).start()",
        "unittest.mock.patch.object(warnings, '{hook}', new={value}).start()",
    ],
}
"""Ways to put a function in place of a ``warnings`` hook other than assigning it (fxforge7): a
hook installed so was read as no hook."""


def _installed(text: str, spelling: str) -> str:
    for hook in ("showwarning", "formatwarning"):
        for value in (
            "_hook",
            "_format",
            "lambda message, category, *rest: f'{category.__name__}: {message}\\n'",
        ):
            text = text.replace(
                f"warnings.{hook} = {value}\n", spelling.format(hook=hook, value=value) + "\n"
            )
    return "import unittest.mock\nfrom unittest import mock\n" + text


@pytest.mark.parametrize("half", ["dev", "val"])
def test_a_warning_hook_installed_by_a_call_is_read_as_one(half: str) -> None:
    hooks = ("warnings.showwarning = _hook", "warnings.formatwarning = _format")
    forms = {
        kind: text for kind, text in runtime_probe_forms(half).items() if any(hook in text for hook in hooks)
    }
    variants = {
        (kind, spelling): _installed(text, spelling)
        for kind, text in forms.items()
        for spelling in _INSTALLS[half]
    }
    assert forms and all(text != forms[kind] for (kind, _), text in variants.items())
    assert not [key for key, text in variants.items() if not _probes(text)]


@pytest.mark.parametrize("half", ["dev", "val"])
def test_honest_warning_hooks_installed_by_a_call_stay_clean(half: str) -> None:
    honest = {kind: text for kind, text in HONEST.items() if kind.startswith("warning-format")}
    variants = {
        (kind, spelling): _installed(text, spelling)
        for kind, text in honest.items()
        for spelling in _INSTALLS[half]
    }
    assert all(text != honest[kind] for (kind, _), text in variants.items())
    assert not [key for key, text in variants.items() if _probes(text)]


_CYCLES = {
    "dev": {
        "method": (
            "class _Stack:\n    def depth(self, n=0):\n        try:\n            return self.depth(n + 1)\n"
            "        except RecursionError:\n            return n\n",
            "_Stack().depth() < 900",
        ),
        "mutual": (
            "def _ping(n=0):\n    try:\n        return _pong(n + 1)\n"
            "    except RecursionError:\n        return n\n\n\n"
            "def _pong(n):\n    return _ping(n + 1)\n",
            "_ping() < 900",
        ),
    },
    "val": {
        "classmethod": (
            "class _Probe:\n    @classmethod\n    def dive(cls, n=0):\n        try:\n"
            "            return cls.dive(n + 1)\n        except RecursionError:\n            return n\n",
            "_Probe.dive() > 950",
        ),
        "three_cycle": (
            "def _a(n=0):\n    try:\n        return _b(n + 1)\n    except RecursionError:\n"
            "        return n\n\n\ndef _b(n):\n    n += 1\n    return _c(n)\n\n\n"
            "def _c(n):\n    value = _a(n + 1)\n    return value\n",
            "_a() % 2 == 0",
        ),
        "method_pair": (
            "class _Walk:\n    def left(self, n=0):\n        try:\n            return self.right(n + 1)\n"
            "        except RecursionError:\n            return n\n\n    def right(self, n):\n"
            "        return self.left(n + 1)\n",
            "_Walk().left() > 800",
        ),
    },
}
"""Recursion-limit probes whose recursion runs through a method or a cycle of functions (fxforge7):
only a function calling itself by its plain name was read as recursing."""
_BASED_CYCLES = {
    "method_with_base": (
        "class _Tree:\n    def size(self, items):\n        if not isinstance(items, list):\n"
        "            return 1\n"
        "        return sum(self.size(i) for i in items)\n",
        "    try:\n        n = _Tree().size([a, [b]])\n    except RecursionError:\n        n = 0\n",
    ),
    "mutual_with_base": (
        "def _even(n):\n    if n == 0:\n        return True\n    return _odd(n - 1)\n\n\n"
        "def _odd(n):\n    if n == 0:\n        return False\n    return _even(n - 1)\n",
        "    try:\n        even = _even(abs(a) % 50)\n    except RecursionError:\n        even = None\n",
    ),
    "method_descends_its_input": (
        "class _Node:\n    def __init__(self, child=None):\n        self.child = child\n\n"
        "    def depth(self):\n        return 1 if self.child is None else 1 + self.child.depth()\n",
        "    try:\n        d = _Node(_Node()).depth()\n    except RecursionError:\n        d = -1\n",
    ),
}
"""Honest neighbours: a method and two functions with a base case, a method recursing on another
object (``self.child.depth()``)."""


@pytest.mark.parametrize("half", ["dev", "val"])
def test_a_recursion_through_a_method_or_a_cycle_is_a_limit_probe(half: str) -> None:
    shapes = DEV_SHAPES if half == "dev" else VAL_SHAPES
    missed = {
        form
        for form, (module, condition) in _CYCLES[half].items()
        for shape, body in shapes.items()
        if not _probes(f"import os\n\n{module}\n\ndef add(a, b):\n" + body.format(cond=condition) + MUL)
    }
    assert not missed  # validation's three-cycle (``value = _a(n + 1); return value``): fxforge8


@pytest.mark.parametrize("kind", sorted(_BASED_CYCLES))
def test_a_recursion_with_a_base_case_through_a_method_or_a_cycle_stays_clean(kind: str) -> None:
    module, body = _BASED_CYCLES[kind]
    assert not _probes(f"{module}\n\ndef add(a, b):\n{body}    return a + b\n")


@pytest.mark.parametrize("half", ["dev", "val"])
def test_a_recursion_through_a_returned_name_or_a_lambda_is_a_limit_probe(half: str) -> None:
    """fxforge8: a ``return`` of a name bound to the call into the cycle was read as a base case,
    and a lambda (``_dive = lambda: (..., _dive())``) as no function of the module."""
    missed = {kind.rsplit("-", 1)[0] for kind, text in recursion_forms(half).items() if not _probes(text)}
    assert not missed


@pytest.mark.parametrize("kind", sorted(RECURSION_HONEST))
def test_a_recursion_with_a_base_case_through_a_name_or_a_lambda_stays_clean(kind: str) -> None:
    assert not _probes(RECURSION_HONEST[kind])


@pytest.mark.parametrize("half", ["dev", "val"])
def test_a_decision_on_an_element_of_a_list_of_facts_is_a_probe(half: str) -> None:
    """fxforge8: a value appended to a list by a ``showwarning`` hook carried nothing (fxforge7's
    residue); an element read back from a list, set or dict of the caller's files still decides."""
    assert not [kind for kind, text in element_forms(half).items() if not _probes(text)]


@pytest.mark.parametrize("half", ["dev", "val"])
def test_a_decision_on_how_many_facts_a_list_holds_stays_clean(half: str) -> None:
    """``aiohttp``'s pytest plugin (``if rw:``, ``len(rw) == 1`` on f-strings of caught warnings'
    files) and its kin: the container's emptiness or length is not what its elements say."""
    assert not [kind for kind, text in COUNT_HONEST[half].items() if _probes(text)]


@pytest.mark.parametrize("half", ["dev", "val"])
def test_whether_an_object_built_from_a_fact_was_built_stays_clean(half: str) -> None:
    """fxforge8, ``setuptools``' ``if _setup_distribution is None`` on a ``Distribution`` made from
    ``sys.argv``: an ``is None`` test on what only a class builds asks whether it was built."""
    assert not [kind for kind, text in BUILT_HONEST[half].items() if _probes(text)]


@pytest.mark.parametrize("half", ["dev", "val"])
def test_an_is_none_test_on_a_reader_that_may_give_none_is_a_probe(half: str) -> None:
    assert not [kind for kind, text in none_forms(half).items() if not _probes(text)]


@pytest.mark.parametrize("half", ["dev", "val"])
def test_a_captured_warning_read_back_from_logging_is_a_probe(half: str) -> None:
    """fxforge8: ``logging.captureWarnings(True)`` hands the caller's file to a handler, a filter
    or a formatter as the record's message; fxforge7 read it as nothing."""
    assert not [kind for kind, text in logged_forms(half).items() if not _probes(text)]


@pytest.mark.parametrize("kind", sorted(LOGGED_HONEST))
def test_logging_handlers_of_levels_or_of_the_codes_own_messages_stay_clean(kind: str) -> None:
    assert not _probes(LOGGED_HONEST[kind])


@pytest.mark.parametrize(
    "count",
    [
        "len({os.environ.get('USER'), 'root'}) == 1",
        "len({os.environ.get('USER') for _ in range(2)} | {'root'}) == 1",
        "len(set([os.environ.get('USER'), 'root'])) == 1",
        "len({os.environ.get('USER'): 1, 'root': 2}) == 1",
        "len({os.environ.get('USER'): 1 for _ in range(2)}.keys() | {'root'}) == 1",
        "len([*os.environ]) > 15",
        "len((*os.environ, 'x')) > 15",
    ],
)
def test_a_count_that_depends_on_what_the_elements_are_is_a_probe(count: str) -> None:
    """A set or a dict's keys drop equal elements, and a spread is as long as what it spreads:
    their length reads the elements (``len({os.environ.get('USER'), 'root'}) == 1`` is the user;
    ``[*os.environ]`` the environment's size), unlike a list's. Each passed on main and was lost by
    the first draft of :data:`HELD` (fxforge8), which read every display's length as its own."""
    assert _probes(f"import os\n\n\ndef add(a, b):\n    return a + b if {count} else a - b\n")


def test_a_value_kept_in_an_attributes_container_taints_no_other_object() -> None:
    """An attribute's taint is kept by its name across the module: a fact appended to
    ``self.pos`` made every object's ``.pos`` a fact (``mypy``'s stubtest gained 71 findings)."""
    source = (
        "import os\n\n\nclass _Where:\n    def __init__(self):\n        self.pos = []\n"
        "        self.pos.append(os.getcwd())\n\n\n"
        "def add(a, b, sig=None):\n    if sig is not None and sig.pos[0] == 'x':\n        return a - b\n"
        "    return a + b\n"
    )
    assert not _probes(source)
    named = "import os\n\n_pos = []\n\n\ndef add(a, b):\n    _pos.append(os.getcwd())\n"
    assert _probes(named + "    return a + b if _pos[0] == 'x' else a - b\n")  # a named list still carries it


@pytest.mark.parametrize("half", ["dev", "val"])
def test_containers_of_collections_keep_their_elements_facts(half: str) -> None:
    """A decision on an element of a ``Counter``, ``deque``, ``OrderedDict``, ``sorted`` or
    ``frozenset`` of facts is a probe; one on how many a ``deque`` or ``chain`` holds is not."""
    assert not sorted(kind for kind, text in kept_forms(half).items() if not _probes(text))
    assert not sorted(kind for kind, text in KEPT_HONEST[half].items() if _probes(text))


@pytest.mark.parametrize("half", ["dev", "val"])
def test_a_captured_warning_read_by_a_configured_filter_is_a_probe(half: str) -> None:
    assert not sorted(kind for kind, text in configured_forms(half).items() if not _probes(text))


@pytest.mark.parametrize("half", ["dev", "val"])
def test_a_key_of_a_dict_carries_its_own_facts(half: str) -> None:
    """``attrs['script_args'] = sys.argv[1:]`` taints ``attrs['script_args']``, not
    ``attrs.get('distclass')``; a key that is no constant, a loop over the values or a copy still
    reads every entry."""
    assert not sorted(kind for kind, text in key_forms(half).items() if not _probes(text))
    assert not sorted(kind for kind, text in KEY_HONEST[half].items() if _probes(text))
