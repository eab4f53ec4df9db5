"""A webhook's secret in its host name: ``https://<token>.m.pipedream.net``, a Lambda function URL.

The address of a webhook is its credential; :mod:`.webhook_urls` read the token in its path after a
segment naming a hook (``/hooks/<token>``). Some services put it in the host instead: a request
bin's ``<token>.m.pipedream.net``, an AWS Lambda function URL's ``<id>.lambda-url.<region>.on.aws``
(public when its auth type is ``NONE``), a self-hosted ``<token>.hooks.example.com``. Those hosts
passed: a host name is no path, and a lowercase run of DNS letters scores too low for entropy.

Generated hosts (service, token length, scheme, what follows the host) split into a development and
a validation half; a host whose first label is a word, a region, a slug or a name with a number
(``api``, ``us-east-1``, ``team-a``, ``customer1234``) is a control.
"""

from __future__ import annotations

import random
import string

import pytest
from redact_factory import SALT

from trajectory_platform.curation.redact import redact_text

_SERVICES = [
    ("eo{t}.m.pipedream.net", 13),
    ("{t}.lambda-url.us-east-1.on.aws", 32),
    ("{t}.hooks.example.com", 20),
    ("{t}.webhook.acme-ci.io", 24),
    ("en{t}.x.pipedream.net", 14),
    ("{t}.lambda-url.eu-west-2.on.aws", 32),
    ("{t}.webhooks.internal.example.org", 18),
]
"""Hosts with the token's place and length: the first four for development, the rest held out."""
_LINES = [
    "curl -X POST https://{h}/ -d @event.json",
    'WEBHOOK_URL="https://{h}/notify"',
    "posting the build status to https://{h}",
    '{{"url": "https://{h}/v1/events?source=ci"}}',
]


def _token(rng: random.Random, length: int) -> str:
    return "".join(rng.choice(string.ascii_lowercase + string.digits) for _ in range(length))


def _cases(services: list[tuple[str, int]], seed: int) -> list[tuple[str, str]]:
    rng = random.Random(seed)
    cases = []
    for host, length in services:
        for _ in range(10):
            token = _token(rng, length)
            while sum(map(str.isdigit, token)) < 2 or sum(map(str.isalpha, token)) < 2:
                token = _token(rng, length)
            cases.append((rng.choice(_LINES).format(h=host.format(t=token)), token))
    return cases


DEV = _cases(_SERVICES[:4], 41)
VALIDATION = _cases(_SERVICES[4:], 42)
CONTROLS = [
    "curl https://api.hooks.example.com/status",
    "curl https://us-east-1.hooks.example.com/status",
    "https://team-a.webhook.acme-ci.io/",
    "https://customer1234.hooks.example.com/",
    "https://build20240517.webhooks.example.com/",
    "https://staging.m.pipedream.net/",
    "see https://hooks.example.com/docs/webhooks",
    "https://docs.aws.amazon.com/lambda/latest/dg/lambda-urls.html",
    "https://webhooks2024.example.com/",
]


def _missed(line: str, token: str) -> bool:
    return token in redact_text(line, SALT)[0]


@pytest.mark.parametrize(("line", "token"), DEV, ids=[f"dev{i}" for i, _ in enumerate(DEV)])
def test_a_token_in_a_webhooks_host_is_replaced(line, token):
    assert not _missed(line, token)


def test_the_validation_hosts_too():
    assert [line for line, token in VALIDATION if _missed(line, token)] == []


@pytest.mark.parametrize("line", CONTROLS, ids=[f"ctl{i}" for i, _ in enumerate(CONTROLS)])
def test_a_named_host_stays(line):
    assert redact_text(line, SALT)[0] == line
