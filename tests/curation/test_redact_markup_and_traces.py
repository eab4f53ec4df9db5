"""Credentials named from around them in markup (``curation/redact/markup.py``), userinfo without
``//`` (SIP URIs, Oracle's ``user/password@service``) and ``strace``/``ltrace`` output read as the
conversation it records (``curation/redact/syscall_traces.py``)."""

from __future__ import annotations

import pytest

from trajectory_platform.curation.redact import redact_text

SALT = b"markup-and-traces"
PW = "Juniper#Creek4471"
"""Memorable, not random: entropy leaves it, so only what names it can find it."""

MARKUP = {
    "namespaced_element": f"<ns2:Password>{PW}</ns2:Password>",
    "wsse_password_with_type": (
        "<wsse:UsernameToken><wsse:Username>svc</wsse:Username>"
        f"<wsse:Password Type='http://docs.oasis-open.org/wss#PasswordText'>{PW}</wsse:Password>"
    ),
    "cdata": f"<db_password>\n  <![CDATA[{PW}]]>\n</db_password>",
    "entity_escaped": f"<password>{PW.replace('#', '&#35;')}</password>",
    "plist_key_then_string_a_line_later": (
        f"<dict>\n  <key>Password</key>\n\n  <string>{PW}</string>\n</dict>"
    ),
    "dotnet_setting_value": (
        f"<setting name='ApiSecret' serializeAs='String'>\n  <value>{PW}</value>\n</setting>"
    ),
    "value_attribute_first": f'<add value="{PW}" key="DbPassword" />',
    "html_th_td_row": f"<tr>\n  <th>DB_PASSWORD</th>\n  <td>{PW}</td>\n</tr>",
    "html_dt_dd_code": f"<dl><dt>API secret</dt><dd><code>{PW}</code></dd></dl>",
    "html_header_names_the_column": (
        "<table><thead><tr><th>User</th><th>Password</th></tr></thead>"
        f"<tbody><tr><td>admin</td><td>{PW}</td></tr></tbody></table>"
    ),
    "django_debug_locals": f'<tr><td>password</td><td class="code"><pre>&#x27;{PW}&#x27;</pre></td></tr>',
    "hadoop_property_name_then_value": (
        f"<property>\n  <name>fs.s3a.secret.key</name>\n  <value>{PW}</value>\n</property>"
    ),
    "prefilled_password_input": f'<input type="password" name="pw1" value="{PW}" autocomplete="off">',
    "own_tag_beside_an_id_attribute": f'<Password id="x1">{PW}</Password>',
}

USERINFO = {
    "sip_uri": f"sip:alice:{PW}@pbx.example.com;transport=tls",
    "sips_uri_in_a_header": f"Contact: <sips:1001:{PW}@voip.example.net:5061>",
    "oracle_driver_call": f"cx_Oracle.connect('scott/{PW}@db.example.com:1521/orcl')",
    "oracle_env_var": f'ORACLE_CONN="app/{PW}@PROD"',
    "ezconnect_service_shape": f"sql hr/{PW}@dbhost:1521/XEPDB1",
    "oracle_tool_escaped_quotes": f'impdp \\"sys/{PW}@orcl as sysdba\\" full=y',
}

TRACES = {
    "prompt_then_read": (
        'write(2, "Password: ", 10) = 10\nioctl(0, TCGETS, {B38400 opost isig icanon -echo ...}) = 0\n'
        f'read(0, "{PW}\\n", 4096) = 18\n'
    ),
    "prompt_on_the_tty_with_pids": (
        '[pid 4242] openat(AT_FDCWD, "/dev/tty", O_RDWR) = 5\n'
        "[pid 4242] write(5, \"Password for 'https://bob@github.com': \", 39) = 39\n"
        f'[pid 4242] read(5, "{PW}\\n", 8192) = 18\n'
    ),
    "secret_file_read": (
        f'openat(AT_FDCWD, "/home/ci/.vault_pass", O_RDONLY) = 7\nread(7, "{PW}\\n", 4096) = 18\nclose(7) = 0'
    ),
    "redis_protocol_on_the_wire": (
        f'sendto(3, "*2\\r\\n$4\\r\\nAUTH\\r\\n$17\\r\\n{PW}\\r\\n", 38, 0, NULL, 0) = 38'
    ),
    "buffer_truncated_by_dash_s": f'write(3, "DB_HOST=db\\nDB_PASSWORD={PW}\\nDB_PORT=5432\\n"..., 64) = 64',
    "argv_of_execve": (
        f'execve("/usr/bin/sshpass", ["sshpass", "-p", "{PW}", "ssh", "deploy@web1"], '
        "0x7ffe /* 19 vars */) = 0"
    ),
    "ltrace_getpass": f'getpass("Password: ") = "{PW}"',
    "ltrace_getpass_resumed": (
        f'[pid 7] getpass("Enter passphrase: " <unfinished ...>\n[pid 7] <... getpass resumed> ) = "{PW}"'
    ),
    "ltrace_getenv": f'secure_getenv("API_TOKEN") = "{PW}"',
    "ltrace_tls_library_write": (
        'SSL_read(0x5611d2, "+OK POP3 ready\\r\\n", 512) = 16\n'
        f'SSL_write(0x5611d2, "PASS {PW}\\r\\n", 24) = 24'
    ),
    "prompt_written_by_writev": (
        f'writev(2, [{{iov_base="Password: ", iov_len=10}}], 1) = 10\nread(0, "{PW}\\n", 1024) = 18'
    ),
    "ltrace_compare_after_a_prompt": (
        f'printf("Enter PIN: ") = 11\nfgets("{PW}\\n", 64, 0x7f3a) = 0x7ffd\nstrcmp("{PW}", "{PW[::-1]}") = 1'
    ),
}


@pytest.mark.parametrize("text", list(MARKUP.values()), ids=list(MARKUP))
def test_a_value_markup_names_is_replaced(text: str) -> None:
    out, _ = redact_text(text, SALT)
    assert PW not in out and PW.replace("#", "&#35;") not in out
    assert "REDACTED_" in out


@pytest.mark.parametrize("text", list(USERINFO.values()), ids=list(USERINFO))
def test_userinfo_without_a_double_slash_is_replaced(text: str) -> None:
    out, _ = redact_text(text, SALT)
    assert PW not in out


@pytest.mark.parametrize("text", list(TRACES.values()), ids=list(TRACES))
def test_a_credential_a_trace_records_is_replaced(text: str) -> None:
    out, _ = redact_text(text, SALT)
    assert PW not in out and PW[::-1] not in out


def test_the_trace_keeps_its_syntax_around_the_pseudonym() -> None:
    out, _ = redact_text(TRACES["prompt_then_read"], SALT)
    assert out.startswith('write(2, "Password: ", 10) = 10\n')
    assert out.endswith('\\n", 4096) = 18\n') and 'read(0, "<REDACTED_PASSWORD:' in out


KEPT = {
    "xml_with_ordinary_values": (
        "<config><name>service-7</name><timeout>3000</timeout><mode>fast</mode></config>"
    ),
    "html_table_of_numbers": (
        "<table><tr><th>Model</th><th>Tokens</th><th>Cost</th></tr><tr><td>gpt-4o</td><td>18234</td>"
        "<td>0.0412</td></tr></table>"
    ),
    "plist_of_ordinary_keys": "<dict><key>CFBundleName</key><string>App</string></dict>",
    "a_password_rule_in_a_description_list": "<dl><dt>Password</dt><dd>At least 12 characters.</dd></dl>",
    "strace_of_file_writes": (
        'openat(AT_FDCWD, "build/out.log", O_WRONLY|O_CREAT|O_TRUNC, 0644) = 3\n'
        'write(3, "compiled 42 files in 2.1s\\n", 26) = 26\nclose(3) = 0'
    ),
    "a_yes_no_prompt_answered": 'write(1, "Continue? [y/N] ", 16) = 16\nread(0, "y\\n", 1024) = 2',
    "a_name_prompt_answered": 'write(1, "Project name: ", 14) = 14\nread(0, "my-service-2\\n", 1024) = 13',
    "github_actions_refs": "      - uses: actions/checkout@v4\n      - uses: actions/setup-node@v4",
    "npm_scoped_packages": "npm install @babel/core@7.24.1 @types/node@20.1.0",
    "git_reflog_refs": "git reflog show origin/main@{1} && git log feature/Login2@{yesterday}",
    "go_install_version": "go install golang.org/x/tools/gopls@v0.15.3",
    "sip_uri_without_a_password": "sip:alice@example.com;transport=tls",
    "prose_between_code_elements": (
        "<p>compares <code>guess</code> to <code>secret_number</code>. Then it returns the\n"
        "<code>Ordering_2</code> variant</p>"
    ),
    "a_heading_anchor_id": '<a class="header" href="#a-pass" id="a-pass"><code>--test-args</code></a>',
}


@pytest.mark.parametrize("text", list(KEPT.values()), ids=list(KEPT))
def test_ordinary_markup_traces_and_references_are_kept(text: str) -> None:
    assert redact_text(text, SALT)[0] == text
