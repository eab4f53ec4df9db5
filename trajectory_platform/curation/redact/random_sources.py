"""Calls that draw random bytes or a key, one pattern for every rule that asks.

Its own module because two rules read it: unlabelled key bytes printed under such a call are a key's
whatever their size (:mod:`.key_numbers`), and a digest or id printed by code that draws none is
that digest's echo, not a key (:mod:`.detectors`); the detectors sit below the positional rules the
key-number rules use, so neither can import the other for it.
"""

from __future__ import annotations

import re

RANDOM_SOURCE = re.compile(
    r"(?i)(?<![a-z])(?:urandom|token_(?:bytes|hex|urlsafe)|randbytes|random_?bytes|getrandom|get_random_bytes"
    r"|generate_?key|gen_?key|keygen|rand\.read|securerandom|nextbytes|getrandomvalues"
    r"|random\.new\(\)\.read|nacl\.utils\.random|rand::random|randombytes_buf)(?![a-z])"
)
"""A call that draws random bytes or a key (Python, Node, Go, Java, Rust, PyCryptodome, libsodium):
bytes printed under it are a key's whatever their size, as the 32 or 64 bytes are without it."""
