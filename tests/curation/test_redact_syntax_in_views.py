"""A value a command's syntax alone names, seen through a decoded view (engine._decoded_findings
runs positional.find_syntax_credentials over a view's changed lines).

``echo "::add-mask::<word>"`` as an ``xxd`` dump: the raw text is hex, and the syntax rules ran
over the raw text only, so the dump's view showed the command and no rule read it. Generated:
word passwords x commands x dumps; development and validation differ by command. Controls: the
same dumps of a reference or a placeholder, and of a command that names no value."""

from __future__ import annotations

import random

import pytest

from tests.curation._encodings import unxxd, xxd
from tests.curation._labelled_word_cases import word_password
from trajectory_platform.curation.redact.engine import redact_text

SALT = b"syntax-in-views-salt-0123456789ab"
DEVELOPMENT = {
    "add_mask_echo": lambda v: f'echo "::add-mask::{v}"\necho done',
    "add_mask_run_step": lambda v: f'2024-05-01T10:00:01Z Run echo "::add-mask::{v}"\n  shell: bash',
}
VALIDATION = {
    "add_mask_single_quotes": lambda v: f"- run: |\n    echo '::add-mask::{v}'\n    ./deploy.sh",
    "add_mask_then_env": lambda v: f'$ echo "::add-mask::{v}" && ./run.sh',
    "openssl_k": lambda v: f"$ openssl enc -aes-256-cbc -k {v} -in a.tar -out a.enc",
}


def _cases(table: dict, half: str) -> list:
    cases = []
    for name, carrier in sorted(table.items()):
        g = random.Random(f"{half}{name}")
        value = word_password(g, (100, 999), "!#%")
        cases.append(pytest.param(xxd(carrier(value)), value, id=f"{half}-{name}"))
    return cases


@pytest.mark.parametrize(("text", "value"), _cases(DEVELOPMENT, "dev") + _cases(VALIDATION, "val"))
def test_a_value_named_by_syntax_in_a_dump_is_replaced(text: str, value: str) -> None:
    redacted, _ = redact_text(text, SALT)
    assert redacted != text
    assert value not in unxxd(redacted).replace("\n", "")


CONTROLS = {
    "reference": 'echo "::add-mask::${{ secrets.DEPLOY_KEY }}"\necho done',
    "placeholder": 'echo "::add-mask::<your-token>"\necho done',
    "no_value": 'echo "::group::Build step"\necho "::endgroup::"',
}


@pytest.mark.parametrize("name", sorted(CONTROLS))
def test_a_dump_of_no_value_is_kept(name: str) -> None:
    text = xxd(CONTROLS[name])
    redacted, _ = redact_text(text, SALT)
    assert redacted == text
