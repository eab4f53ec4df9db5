"""Credentials that must go as one piece and leave their frame intact: a JWT whose claims are
pretty-printed, a certificate or key block that does not parse, an HTTP auth header read by its scheme,
a credential file whose format names which line is the secret, a SQL statement's bound parameters."""

from __future__ import annotations

import base64
import re

import pytest

from trajectory_platform.curation.redact import redact_text

SALT = b"unit-salt"


def redacted(text: str) -> str:
    return redact_text(text, SALT)[0]


def _b64url(raw: str) -> str:
    return base64.urlsafe_b64encode(raw.encode()).decode().rstrip("=")


@pytest.mark.parametrize(
    ("header", "claims"),
    [
        ('{"alg":"HS256"}', '{\n  "sub": "1",\n  "email": "ann@example.org"\n}'),
        ('{\n  "alg": "RS256"\n}', '{\r\n\t"sub": "7"\r\n}'),
        ('{\t"alg":"HS512"}', '{\n    "role": "admin"\n}'),
    ],
)
def test_a_jwt_with_pretty_printed_json_is_one_token(header: str, claims: str):
    token = f"{_b64url(header)}.{_b64url(claims)}.abcDEFghiJKLmnoPQRstuVWXyz0123456789_-abcd"
    out = redacted(f"saw {token} in the log")
    assert re.fullmatch(r"saw <REDACTED_JWT:[0-9a-f]+> in the log", out), out


@pytest.mark.parametrize("label", ["CERTIFICATE", "PGP PUBLIC KEY BLOCK", "ENCRYPTED DATA"])
@pytest.mark.parametrize("newline", ["\n", "\r\n"])
def test_a_block_that_does_not_parse_loses_its_body_and_keeps_its_frame(label: str, newline: str):
    rows = [
        "3J2e70eeblYFWSl5+R+yQee0raau88WR2m4fOYIpmbS7+S+xn8FrD/f5Im/genqU",
        "u/weV0kHC9iuZpHlHP4WgTKpjV1lprd6C8R1CjcfAiqmhF+pkHmX3bBaClWGbO67",
    ]
    block = newline.join([f"-----BEGIN {label}-----", *rows, f"-----END {label}-----"])
    out = redacted(f"$ cat cert.pem{newline}{block}{newline}$ ls")
    assert out.startswith(f"$ cat cert.pem{newline}-----BEGIN {label}-----{newline}<REDACTED_SECRET:"), out
    assert out.endswith(f">{newline}-----END {label}-----{newline}$ ls"), out
    assert not any(piece in out for piece in ("/f5Im/genqU", "u/weV0kHC9", "bClWGbO67"))


@pytest.mark.parametrize(
    "text",
    [
        'http GET :8000/me Authorization:"Bearer Cobalt!Fox7563"',
        "xh get api.example.com/x Proxy-Authorization:'token Walrus@Tide9'",
        'https POST h/x "Authorization: ApiKey Kite#Harbor42" name=bob',
    ],
)
def test_an_auth_header_credential_with_punctuation_is_replaced_whole(text: str):
    out = redacted(text)
    assert "<REDACTED_AUTH_HEADER:" in out and not any(p in out for p in ("Fox7563", "Tide9", "Harbor42")), (
        out
    )


def test_a_digest_header_loses_its_response_hash_and_keeps_its_parameters():
    params = 'username="bob", realm="Restricted", nonce="abc", uri="/", qop=auth, nc=00000001'
    text = f'Authorization: Digest {params}, response="6629fae49393a05397450978507c4ef1"'
    assert re.fullmatch(
        rf'Authorization: Digest {params}, response="<REDACTED_AUTH_HEADER:[0-9a-f]+>"', redacted(text)
    ), redacted(text)


@pytest.mark.parametrize(
    "text",
    ['curl -H "Authorization: Bearer $TOKEN" https://h', 'http :8000 Authorization:"Bearer ${API_TOKEN}"'],
)
def test_an_auth_header_holding_a_reference_is_kept(text: str):
    assert redacted(text) == text


@pytest.mark.parametrize(
    ("text", "secrets"),
    [
        (
            '$ cat /etc/pgbouncer/userlist.txt\n"app" "nuitt311MHYY!"\n"report" "Walrus-Tide-77"\n$ ls',
            ["nuitt311MHYY!", "Walrus-Tide-77"],
        ),
        ("auth-user-pass up.txt\n$ cat up.txt\nbob\niazmy303LTPS!", ["iazmy303LTPS!"]),
        ("root@vpn:~# cat /etc/openvpn/auth.txt\nsvc_vpn\nCobalt-Kite-42", ["Cobalt-Kite-42"]),
        (
            'auth_file = /etc/pgbouncer/users.lst\n$ cat /etc/pgbouncer/users.lst\n"app" "Tide-Fox-19"',
            ["Tide-Fox-19"],
        ),
        (
            '$ sudo tail -n 2 /etc/ppp/pap-secrets\n"ops" * "Heron-Quill-58" *\n'
            "bob l2tpd Moss8Lantern 10.9.0.0/24",
            ["Heron-Quill-58", "Moss8Lantern"],
        ),
        ("# grep -v '^#' /etc/ppp/chap-secrets\nbob\t*\tQuartz-Vale-27\t*", ["Quartz-Vale-27"]),
        ("$ less /etc/dovecot/users\nbob:{CLEAR}Gravel-Spoon-31:500:500::/srv/mail", ["Gravel-Spoon-31"]),
        ("echo 'bob:{PLAIN}Pepper-Cliff-62::::' | sudo tee -a passdb", ["Pepper-Cliff-62"]),
        ("$ cat /etc/postfix/sasl_passwd\n[smtp.relay.example]:587 bob:Brine-Otter-64", ["Brine-Otter-64"]),
    ],
)
def test_a_printed_credential_file_loses_the_secrets_its_format_places(text: str, secrets: list[str]):
    out = redacted(text)
    assert not any(secret in out for secret in secrets), out
    assert "bob" in out or "svc_vpn" in out or '"app"' in out


@pytest.mark.parametrize(
    "text",
    [
        "$ cat notes.txt\nbob\nhello-world-2024",
        '$ cat names.txt\n"app" "Walrus-Tide-77"',
        "$ cat secrets-inventory.txt\nweb01 eu-west Gamma-Delta-42 active",
        "$ tail -n 1 /etc/ppp/options\nlcp-echo-interval 30",
        'template = "{CLEAR}{value}"',
    ],
)
def test_a_printed_file_its_name_does_not_mark_keeps_its_lines(text: str):
    assert redacted(text) == text


@pytest.mark.parametrize(
    "text",
    [
        "cur.execute('INSERT INTO creds (user, secret) VALUES (%s, %s)', ('bob', 'Tide9Walrus!x'))",
        'cursor.execute("INSERT INTO users (id, password) VALUES (?, ?)", [7, "Tide9Walrus!x"])',
        "await conn.execute('INSERT INTO accounts (name, api_key) VALUES ($1, $2)', 'bob', 'Tide9Walrus!x')",
    ],
)
def test_an_insert_with_bound_parameters_loses_the_credential_parameter(text: str):
    out = redacted(text)
    statement = text.split("VALUES")[0]
    assert "Tide9Walrus!x" not in out and out.startswith(statement), out
