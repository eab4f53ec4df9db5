"""Detection by class: each secret class is found from its structure, with vectors written here
(not taken from any labelled corpus), and its look-alikes in code, ids and prose are kept."""

from __future__ import annotations

import json

import pytest

from trajectory_platform.curation.redact import redact_episode, redact_text
from trajectory_platform.curation.redact.detectors import find_punctuated_secrets
from trajectory_platform.curation.redact.leak import (
    FIELD_CLASS_CANARIES,
    SPLIT_FORM,
    episode_forms,
    make_canaries,
    measure_episode_leak,
)
from trajectory_platform.traces.record import Episode, Event, ToolCall, canonical_json

SALT = b"classes-salt!!!!"
HEX_40 = "8b0e7153bf7c3706d85c524e440066559a6656c9"
HEX_32 = "0bd5482a90a29b9fa5ff5180bc0dbc0e"
SHORT_LAST_LINE_KEY = (
    "-----BEGIN PRIVATE KEY-----\n"
    "MIIBVQIBADANBgkqhkiG9w0BAQEFAASCAT8wggE7AgEAAkEAq7BFUpkGp3+LQmlQ\n"
    "Yx2eqzDV+xeG8kx/sQFV18S5JhzGeIJNA72wSeukEDojtqp1R0zXqsrnVIR9xEOd\n"
    "AKEA3mGnmLGJ\n"
    "-----END PRIVATE KEY-----"
)

FOUND = {
    "prefix_hex_in_prose": (f"use token zed_{HEX_40} for the deploy", f"zed_{HEX_40}"),
    "prefix_hex_two_segments": (f"export X=acme-live-{HEX_32}", HEX_32),
    "prefix_hex_upper": (f"key ABC_{HEX_32.upper()} here", HEX_32.upper()),
    "pem_short_last_line": (SHORT_LAST_LINE_KEY, "AKEA3mGnmLGJ"),
    "pem_short_last_line_in_code": (
        'key = ("-----BEGIN RSA PRIVATE KEY-----\\n"\n  "MIIBOgIBAAJBAKj34GkxFhD90vcNLYLInFEX6Ppy\\n"\n'
        '  "Zk9xQ\\n"\n  "-----END RSA PRIVATE KEY-----")',
        "Zk9xQ",
    ),
    "salt_plain_word": ("PASSWORD_SALT: qwmzrtkvbn", "qwmzrtkvbn"),
    "key_with_slashes": (
        "aws_secret_access_key = wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY",
        "bPxRfiCYEXAMPLEKEY",
    ),
    "dotted_key": ('api_key: "sk.live.Zx9kQ2mL7vN3pR8s"', "Zx9kQ2mL7vN3pR8s"),
    "hash_in_a_query_password": ("POST /api/session?user=ops&pwd=Xy3#R!k9Lm2@vZ8pQ4", "R!k9Lm2@vZ8pQ4"),
    "key_searched_in_history": (f"git log -S {HEX_40} -- .env", HEX_40),
    "hex_token_as_a_urls_user": (f"git clone https://{HEX_40}@github.com/acme/private.git", HEX_40),
    "url_without_a_user": ("REDIS_URL=redis://:Tr1cky-Walrus-2024@cache:6379/0", "Tr1cky-Walrus-2024"),
    "mysql_single_quoted": ("mysql -u root -p'Tr1cky Walrus 2024' app", "Tr1cky Walrus 2024"),
    "mysql_double_quoted": ('mysqldump -p"Tr1cky-Walrus-2024" app', "Tr1cky-Walrus-2024"),
    "salt_php": ("$salt = 'Ty7!kL0p';", "Ty7!kL0p"),
    "lowercase_password_unquoted": ("password=correcthorsebatterystaple", "correcthorsebatterystaple"),
    "lowercase_password_yaml": ("db_password: veryverylongsecret", "veryverylongsecret"),
    "prose_is": ("The admin password is hunter2!", "hunter2"),
    "prose_for_account": ("the password for root is Zq9mPx41", "Zq9mPx41"),
    "prose_was_colon": ("my password was: trustno1", "trustno1"),
    "prose_lowercase_word": ("The wifi password is swordfish.", "swordfish"),
    "uk_landline": ("call +44 20 7946 0958 today", "7946 0958"),
    "uk_national": ("phone: 020 7946 0958", "7946 0958"),
    "uk_mobile": ("mobile 07700 900123", "07700 900123"),
    "e164_compact": ("Tel: +447700900123", "7700900123"),
    "setter": ('conn.setPassword("Xk29fjQpLm");', "Xk29fjQpLm"),
    "builder": ('builder.withApiKey("a8Fk29Qm3LpZ0xYt7Wv2").build()', "a8Fk29Qm3LpZ0xYt7Wv2"),
    "map_put": ('props.put("password", "Tr0ub4dor");', "Tr0ub4dor"),
    "getenv_default": ('os.environ.get("DB_PASSWORD", "pgpass123")', "pgpass123"),
    "postman_variable": ('{"key": "password", "value": "Pm4nPass!", "type": "text"}', "Pm4nPass!"),
    "app_settings": ('<add key="Password" value="Qw3rty!23"/>', "Qw3rty!23"),
    "dockerfile_env": ("ENV MYSQL_ROOT_PASSWORD rootpw2024", "rootpw2024"),
    "nonce": ('nonce = "c2a8f9e1b7d3"', "c2a8f9e1b7d3"),
    "redis_cli": ("redis-cli -a R3disPass ping", "R3disPass"),
    "sqlcmd": ("sqlcmd -S srv -U sa -P SqlP4ss!", "SqlP4ss!"),
    "ldapsearch": ("ldapsearch -x -D cn=admin -w LdapPw99 -b dc=x", "LdapPw99"),
    "docker_login": ("$ docker login -u bot -p dckrPw77 registry.example.com", "dckrPw77"),
    "smbclient": ("smbclient //srv/share -U user%SmbPass1", "SmbPass1"),
    "htpasswd": ("htpasswd -b .htpasswd admin Htp4ssw0rd", "Htp4ssw0rd"),
    "net_user": ("net user admin Wind0wsPw! /add", "Wind0wsPw!"),
    "chpasswd": ("echo 'deploy:Chp4sswd9' | sudo chpasswd", "Chp4sswd9"),
    "openssl_pass": ("openssl rsa -in k.pem -passin pass:Ss1Phrase", "Ss1Phrase"),
    "korean_prose": ("아이디 admin 비번 qwer1234", "qwer1234"),
    "token_in_prose": (
        "page2 token is ce49dba1-e4fe-b2a7-4ffa-132bcd819474",
        "ce49dba1-e4fe-b2a7-4ffa-132bcd819474",
    ),
    "key_in_prose": ("the shipping key is Qm7rTx2pLw9vKc4h", "Qm7rTx2pLw9vKc4h"),
    "bearer_with_inner_equals": (
        "curl -H 'Authorization: Bearer q8=Zr2vLm9=Kt4wXp7nB' https://api.example.com",
        "q8=Zr2vLm9=Kt4wXp7nB",
    ),
    "totp_seed_16": ("2FA seed:\n47XOOYK66NPTBZE3\n", "47XOOYK66NPTBZE3"),
    "totp_seed_32": ("backup JAXBLSXHKADSAHQSMF5Q73NH4FSHPFX7", "JAXBLSXHKADSAHQSMF5Q73NH4FSHPFX7"),
    "password_tail_is_not_an_email": ("postgres://svc:ybbMR1x#4dJ@db.internal:5432/app", "ybbMR1x"),
    "generated_password_bare": ("Generated: k7#Qz!pW2m@Xr9$Lc4^Vn", "k7#Qz!pW2m@Xr9$Lc4^Vn"),
    "generated_password_pwgen": ("$ pwgen -sy 20 1\nmer%BH3M1^X-S$=0DRdJuP", "mer%BH3M1^X-S$=0DRdJuP"),
    "generated_password_in_json": (
        '{"result": "cL21pffW?Q@J^EeNajn$ez0LHtf"}',
        "cL21pffW?Q@J^EeNajn$ez0LHtf",
    ),
}

KEPT = {
    "commit_checked_out": f"git checkout {HEX_40} && git bisect bad {HEX_40}",
    "commits_compared": f"git -C repo diff {HEX_40} {HEX_32}",
    "ssh_host_key_fingerprint": "key fingerprint is SHA256:uNiVztksCsDhcc0u9e8BujQXVUpKZIDTMczCvj3tD2s",
    "gpg_key_fetched": "gpg --keyserver hkps://keys.openpgp.org --recv-keys 3B4FE6ACC0B21F32",
    "s3_object_key": '{"Contents": [{"Key": "data/2024/01/sales_q1.csv", "Size": 12}]}',
    "cache_key": "cache_key = 'user:1234:profile:v2'",
    "message_key": 'translation_key: "auth.login.error_401"',
    "react_key": '<Item key="item-42-b" />',
    "slug_ending_in_a_hash": "read it at https://blog.example.com/@dana/my-post-title-8f3a2b1c9d4e",
    "fuzzer_crash_file": f"./fuzz_parser crash-{HEX_40}",
    "model_under_a_vendor_name": "OPENAI_MODEL=gpt-4o-2024-08-06\nANTHROPIC_MODEL=claude-3-5-sonnet-20241022",
    "aws_tag_named_after_auth": '{"Key": "AuthTeam", "Value": "Platform-2025"}',
    "postgres_setting": "password_encryption = scram-sha-256",
    "go_test_output": "--- PASS: TestTokenRefresh (0.02s)\nPASS: test_refresh_token_rotation",
    "keyword_argument_in_a_call": "client = Client(\n    USER=db_user,\n    PASSWORD=user_password\n)",
    "aws_key_pair_name": "KEY_PAIR=my-keypair-2024",
    "md5_in_a_file_name": f"strings flash_{HEX_32}.img | grep flag",
    "id_flag_value": f"aws glue get-job-run --run-id jr_{HEX_40}{HEX_32[:24]}",
    "camel_id_key": f'"JobRunId": "jr_{HEX_40}"',
    "digest_prefix": f"layer-{HEX_32} sha256-{HEX_40}",
    "request_id": f"req_{HEX_32}",
    "password_verdict": "The password is incorrect, please retry.",
    "password_hashed": "the password is hashed with bcrypt before it is stored",
    "password_type": "password: SecretStr = Field(...)",
    "shell_pwd": "pwd /home/runner/work",
    "hexdump": "00000000: 7f45 4c46 0201 0100 0000 0000 0000 0000  .ELF",
    "version_numbers": "version 0.12.3 build 012 345",
    "sql_words_in_prose": "messages identified by UID, libraries identified by four decimal values",
    "templated_connection_string": "git remote set-url origin https://oauth2:${GITLAB_TOKEN}@gitlab.com/x",
    "client_name_in_prose": "use zip to pack it; the -a flag of ls shows hidden files",
    "base32_alphabet": "_b32alphabet = b'ABCDEFGHIJKLMNOPQRSTUVWXYZ234567'",
    "arn_resource_id": "arn:aws:dms:us-east-1:123456789012:task:K55IUCGBASJS5VHZJIINA45FII",
    "uppercase_constant": "HTTP2_PROTOCOL_ERROR MAX_RETRIES_EXCEEDED",
    "vendor_prefixed_file_names": "torch/_inductor/__pycache__/ops_handler.cpython-311.pyc,,\n"
    "hf_xet-1.8.0.dist-info/RECORD,,\nhf_storage_reader = load()",
    "key_verdict_in_prose": "The key is to retry later; the key is missing or the key is 42.",
    "key_names_in_prose": "the primary key is user_id and the sort key is created_at",
    "bearer_placeholder": 'curl -H "Authorization: Bearer $GITHUB_TOKEN" https://api.github.com/user',
    "pem_header_words": "Proc-Type: 4,ENCRYPTED\nDEK-Info: AES-128-CBC,ABCD",
}


@pytest.mark.parametrize("case", sorted(FOUND))
def test_each_class_is_found_by_its_structure(case):
    text, secret = FOUND[case]
    redacted, findings = redact_text(text, SALT)
    assert secret not in redacted and findings


PUNCTUATED_LOOK_ALIKES = {
    "arithmetic": "w = -4*A**3*etaval/E1 + numrows*numcols*_LOG_2PI - 2*EulerGamma*I*pi",
    "glob_path": "Resources/AWS::EC2::SpotFleet/Properties/LaunchSpecifications/*/BlockDeviceMappings/*/Ebs",
    "mail_encoded_word": "Subject: =?UTF-8?B?cHJvYmzDqG1lIGRlIG1hdHJpY2U=?=",
    "regular_expression": r're.compile(r"^(?P<host>[a-z0-9._~%!$&*+=-]+)@(?P<Port>\d{2,5})$")',
    "email_with_tag": "write to Jane.Doe+Billing2024@Example.com",
    "f2py_marker": "@__f2py_DOUBLE_STAR@ and @__f2py_QUOTES_1234@",
}
"""What the printable-alphabet detector leaves to others: one symbol repeated, encoded words,
code with brackets and quotes, e-mail addresses (all from 98 MB of installed Python)."""


@pytest.mark.parametrize("case", sorted(PUNCTUATED_LOOK_ALIKES))
def test_printable_random_tokens_are_not_arithmetic_globs_or_code(case):
    assert list(find_punctuated_secrets(PUNCTUATED_LOOK_ALIKES[case])) == []


@pytest.mark.parametrize("case", sorted(KEPT))
def test_look_alikes_are_kept(case):
    assert redact_text(KEPT[case], SALT)[0] == KEPT[case]


def _conversation(*contents: str) -> Episode:
    events = [Event(kind="user" if i % 2 == 0 else "assistant", content=c) for i, c in enumerate(contents)]
    return Episode(
        episode_id="ep-split",
        source_format="native",
        source_file="f",
        source_line=1,
        source_path=None,
        partition_date=None,
        events=events,
    )


def test_a_secret_split_across_two_messages_loses_both_halves():
    key = "AKIAQWADE5R42RDZ4JEM"
    episode = _conversation("Here is the key: AKIAQWADE5", "R42RDZ4JEM and that is all.", "thanks")
    redacted, findings = redact_episode(episode, SALT)
    text = canonical_json(redacted.to_dict())
    assert "AKIAQWADE5" not in text and "R42RDZ4JEM" not in text and key not in text
    assert {f.field for f in findings if f.detector.endswith("+split")} == {
        "events[0].content",
        "events[1].content",
    }


@pytest.mark.parametrize(
    ("ending", "secret"),
    [
        ("Set DB_PASSWORD=Xk9mQ2vL8pR4wT", "Xk9mQ2vL8pR4wT"),
        ("token ghp_Q7xK2mN9pL4vR8sT3wY6zA1bC5dE0fG2hJ4k", "ghp_Q7xK2mN9pL4vR8sT3wY6zA1bC5dE0fG2hJ4k"),
        ("the secret is 8b0e7153bf7c3706d85c524e440066559a6656c9", HEX_40),
        ("Noting it: ghp_Q7xK2mN9pL4vR8sT3wY6zA1bC5dE0fG2hJ4k.", "ghp_Q7xK2mN9pL4vR8sT3wY6zA1bC5dE0fG2hJ4k"),
    ],
)
@pytest.mark.parametrize(
    "following",
    [
        "export PATH=/usr/bin\nexport HOME=/root",
        "tests/test_merge.py::test_deep_merge PASSED",
        "Running tests now",
        "HTTP/1.1 200 OK",
        "2024-05-01 12:00:01 done",
        "pnpm install && pnpm test",
    ],
)
def test_a_secret_a_message_ends_with_leaves_the_next_message_alone(ending: str, secret: str, following: str):
    """A pattern running on over the join (``Xk9mQ2vL8pR4wTexport``) once made the next message's
    first word a "split half", replaced in every message of the episode."""
    episode = _conversation(ending, following, following)
    redacted, findings = redact_episode(episode, SALT)
    assert secret not in canonical_json(redacted.to_dict())
    assert [event.content for event in redacted.events[1:]] == [following, following]
    assert not [f for f in findings if f.detector.endswith("+split")]


@pytest.mark.parametrize(
    ("ending", "starting"),
    [
        ('api_secret = "TthHbtfbNTwBAXzY/PHW', 'AHG7IBd0ks3GjueaOB2E"'),
        ('client_secret = "Rk2vQ9xLm4TzW8pN/Abe', 'Hq7Ys3Fd1Kc6Vn0Jx5Gt"'),
        ('api_key: "Wd3Nq8Lx5Rt1Zm7Kp/INFO', 'Bv6Hs2Jg9Cf4Ye0Ua3Xo"'),
        ('secret = "Gm5Tq1Wz8Nx3Lr6Kv/test', 'Pc2Hd7Js4Fb9Ya0Ue5Xi"'),
        ('password = "Hx7Kp2Wq9Lm4Zt6Nv/run', 'Yc3Fd8Js1Gb5Ra0Ue6Xo"'),
    ],
)
def test_a_split_base64_key_whose_last_piece_looks_like_a_word_loses_both_halves(ending: str, starting: str):
    """The run at the join was read alone: ``PHW`` after a ``/`` looked like an acronym, so the
    first half of a key split across messages stayed while the second was redacted."""
    episode = _conversation(ending, starting, "thanks")
    text = canonical_json(redact_episode(episode, SALT)[0].to_dict())
    first, second = ending.split()[-1].strip('"'), starting.split()[0].strip('"')
    assert first[-12:] not in text and second not in text


def test_a_split_secret_whose_head_reads_whole_still_loses_its_random_tail():
    episode = _conversation("password: Xk9mQ2vL8p", "R4wTq7Zc and that is all.", "thanks")
    text = canonical_json(redact_episode(episode, SALT)[0].to_dict())
    assert "Xk9mQ2vL8p" not in text and "R4wTq7Zc" not in text


def test_a_split_secret_whose_tail_starts_a_longer_finding_still_loses_its_head():
    """The second message alone finds a longer run starting with the tail (an entropy finding
    over ``tail@host:port/db``): that is not the tail shown whole, so the head still goes (a leak
    canary's first half survived when any finding at the message's start counted)."""
    episode = _conversation("DATABASE_URL=postgres://svc:ddqvczf", "O8a#yqT@db.internal:5432/app", "thanks")
    text = canonical_json(redact_episode(episode, SALT)[0].to_dict())
    assert "ddqvczf" not in text and "O8a#yqT" not in text


STREAMED_PIECES = {
    "value_over_three": ["export DB_PASSWORD=maple", "-145-", "Stone"],
    "label_split": ["export DB_P", "ASSWORD=HarborTiger737"],
    "label_and_value_over_four": ["--p", "assword Meado", "w#Ri", "ver4156"],
    "spaced_label": ["password: ", "Harbor", "91007", "!x"],
}
"""A stream logged chunk by chunk: one event per delta, the label or the value cut anywhere."""


def _streamed(field: str, pieces: list[str]) -> list[Event]:
    if field == "content":
        return [Event(kind="assistant", content=piece) for piece in pieces]
    if field == "reasoning":
        return [Event(kind="assistant", content="", reasoning=piece) for piece in pieces]
    return [
        Event(
            kind="assistant",
            content="",
            tool_calls=[ToolCall(id=f"c{i}", name="bash", arguments=json.dumps({"command": p}))],
        )
        for i, p in enumerate(pieces)
    ]


@pytest.mark.parametrize("field", ["content", "reasoning", "arguments"])
@pytest.mark.parametrize("case", sorted(STREAMED_PIECES))
def test_a_value_streamed_over_up_to_four_events_loses_every_piece(field: str, case: str):
    """Only adjacent pairs of ``content`` were joined: a value over 3-4 events kept its outer
    pieces, and reasoning or tool-call arguments cut the same way kept all of them (red team)."""
    pieces = STREAMED_PIECES[case]
    episode = _conversation()
    episode.events = _streamed(field, pieces)
    redacted, findings = redact_episode(episode, SALT)
    text = canonical_json(redacted.to_dict())
    value = "".join(pieces).split("=")[-1].split()[-1]
    assert not [value[i : i + 5] for i in range(len(value) - 4) if value[i : i + 5] in text], text
    split = [f for f in findings if f.detector.endswith("+split")]
    assert split
    for finding in split:  # each piece's part points at itself in its own field
        index = int(finding.field.split("[")[1].split("]")[0])
        assert pieces[index][finding.start : finding.end] == finding.value


def test_adjacent_messages_that_merely_touch_are_kept():
    episode = _conversation("The build passed", "Great, merging now", "thanks")
    assert redact_episode(episode, SALT)[0].events == episode.events


def test_lambda_leak_plants_split_canaries_and_catches_them():
    episode = _conversation(*(f"message {i}" for i in range(9)))
    episode.episode_id = next(f"ep-{i}" for i in range(50) if SPLIT_FORM in episode_forms(f"ep-{i}"))
    report = measure_episode_leak(episode, SALT)
    assert report.injected == len(make_canaries(episode.episode_id)) * 4 + len(FIELD_CLASS_CANARIES)
    assert report.leaked == 0, report.leaked_by_kind


PUNCTUATED_VALUE = "E?#qV8=ib8H@Dy8#@8YtDt*Xbiu?fMdI8X2Y"


@pytest.mark.parametrize(
    ("line", "kept"),
    [
        (f"export DB_PASSWORD={PUNCTUATED_VALUE}", "export DB_PASSWORD="),
        (f"@@ -1 +1 @@\n-DB_PASSWORD=old\n+DB_PASSWORD={PUNCTUATED_VALUE}\n", "\n+DB_PASSWORD="),
        (
            f"kubectl create secret generic s --from-literal=API_TOKEN={PUNCTUATED_VALUE}",
            "--from-literal=API_TOKEN=",
        ),
    ],
    ids=["export", "diff_line", "flag_and_name"],
)
def test_a_random_printable_value_loses_its_value_not_its_name(line: str, kept: str):
    """The printable-alphabet detector once took ``export NAME=`` or a diff's ``+`` into the token:
    the command or the patch no longer worked (red team)."""
    redacted = redact_text(line, SALT)[0]
    assert PUNCTUATED_VALUE not in redacted and kept in redacted, redacted


@pytest.mark.parametrize("password", ["RedisCache", "example123"])
def test_a_password_shaped_like_an_identifier_is_not_replaced_in_code(password: str):
    """``REDIS_PASSWORD=RedisCache`` turned ``from cache import RedisCache`` into a pseudonym, and
    ``example123`` the database and dump file of the same name (red team)."""
    episode = _conversation(
        f"REDIS_PASSWORD={password}", f"from cache import {password}\nMYSQL_DATABASE={password}", "thanks"
    )
    redacted = redact_episode(episode, SALT)[0]
    assert password not in redacted.events[0].content
    assert redacted.events[1].content == episode.events[1].content


@pytest.mark.parametrize(
    "request_line",
    [
        "curl 'https://api.example.com/v1/data?api_key=Zx9kQ2mL7vN3pR8sK1wT4yB6&page=2&sort=asc'",
        "GET /v1/search?token=B0cJV4aX7nZyKOPPA0vGfjaHhWtB5Q&q=shoes&limit=20 HTTP/1.1",
    ],
)
def test_a_query_parameters_value_ends_at_the_next_parameter(request_line: str):
    """The value once ran on over ``&page=2&sort=asc``, and the request lost its arguments."""
    redacted = redact_text(request_line, SALT)[0]
    assert "Zx9kQ2mL7vN3pR8sK1wT4yB6" not in redacted and "B0cJV4aX7nZyKOPPA0vGfjaHhWtB5Q" not in redacted
    assert "&page=2&sort=asc" in redacted or "&q=shoes&limit=20" in redacted, redacted


def test_base64_of_a_sentence_is_a_fixture_not_a_key():
    """``base64.b64decode("VGhlIHF1aWNr...")`` in a test lost its fixture to a pseudonym, and the code
    no longer ran (red team); a sentence that carries a credential is still found."""
    import base64

    fixture = base64.b64encode(b"The quick brown fox jumps over the lazy dog").decode()
    line = f'data = base64.b64decode("{fixture}")'
    assert redact_text(line, SALT)[0] == line
    carrying = base64.b64encode(b"login with password: Tr1cky-Walrus-2024 please").decode()
    assert carrying not in redact_text(f'payload = "{carrying}"', SALT)[0]


@pytest.mark.parametrize(
    "log",
    [
        "$ echo VHIxY2t5LVdhbHJ1cy0yMDI0 | base64 -d\nTr1cky-Walrus-2024\n",
        '$ kubectl get secret db -o jsonpath="{.data.password}" | base64 -d\nTr1cky-Walrus-2024\n',
    ],
    ids=["decoded_after_a_found_value", "decoded_field_of_a_secret"],
)
def test_a_secret_decoded_on_the_next_line_is_replaced_too(log: str):
    """The base64 was redacted, the password ``base64 -d`` printed under it was not (red team)."""
    assert "Tr1cky-Walrus-2024" not in redact_text(log, SALT)[0]


@pytest.mark.parametrize(
    ("entry", "value"),
    [
        ("POSTGRES_PASSWORD=compose_pw_value\nPOSTGRES_USER=app\n", "compose_pw_value"),
        ("  DJANGO_SECRET_KEY: super_secret_dev_key_do_not_share\n", "super_secret_dev_key_do_not_share"),
    ],
)
def test_an_env_entrys_snake_case_value_is_a_literal(entry: str, value: str):
    assert value not in redact_text(entry, SALT)[0]


@pytest.mark.parametrize(
    "code",
    ["password = user_password", "f(password=new_password)", "    TEST_DATA_KEY: TEST_DATA_BASE64,"],
)
def test_code_that_names_a_variable_keeps_it(code: str):
    assert redact_text(code, SALT)[0] == code


def test_a_decoded_secret_that_names_something_is_not_replaced_everywhere():
    """A Secret's ``database: b64(orders_production)`` once rewrote every ``psql orders_production``
    of the episode (red team): a decoded value that reads as a name stays where it is named."""
    import base64

    encoded = base64.b64encode(b"orders_production").decode()
    episode = _conversation(
        f"kind: Secret\ndata:\n  database: {encoded}\n", "psql orders_production -c 'select 1'", "thanks"
    )
    redacted = redact_episode(episode, SALT)[0]
    assert encoded not in redacted.events[0].content
    assert redacted.events[1].content == episode.events[1].content
