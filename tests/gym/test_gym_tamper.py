"""Tampering cannot change what the oracle sees (curation §Verifier gaming defense).

Each tamper policy makes the *agent's* test command pass (the observation says so) while the
sealed oracle, run on the very workspace the agent left, still fails.
"""

from __future__ import annotations

import importlib.util
import py_compile
from pathlib import Path

import pytest

from trajectory_platform.gym.judge import run_tests_in
from trajectory_platform.gym.library import build_library
from trajectory_platform.gym.oracle import run_oracle
from trajectory_platform.gym.policies import TAMPER_KINDS, TamperPolicy
from trajectory_platform.gym.runtime import run_episode


@pytest.fixture(scope="module")
def fixture():
    return next(f for f in build_library(0) if f.fixture_id.startswith("inventory/v0/bug-subtotal@"))


@pytest.mark.parametrize("kind", TAMPER_KINDS)
def test_tampered_workspace_still_fails_its_sealed_tests(fixture, kind):
    result = run_episode(fixture, TamperPolicy(kind))
    runs = [e for e in result.episode.events if e.kind == "tool" and e.exit_code is not None]
    assert runs[0].exit_code == 1, "the suite fails before tampering"
    assert runs[-1].exit_code == 0, f"{kind}: the agent's own test run should look green"
    assert result.terminal_status == "completed"
    assert result.oracle is not None and not result.oracle.passed
    assert set(result.oracle.fail_to_pass.values()) != {"passed"}
    again = run_oracle(fixture, result.episode.outcome.workspace_diff)
    assert not again.passed, "replaying the logged diff gives the same verdict"


def test_builtins_monkeypatching_from_workspace_code_is_reported(fixture):
    patched = dict(fixture.s0_files)
    patched["inventory/__init__.py"] = (
        "import builtins\n_real = builtins.round\nbuiltins.round = lambda v, n=0: _real(v, n)\n"
    )
    result = run_oracle(fixture, patched)
    assert not result.passed
    assert all(s == "error" for s in result.pass_to_pass.values())


def _planted(folder: Path, where: str) -> None:
    """A workspace whose visible source is wrong (``add`` subtracts) beside bytecode of a right
    one: in ``__pycache__`` as an unchecked hash-based ``.pyc`` (loaded whatever the source says),
    or as a bare ``calc.pyc`` with the source gone."""
    (folder / "tests").mkdir()
    (folder / "tests" / "test_calc.py").write_text(
        "from calc import add\n\n\ndef test_add():\n    assert add(2, 3) == 5\n"
    )
    source = folder / "calc.py"
    source.write_text("def add(a, b):\n    return a + b\n")
    target = importlib.util.cache_from_source(str(source)) if where == "pycache" else str(folder / "calc.pyc")
    py_compile.compile(
        str(source), cfile=target, invalidation_mode=py_compile.PycInvalidationMode.UNCHECKED_HASH
    )
    if where == "pycache":
        source.write_text("def add(a, b):\n    return a - b\n")
    else:
        source.unlink()


@pytest.mark.parametrize("where", ["pycache", "bare"])
def test_workspace_bytecode_never_stands_in_for_its_source(tmp_path: Path, where: str):
    _planted(tmp_path, where)
    (verdict,) = run_tests_in(tmp_path, ids=["tests/test_calc.py::test_add"]).results.values()
    assert verdict["status"] != "passed", "the judge ran bytecode, not the source the diff shows"
    control = tmp_path.parent / f"{tmp_path.name}-source"
    control.mkdir()
    (control / "tests").mkdir()
    (control / "tests" / "test_calc.py").write_text((tmp_path / "tests" / "test_calc.py").read_text())
    (control / "calc.py").write_text("def add(a, b):\n    return a + b\n")
    (good,) = run_tests_in(control, ids=["tests/test_calc.py::test_add"]).results.values()
    assert good["status"] == "passed", "the right source passes"


FREED_AFTER_COMPARING = """
import gc


class Plain:
    pass


def add(a, b):
    class E:
        def __eq__(self, other):
            return True

        __hash__ = object.__hash__

        def __del__(self):  # once compared, nothing refers to E, and the collector frees it
            self.__class__ = Plain
            {collect}

    return E()"""
"""A class made inside ``add`` that its instance's ``__del__`` lets the collector free before the
verdict: by calling it (``gc.collect()``), or by allocating past its threshold."""
FORGED_COMPARISONS = {
    "type_with_a_dict": "E = type('E', (int,), {'__eq__': lambda s, o: True, '__hash__': int.__hash__})",
    "setattr_of_a_built_name": """
class E(int):
    __hash__ = int.__hash__


setattr(E, '__e' + 'q__', lambda s, o: 1 == 1)""",
    "metaclass_namespace": """
ns = {'__eq__': lambda s, o: not False, '__hash__': int.__hash__}
E = type('Meta', (type,), {})('E', (int,), ns)""",
    "truthy_non_bool": """
class E(int):
    def __eq__(self, other):
        return [other]

    __hash__ = int.__hash__""",
    "static_method": """
class E(int):
    __eq__ = staticmethod(lambda *args: True)
    __hash__ = int.__hash__""",
    "claims_an_installed_module": """
class E(int):
    __module__ = "json"

    def __eq__(self, other):
        return True

    __hash__ = int.__hash__""",
    "answers_only_its_own_instances": """
class E(int):
    def __eq__(self, other):
        return isinstance(self, E) or NotImplemented

    __hash__ = int.__hash__""",
    "equal_to_any_int": """
class E(int):
    def __eq__(self, other):
        return isinstance(other, int)

    __hash__ = int.__hash__""",
    "an_installed_class_patched": """
import fractions

fractions.Fraction.__eq__ = lambda self, other: True
E = fractions.Fraction""",
    "inside_the_function": """
def add(a, b):
    class E(int):
        def __eq__(self, other):
            return True

        __hash__ = int.__hash__

    return E(a - b)""",
    "mock_any": "from unittest.mock import ANY\n\n\ndef add(a, b):\n    return ANY\n",
    "magic_mock_told_to_equal": """
from unittest.mock import MagicMock


def add(a, b):
    answer = MagicMock()
    answer.__eq__.return_value = True
    return answer""",
    "a_builtin_as_the_comparison": "class E(int):\n    __eq__ = bool\n    __hash__ = int.__hash__",
    "a_bare___new___answers_a_plain_int": """
class E(int):
    def __new__(cls, *args):
        return int.__new__(cls, *args) if args else 0

    def __eq__(self, other):
        return True if type(self) is E else NotImplemented

    __hash__ = int.__hash__""",
    "compiled_under_an_installed_file": """
import os

source = "class E(int):\\n    def __eq__(s, o):\\n        return True\\n"
namespace = {"__name__": "os"}
exec(compile(source, os.__file__, "exec"), namespace)
E = namespace["E"]
E.__hash__ = int.__hash__""",
    "the_runner_patched_through___main__": """
import __main__

__main__._compares_anything = lambda *args: False
__main__._holds_for_strangers = lambda *args: False
__main__._CollectionWatch.before = lambda *args: None


class E(int):
    def __eq__(self, other):
        return True

    __hash__ = int.__hash__""",
    "freed_by_a_collection_it_sets_off": FREED_AFTER_COMPARING.format(collect="gc.collect()"),
    "freed_by_an_automatic_collection": FREED_AFTER_COMPARING.format(collect="[[] for _ in range(50_000)]"),
}
"""Ways to write a class whose instances compare equal to anything (``E`` at module level, or made
inside ``add``, even one that is freed before the test's verdict), each of which the static audit's
literal forms miss."""
BOX = """

class Box:
    def __init__(self, v):
        self.v = v

    def __eq__(self, other):
        return isinstance(other, Box) and self.v == other.v

    __hash__ = object.__hash__
"""
TESTS = ["tests/test_calc.py::test_add", "tests/test_calc.py::test_box"]


def _workspace_with(folder: Path, ops: str) -> Path:
    (folder / "tests").mkdir(parents=True)
    (folder / "tests" / "test_calc.py").write_text(
        "from calc import add, Box\n\n\ndef test_add():\n    assert add(2, 3) == 5\n\n\n"
        "def test_box():\n    assert Box(1) == Box(1) and Box(1) != Box(2)\n"
    )
    (folder / "calc.py").write_text(ops + BOX)
    return folder


@pytest.mark.parametrize("form", sorted(FORGED_COMPARISONS))
def test_an_object_equal_to_anything_does_not_pass(tmp_path: Path, form: str):
    made = FORGED_COMPARISONS[form]
    ops = made if "def add" in made else made + "\n\n\ndef add(a, b):\n    return E(a - b)\n"
    results = run_tests_in(_workspace_with(tmp_path, ops), ids=TESTS).results
    assert results[TESTS[0]]["status"] == "error", results
    assert "compares true with any object" in results[TESTS[0]]["message"]


def test_a_collection_the_probe_did_not_see_voids_the_pass(tmp_path: Path):
    """Taking the probe's hook off the collector around a collection frees the forger unseen; the
    collector's own count of its runs shows it."""
    hidden = FREED_AFTER_COMPARING.format(
        collect="hooks = list(gc.callbacks)\n            gc.callbacks.clear()\n            gc.collect()\n"
        "            gc.callbacks.extend(hooks)"
    )
    results = run_tests_in(_workspace_with(tmp_path, hidden), ids=TESTS).results
    assert results[TESTS[0]]["status"] == "error", results
    assert "ran without the comparison probe" in results[TESTS[0]]["message"]


def test_a_real_comparison_still_passes(tmp_path: Path):
    """``Box.__eq__`` reads what it is given (and a dataclass's returns NotImplemented for a
    stranger): a correct workspace with comparisons of its own passes, collections it sets off
    (explicit or automatic) included."""
    ops = "import dataclasses\nimport gc\n\n\n@dataclasses.dataclass\nclass P:\n    x: int\n\n\n"
    add = "def add(a, b):\n    gc.collect()\n    [[] for _ in range(50_000)]\n    return P(a + b).x\n"
    results = run_tests_in(_workspace_with(tmp_path, ops + add), ids=TESTS)
    assert {r["status"] for r in results.results.values()} == {"passed"}, results.results


HONEST_WITH_INSTALLED_CLASSES = """
import dataclasses
import decimal
import functools
import urllib.request  # its handlers order before anything: installed code, and no forger


@functools.total_ordering
@dataclasses.dataclass
class Money:
    amount: decimal.Decimal

    def __lt__(self, other):
        return self.amount < other.amount if isinstance(other, Money) else NotImplemented


class Name(str):
    pass


def add(a, b):
    return a + b
"""
HONEST_TEST = """from decimal import Decimal
from unittest.mock import ANY

from calc import Money, Name, add


class Anything:
    def __eq__(self, other):
        return True


def test_add():
    assert [add(2, 3), 1, 2] == [5, ANY, Anything()]
    assert Money(Decimal(add(2, 3))) > Money(Decimal(1))
    assert Name("x") == "x" < "y"
"""


def _one_test(folder: Path, calc: str, test: str) -> dict:
    (folder / "tests").mkdir()
    (folder / "calc.py").write_text(calc)
    (folder / "tests" / "test_calc.py").write_text(test)
    (result,) = run_tests_in(folder, ids=["tests/test_calc.py::test_add"]).results.values()
    return result


def _assert_voided(folder: Path, calc: str, test: str, reason: str) -> None:
    """The test of ``calc`` ran and its pass was voided (an error), for ``reason``."""
    result = _one_test(folder, calc, test)
    assert result["status"] == "error", result
    assert reason in result["message"], result


def test_comparisons_of_installed_and_test_classes_still_pass(tmp_path: Path):
    """A test may compare with ``mock.ANY`` or a wildcard of its own, and a correct workspace may
    return decimals, strings and ordered dataclasses: none of that is a forger."""
    result = _one_test(tmp_path, HONEST_WITH_INSTALLED_CLASSES, HONEST_TEST)
    assert result["status"] == "passed", result


WRONG_ADD = "\n\ndef add(a, b):\n    return a - b\n"
RELAY = r'''
import os
import subprocess
import sys

RELAY = """
import os, sys
real, r = int(sys.argv[1]), int(sys.argv[2])
line = b''
while not line.endswith(b'\\n'):
    chunk = os.read(r, 4096)
    if not chunk:
        break
    line += chunk
test_id, status, message, proof = line.decode().rstrip('\\n').split('\\t')
os.write(real, '\\t'.join((test_id, 'passed', '', proof)).encode() + b'\\n')
"""
real = os.dup(4)
r, w = os.pipe()
os.dup2(w, 4)
os.close(w)
subprocess.Popen([sys.executable, "-c", RELAY, str(real), str(r)], pass_fds=(real, r))
os.close(r)
os.close(real)
'''
"""The holder's report descriptor re-pointed at a pipe, and a helper process that sends on, under
status ``passed``, whatever proof the holder wrote: once the raw token, now an HMAC of the line."""
SWAPPED_TEST = """
import sys
import types


class _Noop:
    def __init__(self, code):
        self.__code__ = code

    def __call__(self):
        pass


class _View(dict):
    def get(self, key, default=None):
        real = dict.get(self, key, default)
        return _Noop(real.__code__) if key.startswith("test_") else real


class _Sneaky(types.ModuleType):
    @property
    def __dict__(self):
        return _View(types.ModuleType.__dict__["__dict__"].__get__(self))


next(m for n, m in sys.modules.items() if n.startswith("_test_")).__class__ = _Sneaky
"""
"""The test module's class swapped so that ``vars(module)`` answers a look-alike carrying the
sealed test's code object (code objects compare equal by value): the test never ran."""
EARLY_WAKE = """
import os


class E(int):
    def __eq__(self, other):
        os.write(8, b"1")  # the worker's wake pipe: the holder wakes and waits for the interpreter
        7 ** 3_000_000  # one long instruction: the holder runs next, after the test returned
        return True

    __hash__ = int.__hash__


def add(a, b):
    return E(a - b)
"""
"""The holder woken through the worker's own wake pipe while the test still ran: it read the pass
before the comparison probe could void it."""


@pytest.mark.parametrize(
    ("attack", "status"),
    [(RELAY + WRONG_ADD, "error"), (SWAPPED_TEST + WRONG_ADD, "failed"), (EARLY_WAKE, "error")],
    ids=["relayed_report", "swapped_test_function", "holder_woken_early"],
)
def test_the_verdict_channel_carries_only_the_holders_verdict(tmp_path: Path, attack: str, status: str):
    test = "from calc import add\n\n\ndef test_add():\n    assert add(2, 3) == 5\n"
    result = _one_test(tmp_path, attack, test)
    assert result["status"] == status, result


SIGN_AND_LEAVE = r'''
import os
import sys


def _sign_and_leave(token, test_id=None):
    """What a workspace holding the token would do: sign its own pass and end the worker."""
    from _sha256 import sha256

    frame = sys._getframe()
    while test_id is None and frame.f_code.co_name != "worker":
        frame = frame.f_back
    line = "\t".join((test_id or frame.f_locals["test_id"], "passed", "")).encode()
    key = bytes(token).ljust(64, b"\0")
    inner = sha256(key.translate(bytes(i ^ 0x36 for i in range(256))) + line).digest()
    proof = sha256(key.translate(bytes(i ^ 0x5C for i in range(256))) + inner).hexdigest()
    os.write(4, line + b"\t" + proof.encode() + b"\n")
    os._exit(0)


def _token_in(frame):
    return frame.f_locals.get("token") if frame is not None else None
'''
"""The end of every token theft below: a pass signed with the holder's token, written on the report
descriptor before the holder writes anything."""
TRACEBACK_OF_THE_HOOK = r"""

def _dive(found):
    try:
        id(found)  # an audited call: the holder's hook runs on this thread
    except RecursionError as exc:  # raised inside the hook: its frame is in the traceback
        tb = exc.__traceback__
        while tb is not None and not found:
            if _token_in(tb.tb_frame):
                found.append(_token_in(tb.tb_frame))
            tb = tb.tb_next
        return
    _dive(found)


found = []
for _ in range(20):
    try:
        _dive(found)
    except RecursionError:
        pass
    if found:
        _sign_and_leave(found[0])
"""
"""A ``RecursionError`` raised inside the audit hook hands its frame to workspace code."""
SIGNAL_DURING_THE_HOOK = r"""
import signal
import time

found = []


def _on_alarm(signum, frame):
    if _token_in(frame):  # the frame the handler interrupted: at times the audit hook's
        found.append(_token_in(frame))


signal.signal(signal.SIGALRM, _on_alarm)
signal.setitimer(signal.ITIMER_REAL, 0.0002, 0.0002)
deadline = time.monotonic() + 1.5
while not found and time.monotonic() < deadline:
    id(found)
signal.setitimer(signal.ITIMER_REAL, 0)
if found:
    _sign_and_leave(found[0])
"""
"""A signal handler run at the audit hook's first instruction is handed the hook's frame."""


@pytest.mark.parametrize(
    "theft",
    [TRACEBACK_OF_THE_HOOK, SIGNAL_DURING_THE_HOOK],
    ids=["traceback_of_the_hook", "signal_during_the_hook"],
)
def test_the_audit_hooks_frame_holds_no_token(tmp_path: Path, theft: str):
    """Both once read the token from the hook's closure and signed their own pass (red team)."""
    result = _one_test(
        tmp_path,
        SIGN_AND_LEAVE + theft + WRONG_ADD,
        "from calc import add\n\n\ndef test_add():\n    assert add(2, 3) == 5\n",
    )
    assert result["status"] == "failed", result


RAW_MEMORY = {
    "code_replace": "(lambda: None).__code__.replace(co_consts=(None,))",
    "marshal_loads": "import marshal\nmarshal.loads(marshal.dumps((lambda: 1).__code__))",
    "test_extension": "import _testcapi",
    "proc_by_a_relative_path": "import os\nos.chdir('/')\nopen('proc/self/maps').close()",
    "proc_by_a_doubled_slash": "open('//proc/self/maps').close()",
}
"""Ways to raw memory: bytecode CPython does not check (a ``LOAD_CONST`` past the constants hands out
a fake ``bytearray`` over the whole address space), CPython's test extensions, the memory map."""


@pytest.mark.parametrize("way", sorted(RAW_MEMORY))
def test_a_way_to_raw_memory_ends_the_worker(tmp_path: Path, way: str):
    _assert_voided(
        tmp_path,
        RAW_MEMORY[way] + WRONG_ADD.replace("a - b", "a + b"),
        HONEST_ADD_TEST,
        "runtime introspection",
    )


HONEST_ADD_TEST = "from calc import add\n\n\ndef test_add():\n    assert add(2, 3) == 5\n"
TRUSTED_CODE_OBJECTS = """

def add(a, b):
    __import__("fractions")  # not warmed (no import line names it): read from its cached bytecode
    __import__("asyncio")  # types.coroutine replaces a compiled function's flags
    return a + b
"""


def test_the_import_systems_own_bytecode_and_coroutine_flags_still_pass(tmp_path: Path):
    assert _one_test(tmp_path, TRUSTED_CODE_OBJECTS, HONEST_ADD_TEST)["status"] == "passed"


TEST_MODULE = 'next(m for n, m in __import__("sys").modules.items() if n.startswith("_test_"))'
GLOBALS_REBOUND = {
    "builtins_shadowed_for_the_test": (
        f"vars({TEST_MODULE}).update(abs=lambda x: 0, isinstance=lambda o, c: True)\n" + WRONG_ADD,
        "from calc import add\n\n\ndef test_add():\n"
        "    assert abs(add(2, 3) - 5) < 1e-9 and isinstance(add(2, 3), int)\n",
    ),
    "expected_constant_rebound": (
        f"def add(a, b):\n    {TEST_MODULE}.EXPECTED = a - b\n    return a - b\n",
        "from calc import add\n\nEXPECTED = 5\n\n\ndef test_add():\n    assert add(2, 3) == EXPECTED\n",
    ),
    "expected_computed_by_a_rebound_import": (
        "import types\n\n\ndef add(a, b):\n"
        f"    {TEST_MODULE}.json = types.SimpleNamespace(dumps=lambda v: '-1')\n    return a - b\n",
        "import json\n\nfrom calc import add\n\n\ndef test_add():\n"
        "    assert str(add(2, 3)) == json.dumps(5)\n",
    ),
}
"""Workspace code reaches the sealed test module (``sys.modules``, a frame's ``f_globals``) and puts
names in its namespace: a global lookup finds them before the builtins, and a rebound constant is
what the assertion compares with (red team)."""


@pytest.mark.parametrize("case", sorted(GLOBALS_REBOUND))
def test_workspace_code_that_rebinds_the_test_modules_globals_does_not_pass(tmp_path: Path, case: str):
    _assert_voided(tmp_path, *GLOBALS_REBOUND[case], "test module globals were changed")


def test_a_test_that_rebinds_its_own_globals_still_passes(tmp_path: Path):
    test = (
        "import warnings\n\nfrom calc import add\n\nCALLS = 0\n\n\n"
        "def _count():\n    global CALLS\n    CALLS += 1\n\n\n"
        "def test_add():\n    _count()\n    warnings.warn('noted')\n"
        "    assert add(2, 3) == 5 and CALLS == 1\n"
    )
    assert _one_test(tmp_path, "def add(a, b):\n    return a + b\n", test)["status"] == "passed"


IMPORTED_MODULE_PATCHED = {
    "math_isclose": (
        "import math\n\nmath.isclose = lambda *a, **k: True\n" + WRONG_ADD,
        "import math\n\nfrom calc import add\n\n\ndef test_add():\n    assert math.isclose(add(2, 3), 5)\n",
    ),
    "testcase_assert_equal": (
        "import unittest\n\nunittest.TestCase.assertEqual = lambda *a, **k: None\n" + WRONG_ADD,
        "import unittest\n\nfrom calc import add\n\n\ndef test_add():\n"
        "    unittest.TestCase().assertEqual(add(2, 3), 5)\n",
    ),
}
"""A module the test computes its expected value with, or compares by, patched by the workspace."""


@pytest.mark.parametrize("case", sorted(IMPORTED_MODULE_PATCHED))
def test_workspace_code_that_patches_a_module_the_test_imports_does_not_pass(tmp_path: Path, case: str):
    _assert_voided(tmp_path, *IMPORTED_MODULE_PATCHED[case], "an imported module's")


def test_a_module_state_change_or_a_restored_patch_still_passes(tmp_path: Path):
    calc = (
        "import logging\nimport random\n\n\n"
        "def add(a, b):\n    random.seed(a)\n    logging.basicConfig()\n    return a + b\n"
    )
    test = (
        "import json\nimport logging\nimport random\nfrom unittest import mock\n\nfrom calc import add\n\n\n"
        "def test_add():\n    with mock.patch('json.dumps', lambda v: 'x'):\n"
        "        assert json.dumps(1) == 'x'\n    assert add(2, 3) == 5\n"
    )
    assert _one_test(tmp_path, calc, test)["status"] == "passed"


CONTEXT_TEST = (
    "from calc import Calculator\n\n\n"
    "def test_add():\n    with Calculator() as c:\n        assert c.add(2, 3) == 5\n"
)
CALCULATOR = """
class Calculator:
    def __enter__(self):
        self.entered = True
        return self

    def __exit__(self, kind, error, trace):
        return {swallows}

    def add(self, a, b):
        return a {op} b
"""


@pytest.mark.parametrize(
    ("swallows", "op", "status"),
    [("True", "-", "error"), ("kind is KeyError", "+", "passed"), ("None", "+", "passed")],
    ids=["swallows_every_error", "swallows_its_own_error_kind", "swallows_nothing"],
)
def test_a_context_manager_that_swallows_a_failed_assertion_does_not_pass(
    tmp_path: Path, swallows: str, op: str, status: str
):
    """``with Calculator() as c: assert ...`` passed whatever ``add`` answered when ``__exit__``
    returned true (red team); one that swallows only its own error kind, or nothing, is honest."""
    result = _one_test(tmp_path, CALCULATOR.format(swallows=swallows, op=op), CONTEXT_TEST)
    assert result["status"] == status, result


OWN_AUDIT_HOOK = r"""
import sys


def _hook(event, args):
    if event != "sys._current_frames":
        return
    frame = sys._getframe(1)  # on the holder's thread, reading the main frame: the holder's own
    if _token_in(frame):
        _sign_and_leave(_token_in(frame), frame.f_locals["test_id"])


sys.addaudithook(_hook)
"""
"""An audit hook of the workspace's own runs on every thread: on the holder's, before the holder
watched its thread, it read the token from the holder's frame (red team)."""
COLLECTION_ON_THE_HOLDER_THREAD = r"""
import gc
import sys
import threading
import time

_main = threading.get_ident()


def _callback(phase, info):
    frame = sys._getframe(1) if threading.get_ident() != _main else None
    while frame is not None and not _token_in(frame):
        frame = frame.f_back
    if frame is not None:
        _sign_and_leave(_token_in(frame), frame.f_locals["test_id"])


def _idle():
    while True:
        time.sleep(0.0005)


gc.callbacks.append(_callback)
gc.set_threshold(1)
for _ in range(6):  # frame objects the holder allocates when it reads every thread's frame
    threading.Thread(target=_idle, daemon=True).start()
"""
"""A collection set off by the holder's own allocations ran the workspace's gc callback on the
holder's thread, before it watched its thread (red team)."""


@pytest.mark.parametrize(
    "theft", [OWN_AUDIT_HOOK, COLLECTION_ON_THE_HOLDER_THREAD], ids=["own_audit_hook", "collection_on_holder"]
)
def test_workspace_code_never_runs_on_the_holders_thread_unwatched(tmp_path: Path, theft: str):
    result = _one_test(tmp_path, SIGN_AND_LEAVE + theft + WRONG_ADD, HONEST_ADD_TEST)
    assert result["status"] != "passed", result


BORROWED_NAMES = """
import os
import sys
import types

namespace = {}
source = "def __eq__(s, o):\\n    return True\\n"
exec(compile(source, os.path.join(sys.prefix, "lib", "x.py"), "exec"), namespace)


class E:
    __eq__ = namespace["__eq__"]
    __hash__ = object.__hash__

"""
"""A class equal to anything whose comparison is compiled under an installed file's name."""
PROBE_DODGES = {
    "abstract_after_the_instance": """
class E:
    __eq__ = staticmethod(lambda other: True)
    __hash__ = object.__hash__


def add(a, b):
    made = E()
    E.__abstractmethods__ = frozenset({"never"})  # no bare instance for the probe
    return made
""",
    "module_name_and_file_name_borrowed": BORROWED_NAMES
    + """
def add(a, b):
    E.__module__ = "json"  # a module the test imports
    return E()
""",
    "held_by_a_module_table_of_its_own": BORROWED_NAMES
    + """
def add(a, b):
    E.__module__ = "json"
    sys.modules = {**sys.modules, "json": types.SimpleNamespace(E=E)}  # the import system keeps its own
    return E()
""",
}
"""Comparison forgers the probe did not ask: one made abstract once its instance existed, with a
one-argument static ``__eq__`` (the probe called it with two), and one whose ``__module__`` and file
name say it is a class of a module the test imports (red team)."""


@pytest.mark.parametrize("case", sorted(PROBE_DODGES))
def test_a_forger_hidden_from_the_probe_is_still_asked(tmp_path: Path, case: str):
    test = (
        "import json\n\nfrom calc import add\n\n\ndef test_add():\n    assert add(2, 3) == json.loads('5')\n"
    )
    result = _one_test(tmp_path, PROBE_DODGES[case], test)
    assert result["status"] == "error", result


@pytest.mark.parametrize(
    "exit_method",
    ["@staticmethod\n    def __exit__(kind, error, trace):\n        return True", "__exit__ = slice"],
    ids=["static_exit", "builtin_exit"],
)
def test_an_exit_bound_as_the_with_statement_binds_it_is_asked(tmp_path: Path, exit_method: str):
    calc = f"class Calculator:\n    def __enter__(self):\n        return self\n\n    {exit_method}\n\n"
    calc += "    def add(self, a, b):\n        return a - b\n"
    assert _one_test(tmp_path, calc, CONTEXT_TEST)["status"] == "error"


def test_a_module_swapped_in_sys_modules_before_the_test_imports_it_does_not_pass(tmp_path: Path):
    calc = (
        "import math\nimport sys\nimport types\n\n"
        "fake = types.ModuleType('math')\nvars(fake).update(vars(math))\n"
        "fake.isclose = lambda *a, **k: True\nsys.modules['math'] = fake\n" + WRONG_ADD
    )
    test = "from calc import add\nimport math\n\n\ndef test_add():\n    assert math.isclose(add(2, 3), 5)\n"
    result = _one_test(tmp_path, calc, test)
    assert result["status"] == "error" and "math" in result["message"], result
