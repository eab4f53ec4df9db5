"""The runtime's seal over what it records of a run that no replay can re-derive.

A replay re-derives a gym episode's observations and diff from its calls, but three things the log
records it cannot: the fault schedule the runtime injected (:mod:`gym.faults`), the system prompt
it delivered (:mod:`gym.prompts`), and how it ended the run (a wall-clock timeout, a crashed
policy: :func:`gym.runtime.seal_end`, which triage reads, over the run it ended). A record can
declare each, so each
red-team forgery that set one (a fault the run never had, 2026-12-06; a prompt carrying the
grader's answer with its own digest beside it, the same week; a wrong fix stating ``timeout`` to
be triaged the runtime's fault) went through. Only the
runtime holding the pipeline's seal key (``verify.cascade.seal_key`` of the pipeline key) can
write a seal that matches, and binding the episode and fixture keeps a seal from being moved to
another log. The episode is named by the id the runtime wrote (:meth:`Episode.logged_id`): ingest
renames an episode whose id another shares and records the one its log wrote beside it, so the
same rollout file read twice, or two rollouts sharing an id, keep their seals (they broke every
seal before, 2026-12-06); a log cannot state that id itself (ingest removes it).
"""

from __future__ import annotations

import hashlib
import hmac
import json


def seal(key: bytes, episode_id: str, fixture_id: str, name: str, value: object) -> str:
    """HMAC-SHA256 under ``key`` of ``value``, the run input ``name`` of one episode of one fixture
    (the message is canonical JSON with ``name`` as the field: one input's seal never fits another)."""
    message = json.dumps(
        {"episode_id": episode_id, "fixture_id": fixture_id, name: value},
        sort_keys=True,
        separators=(",", ":"),
    )
    return hmac.new(key, message.encode(), hashlib.sha256).hexdigest()
