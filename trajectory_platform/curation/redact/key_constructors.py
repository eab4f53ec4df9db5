"""Raw 256-bit private keys handed to the code that builds a signer from them.

A wallet's private key is 64 hex digits, usually written with ``0x`` (``Account.from_key('0x…')``,
``new ethers.Wallet('0x…')``, ``privateKeyToAccount('0x…')``, ``PrivateKey(bytes.fromhex('…'))``).
Transaction, block and storage hashes have exactly the same shape, and web3 logs are full of them,
so the shape alone proves nothing and entropy leaves ``0x`` hex alone. What proves a key is the
call that receives it: a constructor or factory whose name says it makes a key, a signer, a wallet
or an account (the words of its dotted or ``::`` path), with the literal as its argument directly
or through one decoding call (``bytes.fromhex``, ``unhexlify``, ``int(…, 16)``). A name that says
the key is public or only verifies (``PublicKey``, ``VerifyKey``) makes no secret.

Found by a red team (2026-12-06): 20 of 40 development and 16 of 32 validation ``0x`` keys in such
calls survived, although the same key under ``PRIVATE_KEY=`` was replaced.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from trajectory_platform.curation.redact.entropy import looks_random
from trajectory_platform.curation.redact.model import Finding

_HEX_LITERAL = re.compile(r"(?P<quote>[\"'])(?P<key>(?:0x)?[0-9a-fA-F]{64})(?P=quote)")
"""A string literal of 64 hex digits, ``0x`` or not: the candidates, found first (cheap)."""
_CALL_BEFORE = re.compile(
    r"(?P<callee>(?:new\s+)?[A-Za-z_]\w*(?:(?:\(\s*\))?(?:\.|::)[A-Za-z_]\w*)*)\s*\(\s*"
    r"(?:[A-Za-z_][\w.]*\s*\(\s*)?"  # one decoding call between: bytes.fromhex(, unhexlify(, int(
    r"(?:(?P<keyword>[A-Za-z_]\w*)\s*=\s*)?$"  # a keyword argument: Client(private_key='0x…')
)
"""What stands before the literal when it is the first argument of a call (or of a call in it)."""
_CALL_REACH = 120
"""How far before a literal its call is looked for: a long dotted path and one nested call."""
_SIGNER_WORDS = frozenset(
    {
        "key",
        "keys",
        "wallet",
        "signer",
        "signing",
        "account",
        "keypair",
        "secret",
        "private",
        "priv",
        "privkey",
        "sk",
        "pk",
    }
)
"""Words of a callee that builds something which signs: a key, a signer, a wallet, an account."""
_PUBLIC_WORDS = frozenset({"public", "pub", "pubkey", "verify", "verifying", "verifier", "address", "hash"})
"""Words that make the key public (``PublicKey``, ``VerifyKey``) or the value no key at all."""
_NAMED = re.compile(
    r"(?P<name>[A-Za-z_][\w.]{0,40})[\"']?\s*(?::=|=|:)\s*(?P<quote>[\"'])(?P<key>(?:0x)?[0-9a-fA-F]{64})(?P=quote)"
)
"""A 64-hex literal assigned to a name (``const pk = "0x…"``, ``signer: '0x…'``): a name such as
``pk``, ``sk`` or ``signer`` is too short or too common to mark any value, but marks this one."""
_LISTED = re.compile(r"^[ \t]*(?:\(\d+\)|\d+[.):]|[-*])[ \t]+(?P<key>0x[0-9a-fA-F]{64})[ \t]*$", re.MULTILINE)
"""A list item holding one 64-hex value: Anvil's ``(0) 0x…`` under its ``Private Keys`` heading."""
_LIST_FILLER = re.compile(r"[ \t]*(?:(?:\(\d+\)|\d+[.):]|[-*])[ \t]+\S.*|[=\-~]*)[ \t]*")
"""Lines between a list item and its heading: other items, blank lines, a heading's underline."""
_HEADING_REACH = 40
"""How many lines up a list's heading is looked for (Anvil lists ten keys)."""
_CAMEL = re.compile(r"([a-z0-9])([A-Z])")


def _callee_words(callee: str) -> set[str]:
    """The lowercase words of a call's path: ``w3.eth.account.privateKeyToAccount`` -> ``w3``,
    ``eth``, ``account``, ``private``, ``key``, ``to``."""
    spaced = _CAMEL.sub(r"\1 \2", callee.removeprefix("new").strip())
    return {word for word in re.split(r"[\W_]+", spaced.lower()) if word}


def find_key_constructor_hex(text: str) -> Iterator[Finding]:
    """64-hex private keys given to a call that builds a key, signer, wallet or account from them."""
    if "(" not in text:
        return
    for match in _HEX_LITERAL.finditer(text):
        call = _CALL_BEFORE.search(text, max(0, match.start() - _CALL_REACH), match.start())
        if call is None:
            continue
        words = _callee_words(call.group("callee")) | _callee_words(call.group("keyword") or "")
        if not words & _SIGNER_WORDS or words & _PUBLIC_WORDS:
            continue
        key = match.group("key")
        if not looks_random(key.removeprefix("0x")):
            continue  # 0x000…01, a counting pattern: a test fixture's placeholder, not a key
        yield Finding("PRIVATE_KEY", match.start("key"), match.end("key"), key, "key_constructor")


def find_named_hex_keys(text: str) -> Iterator[Finding]:
    """64-hex literals under a name whose words say signer or key (``pk``, ``sk``, ``signer``)."""
    for match in _NAMED.finditer(text):
        words = _callee_words(match.group("name"))
        key = match.group("key")
        if words & _SIGNER_WORDS and not words & _PUBLIC_WORDS and looks_random(key.removeprefix("0x")):
            yield Finding("PRIVATE_KEY", match.start("key"), match.end("key"), key, "key_constructor")


def find_listed_hex_keys(text: str) -> Iterator[Finding]:
    """List items of one ``0x`` 64-hex value each under a heading naming private keys (Anvil, a
    dev chain's banner): the heading is the first line above that is no item, blank or underline."""
    if "0x" not in text:
        return
    for match in _LISTED.finditer(text):
        lines = text[: match.start()].split("\n")[-_HEADING_REACH:]
        heading = next((line for line in reversed(lines) if not _LIST_FILLER.fullmatch(line)), "")
        words = _callee_words(heading)
        if words & {"private", "secret"} and words & {"key", "keys"}:
            yield Finding(
                "PRIVATE_KEY", match.start("key"), match.end("key"), match.group("key"), "key_constructor"
            )
