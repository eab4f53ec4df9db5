"""Secrets a Terraform state names by its resource's type: ``random_password``'s ``result``.

A state (``terraform.tfstate``, ``terraform state pull``, ``terraform show -json``, a plan's JSON)
keeps every attribute of a resource in the clear, sensitive ones included. The credential is named
by the resource's ``type`` two levels up (``"type": "random_password"`` over
``instances[].attributes.result``), not by its key: ``result`` names nothing, and only a long
random value was caught by entropy, so a short one or one with the brackets of the provider's
default specials stayed (a red team, 2026-12-07: 13 of 24 states kept the password).

:data:`SECRET_ATTRIBUTES` is the table of resource types and the attributes that hold their
secret, from the providers' documentation of sensitive attributes. :func:`find_resource_secrets`
reads a state as text: each ``"type": "<resource type>"`` opens a block that runs to the next
``"type"`` of the same form, and the table's attributes in it are secrets. Text, not a parsed
document, so a state printed after other output (``$ terraform state pull`` and its result in one
transcript) is read as well. A ``jq``-selected attributes object has no type: its
:data:`SIGNATURES` (``bcrypt_hash`` is only a ``random_password``'s) stand for it, or the command
that printed it names the type (:func:`printed_resource_secrets`; ``terraform state show`` prints
``result = "..."`` with ``-show-sensitive``).
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from trajectory_platform.curation.redact.model import Finding

SECRET_ATTRIBUTES: dict[str, frozenset[str]] = {
    "random_password": frozenset({"result", "bcrypt_hash"}),
    "aws_iam_access_key": frozenset({"secret", "ses_smtp_password_v4"}),
    "aws_iam_user_login_profile": frozenset({"password"}),
    "aws_db_instance": frozenset({"password"}),
    "aws_rds_cluster": frozenset({"master_password"}),
    "aws_secretsmanager_secret_version": frozenset({"secret_string"}),
    "google_service_account_key": frozenset({"private_key"}),
    "google_sql_user": frozenset({"password"}),
    "azuread_application_password": frozenset({"value"}),
    "azuread_service_principal_password": frozenset({"value"}),
    "azurerm_storage_account": frozenset({"primary_access_key", "secondary_access_key"}),
    "tls_private_key": frozenset({"private_key_pem", "private_key_openssh", "private_key_pem_pkcs8"}),
    "github_actions_secret": frozenset({"plaintext_value"}),
    "databricks_token": frozenset({"token_value"}),
}
"""Resource type -> the attributes that hold its secret (the providers mark them sensitive)."""
SIGNATURES: dict[str, str] = {"bcrypt_hash": "random_password"}
"""An attribute only one type has: its presence names the type where no ``type`` is printed."""

_TYPE = re.compile(r'"type"\s*:\s*"(?P<type>[a-z][a-z0-9]*_[a-z0-9_]+)"')
_ATTRIBUTE = re.compile(
    r'(?:"(?P<name>[a-z][a-z0-9_]*)"\s*:|(?m:^)[ \t]*(?P<hcl>[a-z][a-z0-9_]*)[ \t]*=)'
    r'\s*"(?P<value>(?:[^"\\\n]|\\.){4,})"'
)
"""An attribute in JSON (``"result": "v"``) or as ``terraform state show`` prints it
(``result = "v"``)."""
_TERRAFORM_COMMAND = re.compile(r"\b(?:terraform|tofu|terragrunt|jq)\b|\.tfstate\b")
_NAMED_TYPE = re.compile(rf"\b(?P<type>{'|'.join(SECRET_ATTRIBUTES)})\b")
_NOT_VALUES = frozenset({"(sensitive value)", "(known after apply)", "none"})


def find_resource_secrets(text: str, named: str | None = None) -> Iterator[Finding]:
    """Each value :data:`SECRET_ATTRIBUTES` names in the resource blocks of ``text`` (module
    docstring); ``named``: the type of what comes before any ``"type"`` (a command selected it)."""
    if named is None and '"type"' not in text and not any(f'"{key}"' in text for key in SIGNATURES):
        return
    starts = [(match.start(), match.group("type")) for match in _TYPE.finditer(text)]
    bounds = [0, *(start for start, _ in starts), len(text)]
    types = [named or _untyped(text, 0, bounds[1]), *(kind for _, kind in starts)]
    for index, kind in enumerate(types):
        attributes = SECRET_ATTRIBUTES.get(kind or "")
        if attributes is None:
            continue
        for match in _ATTRIBUTE.finditer(text, bounds[index], bounds[index + 1]):
            value = match.group("value")
            if (match.group("name") or match.group("hcl")) in attributes and value.lower() not in _NOT_VALUES:
                yield Finding("PASSWORD", match.start("value"), match.end("value"), value, "terraform_state")


def _untyped(text: str, start: int, end: int) -> str | None:
    """The type the text before any ``"type"`` is, by a signature attribute in it."""
    return next((kind for key, kind in SIGNATURES.items() if f'"{key}"' in text[start:end]), None)


def printed_resource_secrets(command: str, output: str) -> Iterator[Finding]:
    """The secrets of what a Terraform or jq command that names one resource type printed:
    ``jq '... | select(.type=="random_password") | .instances[0].attributes'``, ``terraform state
    show random_password.db``. The output shows the attributes without their type."""
    if _TERRAFORM_COMMAND.search(command) is None:
        return
    named = {match.group("type") for match in _NAMED_TYPE.finditer(command)}
    if len(named) == 1:
        yield from find_resource_secrets(output, named.pop())
