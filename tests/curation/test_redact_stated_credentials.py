"""Credentials stated the way people and agents write them, not as ``name=value``: in prose (any
language), in Markdown, printed alone by a command that names them, re-encoded after they were
shown; and the ordinary output that must come back unchanged. Values here are made up for these
tests; none is in the red team's repros (held out from the rules' development)."""

from __future__ import annotations

import base64
import datetime as dt
import json
import time
import urllib.parse

import pytest

from trajectory_platform.curation.redact import redact_episode, redact_text
from trajectory_platform.traces.record import Episode, Event, Outcome, TaskIdentity, ToolCall

SALT = b"stated-credentials"
WORDY = "Orchid-Pylon-6614"
RANDOM = "vX3qTn8LwZ2p"


def _redacted(text: str) -> str:
    return redact_text(text, SALT)[0]


@pytest.mark.parametrize(
    "text",
    [
        "I reset the staging password to {v} this morning",
        "please type {v} as your passphrase",
        "root password → {v}",
        "Password – {v}",
        "Wi-Fi key (guest network): {v}",
        "user deploy pass {v}",
        "signed in as deploy using {v}",
        "The PIN for the vault door is {v}",
    ],
)
def test_english_statements_of_a_password(text: str) -> None:
    assert WORDY not in _redacted(text.format(v=WORDY))


@pytest.mark.parametrize(
    "text",
    [
        "Das Kennwort lautet {v}",
        "Votre mot de passe : {v}",
        "La contraseña es {v}",
        "Hasło: {v}",
        "Şifre = {v}",
        "Пароль — {v}",
        "新的密码为{v}",
        "パスワードは{v}です",
        "비밀번호: {v}",
        "Lösenord: {v}",
        "סיסמה: {v}",
    ],
)
def test_labels_and_prose_in_other_languages(text: str) -> None:
    assert WORDY not in _redacted(text.format(v=WORDY))


@pytest.mark.parametrize("key", ["contraseña", "пароль", "db_passwort"])
def test_a_json_key_written_with_unicode_escapes_still_labels_its_value(key: str) -> None:
    document = json.dumps({key: WORDY, "host": "db"})  # ensure_ascii: the key is \u-escaped
    out = _redacted(document)
    assert WORDY not in out and json.loads(out)["host"] == "db"


@pytest.mark.parametrize(
    "text",
    [
        "- **Admin password:** `{v}`",
        "**SMTP_PASSWORD**: {v}",
        "`api_token`: `{v}`",
        "<strong>Password:</strong> {v}",
        "Change `REDIS_PASSWORD` to `{v}` before deploying",
        "> __Passphrase:__ {v}",
        "Root password:\n```\n{v}\n```",
    ],
)
def test_markdown_marks_between_label_and_value(text: str) -> None:
    assert WORDY not in _redacted(text.format(v=WORDY))


def _one_call(command: str, output: str) -> Episode:
    return Episode(
        episode_id="e",
        source_format="native",
        source_file="f",
        source_line=1,
        source_path=None,
        partition_date=dt.date(2026, 1, 1),
        task=TaskIdentity(prompt="p", license="MIT"),
        events=[
            Event(
                kind="assistant",
                content="",
                tool_calls=[ToolCall(id="c1", name="bash", arguments=json.dumps({"command": command}))],
            ),
            Event(kind="tool", content=output, tool_call_id="c1", tool_name="bash", status="ok"),
        ],
        outcome=Outcome(terminal_status="completed"),
    )


def _printed(command: str, output: str) -> str:
    redacted, _ = redact_episode(_one_call(command, output), SALT)
    return redacted.events[1].content


@pytest.mark.parametrize(
    "command",
    [
        'echo "${SENDGRID_SECRET}"',
        "printenv MINIO_ROOT_PASSWORD",
        "node -e 'console.log(process.env.SESSION_SECRET)'",
        "cat /var/run/secrets/smtp_password",
        "yq e '.database.passwd' values.yaml",
        "terraform output -raw grafana_admin_password",
        "grep ^RABBITMQ_PASS= .env | cut -d= -f2",
        "kubectl exec -it web-0 -- printenv API_TOKEN",
    ],
)
def test_a_command_that_reads_a_credential_by_name_prints_it(command: str) -> None:
    assert WORDY not in _printed(command, WORDY)  # no trailing newline: the framework stripped it


@pytest.mark.parametrize(
    ("command", "output"),
    [
        ("grep -l token src/*.py", "src/auth_client.py"),
        ("which passwd", "/usr/bin/passwd"),
        ("echo $API_KEY | wc -c", "41"),
        ('curl -s -H "Authorization: Bearer $TOKEN" https://api.example.com/me', '{"id":42,"name":"bob"}'),
        ('[ -n "$DB_PASSWORD" ] && echo present', "present"),
    ],
)
def test_what_a_search_or_a_check_prints_is_kept(command: str, output: str) -> None:
    assert _printed(command, output) == output


def test_a_hex_key_that_ends_the_text_is_no_digest() -> None:
    key = "5e0c9a7d1f3b8e26a4c0d9f7b1e3a5c8"
    assert key not in _redacted(f"$ openssl rand -hex 16\n{key}")
    assert key not in _redacted(key)
    listing = f"{key}  release.tar.gz"  # sha256sum's layout: a name follows on the line
    assert _redacted(listing) == listing


@pytest.mark.parametrize(
    "encode",
    [
        lambda v: base64.b64encode(v.encode()).decode(),
        lambda v: base64.b64encode((v + "\n").encode()).decode(),
        lambda v: urllib.parse.quote(v, safe=""),
        lambda v: v.encode().hex(),
        str.upper,
        lambda v: v[::-1],
    ],
)
def test_a_labelled_password_is_replaced_where_it_recurs_encoded(encode) -> None:
    value = "Tulip#Gorge$4821"
    out = _redacted(f"export ADMIN_PASSWORD='{value}'\n$ ./publish.sh\n{encode(value)}\n")
    assert value not in out and encode(value) not in out


@pytest.mark.parametrize(
    "name",
    [
        "APP_PIN",
        "WIFI_PSK",
        "SVC_CREDS",
        "SIGNING_HMAC",
        "KMS_KEK",
        "RAILS_SECRET_KEY_BASE",
        "WALLET_MNEMONIC",
    ],
)
def test_credential_words_missing_from_the_vocabulary(name: str) -> None:
    assert RANDOM not in _redacted(f"{name}={RANDOM}!")


@pytest.mark.parametrize(
    "text",
    [
        "DEPLOYER_KEY=0x{k}",
        "forge create Token --private-key 0x{k}",
        '{{"signerPrivateKey": "0x{k}"}}',
    ],
)
def test_a_0x_prefixed_private_key_under_its_name(text: str) -> None:
    key = "4c0883a69102937d6231471b5dbb6204fe5129617082792ae468d01a3f362318"
    assert key not in _redacted(text.format(k=key))


@pytest.mark.parametrize(
    "text",
    [
        "kubeadm join 10.1.0.4:6443 --token {t} --discovery-token-unsafe-skip-ca-verification",
        "{t}",
        "    token: {t}",
    ],
)
def test_a_kubernetes_bootstrap_token(text: str) -> None:
    token = "q7x2mc.8rj4vz0kw1nd5h6t"
    assert token not in _redacted(text.format(t=token))


@pytest.mark.parametrize(
    "text",
    [
        'VAULT_UNSEAL_PASSPHRASE="lantern orbit saffron tundra 17"',
        '{{"passphrase": "cobalt meadow thistle walrus"}}',
        "<Password>velvet canyon pepper harbor</Password>",
    ],
)
def test_a_passphrase_of_four_or_more_words(text: str) -> None:
    out = _redacted(text.format())
    assert "orbit saffron" not in out and "meadow thistle" not in out and "canyon pepper" not in out


@pytest.mark.parametrize(
    "text",
    [
        "random_password.admin: Creation complete after 1s [id=none]",
        "aws_secretsmanager_secret.db_password: Still destroying... [10s elapsed]",
        "      ~ master_password = (sensitive value)",
        'password = "Password must be at least 12 characters long"',
        '{"sha": "9fceb02d0ae598e95dc970b74767f19372d61af8", "node_id": "C_kwDOAbc"}',
        'ETag: W/"5f1d3c9a8b7e6d4c2a1f0e9d8c7b6a54"',
        "Cache key: pip-cache-Linux-x64-3c8e1f2d9b7c6a5e4f3d2c1b0a9f8e7d6c5b4a3f2e1d0c9b8a7f6e5d4c3b2a1f0e",
        '{"UploadId": "VXBsb2FkIElEIGZvciA2aWWpbmcncyBteS1tb3ZpZS5tMnRzIHVwbG9hZA", "Bucket": "media"}',
        "digest = hashlib.sha1(data).hexdigest()  # 2fd4e1c67a2d28fced849ee1bb76e7391b93eb12",
        "Enter host password for user 'deploy': ",
        "Set the password to the one in the config",
        "send the password to the on-call engineer",
        "the pin is loose on the header",
        "Reset the password on host12 and retry",
        "Change the password to match the policy",
        "Try logging in as admin with sudo",
        "use token_v2 as the key",
        "sdl-freerdp3 /u:svc /v:rdp.example.com",
    ],
)
def test_ordinary_output_and_prose_come_back_unchanged(text: str) -> None:
    assert _redacted(text) == text


def _best_seconds(text: str) -> float:
    """The fastest of three scans of ``text`` in this process's CPU seconds: waiting for a core on a
    busy machine (the suite's other worker, other jobs) is not counted, which wall time would."""
    times = []
    for _ in range(3):
        started = time.process_time()
        assert _redacted(text) == text
        times.append(time.process_time() - started)
    return min(times)


@pytest.mark.parametrize("word", ["key", "密码"])
def test_a_run_of_repeated_credential_words_is_scanned_in_linear_time(word: str) -> None:
    """Each word used to be widened back over the whole run (48 kB of ``keykey...`` took 40 s).
    A ratio, not a time: four times the text costs about four times as long (sixteen if the
    scan were quadratic again), whatever the machine's load."""
    ratio = _best_seconds(word * 32000) / _best_seconds(word * 8000)
    assert ratio < 9, f"4x the text took {ratio:.1f}x as long"
