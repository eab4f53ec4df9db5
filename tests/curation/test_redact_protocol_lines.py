"""A password a protocol's line or a pooler's file holds with no label beside it
(``positional._SYNTAX``): ``PASS x`` ended by the protocol's CRLF (a socket's buffer in a trace,
alone, with no ``USER`` line or reply), and pgbouncer's ``userlist.txt`` lines (a ``md5``/SCRAM
hash logs in as well as the password; a plain password where the text names the file)."""

from __future__ import annotations

import pytest

from trajectory_platform.curation.redact import redact_text

SALT = b"protocol-lines"
PW = "hazelmill62"
HASH = "5f4dcc3b5aa765d61d8327deb882cf99"

FOUND = {
    "trace_write": (f'write(4, "PASS {PW}\\r\\n", 18) = 18\n', PW),
    "trace_sendto_pid": (f'[pid 812] sendto(6, "PASS {PW}\\r\\n", 18, MSG_NOSIGNAL, NULL, 0) = 18\n', PW),
    "raw_crlf": (f"PASS {PW}\r\n", PW),
    "userlist_md5": (
        '"reports" "md5' + "5f4dcc3b5aa765d61d8327deb882cf99" + '"\n',
        "md5" + "5f4dcc3b5aa765d61d8327deb882cf99",
    ),
    "userlist_scram": (
        '"api" "SCRAM-SHA-256$4096:c2FsdGllc2FsdA==$aGFzaGhhc2g=:c2VydmVya2V5"\n',
        "SCRAM-SHA-256$4096:c2FsdGllc2FsdA==$aGFzaGhhc2g=:c2VydmVya2V5",
    ),
    "userlist_plain_named": (f'$ cat /etc/pgbouncer/userlist.txt\n"app" "{PW}"\n', PW),
}


@pytest.mark.parametrize(("text", "secret"), FOUND.values(), ids=FOUND.keys())
def test_a_protocol_or_pooler_password_is_replaced(text: str, secret: str) -> None:
    out = redact_text(text, SALT)[0]
    assert secret not in out, out


HONEST = {
    "jest_crlf": "PASS  src/Login.test.tsx\r\nFAIL  src/cart.spec.ts\r\n",
    "jest_traced": 'write(1, "PASS  src/ui.test.js\\n", 21) = 21\n',
    "lone_pass_lf": f"PASS {PW}\n",
    "valve_keyvalues": '"AppState"\n{\n  "name" "Team Fortress 2"\n  "buildid" "8841023"\n}\n',
    "pairs_unnamed": '"en" "English"\n"de" "Deutsch2"\n',
}


@pytest.mark.parametrize("text", HONEST.values(), ids=HONEST.keys())
def test_a_verdict_or_a_pair_of_strings_stays(text: str) -> None:
    assert redact_text(text, SALT)[0] == text
