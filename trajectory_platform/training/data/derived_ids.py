"""The id of an episode schema augmentation derived: ``<parent>~<kind>-<digest>``, one source for
the format that ``augment.derive`` writes and the trainer reads. Kept apart from ``augment`` (which
replays episodes in the gym) so that reading an id needs no gym import."""

from __future__ import annotations

import re

_SEGMENT = re.compile(r"~([a-z_]+)-([0-9a-f]{8})(?=~|$)")


def derived_id(parent_id: str, kind: str, digest: str) -> str:
    """The id of the episode ``kind`` derived from ``parent_id`` (``digest``: 8 hex characters of
    the transformation's declaration)."""
    return f"{parent_id}~{kind}-{digest}"


def derivations(episode_id: str) -> list[str]:
    """The transformations that derived ``episode_id``, oldest first (empty for an admitted episode).
    Only ``~kind-<8 hex>`` segments count, so a ``~`` in an imported log's own id is not one."""
    return [kind for kind, _ in _SEGMENT.findall(episode_id)]
