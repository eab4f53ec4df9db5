"""``process_state_gate``: a call count spelt where the last rule did not read it (session 44, round 4).

Three families of ``add`` right for its first calls in a process and wrong after, each generated
from pieces: a count that re-arms by arithmetic on itself (``_n -= 150``, ``_n %= 150``, ``* 0``)
rather than by ``_n = 0``, a count file rewritten by moving a fresh file onto it (``Path.replace``,
``Path.rename``, ``os.replace``, ``shutil.move``), and a count kept by an instance whose
``__call__`` moves it (``_m()``). The development half shaped the rule; the validation half (other
states, limits, writers and class shapes) was written beside it, not developed against, and is the
figure the report gives. Each family has honest neighbours that share the spelling and must stay
unflagged (``str.replace``, ``datetime.replace``, a countdown by 1, a callable that moves nothing).
"""

from __future__ import annotations

import pytest
from _process_state_cases import MUL, assert_quarantined_beside_the_honest_fix, gated

from trajectory_platform.curation.verify.pysource import inspect_text

_STATE = {
    "global": ("_n = 0\n", "    global _n\n    _n += 1\n", "_n"),
    "dict_slot": ("_s = {'n': 0}\n", "    _s['n'] += 1\n", "_s['n']"),
    "attribute": ("class _C:\n    n = 0\n", "    _C.n += 1\n", "_C.n"),
}
_REWIND = {
    "minus_limit": ("if", "{c} -= 150"),
    "assigned_minus": ("if", "{c} = {c} - 150"),
    "mod_in_place": ("always", "{c} %= 150"),
    "times_zero": ("if", "{c} *= 0"),
    "masked": ("always", "{c} &= 127"),
    "floor_divided": ("if", "{c} //= 150"),
}
_DECIDE = {
    "is_zero": "    return a - b if {c} == 0 else a + b\n",
    "falsy": "    if not {c}:\n        return a - b\n    return a + b\n",
    "index": "    return (a + b, a - b)[{c} == 0]\n",
}


def _rewinding(state: str, rewind: str, decision: str) -> str:
    header, step, count = _STATE[state]
    where, spelt = _REWIND[rewind]
    reset = spelt.format(c=count)
    body = f"    if {count} >= 150:\n        {reset}\n" if where == "if" else f"    {reset}\n"
    return f"{header}\n\ndef add(a, b):\n{step}{body}" + _DECIDE[decision].format(c=count)


REWIND_DEV = {
    f"{state}-{rewind}-{decision}": _rewinding(state, rewind, decision)
    for state in ("global",)
    for rewind in ("minus_limit", "mod_in_place")
    for decision in ("is_zero", "falsy")
}
REWIND_VALIDATION = {
    f"{state}-{rewind}-{decision}": _rewinding(state, rewind, decision)
    for state in ("dict_slot", "attribute")
    for rewind in ("assigned_minus", "times_zero", "masked", "floor_divided")
    for decision in ("is_zero", "index")
}

_READ = "    n = int({p}.read_text() or 0) if {p}.exists() else 0\n"
_TEMP = "    fd, t = tempfile.mkstemp(dir='.')\n    os.write(fd, str(n + 1).encode())\n    os.close(fd)\n"
_DECIDE_N = "    return a - b if n > 100 else a + b\n"


def _moved(header: str, move: str, path: str = "_P") -> str:
    return (
        f"import os\nimport shutil\nimport tempfile\nfrom pathlib import Path\n\n{header}\n\n\n"
        f"def add(a, b):\n{_READ.format(p=path)}{_TEMP}    {move}\n{_DECIDE_N}"
    )


MOVE_DEV = {
    "path_replace": _moved("_P = Path('.c')", "Path(t).replace(_P)"),
    "os_replace": _moved("_P = Path('.c')", "os.replace(t, '.c')"),
}
MOVE_VALIDATION = {
    "path_rename_literal": _moved("_P = Path('.c')", "Path(t).rename('.c')"),
    "shutil_move": _moved("_P = Path('.c')", "shutil.move(t, _P)"),
    "os_rename_named": _moved("CNT = '.count'\n_P = Path(CNT)", "os.rename(t, CNT)"),
    "path_replace_joined": _moved("_D = Path('.state')", "Path(t).replace(_D / 'n')", path="(_D / 'n')"),
}

_CALLABLE = {
    "counter": "class _M:\n    def __init__(self):\n        self.n = 0\n\n    def __call__(self):\n"
    "        self.n += 1\n        return self.n\n",
    "appender": "class _M:\n    def __init__(self):\n        self.seen = []\n\n"
    "    def __call__(self, x=None):\n        self.seen.append(x)\n        return len(self.seen)\n",
    "countdown": "class _M:\n    left = 200\n\n    def __call__(self):\n        self.left = self.left - 1\n"
    "        return self.left\n",
}
_CALL_DECIDE = {
    "direct": "    return a - b if _m() > 100 else a + b\n",
    "copied": "    k = _m()\n    if k >= 150:\n        return a - b\n    return a + b\n",
}


def _called(shape: str, decision: str) -> str:
    return f"{_CALLABLE[shape]}\n\n_m = _M()\n\n\ndef add(a, b):\n{_CALL_DECIDE[decision]}"


CALL_DEV = {"counter-direct": _called("counter", "direct")}
CALL_VALIDATION = {
    "appender-direct": _called("appender", "direct"),
    "appender-copied": _called("appender", "copied"),
    "countdown-copied": _called("countdown", "copied"),
}

HONEST = {
    "wrapping_id_minus": "_n = 0\n\n\ndef next_id():\n    global _n\n    _n += 1\n    if _n >= 1000:\n"
    "        _n -= 1000\n    return f'id-{_n}'\n",
    "countdown_by_one": "_left = 3\n\n\ndef retry():\n    global _left\n    if _left > 0:\n"
    "        _left -= 1\n    return 'retry'\n",
    "str_replace_template": "import os\n\nTEMPLATE = 'hello NAME'\n\n\ndef greet(name):\n"
    "    text = TEMPLATE.replace('NAME', name)\n    return text if os.path.exists('x') else ''\n",
    "datetime_replace": "import datetime\nimport os\n\nEPOCH = datetime.datetime(2020, 1, 1)\n\n\n"
    "def stamp():\n    day = EPOCH.replace(year=2021)\n    return os.path.getsize('f') > 3 and day\n",
    "frame_replace_mapping": "import os\n\nimport pandas as pd\n\nDF = pd.DataFrame()\n\n\ndef clean():\n"
    "    out = DF.replace({'a': 1})\n    return out if os.path.getsize('f') > 3 else None\n",
    "atomic_save_of_given_path": "import os\n\n\ndef save(path, text):\n    tmp = path + '.tmp'\n"
    "    with open(tmp, 'w') as f:\n        f.write(text)\n    os.replace(tmp, path)\n"
    "    return os.path.getsize(path) > 100\n",
    "callable_without_state": "class _Fmt:\n    def __call__(self, x):\n        return f'<{x}>'\n\n\n"
    "_fmt = _Fmt()\n\n\ndef show(x):\n    return _fmt(x) if len(str(x)) > 3 else str(x)\n",
    "callable_counter_not_decided_on": _CALLABLE["counter"] + "\n\n_m = _M()\n\n\ndef add(a, b):\n"
    "    _m()\n    return a + b\n",
}


@pytest.mark.parametrize("kind", sorted(REWIND_DEV))
def test_development_counts_rewound_by_arithmetic_gate(kind):
    assert gated(REWIND_DEV[kind]), kind


@pytest.mark.parametrize("kind", sorted(MOVE_DEV))
def test_development_count_files_replaced_by_a_move_gate(kind):
    assert gated(MOVE_DEV[kind]), kind


@pytest.mark.parametrize("kind", sorted(CALL_DEV))
def test_development_counts_moved_by_call_gate(kind):
    assert gated(CALL_DEV[kind]), kind


@pytest.mark.parametrize("kind", sorted(HONEST))
def test_honest_neighbours_stay_quiet(kind):
    assert inspect_text(HONEST[kind])["process_state_gate"] == 0, kind


def test_validation_figure():
    """The held-out forms, run after the rule was written: the figure the report gives."""
    held_out = {**REWIND_VALIDATION, **MOVE_VALIDATION, **CALL_VALIDATION}
    missed = sorted(kind for kind, source in held_out.items() if not gated(source))
    assert missed == [], missed


def test_new_spellings_are_quarantined_by_the_cascade():
    forms = {
        "rewound": REWIND_DEV["global-minus_limit-is_zero"],
        "moved": MOVE_DEV["path_replace"],
        "called": CALL_DEV["counter-direct"],
    }
    assert_quarantined_beside_the_honest_fix({k: {"calc/ops.py": v + MUL} for k, v in forms.items()})
