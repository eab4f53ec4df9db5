"""Pass 1-3 on single strings: formats, entropy per alphabet, PII, syntax-preserving pseudonyms."""

from __future__ import annotations

import base64
import hashlib
import hmac
import json
import re

import pytest
from detect_secrets.core.scan import scan_line
from detect_secrets.settings import default_settings

from trajectory_platform.curation.redact import RedactionConfig, redact_text
from trajectory_platform.curation.redact.entropy import entropy_threshold, looks_random, shannon_entropy

SALT = b"unit-salt"
PSEUDONYM = re.compile(r"<REDACTED_([A-Z_]+):([0-9a-f]{12})>")


def digest(value: str) -> str:
    return hmac.new(SALT, value.encode(), hashlib.sha256).hexdigest()[:12]


def test_seed_failure_trace_keeps_json_and_shell_structure():
    """The seed's step-04 example: the bearer token and the nested api_key are masked, JSON still parses."""
    token = "ghp_99AxL002KzQ891mB18vTq7RsWpYc3NdEf6Gh"
    record = {
        "tool_name": "execute_bash",
        "command": f"curl -H 'Authorization: Bearer {token}' https://api.internal.net/v1/keys",
        "stdout": json.dumps({"status": "success", "api_key": "sec_live_99814421bfae"}),
    }
    out, findings = redact_text(json.dumps(record), SALT)
    parsed = json.loads(out)
    assert token not in out and "sec_live_99814421bfae" not in out
    assert parsed["tool_name"] == "execute_bash"
    assert f"<REDACTED_GITHUB_TOKEN:{digest(token)}>" in parsed["command"]  # quoted: angle form
    assert parsed["command"].startswith("curl -H 'Authorization: Bearer <REDACTED_")
    assert json.loads(parsed["stdout"])["api_key"] == f"<REDACTED_SECRET:{digest('sec_live_99814421bfae')}>"
    assert {f.kind for f in findings} >= {"GITHUB_TOKEN", "SECRET"}


def test_bare_shell_word_gets_shell_safe_form_and_repeats_share_one_pseudonym():
    key = "AKIAIOSFODNN7EXAMPL3"
    out, _ = redact_text(f"export AWS_ACCESS_KEY_ID={key}; echo '{key}'", SALT, shell=True)
    assert (
        out
        == f"export AWS_ACCESS_KEY_ID=REDACTED_AWS_KEY_{digest(key)}; echo '<REDACTED_AWS_KEY:{digest(key)}>'"
    )


def test_digests_and_commit_ids_survive():
    text = (
        "commit 9356f54a3b2c1d0e9f8a7b6c5d4e3f2a1b0c9d8e\n"
        f"image sha256:{hashlib.sha256(b'x').hexdigest()}\n"
        f"blob {hashlib.md5(b'x').hexdigest()} uuid 123e4567-e89b-12d3-a456-426614174000\n"
        "short 9356f54 and the file /usr/lib/python3.11/site-packages/trajectory_platform/__init__.py"
    )
    out, findings = redact_text(text, SALT)
    assert out == text and findings == []


def test_every_id_of_a_list_of_commit_ids_survives_and_a_key_after_one_does_not():
    """A merge commit's parents on one line (``%P``, ``rev-list --parents``): the second was
    redacted, the first having its ``parent`` and a random hex run after it nothing."""
    first, second = hashlib.sha1(b"a").hexdigest(), hashlib.sha1(b"b").hexdigest()
    kept = f"parent {first} {second}\n$ git rev-list --parents -n 1 HEAD\n{first} {second} {first}\n"
    assert redact_text(kept, SALT) == (kept, [])
    out, _ = redact_text(f"token: {first} {second}\n", SALT)
    assert first not in out and second not in out


def test_a_long_list_of_ids_is_read_without_recursing_and_its_verdict_carries_to_the_last():
    """Thousands of space-separated numbers (a tool's output) made the list-of-ids walk recurse once
    per number: RecursionError, and the whole record dropped as nested too deep. Walked in a loop,
    the list is kept, and a list of commit ids still carries its first id's evidence to its last."""
    numbers = " ".join(str(10**39 + 7919 * i * i) for i in range(1500))
    assert redact_text(numbers, SALT) == (numbers, [])
    ids = " ".join(hashlib.sha1(str(i).encode()).hexdigest() for i in range(1500))
    listed = f"parent {ids}\n"
    assert redact_text(listed, SALT) == (listed, [])


@pytest.mark.parametrize(
    "text",
    [
        "aws secretsmanager get-secret-value --secret-id"
        " arn:aws:secretsmanager:us-east-1:123456789012:secret:prod/db-AbC123",
        '{"ARN": "arn:aws:secretsmanager:eu-west-1:123456789012:secret:api/token-Q1w2E3",'
        ' "Name": "api/token"}',
        "arn:aws:kms:us-east-1:123456789012:key/1a2b3c4d-5e6f-7a8b-9c0d-1e2f3a4b5c6d",
    ],
)
def test_an_arn_names_a_resource_whatever_its_segments_say(text: str):
    """``secret:`` inside an ARN is a resource type, not a label: the name after it was redacted
    and the command naming the secret no longer ran."""
    assert redact_text(text, SALT) == (text, [])


def test_entropy_thresholds_per_alphabet_and_length():
    # hex tops out at 4 bits/char: the 4.5 seed threshold would never fire, so hex has its own.
    assert entropy_threshold(48, "hex") < 4.0 < entropy_threshold(48, "base64")
    random_hex_key = "7f3a9c21be04d58e6a1f0c9b2d47e8a3f65c1b09d2e4a7c8"  # 48 hex: not a digest length
    assert shannon_entropy(random_hex_key) < 4.0 and looks_random(random_hex_key)
    # A 20-character window cannot reach 4.5 bits/char, yet a random 20-character key is caught.
    short_key = "Xq7LmP2vRt9KbN4wZs8J"
    assert shannon_entropy(short_key) < 4.5 and looks_random(short_key)
    identifiers = (
        "getUserAccountSettingsFromDatabase",
        "thisIsAVeryLongVariableName",
        "trajectory_platform_curation",
        "a" * 40,
    )
    for identifier in identifiers:
        assert not looks_random(identifier)


@pytest.mark.parametrize(
    ("text", "kind", "secret"),
    [
        (
            "github_pat_11ABCDEFG0abcdefghij_KLMNOPQRSTUVWXYZ0123456789abcdefghijklmnopqrstuv",
            "GITHUB_TOKEN",
            None,
        ),
        (
            "installation ghs_16C7e42F292c6912E7710c838347Ae178B4a",
            "GITHUB_TOKEN",
            "ghs_16C7e42F292c6912E7710c838347Ae178B4a",
        ),
        ("SLACK=xoxb-391809548274-4236212766789-i8EoyACELx2FYnSOkRPEpePN", "SLACK_TOKEN", None),
        ("stripe sk_live_4eC39HqLyjWDarjtT1zdp7dc", "STRIPE_KEY", "sk_live_4eC39HqLyjWDarjtT1zdp7dc"),
        (
            "OPENAI_API_KEY sk-proj-Ab3dEf6hIj9kLm2nOp5qRs8tUv",
            "OPENAI_KEY",
            "sk-proj-Ab3dEf6hIj9kLm2nOp5qRs8tUv",
        ),
        ("mongodb://admin:Tr0ub4dor&3@cluster0.example.net/db", "PASSWORD", "Tr0ub4dor&3"),
        ('headers = {"Authorization": "Basic dXNlcjpodW50ZXIy"}', "AUTH_HEADER", "dXNlcjpodW50ZXIy"),
        ("PGPASSWORD='cackle!' psql", "PASSWORD", "cackle!"),
    ],
)
def test_known_formats(text, kind, secret):
    out, findings = redact_text(text, SALT)
    value = secret or text.split()[-1].split("=")[-1]
    assert value not in out
    assert kind in {f.kind for f in findings}


def test_jwt_is_removed_with_its_signature_and_pem_with_its_body():
    jwt = (
        "eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJzdWIiOiIxMjM0NTY3ODkwIiwibmFtZSI6IkpvaG4ifQ"
        ".SflKxwRJSMeKKF2QT4fwpMeJf36POk6yJV_adQssw5c"
    )
    pem = (
        "-----BEGIN RSA PRIVATE KEY-----\n"
        "MIIBOgIBAAJBAKj34GkxFhD90vcNLYLInFEX6Ppy1tPf9Cnzj4p4WGeKLs1Pt8Qu\n"
        "KUpRKfFLfRYC9AIKjbJTWit+CqvjWYzvQwECAwEAAQ==\n"
        "-----END RSA PRIVATE KEY-----"
    )
    for text in (f"token={jwt} ok", json.dumps({"key": pem}), pem):
        out, _ = redact_text(text, SALT)
        for piece in [
            *jwt.split("."),
            "MIIBOgIBAAJBAKj34GkxFhD90vcNLYLInFEX6Ppy1tPf9",
            "CqvjWYzvQwECAwEAAQ==",
        ]:
            assert piece not in out
        if text.startswith("{"):
            json.loads(out)


def test_detect_secrets_traps_do_not_apply():
    """detect-secrets' `_id` heuristic hides a secret on a line with tool_call_id; ours does not."""
    secret = "AKIAQWADE5R42RDZ4JEM"
    line = json.dumps({"tool_call_id": "call_8fJk2LmN9pQrStUvWxYz0123", "content": f"aws key {secret}"})
    out, _ = redact_text(line, SALT)
    assert secret not in out and "call_8fJk2LmN9pQrStUvWxYz0123" in out  # the id itself is kept
    # detect-secrets' scan_line flags ordinary words; our pass leaves prose alone.
    prose = "The password field is required and the token expires after login."
    with default_settings():
        assert list(scan_line(prose))
    assert redact_text(prose, SALT)[1] == []


def test_pii_and_infrastructure():
    text = (
        "mail dana.k@acme.com or call +1 415-555-0142; db 10.2.3.4 and 172.20.0.9, public 8.8.8.8; "
        "ula fd12:3456:789a::1 vs 2001:db8::1; hosts build-7.corp and api.internal; /home/dkowalski/x "
        "/home/runner/work"
    )
    out, findings = redact_text(text, SALT)
    kinds = {f.value: f.kind for f in findings}
    assert kinds["dana.k@acme.com"] == "EMAIL" and kinds["+1 415-555-0142"] == "PHONE"
    assert kinds["10.2.3.4"] == kinds["172.20.0.9"] == kinds["fd12:3456:789a::1"] == "PRIVATE_IP"
    assert kinds["build-7.corp"] == kinds["api.internal"] == "INTERNAL_HOST"
    assert kinds["dkowalski"] == "USERNAME"
    assert "8.8.8.8" in out and "2001:db8::1" in out and "/home/runner/work" in out
    custom = RedactionConfig(internal_suffixes=("acme-int",))
    assert redact_text("see git.eu.acme-int now", SALT, custom)[1][0].kind == "INTERNAL_HOST"


def test_escaped_and_double_escaped_json_and_base64():
    secret = "ghp_" + "Zx9" * 12
    inner = json.dumps({"token": secret})
    double = json.dumps({"body": inner})
    for text in (double, f"log: {json.dumps(double)}", base64.b64encode(f"token {secret}".encode()).decode()):
        out, _ = redact_text(text, SALT)
        assert secret not in out
    json.loads(json.loads(redact_text(double, SALT)[0])["body"])


def test_idempotent_and_salt_never_printed():
    text = "password: Sup3r-S3cret! key AKIAQWADE5R42RDZ4JEM"
    once, _ = redact_text(text, SALT)
    twice, findings = redact_text(once, SALT)
    assert twice == once and findings == []
    assert SALT.decode() not in once
    assert PSEUDONYM.findall(once)
    other, _ = redact_text(text, b"another-salt")
    assert other != once  # keyed: a different salt gives different pseudonyms


def test_credential_names_are_whole_name_segments():
    """ "passengers", "tokenizer", "author" and "keywords" do not mark their values as credentials."""
    text = (
        "passengers: Amelia2 and tokenizer = 'gpt2-Large9X' author: Noah42Smith "
        "keywords=latest+iPhone+14&qid=1689009508 password = 'this is a sentence, not a password'"
    )
    assert redact_text(text, SALT)[1] == []
    found = redact_text("MYSQL_DATABASE_PASSWORD=Xy7-q; oauth_signature=Zq8Rt2LmW9sKp4Vb", SALT)[1]
    assert {f.value for f in found} == {"Xy7-q", "Zq8Rt2LmW9sKp4Vb"}


def test_gym_credentials_files_are_fully_redacted():
    """The gym plants realistic credentials files (AWS, GitHub, Stripe, internal host, private IP, e-mail)."""
    from trajectory_platform.gym.library import build_library

    planted = [f for f in build_library(0) if f.secret_files]
    assert planted
    for fixture in planted:
        text = fixture.s0_files[fixture.secret_files[0]]
        out, _ = redact_text(text, SALT, shell=False)
        leaked = [secret for secret in fixture.secrets if secret in out]
        assert not leaked, (fixture.fixture_id, leaked)


def test_detect_secrets_second_opinion_is_widened_to_the_whole_token():
    """Opt-in detect-secrets plugins: its truncated report of a long ghs_ token becomes the full span."""
    from detect_secrets.plugins.github_token import GitHubTokenDetector

    from trajectory_platform.curation.redact.detectors import find_with_detect_secrets

    token = "ghs_" + "A1b2C3d4E5" * 5
    line = f"use {token} now"
    reported = {s.secret_value for s in GitHubTokenDetector().analyze_line(filename="t", line=line)}
    assert reported and all(len(value) < len(token) for value in reported)  # the library truncates
    found = list(find_with_detect_secrets(f"x = 1\n{line}"))
    assert {f.value for f in found} == {token} and found[0].start == len("x = 1\n") + 4
    out, _ = redact_text(line, SALT, RedactionConfig(detect_secrets_plugins=True))
    assert "A1b2C3d4E5" not in out


def test_escaped_newline_before_a_decorator_is_not_an_email():
    """Raw JSON "\\n@unittest.skip" reads like n@unittest.skip: no finding, the record stays as it was."""
    source = "import unittest\n@unittest.skip('flaky')\ndef test(): pass\n"
    arguments = json.dumps({"path": "t.py", "text": source})
    out, findings = redact_text(arguments, SALT)
    assert findings == [] and out == arguments


def test_a_credential_labelled_as_personal_data_is_still_placed_before_shorter_credentials():
    """An encoded connection string is read as a password and as an internal host, and labelled a
    host. A shorter credential inside its span (found elsewhere in the episode) must not claim that
    span first: the rest of the encoding would stay readable."""
    from trajectory_platform.curation.redact.pseudonym import SymbolTable

    encoded = "L_t(RLP1kSUsX~}J#cSxbZ2s9b2=|Cb9Q4oPI+!fOL%29VsRsMcQ8O?VlHWJbY*gGVQe}zG&3?UVQ_E"
    table = SymbolTable(SALT)
    table.add(encoded, "PASSWORD")
    table.add(encoded, "INTERNAL_HOST")
    table.add("UVQ_E", "SECRET")
    assert table.kinds[encoded] == "INTERNAL_HOST"
    assert table.occurrences(f"payload (base85): {encoded}") == [(18, 18 + len(encoded), encoded)]
    table.add("E and more", "INTERNAL_HOST")  # personal data only, longer: still after credentials
    assert table.occurrences("UVQ_E and more") == [(0, 5, "UVQ_E")]


@pytest.mark.parametrize(
    ("text", "replaced"),
    [
        ("q=password%3AHunter2x", True),
        ("pw=3DHunter2x", True),
        ("printf 'key:\\tHunter2x'", True),
        ("s = '\\x41Hunter2x'", True),
        ("s = '\\u0041Hunter2x'", True),
        ("echo '\\101Hunter2x'", True),
        ("xHunter2x and aHunter2xb", False),
        ("x3DHunter2x", False),
    ],
)
def test_a_short_value_starts_a_word_where_an_escape_ends(text: str, replaced: bool):
    """A value shorter than 12 characters is replaced only at a word boundary, so a short password
    does not rewrite the middle of a word. The last character of an escape (``%3A``, ``=3D``,
    ``\\t``, ``\\x41``) is the escape's code, not a letter of a word the value belongs to."""
    from trajectory_platform.curation.redact.pseudonym import SymbolTable

    table = SymbolTable(SALT)
    table.add("Hunter2x", "PASSWORD")
    assert bool(table.occurrences(text)) is replaced


def test_where_values_overlap_the_part_no_value_took_is_replaced_too():
    """Pass 3 places the longer value first; the other keeps the part it alone covers, so no tail
    of it is left standing. A remainder is a position to rewrite, never a value to look for."""
    from trajectory_platform.curation.redact.engine import rewrite
    from trajectory_platform.curation.redact.pseudonym import SymbolTable

    table = SymbolTable(SALT)
    table.add("AAAAQQQQRRRRSSSS", "SECRET")
    table.add("SSSSTTTT9999", "PASSWORD")
    text = "x AAAAQQQQRRRRSSSSTTTT9999 y"
    assert table.occurrences(text) == [(2, 18, "AAAAQQQQRRRRSSSS")]
    assert table.occurrences(text, remainders=True) == [(2, 18, "AAAAQQQQRRRRSSSS"), (18, 26, "SSSSTTTT9999")]
    rewritten = rewrite(text, table)
    assert "TTTT9999" not in rewritten and rewritten.startswith("x <REDACTED_SECRET:")
    assert "<REDACTED_PASSWORD:" in rewritten


def _occurrences_value_by_value(table, text: str, remainders: bool) -> list[tuple[int, int, str]]:
    """What :meth:`SymbolTable.occurrences` must return, spelled as its docstring says: each value in
    the placing order (credentials, then longer, then by value), its occurrences left to right."""
    from trajectory_platform.curation.redact.pseudonym import _bounded, _free_runs

    order = sorted(table.kinds, key=lambda v: (v not in table.credentials, -len(v), v))
    taken, occupied = [], bytearray(len(text))
    for value in order:
        start = text.find(value)
        while start != -1:
            end = start + len(value)
            if len(value) >= 12 or _bounded(text, start, end):
                overlapped = any(occupied[start:end])
                if not overlapped or remainders:
                    taken += [(low, high, value) for low, high in _free_runs(occupied, start, end)]
                    occupied[start:end] = b"\x01" * (end - start)
            start = text.find(value, start + 1)
    return sorted(taken)


@pytest.mark.parametrize("seed", range(40))
def test_occurrences_are_those_a_search_value_by_value_finds(seed: int):
    """The table's one automaton pass over values' first characters finds exactly what a search per
    value does: values sharing long heads, values inside others, values repeating themselves
    (``abab``), short values at word boundaries, credentials before personal data, remainders."""
    import random

    from trajectory_platform.curation.redact.pseudonym import SymbolTable

    rng = random.Random(seed)
    alphabet = "ab9Z_-."
    heads = ["".join(rng.choices(alphabet, k=rng.randint(1, 10))) for _ in range(4)]
    table = SymbolTable(SALT)
    for _ in range(rng.randint(1, 30)):
        value = rng.choice(heads) + "".join(rng.choices(alphabet, k=rng.randint(0, 14)))
        table.add(value, rng.choice(["SECRET", "PASSWORD", "EMAIL", "INTERNAL_HOST"]))
    values = list(table.kinds)
    noise = [" ", "x", *alphabet]
    text = "".join(rng.choice(values) if rng.random() < 0.5 else rng.choice(noise) for _ in range(30))
    for remainders in (False, True):
        assert table.occurrences(text, remainders) == _occurrences_value_by_value(table, text, remainders)
    table.add(text[3:17] or "late", "TOKEN")  # a value added after a search is found by the next one
    assert table.occurrences(text, True) == _occurrences_value_by_value(table, text, True)


def test_a_key_right_after_a_diffs_line_marker_leaves_the_marker_and_the_diff_whole():
    """A base64 key or a base32 seed written as an added (or removed) line of a diff: the entropy
    pass took the ``+`` into the key's pseudonym, so the redacted diff lost its lines and no longer
    parsed (96 of 358 feedback candidates, helper's figure), and the seed was not found at all."""
    from trajectory_platform.gym.diffs import parse_unified_diff

    key, seed, old = (
        "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY9q",
        "JBSWY3DPEHPK3PXP7QZ2",
        "Zm9vYmFyYmF6cXV4cXV1eHh5eXp6MTIz",
    )
    diff = f"--- a/.env\n+++ b/.env\n@@ -1,2 +1,4 @@\n URL=x\n-{old}\n+{key}\n+{seed}\n+{old}\n"
    redacted, _ = redact_text(diff, b"salt")
    assert not any(secret in redacted for secret in (key, seed, old))
    (patch,) = parse_unified_diff(redacted)
    assert [line[0] for line in patch.hunks[0].lines] == [" ", "-", "+", "+", "+"]


def test_a_slashed_base64_key_is_no_path_though_a_path_with_camel_case_names_is():
    """``/`` splits a path into names scored alone; a base64 key's letter runs flip case at random
    and name no path, so the key is scored whole."""
    key = "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY9q"
    assert "wJalrXUtnFEMI" not in redact_text(f"copy {key} now", b"salt")[0]  # no part of it either
    path = "open src/components/DataGridHeader/index.tsx and lib/MyProject/macOSX/handler.py"
    assert redact_text(path, b"salt")[0] == path


@pytest.mark.parametrize(
    "text",
    [
        "git clone git@github.com:octo-org/api-server.git",
        "origin\tgit@gitlab.com:data-team/etl_jobs.git (fetch)",
        '[remote "origin"]\n\turl = git@bitbucket.org:acme/robots.git',
        "ssh -o StrictHostKeyChecking=no deploy@web1.example.com 'sudo systemctl restart app'",
        "scp dist/app.tar.gz ec2-user@bastion.prod.example.net:/srv/releases/",
        "cd /srv && rsync -az build/ ubuntu@ec2-3-91-12-4.compute-1.amazonaws.com:",
        json.dumps({"command": "ssh -T git@github.com"}),
    ],
)
def test_an_ssh_destination_of_a_machine_account_is_not_an_email(text: str):
    """``user@host`` where an SSH program connects (scp/git's ``host:path``, an argument of ssh,
    scp, rsync) is no mailbox: rewriting it broke every remote and command holding one."""
    out, findings = redact_text(text, SALT)
    assert out == text and findings == []


def test_a_personal_user_of_an_ssh_destination_is_replaced_and_the_host_kept():
    out, findings = redact_text("scp notes.txt jsmith@build.example.com:~/inbox/", SALT)
    assert out == f"scp notes.txt <REDACTED_USERNAME:{digest('jsmith')}>@build.example.com:~/inbox/"
    assert [(f.kind, f.value) for f in findings] == [("USERNAME", "jsmith")]


@pytest.mark.parametrize(
    "text",
    [
        "Contact alice.doe@example.com: she owns the ssh keys.",
        "ssh to the box, then mail bob@example.org",
        "echo done; mail -s report carol@example.net",
        "Reported-by: dave@example.com",
    ],
)
def test_an_address_outside_an_ssh_destination_is_still_an_email(text: str):
    _, findings = redact_text(text, SALT)
    assert [f.kind for f in findings] == ["EMAIL"]
