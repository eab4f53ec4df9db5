"""An OAuth grant in a redirect URL: the authorization code (``?code=``) and OAuth 1's verifier
(``?oauth_verifier=``).

The authorization server sends the user agent back to the client's redirect URI with a one-time
code in its query (RFC 6749 §4.1.2) beside the ``state`` the client sent; whoever holds the code
before it is redeemed (and, for a public client, with PKCE's verifier) gets the tokens. An agent's
log of a browser session or a callback server prints the URL whole. The labelled-value rules read
the parameters a credential's name marks (``access_token``, ``id_token`` in an implicit grant's
fragment); ``code`` is no such name (``?code=US``, ``?code=200``), so the grant stayed (session
44's brief, class 4). It counts here where the URL is a redirect's: it carries ``state`` or
``session_state``, or its path (not its host) names a callback, a redirect or a sign-in; and it
carries nothing a request to the authorization server does (``redirect_uri``, a client secret).
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from trajectory_platform.curation.redact.detectors import acceptable_value
from trajectory_platform.curation.redact.model import Finding

_GRANT = re.compile(r"[?&#](?:code|oauth_verifier)=(?P<value>[^&#\s\"'<>`]{8,512})")
_URL_START = re.compile(r"[^\s\"'<>`]*$")
_REDIRECT_PATH = re.compile(r"(?i)callback|redirect|signin|sign-in|oidc|/cb\b")
_STATE = re.compile(r"[?&#](?:session_)?state=")
_TOKEN_REQUEST = re.compile(r"[?&#](?:redirect_uri|client_secret|app_secret|grant_type)=")
"""What a request to the authorization server carries and the redirect back never does: such a
URL exchanges a code (``/access_token?...&code=...&redirect_uri=...``), it is no redirect."""
_HOST = re.compile(r"^(?:[a-z][\w+.-]*://)?[^/?#]*")


def find_oauth_grants(text: str) -> Iterator[Finding]:
    """The authorization code or verifier of every redirect URL in ``text`` (module docstring)."""
    for grant in _GRANT.finditer(text):
        head = _URL_START.search(text, max(0, grant.start() - 2048), grant.start())
        url_start = head.start() if head else grant.start()
        url_end = re.compile(r"[\s\"'<>`]|$").search(text, grant.end())
        url = text[url_start : url_end.start() if url_end else len(text)]
        path = _HOST.sub("", url.partition("?")[0], count=1)
        if _TOKEN_REQUEST.search(url) or not (_STATE.search(url) or _REDIRECT_PATH.search(path)):
            continue
        value = grant.group("value")
        if acceptable_value(value, True, "token", ""):
            yield Finding("SECRET", grant.start("value"), grant.end("value"), value, "oauth_grant")
