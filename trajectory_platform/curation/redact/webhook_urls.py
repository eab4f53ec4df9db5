"""Webhook URLs: the address is the credential.

Whoever holds a webhook's URL may post to it; no header or password goes with it, the secret is a
path segment after the part that names the hook (``/hooks/<id>/<token>``, Office's
``/webhook/<tenant>/IncomingWebhook/<hex>/<guid>``, GitLab's ``/hook/<hex>``, a CI server's
``/webhooks/<hex>``). Such a segment is often plain hex, which the entropy pass keeps (a hex run
reads as a digest or a commit id); under a hook it is a token. Vendor rules (Slack, Office's
``webhookb2``) know their hosts; this reads the class by its path (red team, round 12).
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from trajectory_platform.curation.redact.entropy import looks_random
from trajectory_platform.curation.redact.model import Finding

_HOOK_PATH = re.compile(
    r"(?i)(?:\bhttps?://[^\s/'\"<>]+|(?<![^\s'\"(=]))(?:/[^\s/?#'\"<>]*)*?"
    r"/(?:web[-_]?)?hooks?(?:b\d)?/(?P<tail>[^\s?#'\"<>]+)"
)
"""A URL, or a path alone as a request line or an access log shows it (``POST /hooks/<token>``),
with a segment naming a hook (``hook``, ``hooks``, ``webhook``, ``webhooks``, ``webhookb2``,
``web-hooks``), and the path after it."""
_SEGMENT_TOKEN = re.compile(r"[A-Za-z0-9_\-]{16,}")
"""A piece of a segment that could be a token (a segment may join two GUIDs with ``@``)."""
_HEX_RUN = re.compile(r"[0-9a-fA-F]{16,}")
_ALNUM_RUN = re.compile(r"[A-Za-z0-9]{16,}")


def _is_token(piece: str) -> bool:
    """A random run: hex of 16 or more with a letter and a digit, or a run that scores random.
    A run of 16 letters and digits is required either way, so a slug (``incoming-webhooks-2024``)
    or a number (a hook's id) is kept."""
    mixed = any(c.isdigit() for c in piece) and any(c.isalpha() for c in piece)
    if not mixed or not _ALNUM_RUN.search(piece):
        return False
    return bool(_HEX_RUN.fullmatch(piece)) or looks_random(piece)


def find_webhook_secrets(text: str) -> Iterator[Finding]:
    """Each token-like piece of the path after a hook's name, in every webhook URL of ``text``."""
    for match in _HOOK_PATH.finditer(text):
        base = match.start("tail")
        for piece in _SEGMENT_TOKEN.finditer(match.group("tail")):
            if _is_token(piece.group()):
                start = base + piece.start()
                yield Finding("SECRET", start, start + len(piece.group()), piece.group(), "format:webhook")
