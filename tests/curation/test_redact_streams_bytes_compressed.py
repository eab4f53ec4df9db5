"""Secrets a single text carries in pieces, as numbers, or compressed (a red team, 2026-12-06):

- the deltas of an SSE or JSONL stream (one secret over many JSON chunks), joined and redacted on
  the raw span, the stream's lines still parsing; also a stream stored as a JSON array, chunks
  pretty-printed over several lines, and SSE events whose data spans several ``data:`` lines;
- random key bytes written as numbers without a label (Solana's ``id.json``, a REPL's
  ``os.urandom`` echo, a Node Buffer, Go's printed ``[]byte``), 16 to 64 of them where a call
  that draws random bytes stands above, while digests, test vectors, media and tables of small
  numbers stay;
- text compressed as hex (gzip, zlib, raw DEFLATE) or as raw DEFLATE in base64.

Values are generated from seeds here, not fixed strings, so no one value is what passes.
"""

from __future__ import annotations

import base64
import gzip
import hashlib
import json
import random
import zlib

import pytest

from trajectory_platform.curation.redact import redact_text

SALT = b"streams-bytes-compressed"


def _password(seed: int) -> str:
    rng = random.Random(seed)
    return f"{rng.choice(['Harbor', 'Quartz', 'Meadow'])}#{rng.randint(1000, 9999)}Stone{rng.randint(10, 99)}"


def _chunks(value: str, seed: int) -> list[str]:
    rng = random.Random(seed)
    pieces, at = [], 0
    while at < len(value):
        size = rng.randint(2, 7)
        pieces.append(value[at : at + size])
        at += size
    return pieces


STREAMS = {
    "openai_arguments": lambda parts: (
        "\n\n".join(
            "data: "
            + json.dumps(
                {
                    "choices": [
                        {"index": 0, "delta": {"tool_calls": [{"index": 0, "function": {"arguments": p}}]}}
                    ]
                }
            )
            for p in parts
        )
        + "\n\ndata: [DONE]"
    ),
    "anthropic_partial_json": lambda parts: "\n\n".join(
        "event: content_block_delta\ndata: "
        + json.dumps(
            {
                "type": "content_block_delta",
                "index": 1,
                "delta": {"type": "input_json_delta", "partial_json": p},
            }
        )
        for p in parts
    ),
    "ollama_jsonl": lambda parts: "\n".join(
        json.dumps({"model": "m", "response": p, "done": False}) for p in parts
    ),
}


def _joined(redacted: str) -> str:
    """The text a client reassembles from a redacted stream (every line must still parse)."""
    out = []
    for line in redacted.splitlines():
        body = line.removeprefix("data: ")
        if body.startswith("{"):
            chunk = json.loads(body)
            if "choices" in chunk:
                out.append(chunk["choices"][0]["delta"]["tool_calls"][0]["function"]["arguments"])
            elif "delta" in chunk:
                out.append(chunk["delta"]["partial_json"])
            else:
                out.append(chunk["response"])
    return "".join(out)


@pytest.mark.parametrize("layout", sorted(STREAMS))
@pytest.mark.parametrize("seed", range(3))
def test_a_secret_streamed_over_json_chunks_is_replaced_and_the_stream_parses(layout, seed):
    password = _password(seed)
    arguments = json.dumps({"command": f"mysql -h db -u root --password={password} -e 'select 1'"})
    text = STREAMS[layout](_chunks(arguments, seed))
    redacted, _ = redact_text(text, SALT)
    joined = _joined(redacted)
    assert password not in joined
    assert "REDACTED" in joined and joined.startswith('{"command": "mysql')


def test_records_of_a_jsonl_file_are_not_joined_into_one_text():
    rng = random.Random(7)
    alphabet = "abcdefghijkmnopqrstuvwxyzABCDEFGHJKLMNPQRSTUVWXYZ23456789"
    lines = [
        json.dumps({"id": "".join(rng.choices(alphabet, k=10)), "text": "".join(rng.choices(alphabet, k=5))})
        for _ in range(20)
    ]
    text = "\n".join(lines)
    assert redact_text(text, SALT)[0] == text


def _openai_chunk(piece: str) -> dict[str, object]:
    return {"id": "chatcmpl-1", "choices": [{"index": 0, "delta": {"content": piece}}]}


def _concatenated(text: str) -> list[dict[str, object]]:
    decoder, at, out = json.JSONDecoder(), 0, []
    while (at := len(text) - len(text[at:].lstrip())) < len(text):
        value, at = decoder.raw_decode(text, at)
        out.append(value)
    return out


def _sse_events(text: str) -> list[dict[str, object]]:
    """What an SSE client reads: the ``data:`` lines of each event joined with line breaks."""
    events = (
        "\n".join(line[5:].removeprefix(" ") for line in event.splitlines() if line.startswith("data:"))
        for event in text.split("\n\n")
    )
    return [json.loads(event) for event in events if event and event != "[DONE]"]


STORED_STREAMS = {
    "json_array_one_line": (
        lambda parts: json.dumps([_openai_chunk(p) for p in parts]),
        lambda text: json.loads(text),
    ),
    "json_array_pretty": (
        lambda parts: json.dumps([_openai_chunk(p) for p in parts], indent=2),
        lambda text: json.loads(text),
    ),
    "pretty_chunks_one_after_another": (
        lambda parts: "\n".join(json.dumps(_openai_chunk(p), indent=2) for p in parts),
        _concatenated,
    ),
    "sse_data_over_several_lines": (
        lambda parts: (
            "\n\n".join(
                "\n".join("data: " + line for line in json.dumps(_openai_chunk(p), indent=1).splitlines())
                for p in parts
            )
            + "\n\ndata: [DONE]\n"
        ),
        _sse_events,
    ),
}


@pytest.mark.parametrize("layout", sorted(STORED_STREAMS))
@pytest.mark.parametrize("seed", range(3))
def test_a_stream_stored_as_an_array_or_over_several_lines_is_joined(layout, seed):
    build, read = STORED_STREAMS[layout]
    password = _password(seed)
    answer = f"Run mysql -h db -u root --password={password} -e 'select 1' then the tests."
    redacted, _ = redact_text(build(_chunks(answer, seed)), SALT)
    joined = "".join(chunk["choices"][0]["delta"]["content"] for chunk in read(redacted))
    assert not any(password[at : at + 5] in joined for at in range(len(password) - 4))
    assert "REDACTED" in joined and joined.startswith("Run mysql")


@pytest.mark.parametrize("layout", sorted(STORED_STREAMS))
def test_an_honest_stream_stored_whole_is_unchanged(layout):
    build, _ = STORED_STREAMS[layout]
    text = build(_chunks("def add(a, b):\n    return a + b  # sha ba7816bf8f01cfea414140de5dae2223", 4))
    assert redact_text(text, SALT)[0] == text


@pytest.mark.parametrize("indent", [None, 2])
def test_a_stream_a_recording_keeps_under_its_chunks_key_is_joined(indent):
    password = _password(5)
    answer = f"Run mysql -h db -u root --password={password} -e 'select 1' then the tests."
    chunks = [_openai_chunk(p) for p in _chunks(answer, 5)]
    redacted, _ = redact_text(json.dumps({"model": "m", "chunks": chunks}, indent=indent), SALT)
    joined = "".join(c["choices"][0]["delta"]["content"] for c in json.loads(redacted)["chunks"])
    assert not any(password[at : at + 5] in joined for at in range(len(password) - 4))


@pytest.mark.parametrize("layout", ["jsonl", "array", "recording"])
def test_events_that_each_carry_a_whole_value_are_not_joined(layout):
    rng = random.Random(12)
    events = [
        {"type": "metric", "data": "".join(rng.choices("abcdefghijkmnopqrstuvwxyz23456789", k=6))}
        for _ in range(10)
    ]
    text = {
        "jsonl": "\n".join(json.dumps(event) for event in events),
        "array": json.dumps(events, indent=2),
        "recording": json.dumps({"events": events, "source": "collector"}),
    }[layout]
    assert redact_text(text, SALT)[0] == text


def test_a_json_array_of_named_settings_is_records_not_a_stream():
    rng = random.Random(11)
    alphabet = "abcdefghijkmnopqrstuvwxyz23456789"
    settings = [{"name": f"OPTION_{n}", "value": "".join(rng.choices(alphabet, k=6))} for n in range(12)]
    text = json.dumps(settings, indent=2)
    assert redact_text(text, SALT)[0] == text


def _key(seed: int, size: int = 32) -> bytes:
    return random.Random(seed).randbytes(size)


UNLABELLED_KEYS = {
    "solana_id_json": lambda k: "$ cat ~/.config/solana/id.json\n[" + ",".join(map(str, k)) + "]",
    "python_repr_echo": lambda k: f">>> os.urandom({len(k)})\n{k!r}",
    "node_buffer": lambda k: (
        f"> crypto.randomBytes({len(k)})\n<Buffer {' '.join(f'{b:02x}' for b in k[:50])}"
        + (f" ... {len(k) - 50} more bytes>" if len(k) > 50 else ">")
    ),
    "go_printed_slice": lambda k: "fmt.Println(buf)\n[" + " ".join(map(str, k)) + "]",
}


@pytest.mark.parametrize("form", sorted(UNLABELLED_KEYS))
@pytest.mark.parametrize(("seed", "size"), [(1, 32), (2, 64)])
def test_random_key_bytes_without_a_label_are_replaced(form, seed, size):
    key = _key(seed, size)
    text = UNLABELLED_KEYS[form](key)
    redacted, findings = redact_text(text, SALT)
    assert any(f.kind == "PRIVATE_KEY" for f in findings)
    assert text.splitlines()[-1][1:30] not in redacted


DRAWN_KEYS = {
    "python_repr": lambda k: f">>> os.urandom({len(k)})\n{k!r}",
    "python_list": lambda k: f">>> list(secrets.token_bytes({len(k)}))\n{list(k)}",
    "node_buffer": lambda k: f"> crypto.randomBytes({len(k)})\n<Buffer {' '.join(f'{b:02x}' for b in k)}>",
    "go_after_rand_read": lambda k: f"rand.Read(key)\nfmt.Println(key)\n[{' '.join(map(str, k))}]",
}


@pytest.mark.parametrize("form", sorted(DRAWN_KEYS))
@pytest.mark.parametrize(("seed", "size"), [(3, 16), (4, 24), (5, 48)])
def test_key_bytes_of_other_sizes_under_a_call_that_draws_them_are_replaced(form, seed, size):
    text = DRAWN_KEYS[form](_key(seed, size))
    redacted, findings = redact_text(text, SALT)
    assert any(f.kind == "PRIVATE_KEY" for f in findings)
    assert text.splitlines()[-1][-20:-4] not in redacted


@pytest.mark.parametrize(
    "text",
    [
        f">>> uuid.uuid4().bytes\n{_key(6, 16)!r}",
        f">>> iv = os.urandom(16)\n>>> iv\n{_key(7, 16)!r}",
        f">>> hashlib.md5(data).digest()\n{hashlib.md5(b'data').digest()!r}",
        f">>> list(os.urandom(16))\n{list(range(16))}",
        "> crypto.createHash('sha1').update(s).digest()\n<Buffer "
        + hashlib.sha1(b"s").digest().hex(" ")
        + ">",
    ],
    ids=["uuid_bytes", "named_iv", "digest", "counter", "sha1_buffer"],
)
def test_bytes_of_other_sizes_that_no_call_draws_or_that_are_named_public_are_kept(text):
    assert redact_text(text, SALT)[0] == text


PUBLIC_ECHOES = {
    "uuid_hex": lambda k: f">>> uuid.uuid4().hex\n'{k[:16].hex()}'",
    "dgst_base64": lambda k: (
        "$ openssl dgst -sha384 -binary dist.tar | base64\n" + base64.b64encode(k[:48]).decode()
    ),
    "md5sum": lambda k: f"$ md5sum -b dist.tar | cut -c1-32\n{k[:16].hex()}",
}


@pytest.mark.parametrize("form", sorted(PUBLIC_ECHOES))
def test_the_echo_of_a_digest_or_uuid_call_is_kept(form):
    text = PUBLIC_ECHOES[form](_key(8, 48))
    assert redact_text(text, SALT)[0] == text


@pytest.mark.parametrize(
    "command", ["python -c 'import secrets, uuid; print(secrets.token_hex(24))'", "openssl rand -hex 24"]
)
def test_the_echo_of_a_call_that_draws_random_bytes_is_replaced(command):
    value = _key(9, 24).hex()
    assert value not in redact_text(f"$ {command}\n{value}", SALT)[0]


def test_a_solana_keypair_file_stays_a_json_document():
    text = "[" + ",".join(map(str, _key(3, 64))) + "]"
    redacted, _ = redact_text(text, SALT)
    assert json.loads(redacted)[0].startswith("<REDACTED_PRIVATE_KEY:")


PUBLIC_BYTES = {
    "empty_sha256_list": str(list(hashlib.sha256(b"").digest())),
    "empty_sha512_buffer": f"<Buffer {hashlib.sha512(b'').digest()[:50].hex(' ')} ... 14 more bytes>",
    "digest_echo": f">>> hashlib.sha256(data).digest()\n{hashlib.sha256(b'data').digest()!r}",
    "public_key_field": json.dumps({"pubkey": list(hashlib.sha256(b"pk").digest())}),
    "expected_vector": f"let expected: [u8; 32] = {list(hashlib.sha256(b'v').digest())};",
    "png_header": str(list(bytes.fromhex("89504e470d0a1a0a0000000d4948445200000100000001000806000000"))),
    "small_numbers": str([random.Random(3).randrange(100) for _ in range(40)]),
    "counter": "[]byte{" + ", ".join(f"0x{x:02x}" for x in range(0, 64, 2)) + "}",
    "s_box": "SBOX = [" + ", ".join(f"0x{x:02x}" for x in random.Random(5).sample(range(256), 256)) + "]",
}


@pytest.mark.parametrize("case", sorted(PUBLIC_BYTES))
def test_public_or_structured_bytes_are_kept(case):
    text = PUBLIC_BYTES[case]
    assert redact_text(text, SALT)[0] == text


def _raw_deflate(data: bytes) -> bytes:
    packer = zlib.compressobj(9, zlib.DEFLATED, -zlib.MAX_WBITS)
    return packer.compress(data) + packer.flush()


COMPRESSED = {
    "gzip_hex": lambda line: "blob: " + gzip.compress(line, mtime=0).hex(),
    "zlib_hex_spaced": lambda line: "blob: " + zlib.compress(line).hex(" "),
    "raw_deflate_hex": lambda line: "payload = bytes.fromhex('" + _raw_deflate(line).hex().upper() + "')",
    "php_gzinflate": lambda line: (
        f"eval(gzinflate(base64_decode('{base64.b64encode(_raw_deflate(line)).decode()}')));"
    ),
}


@pytest.mark.parametrize("form", sorted(COMPRESSED))
@pytest.mark.parametrize("seed", range(2))
def test_a_short_line_compressed_as_hex_or_raw_deflate_is_replaced(form, seed):
    line = f"DB_PASSWORD={_password(seed)}".encode()
    text = COMPRESSED[form](line)
    blob = text.split("'")[1] if "'" in text else text.removeprefix("blob: ")
    assert blob not in redact_text(text, SALT)[0]
