"""Credentials whose place is given by a structure, not by a label right before them: a command
written as a list of words, a text stored as an array of lines, a schema's property, a browser
tool's sibling locator, a prompt answered in the next turn (docs/redaction.md, "Credentials placed
by structure"). Vectors written for the classes; none taken from a labelled corpus."""

from __future__ import annotations

import datetime as dt
import json

import pytest

from trajectory_platform.curation.redact import redact_episode, redact_text
from trajectory_platform.traces.record import Episode, Event, Outcome, TaskIdentity, ToolCall

SALT = b"structure-tests"
PW = "Quartz-Lantern-58"


def _redacted(text: str) -> str:
    return redact_text(text, SALT)[0]


@pytest.mark.parametrize(
    "text",
    [
        json.dumps({"command": ["mysql", "-u", "root", "--password", PW], "timeout": 30}),
        json.dumps({"argv": ["mysqldump", "-uroot", f"-p{PW}", "shop"]}),
        f"subprocess.run(['sshpass', '-p', '{PW}', 'ssh', 'root@host'], check=True)",
        f'CMD ["redis-server", "--requirepass", "{PW}"]',
        f'ENTRYPOINT ["redis-cli", "-h", "cache", "-a", "{PW}", "PING"]',
        f"        args:\n          - --db-password\n          - {PW}\n",
        f'    argv:\n      - "sqlcmd"\n      - "-U"\n      - "sa"\n      - "-P"\n      - "{PW}"\n',
        f"      args: [mongosh, --username, admin, --password, {PW}]",
        f'exec.Command("7z", "a", "-p{PW}", "out.7z", "dir")',
        f'Command::new("redis-cli").arg("-a").arg("{PW}").arg("ping")',
        f"await execa('keytool', ['-list', '-keystore', 'ks.jks', '-storepass', '{PW}']);",
        json.dumps({"mcpServers": {"db": {"command": "sqlcmd", "args": ["-S", "db", "-U", "sa", "-P", PW]}}}),
        json.dumps({"cmd": ["redis-cli", "-a", "ket17&ridge", "PING"]}),
    ],
)
def test_a_command_written_as_a_list_of_words_is_read_as_its_command_line(text: str) -> None:
    value = "ket17&ridge" if "ket17" in text else PW
    out = _redacted(text)
    assert value not in out
    if text.lstrip().startswith("{"):
        json.loads(out)


@pytest.mark.parametrize(
    "text",
    [
        'parser.add_argument("--password", "-p", help="the password")',
        'cmd = ["pytest", "-k", "test_password_reset", "--maxfail", "1"]',
        json.dumps({"argv": ["git", "commit", "-m", "Fix password reset flow"]}),
        json.dumps(
            {"command": ["docker", "run", "-e", "POSTGRES_PASSWORD", "-p", "5432:5432", "postgres:16"]}
        ),
        json.dumps({"command": ["kubectl", "get", "secret", "db", "-o", "jsonpath={.data.password}"]}),
        "args: [--config, /etc/app.yaml, --log-level, debug]",
        json.dumps(
            {"command": "npx", "args": ["-y", "@modelcontextprotocol/server-postgres", "--read-only"]}
        ),
    ],
)
def test_a_list_of_ordinary_options_is_kept(text: str) -> None:
    assert _redacted(text) == text


def _lines(text: str) -> list[str]:
    return text.splitlines(keepends=True)


@pytest.mark.parametrize(
    "document",
    [
        {"cell_type": "code", "source": _lines(f"kind: Secret\ntype: Opaque\nstringData:\n  app: {PW}\n")},
        {"output_type": "stream", "text": _lines(f"env:\n- name: SMTP_PASSWORD\n  value: {PW}\n")},
        {"stdout_lines": ["$ cat /run/secrets/db_password", PW], "rc": 0},
        {"log": _lines(f"user,password,role\nalice,{PW},admin\n")},
    ],
)
def test_a_text_stored_as_an_array_of_lines_is_read_whole(document: dict) -> None:
    text = json.dumps(document, indent=1)
    out = _redacted(text)
    assert PW not in out
    json.loads(out)


NOTEBOOK_LINES = [
    "import os\n",
    "DB_PASSWORD = 'Kestrel4471&'\n",
    "client = OpenAI(api_key='sk-proj-aB3dE5fG7hJ9kL1mN3pQ5rS7tU9vW1xY3z0')\n",
    "env:\n",
    "- name: SMTP_PASSWORD\n",
    f"  value: {PW}\n",
    "print('done')",
]


def test_each_line_of_an_array_is_scanned_once_and_finds_what_it_found_alone(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A notebook's line is scanned inside the text its array joins, not a second time alone (the
    cost of a notebook nearly doubled); what the lines alone gave is found there all the same."""
    from trajectory_platform.curation.redact import engine

    text = json.dumps({"cells": [{"cell_type": "code", "source": NOTEBOOK_LINES}]})
    alone = {f.value for line in NOTEBOOK_LINES for f in engine.scan(line, engine.RedactionConfig())}
    scanned: list[str] = []
    real_scan = engine.scan

    def counting_scan(*args, **kwargs):  # type: ignore[no-untyped-def]
        scanned.append(args[0])
        return real_scan(*args, **kwargs)

    monkeypatch.setattr(engine, "scan", counting_scan)
    found = {f.value for f in engine.redact_text(text, b"lines-once-salt!")[1]}
    assert not set(NOTEBOOK_LINES) & set(scanned)
    assert alone and alone <= found and PW in found


def test_an_array_of_ordinary_lines_is_kept() -> None:
    text = json.dumps({"source": ["import os\n", 'password = os.environ["PW"]\n', "print(len(password))\n"]})
    assert _redacted(text) == text


@pytest.mark.parametrize(
    "text",
    [
        json.dumps({"type": "object", "properties": {"api_key": {"type": "string", "default": PW}}}),
        json.dumps({"properties": {"creds": {"properties": {"db_pass": {"examples": [PW]}}}}}),
        json.dumps({"properties": {"password": {"enum": [PW]}}}),
        json.dumps({"properties": {"master": {"type": "string", "format": "password", "default": PW}}}),
        json.dumps({"name": "db_password", "in": "query", "examples": {"demo": {"value": PW}}}),
        json.dumps({"parameters": [{"name": "password", "in": "header", "schema": {"default": PW}}]}),
        f"Parameters:\n  MasterUserPassword:\n    Type: String\n    NoEcho: true\n    Default: {PW}\n",
        f"parameters:\n  - name: password\n    in: header\n    schema:\n      example: '{PW}'\n",
    ],
)
def test_a_schema_property_named_as_a_credential_gives_its_values_away(text: str) -> None:
    assert PW not in _redacted(text)


@pytest.mark.parametrize(
    "text",
    [
        json.dumps({"properties": {"password": {"type": "string", "minLength": 8, "default": ""}}}),
        json.dumps({"properties": {"api_key": {"description": "Your API key", "example": "YOUR_API_KEY"}}}),
        json.dumps(
            {"properties": {"token_type": {"enum": ["bearer", "mac"]}, "password_min_length": {"default": 8}}}
        ),
        "Parameters:\n  Environment:\n    Type: String\n    Default: production-2024\n",
    ],
)
def test_a_schema_without_a_credential_value_is_kept(text: str) -> None:
    assert _redacted(text) == text


@pytest.mark.parametrize(
    "arguments",
    [
        {"element": "Password textbox", "ref": "e12", "text": PW},
        {"selector": "input[type=password]", "value": PW},
        {"input_text": {"index": 12, "text": PW, "xpath": "//input[@name='pwd']"}},
        {"fields": [{"name": "Confirm password", "type": "textbox", "ref": "e14", "value": PW}]},
        {"action": "type", "ref": "e12 (password field)", "text": PW},
        {"instruction": f"type '{PW}' into the password field"},
        {"instruction": f"fill the passphrase box with '{PW}'"},
    ],
)
def test_a_browser_tool_types_a_credential_into_a_field_a_sibling_names(arguments: dict) -> None:
    assert PW not in _redacted(json.dumps(arguments))


@pytest.mark.parametrize(
    "arguments",
    [
        {"element": "Search textbox", "ref": "e4", "text": "password manager reviews"},
        {"selector": "#search", "value": "Kettle2024!"},
        {"label": "Password hint", "text": "my first pet"},
        {"url": "https://shop.example/account/reset-password", "text": "Kettle2024!"},
        {"instruction": "type 'weather in Paris' into the search box"},
    ],
)
def test_what_a_browser_tool_types_elsewhere_is_kept(arguments: dict) -> None:
    text = json.dumps(arguments)
    assert _redacted(text) == text


def _episode(*events: Event) -> Episode:
    return Episode(
        episode_id="e1",
        source_format="native",
        source_file="f",
        source_line=1,
        source_path=None,
        partition_date=dt.date(2026, 1, 1),
        task=TaskIdentity(fixture_id="t", prompt="p", license="MIT"),
        events=list(events),
        outcome=Outcome(terminal_status="completed"),
    )


def _call(arguments: dict | str, name: str = "execute_bash") -> Event:
    text = arguments if isinstance(arguments, str) else json.dumps(arguments)
    return Event(kind="assistant", content="", tool_calls=[ToolCall(id="c2", name=name, arguments=text)])


def _observation(text: str) -> Event:
    return Event(kind="tool", content=text, tool_call_id="c1", tool_name="execute_bash", status="ok")


NOTICE = "\n[The command has no new output after 30 seconds. You may wait longer to see additional output.]"


@pytest.mark.parametrize(
    "events",
    [
        (_observation("[sudo] password for dev: " + NOTICE), _call({"command": PW, "is_input": "true"})),
        (
            _observation("Enter PEM pass phrase:"),
            _call({"session": "s1", "input": PW + "\n"}, "terminal_write"),
        ),
        (
            Event(kind="assistant", content="Could you share the database password?"),
            Event(kind="user", content=PW),
        ),
        (
            _observation("[41] textbox 'Username'\n[43] textbox 'Password' required\n[45] button 'Sign in'"),
            _call(f"type [43] [{PW}] [1]", "browser"),
        ),
        (
            _observation('- textbox "Email" [ref=e19]\n- textbox "Password" [ref=e21]'),
            _call({"element": "textbox", "ref": "e21", "text": PW}, "browser_type"),
        ),
    ],
)
def test_a_credential_named_in_one_turn_and_given_in_the_next_is_replaced(
    events: tuple[Event, Event],
) -> None:
    out = json.dumps(redact_episode(_episode(*events), SALT)[0].to_dict(), default=str)
    assert PW not in out


@pytest.mark.parametrize(
    ("events", "kept"),
    [
        ((_observation("Password:"), _call({"command": "C-c", "is_input": True})), "C-c"),
        ((_observation("Enter password:"), _call({"command": "./configure --prefix=/usr"})), "./configure"),
        (
            (
                Event(kind="assistant", content="Done. Should I reset the password?"),
                Event(kind="user", content="Absolutely!"),
            ),
            "Absolutely!",
        ),
        (
            (
                Event(kind="assistant", content="Which password manager do you use?"),
                Event(kind="user", content="1Password"),
            ),
            "1Password",
        ),
        (
            (_observation("[3] textbox 'Search'"), _call("type [3] [Kettle2024!] [1]", "browser")),
            "Kettle2024!",
        ),
    ],
)
def test_an_answer_to_no_credential_prompt_is_kept(events: tuple[Event, Event], kept: str) -> None:
    out = json.dumps(redact_episode(_episode(*events), SALT)[0].to_dict(), default=str)
    assert kept in out
