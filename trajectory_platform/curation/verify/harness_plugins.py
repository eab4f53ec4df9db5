"""pytest plugins recognised by what they do, not by their file name.

``delta.HARNESS_HOOKS`` names the files pytest and the interpreter load on their own
(``conftest.py``, ``sitecustomize.py``, ``*.pth``). pytest also loads *any* importable module as a
plugin when told to: ``-p MOD`` on its command line, ``PYTEST_PLUGINS=MOD``, either one inside
``PYTEST_ADDOPTS`` or an ``addopts`` override (``-o`` / ``--override-ini``), or a
``pytest_plugins = [...]`` line in a collected module. Such a module may rewrite every test's outcome
(a ``pytest_runtest_makereport`` hookwrapper setting ``passed``), so the agent's own test run,
re-executed by replay, really prints a green summary for a wrong fix (red team rtforge9 F5).

Two rules, each by effect:

- :func:`defines_plugin`: source text that implements pytest hooks (``def pytest_<hook>(``, a
  ``hookimpl`` decorator) or requests plugins (``pytest_plugins =``) is a harness hook whatever the
  file is called. The delta audit treats a file the episode writes with such text like a
  ``conftest.py``, unless S0's version of that file already held plugin code (a repository that is
  itself a pytest plugin edits its own hooks honestly).
- :func:`loaded_plugins`: the modules a command line loads into pytest. Loading a module of the
  workspace that S0 did not ship unchanged (the episode wrote it, or S0 lacks it) is tampering with
  the test run; ``-p no:NAME`` (disabling a plugin, the common honest use) and plugins installed in
  the environment (a name outside the workspace, such as ``xdist``) are not.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from trajectory_platform.curation.shell_split import bash_words

HOOK_SOURCE = re.compile(r"\bdef\s+pytest_[a-z_]+\s*\(|^\s*pytest_plugins\s*[:=]|\bhookimpl\b", re.MULTILINE)
"""A hook implementation, a plugin request, or pluggy's hook marker: what makes source a plugin."""
_PLUGIN_FLAG = re.compile(
    r"""(?:^|[\s'"\[(,])-p(?:\s*=\s*|\s+|['"]\s*,\s*['"]|(?=[\w.]))([\w.:-]+)(?=$|[\s'",\])])"""
)
"""``-p NAME``, ``-pNAME``, ``-p=NAME`` and the argv-list form ``'-p', 'NAME'`` of ``pytest.main``."""
_PYTEST = re.compile(r"\bpytest\b|PYTEST_ADDOPTS")
_SEPARATOR = re.compile(r"&&|\|\||[;|\n]")
_PLUGIN_ENV = re.compile(r"""PYTEST_PLUGINS['"]?\s*[\]:=,]?\s*=?\s*['"]?([\w.,:-]+)""")
"""``PYTEST_PLUGINS=a,b`` (a shell assignment, ``env``, or ``os.environ['PYTEST_PLUGINS'] = ...``)."""


def defines_plugin(text: str) -> bool:
    """Does ``text`` hold pytest plugin code (a hook implementation or a ``pytest_plugins`` request)?"""
    return HOOK_SOURCE.search(text) is not None


def loaded_plugins(command: str) -> list[str]:
    """The module names ``command`` loads into pytest as plugins, in order, without ``no:`` ones.

    Read off the whole line, quoted or not, so that ``PYTEST_ADDOPTS='-p m'``, ``-o addopts='-p m'``
    and ``pytest.main(['-p', 'm'])`` in inline Python are read the same way as a bare ``-p m``; a
    ``-p`` counts only after the word ``pytest`` (or ``PYTEST_ADDOPTS``) in the same simple command.
    Also read with its quotes removed as bash removes them (:func:`bash_words`): ``-p "m"``,
    ``"-p" m`` and ``py"test" -p m`` load ``m`` too (red team items, session 43)."""
    words = bash_words(command)
    names: list[str] = []
    for text in (command, *([" ".join(words)] if words is not None else [])):
        for segment in _SEPARATOR.split(text):  # ``-p`` of another program (``mkdir -p``) is not pytest's
            runner = _PYTEST.search(segment)
            if runner is not None:
                names.extend(m.group(1) for m in _PLUGIN_FLAG.finditer(segment, runner.end()))
        for match in _PLUGIN_ENV.finditer(text):  # an ``export`` holds for the session's later calls
            names.extend(match.group(1).split(","))
    return list(dict.fromkeys(n for n in names if n and not n.startswith("no:")))


def module_paths(name: str) -> tuple[str, ...]:
    """The workspace files an import of ``name`` may run (flat and ``src/`` layouts)."""
    base = name.replace(".", "/")
    flat = (f"{base}.py", f"{base}/__init__.py")
    return flat + tuple(f"src/{path}" for path in flat)


def workspace_plugin(name: str, s0_files: Iterable[str], written: Iterable[str]) -> str | None:
    """The workspace path a plugin ``name`` would load when that module is not S0's own unchanged
    file (the episode wrote it, or S0 lacks it while its top-level package is the workspace's),
    else ``None``: an installed plugin, or one the repository ships and the episode left alone."""
    s0 = set(s0_files)
    wrote = {path.removeprefix("./") for path in written}
    candidates = module_paths(name)
    for path in candidates:
        if path in wrote:
            return path
    if any(path in s0 for path in candidates):
        return None
    top = name.split(".")[0]
    tops = {p.removeprefix("src/").split("/")[0].removesuffix(".py") for p in s0 | wrote}
    return candidates[0] if top in tops else None
