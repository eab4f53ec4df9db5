"""A digest is named by the header of its table column, by the key of the list that holds it, or by
a word behind backslash-escaped quotes: it is kept. A key in the same shapes, under a name that is
no digest's, is still replaced."""

from __future__ import annotations

import hashlib
import json

import pytest

from trajectory_platform.curation.redact import redact_text

SALT = b"digest-contexts"
FILES = ["model.safetensors", "tokenizer.json", "train.parquet"]


def _redacted(text: str) -> str:
    return redact_text(text, SALT)[0]


def _digest(algorithm: str, seed: int) -> str:
    return hashlib.new(algorithm, f"file-{seed}".encode()).hexdigest()


def _key(seed: int) -> str:
    """A hex API key: random as a digest is, told apart only by what names it."""
    return hashlib.sha1(f"key-{seed}".encode()).hexdigest()


def _tables(name: str, values: list[str]) -> list[str]:
    rows = list(zip(FILES, values, strict=False))
    return [
        f"file,{name},size\n" + "\n".join(f"{f},{v},{100 + i}" for i, (f, v) in enumerate(rows)),
        f"Name\t{name.upper()}\n" + "\n".join(f"{f}\t{v}" for f, v in rows),
        f"| file | {name} |\n|---|---|\n" + "\n".join(f"| {f} | {v} |" for f, v in rows),
        f" name | {name} \n------+------\n" + "\n".join(f" {f} | {v}" for f, v in rows) + "\n(3 rows)",
    ]


CASES = [(algorithm, layout) for algorithm in ("sha256", "md5", "sha1") for layout in range(4)]


@pytest.mark.parametrize(("algorithm", "layout"), CASES)
def test_a_column_headed_by_a_digest_name_keeps_its_digests(algorithm: str, layout: int) -> None:
    digests = [_digest(algorithm, seed) for seed in range(3)]
    text = _tables(algorithm, digests)[layout]
    assert _redacted(text) == text


@pytest.mark.parametrize("layout", range(4))
def test_a_key_column_beside_a_digest_column_is_still_replaced(layout: int) -> None:
    keys = [_key(seed) for seed in range(3)]
    text = _tables("api_key", keys)[layout]
    out = _redacted(text)
    assert not any(key in out for key in keys)


@pytest.mark.parametrize("key", ["checksums", "sha256sums", "md5", "digests"])
def test_a_list_under_a_digest_key_keeps_its_digests(key: str) -> None:
    digests = [_digest("sha256", seed) for seed in range(3)]
    text = "manifest:\n" + json.dumps({"files": FILES, key: digests}, indent=2)
    assert _redacted(text) == text


def test_a_list_of_keys_after_a_list_of_digests_is_still_replaced() -> None:
    digests, keys = [_digest("sha1", seed) for seed in range(2)], [_key(seed) for seed in range(2)]
    out = _redacted("manifest:\n" + json.dumps({"checksums": digests, "api_keys": keys}, indent=2))
    assert all(digest in out for digest in digests) and not any(key in out for key in keys)


@pytest.mark.parametrize("name", ["commit", "head_sha", "parent", "checksum", "commit_id"])
def test_a_digest_named_behind_escaped_quotes_is_kept(name: str) -> None:
    digest = _digest("sha1", 7)
    inner = json.dumps({"event": "push", name: digest}).replace('"', '\\"')
    text = f'2026-01-05T10:00:00Z INFO webhook payload="{inner}"'
    assert _redacted(text) == text


def test_a_quoted_etag_outside_a_json_document_is_kept() -> None:
    etag = _digest("md5", 3)
    text = "$ aws s3api head-object --bucket b --key k\n" + json.dumps({"ETag": f'"{etag}"'}, indent=4)
    assert _redacted(text) == text
    assert _redacted("upload finished: " + json.dumps(json.dumps({"ETag": f'"{etag}"'}))).count(etag) == 1


def test_a_key_behind_escaped_quotes_is_still_replaced() -> None:
    key = _key(9)
    inner = json.dumps({"commit": _digest("sha1", 1), "api_key": key}).replace('"', '\\"')
    assert key not in _redacted(f'INFO webhook payload="{inner}"')
