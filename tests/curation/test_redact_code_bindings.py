"""Credentials code and configuration bind to a name by more than ``name = "value"``: a typed
declaration, a string prefix, a call whose callee names the credential, a lookup's fallback, a
configuration directive, an HCL block's label, a client's short options, literal pieces joined.
And the references that must stay: a variable, a setting's name, an empty default. Values are made
up for these tests; none is in the red team's repros."""

from __future__ import annotations

import pytest

from trajectory_platform.curation.redact import redact_text

SALT = b"code-bindings"
VALUE = "Tamarind#quay4471"


def _redacted(text: str) -> str:
    return redact_text(text, SALT)[0]


@pytest.mark.parametrize(
    "template",
    [
        # declarations: a type or a string prefix between the name and the literal
        'let smtp_password: &\'static str = "{v}";',
        'var mailPassword string = "{v}"',
        'static const char admin_password[32] = "{v}";',
        'public string SmtpPassword {{ get; set; }} = "{v}";',
        'Dim dbPassword As String = "{v}"',
        "DECLARE @svc_password NVARCHAR(64) = N'{v}';",
        'NSString *apiPassword = @"{v}";',
        "ldap_password = rb'{v}'",
        'db_password <- "{v}"',
        'let admin_password = String::from("{v}");',
        # calls: the callee says what its argument is
        "member.set_password('{v}')",
        'client.SetAdminPassword("{v}")',
        'Options.builder().host("db").password("{v}").build()',
        'session.authenticate("deploy", "{v}")',
        'jwt.encode({{"sub": 1}}, "{v}", algorithm="HS256")',
        "hmac.new(b'{v}', body, hashlib.sha256)",
        "crypto.createHmac('sha256', '{v}')",
        "Fernet(b'{v}')",
        'keyStore.load(stream, "{v}".toCharArray());',
        # fallbacks of a credential-named lookup
        'const pw = process.env.MAIL_PASSWORD || "{v}";',
        'const pw = settings["SMTP_PASSWORD"] ?? "{v}";',
        'password: {{{{ .Values.auth.password | default "{v}" }}}}',
        "PW = config('MAIL_PASSWORD', default='{v}')",
        'let pw = std::env::var("PG_PASSWORD").unwrap_or("{v}".into());',
        'let pw = env::var("MAIL_TOKEN").unwrap_or_else(|_| "{v}".to_owned());',
        "key = hashlib.pbkdf2_hmac('sha256', b'{v}', salt, 200000)",
        "pw = ENV.fetch('SMTP_PASSWORD') {{ '{v}' }}",
        "  - REDIS_PASSWORD=${{REDIS_PASSWORD-{v}}}",
        # directives: a configuration line of a name and a value
        "requirepass {v}",
        "  bindpw {v}",
        "127.0.0.1:6379> CONFIG SET masterauth {v}",
        'variable "mail_password" {{\n  type    = string\n  default = "{v}"\n}}',
        'variable "bootstrap" {{\n  sensitive = true\n  default   = "{v}"\n}}',
        # a password option after a user option, whatever the client
        "warehouse-cli -u loader -p {v} sync",
        "qtool /u:ops /p:{v}",
        # a prefixed literal as a dict's key and value: redis-py's bytes, Python 2's reprs (rtsec10 BR)
        "{{b'name': b'bob', b'passwd': b'{v}'}}",
        "{{u'host': u'db', u'api_token': u'{v}'}}",
        '[(rb"user", rb"bob"), (Rb"client_secret", Rb"{v}")]',
    ],
)
def test_a_bound_literal_is_replaced(template: str) -> None:
    assert VALUE not in _redacted(template.format(v=VALUE))


@pytest.mark.parametrize(
    "text",
    [
        'mail_password = (\n    "Tamarind#q"\n    "uay4471Zest"\n)',
        'mail_password = "".join(["Tamarind#q", "uay4471Zest"])',
        'mail_password = "%s%s" % ("Tamarind#q", "uay4471Zest")',
        'mail_password := fmt.Sprintf("%s%s", "Tamarind#q", "uay4471Zest")',
        "const mailPassword =\n  `Tamarind#q` +\n  `uay4471Zest`;",
        'mail_password := strings.Join([]string{"Tamarind#q", "uay4471Zest"}, "")',
    ],
)
def test_a_credential_joined_from_literal_pieces_loses_every_piece(text: str) -> None:
    out = _redacted(text)
    assert "Tamarind#q" not in out and "uay4471Zest" not in out
    assert '"%s%s"' in out or "%s" not in text  # the template is code, not the value


@pytest.mark.parametrize(
    "text",
    [
        'password = os.getenv("PASSWORD", "")',
        "user.set_password(new_password)",
        "token = jwt.encode(payload, settings.SECRET_KEY)",
        "if check_password('hunter22', hashed):",
        "keyring.get_password('system', 'username')",
        "const pw = process.env.DB_PASSWORD || defaultPassword;",
        "pw = config('DB_PASSWORD', default=None)",
        'var password string = os.Getenv("PW")',
        "hmac.new(key, msg, hashlib.sha256)",
        'Dim name As String = "Robert"',
        "client.connect(host, 22, user, pw)",
        "auth_type PASS",
        "password_file /etc/app/pw.txt",
        'variable "region" {\n  default = "us-east-1"\n}',
        "docker run -u 1000 -p 8080:80 nginx",
        "ssh -l deploy -p 2222 host",
        "sudo -u postgres psql -p 5433",
        "sudo -u deploy -p 'Passwort:' systemctl restart app",
        "mysql -u root -p shop2024",
        'password = "%s:%s" % (user, pw)',
        'log.info("password" + " changed")',
        'msg = f"{password}"',
        "const password = `${prefix}` + `${suffix}`;",
        'function reset(password: string, label = "Kq9#mzLabel") {}',
        'answer = questionary.password("Enter your new password:").ask()',
        'const pw = process.env.DB_PASSWORD || "Password required";',
        "{b'password': b'<redacted>'}",
        "password_fields = [b'password', b'token']",
        "pattern = re.compile(rb'password=(\\S+)')",
    ],
)
def test_a_reference_or_look_alike_is_kept(text: str) -> None:
    assert _redacted(text) == text
