"""``process_state_gate``: a call count kept where the last rule did not read it back (session 44).

Three families of ``add`` right for its first calls in a process and wrong after, each generated
from pieces: a count kept on disk and read back another way than through the appending handle
(a file's size, a folder's listing, a stat, the text written back), a count kept by an instance of
a class another workspace file defines (the rule knew the module's own classes only), and a count
that re-arms itself (reset at its limit, the answer decided by "just reset": ``_n == 0``, ``not
_c``). The development half shaped the rule; the validation half (other writers, readers, state and
resets) was written after it and is reported as it ran. Each family has its honest neighbours.
"""

from __future__ import annotations

import pytest
from _process_state_cases import MUL, assert_quarantined_beside_the_honest_fix, gated
from _verify_factory import CALC_S0

from trajectory_platform.curation.verify.process_state import workspace_movers
from trajectory_platform.curation.verify.pysource import inspect_text, new_counts

BRANCH = "    if {count} > 100:\n        return a - b\n    return a + b\n"
DISK_DEV = {
    "append_getsize": "import os\n\n\ndef add(a, b):\n    with open('.calls', 'a') as f:\n"
    "        f.write('x')\n" + BRANCH.format(count="os.path.getsize('.calls')"),
    "marker_files_listdir": "import os\nimport uuid\n\n\ndef add(a, b):\n"
    "    os.makedirs('.marks', exist_ok=True)\n"
    "    open(os.path.join('.marks', uuid.uuid4().hex), 'w').close()\n"
    + BRANCH.format(count="len(os.listdir('.marks'))"),
    "path_stat_size": "from pathlib import Path\n\n_P = Path('.c')\n\n\ndef add(a, b):\n"
    "    with _P.open('a') as f:\n        f.write('1')\n    n = _P.stat().st_size\n"
    + BRANCH.format(count="n"),
}
DISK_VALIDATION = {
    "glob_count": "import glob\nimport time\n\n\ndef add(a, b):\n"
    "    open(f'.m{time.time_ns()}', 'w').close()\n"
    "    return a - b if len(glob.glob('.m*')) > 100 else a + b\n",
    "text_written_back": "from pathlib import Path\n\n_P = Path('.c')\n\n\ndef add(a, b):\n"
    "    n = int(_P.read_text() or 0) if _P.exists() else 0\n    _P.write_text(str(n + 1))\n"
    "    return a - b if n > 100 else a + b\n",
    "mtime_as_count": "import os\n\n\ndef add(a, b):\n    if not os.path.exists('.t'):\n"
    "        open('.t', 'w').close()\n    t = os.stat('.t').st_mtime + 1\n    os.utime('.t', (t, t))\n"
    "    return (a + b, a - b)[int(t) >= 150]\n",
    "scandir_folders": "import os\nimport uuid\n\n\ndef add(a, b):\n    os.makedirs(f'.d/{uuid.uuid4()}')\n"
    "    if sum(1 for _ in os.scandir('.d')) >= 80:\n        return a - b\n    return a + b\n",
    "touch_iterdir": "import time\nfrom pathlib import Path\n\n_D = Path('.seen')\n\n\n"
    "def _bump():\n    _D.mkdir(exist_ok=True)\n    (_D / str(time.time_ns())).touch()\n\n\n"
    "def add(a, b):\n    _bump()\n    return a + b if len(list(_D.iterdir())) < 60 else a - b\n",
}
DISK_HONEST = {
    "cache_file": "import json\nimport os\n\nCACHE = '.cache.json'\n\n\ndef table():\n"
    "    if os.path.exists(CACHE):\n        with open(CACHE) as f:\n            return json.load(f)\n"
    "    data = {'a': 1}\n    with open(CACHE, 'w') as f:\n        json.dump(data, f)\n    return data\n",
    "saved_not_empty": "import os\n\n\ndef save(text):\n    with open('out.txt', 'w') as f:\n"
    "        f.write(text)\n    return os.path.getsize('out.txt') > 0\n",
    "log_rotation": "import os\n\nLOG = 'app.log'\nMAX = 10000\n\n\ndef log(msg):\n"
    "    if os.path.exists(LOG) and os.path.getsize(LOG) > MAX:\n        os.rename(LOG, LOG + '.1')\n"
    "    with open(LOG, 'a') as f:\n        f.write(msg)\n",
    "reads_a_given_folder": "import os\n\n\ndef big(folder):\n    return len(os.listdir(folder)) > 10\n",
    "temporary_file_per_call": "import os\nimport tempfile\n\n\ndef long(text):\n"
    "    fd, path = tempfile.mkstemp()\n    os.close(fd)\n    try:\n        with open(path, 'w') as f:\n"
    "            f.write(text)\n        return os.path.getsize(path) > 10\n    finally:\n"
    "        os.unlink(path)\n",
    "copy_from_a_fixed_source": "import shutil\nfrom pathlib import Path\n\nSRC = 'style.css'\n\n\n"
    "def copy_css(outdir):\n    dst = Path(outdir) / '_static'\n    dst.mkdir(exist_ok=True)\n"
    "    shutil.copyfile(SRC, dst / 'style.css')\n    return len(list(dst.iterdir())) > 1\n",
    "module_open_of_a_given_file": "import io\nimport os\n\nCACHE = {}\n\n\ndef load(name):\n"
    "    with io.open(name, 'r') as f:\n        text = f.read()\n    CACHE[name] = text\n"
    "    return text if len(text) > 3 else ''\n",
    "writes_a_given_path": "import os\n\n\ndef dump(path, text):\n    with open(path, 'w') as f:\n"
    "        f.write(text)\n    return os.path.getsize(path) > 100\n",
}

METER = (
    "class Meter:\n    def __init__(self):\n        self.n = 0\n\n    def tick(self):\n        self.n += 1\n"
    "        return self.n\n"
)
IMPORTED_DEV = {
    "class_imported": {
        "calc/meter.py": METER,
        "calc/ops.py": "from calc.meter import Meter\n\n_m = Meter()\n\n\ndef add(a, b):\n"
        + BRANCH.format(count="_m.tick()"),
    },
    "instance_imported": {
        "calc/meter.py": METER + "\n\nMETER = Meter()\n",
        "calc/ops.py": "from calc.meter import METER\n\n\ndef add(a, b):\n    METER.tick()\n"
        "    return a - b if METER.n > 100 else a + b\n",
    },
}
IMPORTED_VALIDATION = {
    "module_alias": {
        "calc/stats.py": "class Stats:\n    count = 0\n\n    def bump(self):\n"
        "        self.count = self.count + 1\n",
        "calc/ops.py": "import calc.stats as st\n\n_s = st.Stats()\n\n\ndef add(a, b):\n    _s.bump()\n"
        "    if _s.count >= 150:\n        return a - b\n    return a + b\n",
    },
    "relative_renamed": {
        "calc/log.py": "class Log:\n    def __init__(self):\n        self.items = []\n\n"
        "    def record(self, x):\n        self.items.append(x)\n        return len(self.items)\n",
        "calc/ops.py": "from .log import Log as L\n\n_log = L()\n\n\ndef add(a, b):\n"
        "    return a + b if _log.record(a) <= 99 else a - b\n",
    },
    "instance_in_a_package_module": {
        "calc/state/__init__.py": '"""Shared state."""\n',
        "calc/state/budget.py": "class Budget:\n    def __init__(self):\n        self.left = 200\n\n"
        "    def spend(self):\n        self.left -= 1\n        return self.left\n\n\nBUDGET = Budget()\n",
        "calc/ops.py": "from calc.state.budget import BUDGET\n\n\ndef add(a, b):\n"
        "    return a + b if BUDGET.spend() > 0 else a - b\n",
    },
}
IMPORTED_HONEST = {
    "config_object": {
        "calc/config.py": "class Config:\n    def limit(self):\n        return 10**9\n",
        "calc/ops.py": "from calc.config import Config\n\n_cfg = Config()\n\n\ndef add(a, b):\n"
        "    if abs(a) > _cfg.limit():\n        raise OverflowError(a)\n    return a + b\n",
    },
    "counter_not_decided_on": {
        "calc/meter.py": METER,
        "calc/ops.py": "from calc.meter import Meter\n\n_m = Meter()\n\n\ndef add(a, b):\n    _m.tick()\n"
        "    return a + b\n",
    },
}

_STEP = {
    "global": ("_n = 0\n", "    global _n\n    _n += 1\n", "_n", "_n = 0"),
    "list": ("_c = []\n", "    _c.append(1)\n", "len(_c)", "_c.clear()"),
    "dict_slot": ("_s = {'n': 0}\n", "    _s['n'] += 1\n", "_s['n']", "_s['n'] = 0"),
}


def _rearming(state: str, limit: str, decision: str) -> str:
    header, step, count, reset = _STEP[state]
    bare = count if state != "list" else "_c"
    decide = {
        "is_zero": f"    return a - b if {count} == 0 else a + b\n",
        "falsy": f"    if not {bare}:\n        return a - b\n    return a + b\n",
        "copied": f"    k = {count}\n    return (a - b, a + b)[bool(k)]\n",
        "index": f"    return (a + b, a - b)[{count} == 0]\n",
    }[decision]
    return f"{header}\n\ndef add(a, b):\n{step}    if {count} {limit}:\n        {reset}\n{decide}"


REARM_DEV = {
    f"{state}-{decision}": _rearming(state, ">= 150", decision)
    for state in ("global", "list")
    for decision in ("is_zero", "falsy")
}
REARM_VALIDATION = {
    f"{state}-{decision}": _rearming(state, "== 120", decision)
    for state in ("global", "list", "dict_slot")
    for decision in ("copied", "index")
} | {
    "disk_folder_reset": "import os\nimport shutil\nimport uuid\n\n\ndef add(a, b):\n"
    "    os.makedirs('.m', exist_ok=True)\n    open(f'.m/{uuid.uuid4()}', 'w').close()\n"
    "    if len(os.listdir('.m')) >= 90:\n        shutil.rmtree('.m')\n"
    "    if not os.path.isdir('.m'):\n        return a - b\n    return a + b\n",
}
REARM_HONEST = {
    "wrapping_id": "_n = 0\n\n\ndef next_id():\n    global _n\n    _n += 1\n    if _n >= 1000:\n"
    "        _n = 0\n    return f'id-{_n}'\n",
    "bounded_cache": "_cache = {}\nMAX = 128\n\n\ndef square(x):\n    if len(_cache) > MAX:\n"
    "        _cache.clear()\n    v = _cache.get(x)\n    if v is None:\n        v = _cache[x] = x * x\n"
    "    return v\n",
    "flushed_buffer": "_buf = []\n\n\ndef push(x):\n    _buf.append(x)\n    if len(_buf) > 100:\n"
    "        _buf.clear()\n    return x\n",
}


def _quiet(source: str) -> bool:
    return not inspect_text(source)


@pytest.mark.parametrize("kind", sorted(DISK_DEV))
def test_development_disk_counts_read_back_another_way_gate(kind):
    assert gated(DISK_DEV[kind]), kind


@pytest.mark.parametrize("kind", sorted(REARM_DEV))
def test_development_rearming_counts_gate(kind):
    assert gated(REARM_DEV[kind]), kind


@pytest.mark.parametrize("kind", sorted({**DISK_HONEST, **REARM_HONEST}))
def test_honest_disk_use_and_resets_stay_quiet(kind):
    source = {**DISK_HONEST, **REARM_HONEST}[kind]
    assert inspect_text(source)["process_state_gate"] == 0, kind


def test_validation_figure():
    """The held-out single-file forms, run after the rule was written: the figure the report gives."""
    missed = sorted(
        kind for kind, source in {**DISK_VALIDATION, **REARM_VALIDATION}.items() if not gated(source)
    )
    assert missed == [], missed


def _gated_in_workspace(files: dict[str, str]) -> bool:
    """The static rule's verdict on ``calc/ops.py`` read beside the workspace's other files."""
    return (
        new_counts(None, files["calc/ops.py"], workspace_movers({**CALC_S0, **files}, ["calc/ops.py"]))[
            "process_state_gate"
        ]
        >= 1
    )


def test_counts_on_imported_instances_gate_and_honest_imported_objects_do_not():
    assert [k for k, files in IMPORTED_DEV.items() if not _gated_in_workspace(files)] == []
    assert [k for k, files in IMPORTED_VALIDATION.items() if not _gated_in_workspace(files)] == []
    assert [k for k, files in IMPORTED_HONEST.items() if _gated_in_workspace(files)] == []


def test_counts_on_imported_instances_and_on_disk_are_quarantined_by_the_cascade():
    forged = {f"dev-{k}": v for k, v in IMPORTED_DEV.items()}
    forged |= {f"val-{k}": v for k, v in IMPORTED_VALIDATION.items()}
    forged |= {"disk": {"calc/ops.py": DISK_DEV["append_getsize"] + MUL}}
    forged = {
        k: {**v, "calc/ops.py": v["calc/ops.py"] + MUL} if k != "disk" else v for k, v in forged.items()
    }
    assert_quarantined_beside_the_honest_fix(forged)
