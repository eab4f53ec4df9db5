"""Credentials laid out by position: a table's column, an INSERT's column list, a sibling key, an
argument's position, a command's syntax (``curation/redact/positional.py``)."""

from __future__ import annotations

import base64
import json

import pytest

from trajectory_platform.curation.redact import positional, redact_text
from trajectory_platform.curation.redact.positional import credential_shaped

SALT = b"positional-salt!"
PW = "Tr1cky-Walrus-2024"
"""Memorable, not random: entropy leaves it, so only its position can find it."""

FOUND = {
    "kubernetes_env": f"env:\n  - name: DB_PASSWORD\n    value: {PW}\n",
    "terraform_output": json.dumps({"db_password": {"sensitive": True, "type": "string", "value": PW}}),
    "requests_auth_tuple": f'r = requests.get(url, auth=("admin", "{PW}"))',
    "basic_auth_call": f'HTTPBasicAuth("admin", "{PW}")',
    "smtp_login": f'server.login("bot@x.io", "{PW}")',
    "keyring_third_argument": f'keyring.set_password("svc", "admin", "{PW}")',
    "dotnet_credential": f'new NetworkCredential("admin", "{PW}")',
    "redis_prompt": f"127.0.0.1:6379> AUTH {PW}\nOK",
    "sudo_from_stdin": f"echo '{PW}' | sudo -S apt update",
    "markdown_table": f"| Service | Password |\n|---|---|\n| billing | {PW} |",
    "csv_header": f"service,username,password\nbilling,admin,{PW}\n",
    "psql_table": f" name  | password\n-------+----------\n bob   | {PW}\n",
    "sql_insert": f"INSERT INTO users (name,email,password) VALUES ('bob','bob@x.io','{PW}');",
    "gh_secret_body": f"gh secret set DB_PASSWORD --body {PW}",
    "yaml_block_scalar": f"password: |\n  {PW}\n",
    "openssl_k": f"openssl enc -aes-256-cbc -k {PW} -in f",
    "actions_add_mask": f"echo ::add-mask::{PW}",
    "xml_keyed_entry": f'<entry key="apiKey">{PW}</entry>',
    "ftp_pass": f"PASS {PW}\n230 Login successful",
    "imap_login": f"a1 LOGIN bob {PW}",
    "docker_login_from_stdin": f"echo '{PW}' | docker login -u bob --password-stdin registry.example.com",
    "kinit_from_stdin": f'printf "%s" "{PW}" | kinit bob@EXAMPLE.COM',
    "go_dsn": f'db, err := sql.Open("mysql", "app:{PW}@tcp(db:3306)/app")',
    "oracle_connect": f"$ sqlplus system/{PW.replace('-', '_')}@//db:1521/ORCL",
    "pgpass_line": f"db.example.com:5432:app:appuser:{PW}\n",
    "expect_send": f'expect "Password:"\nsend "{PW}\\r"',
    "xfreerdp": f"xfreerdp /v:10.0.0.5 /u:admin /p:{PW}",
    "ssh_keygen_passphrase": f"ssh-keygen -t ed25519 -N '{PW}' -f id",
    "net_use": f"net use Z: \\\\srv\\share /user:bob {PW}",
    "password_for_account": f"Password for user deploy: {PW}",
    "git_prompt_quoting_its_url": (
        f"Username for 'https://github.com': bob\nPassword for 'https://bob@github.com': {PW}\n"
    ),
    "ssh_prompt_quoting_its_key": f'Enter passphrase for key "/home/ci/.ssh/id_ed25519": {PW}',
    "credentials_in_prose": f"The credentials are admin:{PW}",
    "secret_str": f"db_password=SecretStr('{PW}')",
    "ssm_name_value": f'{{"Name": "/prod/db/password", "Type": "SecureString", "Value": "{PW}"}}',
    "env_flow_style": f'env:\n  - {{name: DB_PASS, value: "{PW}"}}',
    "aws_configure_set": f"aws configure set aws_secret_access_key {PW}",
    "here_string_to_docker_login": f"docker login -u bob --password-stdin <<< '{PW}'",
    "piped_to_vault_login": f"echo '{PW}' | vault login -",
    "pgpass_line_of_an_ip_host": f"10.0.0.5:5432:app:appuser:{PW}\n",
    "value_flag_named_by_its_name_flag": f"aws ssm put-parameter --name /prod/db/password --value '{PW}'",
    "json_value_before_its_name": f'{{"Value": "{PW}", "Name": "DB_PASSWORD"}}',
    "sqlplus_quoted_connect": f"sqlplus '/nolog' 'sys/{PW.replace('-', '_')} as sysdba'",
    "sqlplus_prompt_connect": f"SQL> connect system/{PW.replace('-', '_')}",
    "ssh_keygen_new_passphrase": f"ssh-keygen -p -P 'Old-Pass-2023x' -N '{PW}' -f id",
    "pgpass_line_on_another_port": f"db-pg.example.com:25060:defaultdb:doadmin:{PW}\n",
    "pgpass_line_ending_in_crlf": f"db.example.com:5432:app:app:{PW}\r\n",
    "go_dsn_without_a_network": f'dsn := "app:{PW}@/app?parseTime=true"',
    "sqlplus_dotted_password": f"sqlplus scott/{PW.replace('-', '.')}@db",
    "pexpect_sendline": f"child.expect('Password:')\nchild.sendline('{PW}')\n",
    "pexpect_sendline_on_the_same_line": f"p.expect(['[Pp]assword:', pexpect.EOF]); p.sendline('{PW}')",
    "expect_and_send_on_one_line": f'expect "Password:" {{ send "{PW}\\r" }}',
    "freerdp3": f"sdl-freerdp3 /u:svc /p:{PW} /v:rdp.example.com",
    "net_use_password_after_the_share": f"net use * \\\\files01\\eng {PW} /user:CORP\\bob /persistent:no",
    "creds_in_prose": f"creds: admin / {PW}",
    "credentials_after_a_dash": f"Credentials - admin:{PW}",
    "env_flow_value_before_name": f"- {{ value: '{PW}', name: API_SECRET }}\n",
    "piped_to_a_gcloud_secret": f"echo -n '{PW}' | gcloud secrets create db-pass --data-file=-",
    "piped_to_any_password_stdin": f"echo '{PW}' | cosign login ghcr.io -u bob --password-stdin",
    "piped_to_a_kubectl_secret": (
        f"printf '%s' '{PW}' | kubectl create secret generic db --from-file=pw=/dev/stdin"
    ),
    "kubectl_decoded_field": (
        f"$ kubectl get secret db -o jsonpath='{{.data.password}}{{\"\\n\"}}' | base64 -d\n{PW}\n"
    ),
    "kubectl_decoded_bracket_field": (
        f"$ kubectl get secret db -o jsonpath=\"{{.data['db-password']}}\" | base64 --decode\n{PW}"
    ),
    "vault_field": f"$ vault kv get -field=password secret/db\n{PW}\n",
    "secrets_manager_text": (
        f"$ aws secretsmanager get-secret-value --secret-id prod/db --query SecretString --output text\n{PW}"
    ),
}

ENCODED = base64.b64encode(PW.encode()).decode()


@pytest.mark.parametrize(
    "manifest",
    [
        f"apiVersion: v1\nkind: Secret\nmetadata:\n  name: app\ndata:\n  DB_CONN: {ENCODED}\ntype: Opaque\n",
        json.dumps({"apiVersion": "v1", "kind": "Secret", "data": {"api": ENCODED}}, indent=2),
        f"kind: Secret\nstringData:\n  api: {PW}\n",
        "kind: List\nitems:\n- apiVersion: v1\n  kind: ConfigMap\n"
        f"- kind: Secret\n  data:\n    api: {ENCODED}\n",
    ],
    ids=["yaml_data", "json_data", "yaml_string_data", "yaml_list_item"],
)
def test_every_value_of_a_kubernetes_secret_is_one_whatever_its_key(manifest):
    """``kubectl get secret -o yaml`` prints base64 under neutral keys: a weak password's encoding
    is not random enough for entropy, and no name says what it is; the manifest's kind does."""
    redacted, _ = redact_text(manifest, SALT)
    assert ENCODED not in redacted and PW not in redacted, redacted
    assert "kind" in redacted and "Secret" in redacted


def test_a_config_map_keeps_its_data():
    manifest = "kind: ConfigMap\ndata:\n  GREETING: aGVsbG8gd29ybGQ=\n"  # "hello world"
    assert redact_text(manifest, SALT)[0] == manifest


CONFIG = {"LOG_LEVEL": "debugverbose", "API_URL": "https://api.example.com/v2", "MODE": "aGVsbG8gd29ybGQ="}
SECRET_BESIDE_CONFIG = {
    "yaml_documents": "apiVersion: v1\nkind: ConfigMap\ndata:\n"
    + "".join(f"  {key}: {value}\n" for key, value in CONFIG.items())
    + f"---\napiVersion: v1\nkind: Secret\ndata:\n  api: {ENCODED}\n",
    "yaml_list_items": "apiVersion: v1\nitems:\n- apiVersion: v1\n  data:\n"
    + "".join(f"    {key}: {value}\n" for key, value in CONFIG.items())
    + f"  kind: ConfigMap\n- apiVersion: v1\n  data:\n    api: {ENCODED}\n  kind: Secret\nkind: List\n",
    "json_list_items": json.dumps(
        {
            "kind": "List",
            "items": [
                {"kind": "ConfigMap", "data": CONFIG, "metadata": {"note": "a } brace"}},
                {"data": {"api": ENCODED}, "kind": "Secret"},
            ],
        },
        indent=4,
    ),
}


@pytest.mark.parametrize("case", sorted(SECRET_BESIDE_CONFIG))
def test_a_config_map_beside_a_secret_keeps_its_data(case):
    """``kubectl get cm,secret -o yaml`` and a Helm render put a ConfigMap in the same stream: only
    the Secret's own ``data`` is a secret."""
    redacted, _ = redact_text(SECRET_BESIDE_CONFIG[case], SALT)
    assert ENCODED not in redacted
    assert all(value in redacted for value in CONFIG.values()), redacted


KEPT = {
    "prose_with_commas": "we store username, password, and email\nthen hash it, salt it, and move on\n",
    "table_of_words": "| field | password |\n|---|---|\n| rule | required |\n| hashed | yes |\n",
    "dates_under_a_password_column": "user,password_changed,logins\nbob,2024-01-02,17\n",
    "login_with_plain_words": 'self.client.login("testuser", "testpass")',
    "env_that_names_no_credential": "- name: LOG_LEVEL\n  value: DEBUG-2024x\n",
    "insert_without_a_credential_column": "INSERT INTO users (name, hint) VALUES ('bob', 'Fav0urite!');",
    "placeholder_in_a_table": "| user | password |\n|---|---|\n| bob | ${DB_PASSWORD} |\n",
    "math_named_exp": "y = exp(x) + z/(x*exp(y))\nw = exp(2)/sqrt(x_1)",
    "credentials_doc_link": "See credentials: https://developers.google.com/identity/protocols",
    "lint_line_with_a_port_like_field": "src/app.py:5432:12:W0612:unused-variable",
    "json_name_value_of_no_credential": '{"Name": "LOG_LEVEL", "Value": "DEBUG-2024x"}',
    "sudo_prompt_and_the_next_output": "[sudo] password for ubuntu: Reading package lists... Done",
    "ssh_prompt_answered_on_its_own_line": "Enter passphrase for key '/root/.ssh/id_rsa': \nIdentity added",
    "credential_helper_config": '{"credHelpers": {"x": "y"}, "credential-helper:ecr-login": 1}',
    "credentials_naming_a_host": "credentials: db:5432/appdb",
    "expect_of_no_prompt": 'expect "password changed"\nsend "/usr/bin/logout\\r"',
    "exp_in_prose": "exp total/Seconds2024 ratio\nimp notes/Draft2025 later",
    "pulumi_secret_resource": 'db = aws.secretsmanager.Secret("db-creds-2024")',
    "tag_value_named_by_its_name_flag": "aws ec2 create-tags --name Environment --value production-2024",
    "connect_in_prose": "Connect host/8080 first\nCONNECTION pool/size2 ok",
    "pexpect_of_a_prompt": "child.expect('\\$ ')\nchild.sendline('ls -la /tmp/Build2024')",
    "net_use_that_prompts": "net use Z: \\\\srv\\share * /user:bob\nnet use Y: \\\\srv\\docs /persistent:yes",
    "login_naming_a_page": "Login: Settings / Accounts",
    "secret_reader_that_failed": (
        "$ vault kv get -field=password secret/db\nNo value found at secret/data/db\n"
    ),
    "secret_reader_printing_a_document": (
        "$ aws secretsmanager get-secret-value --secret-id prod/db\n"
        '{"Name": "prod/db", "VersionId": "Ver2024-01-a", "CreatedDate": "2024-01-02"}'
    ),
}


@pytest.mark.parametrize("case", sorted(FOUND))
def test_a_credential_found_by_its_position(case):
    redacted, findings = redact_text(FOUND[case], SALT)
    positional = [f for f in findings if f.detector.startswith("positional:")]
    assert positional
    assert PW not in redacted and not any(f.value in redacted for f in positional), redacted


@pytest.mark.parametrize("case", sorted(KEPT))
def test_a_layout_alone_redacts_nothing(case):
    assert redact_text(KEPT[case], SALT)[0] == KEPT[case]


def test_the_json_stays_valid_and_the_other_cells_stay():
    redacted, _ = redact_text(FOUND["terraform_output"], SALT)
    assert json.loads(redacted)["db_password"]["sensitive"] is True
    table, _ = redact_text(FOUND["psql_table"], SALT)
    assert table.startswith(" name  | password\n-------+----------\n bob   | <REDACTED_PASSWORD:")


@pytest.mark.parametrize(
    ("value", "shaped"),
    [
        ("Tr1cky-Walrus-2024", True),
        ("hunter2", True),
        ("CorrectHorse", True),
        ("hashed", False),
        ("2024-01-02", False),
        ("yes", False),
        ("${DB_PASSWORD}", False),
        ("two words", False),
    ],
)
def test_what_a_position_may_hold(value, shaped):
    assert credential_shaped(value) is shaped


def test_a_table_is_read_once_however_many_of_its_rows_name_a_credential(monkeypatch):
    """Each row that names a credential used to start a table of its own over the rest: 70 kB of
    ``password,user`` took 28 s. Every line is split into cells a bounded number of times."""
    calls = []
    split = positional._cells
    monkeypatch.setattr(
        positional, "_cells", lambda line, delimiter: calls.append(line) or split(line, delimiter)
    )
    lines = 400
    list(positional.find_positional_credentials("password,user\n" * lines))
    assert len(calls) <= 3 * lines


def test_a_prompt_keeps_the_key_path_it_quotes():
    redacted = redact_text(f"Enter passphrase for key '/root/.ssh/id_rsa': {PW}\n", SALT)[0]
    assert redacted.startswith("Enter passphrase for key '/root/.ssh/id_rsa': <REDACTED_PASSWORD:"), redacted
