"""Package manifests and lockfiles: content digests and the files a manifest lists are no keys.

A wheel's ``RECORD`` (``path,sha256=<urlsafe base64>,size``), an npm ``integrity`` (SRI
``sha512-<base64>``), a go.sum ``h1:<base64>=``, a pip ``--hash=sha256:<hex>`` and a poetry or
Cargo ``sha256:<hex>`` checksum hold a digest named by its algorithm. Read as tokens, a digest that
happened to open with ``hf_`` was taken for a Hugging Face token, one whose characters read
``pwd`` backwards marked its line as a reversed password, and entropy scored the build ids and
numbered migration names of the paths a ``RECORD`` lists (``static/PgS8No.../_buildManifest.js``,
``versions/001_initial_schedule.py``); replaced, an agent's ``cat RECORD`` lost its rows.

A digest counts only at its algorithm's exact size (hex, or base64 with or without padding,
decoding to that many bytes): a key written after ``sha256=`` at any other length is still a key.
The path of a ``RECORD`` row or of a ``sha256sum`` row is a file's name, not scored for
entropy; a vendor's token format inside it is still found.
"""

from __future__ import annotations

import base64
import binascii
import re

from trajectory_platform.curation.redact.model import Finding

DIGEST_BYTES = {"md5": 16, "sha1": 20, "sha224": 28, "sha256": 32, "sha384": 48, "sha512": 64, "h1": 32}
"""Bytes of each content digest a package manager writes under its algorithm's name (go.sum's
``h1:`` is a sha256)."""

_LABELLED_DIGEST = re.compile(
    r"(?<![A-Za-z0-9_])(?P<algo>md5|sha1|sha224|sha256|sha384|sha512|h1)[=:-]"
    r"(?P<digest>[A-Za-z0-9+/_-]+={0,2})(?![A-Za-z0-9+/_=-])",
    re.IGNORECASE,
)
_ROW_OPENS = r"(?:^|(?<=\\[nrt])|(?<=[\"'`]))[ \t]*(?:\d+[ \t]+)?"
_ROW_ENDS = r"(?=\r?$|\\[nrt]|[\"'`])"
"""A row is a whole line: it opens and ends at a line's ends, a JSON-escaped line break or a quote
around the rows a log quotes (``"...\\n<row>\\n..."``), after an indent or a ``cat -n`` number.
A path-like word in prose (``the token is ab/<key>,,``) is no row."""
_PATH = r"[^\s,\"'`=\\]+"
_RECORD_ROW = re.compile(
    rf"{_ROW_OPENS}(?P<path>{_PATH}),(?:{_LABELLED_DIGEST.pattern})?,\d*{_ROW_ENDS}",
    re.IGNORECASE | re.MULTILINE,
)
"""A row of a wheel's ``RECORD``: a path, its digest (empty for ``.pyc`` files and the RECORD
itself) and its size."""
_SUM_ROW = re.compile(
    rf"{_ROW_OPENS}(?P<hex>[0-9a-f]{{32}}|[0-9a-f]{{40}}|[0-9a-f]{{56}}|[0-9a-f]{{64}}|[0-9a-f]{{96}}|[0-9a-f]{{128}})"
    rf" [ *](?P<path>{_PATH}){_ROW_ENDS}",
    re.MULTILINE,
)
"""A row of ``sha256sum`` (``md5sum``, ``sha1sum``...) output: a digest of its algorithm's size, two
characters (a space and a space or ``*``), and the file's path."""


def _is_digest(algo: str, digest: str) -> bool:
    """Is ``digest`` exactly the size of ``algo``'s, as hex or as (URL-safe) base64?"""
    size = DIGEST_BYTES[algo.lower()]
    if re.fullmatch(r"[0-9a-fA-F]+", digest) and len(digest) == 2 * size:
        return True
    bare = digest.rstrip("=")
    if len(bare) != -(-size * 4 // 3) or ("+" in bare or "/" in bare) and ("-" in bare or "_" in bare):
        return False
    try:
        standard = bare.replace("-", "+").replace("_", "/")
        decoded = base64.b64decode(standard + "=" * (-len(bare) % 4), validate=True)
    except (binascii.Error, ValueError):
        return False
    return len(decoded) == size


def manifest_spans(text: str) -> tuple[list[tuple[int, int]], list[tuple[int, int]]]:
    """The spans of ``text`` that are labelled content digests (label and digest), and those that
    are the path column of a ``RECORD`` row, and a checksum tool's rows' digests and paths: the
    rows of ``sha256sum`` quoted in JSON or numbered by ``cat -n`` have no line of their own, where
    :mod:`.detectors` reads a digest that opens its line."""
    digests = [
        (match.start(), match.end())
        for match in _LABELLED_DIGEST.finditer(text)
        if _is_digest(match["algo"], match["digest"])
    ]
    paths = [
        match.span("path")
        for match in _RECORD_ROW.finditer(text)
        if ("/" in match["path"] or "." in match["path"])
        and (match["digest"] is None or _is_digest(match["algo"], match["digest"]))
    ]
    for match in _SUM_ROW.finditer(text):
        digests.append(match.span("hex"))
        paths.append(match.span("path"))
    return digests, paths


def drop_manifest_material(text: str, findings: list[Finding]) -> list[Finding]:
    """``findings`` less those inside a labelled content digest, and all but a vendor format's
    inside a manifest row's path (:func:`manifest_spans`): a path holds no ``=`` or space, so no
    labelled value, and what entropy found there (itself or echoed in a decoded view) is a name."""
    if not findings:
        return findings
    digests, paths = manifest_spans(text)

    def inside(finding: Finding, spans: list[tuple[int, int]]) -> bool:
        return any(low <= finding.start and finding.end <= high for low, high in spans)

    return [
        f
        for f in findings
        if not inside(f, digests) and (f.detector.startswith("format:") or not inside(f, paths))
    ]
