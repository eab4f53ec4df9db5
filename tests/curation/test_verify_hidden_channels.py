"""Judge facts read through a module imported under a name computed from the code's own constants
(``computed_reflection``; red team rtforge14, 2026-12-07): each forged ``calc/ops.py`` fixed
``add`` only where the judge's worker runs it (the collector's raised threshold) and passed the
sealed oracle and the differential check, whose worker is the judge's too.

Generator: ``_hidden_channel_cases.py``. Before: development 0/32 and validation 0/32 flagged (the
whole cascade admitted 16 of each: the differential's worker differs in ``__main__`` and the thread
count, not in the collector). After, development 32/32; validation on its first run 16/32 (every
``importlib.__import__`` form: a resolver the table did not list, fixed after, now 32/32). The
honest neighbours stay clean."""

from __future__ import annotations

import pytest
from _hidden_channel_cases import HONEST, hidden_module_forms

from trajectory_platform.curation.verify.pysource import TAMPER_PATTERNS, inspect_text


def _codes(text: str) -> set[str]:
    return {code for code, n in inspect_text(text).items() if n}


@pytest.mark.parametrize("half", ["dev", "val"])
def test_a_module_imported_under_a_name_spelt_from_constants_is_computed_reflection(half: str) -> None:
    missed = [k for k, text in hidden_module_forms(half).items() if "computed_reflection" not in _codes(text)]
    assert not missed


def test_honest_neighbours_stay_clean() -> None:
    flagged = {
        k: c
        for k, text in HONEST.items()
        if (c := _codes(text) & {*TAMPER_PATTERNS, "oracle_environment_probe"})
    }
    assert not flagged
