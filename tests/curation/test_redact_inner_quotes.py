"""A quote inside a quoted value (red team rtsec13): a password holding ``'`` or ``"`` written
into a quoted slot, as a shell, a language or a document escapes it (``'\\''``, ``'"'"'`` from
``shlex.quote``, ``\\"``, or the other kind of quote left bare). The rules read a value up to the
first quote, so the pseudonym took the head and the rest of the password stayed.

The values and carriers here are not the red team's generators' (those are in its report)."""

from __future__ import annotations

import pytest

from trajectory_platform.curation.redact import redact_text

SALT = b"inner-quotes-salt"
HEAD, TAIL = "Vb3nQx7", "lantern82Zk"
VALUE = f"{HEAD}'{TAIL}"
WHOLE = "Vb3nQx7Lw9Tz"
TOKEN = "ghp_" + "Vb3nQx7Lw9TzR4kP2mX8sD6fG1hJ5qW0eY3uI"

SPLICED = {  # a single quote inside a single-quoted shell word
    "backslash": "'\\''",
    "shlex": "'\"'\"'",
}
CARRIERS = {  # commands whose rule finds the value's head
    "mysql_flag": "mysql -u root -p'{v}' inventory",
    "sshpass": "sshpass -p '{v}' scp dump.sql backup@vault-2:",
    "export": "export MYSQL_PWD='{v}'\nmysqldump inventory",
    "docker_login": "docker login --username ci --password '{v}' ghcr.io",
    "from_literal": "kubectl create secret generic api --from-literal=token='{v}'",
    "sqlcmd": "sqlcmd -S sql01 -U sa -P '{v}' -i init.sql",
}


@pytest.mark.parametrize("splice", SPLICED.values(), ids=list(SPLICED))
@pytest.mark.parametrize("carrier", CARRIERS.values(), ids=list(CARRIERS))
def test_a_quote_spliced_into_a_single_quoted_value_is_part_of_it(carrier: str, splice: str) -> None:
    text = carrier.format(v=VALUE.replace("'", splice))
    redacted = redact_text(text, SALT, shell=True)[0]
    assert HEAD not in redacted and TAIL not in redacted


@pytest.mark.parametrize(
    "text",
    [
        f'mysql -u root -p"{VALUE}" inventory',
        f'sshpass -p "{VALUE}" scp dump.sql backup@vault-2:',
        f'client = Redis(host="cache", password="{VALUE}")',
        f'sqlcmd -S sql01 -U sa -P "{HEAD}\\"{TAIL}" -i init.sql',
        f"DB_PASSWORD='{HEAD}\"{TAIL}'",
    ],
    ids=["mysql_dq", "sshpass_dq", "python_kw", "escaped_double", "double_in_single"],
)
def test_a_quote_of_the_other_kind_or_escaped_is_part_of_the_value(text: str) -> None:
    redacted = redact_text(text, SALT, shell=True)[0]
    assert HEAD not in redacted and TAIL not in redacted


@pytest.mark.parametrize(
    ("text", "kept"),
    [
        (f"{{'password': '{WHOLE}', 'user': 'app'}}", "', 'user': 'app'}"),
        (f'{{"password": "{WHOLE}", "user": "app"}}', '", "user": "app"}'),
        (f"<add key=\"password\" value=\"{WHOLE}\"/><add key='x' value='y'/>", "\"/><add key='x'"),
        (f'password = "{WHOLE}" # it\'s the dev one', "\" # it's the dev one"),
        (f'log("the key {TOKEN}\'s scope")', "'s scope\")"),
        (f"token=\"{WHOLE}\";other='x'", "\";other='x'"),
        (f"DB_PASSWORD='{WHOLE}' ./run.sh --name 'it'\\''s'", "' ./run.sh --name 'it'\\''s'"),
    ],
    ids=["py_dict", "json", "xml_attrs", "remark", "possessive", "two_assignments", "later_word"],
)
def test_a_values_closing_quote_still_ends_it(text: str, kept: str) -> None:
    redacted = redact_text(text, SALT, shell=True)[0]
    assert WHOLE not in redacted and TOKEN not in redacted
    assert kept in redacted


QUOTED_ONLY = {  # rules that read the quoted word whole: its head alone is found by none
    "htpasswd": "htpasswd -b -c /etc/nginx/.htpasswd admin '{v}'",
    "api_key_flag": "./sync --api-key '{v}' --dry-run",
}


@pytest.mark.parametrize("splice", SPLICED.values(), ids=list(SPLICED))
@pytest.mark.parametrize("carrier", QUOTED_ONLY.values(), ids=list(QUOTED_ONLY))
def test_a_word_read_whole_is_read_with_its_spliced_quotes(carrier: str, splice: str) -> None:
    redacted = redact_text(carrier.format(v=VALUE.replace("'", splice)), SALT, shell=True)[0]
    assert HEAD not in redacted and TAIL not in redacted


@pytest.mark.parametrize(
    "text",
    [
        "echo 'it'\\''s done' && make release",
        "git commit -m 'fix: don'\"'\"'t log the request body'",
        "printf '%s\\n' 'a'\\''b' > quoted.txt",
        "sed -i 's/can'\\''t/cannot/g' docs/*.md",
    ],
    ids=["echo", "commit_message", "printf", "sed"],
)
def test_honest_words_with_spliced_quotes_stay(text: str) -> None:
    assert redact_text(text, SALT, shell=True)[0] == text
