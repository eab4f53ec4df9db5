"""Red team, round 14 (2026-12-07): a key disguised in a way a reader undoes at a glance and a
pattern does not. Each class has a generator of cases split into a development half and a
validation half, by provider and by the encoding's variant both (no provider and no variant is in
both halves); each case is checked with the class's own reader (not the engine's decoders), so it
fails where the engine cannot read the disguise. Ordinary text written the same way is kept."""

from __future__ import annotations

import random
import re
import string
import unicodedata
from collections.abc import Callable

import pytest

from trajectory_platform.curation.redact import redact_text

SALT = b"adversarial-salt"
_ALNUM = string.ascii_letters + string.digits


def _draw(rng: random.Random, length: int, alphabet: str = _ALNUM) -> str:
    return "".join(rng.choice(alphabet) for _ in range(length))


PROVIDERS: dict[str, dict[str, Callable[[random.Random], str]]] = {
    "development": {
        "github": lambda g: "ghp_" + _draw(g, 36),
        "aws": lambda g: "AKIA" + _draw(g, 16, string.ascii_uppercase + "234567"),
        "slack": lambda g: f"xoxb-{_draw(g, 12, string.digits)}-{_draw(g, 13, string.digits)}-{_draw(g, 24)}",
        "stripe": lambda g: "sk_live_" + _draw(g, 24),
        "openai": lambda g: "sk-proj-" + _draw(g, 48),
    },
    "validation": {
        "gitlab": lambda g: "glpat-" + _draw(g, 20),
        "huggingface": lambda g: "hf_" + _draw(g, 34),
        "google": lambda g: "AIza" + _draw(g, 35),
        "npm": lambda g: "npm_" + _draw(g, 36),
        "anthropic": lambda g: "sk-ant-api03-" + _draw(g, 80),
    },
}
"""Who issued the key; the halves share none."""

Variants = dict[str, dict[str, Callable[[str], str]]]
"""Per half, each variant's name and how it writes a key into a line."""


def _cases(name: str, variants: Variants) -> list[pytest.ParameterSet]:
    """(key, text) for every variant of each half with every provider of that half, two keys
    each; the id names the half, the variant and the provider, never the key."""
    cases = []
    for half, written in variants.items():
        rng = random.Random(f"{name}-{half}")
        for variant, write in written.items():
            for provider, draw in PROVIDERS[half].items():
                for n in range(2):
                    key = draw(rng)
                    cases.append(pytest.param(key, write(key), id=f"{half}-{variant}-{provider}-{n}"))
    return cases


def _readable(key: str, text: str) -> bool:
    """Does ``text`` show twelve characters of ``key`` in a row (a third of a short key's random
    part: enough to count as the key leaked)?"""
    return any(key[i : i + 12] in text for i in range(len(key) - 11))


def _check(key: str, text: str, read: Callable[[str], str]) -> None:
    assert _readable(key, read(text)), "the case must hide a readable key"
    redacted, _ = redact_text(text, SALT)
    assert not _readable(key, read(redacted)) and not _readable(key, redacted)


# A key spelled out one character at a time, between a separator a reader skips.

_SEPARATORS = re.compile(r"(?<=\S)(?:\t|_|\u00a0|/|  |\u2009|\u3000)(?=\S)")

SPELLED: Variants = {
    "development": {
        "tab": "\t".join,
        "underscore": "_".join,
        "no_break_space": "\u00a0".join,
    },
    "validation": {
        "slash": "/".join,
        "two_spaces": lambda key: "secret:  " + "  ".join(key),
        "thin_space": "\u2009".join,
        "ideographic_space": "\u3000".join,
    },
}


@pytest.mark.parametrize(("key", "text"), _cases("spelled", SPELLED))
def test_a_key_spelled_between_any_separator_a_reader_skips_is_replaced(key: str, text: str) -> None:
    _check(key, text, lambda text: _SEPARATORS.sub("", text))


SPELLED_KEPT = [
    "1\t0\t1\t1\t0\t0\t1\t0\t1\t1\t1\t0\t0\t1\t0\t1\t1\t0",
    "a\tb\tc\td\te\tf\tg\th\ti\tj\tk\tl\tm\tn\to\tp\tq",
    "_ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _",
    "/a/b/c/d/e/f/g/h/i/j/k/l/m/n/o/p/q/",
    "x_1_y_2_z_3_w_4_v_5_u_6_t_7_s_8_r_9",
    "S\u00a0U\u00a0M\u00a0M\u00a0A\u00a0R\u00a0Y\u00a0O\u00a0F\u00a0R\u00a0E\u00a0S\u00a0U\u00a0L\u00a0T\u00a0S",
    "T  H  E    E  N  D  O  F  T  H  E  S  T  O  R  Y",
    "0  0  0  0  1  1  1  1  2  2  2  2  3  3  3  3",
    "- - - - - - - - - - - - - - - - - - - -",
]


@pytest.mark.parametrize("text", SPELLED_KEPT)
def test_ordinary_text_spelled_out_is_kept(text: str) -> None:
    assert redact_text(text, SALT)[0] == text


# A key with PowerShell's escape character, the backtick, before some of its characters.

_POWERSHELL_SPECIAL = "0abefnrtuv"


def _backticked(key: str, every: int) -> str:
    """``key`` with a backtick before every ``every``-th letter or digit PowerShell does not read as
    an escape of its own (`` `n `` is a newline)."""
    return "".join(
        f"`{c}" if i % every == every - 1 and c.isalnum() and c.lower() not in _POWERSHELL_SPECIAL else c
        for i, c in enumerate(key)
    )


BACKTICKED: Variants = {
    "development": {
        "write_output_every_2nd": lambda key: f'Write-Output "{_backticked(key, 2)}"',
        "hashtable_every_2nd": lambda key: f'$h = @{{ "X-Api-Key" = "{_backticked(key, 2)}" }}',
    },
    "validation": {
        "bare_every_3rd": lambda key: "Write-Host " + _backticked(key, 3),
        "env_every_4th": lambda key: f'$env:SERVICE_TOKEN = "{_backticked(key, 4)}"',
    },
}


@pytest.mark.parametrize(("key", "text"), _cases("backticked", BACKTICKED))
def test_a_key_escaped_with_powershell_backticks_is_replaced(key: str, text: str) -> None:
    _check(key, text, lambda text: re.sub(r"`(.)", r"\1", text))


BACKTICKED_KEPT = [
    'Write-Host "Line one`nLine two`tTabbed`r`n"',
    "Get-ChildItem -Path C:\\logs `\n  -Filter *.log `\n  -Recurse",
    "Use `git status` and `git diff` then `git add -p` before `git commit`.",
    '$msg = "Price: `$5 and `"quoted`" text, `u{2713} done"',
    "Set `a`, `b`, `c` and `d` before calling `e`.",
    'Invoke-RestMethod -Uri $uri `\n    -Headers @{ Authorization = "Bearer $token" } `\n    -Method Post',
]


@pytest.mark.parametrize("text", BACKTICKED_KEPT)
def test_ordinary_powershell_and_markdown_backticks_are_kept(text: str) -> None:
    assert redact_text(text, SALT)[0] == text


# A key with accents on its letters: combining marks after them, or letters precomposed with them.


def _accented(key: str, marks: str, every: int, compose: bool = False) -> str:
    """``key`` with a mark of ``marks`` (in turn) after every ``every``-th letter, composed into
    one character where Unicode has it (NFC), or left as a combining mark."""
    written = "".join(
        c + (marks[i % len(marks)] if i % every == 0 and c.isalpha() else "") for i, c in enumerate(key)
    )
    return unicodedata.normalize("NFC", written) if compose else written


ACCENTED: Variants = {
    "development": {
        "acute_each": lambda key: _accented(key, "\u0301", 1),
        "diaeresis_every_3rd_composed": lambda key: _accented(key, "\u0308", 3, compose=True),
        "acute_and_grave_below_each": lambda key: _accented(key, "\u0301\u0316", 1),
    },
    "validation": {
        "grave_every_2nd": lambda key: _accented(key, "\u0300", 2),
        "circumflex_each_composed": lambda key: "token " + _accented(key, "\u0302", 1, compose=True),
        "caron_and_tilde": lambda key: _accented(key, "\u030c\u0303", 1),
    },
}


def _unaccented(text: str) -> str:
    return "".join(c for c in unicodedata.normalize("NFD", text) if unicodedata.category(c) != "Mn")


@pytest.mark.parametrize(("key", "text"), _cases("accented", ACCENTED))
def test_a_key_with_accents_on_its_letters_is_replaced(key: str, text: str) -> None:
    _check(key, text, _unaccented)


ACCENTED_KEPT = [
    "Le café du coin ouvre à 7h30, près de l'hôtel numéro 12.",
    "Nguyễn Văn An, mã số 2024, đã hoàn thành bài kiểm tra lúc 10:45.",
    "Příliš žluťoučký kůň úpěl ďábelské ódy 3x za den.",
    "user: José_García_1987 logged in from São Paulo",
    "Zoë Saldaña starred in film #42 in 2009.",
    "file: Résumé_v2_final_ÉDITÉ_2024.pdf",
    "naïve@examplé.com wrote: Ångström_2 is 0.1nm, µ=3, façade_v2, Straße_12",
]


@pytest.mark.parametrize("text", ACCENTED_KEPT)
def test_accented_prose_and_names_with_numbers_are_kept(text: str) -> None:
    assert redact_text(text, SALT)[0] == text


# A file holding a key, dumped by od as decimal bytes.


def _od_decimal(data: bytes, field: int, per_row: int = 16, offsets: str = "") -> str:
    """``od -t u1`` (``field`` 4) or ``od -t d1`` (``field`` 5) of ``data``, ``per_row`` bytes a row
    (``-w``), offsets in octal (``o``, od's default, with the end offset on a line of its own),
    decimal (``d``, ``-Ad``) or none (``-An``)."""
    rows = []
    for at in range(0, len(data), per_row):
        codes = "".join(f"{byte:>{field}}" for byte in data[at : at + per_row])
        rows.append((f"{at:07o}" if offsets == "o" else f"{at:07d}" if offsets == "d" else "") + codes)
    if offsets:
        rows.append(f"{len(data):07o}" if offsets == "o" else f"{len(data):07d}")
    return "\n".join(rows) + "\n"


OD_DECIMAL: Variants = {
    "development": {
        "u1_no_offsets": lambda key: "$ od -An -tu1 .env\n" + _od_decimal(f"API_TOKEN={key}\n".encode(), 4),
        "u1_octal_offsets": lambda key: _od_decimal(f"token: {key}\n".encode(), 4, offsets="o"),
    },
    "validation": {
        "d1_octal_offsets": lambda key: (
            "$ od -td1 secret.txt\n" + _od_decimal(f"{key}\n".encode(), 5, offsets="o")
        ),
        "u1_w8_decimal_offsets": lambda key: _od_decimal(f"key={key}\n".encode(), 4, 8, offsets="d"),
    },
}


def _undumped(text: str) -> str:
    """The bytes of every row of decimal codes (its offset dropped), joined."""
    codes = [
        int(code)
        for line in text.splitlines()
        if re.fullmatch(r"(?:\d{7})?(?: +\d{1,3})+", line)
        for code in (line[7:] if re.match(r"\d{7} ", line) else line).split()
    ]
    return bytes(code for code in codes if code < 256).decode("latin-1")


@pytest.mark.parametrize(("key", "text"), _cases("od_decimal", OD_DECIMAL))
def test_a_key_in_a_decimal_byte_dump_is_replaced(key: str, text: str) -> None:
    _check(key, text, _undumped)


OD_DECIMAL_KEPT = [
    _od_decimal(b"Hello, world! This is an ordinary text file with a few lines.\n", 4),
    _od_decimal(b"version = 2.14.1\nlog_level = info\n", 5, offsets="o"),
    _od_decimal(bytes(range(0, 256, 7)), 4, offsets="o"),
    " 12  45  78 200  13  99 101 250  33  47  88  61  17  42 199   3\n"
    "  7  91 123 222 160  54  18  77 143 201  66  39  25 111  95 240\n",
    "   1    2    3    4    5    6    7    8\n   9   10   11   12   13   14   15   16\n",
]


@pytest.mark.parametrize("text", OD_DECIMAL_KEPT)
def test_decimal_dumps_of_ordinary_files_and_tables_of_numbers_are_kept(text: str) -> None:
    assert redact_text(text, SALT)[0] == text


# A key cut into string literals joined by another language's operator.


def _thirds(key: str, operator: str) -> str:
    third = len(key) // 3
    return f" {operator} ".join(
        f'"{part}"' for part in (key[:third], key[third : 2 * third], key[2 * third :])
    )


JOINED: Variants = {
    "development": {
        "lua_dots": lambda key: "local token = " + _thirds(key, ".."),
        "haskell_plus_plus": lambda key: "token = " + _thirds(key, "++"),
        "ocaml_caret": lambda key: "let token = " + _thirds(key, "^"),
    },
    "validation": {
        "elixir_diamond": lambda key: "token = " + _thirds(key, "<>"),
        "d_tilde": lambda key: "auto token = " + _thirds(key, "~") + ";",
        "ruby_shovel": lambda key: "token = " + _thirds(key, "<<"),
    },
}


@pytest.mark.parametrize(("key", "text"), _cases("joined", JOINED))
def test_a_key_cut_into_literals_another_language_joins_is_replaced(key: str, text: str) -> None:
    _check(key, text, lambda text: re.sub(r"\"\s*(?:\.\.|\+\+|\^|<>|~|<<)\s*\"", "", text))


JOINED_KEPT = [
    'print("Hello, " .. name .. "!")',
    'greeting = "Hello, " ++ name ++ "!"',
    'let msg = "count: " ^ string_of_int n ^ " items"',
    'IO.puts("abc" <> "def" <> "ghi")',
    'writeln("version " ~ "2.1" ~ ".3");',
    'local path = "/usr/local" .. "/share" .. "/lua"',
]


@pytest.mark.parametrize("text", JOINED_KEPT)
def test_ordinary_strings_joined_by_those_operators_are_kept(text: str) -> None:
    assert redact_text(text, SALT)[0] == text


@pytest.mark.parametrize("operator", [">", ">>", "|", "&&"])
def test_a_shell_operator_between_quoted_words_is_no_join(operator: str) -> None:
    """``echo "<key>" > "token.txt"``: read as one literal, the redirection went into the key's
    pseudonym."""
    command = f'echo "ghp_{"aB3dE5fG7hJ9kL1mN3pQ5rS7tU9vW1xY3zab"}" {operator} "token.txt"'
    redacted, _ = redact_text(command, SALT, shell=True)
    assert redacted.endswith(f'" {operator} "token.txt"') and "aB3dE5fG7" not in redacted


# A key in an HTML page, inline markup between its characters.


def _chunks(key: str, width: int) -> list[str]:
    return [key[i : i + width] for i in range(0, len(key), width)]


INLINE_MARKUP: Variants = {
    "development": {
        "word_break_opportunities": lambda key: "<td>" + "<wbr>".join(_chunks(key, 6)) + "</td>",
        "highlighter_spans": lambda key: (
            '<pre><span class="s">' + '</span><span class="s">'.join(_chunks(key, 7)) + "</span></pre>"
        ),
        "bold_every_3rd": lambda key: "".join(f"<b>{c}</b>" if i % 3 == 0 else c for i, c in enumerate(key)),
    },
    "validation": {
        "search_hit_marked": lambda key: f"<p>token: {key[:5]}<mark>{key[5:15]}</mark>{key[15:]}</p>",
        "coloured_characters": lambda key: "".join(
            f'<span style="color:#{i % 7}0{i % 5}">{c}</span>' for i, c in enumerate(key)
        ),
        "empty_comments": lambda key: "<!-- -->".join(_chunks(key, 8)),
        "emphasis_pairs": lambda key: "".join(
            f"<em>{p}</em>" if i % 2 else p for i, p in enumerate(_chunks(key, 2))
        ),
    },
}


@pytest.mark.parametrize(("key", "text"), _cases("inline_markup", INLINE_MARKUP))
def test_a_key_with_inline_markup_between_its_characters_is_replaced(key: str, text: str) -> None:
    _check(key, text, lambda text: re.sub(r"<[^<>]*>", "", text))


INLINE_MARKUP_KEPT = [
    "<table><tr><td>a1b2c3d4</td><td>e5f6a7b8</td><td>c9d0e1f2</td></tr></table>",
    "<p><b>Note</b>: run <code>pip install -r requirements.txt</code> first.<br>Then restart.</p>",
    '<span class="n">os</span><span class="o">.</span><span class="n">path</span><span class="o">.</span>'
    '<span class="n">join</span>',
    '<span class="mi">1234</span><span class="o">+</span><span class="mi">5678</span>',
    "<li>item<b>one</b>two<i>three</i>four<u>five</u>six</li>",
    'see <a href="/r/abc">build42</a>x<a href="/r/def">Zq7Wt3Lp9Kd2</a>v<a href="/r/ghi">Hs8Fm1Rb6Yc4</a>',
    "<p>Version<sup>2</sup>alpha<sub>3</sub>beta<small>rc1</small>final</p>",
]


@pytest.mark.parametrize("text", INLINE_MARKUP_KEPT)
def test_ordinary_html_with_inline_markup_is_kept(text: str) -> None:
    assert redact_text(text, SALT)[0] == text


# A key cut into literals a format string of placeholders alone puts together.


def _formatted(call: str, key: str) -> str:
    """``call`` with ``ARGS`` replaced by ``key`` cut into three quoted literals."""
    third = len(key) // 3
    return call.replace(
        "ARGS", ", ".join(f'"{p}"' for p in (key[:third], key[third : 2 * third], key[2 * third :]))
    )


FORMATTED: Variants = {
    "development": {
        "python_percent": lambda key: _formatted('print("%s%s%s" % (ARGS))', key),
        "python_format": lambda key: _formatted('print("{}{}{}".format(ARGS))', key),
        "go_sprintf": lambda key: _formatted('v := fmt.Sprintf("%s%s%s", ARGS)', key),
    },
    "validation": {
        "powershell_f": lambda key: _formatted('$t = "{0}{1}{2}" -f ARGS', key),
        "java_string_format": lambda key: _formatted('String t = String.format("%s%s%s", ARGS);', key),
    },
}


@pytest.mark.parametrize(("key", "text"), _cases("formatted", FORMATTED))
def test_a_key_cut_into_literals_a_format_of_placeholders_fills_in_is_replaced(key: str, text: str) -> None:
    _check(key, text, lambda text: re.sub(r"\"\s*,\s*\"", "", text))


FORMATTED_KEPT = [
    'print("%s%s" % ("Hello, ", "world"))',
    'msg := fmt.Sprintf("%s%s", "prefix-", "suffix")',
    'log.info("{}{}".format("step", "42"))',
    '$path = "{0}{1}" -f "C:\\logs\\", "app.log"',
    'print("%s: %s" % ("abcdefghijkl", "mnopqrstuvwx"))',
]


@pytest.mark.parametrize("text", FORMATTED_KEPT)
def test_ordinary_strings_a_format_puts_together_are_kept(text: str) -> None:
    assert redact_text(text, SALT)[0] == text


@pytest.mark.parametrize(
    "write",
    [
        lambda address: "\t".join(address),
        lambda address: "\u00a0".join(address),
        lambda address: "<p>" + "<wbr>".join(address[i : i + 4] for i in range(0, len(address), 4)) + "</p>",
        lambda address: "".join(f"<span>{c}</span>" for c in address),
    ],
    ids=["spelled_tab", "spelled_no_break_space", "word_breaks", "span_per_character"],
)
@pytest.mark.parametrize("address", ["jane.doe42@example.org", "m.rossi1987@corp-mail.it"])
def test_an_email_address_spelled_out_or_broken_by_markup_is_replaced(
    write: Callable[[str], str], address: str
) -> None:
    """The characters of an address (``@``, ``.``) are a spelled or marked-up token's too."""
    _check(address, write(address), lambda text: re.sub(r"<[^<>]*>|[\t\u00a0]", "", text))
