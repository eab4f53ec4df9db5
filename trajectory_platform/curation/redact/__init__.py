"""Three-pass secret and PII redaction with syntax-preserving keyed pseudonyms.

Seed: curation §Secret sanitization.

Public API: :func:`redact_text`, :func:`redact_episode`, :func:`measure_leak`, :class:`RedactionConfig`,
:class:`Finding`, :func:`resolve_salt`.
"""

from trajectory_platform.curation.redact.engine import redact_text
from trajectory_platform.curation.redact.model import Finding, RedactionConfig
from trajectory_platform.curation.redact.pseudonym import resolve_salt

__all__ = ["Finding", "RedactionConfig", "redact_text", "resolve_salt"]
