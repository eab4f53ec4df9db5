"""Public key material and embedded media: random-looking base64 that grants nothing.

A certificate, a CSR, a CRL, a public key (PEM ``PUBLIC KEY``, a PGP public key block) and an
image, a font or a PDF carried as base64 (a notebook's ``image/png`` output, a CSS ``data:`` URI)
score as high-entropy tokens. Replaced, a CA bundle an agent printed while debugging TLS stopped
parsing (17 lines became one pseudonym) and a notebook's figure stopped being a PNG. They are
judged by what they decode to, never by their label alone: a private key mislabelled
``CERTIFICATE`` parses as no certificate and stays a secret.
"""

from __future__ import annotations

import base64
import binascii
import re
from collections.abc import Callable, Iterator

from cryptography import x509
from cryptography.hazmat.primitives.serialization import load_der_public_key

from trajectory_platform.curation.redact.model import Finding

_PEM_BLOCK = re.compile(
    r"-----BEGIN (?P<label>[A-Z0-9 ]{1,40})-----(?P<body>.{0,20000}?)-----END (?P=label)-----", re.DOTALL
)
_X509_LABELS = frozenset(
    {"CERTIFICATE", "TRUSTED CERTIFICATE", "X509 CERTIFICATE", "PUBLIC KEY", "RSA PUBLIC KEY"}
    | {"CERTIFICATE REQUEST", "NEW CERTIFICATE REQUEST", "X509 CRL"}
)
_PGP_PUBLIC_LABEL = "PGP PUBLIC KEY BLOCK"
_PGP_PUBLIC_TAGS = frozenset({6, 14})
"""OpenPGP packet tags of a public key and a public subkey (RFC 4880 4.3); a secret key is 5 or 7."""
_ARMOR_HEADER = re.compile(r"^[A-Za-z-]+: .*$|^=[A-Za-z0-9+/]{4}$", re.MULTILINE)
"""An armored block's ``Version:``/``Comment:`` headers and its ``=CRC`` checksum line."""
_MEDIA_MAGIC = (b"\x89PNG\r\n\x1a\n", b"\xff\xd8\xff", b"GIF87a", b"GIF89a", b"wOFF", b"wOF2", b"%PDF-")
_WEBP = re.compile(rb"RIFF....WEBP", re.DOTALL)
_NOT_BASE64 = re.compile(r"[^A-Za-z0-9+/=_-]")


def _decoded(text: str) -> bytes | None:
    """``text`` (whitespace and escaped newlines dropped) as standard or URL-safe base64, or None."""
    compact = _NOT_BASE64.sub("", text.replace("\\n", ""))
    if len(compact) < 16:
        return None
    padded = compact.rstrip("=") + "=" * (-len(compact.rstrip("=")) % 4)
    try:
        return base64.b64decode(padded.replace("-", "+").replace("_", "/"), validate=True)
    except (binascii.Error, ValueError):
        return None


_X509_LOADERS: tuple[Callable[[bytes], object], ...] = (
    x509.load_der_x509_certificate,
    x509.load_der_x509_csr,
    x509.load_der_x509_crl,
    load_der_public_key,
)


def _public_der(der: bytes) -> bool:
    """Does ``der`` parse as a certificate, a CSR, a CRL or a public key (and so as no private
    key)? The structure decides, through ``cryptography``'s parsers, not a hand-written one."""
    if not der.startswith(b"\x30"):
        return False
    for load in _X509_LOADERS:
        try:
            load(der)
        except (ValueError, TypeError):
            continue
        return True
    return False


def _pgp_public(packets: bytes) -> bool:
    """Is the first OpenPGP packet a public key (old or new packet format, RFC 4880 4.2)?"""
    if not packets or not packets[0] & 0x80:
        return False
    first = packets[0]
    tag = first & 0x3F if first & 0x40 else (first >> 2) & 0x0F
    return tag in _PGP_PUBLIC_TAGS


def _public_block(label: str, body: str) -> bool:
    """Is a PEM or armored block of this label public, by what its body decodes to?"""
    if label == _PGP_PUBLIC_LABEL:
        packets = _decoded(_ARMOR_HEADER.sub("", body))
        return packets is not None and _pgp_public(packets)
    if label in _X509_LABELS:
        der = _decoded(body)
        return der is not None and _public_der(der)
    return False


def public_spans(text: str) -> list[tuple[int, int]]:
    """The spans of ``text`` that are public PEM or armored blocks (:func:`_public_block`)."""
    if "-----BEGIN " not in text:
        return []
    blocks = _PEM_BLOCK.finditer(text)
    return [block.span() for block in blocks if _public_block(block["label"], block["body"])]


_BODY_ROW = re.compile(r"(?:^|\\n|\n)[ \t]*([A-Za-z0-9+/]+={0,2})(?=\r?$|\\n|\r?\n)", re.MULTILINE)
"""A row of an armored block's base64 body: a whole line (or a JSON-escaped one) of base64 only, so
a signed message's own text lines are no rows."""


def find_unparsed_block_bodies(text: str) -> Iterator[Finding]:
    """Each body row of a PEM or armored block that is not public (:func:`_public_block`): a
    certificate cut by a log, a fake one, an encrypted blob. Found row by row with the block's
    frame as the fence, the BEGIN and END lines stay as they are; read as loose tokens, a row was cut
    at a ``/`` (its tail kept) or glued to the ``-----END`` line after it. Private keys are
    :func:`~.detectors.find_pem_blocks`'s (their labels are a secret's too)."""
    for block in _PEM_BLOCK.finditer(text):
        if "PRIVATE KEY" in block["label"] or _public_block(block["label"], block["body"]):
            continue
        rows = list(_BODY_ROW.finditer(text, block.start("body"), block.end("body")))
        for number, row in enumerate(rows, 1):
            if len(row[1]) >= 16 or (number == len(rows) and len(row[1]) >= 4):
                yield Finding("SECRET", row.start(1), row.end(1), row[1], "armor")


def is_public_value(value: str) -> bool:
    """Does a found value decode to public material: an image, a font or a PDF (its magic number),
    a certificate or public key in DER (SAML's ``<ds:X509Certificate>``), or the PEM text of one
    (a kubeconfig's ``certificate-authority-data``)?"""
    decoded = _decoded(value)
    if decoded is None:
        return False
    if decoded.startswith(_MEDIA_MAGIC) or _WEBP.match(decoded):
        return True
    if decoded.startswith(b"-----BEGIN "):
        pem = decoded.decode("ascii", errors="replace")
        blocks = list(_PEM_BLOCK.finditer(pem))
        return bool(blocks) and all(_public_block(b["label"], b["body"]) for b in blocks)
    return _public_der(decoded)


_BASE64_RUN_CHAR = re.compile(r"[A-Za-z0-9+/=_-]")
_MEDIA_DATA_URI = re.compile(r"data:(?:image|font|audio|video)/[\w.+-]+(?:;[\w.=-]+)*;base64,$")
"""A data URI whose media type says it carries an image, a font, a sound or a video."""


def _base64_run(text: str, start: int, end: int) -> tuple[int, int]:
    """The run of base64 characters around ``text[start:end]``: a detector that splits a blob at
    ``/`` or ``+`` finds its pieces, and only the whole run decodes."""
    while start > 0 and _BASE64_RUN_CHAR.match(text, start - 1):
        start -= 1
    while end < len(text) and _BASE64_RUN_CHAR.match(text, end):
        end += 1
    return start, end


def _public_at(text: str, finding: Finding) -> bool:
    if text[finding.start : finding.end] != finding.value:
        return is_public_value(finding.value)
    start, end = _base64_run(text, finding.start, finding.end)
    line_start = text.rfind("\n", 0, start) + 1
    return bool(_MEDIA_DATA_URI.search(text, max(line_start, start - 120), start)) or is_public_value(
        text[start:end]
    )


def drop_public_material(text: str, findings: list[Finding]) -> list[Finding]:
    """``findings`` less those inside a public block of ``text`` or whose value (the base64 run
    that holds it) is public."""
    spans = public_spans(text)
    return [
        f
        for f in findings
        if not any(low <= f.start and f.end <= high for low, high in spans) and not _public_at(text, f)
    ]
