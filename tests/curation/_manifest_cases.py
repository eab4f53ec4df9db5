"""Generated package-manifest and lockfile lines (negatives: kept byte for byte) and real secrets
placed beside them (controls: still redacted), in a development and a validation half.

The development half writes the layouts the fix was made against (a wheel's RECORD, npm's
package-lock, yarn.lock, poetry.lock, go.sum, Cargo.lock, pip's ``--hash``); the validation half
writes other lockfiles (pnpm, uv, Gemfile.lock checksums, Pipfile.lock, composer.lock, Nix SRI,
npm's sha1 SRI, ``sha256sum`` output). Either is read in every encoding of :data:`ENCODINGS`.
Digests are random bytes, some forced to open with a vendor token's prefix;
RECORD paths hold build ids and numbered migration names.
"""

from __future__ import annotations

import base64
import json
import random
import string
from collections.abc import Callable

TOKEN_PREFIXES = ("hf_", "ghp_", "glpat-", "sk-", "xoxb-", "AKIA", "npm_", "pypi-", "sk_live_")
_URLSAFE = string.ascii_letters + string.digits + "-_"


def _digest(rng: random.Random, size: int, form: str) -> str:
    raw = rng.randbytes(size)
    if form == "hex":
        return raw.hex()
    if form == "urlsafe":
        text = base64.urlsafe_b64encode(raw).decode().rstrip("=")
        if rng.random() < 0.3:  # a digest whose characters open like a vendor's token
            prefix = rng.choice(TOKEN_PREFIXES)
            text = prefix + text[len(prefix) :]
        return text
    return base64.b64encode(raw).decode()


def _word(rng: random.Random) -> str:
    return rng.choice(["config", "models", "static", "utils", "initial", "schedule", "add", "cols"])


def _build_id(rng: random.Random) -> str:
    return "".join(rng.choice(string.ascii_letters + string.digits) for _ in range(rng.randint(20, 24)))


def _record_path(rng: random.Random) -> str:
    pkg = rng.choice(["dagster", "transformers", "webapp", "pkg_x", "lib"])
    kind = rng.randrange(4)
    if kind == 0:
        return f"{pkg}/build/_next/static/{_build_id(rng)}/_buildManifest.js"
    if kind == 1:
        number = f"{rng.randrange(1000):03d}"
        name = f"{number}_{rng.randbytes(6).hex()}_{_word(rng)}_{_word(rng)}"
        return f"{pkg}/alembic/versions/__pycache__/{name}.cpython-311.pyc"
    if kind == 2:
        return f"{pkg}/models/m2m_{rng.randrange(200)}/configuration_m2m_{rng.randrange(200)}_{_word(rng)}.py"
    return f"../../../bin/{_word(rng)}{rng.randrange(10)}"


def record_row(rng: random.Random) -> str:
    path = _record_path(rng)
    if path.endswith(".pyc"):
        return f"{path},,"
    return f"{path},sha256={_digest(rng, 32, 'urlsafe')},{rng.randrange(100, 99999)}"


def _name(rng: random.Random) -> str:
    return rng.choice(["react", "lodash", "serde", "tokio", "requests", "pydantic", "rack", "cobra"])


DEV: dict[str, Callable[[random.Random], str]] = {
    "record": record_row,
    "package_lock": lambda rng: f'      "integrity": "sha512-{_digest(rng, 64, "b64")}",',
    "yarn_lock": lambda rng: (
        f'  resolved "https://registry.yarnpkg.com/{_name(rng)}/-/{_name(rng)}-1.2.3.tgz#'
        f'{_digest(rng, 20, "hex")}"\n  integrity sha512-{_digest(rng, 64, "b64")}'
    ),
    "poetry_lock": lambda rng: (
        f'    {{file = "{_name(rng)}-2.0.1-py3-none-any.whl", hash = "sha256:{_digest(rng, 32, "hex")}"}},'
    ),
    "go_sum": lambda rng: f"github.com/{_name(rng)}/{_name(rng)} v1.8.4/go.mod h1:{_digest(rng, 32, 'b64')}",
    "cargo_lock": lambda rng: f'checksum = "{_digest(rng, 32, "hex")}"',
    "requirements_hash": lambda rng: f"{_name(rng)}==2.32.3 \\\n    --hash=sha256:{_digest(rng, 32, 'hex')}",
}
VALIDATION: dict[str, Callable[[random.Random], str]] = {
    "record": record_row,
    "pnpm_lock": lambda rng: f"    resolution: {{integrity: sha512-{_digest(rng, 64, 'b64')}}}",
    "uv_lock": lambda rng: (
        f'sdist = {{ url = "https://files.pythonhosted.org/{_name(rng)}.tar.gz", '
        f'hash = "sha256:{_digest(rng, 32, "hex")}", size = {rng.randrange(10**6)} }}'
    ),
    "gemfile_checksums": lambda rng: f"  {_name(rng)} (3.0.8) sha256={_digest(rng, 32, 'hex')}",
    "pipfile_lock": lambda rng: f'                "sha256:{_digest(rng, 32, "hex")}",',
    "composer_lock": lambda rng: f'            "shasum": "{_digest(rng, 20, "hex")}",',
    "nix_sri": lambda rng: f'  hash = "sha256-{_digest(rng, 32, "b64")}";',
    "npm_sha1_sri": lambda rng: f'      "integrity": "sha1-{_digest(rng, 20, "b64")}",',
    "sha256sum": lambda rng: f"{_digest(rng, 32, 'hex')}  {_record_path(rng).lstrip('./')}",
}


def _random(rng: random.Random, alphabet: str, n: int) -> str:
    return "".join(rng.choice(alphabet) for _ in range(n))


CONTROLS: dict[str, Callable[[random.Random], tuple[str, str]]] = {
    "env_hf_token": lambda rng: (
        secret := "hf_" + _random(rng, string.ascii_letters, 34),
        f"HF_TOKEN={secret}",
    ),
    "index_url_token": lambda rng: (
        secret := "ghp_" + _random(rng, string.ascii_letters + string.digits, 36),
        f"--index-url https://__token__:{secret}@pypi.example.com/simple",
    ),
    "npmrc_token": lambda rng: (
        secret := "npm_" + _random(rng, string.ascii_letters + string.digits, 36),
        f"//registry.npmjs.org/:_authToken={secret}",
    ),
    "env_api_key": lambda rng: (
        secret := _random(rng, _URLSAFE, 40),
        f"export API_KEY={secret}",
    ),
}


ENCODINGS: dict[str, Callable[[str], str]] = {
    "plain": lambda text: text,
    "crlf": lambda text: text.replace("\n", "\r\n"),
    "json_document": lambda text: json.dumps({"stdout": text}),
    "escaped_in_a_line": lambda text: "tool output: " + json.dumps(text),
    "indented": lambda text: "".join(f"    {line}\n" for line in text.splitlines()),
    "cat_n": lambda text: "".join(f"{n:6d}\t{line}\n" for n, line in enumerate(text.splitlines(), 1)),
}
"""How a log carries a file's lines: as they are, with CRLF ends, as a JSON tool result, JSON-escaped
inside a line of text, indented, numbered by ``cat -n``."""


def lockfile(formats: dict[str, Callable[[random.Random], str]], rng: random.Random, rows: int = 12) -> str:
    """A text of ``rows`` lines of one layout each drawn from ``formats``."""
    name = rng.choice(sorted(formats))
    return "\n".join(formats[name](rng) for _ in range(rows)) + "\n"
