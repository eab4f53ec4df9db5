"""Webhook URLs: the address is the credential.

Whoever holds a webhook's URL may post to it; no header or password goes with it, the secret is a
path segment after the part that names the hook (``/hooks/<id>/<token>``, Office's
``/webhook/<tenant>/IncomingWebhook/<hex>/<guid>``, GitLab's ``/hook/<hex>``, a CI server's
``/webhooks/<hex>``). Such a segment is often plain hex, which the entropy pass keeps (a hex run
reads as a digest or a commit id); under a hook it is a token. Vendor rules (Slack, Office's
``webhookb2``) know their hosts; this reads the class by its path (red team, round 12).

Some services put the token in the host: a request bin's ``<token>.m.pipedream.net``, an AWS Lambda
function URL's ``<id>.lambda-url.<region>.on.aws``, a self-hosted ``<token>.hooks.example.com``. A
label of the host before a label naming a hook (:data:`_HOOK_LABEL`) is the token when it reads as
one (:func:`_is_host_token`): DNS folds case, so a token there is lowercase letters and digits,
which score too low for the entropy pass.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from trajectory_platform.curation.redact.entropy import looks_random
from trajectory_platform.curation.redact.model import Finding
from trajectory_platform.curation.redact.spelling import random_letters

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


_HOOK_HOST = re.compile(r"(?i)\bhttps?://(?:[^\s/@'\"<>]+@)?(?P<host>[a-z0-9-]+(?:\.[a-z0-9-]+)+)")
_HOOK_LABEL = re.compile(r"(?i)(?:web[-_]?)?hooks?|(?P<service>pipedream|lambda-url|hookdeck|requestbin)")
"""A host label naming a hook, or a service whose hosts are hooks and whose host names it draws
itself (a request bin, a function URL): there any label of letters and digits is its token."""
_GATE = ("hook", "pipedream", "lambda-url", "requestbin")
"""What a text naming a webhook holds (lowercase): the words of :data:`_HOOK_PATH` and :data:`_HOOK_LABEL`."""


def mentions_a_hook(lower: str) -> bool:
    """Could ``lower`` (a text, lowercased) hold a webhook URL? Most texts do not, and skip the scan."""
    return any(word in lower for word in _GATE)


_HOST_TOKEN = re.compile(r"[a-z0-9]{12,63}")


def _is_host_token(label: str, drawn: bool) -> bool:
    """A host label that is a token: twelve or more letters and digits, hex with both, a run whose
    letters and digits interleave as a random draw does (four changes or more: ``k3x9q2m7...``), or
    whose letters read as random (:func:`.spelling.random_letters`). A name with a number
    (``customer1234``, ``build20240517``) changes once or twice and spells its word. Under a
    service that ``drawn`` its hosts' names, any such label with a digit is one."""
    if not _HOST_TOKEN.fullmatch(label.lower()):
        return False
    digits = sum(map(str.isdigit, label))
    if drawn and 0 < digits < len(label):
        return True
    if digits < 2 or digits == len(label):
        return False
    changes = sum(a.isdigit() != b.isdigit() for a, b in zip(label, label[1:], strict=False))
    letters = "".join(ch for ch in label if not ch.isdigit())
    return changes >= 4 or bool(_HEX_RUN.fullmatch(label)) and changes >= 2 or random_letters(letters)


def _host_secrets(text: str) -> Iterator[Finding]:
    """Each token label of a host before a label naming a hook (module docstring)."""
    for match in _HOOK_HOST.finditer(text):
        labels = match.group("host").split(".")
        named = next(
            ((i, m) for i, label in enumerate(labels) if i and (m := _HOOK_LABEL.fullmatch(label))), None
        )
        if named is None:
            continue
        hook, label_match = named
        offset = match.start("host")
        for label in labels[:hook]:
            if _is_host_token(label, label_match.group("service") is not None):
                yield Finding("SECRET", offset, offset + len(label), label, "format:webhook")
            offset += len(label) + 1


def find_webhook_secrets(text: str) -> Iterator[Finding]:
    """Each token-like piece of the path after a hook's name, and each token label of a hook's host,
    in every webhook URL of ``text``."""
    if "://" in text:
        yield from _host_secrets(text)
    for match in _HOOK_PATH.finditer(text):
        base = match.start("tail")
        for piece in _SEGMENT_TOKEN.finditer(match.group("tail")):
            if _is_token(piece.group()):
                start = base + piece.start()
                yield Finding("SECRET", start, start + len(piece.group()), piece.group(), "format:webhook")
