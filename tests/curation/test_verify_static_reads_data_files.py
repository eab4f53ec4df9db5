"""Stage 2 reads the data files the diff changes, as stage 4 does (session 46).

A module's name read from a data file the diff adds (``importlib.import_module(open('mod.txt')
.read())`` with ``mod.txt`` holding ``os``) is that module for every screen
(:func:`~trajectory_platform.curation.verify.pysource.new_counts`' ``files``), but only stage 4
was handed the files, and stage 4 judges the gaming codes, not stage 2's security codes: a shell
call, a shell line, the network or ``eval`` reached through a module a data file names was seen by
no stage. Generator below (uses x readers x resolvers, a development and a validation half):
before, development 0/4 and validation 0/16 rejected by stage 2; after, 4/4 and 16/16 on the first
run (the test judges every other validation form, for time). Honest neighbours: a data file naming
``json``, ``os`` for its path helpers or a package module stays clean.
"""

from __future__ import annotations

import pytest
from _verify_factory import fixed_files, make_episode, make_fixture, pristine_turns

from trajectory_platform.curation.verify.context import apply_to_fixture, build_diff_view
from trajectory_platform.curation.verify.dynamic import fixture_context
from trajectory_platform.curation.verify.static import check_static

CONTEXT = fixture_context(make_fixture())

DEV_USES = {
    "os_system": ("os", "_m.system('echo ' + str(a))", "shell_exec"),
    "subprocess_shell": ("subprocess", "_m.run('echo hi', shell=True)", "shell_injection"),
}
VAL_USES = {
    "socket": ("socket", "_m.create_connection(('example.com', 80))", "network_access"),
    "builtins_eval": ("builtins", "_m.eval(str(a))", "dynamic_eval"),
    "os_popen": ("os", "_m.popen('id').read()", "shell_exec"),
    "popen_shell": ("subprocess", "_m.Popen('id', shell=True)", "shell_injection"),
}
"""The module a data file names, what the code does with it, and stage 2's code for that."""
_BESIDE = "Path(__file__).with_name('{}')"
DEV_READS = {
    "open_read": (
        "calc/mod.txt",
        "{m}\n",
        "open(os.path.join(os.path.dirname(__file__), 'mod.txt')).read().strip()",
    )
}
VAL_READS = {
    "read_text": ("calc/name.dat", "{m}", _BESIDE.format("name.dat") + ".read_text().strip()"),
    "json_entry": (
        "calc/plugin.json",
        '{{"backend": "{m}"}}',
        f"json.load(open({_BESIDE.format('plugin.json')}))['backend']",
    ),
}
DEV_RESOLVERS = {"import_module": "importlib.import_module({})", "dunder_import": "__import__({})"}
VAL_RESOLVERS = {"load_alias": "load({})", "importlib_dunder": "importlib.__import__({})"}
_HEAD = (
    "import importlib\nimport json\nimport os\nfrom importlib import import_module as load\n"
    "from pathlib import Path\n"
)


def forms(half: str) -> dict[str, tuple[dict[str, str], str]]:
    """Workspace changes and the code stage 2 owes them, by kind: uses x reads x resolvers."""
    uses, reads, resolvers = (
        (DEV_USES, DEV_READS, DEV_RESOLVERS) if half == "dev" else (VAL_USES, VAL_READS, VAL_RESOLVERS)
    )
    found = {}
    for use, (module, action, code) in uses.items():
        for read, (path, content, expression) in reads.items():
            for how, resolver in resolvers.items():
                ops = (
                    f"{_HEAD}\n\ndef add(a, b):\n    _m = {resolver.format(expression)}\n    {action}\n"
                    "    return a + b\n\n\ndef mul(a, b):\n    return a * b\n"
                )
                files = {**fixed_files(), "calc/ops.py": ops, path: content.format(m=module)}
                found[f"{use}-{read}-{how}"] = (files, code)
    return found


def _static_codes(files: dict[str, str]) -> set[str]:
    diff = build_diff_view(make_episode("e", pristine_turns(), files))
    apply_to_fixture(diff, CONTEXT)
    return {finding.code for finding in check_static(diff, lint=False).findings}


@pytest.mark.parametrize("half", ["dev", "val"])
def test_stage_two_judges_a_module_a_data_file_names(half: str) -> None:
    cases = list(forms(half).items())[:: 1 if half == "dev" else 2]
    missed = [kind for kind, (files, code) in cases if code not in _static_codes(files)]
    assert not missed


@pytest.mark.parametrize(
    ("module", "action"),
    [("json", "_m.dumps([a, b])"), ("os", "_m.path.join('calc', str(a))"), ("calc.fast", "_m")],
)
def test_a_data_file_naming_a_plain_module_stays_clean(module: str, action: str) -> None:
    files, _ = forms("dev")["os_system-open_read-import_module"]
    files = {**files, "calc/ops.py": files["calc/ops.py"].replace("_m.system('echo ' + str(a))", action)}
    assert not _static_codes({**files, "calc/mod.txt": module + "\n"})
