"""Credentials whose label is not beside them (red team 2026-12-06 rtsec8, classes F3 F21 F10 F17
F15 F16): a secret store with a neutral entry name, a value named by a path, a debugger's or a
REPL's echo, a word diff or a JSON Patch, a key shown in groups, a key hidden among invisible
letters or spelled in letter-like symbols.

The values and layouts are not the red team's (those are its repro scripts): they are held out, to
test the class rather than the examples. Each negative is a near miss that must stay as it is."""

from __future__ import annotations

import json

import pytest

from trajectory_platform.curation.redact import redact_text

SALT = b"named-elsewhere-salt"
PW = "Tulip+Gorge5083"
"""Memorable and short: entropy leaves it, so only the layout around it can find it."""

STORED = {
    "ssm_put_secure_string": f"aws ssm put-parameter --name /shop/cart --type SecureString --value '{PW}'",
    "ssm_get_json": json.dumps(
        {"Parameter": {"Name": "/shop/cart", "Type": "SecureString", "Value": PW, "Version": 3}}, indent=2
    ),
    "ssm_table_row": f"PARAMETER\tarn:aws:ssm:eu-west-2:9:parameter/shop\t/shop\tSecureString\t{PW}\t1",
    "keyvault_set": f"az keyvault secret set --vault-name kv-shop --name cart-entry --value {PW}",
    "keyvault_show": json.dumps(
        {"id": "https://kv-shop.vault.azure.net/secrets/cart-entry/77aa", "name": "cart-entry", "value": PW}
    ),
    "vault_kv_put": f"vault kv put secret/shop/cart entry={PW}",
    "vault_kv_get": f"$ vault kv get kv/shop\n===== Data =====\nKey     Value\n---     -----\nentry   {PW}\n",
    "sops_decrypt": f"$ sops -d shop.enc.yaml\ncart_entry: {PW}\n",
    "docker_secret_create": f'echo "{PW}" | docker secret create cart_entry -',
    "doppler_set": f"doppler secrets set CART_ENTRY '{PW}' --project shop",
    "kubectl_from_literal": f"kubectl create secret generic shop --from-literal=cart-entry='{PW}'",
}
PATHS = {
    "yq_assign": f"yq e -i '.shop.db.passwd = \"{PW}\"' values.yaml",
    "jq_assign": f"jq '.service.credentials.secretKey = \"{PW}\"' a.json",
    "xmlstarlet_update": f'xmlstarlet ed -u "/server/realm/@password" -v "{PW}" server.xml',
    "ansible_ini_file": (
        f"- ini_file:\n    dest: /etc/shop.ini\n    section: smtp\n    option: pass\n    value: {PW}\n"
    ),
    "powershell_env_item": f'Set-Item -Path Env:SHOP_TOKEN -Value "{PW}"',
    "json_patch": json.dumps([{"op": "add", "path": "/data/smtp_password", "value": PW}]),
    "json_patch_value_first": json.dumps([{"value": PW, "op": "replace", "path": "/auth/secret"}]),
    "word_diff": f"@@ -7 +7 @@\nSMTP_PASSWORD=[-placeholder-]{{+{PW}+}}",
    "word_diff_porcelain": f"@@ -2 +2 @@\n smtp_password: \n-placeholder\n+{PW}\n~\n",
}
DUMPS = {
    "php_var_dump": f'array(1) {{\n  ["smtp_pass"]=>\n  string({len(PW)}) "{PW}"\n}}',
    "php_print_r": f"Array\n(\n    [user] => shop\n    [api_secret] => {PW}\n)",
    "gdb_struct": f'$2 = {{user = 0x601 "shop", secret = 0x602 "{PW}"}}',
    "ipython_out": f"In [7]: conf['db']['password']\nOut[7]: '{PW}'",
    "irb_echo": f'irb(main):004:0> settings.fetch(:signing_key)\n=> "{PW}"',
    "irb_numbered_prompt": f'irb(main):012> Rails.application.credentials.smtp_password\n=> "{PW}"',
    "iex": f'iex(3)> Application.get_env(:shop, :secret_key_base)\n"{PW}"',
    "tinker": f"> config('services.mailgun.secret')\n= \"{PW}\"",
    "scala_3": f'scala> conf.getString("db.password")\nval res2: String = {PW}',
    "scala_2": f'scala> conf.getString("db.password")\nres2: String = {PW}',
    "jshell": f'jshell> props.getProperty("smtp.password")\n$4 ==> "{PW}"',
    "ghci": f'Prelude> lookupEnv "SHOP_API_SECRET"\nJust "{PW}"',
    "r": f'> keyring::key_get("db_password")\n[1] "{PW}"',
    "julia": f'julia> creds["access_token"]\n"{PW}"',
    "lua": f"> cfg.auth_token\n{PW}",
}


@pytest.mark.parametrize("text", STORED.values(), ids=STORED.keys())
def test_a_store_that_holds_secrets_redacts_a_neutrally_named_entry(text: str) -> None:
    assert PW not in redact_text(text, SALT)[0]


@pytest.mark.parametrize("text", PATHS.values(), ids=PATHS.keys())
def test_a_value_named_by_a_path_or_an_edit_format_is_redacted(text: str) -> None:
    assert PW not in redact_text(text, SALT, shell=True)[0]


@pytest.mark.parametrize("text", DUMPS.values(), ids=DUMPS.keys())
def test_a_debugger_or_repl_echo_of_a_credential_is_redacted(text: str) -> None:
    assert PW not in redact_text(text, SALT)[0]


def _notebook(source: list[str], output: dict[str, object]) -> str:
    cell = {"cell_type": "code", "execution_count": 5, "metadata": {}, "source": source, "outputs": [output]}
    return json.dumps({"cells": [cell], "metadata": {}, "nbformat": 4, "nbformat_minor": 5}, indent=1)


NOTEBOOKS = {
    "execute_result": _notebook(
        ["from shop import settings\n", "settings.MAILGUN_SECRET"],
        {"output_type": "execute_result", "data": {"text/plain": [repr(PW)]}, "metadata": {}},
    ),
    "one_line_source_stream": _notebook(
        ["print(vault.read('db')['password'])"], {"output_type": "stream", "text": [PW + "\n"]}
    ),
}


@pytest.mark.parametrize("text", NOTEBOOKS.values(), ids=NOTEBOOKS.keys())
def test_a_notebook_cell_reading_a_credential_redacts_the_value_its_output_shows(text: str) -> None:
    """The read is in the cell's ``source``, the value in its ``outputs``: two JSON fields."""
    redacted = redact_text(text, SALT)[0]
    assert PW not in redacted
    json.loads(redacted)


SEED = "MZXW6YTBOI4TQZLEN5XHIZLT"  # base32, random-looking
HEX_KEY = "9c41f07ab2d35e6810cc4fa793be2d06"
B64_KEY = "Zq3vL9tWm2Xr8Kp1Yh6Ns4Df0Gb7Jc5E"
GROUPED = {
    "base32_in_fives": (
        f"Manual entry code: {' '.join(SEED[i : i + 5] for i in range(0, 24, 5))}",
        SEED[5:10],
    ),
    "base32_nbsp_fours": ("Code: " + "\u00a0".join(SEED[i : i + 4] for i in range(0, 24, 4)), SEED[4:8]),
    "hex_in_fours_labelled": (f"master key: {' '.join(HEX_KEY[i : i + 4] for i in range(0, 32, 4))}", "f07a"),
    "base64_in_eights": (f"token = {' '.join(B64_KEY[i : i + 8] for i in range(0, 32, 8))}", B64_KEY[8:16]),
    "rows_under_a_label_line": (
        "Your secret key (keep it safe)\n" + "\n".join(B64_KEY[i : i + 16] for i in range(0, 32, 16)),
        B64_KEY[16:],
    ),
    "wrapped_at_sixteen": (
        "API secret:\n" + "\n".join(B64_KEY[i : i + 16] for i in range(0, 32, 16)),
        B64_KEY[:16],
    ),
}


@pytest.mark.parametrize(("text", "piece"), GROUPED.values(), ids=GROUPED.keys())
def test_a_key_shown_in_groups_is_redacted(text: str, piece: str) -> None:
    assert piece not in redact_text(text, SALT)[0]


TOKEN = "glpat-" + "Xb8RkqT2mNw7Lz4VhJ9c"


@pytest.mark.parametrize("filler", ["\u3164", "\u1160", "\uffa0", "\u2800", "\u115f"])
def test_a_key_between_invisible_letters_is_redacted(filler: str) -> None:
    hidden = filler.join(TOKEN)
    assert hidden[6:30] not in redact_text(f"log: {hidden} end", SALT)[0]


@pytest.mark.parametrize("base", [0x1F1E6, 0x1F170, 0x1F150], ids=["regional", "neg_squared", "neg_circled"])
def test_a_key_spelled_in_letter_symbols_is_redacted(base: int) -> None:
    key = "AKIA" + "ZQWERTYUIOPLKJ" + "27"
    spelled = "".join(chr(base + ord(ch) - 65) if ch.isalpha() else ch for ch in key)
    assert spelled not in redact_text(f"value {spelled}", SALT)[0]


UNTOUCHED = {
    "ssm_plain_string": json.dumps(
        {"Parameter": {"Name": "/shop/region", "Type": "String", "Value": "eu-west-2b"}}
    ),
    "jq_ordinary_field": "jq '.service.image = \"shop:v2.4-rc1\"' a.json",
    "git_config_user": "git config --global user.name 'Ana-Lopez2'",
    "word_diff_of_code": "@@ -3 +3 @@\nreturn [-compute(x)-]{+compute_v2(x, y=3)+}",
    "print_r_ordinary": "Array\n(\n    [role] => editor-v2\n    [port] => 5432\n)",
    "fingerprint_in_groups": "SHA256 fingerprint: 9c41 f07a b2d3 5e68 10cc 4fa7 93be 2d06",
    "gpg_fingerprint": "Key fingerprint = 9C41 F07A B2D3 5E68 10CC  4FA7 93BE 2D06 A1B2 C3D4",
    "uuid_and_date": "request: 3f2a9b1c-2d4e-4f60-8a7b-1c2d3e4f5a6b on 2026-12-06",
    "list_of_names_in_rows": "Hosts:\nweb01-frontend\ndb02-replicas\ncache03",
    "hangul_text_with_filler": "이름: 홍길동 \u3164 주소: 서울",
    "r_ordinary_lookup": '> Sys.getenv("R_HOME")\n[1] "/usr/lib/R-4.3"',
    "lua_password_length": "> #cfg.password\n16",
    "notebook_ordinary_output": _notebook(
        ["df = load()\n", "df.columns[2]"],
        {"output_type": "execute_result", "data": {"text/plain": ["'unit_price'"]}, "metadata": {}},
    ),
    "flags": "Teams: \U0001f1fa\U0001f1f8 vs \U0001f1ec\U0001f1e7 at 20:00",
}


@pytest.mark.parametrize("text", UNTOUCHED.values(), ids=UNTOUCHED.keys())
def test_near_misses_stay_as_they_are(text: str) -> None:
    assert redact_text(text, SALT, shell=text.startswith(("jq", "git")))[0] == text
