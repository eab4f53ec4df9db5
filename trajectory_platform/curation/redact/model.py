"""Value types of the redactor: what was found, and how the redactor is configured."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

DEFAULT_INTERNAL_SUFFIXES = ("internal", "corp", "local", "lan", "intranet")
"""Host-name suffixes treated as internal infrastructure (pass 2)."""

GENERIC_HOME_USERS = frozenset(
    {"user", "runner", "ubuntu", "root", "admin", "app", "vscode", "jovyan", "ec2-user", "docker", "node"}
    | {"git", "deploy", "deployer", "centos", "fedora", "debian", "azureuser", "opc", "bitnami", "pi"}
)
"""Account names that identify a machine image or a service, not a person (a home directory's
owner, the user of an SSH destination such as a forge's ``git@``); kept as they are."""


@dataclass(frozen=True)
class Finding:
    """One sensitive span: where it was (in the string that was scanned) and what it was.

    ``value`` is the exact matched text (never a library's possibly truncated report); ``field``
    names the record field the string came from, filled by :func:`redact_episode`.
    """

    kind: str
    start: int
    end: int
    value: str
    detector: str
    field: str = ""


@dataclass
class RedactionConfig:
    """Knobs of the three passes. The defaults are the production settings.

    ``detect_secrets_plugins`` adds detect-secrets' vendor regex plugins as a second opinion
    (off by default: it halves throughput and adds few formats the first pass lacks).
    ``person_names`` is an optional offline NER hook ``text -> [(start, end), ...]``: no model is
    bundled, so person names are only redacted when one is configured (see
    :func:`trajectory_platform.curation.redact.pii.load_ner_detector`).
    """

    internal_suffixes: tuple[str, ...] = DEFAULT_INTERNAL_SUFFIXES
    entropy: bool = True
    pii: bool = True
    min_entropy_length: int = 20
    detect_secrets_plugins: bool = False
    generic_home_users: frozenset[str] = GENERIC_HOME_USERS
    person_names: Callable[[str], list[tuple[int, int]]] | None = field(default=None, repr=False)
