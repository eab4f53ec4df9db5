"""Credentials in commands and code whose syntax, not a ``name = value`` pair, says where the value
is (red team 2026-12-06, classes R1 R2 R23 R6 R5 R9 R24 R10 R15 R17): a client's password option
behind any prompt or prefix, a positional or stdin-fed password, a name given as a string key, a
value holding a character that ends values in code, a key/value table's cells, a compressed blob
too long to read, a token's head cut by an ellipsis, a value with a space echoed in feedback.

The values and the layouts here are not the red team's (those are its repro scripts): they are
held out, to test the class rather than the examples."""

from __future__ import annotations

import base64
import dataclasses
import datetime as dt
import zlib

import pytest

from trajectory_platform.curation.redact import redact_episode, redact_text
from trajectory_platform.curation.redact.episode import redact_row
from trajectory_platform.curation.redact.feedback import redact_feedback
from trajectory_platform.traces.feedback import FeedbackRecord
from trajectory_platform.traces.record import Episode, Event, Outcome, TaskIdentity

SALT = b"command-syntax-salt"
PW = "Vq7#lumen-Ox41"
"""Memorable and short: entropy leaves it, so only the syntax around it can find it."""

PROMPTS = {
    "container_root_prompt": "root@5be21f0c77aa:/opt/app# {c}",
    "user_prompt_with_venv": "(.venv) ana@ci-7:~/svc$ {c}",
    "zsh_prompt": "➜  repo git:(main) {c}",
    "powershell_prompt": "PS D:\\work> {c}",
    "notebook_shell_escape": "Out[4]: None\nIn [5]: !{c}",
    "dockerfile_run": "RUN apt-get update && {c}",
    "ci_step": "    - run: {c}",
    "env_prefix": "TZ=UTC HOME=/tmp {c}",
    "xtrace_line": "++ {c}",
    "history_numbering": " 1042  {c}",
    "exec_into_a_pod": "kubectl exec -n prod deploy/api -- {c}",
    "absolute_path": "/opt/mssql-tools18/bin/{c}",
}
CLIENTS = {
    "sqlcmd": "sqlcmd -S sql01 -U sa -P {p} -C",
    "redis_after_its_port": "redis-cli -h cache -p 6390 -a {p} ping",
    "mongo": "mongorestore -u root -p {p} --authenticationDatabase admin dump/",
    "seven_zip_glued": "7z e backup.7z -p{p} -o/tmp/out",
    "zip": "zip -q -P {p} -r site.zip public/",
    "ldap": "ldapmodify -x -D cn=Manager,dc=ex -w {p} -f change.ldif",
    "snmp_privacy_after_auth": "snmpget -v3 -l authPriv -u mon -A Kq2-auth-Pass9 -x AES -X {p} sw1 sysName.0",
    "cassandra_shell": "cqlsh db1 9042 -u cassandra -p {p}",
}


@pytest.mark.parametrize("client", sorted(CLIENTS))
@pytest.mark.parametrize("prompt", sorted(PROMPTS))
def test_a_clients_password_option_is_found_behind_any_prompt_or_prefix(prompt, client):
    line = PROMPTS[prompt].format(c=CLIENTS[client].format(p=PW))
    redacted, _ = redact_text(line, SALT)
    assert PW not in redacted, redacted


def test_a_clients_other_options_and_prose_about_it_are_kept():
    for line in (
        "redis-cli -h cache -p 6390 ping",  # -p is redis-cli's port: it was read as the password
        "Pass the password with the unzip -P option",
        "gzip -9 notes.txt && unzip -o pkg.zip -d out",
    ):
        assert redact_text(line, SALT)[0] == line


SYNTAXES = {
    "fish_universal_export": f"set -Ux SMTP_PASSWORD {PW}",
    "csh_setenv": f"setenv PGPASSWORD {PW}",
    "makefile_default": f"ADMIN_PASS ?= {PW}",
    "mysql_set_password": f"SET PASSWORD FOR 'bi'@'localhost' = PASSWORD('{PW}');",
    "yarn_config_set": f"yarn config set npmAuthPassword {PW}",
    "git_config_global": f"git config --global sendemail.smtppass {PW}",
    "poetry_repository_credentials": f"poetry config http-basic.internal ci-bot {PW}",
    "minio_client_alias": f"mc alias set backup https://s3.corp:9000 backupuser {PW}",
    "rclone_key_value_pairs": f"rclone config create vault sftp host h.corp user u pass {PW}",
    "httpie_auth": f"http -a ops:{PW} GET https://api.corp/v2/jobs",
    "curl_quoted_user_and_password": f"curl -fsS -u 'ops':'{PW}' https://nexus.corp/service",
    "pdo_positional": f'$pdo = new PDO("pgsql:host=db", $user, "{PW}");',
    "jdbc_positional": f'Connection c = DriverManager.getConnection(URL, "etl", "{PW}");',
    "db_api_positional": f"conn = pymssql.connect('sql01', 'sa', '{PW}')",
    "selenium_password_field": f'b.find_element(By.CSS_SELECTOR, "input[type=password]").send_keys("{PW}")',
    "playwright_label": f'await page.getByLabel("Password").fill("{PW}");',
    "puppeteer_type": f"await page.type('#login-pwd', '{PW}')",
    "pgpass_echoed": f"echo 'warehouse.corp:5432:dw:loader:{PW}' >> ~/.pgpass",
    "passwd_asked_twice": f"printf '{PW}\\n{PW}\\n' | passwd svc",
    "vnc_here_string": f"vncpasswd -f <<< '{PW}' > ~/.vnc/passwd",
    "sudo_here_string": f"sudo -S -k whoami <<< '{PW}'",
    "rabbitmq_add_user": f"rabbitmqctl add_user billing '{PW}'",
    "db2_connect": f"db2 connect to PROD user db2inst1 using {PW}",
    "lftp_user_comma": f"lftp -u uploader,{PW} sftp://files.corp",
    "mysqladmin_password": f"mysqladmin -u root -h 127.0.0.1 password '{PW}'",
}


@pytest.mark.parametrize("case", sorted(SYNTAXES))
def test_a_password_placed_by_a_commands_or_calls_syntax_is_replaced(case):
    redacted, _ = redact_text(SYNTAXES[case], SALT)
    assert PW not in redacted, redacted


STRING_KEYS = {
    "environ_subscript": f'os.environ["SMTP_PASSWORD"] = "{PW}"',
    "flask_config": f"app.config['SECRET_KEY'] = '{PW}'",
    "node_env_subscript": f"process.env['REDIS_PASS'] = '{PW}';",
    "configparser_set": f'parser.set("smtp", "password", "{PW}")',
    "setattr_literal": f'setattr(cfg, "db_password", "{PW}")',
    "java_system_property": f'System.setProperty("mail.smtp.password", "{PW}");',
    "pydantic_field_default": f"smtp_password: str = Field(default='{PW}')",
}


@pytest.mark.parametrize("case", sorted(STRING_KEYS))
def test_a_credential_named_by_a_string_key_is_replaced(case):
    redacted, _ = redact_text(STRING_KEYS[case], SALT)
    assert PW not in redacted, redacted


@pytest.mark.parametrize(
    ("line", "pieces"),
    [
        ("amqp://worker:Kp2z@Lq9v@mq.corp:5672/", ["Kp2z", "Lq9v"]),
        ("mysql://etl:Wn4d/Rr8s@db.corp:3306/dw", ["Wn4d", "Rr8s"]),
        ("smtp_password: Hx4k,Tb7w", ["Hx4k", "Tb7w"]),
        ("  db_pass: Jm3q Zc5n", ["Jm3q", "Zc5n"]),
        ("REDIS_PASSWORD=Fd8s\\Gy2p", ["Fd8s", "Gy2p"]),
        ("      - ADMIN_PASSWORD=Uw6e(Np3r", ["Uw6e", "Np3r"]),
        ("export API_PASSWORD=Bc9x'Qe4t", ["Bc9x", "Qe4t"]),
        ("spring.datasource.password=Ya5v<Mk8j", ["Ya5v", "Mk8j"]),
        ("BROKER_PASSWORD=Sd3f Wq8e", ["Sd3f", "Wq8e"]),
        ("[client]\npassword = Kz5m,Rt2q  ; mysql option file", ["Kz5m", "Rt2q"]),
    ],
)
def test_a_value_holding_a_character_that_ends_values_in_code_is_replaced_whole(line, pieces):
    redacted, _ = redact_text(line, SALT)
    assert not any(piece in redacted for piece in pieces), redacted


@pytest.mark.parametrize(
    ("line", "value"),
    [
        ("SMTP_PASSWORD=Orchid.Lantern5531", "Orchid.Lantern5531"),
        ("  - MYSQL_PASSWORD=k3.Wd8qL.x2", "k3.Wd8qL.x2"),
        ("pg_restore --db-password Maple.Copper880 -d app", "Maple.Copper880"),
        ("root_pass: Cedar.Falcon77", "Cedar.Falcon77"),
        ("setenv SMTP_PASS Birch.Ember4410", "Birch.Ember4410"),
        ("SMTP_PASS ?= Birch.Ember4410", "Birch.Ember4410"),
        ("export ADMIN_TOKEN=$'Mz8#qLw2!vR'", "Mz8#qLw2!vR"),
        ("ADMIN_PASSWORD=$'Mz8#qLw2!vR\\n'", "Mz8#qLw2!vR"),
    ],
)
def test_a_dotted_or_ansi_c_quoted_value_under_a_credential_name_is_replaced(line, value):
    redacted, _ = redact_text(line, SALT)
    assert value not in redacted, redacted


def test_the_command_an_environment_prefix_runs_is_kept():
    redacted, _ = redact_text("DB_PASSWORD=x9Lm2q!Tz python manage.py migrate", SALT)
    assert "x9Lm2q" not in redacted and redacted.endswith(" python manage.py migrate"), redacted


@pytest.mark.parametrize(
    "line",
    [
        "    password=get_password(),",
        "  password: config.password,",
        "  password: string;",
        'os.environ["PASSWORD"] = getpass()',
        "if os.environ['DB_PASSWORD'] == 'test':",
        "page.fill('#search', 'cheap flights')",
        "setattr(self, 'password', value)",
        "set -o pipefail",
        '__all__ = ["BertTokenizer", "AuthTokenClassifier", "XLNetLMHeadModel"]',
        "params['SignatureMethod'] = 'HmacSHA256'",
        "x = key_states[..., :rotary_dim]",
        'password = f"{prefix}{suffix}"',
        "secret = os.urandom(32).hex()",
        "DB_PASSWORD=${DB_PASSWORD}",
        "password: !vault |",
        "  secret_key: !Ref AppSecretKey",
        "https://github.com/org/repo.git@v1.2",
        "http://localhost:8080/users/@me/settings",
        "src/app.py:5432:12:W0612:unused-variable",
        " name                | setting\n---------------------+---------\n"
        " password_encryption | scram-sha-256",
    ],
)
def test_code_and_output_near_those_syntaxes_are_kept(line):
    assert redact_text(line, SALT)[0] == line


@pytest.mark.parametrize(
    "table",
    [
        f"      key       |   value\n----------------+-----------\n mail_password  | {PW}\n"
        " timeout        | 30\n(2 rows)",
        "+---------------+----------------+\n| Variable_name | Value          |\n"
        f"+---------------+----------------+\n| repl_password | {PW} |\n+---------------+----------------+",
        f"name,value\nlog_level,info\nbroker_password,{PW}\n",
        f"$ etcdctl get /cfg/mq/password\n/cfg/mq/password\n{PW}\n",
    ],
)
def test_a_value_beside_a_key_cell_naming_a_credential_is_replaced(table):
    redacted, _ = redact_text(table, SALT)
    assert PW not in redacted, redacted


def test_a_secret_managers_payload_named_by_its_version_path_is_replaced():
    encoded = base64.b64encode(PW.encode()).decode()
    version = (
        '{"name": "projects/acme/secrets/smtp-password/versions/3", '
        f'"payload": {{"data": "{encoded}", "dataCrc32c": "2137"}}}}'
    )
    redacted, _ = redact_text(version, SALT)
    assert encoded not in redacted and '"dataCrc32c": "2137"' in redacted, redacted


def test_a_compressed_blob_too_long_to_read_is_replaced_whole():
    secret = "glpat-" + "Xy7kQ2mN9pR4sT6vW8zB"
    blob = base64.b64encode(zlib.compress(("=" * 1_300_000 + f"\nGL_TOKEN={secret}\n").encode())).decode()
    redacted, findings = redact_text(f"payload={blob}", SALT)
    assert blob not in redacted and any(f.detector == "base64:unread" for f in findings)


def _episode(task_id: str, content: str, diff: str | None = None) -> Episode:
    return Episode(
        episode_id="e1",
        source_format="native",
        source_file="f",
        source_line=1,
        source_path=None,
        partition_date=dt.date(2026, 1, 1),
        task=TaskIdentity(fixture_id=task_id, prompt="p", license="MIT"),
        events=[Event(kind="tool", content=content, tool_call_id="a", tool_name="bash", status="ok")],
        outcome=Outcome(terminal_status="completed", workspace_diff=diff),
    )


def test_a_tokens_head_cut_by_an_ellipsis_is_replaced_beside_the_episode():
    token = "ghp_" + "Qw3eRt5yUi7oPa9sDf1gHj2kLz4xCv6bNm8"
    task_id = "repo-fix-" + token
    shown = task_id[:24] + "..."  # how the verifier quotes a long task id
    verdict = f"task id {shown!r} matches no fixture"
    _, beside, findings = redact_row(_episode(task_id, "ok"), {"reasons": verdict}, SALT)
    assert token[:15] not in (beside["reasons"] or "")
    # the table's head before the ellipsis (``truncated``), or the head read alone as a cut value
    # of a known format (``cut``, :mod:`.cut_values`)
    assert any(f.detector in ("truncated", "cut") for f in findings)


PIECE_TOKEN = "sk_live_" + "Vb7nQ2wE9rT4yU6iO1pA3sD5fG8hJ0kL2zX4cV6b"


@pytest.mark.parametrize(
    ("shown", "piece"),
    [
        (f"using key {PIECE_TOKEN[:18]}********{PIECE_TOKEN[-4:]}", PIECE_TOKEN[:18]),
        (f"INFO auth: token prefix={PIECE_TOKEN[:16]} len=48", PIECE_TOKEN[:16]),
        (f"$ grep -rn '{PIECE_TOKEN[:14]}' src/", PIECE_TOKEN[:14]),
        (f"$ echo $TOKEN | cut -c1-20\n{PIECE_TOKEN[:20]}", PIECE_TOKEN[:20]),
        (f"the key ending in {PIECE_TOKEN[-13:]} was revoked", PIECE_TOKEN[-13:]),
    ],
)
def test_a_piece_of_a_replaced_token_is_replaced_without_an_ellipsis(shown: str, piece: str) -> None:
    out, _ = redact_text(f"export API_TOKEN={PIECE_TOKEN}\n{shown}", SALT)
    assert piece[:12] not in out and piece[-12:] not in out, out


def test_a_tail_of_a_token_in_a_later_event_is_replaced() -> None:
    episode = _episode("t", f"export API_TOKEN={PIECE_TOKEN}")
    later = Event(kind="assistant", content=f"Using the key ending in {PIECE_TOKEN[-14:]} now.")
    corpus_episode, _ = redact_episode(dataclasses.replace(episode, events=[*episode.events, later]), SALT)
    assert PIECE_TOKEN[-14:] not in (corpus_episode.events[-1].content or "")


def test_words_and_digests_beside_a_replaced_token_stay() -> None:
    honest = "super-secret-value deploy 20261206 README.md"
    out, _ = redact_text(f"export API_TOKEN={PIECE_TOKEN}\n{honest}", SALT)
    assert out.endswith(honest)


def test_a_value_with_spaces_is_replaced_where_feedback_echoes_it():
    value = "Plum 47 Orbit"
    episode = _episode("t", f'settings.py:\nADMIN_PASSWORD = "{value}"\n')
    corpus_episode, _ = redact_episode(episode, SALT)
    assert value not in corpus_episode.events[0].content
    note = FeedbackRecord(
        episode_id="e1",
        kind="edit",
        turn_index=None,
        rating=None,
        timestamp=None,
        source_file="fb.jsonl",
        source_line=1,
        edit_diff=f"--- a/README\n+++ b/README\n@@ -0,0 +1 @@\n+the admin login was {value} until today\n",
    )
    _, records, _ = redact_feedback(corpus_episode, [note], SALT)
    assert value not in (records[0].edit_diff or "")


@pytest.mark.parametrize(
    "command",
    [
        "smbclient //nas/backup -U 'ops'%'{pw}' -c 'ls'",
        "smbclient -L nas -Uops%{pw}",
        'rpcclient --user="LAB\\\\ops%{pw}" nas',
        "net rpc group members Admins --username ops%'{pw}' -S nas",
    ],
)
def test_a_samba_user_percent_password_is_replaced_in_every_spelling(command: str) -> None:
    """``-U``, attached or spaced, ``--user=``/``--username``, the pair quoted whole or the password
    alone (red team, round 12)."""
    assert PW not in redact_text(command.format(pw=PW), SALT, shell=True)[0]


@pytest.mark.parametrize(
    "command",
    [
        "wmiexec.py LAB/ops:{pw}@nas.lab.example 'hostname'",
        "psexec.py 'LAB\\\\ops:{pw}'@203.0.113.9",
        "ALL_PROXY=ops:{pw}@gw.lab.example:1080 apt-get update",
    ],
)
def test_user_and_password_before_a_host_with_no_scheme_are_replaced(command: str) -> None:
    """Impacket's ``domain/user:password@target`` and a proxy's ``user:password@host:port``."""
    assert PW not in redact_text(command.format(pw=PW), SALT, shell=True)[0]


@pytest.mark.parametrize(
    "line",
    [
        "date -u +%Y-%m-%dT%H:%M:%S",
        "TZ=UTC date -u '+%H:%M:%S'",
        "docker pull python:3.12-slim@sha256:" + "ab" * 32,
        "xdg-open mailto:ops@example.org",
        "smbclient //nas/backup -U ops -c 'get %s'",
        "git clone git@github.com:lab/tools.git",
    ],
)
def test_words_shaped_like_those_pairs_are_kept(line: str) -> None:
    assert redact_text(line, SALT, shell=True)[0] == line
