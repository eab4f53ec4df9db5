"""An access-granting cookie among other cookies (cookies.find_session_cookies).

Generated: word or random session values x cookie lists. Development: ``Cookie:`` and
``Set-Cookie:`` headers of ``curl -v`` and raw HTTP with ``session_id``/``sessionid``; validation:
other carriers (``curl -b``, a HAR header object, JSON-in-JSON) and other frameworks' names. The
controls (preferences, analytics ids, attributes, placeholders) stay byte for byte."""

from __future__ import annotations

import json
import random
import string
import urllib.parse

import pytest

from tests.curation._labelled_word_cases import WORDS
from trajectory_platform.curation.redact.engine import redact_text

SALT = b"cookie-salt"

DEVELOPMENT = {
    "curl_v_cookie": lambda n, v: f"> GET / HTTP/1.1\n> Cookie: theme=dark; {n}={v}; lang=en\n>",
    "raw_set_cookie": lambda n, v: f"HTTP/1.1 302 Found\r\nSet-Cookie: {n}={v}; Path=/; HttpOnly\r\n\r\n",
}
DEV_NAMES = ["session_id", "sessionid"]
VALIDATION = {
    "curl_b": lambda n, v: f"curl -s -b 'lang=en; {n}={v}' https://app.example.com/api/me",
    "har_header": lambda n, v: json.dumps({"name": "Cookie", "value": f"_ga=GA1.2.1.2; {n}={v}"}),
    "json_in_json": lambda n, v: json.dumps({"o": json.dumps({"cookie": f"a=1; {n}={v}; b=2"})}),
    "set_cookie_attrs_first": lambda n, v: f"< set-cookie: lang=en; Max-Age=6\n< set-cookie: {n}={v}; Secure",
}
VAL_NAMES = ["JSESSIONID", "connect.sid", "remember_user_token", "laravel_session", "__Host-csrf-token"]
CONTROLS = [
    "> Cookie: theme=dark; lang=en; _ga=GA1.2.123456789.1700000000",
    "Set-Cookie: csrftoken=<token>; Path=/; SameSite=Lax",
    "Set-Cookie: sessionid=; expires=Thu, 01 Jan 1970 00:00:00 GMT; Max-Age=0; Path=/",
    'document.cookie = "theme=dark; path=/"',
    "curl -b cookies.txt https://example.com",
]


def _value(g: random.Random, i: int) -> str:
    if i == 0:
        word = g.choice(WORDS).capitalize() + g.choice(WORDS) + str(g.randint(10, 99))
        return urllib.parse.quote(word + "!")
    return "".join(g.choice(string.ascii_lowercase + string.digits) for _ in range(26))


def _cases(table: dict, names: list[str]) -> list:
    cases = []
    for carrier, make in sorted(table.items()):
        for name in names:
            for i in range(2):
                value = _value(random.Random(f"{carrier}{name}{i}"), i)
                cases.append(pytest.param(make(name, value), value, id=f"{carrier}-{name}-{i}"))
    return cases


@pytest.mark.parametrize(("text", "value"), _cases(DEVELOPMENT, DEV_NAMES) + _cases(VALIDATION, VAL_NAMES))
def test_a_session_cookie_among_others_is_replaced(text: str, value: str) -> None:
    redacted, _ = redact_text(text, SALT)
    assert value not in redacted and urllib.parse.unquote(value) not in redacted


@pytest.mark.parametrize("text", CONTROLS, ids=range(len(CONTROLS)))
def test_cookies_that_grant_nothing_stay(text: str) -> None:
    assert redact_text(text, SALT)[0] == text
