"""The citations and annotations a model's answer carries, kept beside the episode, never dropped.

Providers attach to an answer where its statements came from, each in a field of its own:
Anthropic's text blocks ``citations`` (``char_location``, ``page_location``,
``content_block_location``, ``web_search_result_location``, ``search_result_location``; Claude.ai's
export ``{"start_index", "end_index", "details": {"url"}}``), OpenAI's ``annotations``
(``url_citation`` on a Chat Completions message or a Responses ``output_text`` part, ``file_citation``),
Cohere's message ``citations`` (spans and their sources), Gemini's ``groundingMetadata`` and
``citationMetadata``. The model did not write them as text and never sees them, so they are no part
of a turn; but they make the answer checkable, and every reader kept only the text and lost them
without a word. So every such field of a record is listed in ``extra_json.citations``
(:func:`cited_fields`): its path in the record and its value, as written but for ciphertext only the
API reads (``encrypted_index``, ``encrypted_content``). Text and titles in them stay extra fields,
redacted as every extra field is. Ingest adds them to the episode a record gave; where a run was
split into several conversations, each carries the fields of the answers it holds
(:func:`citations_of_episodes`), a reader whose record holds its lines as framed records (a Claude
Code session) adds its own.

An Anthropic answer comes back as text blocks split at its citations (``"Based on the page, "``,
``"it is sunny"``, ``"."``): a cited block is a piece of the sentence around it, so it joins the
text before and after it with nothing between (:func:`joins_cited`), never a line break that no
model wrote.
"""

from __future__ import annotations

from typing import Any

from trajectory_platform.traces.drops import path_of
from trajectory_platform.traces.record import Episode, canonical_json

CITATIONS = "citations"
"""Anthropic's and Cohere's field (a list), and the extra field of the episode listing them all."""
CITATION_LISTS = frozenset({CITATIONS, "annotations"})
"""Fields holding a list of citations (a ``citations`` object, ``{"enabled": true}``, is a request's
setting, not a citation)."""
CITATION_OBJECTS = frozenset(
    {"groundingMetadata", "grounding_metadata", "citationMetadata", "citation_metadata"}
)
"""Fields holding an object of citations (Gemini's grounding and recitation sources)."""
CIPHERTEXT_FIELDS = frozenset({"encrypted_index", "encrypted_content"})
MAX_DEPTH = 64
"""How deep a record is searched: far past any provider's nesting, short of Python's recursion limit."""


def is_cited(block: Any) -> bool:
    """An Anthropic text block carrying at least one citation."""
    return (
        isinstance(block, dict)
        and block.get("type") == "text"
        and isinstance(block.get(CITATIONS), list)
        and bool(block[CITATIONS])
    )


def joins_cited(block: Any, previous: Any) -> bool:
    """Does text ``block`` continue the text of ``previous`` (the block before it) without a break:
    one of the two is a cited block, a piece of one sentence the API split at its citations?"""
    cited = is_cited(block) or is_cited(previous)
    return cited and isinstance(previous, dict) and previous.get("type") == "text"


def _is_citation_field(key: str, value: Any) -> bool:
    if key in CITATION_LISTS:
        return isinstance(value, list) and bool(value)
    return key in CITATION_OBJECTS and isinstance(value, dict) and bool(value)


def _without_ciphertext(value: Any) -> Any:
    if isinstance(value, dict):
        return {k: _without_ciphertext(v) for k, v in value.items() if k not in CIPHERTEXT_FIELDS}
    if isinstance(value, list):
        return [_without_ciphertext(v) for v in value]
    return value


def cited_fields(value: Any) -> list[dict[str, Any]]:
    """Every citation field under ``value``, in record order: ``{"at": its path, "cited": its value}``
    (the path named as a detail names keys: ``traces.drops.path_of``)."""
    return [field for field, _ in _cited_answers(value)]


ANSWER_TEXT_KEYS = ("text", "content", "message", "parts")
"""Where the object holding a citation field keeps the answer it cites (a text block's or a
Responses part's ``text``, a message's ``content``, a Cohere message's ``message``, a Gemini
candidate's ``content.parts``), read by :func:`_answer_text`."""


def _answer_text(owner: dict[str, Any]) -> str | None:
    """The answer an object holding a citation field cites: the longest text under one of its
    :data:`ANSWER_TEXT_KEYS`, searched outside its citation fields (None: it holds none)."""
    texts: list[str] = []

    def collect(value: Any, depth: int) -> None:
        if depth > MAX_DEPTH:
            return
        if isinstance(value, str):
            texts.append(value.strip())
        elif isinstance(value, list):
            for item in value:
                collect(item, depth + 1)
        elif isinstance(value, dict):
            for key, item in value.items():
                if key in ANSWER_TEXT_KEYS and not _is_citation_field(str(key), item):
                    collect(item, depth + 1)

    for key in ANSWER_TEXT_KEYS:
        collect(owner.get(key), 0)
    return max((t for t in texts if t), key=len, default=None)


def _cited_answers(value: Any, keys: tuple[str, ...] = ()) -> list[tuple[dict[str, Any], str | None]]:
    """Every citation field under ``value`` (as :func:`cited_fields` lists it) with the answer text
    of the object holding it."""
    if len(keys) > MAX_DEPTH:
        return []
    if isinstance(value, dict):
        found: list[tuple[dict[str, Any], str | None]] = []
        for key, item in value.items():
            at = (*keys, str(key))
            if _is_citation_field(str(key), item):
                field = {"at": _located(at), "cited": _without_ciphertext(item)}
                found.append((field, _answer_text(value)))
            else:
                found += _cited_answers(item, at)
        return found
    if isinstance(value, list):
        return [found for i, v in enumerate(value) for found in _cited_answers(v, (*keys, f"[{i}]"))]
    return []


def citations_of_episodes(value: Any, episodes: list[Episode]) -> list[list[dict[str, Any]]]:
    """The citation fields of record ``value`` each of ``episodes`` (the conversations it was split
    into) carries: a field goes to the episodes whose turns hold the answer it cites, so a run split
    in several conversations does not copy every answer's sources onto each; a field whose answer no
    episode holds, or that sits beside no answer text, goes to every episode (whose it is cannot be
    told, and it is never dropped)."""
    said = [[e.content for e in episode.events if e.content] for episode in episodes]
    kept: list[list[dict[str, Any]]] = [[] for _ in episodes]
    for field, answer in _cited_answers(value):
        holders = [i for i, texts in enumerate(said) if answer and any(answer in t for t in texts)]
        for i in holders or range(len(episodes)):
            kept[i].append(field)
    return kept


def _located(keys: tuple[str, ...]) -> str:
    """``messages[1].content[2].citations`` from the keys and indices leading to a field."""
    out = ""
    for key in keys:
        out += key if key.startswith("[") else f".{path_of([key])}"
    return out.lstrip(".")


def keep_citations(episode: Episode, value: Any, found: list[dict[str, Any]] | None = None) -> None:
    """Add the citation fields of ``value`` (a record, or what of it the episode was read from), or
    those ``found`` of it for this episode (:func:`citations_of_episodes`), to ``episode``'s
    ``extra_json.citations``; nothing when it cites nothing, or when the reader has listed them
    already."""
    extra = episode.extra()
    if CITATIONS in extra:
        return
    found = cited_fields(value) if found is None else found
    if found:
        episode.extra_json = canonical_json({**extra, CITATIONS: found})
