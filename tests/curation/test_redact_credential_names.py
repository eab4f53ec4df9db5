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


PASSWORD_IN_LANGUAGES = [
    *("password", "passwort", "kennwort", "mot_de_passe", "motdepasse", "mdp", "contraseña", "clave"),
    *("senha", "palavra_passe", "wachtwoord", "hasło", "heslo", "jelszo", "parola", "şifre", "lozinka"),
    *("salasana", "lösenord", "passord", "пароль", "kata_sandi", "mat_khau", "mật_khẩu", "كلمة_المرور"),
    *("密码", "パスワード", "비밀번호", "암호", "κωδικός"),
]
"""The word "password" as a setting's name in the languages users write configuration in."""


@pytest.mark.parametrize("word", PASSWORD_IN_LANGUAGES)
@pytest.mark.parametrize("template", ['{n} = "{v}"', "DB_{N}={v}", '{{"{n}": "{v}"}}', "  {n}_admin: {v}"])
def test_password_named_in_any_language_marks_its_value(word: str, template: str) -> None:
    text = template.format(n=word, N=word.upper(), v=VALUE)
    assert VALUE not in _redacted(text), text


@pytest.mark.parametrize("name", ["chiave_api", "SCHLUESSEL", "geheimnis", "clé_secrète", "llave_privada"])
def test_key_or_secret_named_in_another_language_marks_a_key_shaped_value(name: str) -> None:
    key = "q7XvN2kPz9RtL4mWc8YbJ3sD"
    assert key not in _redacted(f'{name} = "{key}"')


@pytest.mark.parametrize(
    "text",
    [
        "clear_cache = True",
        "mdp_path = '/etc/app/mdp.txt'",
        "clave_length = 12",
        "chiave_pubblica: ssh-ed25519 AAAAC3",
    ],
)
def test_words_holding_a_foreign_credential_word_name_nothing(text: str) -> None:
    assert _redacted(text) == text


@pytest.mark.parametrize(
    "text",
    [
        "VAULT_TOKEN=Lantern.pepper4471",
        '"api_key": "Osprey.Tundra.Willow.58"',
        "--auth-token=thistle27.copper.juniper",
    ],
)
def test_a_chosen_value_of_dotted_words_under_a_token_name_is_replaced(text: str) -> None:
    value = text.rsplit("=", 1)[-1].rsplit(": ", 1)[-1].strip('"')
    assert value not in _redacted(text)


@pytest.mark.parametrize(
    "text",
    [
        '"Key": "reports/2024/q3.csv"',
        "key: errors.http.status_503",
        'cache_key = "user.profile.v2"',
        '"Key": "Report2024.csv"',
        'key="app.models.user2"',
    ],
)
def test_a_dotted_path_or_file_under_a_key_name_is_kept(text: str) -> None:
    assert _redacted(text) == text


DOTTED_SETTINGS = [
    ("validate_password.policy", "MEDIUM"),
    ("password.reset.timeout", "3600"),
    ("spring.security.password.encoder", "bcrypt"),
    ("auth.password.hashing", "argon2id"),
    ("secret.store.backend", "vault"),
    ("ldap.password.attribute", "userPassword"),
    ("password.expiry.days", "90"),
    ("token.signing.algorithm", "RS256"),
]


@pytest.mark.parametrize(("name", "value"), DOTTED_SETTINGS)
@pytest.mark.parametrize("separator", ["=", " = ", ": "])
def test_a_dotted_setting_about_a_credential_keeps_its_value(name: str, value: str, separator: str) -> None:
    """A dotted name is classed by its last segment, as an underscored one is: a credential word
    before ``policy``/``timeout``/``encoder`` names a setting about credentials, not one."""
    text = f"# auth settings\n{name}{separator}{value}\nserver.port=8080\n"
    assert _redacted(text) == text


@pytest.mark.parametrize(
    "name", ["spring.datasource.password", "mail.smtp.password", "app.secret.key", "password.reset.token"]
)
def test_a_dotted_name_ending_in_a_credential_still_marks_its_value(name: str) -> None:
    assert VALUE not in _redacted(f"{name}={VALUE}\nserver.port=8080\n")
