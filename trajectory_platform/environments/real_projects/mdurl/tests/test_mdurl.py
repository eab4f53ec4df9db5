"""Sealed oracle of the mdurl environment: mdurl's documented behaviour, written by us."""

import mdurl


def test_decode_keeps_reserved_characters_encoded():
    assert mdurl.decode("a%2Fb%3Fc") == "a%2Fb%3Fc"


def test_decode_honours_a_custom_exclude_set():
    assert mdurl.decode("%41%2F", exclude="A") == "%41/"


def test_decode_plain_escapes():
    assert mdurl.decode("a%20b") == "a b"
    assert mdurl.decode("%2F", exclude="") == "/"


def test_decode_utf8_sequences():
    assert mdurl.decode("caf%C3%A9") == "caf\u00e9"
    assert mdurl.decode("%E2%82%AC") == "\u20ac"


def test_decode_invalid_sequence_is_replaced():
    assert mdurl.decode("%FF") == "\ufffd"


def test_encode():
    assert mdurl.encode("a b") == "a%20b"
    assert mdurl.encode("caf\u00e9") == "caf%C3%A9"
    assert mdurl.encode("%41") == "%41"


def test_parse_and_format_round_trip():
    url = mdurl.parse("https://user@example.com:8080/path?q=1#frag")
    assert (url.protocol, url.hostname, url.port, url.pathname) == ("https:", "example.com", "8080", "/path")
    assert (url.search, url.hash, url.auth) == ("?q=1", "#frag", "user")
    assert mdurl.format(url) == "https://user@example.com:8080/path?q=1#frag"
