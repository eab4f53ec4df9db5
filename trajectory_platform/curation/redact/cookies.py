"""Session cookies among other cookies: ``Cookie: theme=dark; session_id=X; lang=en``.

A ``Cookie`` or ``Set-Cookie`` header (raw, after ``curl -v``'s ``>``/``<``, a JSON header map,
a HAR ``{"name": "Cookie", "value": ...}``) and ``curl -b``/``--cookie`` hold a list of
``name=value`` pairs. The label rules read the header's first pair as its value, so a session
cookie after another one kept its value. Each pair is read on its own: a value whose cookie's
name grants access (a session, an auth token, a remember-me, a CSRF secret:
:data:`.detectors.GRANTING_ID_NAME` and ``sid``/``jwt``/``remember``) is a secret, whatever it
looks like; ``theme=dark``, attributes (``Path=/``, ``Max-Age=3600``) and placeholders stay.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from trajectory_platform.curation.redact.detectors import GRANTING_ID_NAME, acceptable_value
from trajectory_platform.curation.redact.model import Finding

_COOKIE_LIST = re.compile(
    r"(?i)(?:\bset-cookie|(?<![\w-])cookie)\\?[\"']?\s*[:=,]\s*"
    r"(?:\\?[\"']?value\\?[\"']?\s*[:=]\s*)?\\?[\"']?(?P<list>[^\r\n\"'\\]+)"
    r"|(?<!\S)(?:-b|--cookie)[ \t]+(?P<q>[\"'])(?P<quoted>[^\"'\r\n]+)(?P=q)"
)
_PAIR = re.compile(r"(?:^|;)\s*(?P<name>[^\s=;,]{1,64})=(?P<value>[^\s;,]*)")
_GRANTS = re.compile(r"(?i)sid\b|jwt|remember|login")
_ATTRIBUTES = frozenset({"path", "domain", "expires", "max-age", "samesite", "priority", "version"})


def find_session_cookies(text: str) -> Iterator[Finding]:
    """The value of every access-granting cookie in a cookie list of ``text``."""
    if "ookie" not in text and "OOKIE" not in text and "-b " not in text:
        return
    for match in _COOKIE_LIST.finditer(text):
        group = "list" if match.group("list") is not None else "quoted"
        start = match.start(group)
        for pair in _PAIR.finditer(match.group(group)):
            name, value = pair.group("name"), pair.group("value")
            if name.lower() in _ATTRIBUTES or not (GRANTING_ID_NAME.search(name) or _GRANTS.search(name)):
                continue
            if len(value) >= 6 and acceptable_value(value, True, "secret", ""):
                at = start + pair.start("value")
                yield Finding("SECRET", at, at + len(value), value, "cookie")
