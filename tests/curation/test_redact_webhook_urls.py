"""A webhook's URL is its credential: the token in its path goes, plain hex included, and the
hook's name and the rest of the address stay; a URL that only mentions hooks keeps its ids and
slugs (red team, round 12). Hosts and layouts here are not the red team generator's."""

from __future__ import annotations

import pytest

from trajectory_platform.curation.redact import redact_text

SALT = b"webhook-salt"
HEX = "9c0e5b7a41d2f3869e0b1c2d3a4f5e6b"
TOKEN = "Qm7ZxK2pR9vL4tN8wB3yH6cJ1sD5fG0a"


@pytest.mark.parametrize(
    "text",
    [
        "curl -fsS -X POST -H 'Content-Type: application/json' -d @note.json https://alerts.lab.example/hooks/{hex}",
        '{{"notify_url": "https://build.lab.example/api/v4/projects/7/hook/{hex}"}}',
        "WEBHOOK=https://chat.lab.example/web-hooks/deploys/{hex}/{token}",
        "POST /webhook/e1f2a3b4-c5d6-4e7f-8a9b-0c1d2e3f4a5b/IncomingWebhook/{hex}/x 200",
    ],
)
def test_the_token_in_a_webhooks_path_is_replaced(text: str) -> None:
    line = "see https://status.lab.example/ then " + text.format(hex=HEX, token=TOKEN)
    redacted = redact_text(line, SALT)[0]
    assert HEX not in redacted and TOKEN not in redacted
    assert "https://status.lab.example/" in redacted


@pytest.mark.parametrize(
    "text",
    [
        "https://docs.lab.example/webhooks/securing-incoming-webhooks-2025-update",
        "https://api.github.com/repos/lab/tools/hooks/481516234200000042",
        "https://hooks.lab.example/docs/1f2e3d4c",
        f"https://git.lab.example/lab/tools/commit/{HEX}aa112233",
        "see .git/hooks/pre-commit.sample",
    ],
)
def test_addresses_that_only_mention_hooks_are_kept(text: str) -> None:
    assert redact_text(text, SALT)[0] == text
