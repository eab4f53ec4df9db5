"""A secret GitHub Actions' step debug log prints unmasked: the value after ``=>`` and ``Result:``
of an evaluation whose expression names a credential. No name stands beside the value, so no rule
read it. Development half only here; the validation half's figure is in docs/redaction.md."""

from __future__ import annotations

import pytest
from _leftover_cases import ACTIONS_CONTROLS, actions_debug_results

from trajectory_platform.curation.redact import redact_text

SALT = b"actions-debug-salt"
DEV = actions_debug_results("dev")


@pytest.mark.parametrize(("text", "pieces"), DEV, ids=[f"dev{i}" for i in range(len(DEV))])
def test_a_debug_evaluation_of_a_secret_is_redacted(text: str, pieces: tuple[str, ...]) -> None:
    redacted = redact_text(text, SALT)[0]
    assert not any(piece in redacted for piece in pieces)


@pytest.mark.parametrize("text", ACTIONS_CONTROLS, ids=[f"control{i}" for i in range(len(ACTIONS_CONTROLS))])
def test_other_evaluations_masks_and_mask_commands_stay(text: str) -> None:
    assert redact_text(text, SALT, shell=True)[0] == text
