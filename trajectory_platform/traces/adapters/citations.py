"""The citations a Messages API text block carries, kept beside the episode rather than dropped.

With citations enabled (a ``document`` sent with ``citations: {"enabled": true}``, web search,
search results), Claude's answer comes back as text blocks, some of them carrying ``citations``:
where in a source the sentence came from (``char_location``, ``page_location``,
``content_block_location``, ``web_search_result_location``, ``search_result_location``; Claude.ai's
export writes ``{"start_index", "end_index", "details": {"url"}}``). The model did not write them
as text and never sees them, so they are no part of a turn; but they are what makes the answer
checkable, and a reader that kept only the text lost them without a word. So every cited block of a
record is listed in ``extra_json.citations`` (:func:`cited_blocks`): its path in the record and its
citations, each as written except an ``encrypted_index`` (ciphertext only the API reads, nothing to
train or check against). Text and titles in them stay extra fields, redacted as every extra field is.

The answer itself is the blocks' text joined as written: a cited block is a piece of the sentence
around it (``"Based on the page, "``, ``"it is sunny"``, ``"."``), so it joins the text before and
after it with nothing between (:func:`joins_cited`), never a line break that no model wrote.
"""

from __future__ import annotations

from typing import Any

from trajectory_platform.traces.drops import path_of
from trajectory_platform.traces.record import Episode, canonical_json

CITATIONS = "citations"
"""The block field, and the extra field of the episode listing the cited blocks."""
CIPHERTEXT_FIELDS = frozenset({"encrypted_index"})


def is_cited(block: Any) -> bool:
    """A text block carrying at least one citation."""
    return (
        isinstance(block, dict)
        and block.get("type") == "text"
        and isinstance(block.get(CITATIONS), list)
        and bool(block[CITATIONS])
    )


def joins_cited(block: Any, previous: Any) -> bool:
    """Does text ``block`` continue the text of ``previous`` (the block before it) without a break:
    one of the two is a cited block, a piece of one sentence the API split at its citations?"""
    return (
        isinstance(previous, dict)
        and previous.get("type") == "text"
        and (is_cited(block) or is_cited(previous))
    )


def cited_blocks(value: Any, keys: tuple[str, ...] = ()) -> list[dict[str, Any]]:
    """Every cited text block under ``value``, in record order: ``{"at": its path, "citations":
    [...]}`` (the path named as a detail names keys: ``traces.drops.path_of``)."""
    if is_cited(value):
        kept = [
            {k: v for k, v in c.items() if k not in CIPHERTEXT_FIELDS} if isinstance(c, dict) else c
            for c in value[CITATIONS]
        ]
        return [{"at": _located(keys), CITATIONS: kept}]
    if isinstance(value, dict):
        return [found for k, v in value.items() for found in cited_blocks(v, (*keys, str(k)))]
    if isinstance(value, list):
        return [found for i, v in enumerate(value) for found in cited_blocks(v, (*keys, f"[{i}]"))]
    return []


def _located(keys: tuple[str, ...]) -> str:
    """``messages[1].content[2]`` from the keys and indices leading to a block."""
    out = ""
    for key in keys:
        out += key if key.startswith("[") else f".{path_of([key])}"
    return out.lstrip(".")


def keep_citations(episode: Episode, value: Any) -> None:
    """Add the cited blocks of ``value`` (the record, or what of it the episode was read from) to
    ``episode``'s ``extra_json.citations``; nothing when it cites nothing."""
    found = cited_blocks(value)
    if found:
        episode.extra_json = canonical_json({**episode.extra(), CITATIONS: found})
