"""Credentials a command's or a call's signature places, with no name beside them (red team
s40/rtsec10, classes SO, FH, P1, CP): the line a command asking for a credential printed, a
password passed by position to a call that logs in or connects, a CLI's bare credential operand;
and the account name after a hashing command's substitution, which is no password.

The tools, APIs and values here are not the red team's (those are its generators): held out, to
test the signatures rather than a list of names."""

from __future__ import annotations

import pytest

from trajectory_platform.curation.redact import redact_text
from trajectory_platform.curation.redact.positional import secret_printed_by

SALT = b"signature-salt"
PW = "Pebble!73Fern"
"""Memorable and short: entropy leaves it, only the layout around it can find it."""

PRINTED = {
    "ssm_parameter": "$ aws ssm get-parameter --name /prod/db_password --with-decryption --output text",
    "access_token": "bob@devbox:~/app$ gcloud auth print-access-token",
    "powershell_env": "PS C:\\Users\\bob> $env:STRIPE_SECRET_KEY",
    "dotted_selector": "% dasel -f config.toml 'database.password'",
    "braced_variable": '(venv) $ printf %s "${NPM_TOKEN}"',
    "config_key": "$ git config --global --get hub.oauthtoken.secret",
    "store_named": "$ secret-tool lookup service smtp",
}


@pytest.mark.parametrize("command", PRINTED.values(), ids=PRINTED.keys())
def test_the_line_a_command_asking_for_a_credential_printed_is_replaced(command: str) -> None:
    text = f"{command}\n{PW}\n$ ls\n"
    assert PW not in redact_text(text, SALT)[0]


PRINTED_HONEST = {
    "field_of_a_name": "$ jq -r .name package.json\nweb-app2\n$ ",
    "home": '$ echo "$HOME_DIR"\nC0ffee-box\n$ ',
    "file_named_auth": "$ git log -1 --format=%h -- src/auth.py\n9c1e2f7\n$ ",
    "container_named_token": "$ docker run -d --name token-service img:1\n4b1d0e9a7c55\n$ ",
    "resource_names": "$ kubectl get pods -l app=auth -o name\npod/auth-7d9f8b6c5-x2k4p\n$ ",
    "counts": "$ echo $TOKEN_COUNT\n4096\n$ ",
    "subcommand_listing": "$ gh auth status\nLogged in to github.com as bob (keyring)\n$ ",
}


@pytest.mark.parametrize("text", PRINTED_HONEST.values(), ids=PRINTED_HONEST.keys())
def test_what_other_commands_printed_stays(text: str) -> None:
    assert redact_text(text, SALT)[0] == text


def test_a_tool_call_asking_for_a_credential_names_its_result_a_secret() -> None:
    assert secret_printed_by("gh auth token", f"{PW}\n") == PW
    assert secret_printed_by("yq e '.spec.auth.apiKey' values.yaml", PW) == PW
    assert secret_printed_by("git rev-parse --short HEAD", "ab12cd3") is None


LOGIN_CALLS = {
    "php_trace_of_doctrine": (
        "#2 /srv/vendor/doctrine/dbal/src/Driver/PDO/Connection.php(33): "
        f"PDO->__construct('mysql:host=127.0.0.1;dbname=shop', 'shop', '{PW}', Array)"
    ),
    "imap_login": f'imap = imaplib.IMAP4_SSL("mail.example.org"); imap.login("ops@example.org", "{PW}")',
    "ldap_bind_php": f"ldap_bind($ds, 'uid=jdoe,ou=people,dc=corp', '{PW}');",
    "go_ldap_bind": f'err = conn.Bind("cn=svc,dc=x", "{PW}")',
    "oracle_user_first": f'$conn = oci_connect("scott", "{PW}", "//db:1521/XE");',
    "sequel_connect": f"DB = Sequel.connect('postgres://db/app', 'app', '{PW}')",
    "perl_dbi_failure": f"DBI connect('dbname=app','ana','{PW}') failed: FATAL: password authentication",
    "ftp_client_constructor": f'ftp = new FtpClient("ftp.corp", "uploader", "{PW}");',
    "basic_auth_setter": f'req.SetBasicAuth("admin", "{PW}")',
    "ado_open_statement": f'adoCn.Open "DSN=Billing", "clerk", "{PW}"',
    "ado_open_statement_options": f'cn.Open strConn, "clerk", "{PW}", adAsyncConnect',
    "ado_open_call": f'Set rs = oConn.Open("DSN=Billing", "clerk", "{PW}")',
}


@pytest.mark.parametrize("text", LOGIN_CALLS.values(), ids=LOGIN_CALLS.keys())
def test_a_password_passed_by_position_to_a_login_call_is_replaced(text: str) -> None:
    out = redact_text(text, SALT)[0]
    assert PW not in out, out


LOGIN_CALLS_HONEST = {
    "django_login": "login(request, user)",
    "socket_pair": "connect(host, port)",
    "driver_and_file": "db.connect('sqlite', 'file_db2')",
    "event_binding": "el.bind('click', 'handler_v2')",
    "keyword_arguments": "psycopg2.connect(host='db', user='app', password=os.environ['DB_PW'])",
    "server_after_password_variable": 'smtp.PlainAuth("", user, pass, "smtp.example.com")',
    "an_author": "author('Jane', 'Doe2024')",
    "ado_open_variables": "cn.Open strConn, strUser, strPass",
    "workbook_open_statement": 'Workbooks.Open "C:\\data\\q3.xlsx", 0, True',
    "file_open_call": 'fh.Open("notes.txt", "w", "utf-8")',
}


@pytest.mark.parametrize("text", LOGIN_CALLS_HONEST.values(), ids=LOGIN_CALLS_HONEST.keys())
def test_calls_with_no_password_literal_after_a_user_stay(text: str) -> None:
    assert redact_text(text, SALT)[0] == text


CLI = {
    "mariadb_glued": f"mariadb --host=db01 -p{PW} -e 'select 1'",
    "mariadb_dump_quoted": f"mariadb-dump -p'{PW}' --all-databases",
    "login_operand": f"RUN vault login '{PW}'",
    "login_password_option": f"oc login -u developer -p {PW} https://api.crc.testing:6443",
    "snmp_community": f"snmpget -v1 -c {PW} 192.168.1.1 sysDescr.0",
    "credential_stdin_option": f"echo {PW} | skopeo login --password-from-stdin -u bob quay.io",
    "admin_add": f"emqx ctl admins add ops {PW}",
    "http_basic_key": f"composer config -g http-basic.nova.laravel.com bob@example.com {PW}",
    "batch_passwd_file": f"mosquitto_passwd -b passwd.txt sensor01 {PW}",
    "asked_twice": f"(echo '{PW}'; echo '{PW}') | passwd bob",
}


@pytest.mark.parametrize("text", CLI.values(), ids=CLI.keys())
def test_a_cli_credential_operand_is_replaced(text: str) -> None:
    out = redact_text(text, SALT, shell=True)[0]
    assert PW not in out, out


CLI_HONEST = {
    "registry": "docker login registry.example.com:5000",
    "url": "pulumi login s3://state-bucket",
    "subcommand": "gcloud auth configure-docker",
    "port_option": "ssh -p 2222 login.example.com",
    "port_after_host": "ssh login.example.com -p 2222",
    "user_add_of_variables": 'mc admin user add local alice "$MINIO_PW"',
    "plain_option": "wandb login --relogin",
    "setting": "poetry config virtualenvs.in-project true",
    "hash_in_substitution": 'useradd -m -p $(openssl passwd -6 "$PW") deploy2\nsu - deploy2',
    "hash_in_backquotes": 'usermod -p `mkpasswd -m sha-512 "$NEWPW"` runner01',
    "hash_after_a_password_option": "RUN useradd --create-home --password `openssl passwd -1 ${PW}` app2",
    "hash_of_a_file": 'useradd -p "$(openssl passwd -1 "$(cat /run/secrets/pw)")" ci-bot7',
}


@pytest.mark.parametrize("text", CLI_HONEST.values(), ids=CLI_HONEST.keys())
def test_commands_with_no_credential_operand_stay(text: str) -> None:
    assert redact_text(text, SALT, shell=True)[0] == text
