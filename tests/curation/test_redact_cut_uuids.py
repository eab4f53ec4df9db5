"""A UUID cut by a truncation mark is no key (entropy.uuid_head, cut_values.cut_at).

A whole UUID scores as no key, but its head before a harness's cut (``request_id:
3f2a9c1e-7b4d-4e2a-9...``) lost the shape that exempts it and scored as random: the id was
replaced in the record that shows it. Generated: UUIDs x carriers x marks x cut points;
development and validation differ by carrier and mark. Controls: a UUID head cut under a key's
name, and a random key cut where the ids stood, are still replaced."""

from __future__ import annotations

import random
import uuid

import pytest

from trajectory_platform.curation.redact.engine import redact_text

KEY_ALPHABET = "ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz23456789"
SALT = b"cut-uuids-salt"

DEV_CARRIERS = {
    "csv": lambda u: f"id,request_id,status\n1,{u}",
    "json": lambda u: '{"status": "ok", "request_id": "' + u,
    "logfmt": lambda u: f"level=info msg=done trace_id={u}",
}
VAL_CARRIERS = {
    "tsv": lambda u: f"ts\trequest_id\tcode\n2024-05-01\t{u}",
    "yaml": lambda u: f"status: ok\ncorrelation_id: {u}",
    "psql": lambda u: f" id | run_id\n----+--------\n  1 | {u}",
    "prose": lambda u: f"The job failed; its execution id was {u}",
}
DEV_MARKS = ["...", " [truncated]", "… (1843 more chars)"]
VAL_MARKS = ["... [output truncated: 1843 more characters]", "…(12 more chars)", "\n<response clipped>"]
CUTS = [20, 21] * 6 + [14, 26, 35]
"""Where the cut falls: mostly in the fourth group, where a head's letters and digits score nearest
a key's (about one head in fifteen scored random there), and a few elsewhere."""


def _cases(carriers: dict, marks: list, half: str) -> list:
    cases = []
    for name, carrier in sorted(carriers.items()):
        for i, cut in enumerate(CUTS):
            g = random.Random(f"{half}{name}{i}")
            value = str(uuid.UUID(int=g.getrandbits(128), version=4))
            if g.random() < 0.3:
                value = value.upper()
            cases.append(pytest.param(carrier(value[:cut]) + g.choice(marks), id=f"{half}-{name}-{i}"))
    return cases


@pytest.mark.parametrize(
    "text", _cases(DEV_CARRIERS, DEV_MARKS, "dev") + _cases(VAL_CARRIERS, VAL_MARKS, "val")
)
def test_a_uuid_cut_by_a_truncation_mark_is_kept(text: str) -> None:
    assert redact_text(text, SALT)[0] == text


def _controls() -> list:
    cases = []
    for cut in (20, 26, 32):
        g = random.Random(f"control{cut}")
        value = str(uuid.UUID(int=g.getrandbits(128), version=4))[:cut]
        cases.append(pytest.param(f"HEROKU_API_KEY={value}...", value, id=f"heroku-{cut}"))
        cases.append(pytest.param('{"api_key": "' + value + " [truncated]", value, id=f"api-key-{cut}"))
        key = "".join(g.choice(KEY_ALPHABET) for _ in range(cut))
        cases.append(pytest.param(f"id,request_id,status\n1,{key}...", key, id=f"random-{cut}"))
    return cases


@pytest.mark.parametrize(("text", "value"), _controls())
def test_a_key_cut_in_the_same_places_is_still_replaced(text: str, value: str) -> None:
    assert value not in redact_text(text, SALT)[0]
