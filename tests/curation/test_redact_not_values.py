"""What stands where a credential's value would and is not one stays as it is
(``curation/redact/not_values.py``, the concatenation view's keys and diff markers in
``decoders.py``, the FTP command's session in ``positional.py``): each such text was rewritten,
and its "value" replaced everywhere it recurred in the episode. Controls: the same shapes holding
a real secret are still redacted."""

from __future__ import annotations

import json

import pytest

from trajectory_platform.curation.redact import redact_text

SALT = b"not-values-salt!"


def _redacted(text: str) -> str:
    return redact_text(text, SALT)[0]


HONEST = {
    # the working directory
    "env_pwd": "HOSTNAME=ci-7\nPWD=/srv/app\nOLDPWD=/srv\nSHLVL=1\n",
    "declare_pwd": 'declare -x PWD="/mnt/data/run-7"\n',
    "json_pwd": '{"PWD": "/workspace/shop", "SHLVL": "1"}',
    "mount_pwd": "docker run --rm -v $PWD:/code -w /code img make test",
    "status_pwd": "[pwd: /opt/build]\n$ git status",
    "askpass": "SSH_ASKPASS=/usr/libexec/openssh/gnome-ssh-askpass\n",
    # a user and its group
    "docker_uid_gid": "docker run --rm -u 1001:1001 img id\nchown -R 1001:1001 /data",
    "podman_named_group": "podman run --user nobody:nogroup img id",
    "compose_same_name": "docker compose exec --user=postgres:postgres db psql",
    # a test runner's verdict
    "jest_pass": "$ npx jest\nPASS  packages/ui/src/Modal.spec.tsx\nTests: 4 passed, 4 total",
    "jest_pass_fail_rows": "PASS  __tests__/cart.test.js\nFAIL  __tests__/checkout.test.js\n",
    # a parameter expansion's message or alternate
    "required_var": "  - DB_PASSWORD=${DB_PASSWORD:?export it first}\n",
    "required_var_yaml": "    environment:\n      JWT_SECRET: ${JWT_SECRET:?please export it}\n",
    # a measurement, a metric, a pin
    "describe_sizes": "Data\n====\nca.crt:  1094 bytes\nclient-secret:  40 bytes\ndb-password:  1024 bytes\n",
    "pass_metrics": "pass_percentage: 92.5\npass_at_10: 0.81\n",
    "pass_ratio_json": '{"pass_ratio": "0.66", "model": "policy-v2"}',
    "gpio_pin": "switch:\n  - platform: gpio\n    pin: GPIO12\n",
    "stm32_pin": "led_pin = PA10\n",
    # code computing the value
    "await": "const secret_password = await kms.decrypt(blob);",
    "yield": "api_password = yield call(fetchPw)",
    "lambda": "PASSWORD = lambda s: s.strip()",
    "run_blocking": "val pass = runBlocking { vault.read() }",
    # translation catalogues
    "catalogue_json": json.dumps(
        {"tr": {"login": {"password": "Şifre", "secret_key": "Gizli anahtar", "submit": "Gönder"}}},
        ensure_ascii=False,
        indent=2,
    ),
    "catalogue_yaml": 'fi:\n  form:\n    password: "Salasana"\n    secret_key: Salainen avain\n',
    "catalogue_properties": "form.password=Heslo\nform.secret_key=Tajný klíč\n",
    "catalogue_strings": '"password" = "Adgangskode";\n"api_key" = "API-nøgle";\n',
    # an English compound listed after a credential word: a sentence, not a user and a password
    "compound_in_a_list": "Redaction: credential sinks, user-keyed maps, tables (the merged rules)",
    "compound_after_and": "The default login page and read-only views were rebuilt.",
    # a credential's name a branch compares: what follows the colon is the branch's code
    "python_compare": "for key in row:\n    if key == 'passwd': continue\n",
    "python_not_equal": 'if col != "secret_token": break\n',
    "js_case": "switch (f) { case 'api_key': skip = true; }\n",
    "ruby_when": "  when 'passphrase' then next\n",
    # a platform's dotted label under a credential's name
    "runner_label": "token: node20.darwin.arm64\n",
    "wheel_tag": "BUILD_SECRET=cp312.musllinux1.aarch64\n",
    "image_flavour": '  api_key = "ruby3.3.bookworm.amd64"\n',
    # a reference to where a secret is kept, as a YAML flow mapping or sequence
    "secret_key_ref": "env:\n  - name: PGPASSWORD\n    valueFrom:\n      secretKeyRef: {name: pg, key: pw}",
    "env_entry_flow": "  - {name: API_TOKEN, valueFrom: {secretKeyRef: {name: api, key: token}}}\n",
    "env_from_flow": "    envFrom: [{secretRef: {name: oauth}}]\n",
    "password_secret_flow": "  passwordSecret: {name: db-auth, key: password}\n",
    "token_secret_ref_flow": '  tokenSecretRef: {"name": registry, "key": token}\n',
}


@pytest.mark.parametrize("case", sorted(HONEST))
def test_what_only_stands_where_a_value_would_is_kept(case: str) -> None:
    assert _redacted(HONEST[case]) == HONEST[case]


NEXT_LINES = {
    "diff_last_member": (
        '@@ -1,4 +1,4 @@\n {\n-  "db_password": "old-Value-1"\n+  "db_password": "Zx81#kkq"\n }',
        '+  "db_password"',
    ),
    "diff_added_after": ('@@ -2 +2,2 @@\n   "secret": "Plum8#Qz"\n+  "region": "eu-west-1"', '+  "region"'),
    "quoted_keys": ('db:\n  "password": "Kx7!mm2q"\n  "user": "svc"\n', '\n  "user"'),
    "hcl_map": ('locals {\n  "token" = "Tq9#xx21"\n  "host" = "db"\n}', '\n  "host"'),
}


@pytest.mark.parametrize("case", sorted(NEXT_LINES))
def test_the_line_after_a_quoted_value_keeps_its_key_and_diff_marker(case: str) -> None:
    """A literal ending a line and a quoted key (after a diff's ``+``) opening the next one are no
    concatenation: the value is replaced, the next line stays whole (the diff still applies)."""
    text, next_line = NEXT_LINES[case]
    out = _redacted(text)
    assert out != text and next_line in out and out.count("\n") == text.count("\n"), out


CONTROLS = {
    "mongo_pwd": ('db.createUser({user: "app", pwd: "Xk9#mmq2Lw", roles: []})', "Xk9#mmq2Lw"),
    "db_pwd_env": ("DB_PWD=Plum8#Quartz\n", "Plum8#Quartz"),
    "curl_user": ("curl -u admin:Tr0ub4dor9x https://api.example.com", "Tr0ub4dor9x"),
    "curl_in_container": ("docker run --rm curlimages/curl -u bob:Maple3988zz http://x", "Maple3988zz"),
    "ftp_session": (
        "220 ProFTPD ready\nUSER bob\n331 Password required\nPASS Xk9mmq22zz\n230 Logged in",
        "Xk9mmq22zz",
    ),
    "pop3_session": ("+OK POP3 ready\nUSER ann\n+OK\nPASS Quartz77ab\n", "Quartz77ab"),
    "expansion_default": ("  - DB_PASSWORD=${DB_PASSWORD:-Sup3r#Secret9}", "Sup3r#Secret9"),
    "pass_label": ("pass: Kestrel4471&\n", "Kestrel4471&"),
    "unquoted_code_value": ("password = Sup3rS3cret!", "Sup3rS3cret!"),
    "keyword_in_quotes": ('const password = "await#9Zz";', "await#9Zz"),
    "value_with_unit_word": ("password: 16bytes!x\n", "16bytes!x"),
    "two_word_password": ('password: "Sunset Harbor"\n', "Sunset Harbor"),
    "hyphenated_passphrase": ("Credentials: deploy, amber-falcon-quartz", "amber-falcon-quartz"),
    "hyphenated_with_digit": ("log in with admin and blue-harbor7", "blue-harbor7"),
    "compared_then_assigned": ("if (mode == 'x') password: Qz81#lomb\n", "Qz81#lomb"),
    "memorable_dotted_token": ("token: Harbor.linux7741\n", "Harbor.linux7741"),
    "flow_mapping_beside_a_reference": (
        "x:\n  secretKeyRef: {name: db, key: password}\n  password: Kx9fTq2vLm8pRw\n",
        "Kx9fTq2vLm8pRw",
    ),
    "password_inside_a_flow_mapping": ("db: {user: bob, password: Hunter2Secret9}\n", "Hunter2Secret9"),
    "diff_added_password": (
        '@@ -1,3 +1,3 @@\n {\n-  "password": "old"\n+  "password": "Velvet70040!x"\n }',
        "Velvet70040!x",
    ),
}


@pytest.mark.parametrize("case", sorted(CONTROLS))
def test_a_secret_in_the_same_shapes_is_still_redacted(case: str) -> None:
    text, secret = CONTROLS[case]
    assert secret not in _redacted(text)


@pytest.mark.parametrize(
    "text",
    [
        "DB_PASSWORD: [hidden]",
        "smtp password = (redacted)",
        "Client Secret  {masked}",
        "api_token: [not set]",
        "AUTH_TOKEN (omitted)",
        "password: [WITHHELD]",
    ],
)
def test_a_placeholder_word_in_brackets_is_no_value(text: str) -> None:
    """A tool's placeholder printed in brackets: once it was replaced up to the closing bracket,
    which stayed behind alone (red team, round 12)."""
    assert _redacted(text) == text


@pytest.mark.parametrize("text", ["DB_PASSWORD: [Hv7#qLm2]", "smtp password = (Hv7#qLm2)"])
def test_a_value_in_brackets_is_still_replaced(text: str) -> None:
    assert "Hv7#qLm2" not in _redacted(text)


@pytest.mark.parametrize(
    "text",
    [
        "kubectl create secret generic app --from-file=api_token=/dev/stdin < token.txt",
        "oc create secret generic db --from-file=password=./conf/db.pass",
        "DB_PASSWORD=~/.config/app/db.pass",
        "smtp_password: /run/secrets/smtp",
    ],
)
def test_a_path_under_a_credential_name_is_where_it_is_read_from(text: str) -> None:
    """Replaced as a password, the path was rewritten wherever the episode named it (round 12)."""
    assert _redacted(text) == text


@pytest.mark.parametrize("text", ["DB_PASSWORD=/Hv7#qLm2x", "password: /tmp/Hv7#qLm2x"])
def test_a_password_that_starts_like_a_path_is_still_replaced(text: str) -> None:
    assert "Hv7#qLm2x" not in _redacted(text)
