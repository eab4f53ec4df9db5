"""SPDX tiers (table 12), expressions, family tiers and the 7-gram copy taint."""

from __future__ import annotations

import copy

import pytest
from redact_factory import secret_episode

from trajectory_platform.curation.licenses import (
    copies_observation,
    family_tiers,
    license_decision,
    license_tier,
)
from trajectory_platform.traces.record import Event, ToolCall


@pytest.mark.parametrize(
    ("spdx", "tier"),
    [
        ("MIT", "permissive"),
        ("Apache-2.0", "permissive"),
        ("BSD-2-Clause", "permissive"),
        ("BSD-3-Clause", "permissive"),
        ("ISC", "permissive"),
        ("LGPL-2.1-only", "weak_copyleft"),
        ("LGPL-3.0-or-later", "weak_copyleft"),
        ("MPL-2.0", "weak_copyleft"),
        ("EPL-2.0", "weak_copyleft"),
        ("GPL-2.0-only", "strong_copyleft"),
        ("GPL-3.0+", "strong_copyleft"),
        ("AGPL-3.0-or-later", "strong_copyleft"),
        ("CC-BY-NC-4.0", "restricted"),
        ("UNLICENSED", "restricted"),
        ("LicenseRef-Proprietary", "restricted"),
        ("made-up-license", "restricted"),
        ("mit", "permissive"),
        ("MIT OR GPL-3.0-only", "permissive"),
        ("MIT AND GPL-3.0-only", "strong_copyleft"),
        ("(Apache-2.0 OR MIT) AND MPL-2.0", "weak_copyleft"),
        ("GPL-2.0-only WITH Classpath-exception-2.0", "weak_copyleft"),
        (None, "unknown"),
        ("  ", "unknown"),
    ],
)
def test_tiers(spdx, tier):
    assert license_tier(spdx) == tier


def test_family_takes_its_strictest_recorded_license():
    tiers = family_tiers(
        [("a/x", "MIT"), ("a/x", "GPL-3.0-only"), ("a/x", None), ("b/y", None), (None, "MIT")]
    )
    assert tiers == {"a/x": "strong_copyleft", "b/y": "unknown"}


def _with_copy(words: int):
    episode = copy.deepcopy(secret_episode())
    source = "static int parse_header ( struct buffer * in , size_t limit ) { return checked_read ( in ) ; }"
    episode.events.append(
        Event(kind="tool", content=f"$ cat parse.c\n{source}", tool_call_id="c9", status="ok")
    )
    copied = " ".join(["static", "int", "parse_header", "struct", "buffer", "in", "size_t", "limit"][:words])
    episode.events.append(
        Event(
            kind="assistant",
            tool_calls=[ToolCall(id="c10", name="write_file", arguments=f'{{"text": "{copied}"}}')],
        )
    )
    return episode


def test_taint_needs_a_seven_word_copy_from_an_earlier_observation():
    assert copies_observation(_with_copy(7))
    assert not copies_observation(_with_copy(6))
    assert license_decision("strong_copyleft", _with_copy(7)) == ("quarantine", "RECIPROCAL_COPYLEFT")
    assert license_decision("weak_copyleft", _with_copy(7)) == ("quarantine", "RECIPROCAL_COPYLEFT")
    assert license_decision("weak_copyleft", _with_copy(6)) == ("admit", None)
    assert license_decision("permissive", _with_copy(7)) == ("admit", None)
    assert license_decision("restricted", _with_copy(1))[0] == "block"
    reordered = _with_copy(7)
    reordered.events[-2], reordered.events[-1] = reordered.events[-1], reordered.events[-2]
    assert not copies_observation(reordered)  # an action cannot copy what it has not seen yet
