"""Credentials whose name is not right before them (red team 2026-12-06, classes G3 G5 G6 G10): a
value carried over lines by its format's multi-line string syntax, a plaintext handed to a
password-hashing call or command, a value written into a file whose name says credential, and a
map of credentials keyed by user name.

The values and layouts here are not the red team's (those are its generators): held out, to test
the class rather than the examples."""

from __future__ import annotations

import pytest

from trajectory_platform.curation.redact import redact_text

SALT = b"value-flow-salt"
PW = "Tq4#ember-Lx82"
"""Memorable and short: entropy leaves it, only the syntax around it can find it."""

LEAKS = {
    "toml_multiline_basic": f'[smtp]\nsmtp_password = """\n{PW}\n"""\n',
    "toml_multiline_literal": f"auth_secret = '''{PW}'''",
    "terraform_heredoc": f'resource "a" "b" {{\n  client_secret = <<-EOT\n    {PW}\n  EOT\n}}',
    "ruby_squiggly_heredoc": f"DB_PASS = <<~SECRET\n  {PW}\nSECRET",
    "shell_cat_heredoc": f'API_TOKEN="$(cat <<"END"\n{PW}\nEND\n)"',
    "nix_indented_string": f"  adminPassword = ''\n    {PW}\n  '';",
    "ini_continuation": f"[ldap]\nbind_password =\n        {PW}\nbase = dc=x\n",
    "yaml_quoted_folded": f'svc:\n  password: "{PW[:6]}\n    {PW[6:]}"\n',
    "quoted_printable_soft_break": (
        f"Content-Transfer-Encoding: quoted-printable\n\nthe pin is {PW[:6]}=\n{PW[6:]}\n"
    ),
    "laravel_hash": f"$u->password = Hash::make('{PW}');",
    "bcryptjs_sync": f'const digest = bcrypt.hashSync("{PW}", 12);',
    "go_compare_second_argument": f'err := bcrypt.CompareHashAndPassword(stored, []byte("{PW}"))',
    "django_create_user": f"User.objects.create_user('ana', 'ana@example.org', '{PW}')",
    "spring_encoder": f'var hashed = encoder.encode("{PW}");',
    "mkpasswd_method": f"mkpasswd --method=yescrypt '{PW}'",
    "htpasswd_batch": f"htpasswd -nbB deploy '{PW}'",
    "echo_append_tee": f"echo '{PW}' | sudo tee -a /etc/restic/repo_password >/dev/null",
    "printf_into_home": f'printf "%s" "{PW}" > "$HOME/.netrc_token"',
    "heredoc_into_secret_file": f"cat > /run/secrets/redis_pass <<'EOF'\n{PW}\nEOF",
    "go_write_file": f'os.WriteFile("conf/session_secret", []byte("{PW}"), 0o600)',
    "php_put_contents": f"file_put_contents('storage/app.key', '{PW}');",
    "user_keyed_dict": f'ADMIN_PASSWORDS = {{"root": "{PW}"}}',
    "user_keyed_yaml": f"proxy:\n  htpasswd_users:\n    ana: {PW}\n",
    "user_keyed_section": f"[service_credentials]\nbackup = {PW}\n",
    "ruby_hash_of_tokens": f"DEPLOY_TOKENS = {{ 'ci' => '{PW}' }}",
    "caddy_basic_auth": f"basic_auth /ops/* {{\n\tana {PW}\n}}",
    # a list under a plural credential name (rtsec10 LS)
    "yaml_block_list": f"auth:\n  passwords:\n    - {PW}\n  port: 80\n",
    "yaml_flow_list": f"api_keys: [{PW}, other]",
    "python_list_over_lines": f'VALID_TOKENS = [\n    "{PW}",\n]',
    "js_array": f"const adminPasswords = ['{PW}'];",
    "semicolon_csv": f"login;smtp_pass;team\nana;{PW};ops\n",
    "sqlite_header_pipes": f"account|backup_passphrase|owner\n7|{PW}|ana\n",
    "header_of_words": f"env,Client Secret,region\nprod,{PW},eu-west-1\n",
    "pg_dump_copy_block": f"COPY auth.accounts (id, login, pass_hash_src) FROM stdin;\n3\tana\t{PW}\n\\.\n",
    "multipart_part": (
        f'--x9Qf2LmT7vB3nR8k\r\nContent-Disposition: form-data; name="password"\r\n'
        f"Content-Type: text/plain\r\n\r\n{PW}\r\n--x9Qf2LmT7vB3nR8k--\r\n"
    ),
}


@pytest.mark.parametrize("text", LEAKS.values(), ids=LEAKS.keys())
def test_a_value_named_away_from_it_is_replaced(text: str) -> None:
    out, _ = redact_text(text, SALT)
    assert PW[6:] not in out and PW[:6] not in out, out


HONEST = {
    "sql_in_triple_quotes": 'password_query = """\nSELECT hash FROM users WHERE id = %s\n"""',
    "heredoc_of_a_reference": "secret_key = <<EOF\n${var.secret_key}\nEOF",
    "nested_mapping_below_a_name": "password:\n  min_length: 12\n  require_symbol: true\n",
    "password_from_stdin": "openssl passwd -6 -stdin < plain.txt",
    "hash_of_a_variable": "digest = bcrypt.hashpw(password.encode(), bcrypt.gensalt())",
    "hashlib_digest_of_data": 'hashlib.sha256(b"some file contents").hexdigest()',
    "echo_a_reference": 'echo "$DB_PASSWORD" > /run/secrets/db_password',
    "echo_into_a_plain_file": "echo 'Harbor7 ready' > status.txt",
    "a_note_into_a_token_named_file": "echo started > /tmp/token_status",
    "credential_record_not_a_map": "credentials:\n  username: ana\n  host: db.internal.example\n",
    "tokenizer_special_tokens": 'special_tokens = {"pad_token": "[PAD]", "eos_token": "</s>"}',
    "key_bindings": 'keys = {"up": "ArrowUp", "save": "Ctrl+S"}',
    "test_case_table": 'passwords_test_cases = {"weak": "abc", "strong": "see below"}',
    "shell_pipeline_lines": "ps aux|grep password|head\nls -la|sort|uniq\n",
    "semicolon_statements": "password_len;token_count;total\nx = 1;y = 2;z = 3\n",
    "empty_list_of_passwords": "passwords = []\nallowed_tokens: []\n",
    "list_of_field_names": 'password_fields = ["password", "token"]',
    "list_of_variables": "api_keys = [k.strip() for k in raw.split(',')]\ntokens: [FIRST_TOKEN, OTHER]",
    "list_of_references": "passwords:\n  - ${DB_PASSWORD}\n  - ${ADMIN_PASSWORD}\n",
    "blocklist_of_common_passwords": "COMMON_PASSWORDS = ['123456', 'letmein', 'qwerty']",
    "list_of_records": "secrets:\n  - name: db\n    valueFrom: vault\n",
    "copy_without_credential_column": "COPY public.t (id, name) FROM stdin;\n1\tHarbor7Q#x\n\\.\n",
    "multipart_fields_and_boundary": (
        "Content-Type: multipart/form-data; boundary=----WebKitFormBoundaryq8Zt3XkP2vLm9RcA\n\n"
        "------WebKitFormBoundaryq8Zt3XkP2vLm9RcA\n"
        'Content-Disposition: form-data; name="title"\n\nHarbor7Q#x\n'
        "------WebKitFormBoundaryq8Zt3XkP2vLm9RcA--\n"
    ),
}


@pytest.mark.parametrize("text", HONEST.values(), ids=HONEST.keys())
def test_honest_text_around_the_same_syntax_is_unchanged(text: str) -> None:
    assert redact_text(text, SALT)[0] == text


KEY = bytes((i * 167 + 91) % 251 ^ (i * 29) % 256 for i in range(32))
"""Bytes with a key's spread (about half the neighbours rising), fixed for the test."""
KEY_HEX = ":".join(f"{b:02x}" for b in KEY)

KEY_MATERIAL = {
    "python_bytes_of_a_list": (f"webhook_secret = bytes({list(KEY)})", str(list(KEY))[1:30]),
    "kotlin_byte_array": (
        f"val signingKey = byteArrayOf({', '.join(str(b - 256 if b > 127 else b) for b in KEY)})",
        ", ".join(str(b - 256 if b > 127 else b) for b in KEY)[:30],
    ),
    "c_array_with_size": (
        f"uint8_t aes_key[32] = {{{', '.join(f'0x{b:02X}' for b in KEY)}}};",
        ", ".join(f"0x{b:02X}" for b in KEY)[:30],
    ),
    "bytes_repr_under_a_name": (f"hmac_key = {KEY!r}", repr(KEY)[2:30]),
    "openssl_pkey_text": (
        f"Private-Key: (256 bit)\npriv:\n    {KEY_HEX[:44]}\n    {KEY_HEX[45:]}\npub:\n    04:ab",
        KEY_HEX[45:80],
    ),
    "private_numbers_decimal": (
        f"dmp1={int.from_bytes(KEY * 3, 'big')}, ",
        str(int.from_bytes(KEY * 3, "big"))[40:80],
    ),
}


@pytest.mark.parametrize(("text", "core"), KEY_MATERIAL.values(), ids=KEY_MATERIAL.keys())
def test_labelled_key_material_written_as_numbers_is_replaced(text: str, core: str) -> None:
    assert core not in redact_text(text, SALT)[0]


NUMBERS = {
    "sorted_sizes": "key_lengths = [16, 24, 32, 48, 64, 96, 128, 192, 256, 384, 512, 1024, 2048, 3072]",
    "counter_named_keys": "keys = [1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17]",
    "padding": "secret = bytes([0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0])",
    "public_components": "modulus:\n    00:c3:a1:b2:77\npublicExponent: 65537\npub:\n    04:6b:17:d1",
    "unlabelled_pixels": f"row = [{', '.join(map(str, KEY))}]",
}


@pytest.mark.parametrize("text", NUMBERS.values(), ids=NUMBERS.keys())
def test_numbers_that_are_no_key_stay(text: str) -> None:
    assert redact_text(text, SALT)[0] == text
