"""Decode-then-scan: secrets hidden by an encoding are found and replaced where they stand in the
raw text; ordinary encoded text (digests, escaped URLs, coloured output, entities) is kept."""

from __future__ import annotations

import base64
import codecs
import gzip
import itertools
import json
import quopri
import random
import re
import zlib
from collections.abc import Callable
from urllib.parse import quote, quote_plus

import pytest

from trajectory_platform.curation.redact import redact_text
from trajectory_platform.curation.redact.decoders import (
    _BACKSLASH_ESCAPE,
    _NON_ASCII,
    _UNICODE_ESCAPE,
    INFLATE_LIMIT,
    MAX_DEPTH,
    _in_mixed_token,
    _long_tokens,
    bytes_as_text,
    decoded_views,
)

SALT = b"encodings-salt!!"
AWS = "AKIAQWERTYUIOP234567"
GITHUB = "ghp_" + "aB3dE5fG7hJ9kL1mN3pQ5rS7tU9vW1xY3z"


def _wrapped(text: str, width: int, encode: Callable[[bytes], bytes] = base64.b64encode) -> str:
    """``text`` in base64 (or base32), cut into lines of ``width`` as ``base64 -w`` and MIME write it."""
    encoded = encode(text.encode()).decode()
    return "\n".join(encoded[i : i + width] for i in range(0, len(encoded), width))


def _git_binary_patch(content: bytes) -> str:
    """``content`` as ``git diff --binary`` writes a new file's hunk: deflated, then base85 lines of
    up to 52 bytes, each led by a letter giving its byte count."""
    data = zlib.compress(content)
    lines = []
    for start in range(0, len(data), 52):
        chunk = data[start : start + 52]
        count = chr(ord("A") + len(chunk) - 1) if len(chunk) <= 26 else chr(ord("a") + len(chunk) - 27)
        lines.append(count + base64.b85encode(chunk, pad=True).decode())
    return f"GIT binary patch\nliteral {len(content)}\n" + "\n".join(lines) + "\n\n"


def _entities(text: str, form: str) -> str:
    """Every character of ``text`` as ``form`` writes its code (``&#{}``: an entity without its
    ``;``, ``\\x{{{:x}}}``: Perl's braced hex)."""
    return "".join(form.format(ord(c)) for c in text)


def _hex_groups_of_four(text: str) -> str:
    """``text`` in hex, four digits a group, as ``xxd`` writes a row without its offset."""
    digits = text.encode().hex()
    return " ".join(digits[i : i + 4] for i in range(0, len(digits), 4))


_TWO_BYTE_ESCAPES = ("\x1b(B", "\x1b7", "\x1b8", "\x1b=", "\x1b>", "\x1bM")


def _interleaved(text: str) -> str:
    """``text`` with a terminal escape that is no control sequence (a charset, a saved cursor, the
    keypad's mode) after every character."""
    return "".join(c + _TWO_BYTE_ESCAPES[i % len(_TWO_BYTE_ESCAPES)] for i, c in enumerate(text))


def _variation_selectors(text: str) -> str:
    """``text``'s bytes smuggled as variation selectors (VS1 to VS16 bytes 0 to 15, VS17 on 16 up)."""
    return "".join(chr(0xFE00 + b) if b < 16 else chr(0xE0100 + b - 16) for b in text.encode())


def _utf7(text: str) -> str:
    """``text`` in UTF-7, every character in its base64 of UTF-16 (as an encoder that escapes all)."""
    return "+" + base64.b64encode(text.encode("utf-16-be")).decode().rstrip("=") + "-"


def _shell_escaped(text: str) -> str:
    """``text`` with a backslash before every second character, which the shell removes."""
    return "".join("\\" + c if i % 2 else c for i, c in enumerate(text))


_SMALL_CAPITALS = dict(
    zip(
        "AKIQWERTYUOP",
        "\u1d00\u1d0b\u026a\ua7af\u1d21\u1d07\u0280\u1d1b\u028f\u1d1c\u1d0f\u1d18",
        strict=True,
    )
)


def _small_capitals(text: str) -> str:
    """``text``'s capitals drawn as small capitals (``ᴀᴋɪᴀ``) where Unicode has one."""
    return "".join(_SMALL_CAPITALS.get(c, c) for c in text)


def _groups_of_four(text: str) -> str:
    return " ".join(text[i : i + 4] for i in range(0, len(text), 4))


def _overstruck(text: str) -> str:
    """``text`` in bold as ``nroff`` writes it for a terminal: each character, a backspace, itself."""
    return "".join(f"{c}\b{c}" for c in text)


_KEYSTORE = (
    b"\x00\x01SQLite format 3\x00" + bytes(range(256)) + f"aws_access_key_id={AWS}".encode() + b"\x00" * 9
)
_CYRILLIC_AWS = AWS.replace("A", "\u0410").replace("I", "\u0406").replace("E", "\u0415")
_GREEK_AWS = AWS.replace("K", "\u039a").replace("O", "\u039f").replace("T", "\u03a4")
HIDDEN = {
    "ansi_wrapped_key": (f"key: \x1b[31m{AWS}\x1b[0m done", AWS),
    "ansi_connection_string": ("\x1b[1mpostgres://admin:S3cr3tPassw0rd@db:5432/app\x1b[0m", "S3cr3tPassw0rd"),
    "url_encoded": ("token=" + quote(GITHUB, safe=""), GITHUB),
    "fully_percent_encoded": ("q=" + "".join(f"%{b:02X}" for b in AWS.encode()), AWS),
    "u_escaped_json_in_a_shell_string": (
        'echo "{\\"k\\": \\"' + "".join(f"\\u{ord(c):04x}" for c in AWS) + '\\"}"',
        AWS,
    ),
    "hex_encoded": ("stdout: " + AWS.encode().hex(), AWS),
    "html_entities": ("<p>" + "".join(f"&#{ord(c)};" for c in GITHUB) + "</p>", GITHUB),
    "zero_width_between_letters": ("stdout: " + "\u200b".join(AWS) + " done", "\u200b".join(AWS)),
    "soft_hyphen_and_joiner": ("stdout: " + AWS[:8] + "\u00ad" + AWS[8:12] + "\u200d" + AWS[12:], AWS[12:]),
    "fullwidth_forms": ("stdout: " + "".join(chr(ord(c) + 0xFEE0) for c in AWS), chr(ord(AWS[0]) + 0xFEE0)),
    "chr_calls_joined": ("k = " + " + ".join(f"chr({ord(c)})" for c in AWS), f"chr({ord(AWS[-1])})"),
    "sql_char_calls": ("SELECT " + " || ".join(f"CHAR({ord(c)})" for c in AWS), f"CHAR({ord(AWS[-2])})"),
    "js_escape_percent_u": ("unescape('" + "".join(f"%u{ord(c):04X}" for c in AWS) + "')", "%u0041%u004B"),
    "code_points": ("chars: " + " ".join(f"U+{ord(c):04X}" for c in AWS), "U+0051 U+0057"),
    "css_escapes": ('content: "' + "".join(f"\\{ord(c):x} " for c in AWS) + '"', "\\51 \\57 "),
    "repr_of_escaped_bytes": ("'" + "".join(f"\\\\x{b:02x}" for b in AWS.encode()) + "'", "\\\\x51"),
    "utf16_big_endian_hex": ("bytes: " + AWS.encode("utf-16-be").hex(), AWS.encode("utf-16-be").hex()[8:24]),
    "java_utf16_with_mark": (
        "getBytes: feff" + AWS.encode("utf-16-be").hex(),
        AWS.encode("utf-16-be").hex()[8:24],
    ),
    "xxd_include_rows": (
        "unsigned char k[] = {\n  "
        + ",\n  ".join(", ".join(f"0x{b:02x}" for b in AWS.encode()[i : i + 12]) for i in range(0, 20, 12))
        + "\n};",
        "0x51, 0x57",
    ),
    "octal_escaped": ("printf '" + "".join(f"\\{ord(c):03o}" for c in AWS) + "'", f"\\{ord(AWS[-1]):03o}"),
    "quoted_printable": ("X-Key: " + "".join(f"={b:02X}" for b in AWS.encode()), f"={ord(AWS[4]):02X}"),
    "hex_with_0x": ("stdout: 0x" + AWS.encode().hex(), AWS.encode().hex()),
    "hex_byte_by_byte": ("stdout: " + " ".join(f"{b:02x}" for b in AWS.encode()), "41 4b 49 41"),
    "spelled_out": ("stdout: " + " ".join(AWS), " ".join(AWS)),
    "spelled_with_dashes": ("stdout: " + "-".join(AWS), "-".join(AWS)),
    "concatenated_literals": ('key_id = "AKIAQWER" + "TYUIOP234567"', "TYUIOP234567"),
    "implicit_concatenation": ("k = ('AKIAQWERTY' 'UIOP234567')", "UIOP234567"),
    "line_continuation": ('k = "AKIAQWERTY\\\n    UIOP234567"', "UIOP234567"),
    "percent_encoded_twice": ("q=" + "".join(f"%25{b:02X}" for b in AWS.encode()), "%2541%254B"),
    "base64_twice": (
        "blob: " + base64.b64encode(base64.b64encode(AWS.encode())).decode(),
        base64.b64encode(base64.b64encode(AWS.encode())).decode(),
    ),
    "python_long_unicode_escapes": (
        "print('" + "".join(f"\\U{ord(c):08x}" for c in AWS) + "')",
        "".join(f"\\U{ord(c):08x}" for c in AWS[4:]),
    ),
    "braced_unicode_escapes": (
        "k = `" + "".join(f"\\u{{{ord(c):x}}}" for c in AWS) + "`",
        f"\\u{{{ord(AWS[-1]):x}}}",
    ),
    "cyrillic_look_alikes": ("stdout: " + _CYRILLIC_AWS, _CYRILLIC_AWS[3:]),
    "greek_look_alikes": ("key " + _GREEK_AWS + " set", _GREEK_AWS[2:]),
    "a_list_of_characters": ("key = " + str(list(AWS)), "', '".join(AWS[4:])),
    "characters_between_commas": ("echo " + ", ".join(GITHUB), ", ".join(GITHUB[4:])),
    "character_codes": (
        "String.fromCharCode(" + ", ".join(str(ord(c)) for c in AWS) + ")",
        ", ".join(str(ord(c)) for c in AWS[4:]),
    ),
    "narrow_wrapped_base64": ("$ base64 -w 16 creds\n" + _wrapped(f"aws_access_key_id = {AWS}\n", 16), AWS),
    "c_byte_array": (
        "static const uint8_t k[] = {" + ", ".join(f"0x{b:02x}" for b in AWS.encode()) + "};",
        ", ".join(f"0x{b:02x}" for b in AWS.encode()[4:]),
    ),
    "hex_of_utf16": ("stdout: " + f"key = {AWS}".encode("utf-16-le").hex(), AWS.encode("utf-16-le").hex()),
    "gzip_under_base64": (
        "export PAYLOAD='"
        + base64.b64encode(gzip.compress(b"ID:master PW:dipPr10Gg!", mtime=0)).decode()
        + "'",
        base64.b64encode(gzip.compress(b"ID:master PW:dipPr10Gg!", mtime=0)).decode(),
    ),
    "zlib_under_base64": (
        "export PAYLOAD='" + base64.b64encode(zlib.compress(b"pwd = 'Tr0ub4dor&3'")).decode() + "'",
        base64.b64encode(zlib.compress(b"pwd = 'Tr0ub4dor&3'")).decode(),
    ),
    "written_backwards": ("echo '" + f"aws_secret_access_key = {AWS}"[::-1] + "'", AWS[::-1]),
    "password_written_backwards": ("say " + "db_password: 'Tr0ub4dor&3'"[::-1], "Tr0ub4dor&3"[::-1]),
    "written_backwards_after_pw": (
        "echo '" + "ssh admin@10.0.0.7 (pw:IhqSb1Gg)"[::-1] + "'",
        "IhqSb1Gg"[::-1],
    ),
    "rot13": ("note: " + codecs.encode(f"github_token = {GITHUB}", "rot13"), codecs.encode(GITHUB, "rot13")),
    "rot13_after_pw": (
        "x = '" + codecs.encode("ssh admin@10.0.0.7 (pw:IhqSb1Gg)", "rot13") + "'",
        codecs.encode("IhqSb1Gg", "rot13"),
    ),
    "password_in_rot13": ("x = '" + codecs.encode("passwd: hunter2pass", "rot13") + "'", "uhagre2cnff"),
    "hex_of_lines": ("stdout (hex): " + f"aws_access_key_id = {AWS}\n".encode().hex(), AWS.encode().hex()),
    "base64_of_hex": (
        "blob: " + base64.b64encode(f"key = {AWS}\n".encode().hex().encode()).decode(),
        base64.b64encode(f"key = {AWS}\n".encode().hex().encode()).decode(),
    ),
    "git_binary_patch": (
        "diff --git a/store.db b/store.db\nnew file mode 100644\n" + _git_binary_patch(_KEYSTORE),
        _git_binary_patch(_KEYSTORE).split("\n")[2],
    ),
    "ascii85": (
        "stream <~" + base64.a85encode(f"key = {AWS}\n".encode()).decode() + "~>",
        base64.a85encode(f"key = {AWS}\n".encode()).decode(),
    ),
    "base85": (
        "blob = base64.b85decode(b'" + base64.b85encode(f"token: {GITHUB}\n".encode()).decode() + "')",
        base64.b85encode(f"token: {GITHUB}\n".encode()).decode(),
    ),
    "ascii85_without_delimiters": (
        '<data value="' + base64.a85encode(f"aws_access_key_id = {AWS}".encode()).decode() + '"/>',
        base64.a85encode(f"aws_access_key_id = {AWS}".encode()).decode(),
    ),
    "base32_of_a_line": (
        "blob: " + base64.b32encode(b"ID:master PW:dipPr10Gg!").decode(),
        base64.b32encode(b"ID:master PW:dipPr10Gg!").decode(),
    ),
    "base32_lowercase_unpadded": (
        "id=" + base64.b32encode(b"mysql -u root -pcackle9").decode().lower().rstrip("="),
        base64.b32encode(b"mysql -u root -pcackle9").decode().lower().rstrip("="),
    ),
    # a name glued on with a hyphen or underscore: neither base32 nor base64 holds one, so the
    # whole token decoded to nothing
    "base32_with_a_name_glued_after": (
        "upload "
        + base64.b32encode(b'api_secret = "Qm7vTxR2pLk8sWzNcE4hJa9d"').decode().rstrip("=")
        + "-suffix",
        base64.b32encode(b'api_secret = "Qm7vTxR2pLk8sWzNcE4hJa9d"').decode().rstrip("=")[8:40],
    ),
    "base32_with_a_name_glued_after_an_underscore": (
        "blob " + base64.b32encode(f"token: {GITHUB}".encode()).decode() + "_v2 stored",
        base64.b32encode(f"token: {GITHUB}".encode()).decode()[8:40],
    ),
    "base32_seed_with_a_short_name_glued_after": ("otp Q336IN72UWT7ZYK5-v1", "Q336IN72UWT7ZYK5"),
    "base32_wrapped_at_76": (
        "$ base32 creds\n" + _wrapped(f"[default]\naws_access_key_id = {AWS}\n", 76, base64.b32encode),
        _wrapped(f"[default]\naws_access_key_id = {AWS}\n", 76, base64.b32encode).split("\n")[1],
    ),
    "url_encoded_line_with_a_short_password": (
        "GET /login?next=" + quote("db password: Hunter2x", safe=""),
        "Hunter2x",
    ),
    "form_encoded_line": (
        "body: " + quote_plus('curl -X PUT -u "admin:dG9rZW4g" https://api.internal'),
        "dG9rZW4g",
    ),
    "quoted_printable_mail_body": (
        "Content-Transfer-Encoding: quoted-printable\n\n"
        + quopri.encodestring(b"password = 'cackle!xyz9'\n").decode(),
        "cackle!xyz9",
    ),
    "quoted_printable_soft_line_break": (
        quopri.encodestring(
            b"ALTER USER 'root'@'localhost' IDENTIFIED WITH mysql_native_password BY 'SqLpa5sW0rD';"
        ).decode(),
        "pa5sW0rD",
    ),
    "quoted_printable_spaces_encoded": (
        quopri.encodestring(b"ssh deploy@10.0.0.7 password: IhqSb1Gg", quotetabs=True).decode(),
        "IhqSb1Gg",
    ),
    # an assignment alone, its spaces and "=" encoded: no sign but escapes side by side (full planting)
    "quoted_printable_assignment_alone": (
        quopri.encodestring(
            b'api_secret = "Qm7v/TxR2pLk8sWz/NcE4hJa9dYf+Gb3uKo1/PHW"', quotetabs=True
        ).decode(),
        "Qm7v/TxR2pLk8sWz",
    ),
    "quoted_printable_assignment_alone_in_single_quotes": (
        quopri.encodestring(b"client_secret = 'Zr8/Wq3LmT6yHc1v/Kd9PsXb+Fn4e/JgA'", quotetabs=True).decode(),
        "Wq3LmT6yHc1v",
    ),
    "binary_digits": (
        "decode me: " + " ".join(f"{b:08b}" for b in f"key = {AWS}".encode()),
        " ".join(f"{b:08b}" for b in AWS.encode()[4:]),
    ),
    "binary_digits_joined": (
        "bits=" + "".join(f"{b:08b}" for b in b"db_password: 'Tr0ub4dor&3'"),
        "".join(f"{b:08b}" for b in b"db_password: 'Tr0ub4dor&3'"),
    ),
    "codes_between_spaces": (
        "ord: " + " ".join(str(ord(c)) for c in GITHUB),
        " ".join(str(ord(c)) for c in GITHUB[4:]),
    ),
    "uuencoded": (
        codecs.encode(f"[default]\naws_access_key_id = {AWS}\n".encode(), "uu").decode(),
        codecs.encode(f"[default]\naws_access_key_id = {AWS}\n".encode(), "uu").decode().split("\n")[1],
    ),
    "overstruck_bold": (_overstruck(f"aws_access_key_id = {AWS}"), _overstruck(AWS)[3:]),
    "underlined": ("".join(f"_\b{c}" for c in f"token: {GITHUB}"), "".join(f"_\b{c}" for c in GITHUB[1:])),
    "one_character_a_line": ("GitHub token:\n" + "\n".join(GITHUB), "\n".join(GITHUB)),
    "one_character_a_crlf_line": ("\r\n".join(AWS) + "\r\n", "\r\n".join(AWS)),
    "chunks_joined_in_python": (
        f"key = ''.join(['{AWS[:5]}', '{AWS[5:10]}', '{AWS[10:15]}', '{AWS[15:]}'])",
        AWS[5:10],
    ),
    "chunks_joined_in_javascript": (
        f'const t = ["{GITHUB[:12]}", "{GITHUB[12:24]}", "{GITHUB[24:]}"].join("");',
        GITHUB[12:24],
    ),
    "chunks_imploded_in_php": (f"$k = implode('', ['{AWS[:10]}', '{AWS[10:]}']);", AWS[10:]),
    "chunks_joined_in_go": (
        f'k := strings.Join([]string{{"{GITHUB[:20]}", "{GITHUB[20:]}"}}, "")',
        GITHUB[20:],
    ),
    "chunks_concatenated_in_sql": (f"SELECT CONCAT('{AWS[:10]}', '{AWS[10:]}') AS k", AWS[10:]),
    "mysql_glued_password": ("mysql -u root -phunter2pass -h db", "hunter2pass"),
    "sshpass": ('sshpass -p "Tr0ub4dor&3" ssh deploy@host', "Tr0ub4dor&3"),
    "curlopt_userpwd": ('curl_setopt($ch, CURLOPT_USERPWD, "admin:pa55word");', "pa55word"),
    # the fifth red team's classes: each leaked before its decoder read it
    "entities_without_semicolons": (_entities(f"token: {GITHUB}", "&#{}"), _entities(GITHUB[4:], "&#{}")),
    "hex_entities_without_semicolons": (
        _entities(f"token: {GITHUB}", "&#x{:x}"),
        _entities(GITHUB[4:], "&#x{:x}"),
    ),
    "hex_bytes_between_dashes": (
        "-".join(f"{b:02X}" for b in f"GITHUB_TOKEN={GITHUB}".encode()),
        "-".join(f"{b:02X}" for b in GITHUB[4:].encode()),
    ),
    "hex_in_groups_of_four": (
        "key material: " + _hex_groups_of_four(f"GITHUB_TOKEN={GITHUB}\n"),
        _hex_groups_of_four(f"GITHUB_TOKEN={GITHUB}\n")[-30:],
    ),
    "perl_braced_hex_escapes": (
        'print "' + _entities(GITHUB, "\\x{{{:x}}}") + '"',
        _entities(GITHUB[4:], "\\x{{{:x}}}"),
    ),
    "printf_b_octal_escapes": (
        "printf '%b' '" + _entities(f"key = {AWS}", "\\0{:03o}") + "'",
        _entities(AWS[4:], "\\0{:03o}"),
    ),
    "two_byte_terminal_escapes": (_interleaved(f"token: {GITHUB}"), _interleaved(GITHUB)[12:]),
    "tag_characters": (
        "Here is the summary." + "".join(chr(0xE0000 + ord(c)) for c in f"GITHUB_TOKEN={GITHUB}"),
        "".join(chr(0xE0000 + ord(c)) for c in GITHUB[4:]),
    ),
    "variation_selector_bytes": (
        "Done! \U0001f600" + _variation_selectors(f"token: {GITHUB}"),
        _variation_selectors(GITHUB[4:]),
    ),
    "struck_through": (
        "old (revoked): " + "".join(c + "\u0336" for c in GITHUB),
        "\u0336".join(GITHUB[4:]),
    ),
    "small_capitals": ("id " + _small_capitals(AWS), _small_capitals(AWS)[4:]),
    "utf16le_with_nuls": (
        "$ cat cfg.ini\n\xff\xfe" + f"GITHUB_TOKEN={GITHUB}\r\n".encode("utf-16-le").decode("latin-1"),
        GITHUB[4:].encode("utf-16-le").decode("latin-1"),
    ),
    "percent_encoded_utf16le": (
        "GET /cb?state=" + "".join(f"%{b:02X}" for b in f"GITHUB_TOKEN={GITHUB}".encode("utf-16-le")),
        "".join(f"%{b:02X}" for b in GITHUB[4:].encode("utf-16-le")),
    ),
    "repr_of_utf16_bytes": (
        repr(f"aws_access_key_id = {AWS}\n".encode("utf-16")),
        repr(AWS[4:].encode("utf-16-le"))[2:-1],
    ),
    "utf7": ("charset=utf-7\n\n" + _utf7(f"GITHUB_TOKEN={GITHUB}"), _utf7(f"GITHUB_TOKEN={GITHUB}")),
    "base64_of_utf32": (
        "blob=" + base64.b64encode(f"GITHUB_TOKEN={GITHUB}".encode("utf-32-le")).decode(),
        base64.b64encode(f"GITHUB_TOKEN={GITHUB}".encode("utf-32-le")).decode(),
    ),
    "powershell_char_casts": (
        "$t = " + "+".join(f"[char]0x{ord(c):x}" for c in GITHUB),
        "+".join(f"[char]0x{ord(c):x}" for c in GITHUB[4:]),
    ),
    "java_char_casts": (
        'String t = "" + ' + " + ".join(f"(char){ord(c)}" for c in GITHUB) + ";",
        " + ".join(f"(char){ord(c)}" for c in GITHUB[4:]),
    ),
    "vb_chr_of_hex": (
        "t = " + " & ".join(f"ChrW(&H{ord(c):X})" for c in GITHUB),
        " & ".join(f"ChrW(&H{ord(c):X})" for c in GITHUB[4:]),
    ),
    "c_octal_array": (
        "static const char k[] = {" + ", ".join(f"0{ord(c):o}" for c in GITHUB) + ", 0};",
        ", ".join(f"0{ord(c):o}" for c in GITHUB[4:]),
    ),
    "codes_one_a_line": (
        ">>> for c in tok: print(ord(c))\n" + "\n".join(str(ord(c)) for c in GITHUB) + "\n",
        "\n".join(str(ord(c)) for c in GITHUB[4:]),
    ),
    "shell_backslashes_before_letters": (
        "curl -H Authorization:\\ Bearer\\ " + _shell_escaped(GITHUB) + " https://api.example.com",
        _shell_escaped(GITHUB)[8:],
    ),
    "spelled_between_wide_separators": ("Read it back: " + " - ".join(AWS), " - ".join(AWS[4:])),
    "spelled_between_hashes": (f"echo '{'#'.join(GITHUB)}' | tr -d '#'", "#".join(GITHUB[4:])),
    "groups_of_four": ("Your key (shown once):\n  " + _groups_of_four(AWS), _groups_of_four(AWS)[5:]),
}


@pytest.mark.parametrize(
    ("text", "kind"),
    [
        (
            "$ base64 creds.ini\n"
            + _wrapped(f"[default]\naws_access_key_id = {AWS}\nregion = eu-west-1\n", 76),
            "AWS_KEY",
        ),
        ("-----\n" + _wrapped(f"export GITHUB_TOKEN={GITHUB}\n", 64) + "\n-----", "GITHUB_TOKEN"),
        (
            "powershell -EncodedCommand "
            + base64.b64encode(f"$env:AWS_ACCESS_KEY_ID='{AWS}'".encode("utf-16-le")).decode(),
            "AWS_KEY",
        ),
    ],
    ids=["base64_wrapped_at_76", "base64_wrapped_at_64", "powershell_encoded_command"],
)
def test_a_credential_in_wrapped_or_utf16_base64_is_found_as_what_it_is(text: str, kind: str):
    """``base64`` wraps its output at 76 columns, so the key inside is cut across two lines and no
    line decodes to it; PowerShell's ``-EncodedCommand`` is base64 of UTF-16LE. Either way the
    finding names the credential's kind, not a random-looking line."""
    redacted, findings = redact_text(text, SALT)
    assert kind in {f.kind for f in findings}, [(f.kind, f.detector) for f in findings]
    assert not any(line and line in redacted for line in text.splitlines()[1:-1]), redacted


def encodings_of(value: str) -> list[str]:
    return [
        value,
        quote(value, safe=""),
        "".join(f"%{b:02X}" for b in value.encode()),
        value.encode().hex(),
        "".join(f"\\u{ord(c):04x}" for c in value),
        "".join(f"&#{ord(c)};" for c in value),
    ]


@pytest.mark.parametrize("case", sorted(HIDDEN))
def test_an_encoded_secret_is_replaced_where_it_stands(case):
    text, secret = HIDDEN[case]
    redacted, findings = redact_text(text, SALT)
    assert findings, case
    assert not any(form in redacted for form in encodings_of(secret)), (case, redacted)


KEPT = [
    "commit 3f2a9c1e5b7d4f6a8c0e2b4d6f8a0c2e4b6d8f0a merged",
    "sha256 9b74c9897bac770ffc029102a200c5de1a7f9d7f8b3a1e4f5c6d7e8f9a0b1c2d",
    "GET https://example.com/search?q=hello%20world&page=2",
    "\x1b[32mPASSED\x1b[0m 12 tests in 0.3s",
    "&lt;div class=&quot;x&quot;&gt;",
    "48656c6c6f20776f726c6421 is hex for a greeting",
    "tar -pxf archive.tar && gcc -pthread main.c",
    "mysql -p -u root",
    "naïve café, 日本語のログ, x ≤ y\u00a0— done…",
    "ｈｅｌｌｏ　ｗｏｒｌｄ: fullwidth prose is not a key",
    "a=3D b, c=0A d, RECORD: pkg/x.py,sha256=06uRx6IWfY0ebR_OW9FHCaisqekroxHwEoMbk32NyXs,183",
    "printf '\\101\\102\\103\\n'",
    'print("a" + "b", "x" "y") and echo "line one\\n" "line two"',
    "ssh fingerprint MD5:9d:38:5b:83:a9:17:52:92:56:1a:5e:c4:d4:81:8e:0a",
    "the alphabet a b c d e f g h i j k l m n o p is sixteen letters long",
    "uuid 3f2a9c1e-5b7d-4f6a-8c0e-2b4d6f8a0c2e and 0x7fffffffffffffffffffffff",
    "Ошибка: файл config.yaml не найден (код 404), Москва2024, повторите попытку",
    "ΑΒΓ τεστ: Ελληνικά κείμενα v2 and Σ(x) over 16 terms",
    "temps = [72, 75, 68, 70, 71, 73, 74, 69, 80, 81, 77, 76, 79, 78, 82, 83, 85, 90]",
    "static const char greeting[] = {"
    + ", ".join(f"0x{b:02X}" for b in b"Hello, world! How are you today?")
    + "};",
    "const b64 = [" + ", ".join(f"0x{ord(c):02x}" for c in "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdef") + "]",
    "wide: " + "Hello from a Windows tool, version 2".encode("utf-16-le").hex(),
    "    return ctx.ln(x, prec=wp) / ctx.ln(b, prec=wp)",
    "def dict_from_cookiejar(cj: CookieJar) -> dict[str, str | None]:",
    "RECORD: aiohttp/_websocket/writer.py,sha256=wp3cNbHeYuOllMeCf_eBgGsHjKlMnOpQrStUvWxYz01,11632",
    "ids: 101, 102, 103, 104, 105, 106, 107, 108, 109, 110, 111, 112, 113, 114, 115, 116",
    "letters = ['a', 'b', 'c', 'd', 'e', 'f', 'g', 'h', 'i', 'j', 'k', 'l', 'm', 'n', 'o', 'p']",
    "s = '\\U0001f600 ok' and `\\u{1F600}`",
    json.dumps({"letters": list("abcdefghijklmnopqrst"), "argv": list("the quick brown fox jumps over")}),
    json.dumps({"codes": [ord(c) for c in "hello world, again!"], "temps": [72, 75, 68, 70, 71, 73, 74, 69]}),
    "if(x>0&&y<10){total+=x*y;count++;}else{skip(x);}  // dense code in base85's alphabet",
    "render(mode=3D) RECORD: pkg/y.py,sha256=06uRx6IWfY0ebR_OW9FHCaisqekroxHwEoMbk32NyXs,183",
    "GET https://example.com/a+b/c%20d?q=x+y%21&n=1+2",
    "base32: " + base64.b32encode(b"Hello, World! A greeting.").decode(),
    "scores 72 75 68 70 71 73 74 69 80 81 77 76 79 78 82 83 85 90 and ports 443 8080 22 53",
    "mask " + " ".join(f"{b:08b}" for b in bytes([0, 255, 128, 7, 1, 254, 3, 9, 200, 16])),
    "ERROR: FILE NOT FOUND\nWARNING: 3 TESTS SKIPPED (SEE LOG)\nMAKE ALL 2>&1 | TEE BUILD.LOG",
    codecs.encode(b"\x00\x01\x02binary\xff\xfe blob of no text at all\x00\x00", "uu").decode(),
    "assert(result==expected),'mismatch:'+str(result)[:80]+'...'  # and in ascii85's",
    "U+0041 LATIN CAPITAL LETTER A, U+00E9 LATIN SMALL LETTER E WITH ACUTE, U+1F600 GRINNING FACE",
    "title = chr(72) + chr(101) + chr(108) + chr(108) + chr(111) + chr(44) + chr(32) + chr(87) + chr(111)",
    '.icon::before { content: "\\f101 \\f102 \\f103 \\f104 \\f105 \\f106 \\f107 \\f108"; }',
    "java: feff" + "Hello from a Java tool, version 2".encode("utf-16-be").hex(),
    "\n".join("VERTICALTEXTSAMPLEWORDS"),
    "\n".join("NNGNNNGGNNNNNGNNNN") + "\n",
    "spinner |\b/\b-\b\\\b|\b/\b-\b\\\b done",
    _overstruck("NAME") + "\n     ls - list directory contents\n" + "".join(f"_\b{c}" for c in "SYNOPSIS"),
    "label = ', '.join(['alpha', 'beta', 'gamma'])",
    "path = ''.join(['src/', 'trajectory_platform/', 'curation.py'])",
    "SELECT CONCAT(first_name, ' ', last_name), CONCAT('id-', 'abc', '-', 'def') FROM users",
    # the fifth red team's encodings, of ordinary text, and text their decoders must not misread
    "-".join(f"{b:02X}" for b in b"Build succeeded with 3 warnings in module payments"),
    "key material: " + _hex_groups_of_four("release notes: fixed crash when opening large files\n"),
    "0000000 6854 2065 7571 6369 206b 7262 776f 206e\n0000020 6f66 2078 756a 706d 2073 766f 7265 7420",
    "years 2019 2020 2021 2022 2023 2024 2025 2026 and ports 8080 8443 9090 9443 3000 5000",
    _entities("Build succeeded with 3 warnings in module payments", "&#{}"),
    _entities("release notes: fixed crash", "&#x{:x}"),
    'print "' + _entities("Build succeeded with 3 warnings", "\\x{{{:x}}}") + '"',
    "printf '%b' '" + _entities("Build succeeded with 3 warnings", "\\0{:03o}") + "'",
    "\x1b(B\x1b[m done \x1b7saved\x1b8 \x1b=keypad\x1b> \x1bMscrolled",
    "hi" + "".join(chr(0xE0000 + ord(c)) for c in "Build succeeded with 3 warnings in module payments"),
    "flag \U0001f3f4\U000e0067\U000e0062\U000e0073\U000e0063\U000e0074\U000e007f and a heart \u2764\ufe0f",
    "Done! \U0001f600" + _variation_selectors("Build succeeded with 3 warnings"),
    "Ti\u00ea\u0301ng Vi\u00ea\u0323t, cafe\u0301 au lait, s\u0336t\u0336r\u0336u\u0336c\u0336k\u0336",
    "\u1d1b\u029c\u1d07 \u0299\u1d1c\u026a\u029f\u1d05 \u1d18\u1d00ss\u1d07\u1d05 small caps v2",
    "\xff\xfe" + "Hello from a Windows tool, version 2\r\n".encode("utf-16-le").decode("latin-1"),
    "charset=utf-7\n\n" + _utf7("Build succeeded with 3 warnings"),
    'String t = "" + ' + " + ".join(f"(char){ord(c)}" for c in "Hello, world! How are you?") + ";",
    "t = " + " & ".join(f"ChrW(&H{ord(c):X})" for c in "Hello, world! How are you?"),
    "static const char k[] = {" + ", ".join(f"0{ord(c):o}" for c in "Hello, world! How are you?") + ", 0};",
    "\n".join(str(n) for n in range(100, 120)) + "\n",
    "type C:\\Windows\\System32\\drivers\\etc\\hosts and C:\\Program Files\\Vendor\\App\\bin",
    'printf("a\\nb\\tc\\nd\\ne\\n") and grep -E "^\\w+\\s\\d+\\S\\W"',
    "Read it back: " + " - ".join("thequickbrownfox"),
    "rele asen otes :fix edcr ashw, and this will take much time here",
    "- - - - - - - - - - - - - - - - - -",
    "output:\npVd8sc3Do3B9QsjukQDyBmwmzcsxFQA3yDLd6FLZ4ZihF18FntRSr7nJCEuJxroagFSi\n",
    "output:\n" + base64.b32encode(b"src/payments/invoice_renderer.py").decode().lower().rstrip("=") + "\n",
    "output:\n" + _wrapped("Build succeeded with 3 warnings in module payments", 30) + "\n",
]


@pytest.mark.parametrize("text", KEPT)
def test_ordinary_encoded_text_is_kept(text):
    assert redact_text(text, SALT)[0] == text


def test_a_view_maps_every_decoded_character_back_to_its_raw_span():
    text = "a%41b\x1b[0mc"
    views = {v.name: v for v in decoded_views(text)}
    assert views["percent"].text == "aAb\x1b[0mc" and views["percent"].raw_span(1, 2) == (1, 4)
    assert views["ansi"].text == "a%41bc" and views["ansi"].raw_span(4, 6) == (4, 10)


def test_an_encoding_applied_twice_is_undone_twice_and_maps_to_the_raw_text():
    views = {v.name: v for v in decoded_views("q=%2541%254B!")}
    assert views["percent"].text == "q=%41%4B!" and views["percent+percent"].text == "q=AK!"
    assert views["percent+percent"].raw_span(2, 4) == (2, 12)
    assert not any(name.count("+") >= MAX_DEPTH for name in views)


def test_a_views_own_view_decodes_only_the_lines_it_changed():
    """The raw text's other encodings are views of their own already: decoding them again under
    each view would repeat their findings and double the cost."""
    views = {v.name: v.text for v in decoded_views("a=%2541%254B\nb=" + AWS.encode().hex())}
    assert views["percent+percent"] == "a=AK\nb=" + AWS.encode().hex()
    assert views["hex"].endswith(AWS) and "percent+hex" not in views
    hex_under_percent = "".join(f"%{b:02X}" for b in AWS.encode().hex().encode())
    assert "percent+hex" in {v.name for v in decoded_views("a=" + hex_under_percent)}


STACKED = {
    "base64": lambda s: base64.b64encode(s.encode()).decode(),
    "hex": lambda s: s.encode().hex(),
    "percent": lambda s: "".join(f"%{b:02X}" for b in s.encode()),
    "base85": lambda s: base64.b85encode(s.encode()).decode(),
    "ascii85": lambda s: base64.a85encode(s.encode()).decode(),
    "u_escapes": lambda s: "".join(f"\\u{ord(c):04x}" for c in s),
    "entities": lambda s: "".join(f"&#{ord(c)};" for c in s),
    "quoted_printable": lambda s: "".join(f"={b:02X}" for b in s.encode()),
    "char_codes": lambda s: "[" + ", ".join(str(ord(c)) for c in s) + "]",
    "base32": lambda s: base64.b32encode(s.encode()).decode(),
    "url": lambda s: quote(s, safe=""),
}
_STACK_LINES = (f"aws_access_key_id = {AWS}", f"token: {GITHUB}", "password = 'Tr0ub4dor&3horse'")


def _stacks(depth: int) -> list[tuple[str, ...]]:
    """Every ordered pair of encodings, or every triple in a fixed sample of 60 (of 1,331)."""
    combos = list(itertools.product(STACKED, repeat=depth))
    return combos if depth == 2 else random.Random(7).sample(combos, 60)


@pytest.mark.parametrize("stack", _stacks(2) + _stacks(3), ids="/".join)
def test_a_secret_under_any_two_or_three_mixed_encodings_is_replaced(stack: tuple[str, ...]):
    """Any decoder's view is decoded again by every decoder (``hex(percent(key))``), three
    encodings deep, and base64 is read under the others (``base64(hex(base64(line)))``)."""
    line = _STACK_LINES[sum(map(len, stack)) % len(_STACK_LINES)]
    encoded = line
    for name in reversed(stack):
        encoded = STACKED[name](encoded)
    redacted, findings = redact_text(f"payload: {encoded}\n", SALT)
    assert findings and encoded not in redacted


@pytest.mark.parametrize(
    "line",
    [
        'exec("CREATE USER app IDENTIFIED BY SqLpa55word");',  # a prose/SQL password
        "2026-04-26 12:36:01 " + base64.b64encode(bytes(range(7, 55))).decode(),  # a bare random key
    ],
)
def test_base64_is_read_by_every_pass_one_detector(line: str):
    """Base64 of a line is scanned as the line itself is, not by the format detectors alone."""
    assert redact_text(line, SALT)[0] != line
    encoded = base64.b64encode(line.encode()).decode()
    assert encoded not in redact_text(f"blob: {encoded}", SALT)[0]


@pytest.mark.parametrize(
    ("encode", "name"), [(base64.b85encode, "base85"), (base64.a85encode, "ascii85_bare")]
)
def test_a_bare_base85_value_is_read_from_where_it_starts_to_where_it_closes(encode, name):
    """Base85 alphabets hold ``=``, quotes and brackets, so the run a value lies in starts at its
    label and ends past its closing quote: the view decodes the value alone and maps to it whole,
    leaving the label and the closers in place."""
    value = encode(f"export API_TOKEN={GITHUB}\n".encode()).decode()
    for before, after in (("payload=", ""), ("decode(b'", "')"), ('<v x="', '"/>'), ("", "")):
        text = f"{before}{value}{after}"
        (view,) = [v for v in decoded_views(text) if v.name == name]
        assert view.text == f"{before}export API_TOKEN={GITHUB}\n{after}"
        assert view.raw_span(len(before), len(before) + 1) == (len(before), len(before) + len(value))
    assert not [v for v in decoded_views("x" * 40 + "_identifier_(" + "y" * 20 + ")") if "85" in v.name]


def test_a_look_alike_view_drops_invisible_characters_and_reads_compatibility_forms():
    view = {v.name: v for v in decoded_views("a\u200bＢc")}["look_alike"]
    assert view.text == "aBc" and view.raw_span(1, 2) == (2, 3) and view.raw_span(0, 3) == (0, 4)


def test_a_secret_in_a_call_id_is_pseudonymized_and_the_pairing_holds():
    from trajectory_platform.curation.redact import redact_episode
    from trajectory_platform.traces.record import Episode, Event, Outcome, TaskIdentity, ToolCall

    call_id = f"call-{AWS}"
    episode = Episode(
        episode_id="ids",
        source_format="native",
        source_file="t.jsonl",
        source_line=1,
        source_path=None,
        partition_date=None,
        task=TaskIdentity(fixture_id=None, repo_family=None, tool_family=None, domain=None),
        tools=[],
        events=[
            Event("user", content="list files"),
            Event("assistant", content=None, tool_calls=[ToolCall(call_id, "ls", "{}")]),
            Event("tool", content="a.txt", tool_call_id=call_id, tool_name="ls"),
        ],
        delivered_inputs=[],
        outcome=Outcome(terminal_status="completed"),
    )
    redacted, _ = redact_episode(episode, SALT)
    new_id = redacted.events[1].tool_calls[0].id
    assert AWS not in new_id and new_id == redacted.events[2].tool_call_id
    assert new_id.startswith("call-"), "only the secret inside the id is replaced"


def test_a_view_is_rescanned_only_on_the_lines_it_changed():
    text = "plain line one\nq=%41%4B%49%41 on two\nthree\nfour \x1b[31mred\nfive"
    views = {view.name: view for view in decoded_views(text)}
    percent, ansi = views["percent"], views["ansi"]
    assert [percent.text[s:e] for s, e in percent.changed_lines()] == ["q=AKIA on two"]
    assert [ansi.text[s:e] for s, e in ansi.changed_lines()] == ["four red"], "a code decoded to nothing"
    lines = "\n".join(f"row {i} %41%42" if i in (3, 4) else f"row {i}" for i in range(8))
    (view,) = decoded_views(lines)
    assert [view.text[s:e] for s, e in view.changed_lines()] == ["row 3 AB\nrow 4 AB"], "neighbours merge"


GENERIC = "q8Zt3LmW0xVb7NcR2yKp5HdJ9sFg1TaE4uQo6iPl"
SPELLED_IN_A_DOCUMENT = {
    "characters": (json.dumps({"cfg": {"token": list(GITHUB)}}), GITHUB, "GITHUB_TOKEN"),
    "character_codes": (json.dumps({"k": [ord(c) for c in AWS], "n": 3}), AWS, "AWS_KEY"),
    "a_line_with_its_spaces_and_quotes": (
        json.dumps({"argv": list(f'api_secret = "{GENERIC}"')}),
        GENERIC,
        "PASSWORD",  # as the same line plain is: the keyword detector reads ``api_secret = "``
    ),
    "escaped_quotes_between": (
        json.dumps({"argv": list(f'export TOKEN="{GITHUB}" && echo "ok"')}),
        GITHUB,
        "GITHUB_TOKEN",
    ),
    "in_a_document_carried_in_a_string": (
        json.dumps({"content": json.dumps({"k": [ord(c) for c in GITHUB]})}),
        GITHUB,
        "GITHUB_TOKEN",
    ),
}


def _spelled_survives(secret: str, text: str) -> bool:
    """The secret reads whole once what separates an array's characters (or codes) is taken out."""
    if secret[4:] in re.sub(r'[\s"\\,]+', "", text):
        return True
    return ",".join(str(ord(c)) for c in secret[4:]) in re.sub(r"\s+", "", text)


@pytest.mark.parametrize("case", sorted(SPELLED_IN_A_DOCUMENT))
def test_a_key_spelled_as_a_json_array_inside_a_document_is_replaced_whole(case: str):
    """Each character of the array is a literal of its own, so a scan of the document's literals one by
    one never sees the key: the list decoders also read the document's raw text, and the literals the
    key spans become one string literal of its pseudonym, so the document still parses."""
    text, secret, kind = SPELLED_IN_A_DOCUMENT[case]
    redacted, findings = redact_text(text, SALT)
    assert kind in {f.kind for f in findings}, [(f.kind, f.detector) for f in findings]
    assert not _spelled_survives(secret, redacted), redacted
    document = json.loads(redacted)
    carried = document.get("content")
    assert json.loads(carried) if carried else document, "a carried document stays JSON too"
    assert _spelled_survives(secret, text), "the check would see the key in the input"


def test_a_secret_stored_as_a_bare_json_number_becomes_a_quoted_pseudonym():
    redacted, findings = redact_text('{"password": 84736251, "n": 3, "pins": [84736251]}', SALT)
    document = json.loads(redacted)
    # found as the password's value and again in a list named for pins: one value, one pseudonym
    assert {f.kind for f in findings} == {"PASSWORD"} and {f.value for f in findings} == {"84736251"}
    assert "84736251" not in redacted
    assert document["password"] == document["pins"][0] and document["n"] == 3


def test_a_binary_patch_that_inflates_to_gigabytes_is_read_only_up_to_the_limit():
    bomb = _git_binary_patch(b"A" * (64 * INFLATE_LIMIT))
    (view,) = [v for v in decoded_views(bomb) if v.name == "git_binary"]
    assert INFLATE_LIMIT <= len(view.text) <= INFLATE_LIMIT + len(bomb)


def test_compressed_base64_that_inflates_to_gigabytes_is_read_only_up_to_the_limit():
    bomb = base64.b64encode(gzip.compress(b"A" * (64 * INFLATE_LIMIT), mtime=0)).decode()
    assert len(bytes_as_text(base64.b64decode(bomb))) == INFLATE_LIMIT
    assert bytes_as_text(b"x^ has a zlib header") == "x^ has a zlib header"  # and is text, not a stream


@pytest.mark.parametrize(
    "text",
    [
        "|abc|begin 644 x\n00000000: `>sk_live_`:wp ====JBSWY3DP\\x41 141  \\n0a00000000: `|abc|",
        "65 `=20:wp`:wp\npw:é:wp00000000: \\x4100000000: cj:é\\x41====+%3A<   a====>",
    ],
    ids=["reversed_view_reads_a_pseudonym", "reversed_view_at_a_pseudonyms_edge"],
)
def test_redacting_redacted_text_finds_nothing_in_a_reordered_view(text: str):
    """A view that reads the text backwards (or in ROT13) reads a pseudonym as something else:
    what it finds over one, or against its edge, is the view's artefact (a fuzz of marker soup)."""
    once, _ = redact_text(text, SALT)
    twice, findings = redact_text(once, SALT)
    assert findings == [] and twice == once


@pytest.mark.parametrize(("pattern", "run"), [(_UNICODE_ESCAPE, "\\\\\\x41"), (_BACKSLASH_ESCAPE, '\\\\\\"')])
def test_an_escape_is_matched_from_its_runs_first_backslash_only(pattern, run):
    """Matched from inside a run too, a long run of backslashes ending in no escape is quadratic
    (18 s on 40 kB): each start re-reads the rest of the run."""
    assert pattern.match(run, 0) is not None
    assert pattern.match(run, 1) is None and pattern.match(run, 2) is None


def _naive_in_mixed_token(text: str, start: int, end: int) -> bool:
    """The definition: the whitespace-free token around ``start:end`` holds an ASCII letter or digit."""
    while start > 0 and not text[start - 1].isspace():
        start -= 1
    while end < len(text) and not text[end].isspace():
        end += 1
    return any(ch.isascii() and ch.isalnum() for ch in text[start:end])


@pytest.mark.parametrize("token_length", [10, 300, 5000])
def test_a_runs_token_is_judged_as_the_definition_says_and_a_long_one_is_read_once(token_length: int):
    rng = random.Random(token_length)
    alphabet = "ab7\u0336\u0410\u3053 "
    texts = ["".join(rng.choice(alphabet) for _ in range(token_length)) for _ in range(3)]
    texts.append("\u0436\u0336" * token_length + " x")  # a long token of no ASCII, then one with
    _long_tokens.cache_clear()
    for text in texts:
        for run in _NON_ASCII.finditer(text):
            assert _in_mixed_token(run) == _naive_in_mixed_token(text, run.start(), run.end())
    assert _long_tokens.cache_info().misses <= len(texts)


def test_a_utf7_run_that_decodes_to_half_a_surrogate_pair_is_no_view_and_no_crash():
    """``+2D0...-`` decodes to a lone surrogate, which the UTF-7 view then tried to encode: the
    engine raised, and one such line (a CredSweeper sample after a diff's ``+``) failed a whole day
    of the redacted corpus."""
    for text in ("note +2D0AZgBhAGI- ok", "key +AGsAZQB52D0AZQ- end", "+ABSKpA8zwd5+2D0-"):
        assert redact_text(text, b"salt")[0] == text
