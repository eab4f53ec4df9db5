"""Byte dumps: a key cut across the rows of ``xxd``, ``hexdump -C`` or ``od`` output is read
whole and replaced, hex and character column alike; rows that show no secret, dumps of binary and
lines that only look like rows are kept."""

from __future__ import annotations

import pytest

from trajectory_platform.curation.redact import redact_text
from trajectory_platform.curation.redact.dumps import dump_runs

SALT = b"dumps-salt-12345"
ENV = b"AWS_SECRET_ACCESS_KEY=Zq8vX2mN5tR7wK1pL4sD9fG3hJ6yB0cE8uA2nM5x\nDB_PASSWORD=cackle!xyz9\n"
SECRETS = (b"Zq8vX2mN5tR7wK1pL4sD9fG3hJ6yB0cE8uA2nM5x", b"cackle!xyz9")

# The real tools' output for ENV (xxd 2022-01-14, GNU coreutils od 9.1, util-linux hexdump 2.38),
# recorded once so the suite does not need them installed.
DUMPS: dict[str, tuple[str, ...]] = {
    "xxd": (
        "00000000: 4157 535f 5345 4352 4554 5f41 4343 4553  AWS_SECRET_ACCES",
        "00000010: 535f 4b45 593d 5a71 3876 5832 6d4e 3574  S_KEY=Zq8vX2mN5t",
        "00000020: 5237 774b 3170 4c34 7344 3966 4733 684a  R7wK1pL4sD9fG3hJ",
        "00000030: 3679 4230 6345 3875 4132 6e4d 3578 0a44  6yB0cE8uA2nM5x.D",
        "00000040: 425f 5041 5353 574f 5244 3d63 6163 6b6c  B_PASSWORD=cackl",
        "00000050: 6521 7879 7a39 0a                        e!xyz9.",
    ),
    "xxd -g1": (
        "00000000: 41 57 53 5f 53 45 43 52 45 54 5f 41 43 43 45 53  AWS_SECRET_ACCES",
        "00000010: 53 5f 4b 45 59 3d 5a 71 38 76 58 32 6d 4e 35 74  S_KEY=Zq8vX2mN5t",
        "00000020: 52 37 77 4b 31 70 4c 34 73 44 39 66 47 33 68 4a  R7wK1pL4sD9fG3hJ",
        "00000030: 36 79 42 30 63 45 38 75 41 32 6e 4d 35 78 0a 44  6yB0cE8uA2nM5x.D",
        "00000040: 42 5f 50 41 53 53 57 4f 52 44 3d 63 61 63 6b 6c  B_PASSWORD=cackl",
        "00000050: 65 21 78 79 7a 39 0a                             e!xyz9.",
    ),
    "xxd -g4": (
        "00000000: 4157535f 53454352 45545f41 43434553  AWS_SECRET_ACCES",
        "00000010: 535f4b45 593d5a71 38765832 6d4e3574  S_KEY=Zq8vX2mN5t",
        "00000020: 5237774b 31704c34 73443966 4733684a  R7wK1pL4sD9fG3hJ",
        "00000030: 36794230 63453875 41326e4d 35780a44  6yB0cE8uA2nM5x.D",
        "00000040: 425f5041 5353574f 52443d63 61636b6c  B_PASSWORD=cackl",
        "00000050: 65217879 7a390a                      e!xyz9.",
    ),
    "xxd -p": (
        "4157535f5345435245545f4143434553535f4b45593d5a71387658326d4e",
        "35745237774b31704c34734439664733684a367942306345387541326e4d",
        "35780a44425f50415353574f52443d6361636b6c652178797a390a",
    ),
    "hexdump -C": (
        "00000000  41 57 53 5f 53 45 43 52  45 54 5f 41 43 43 45 53  |AWS_SECRET_ACCES|",
        "00000010  53 5f 4b 45 59 3d 5a 71  38 76 58 32 6d 4e 35 74  |S_KEY=Zq8vX2mN5t|",
        "00000020  52 37 77 4b 31 70 4c 34  73 44 39 66 47 33 68 4a  |R7wK1pL4sD9fG3hJ|",
        "00000030  36 79 42 30 63 45 38 75  41 32 6e 4d 35 78 0a 44  |6yB0cE8uA2nM5x.D|",
        "00000040  42 5f 50 41 53 53 57 4f  52 44 3d 63 61 63 6b 6c  |B_PASSWORD=cackl|",
        "00000050  65 21 78 79 7a 39 0a                              |e!xyz9.|",
        "00000057",
    ),
    "od -c": (
        "0000000   A   W   S   _   S   E   C   R   E   T   _   A   C   C   E   S",
        "0000020   S   _   K   E   Y   =   Z   q   8   v   X   2   m   N   5   t",
        "0000040   R   7   w   K   1   p   L   4   s   D   9   f   G   3   h   J",
        "0000060   6   y   B   0   c   E   8   u   A   2   n   M   5   x  \\n   D",
        "0000100   B   _   P   A   S   S   W   O   R   D   =   c   a   c   k   l",
        "0000120   e   !   x   y   z   9  \\n",
        "0000127",
    ),
    "od -b": (
        "0000000 101 127 123 137 123 105 103 122 105 124 137 101 103 103 105 123",
        "0000020 123 137 113 105 131 075 132 161 070 166 130 062 155 116 065 164",
        "0000040 122 067 167 113 061 160 114 064 163 104 071 146 107 063 150 112",
        "0000060 066 171 102 060 143 105 070 165 101 062 156 115 065 170 012 104",
        "0000100 102 137 120 101 123 123 127 117 122 104 075 143 141 143 153 154",
        "0000120 145 041 170 171 172 071 012",
        "0000127",
    ),
    "od -A x -t x1z": (
        "000000 41 57 53 5f 53 45 43 52 45 54 5f 41 43 43 45 53  >AWS_SECRET_ACCES<",
        "000010 53 5f 4b 45 59 3d 5a 71 38 76 58 32 6d 4e 35 74  >S_KEY=Zq8vX2mN5t<",
        "000020 52 37 77 4b 31 70 4c 34 73 44 39 66 47 33 68 4a  >R7wK1pL4sD9fG3hJ<",
        "000030 36 79 42 30 63 45 38 75 41 32 6e 4d 35 78 0a 44  >6yB0cE8uA2nM5x.D<",
        "000040 42 5f 50 41 53 53 57 4f 52 44 3d 63 61 63 6b 6c  >B_PASSWORD=cackl<",
        "000050 65 21 78 79 7a 39 0a                             >e!xyz9.<",
        "000057",
    ),
    "hexdump": (
        "0000000 5741 5f53 4553 5243 5445 415f 4343 5345",
        "0000010 5f53 454b 3d59 715a 7638 3258 4e6d 7435",
        "0000020 3752 4b77 7031 344c 4473 6639 3347 4a68",
        "0000030 7936 3042 4563 7538 3241 4d6e 7835 440a",
        "0000040 5f42 4150 5353 4f57 4452 633d 6361 6c6b",
        "0000050 2165 7978 397a 000a                    ",
        "0000057",
    ),
    "od -x": (
        "0000000 5741 5f53 4553 5243 5445 415f 4343 5345",
        "0000020 5f53 454b 3d59 715a 7638 3258 4e6d 7435",
        "0000040 3752 4b77 7031 344c 4473 6639 3347 4a68",
        "0000060 7936 3042 4563 7538 3241 4d6e 7835 440a",
        "0000100 5f42 4150 5353 4f57 4452 633d 6361 6c6b",
        "0000120 2165 7978 397a 000a",
        "0000127",
    ),
    "od -An -b": (
        " 101 127 123 137 123 105 103 122 105 124 137 101 103 103 105 123",
        " 123 137 113 105 131 075 132 161 070 166 130 062 155 116 065 164",
        " 122 067 167 113 061 160 114 064 163 104 071 146 107 063 150 112",
        " 066 171 102 060 143 105 070 165 101 062 156 115 065 170 012 104",
        " 102 137 120 101 123 123 127 117 122 104 075 143 141 143 153 154",
        " 145 041 170 171 172 071 012",
    ),
    "od -An -c": (
        "   A   W   S   _   S   E   C   R   E   T   _   A   C   C   E   S",
        "   S   _   K   E   Y   =   Z   q   8   v   X   2   m   N   5   t",
        "   R   7   w   K   1   p   L   4   s   D   9   f   G   3   h   J",
        "   6   y   B   0   c   E   8   u   A   2   n   M   5   x  \\n   D",
        "   B   _   P   A   S   S   W   O   R   D   =   c   a   c   k   l",
        "   e   !   x   y   z   9  \\n",
    ),
    "od -a": (
        "0000000   A   W   S   _   S   E   C   R   E   T   _   A   C   C   E   S",
        "0000020   S   _   K   E   Y   =   Z   q   8   v   X   2   m   N   5   t",
        "0000040   R   7   w   K   1   p   L   4   s   D   9   f   G   3   h   J",
        "0000060   6   y   B   0   c   E   8   u   A   2   n   M   5   x  nl   D",
        "0000100   B   _   P   A   S   S   W   O   R   D   =   c   a   c   k   l",
        "0000120   e   !   x   y   z   9  nl",
        "0000127",
    ),
    "xxd -b": (
        "00000000: 01000001 01010111 01010011 01011111 01010011 01000101  AWS_SE",
        "00000006: 01000011 01010010 01000101 01010100 01011111 01000001  CRET_A",
        "0000000c: 01000011 01000011 01000101 01010011 01010011 01011111  CCESS_",
        "00000012: 01001011 01000101 01011001 00111101 01011010 01110001  KEY=Zq",
        "00000018: 00111000 01110110 01011000 00110010 01101101 01001110  8vX2mN",
        "0000001e: 00110101 01110100 01010010 00110111 01110111 01001011  5tR7wK",
        "00000024: 00110001 01110000 01001100 00110100 01110011 01000100  1pL4sD",
        "0000002a: 00111001 01100110 01000111 00110011 01101000 01001010  9fG3hJ",
        "00000030: 00110110 01111001 01000010 00110000 01100011 01000101  6yB0cE",
        "00000036: 00111000 01110101 01000001 00110010 01101110 01001101  8uA2nM",
        "0000003c: 00110101 01111000 00001010 01000100 01000010 01011111  5x.DB_",
        "00000042: 01010000 01000001 01010011 01010011 01010111 01001111  PASSWO",
        "00000048: 01010010 01000100 00111101 01100011 01100001 01100011  RD=cac",
        "0000004e: 01101011 01101100 01100101 00100001 01111000 01111001  kle!xy",
        "00000054: 01111010 00111001 00001010                             z9.",
    ),
    "od -An -t x1": (
        " 41 57 53 5f 53 45 43 52 45 54 5f 41 43 43 45 53",
        " 53 5f 4b 45 59 3d 5a 71 38 76 58 32 6d 4e 35 74",
        " 52 37 77 4b 31 70 4c 34 73 44 39 66 47 33 68 4a",
        " 36 79 42 30 63 45 38 75 41 32 6e 4d 35 78 0a 44",
        " 42 5f 50 41 53 53 57 4f 52 44 3d 63 61 63 6b 6c",
        " 65 21 78 79 7a 39 0a",
    ),
}


def _rows_showing(dump: tuple[str, ...], secret: bytes, per_row: int) -> list[str]:
    start = ENV.index(secret)
    return list(dump[start // per_row : (start + len(secret) - 1) // per_row + 1])


@pytest.mark.parametrize("command", sorted(DUMPS))
def test_a_key_cut_across_the_rows_of_a_dump_is_replaced_in_hex_and_in_the_column(command: str):
    dump = DUMPS[command]
    redacted, findings = redact_text(f"$ {command} .env\n" + "\n".join(dump) + "\n", SALT)
    per_row = {"xxd -p": 30, "xxd -b": 6}.get(command, 16)
    assert any(f.detector.endswith("+dump") for f in findings), [(f.kind, f.detector) for f in findings]
    for secret in SECRETS:
        assert not any(row in redacted for row in _rows_showing(dump, secret, per_row)), redacted
    assert per_row > ENV.index(SECRETS[0]) or dump[0] in redacted  # a row before the key is kept
    for piece in ("Zq8vX2mN5t", "R7wK1pL4sD9fG3hJ", "cackl"):
        assert piece not in redacted


@pytest.mark.parametrize(
    "text",
    [
        "3f2a9c1 Fix the parser\n9b74c98 Add the cafe menu\n0a1b2c3 face bead dead beef\n",
        "00000000: 7f45 4c46 0201 0100 0000 0000 0000 0000  .ELF............\n"
        "00000010: 0300 3e00 0100 0000 a0f1 0000 0000 0000  ..>.............\n",
        "0000000 a b c d e f\n0000010 total 16 entries\n",
    ],
    ids=["git_log_oneline", "binary_file", "offsets_in_prose"],
)
def test_what_is_not_a_dump_of_text_is_kept(text: str):
    assert redact_text(text, SALT)[0] == text


def test_a_column_that_looks_like_hex_ends_the_row():
    """``cafe`` in the column is hex too; only the column shows the bytes before it."""
    row = "00000000: 6361 6665  cafe"
    [(_, _, shown)] = dump_runs(row, 0)
    assert bytes(byte for byte, _, _ in shown) == b"cafe"
    assert [end for _, _, end in shown] == [len(row) - 3, len(row) - 2, len(row) - 1, len(row)]


def test_each_byte_maps_from_its_code_to_its_character_in_the_column():
    row = DUMPS["hexdump -C"][1]
    [(_, _, shown)] = dump_runs(row, 100)
    first_start, first_end = shown[0][1] - 100, shown[0][2] - 100
    assert row[first_start : first_start + 2] == "53" and row[first_end - 1] == "S"
    assert len(shown) == 16


def test_a_short_last_row_of_hex_alone_follows_its_dump_and_a_lone_word_does_not():
    rows = DUMPS["xxd -p"]
    [(_, _, shown)] = dump_runs("\n".join(rows), 0)
    assert bytes(byte for byte, _, _ in shown) == ENV
    runs = dump_runs("cafe\nbeef", 0)
    assert [run[2] for run in runs] == [[], []]


def test_a_key_found_once_in_a_dump_is_replaced_where_it_recurs_there():
    """Only the second copy has a name before it. The first sits at another place in the rows, so
    its codes and column differ from the second's and no echo of that raw text reaches it: the
    decoded view finds it again."""
    dump = (
        "00000000: 4875 6e74 6572 3278 797a 3920 7761 7320  Hunter2xyz9 was \n"
        "00000010: 7365 743b 2074 6865 6e20 7468 6520 7061  set; then the pa\n"
        "00000020: 7373 776f 7264 3a20 4875 6e74 6572 3278  ssword: Hunter2x\n"
        "00000030: 797a 390a                                yz9.\n"
    )
    redacted, _ = redact_text(dump, SALT)
    assert "4875 6e74 6572" not in redacted and "Hunter2xyz9" not in redacted, redacted


def test_a_key_whose_rows_another_finding_took_in_part_loses_its_last_row_too():
    """The first row of hex alone reads as a random token and is replaced whole; the password the
    dump shows runs on into the short second row, which must not stay standing beside it."""
    dump = "414e5969643a6d61737465722c70617373776f72643a6469705072313131\n476721\n"
    redacted, findings = redact_text("$ xxd -p creds\n" + dump, SALT)
    assert {f.detector for f in findings} >= {"entropy", "keyword+dump"}
    assert "476721" not in redacted, redacted


@pytest.mark.parametrize(
    ("command", "rows"),
    [
        (
            "od -a",
            (
                "0000000   d   b   _   p   a   s   s   w   o   r   d  sp   =  sp   c   a",
                "0000020   c   k   l   e   !   x   y   z   9  sp   #  sp   o   l   d  nl",
                "0000040",
            ),
        ),
        (
            "od -An -c",
            (
                "   d   b   _   p   a   s   s   w   o   r   d       =       c   a",
                "   c   k   l   e   !   x   y   z   9       #       o   l   d  \\n",
            ),
        ),
    ],
)
def test_od_fields_read_as_their_bytes_names_and_spaces_too(command: str, rows: tuple[str, ...]):
    """``od -a`` names a space ``sp`` and a line break ``nl``; ``od -c`` shows a space as four blank
    columns, and ``-An`` leaves the offsets out: every field is still its byte."""
    line = b"db_password = cackle!xyz9 # old\n"
    [(_, _, shown), *rest] = dump_runs("\n".join(rows), 0)
    assert bytes(byte for byte, _, _ in shown) == line
    redacted, _ = redact_text(f"$ {command} .env\n" + "\n".join(rows) + "\n", SALT)
    assert rows[0] not in redacted and rows[1] not in redacted, redacted


def test_a_row_of_binary_digits_is_read_only_with_the_column_that_shows_its_bytes():
    """``xxd -b``'s eight binary digits a byte are hex digits too (``xxd -g4`` prints ``01000100``);
    a row without the column that proves it binary is read as hex words."""
    [(_, _, binary)] = dump_runs(DUMPS["xxd -b"][0], 0)
    assert bytes(byte for byte, _, _ in binary) == b"AWS_SE"
    [(_, _, words)] = dump_runs("00000000: 01000001 01010111", 0)
    assert len(words) == 8 and bytes(byte for byte, _, _ in words) != b"AW"


@pytest.mark.parametrize(
    "text",
    [
        "   a   b   c\n   d   e   f\n",  # fewer than eight fields: no od row opens
        " 101 102 103 104\n",
    ],
    ids=["short_field_lines", "four_octal_codes"],
)
def test_lines_that_only_look_like_od_fields_are_kept(text: str):
    assert redact_text(text, SALT)[0] == text
