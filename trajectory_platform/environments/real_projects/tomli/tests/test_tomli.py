"""Sealed oracle of the tomli environment: the TOML 1.0 rules tomli implements, written by us."""

import datetime

import tomli


def test_newline_after_opening_basic_delimiter_is_trimmed():
    assert tomli.loads('s = """\nhello"""')["s"] == "hello"


def test_newline_after_opening_literal_delimiter_is_trimmed():
    assert tomli.loads("s = '''\nhello'''")["s"] == "hello"


def test_only_the_first_newline_is_trimmed():
    assert tomli.loads('s = """\n\nhello"""')["s"] == "\nhello"


def test_multiline_string_keeps_inner_newlines():
    assert tomli.loads('s = """a\nb"""')["s"] == "a\nb"


def test_line_ending_backslash():
    assert tomli.loads('s = """a \\\n    b"""')["s"] == "a b"


def test_quotes_before_the_closing_delimiter():
    assert tomli.loads('s = """x"""""')["s"] == 'x""'


def test_scalars():
    doc = tomli.loads('i = 0x1f\nf = 1e3\nb = true\ns = "tab\\there"\nd = 1979-05-27')
    assert doc == {"i": 31, "f": 1000.0, "b": True, "s": "tab\there", "d": datetime.date(1979, 5, 27)}


def test_tables_and_arrays():
    doc = tomli.loads('[a.b]\nx = [1, 2]\n[[c]]\ny = {z = "w"}\n[[c]]\n')
    assert doc == {"a": {"b": {"x": [1, 2]}}, "c": [{"y": {"z": "w"}}, {}]}


def test_duplicate_key_is_an_error():
    try:
        tomli.loads("a = 1\na = 2")
    except tomli.TOMLDecodeError:
        pass
    else:
        raise AssertionError("a duplicate key must raise TOMLDecodeError")
