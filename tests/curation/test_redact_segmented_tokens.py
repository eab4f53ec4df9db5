"""Keys of random segments joined by ``_``, ``.`` or ``-`` are scored segment by segment; names are not."""

from __future__ import annotations

import pytest

from trajectory_platform.curation.redact import redact_text

SALT = b"unit-salt"


@pytest.mark.parametrize(
    "token",
    [
        "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",
        "a64c61f057b21f687edb7f47036ce78c_1bb44a520f",
        "9f3a6c1e2b7d4a80_4c2e9b1f7a3d6e05_b81d7e2c4f9a3605",
        "Ab3kL9qPz0XwE2rT.Yu7iOp1LkJh6GfD4.Sa5DfGh8JkLzX2cV",
        "app_0c4f9e2a7b1d3c5e8f6a9b2c4d7e1f30.5e8a1c4f7b2d9e63",
        "v1.0-3f9a1c7e5b2d8f4a6c0e9b1d7f3a5c8e2b4d6f0a9c1e3b5d",
        "8c2e5f1a9d3b7e0c4f6a2d8b1e5c9f3a-us12",
        "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",
    ],
)
@pytest.mark.parametrize("layout", ["{v}", "Created. Copy this now: {v}", '{{"value": "{v}"}}'])
def test_random_segmented_keys_are_redacted_whole(token: str, layout: str):
    out = redact_text(layout.format(v=token), SALT)[0]
    assert token[-10:] not in out and token[:12] not in out


@pytest.mark.parametrize(
    "text",
    [
        "model = Wav2Vec2BertForCTC.from_pretrained(path)",
        "from transformers.models.mobilevit.modeling_mobilevit import MobileViTDeepLabV3",
        "assert test_checksummed_identifiers_are_redacted_when_labelled()",
        "version 2026.12.06_build.4411 released",
        "pkg/x.py,sha256=06uRx6IWfY0ebR_OW9FHCaisqekroxHwEoMbk32NyXs,183",
        "request 123e4567-e89b-12d3-a456-426614174000 done",
        "built from v1.2-3-gabcdef0",
        "traceparent: 00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01",
        "Cache restored from key: Linux-pip-3b5f1e9c2a7d4b6e8f0a1c3e5b7d9f2a4c6e8b0d1f3a5c7e9b2d4f6a8c0e1b3d",
    ],
)
def test_names_versions_and_named_digests_are_kept(text: str):
    assert redact_text(text, SALT)[0] == text
