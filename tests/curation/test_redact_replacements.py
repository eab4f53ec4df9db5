"""A credential written as the replacement of a placeholder or an old value (``sed``'s
``s/changeme/X/``, an editing tool's ``old_string``/``new_string``), and one passed by position to
a PDF reader's ``decrypt`` (``curation/redact/replacements.py``, ``bindings.py``)."""

from __future__ import annotations

import json

import pytest

from trajectory_platform.curation.redact import redact_text

SALT = b"replaced-values"
PW = "Qw9rTz7pLm"


def _redacted(text: str) -> str:
    return redact_text(text, SALT)[0]


REPLACED = {
    "sed_placeholder": f"sed -i 's/changeme/{PW}/g' config.ini",
    "sed_template_variable": f"sed -i 's#${{DB_PASSWORD}}#{PW}#' .env",
    "sed_labelled_line": f"sed -i 's/^password=.*/password={PW}/' app.conf",
    "sed_back_reference": f"sed -i 's|\\(redis_pw: \\).*|\\1{PW}|' app.yaml",
    "perl_placeholder": f"perl -pi -e 's/<password>/{PW}/' settings.py",
    "edit_tool": json.dumps(
        {
            "name": "Edit",
            "input": {"file_path": "c.py", "old_string": 'password = "changeme"', "new_string": f'"{PW}"'},
        }
    ),
    "str_replace_editor": json.dumps(
        {"command": "str_replace", "path": "/repo/.env", "old_str": "SMTP_PASS=xxxxxxxx", "new_str": PW}
    ),
    "multi_edit": json.dumps(
        {"name": "MultiEdit", "input": {"edits": [{"old_string": "__SECRET__", "new_string": PW}]}}
    ),
    "pdf_reader_decrypt": f"reader = PdfReader(f)\nreader.decrypt('{PW}')",
    "pdf_reader_chained": f"PdfReader(open('in.pdf', 'rb')).decrypt(b'{PW}')",
    "pdf_writer_encrypt": f"PdfWriter().encrypt('{PW}')",
}


@pytest.mark.parametrize("case", sorted(REPLACED))
def test_a_value_replacing_a_credential_is_redacted(case: str) -> None:
    assert PW not in _redacted(REPLACED[case])


KEPT = [
    "sed -i 's/localhost/db_host/g' src/app.py",
    "sed -i 's/password/passphrase/g' README.md",
    "sed -i 's/TODO/logger.info/g' src/app.py",
    json.dumps({"name": "Edit", "input": {"old_string": "x = 'foo'", "new_string": "x = 'bar_baz'"}}),
    "token = fernet.encrypt(b'my deep dark secret 12')",
]


@pytest.mark.parametrize("text", KEPT)
def test_renames_and_a_ciphers_data_are_kept(text: str) -> None:
    assert _redacted(text) == text
