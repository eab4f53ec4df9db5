"""Purpose-bound keys derived from the pipeline's master key (``secrets_salt``).

One derivation, :func:`derive_key`, for every purpose (the redaction salt, the lineage key, the
differential draw, the runtime's seals), and :func:`seal_key`, the one the gym runtime seals with
and the verifier checks by. Their own module, outside the ``curation.redact`` and
``curation.verify`` packages (whose ``__init__`` load the redaction engine and the cascade), so the
``secrets_salt`` resource hands out the seal key without importing either.
"""

from __future__ import annotations

import hashlib
import hmac


def derive_key(master: bytes, purpose: str) -> bytes:
    """A purpose-bound key from the master secret (``redaction`` salt, ``lineage`` K_pipe).

    Separate keys mean a pseudonym never equals a lineage digest computed from the same bytes.
    """
    return hmac.new(master, b"trajectory-platform/" + purpose.encode(), hashlib.sha256).digest()


def seal_key(master_key: bytes) -> bytes:
    """The key the gym runtime seals what it records and no replay re-derives with (an injected
    fault schedule, the system prompt: :mod:`gym.seals`) and the verifier checks them by, bound to
    that purpose from the pipeline's master key: a purpose of its own, so a seal never equals a
    lineage digest, a pseudonym or a differential draw of the same bytes. Its label is still
    ``faults`` (the first thing sealed), so logs sealed before the prompt was keep their seals."""
    return derive_key(master_key, "faults")
