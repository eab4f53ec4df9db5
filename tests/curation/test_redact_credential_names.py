"""Which names mark a credential (``credential_names.credential_class``), however a configuration
system spells them: ASP.NET Core's ``:`` section path and its ``__`` environment form, and the
word "password" or "key" in the languages users name settings in. Values are made up here."""

from __future__ import annotations

import pytest

from trajectory_platform.curation.redact import redact_text

SALT = b"credential-names"
VALUE = "Quillon!Brae6083"


def _redacted(text: str) -> str:
    return redact_text(text, SALT)[0]


@pytest.mark.parametrize(
    "template",
    [
        '{{\n  "Smtp:Password": "{v}",\n  "AllowedHosts": "*"\n}}',
        'builder.Configuration["Jwt:Secret"] = "{v}";',
        'dotnet user-secrets set "ConnectionStrings:DbPassword" "{v}"',
        '["Services:Payments:ClientSecret"] = "{v}"',
        "Smtp__Password={v}",
    ],
)
def test_a_section_path_naming_a_credential_marks_its_value(template: str) -> None:
    assert VALUE not in _redacted(template.format(v=VALUE))


@pytest.mark.parametrize(
    "text",
    [
        '{\n  "Logging:LogLevel:Default": "Information"\n}',
        '"Identity:PasswordLength": "12"',
        'var pw = configuration["Db:Password"];',
        '"Smtp:Password": "${SMTP_PASSWORD}"',
    ],
)
def test_a_section_path_naming_no_credential_value_is_kept(text: str) -> None:
    assert _redacted(text) == text
