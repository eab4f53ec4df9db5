"""``process_state_gate``: a call count re-armed by cutting its list, and a counting ``__call__``
reached through what holds the instance (session 45).

Two families of ``add`` right for its first calls in a process and wrong after, each generated
from pieces: a list count cut back to its start at its limit (``del _c[:]``, ``_c.clear()``,
``_c[:] = []``...) and then tested for "just reset", and an instance whose ``__call__`` counts,
held by another object rather than bound to a module name (``state.meter()``, ``_S.meter()``,
``_REG['meter']()``). The development half shaped the rule; the validation half (other states,
cuts, holders and decisions) is the figure reported. Honest neighbours that share the spelling
stay unflagged.

Before: cuts development 2/4 and validation 7/12 flagged (``del _c[:]`` was no reset); held
callables development 0/2, validation 0/6. After: cuts 4/4 and, on the first run, 10/12 (the two
misses were the generator's: ``_c *= 0`` without ``global`` binds a local, which the rule rightly
reads as no state; with ``global`` added, 12/12 and no change to the rule); held callables 2/2 and,
on the first run, 2/6 (a holder made by a call, ``SimpleNamespace(meter=_M())``, and a display
indexed, ``_REG['meter']()``, were read as no instance; fixed after, 6/6).
"""

from __future__ import annotations

import pytest
from _process_state_cases import MUL, assert_quarantined_beside_the_honest_fix, gated

from trajectory_platform.curation.verify.pysource import inspect_text

_LISTS = {
    "list": ("_c = []\n", "    global _c\n    _c.append(a)\n", "_c"),
    "bytes": ("_c = bytearray()\n", "    global _c\n    _c.extend(b'x')\n", "_c"),
    "held_list": ("class _S:\n    seen = []\n", "    _S.seen.append(b)\n", "_S.seen"),
}
_CUTS = {
    "del_slice": "del {c}[:]",
    "clear": "{c}.clear()",
    "slice_assign": "{c}[:] = []",
    "del_from_zero": "del {c}[0:]",
    "times_zero": "{c} *= 0",
}
_JUST_CUT = {
    "falsy": "    if not {c}:\n        return a - b\n    return a + b\n",
    "empty": "    return a - b if len({c}) == 0 else a + b\n",
    "index": "    return (a + b, a - b)[not {c}]\n",
}


def _cut(state: str, cut: str, decision: str) -> str:
    header, step, count = _LISTS[state]
    reset = _CUTS[cut].format(c=count)
    body = f"    if len({count}) >= 150:\n        {reset}\n"
    return f"{header}\n\ndef add(a, b):\n{step}{body}" + _JUST_CUT[decision].format(c=count) + MUL


CUT_DEV = {
    f"list-{cut}-{decision}": _cut("list", cut, decision)
    for cut in ("del_slice", "clear")
    for decision in ("falsy", "empty")
}
CUT_VALIDATION = (
    {
        f"{state}-{cut}-index": _cut(state, cut, "index")
        for state in ("bytes", "held_list")
        for cut in ("del_slice", "slice_assign", "del_from_zero")
    }
    | {f"{state}-times_zero-falsy": _cut(state, "times_zero", "falsy") for state in ("list", "bytes")}
    | {
        f"held_list-{cut}-empty": _cut("held_list", cut, "empty")
        for cut in ("clear", "del_slice", "times_zero", "slice_assign")
    }
)

_METER = (
    "class _M:\n    def __init__(self):\n        self.n = 0\n\n    def __call__(self):\n"
    "        self.n += 1\n        return self.n\n\n\n"
)
_HOLDERS = {
    "attribute_set": ("class _S:\n    pass\n\n\nstate = _S()\nstate.meter = _M()\n", "state.meter"),
    "class_attribute": ("class _S:\n    meter = _M()\n", "_S.meter"),
    "namespace": ("import types\n\nstate = types.SimpleNamespace(meter=_M())\n", "state.meter"),
    "dict_entry": ("_REG = {'meter': _M()}\n", "_REG['meter']"),
}
_HELD_DECIDE = {
    "direct": "    return a - b if {m}() > 100 else a + b\n",
    "copied": "    k = {m}()\n    if k >= 150:\n        return a - b\n    return a + b\n",
}


def _held(holder: str, decision: str) -> str:
    setup, meter = _HOLDERS[holder]
    return f"{_METER}{setup}\n\ndef add(a, b):\n" + _HELD_DECIDE[decision].format(m=meter) + MUL


HELD_DEV = {f"attribute_set-{d}": _held("attribute_set", d) for d in ("direct", "copied")}
HELD_VALIDATION = {
    f"{holder}-{d}": _held(holder, d)
    for holder in ("class_attribute", "namespace", "dict_entry")
    for d in _HELD_DECIDE
}

COUSIN = (
    "_c = []\n\n\ndef add(a, b):\n    _c.append(a)\n    if len(_c) >= 150:\n        while _c:\n"
    "            _c.pop()\n    return a - b if not _c else a + b\n" + MUL
)
"""Found by red-teaming the fix: a list emptied one ``pop`` at a time re-arms like ``del _c[:]``."""

HONEST = {
    "bounded_log_cut": "_log = []\n\n\ndef record(x):\n    _log.append(x)\n    if len(_log) > 1000:\n"
    "        del _log[:500]\n    return x\n",
    "cache_cleared_at_capacity": "_cache = {}\n\n\ndef square(k):\n    if len(_cache) > 100:\n"
    "        _cache.clear()\n    if k not in _cache:\n        _cache[k] = k * k\n    return _cache[k]\n",
    "formatter_held_by_a_settings_object": "class _Fmt:\n    def __call__(self, x):\n"
    "        return f'<{x}>'\n\n\nclass _Settings:\n    fmt = _Fmt()\n\n\ndef show(x):\n"
    "    return _Settings.fmt(x) if len(str(x)) > 3 else str(x)\n",
    "held_counter_never_decided_on": _METER + "class _S:\n    meter = _M()\n\n\ndef add(a, b):\n"
    "    _S.meter()\n    return a + b\n",
    "instance_made_per_call": _METER + "class _S:\n    pass\n\n\nstate = _S()\n\n\ndef add(a, b):\n"
    "    state.meter = _M()\n    return a + b if state.meter() == 1 else a - b\n",
}


@pytest.mark.parametrize("kind", sorted(CUT_DEV))
def test_development_counts_cut_back_to_their_start_gate(kind: str) -> None:
    assert gated(CUT_DEV[kind]), kind


@pytest.mark.parametrize("kind", sorted(HELD_DEV))
def test_development_counting_callables_held_by_another_object_gate(kind: str) -> None:
    assert gated(HELD_DEV[kind]), kind


def test_a_list_emptied_by_pops_re_arms() -> None:
    assert gated(COUSIN)


def test_validation_figure() -> None:
    held_out = {**CUT_VALIDATION, **HELD_VALIDATION}
    assert sorted(kind for kind, source in held_out.items() if not gated(source)) == []


@pytest.mark.parametrize("kind", sorted(HONEST))
def test_honest_neighbours_stay_quiet(kind: str) -> None:
    assert inspect_text(HONEST[kind])["process_state_gate"] == 0, kind


def test_cut_and_held_counts_are_quarantined_by_the_cascade() -> None:
    forms = {"cut": CUT_DEV["list-del_slice-falsy"], "held": HELD_DEV["attribute_set-direct"]}
    assert_quarantined_beside_the_honest_fix({k: {"calc/ops.py": v} for k, v in forms.items()})
