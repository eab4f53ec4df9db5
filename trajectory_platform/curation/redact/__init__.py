"""Three-pass secret and PII redaction with syntax-preserving keyed pseudonyms.

Seed: curation §Secret sanitization, §Formal mathematical metrics (Λ_leak). See docs/redaction.md.
"""

from trajectory_platform.curation.keys import derive_key
from trajectory_platform.curation.leak_report import LeakReport
from trajectory_platform.curation.redact.corpus import CorpusResult, LeakDetected, redact_corpus
from trajectory_platform.curation.redact.engine import redact_text
from trajectory_platform.curation.redact.episode import redact_episode
from trajectory_platform.curation.redact.leak import measure_episode_leak, measure_leak
from trajectory_platform.curation.redact.model import Finding, RedactionConfig
from trajectory_platform.curation.redact.pseudonym import resolve_master_key
from trajectory_platform.curation.redact.settings import RedactSettings

__all__ = [
    "CorpusResult",
    "Finding",
    "LeakDetected",
    "LeakReport",
    "RedactSettings",
    "RedactionConfig",
    "derive_key",
    "measure_episode_leak",
    "measure_leak",
    "redact_corpus",
    "redact_episode",
    "redact_text",
    "resolve_master_key",
]
