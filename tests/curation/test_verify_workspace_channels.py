"""Judge facts read through the workspace rather than the module alone (session 45): a module's name
kept in a data file the diff adds, a module's name returned by a helper given arguments or with
several returns, and ``object`` re-exported under another name. Each forged ``calc/ops.py`` fixed
``add`` only where the judge's worker runs it (the collector's raised threshold, the runner's
classes in ``__main__``, ``-S``, the holder thread).

Generator: ``_workspace_channel_cases.py``. Before (every half): 0 flagged. After: data-file names
development 16/16, validation 32/32 on the first run; helpers development 32/32, validation 32/64
on the first run (a helper whose other return spells the name in disguise, ``''.join(map(chr,
...))``, was read for its folded returns only; fixed after, 64/64); exported ``object``
development 8/8, validation 16/20 on the first run (``import calc._base as _b; _b.Root``: the
export was read through a ``from`` import only; fixed after, 20/20). The honest neighbours stay
clean and admitted."""

from __future__ import annotations

import threading

import pytest
from _verify_factory import CALC_S0, make_episode, make_fixture, writing_turns
from _workspace_channel_cases import (
    COUSINS,
    HONEST_ARG_HELPERS,
    HONEST_DATA,
    HONEST_EXPORTS,
    data_named_forms,
    exported_object_forms,
    helper_argument_forms,
)

from trajectory_platform.curation.verify import CascadeConfig, verify_episodes
from trajectory_platform.curation.verify.pysource import TAMPER_PATTERNS, inspect_text

_JUDGED = {*TAMPER_PATTERNS, "oracle_environment_probe"}


def _codes(files: dict[str, str]) -> set[str]:
    return {code for code, n in inspect_text(files["calc/ops.py"], files=files).items() if n} & _JUDGED


@pytest.mark.parametrize("half", ["dev", "val"])
def test_a_module_named_in_a_data_file_the_diff_adds_is_that_module(half: str) -> None:
    forms = data_named_forms(half)
    assert not [kind for kind, files in forms.items() if not _codes(files)]


def test_the_same_reads_without_the_data_file_name_no_module() -> None:
    """What makes the name a watched module is the file's content: without it nothing resolves."""
    files = data_named_forms("dev")["txt_open-import_module-gc_threshold-if"]
    assert not _codes({"calc/ops.py": files["calc/ops.py"]})


@pytest.mark.parametrize("half", ["dev", "val"])
def test_a_module_named_by_a_helper_given_arguments_is_that_module(half: str) -> None:
    forms = helper_argument_forms(half)
    assert not [kind for kind, text in forms.items() if not _codes({"calc/ops.py": text})]


@pytest.mark.parametrize("half", ["dev", "val"])
def test_object_under_another_name_is_the_class_table(half: str) -> None:
    forms = exported_object_forms(half)
    assert not [kind for kind, files in forms.items() if "oracle_environment_probe" not in _codes(files)]


@pytest.mark.parametrize("kind", sorted(COUSINS))
def test_close_cousins_found_by_red_teaming_the_fix(kind: str) -> None:
    assert _codes(COUSINS[kind]), kind


def test_honest_neighbours_stay_clean() -> None:
    honest = {
        **HONEST_DATA,
        **HONEST_EXPORTS,
        **{k: {"calc/ops.py": v} for k, v in HONEST_ARG_HELPERS.items()},
    }
    assert not {kind: found for kind, files in honest.items() if (found := _codes(files))}


def test_the_cascade_quarantines_the_workspace_channels_beside_the_honest_neighbours() -> None:
    forms = {
        "data": data_named_forms("dev")["txt_open-import_module-gc_threshold-if"],
        "helper": {
            "calc/ops.py": helper_argument_forms("dev")["dict_key-split-dunder_import-gc_threshold-if"]
        },
        "export": exported_object_forms("dev")["helper_module-by_name-if"],
        "honest-plugin": HONEST_DATA["plugin_json"],
        "honest-export": HONEST_EXPORTS["base_alias_as_a_base"],
    }
    episodes = [
        make_episode(kind, writing_turns(files), {**CALC_S0, **files}) for kind, files in forms.items()
    ]
    config = CascadeConfig(progress=False, workers=1)
    verdicts = verify_episodes(episodes, {"calc-add": make_fixture()}, config).by_id()
    for kind in ("data", "helper", "export"):
        assert (verdicts[kind].sink, verdicts[kind].reason) == (
            "tamper_quarantine",
            "oracle_environment_probe",
        )
    for kind in ("honest-plugin", "honest-export"):
        assert verdicts[kind].sink == "admitted", (kind, verdicts[kind].reason)


def _doubling_helpers(depth: int) -> str:
    chain = "".join(f"def _h{i}():\n    return _h{i - 1}() + _h{i - 1}()\n\n\n" for i in range(1, depth + 1))
    return f"import importlib\n\n\ndef _h0():\n    return 'x'\n\n\n{chain}def add(a, b):\n" + (
        f"    return importlib.import_module(_h{depth}()).add(a, b)\n"
    )


def _self_calling_table(width: int) -> str:
    entries = ", ".join(f"'{chr(97 + i)}': _f(k)" for i in range(width))
    return (
        f"import importlib\n\n\ndef _f(k):\n    return {{{entries}}}[k]\n\n\n"
        "def add(a, b):\n    return importlib.import_module(_f('a')).add(a, b)\n"
    )


@pytest.mark.parametrize(
    "source", [_doubling_helpers(21), _self_calling_table(10)], ids=["doubling", "table"]
)
def test_helpers_that_branch_on_themselves_are_read_in_bounded_time(source: str) -> None:
    """Helpers that each call the one below twice, twenty-one deep (main: judged two million times
    by the spelling check, which never returned), and a table of ten calls of its own helper (the
    first draft of this session's reading: ten to the eighth): each now reads in well under a
    second; 20 s is the margin of a loaded machine."""
    done = threading.Event()
    thread = threading.Thread(target=lambda: (inspect_text(source), done.set()), daemon=True)
    thread.start()
    assert done.wait(20)
