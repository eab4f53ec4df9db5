"""A password fed to a command's standard input by a pipeline, a here-string or a here-document
(stdin_feeds).

Generated: word passwords x producers and sinks. Development and validation differ by sink and
producer form; the controls (variables, substitutions, placeholders, base64 of no password, a
message piped to ``tee``) stay byte for byte."""

from __future__ import annotations

import base64
import random

import pytest

from tests.curation._labelled_word_cases import word_password
from trajectory_platform.curation.redact.engine import redact_text

SALT = b"stdin-feeds-salt"


def _b64(text: str) -> str:
    return base64.b64encode(text.encode()).decode()


DEVELOPMENT = {
    "printf_twice_to_passwd": lambda p: f"printf '%s\\n%s\\n' '{p}' '{p}' | passwd deploy",
    "base64_to_docker_login": lambda p: (
        f"echo {_b64(p)} | base64 -d | docker login -u ci --password-stdin ghcr.io"
    ),
    "htpasswd_from_stdin": lambda p: f"echo '{p}' | htpasswd -i -c /etc/nginx/.htpasswd admin",
    "printf_user_to_chpasswd": lambda p: f"printf 'deploy:%s\\n' '{p}' | sudo chpasswd",
    "yes_to_passwd": lambda p: f"yes '{p}' | passwd deploy",
    "heredoc_to_passwd": lambda p: f"passwd deploy <<EOF\n{p}\n{p}\nEOF\necho ok",
    "cat_heredoc_to_chpasswd": lambda p: f"cat <<EOF | chpasswd\ndeploy:{p}\nEOF",
    "here_string_to_openssl_passwd": lambda p: f"openssl passwd -6 -stdin <<< '{p}'",
}
VALIDATION = {
    "base64_answers_to_passwd": lambda p: f"echo '{_b64(p + chr(10) + p)}' | base64 --decode | passwd app",
    "ansi_c_here_string_to_passwd": lambda p: f"passwd app <<< $'{p}\\n{p}'",
    "echo_e_twice_to_passwd": lambda p: f"echo -e '{p}\\n{p}' | passwd root",
    "htpasswd_here_string": lambda p: f"htpasswd -i /etc/httpd/users bob <<< '{p}'",
    "base64_user_to_chpasswd": lambda p: f"echo {_b64('bob:' + p)} | base64 -d | chpasswd",
    "printf_to_sudo_passwd_stdin": lambda p: f'printf "%s\\n" "{p}" | sudo passwd --stdin app',
    "echo_through_tee_to_login": lambda p: (
        f"echo '{p}' | tee /dev/null | docker login -u ci --password-stdin"
    ),
    "openssl_base64_to_helm": lambda p: (
        f"echo '{_b64(p)}' | openssl base64 -d | helm registry login r.io --password-stdin"
    ),
    "yes_through_head_to_passwd": lambda p: f'yes "{p}" | head -n 2 | sudo passwd app',
    "quoted_stripped_heredoc_to_sudo": lambda p: f"sudo -S systemctl restart app <<-'END'\n\t{p}\n\tEND",
    "echo_to_openssl_passwd": lambda p: f"echo '{p}' | openssl passwd -1 -stdin",
    "cat_heredoc_through_tee_to_htpasswd": lambda p: (
        f"cat <<'PW' | tee /dev/null | htpasswd -i .htpasswd bob\n{p}\nPW"
    ),
}
CONTROLS = [
    'echo "$REGISTRY_PASSWORD" | docker login -u ci --password-stdin ghcr.io',
    "cat /run/secrets/pw | docker login -u ci --password-stdin ghcr.io",
    'chpasswd <<< "deploy:${DEPLOY_PW}"',
    'printf \'%s\\n%s\\n\' "$PW" "$PW" | passwd deploy',
    "echo hello | base64 -d | wc -c",
    "echo '<your-password>' | htpasswd -i -c .htpasswd admin",
    'htpasswd -i f bob <<< "$(cat /run/pw)"',
    f"echo {_b64('hello world')} | base64 -d | docker login -u ci --password-stdin",
    "echo 'Logging in...' | tee -a log.txt",
    "yes | apt-get install -y curl",
    "yes n | cp -i a.txt b.txt",
    'yes "$APP_PASSWORD" | passwd app',
    "cat <<EOF | passwd deploy\n$NEW_PW\n$NEW_PW\nEOF",
    "cat <<EOF > notes.txt\nHarborfalcon2024!\nEOF",
    "python3 - <<EOF\nprint('Harborfalcon2024!')\nEOF",
    "passwd deploy <<EOF\n<new-password>\nEOF",
    "echo $1 | passwd deploy",
    "the reader takes yes as a producer, head as a pass-through stage | chpasswd reads the rest",
]


def _cases(table: dict) -> list[tuple[str, str, str]]:
    cases = []
    for name, carrier in sorted(table.items()):
        for i in range(2):
            g = random.Random(f"{name}{i}")
            password = word_password(g)
            cases.append((f"{name}-{i}", carrier(password), password))
    return cases


@pytest.mark.parametrize(
    ("text", "password"),
    [pytest.param(t, p, id=n) for n, t, p in _cases(DEVELOPMENT) + _cases(VALIDATION)],
)
def test_a_password_fed_to_a_command_on_its_standard_input_is_replaced(text: str, password: str) -> None:
    for shell in (False, True):
        redacted, _ = redact_text(text, SALT, shell=shell)
        assert password not in redacted and _b64(password) not in redacted


@pytest.mark.parametrize("text", CONTROLS, ids=range(len(CONTROLS)))
def test_what_no_literal_password_feeds_stays(text: str) -> None:
    assert redact_text(text, SALT)[0] == text


@pytest.mark.parametrize(
    "text",
    [
        "echo 'Falconmeadow6594$' | openssl passwd -1 -stdin",
        'yes "Coppersilver1080$" | head -n 2 | passwd app',
        "passwd app <<EOF\nHarborwinter2024$\nHarborwinter2024$\nEOF",
        "htpasswd -i /etc/httpd/users bob <<< 'Rocketmaple2024$'",
    ],
    ids=["echo", "yes", "heredoc", "here_string"],
)
def test_a_dollar_sign_before_no_name_is_part_of_the_password(text: str) -> None:
    """``$`` opens an expansion only before a name, a brace or a parenthesis: a password's
    ``...2024$`` is a literal."""
    redacted, _ = redact_text(text, SALT)
    assert "REDACTED_PASSWORD" in redacted and "2024$" not in redacted and "1080$" not in redacted
