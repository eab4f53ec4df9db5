"""Text Parquet can store: lone UTF-16 surrogates in a record, and file names that are not UTF-8.

Arrow strings are UTF-8, and a Python string holding a code point between U+D800 and U+DFFF
cannot be encoded as UTF-8: writing it fails the whole table, so one such value used to lose the
run. They reach ingest two ways:

- a JSON string escape of half a surrogate pair (``"\\ud83d"``): JavaScript strings are UTF-16,
  and a tool that cuts a string mid-emoji writes the half it kept. ``json.loads`` joins a proper
  pair into one character and keeps a lone half as it is. :func:`replace_lone_surrogates` puts
  U+FFFD (the replacement character, what Unicode prescribes for ill-formed text) in its place and
  counts it: the rest of the text is kept as written, the record is kept, and the count says
  exactly where text was repaired (``extra_json.lone_surrogates_replaced``).
- a file name whose bytes are not UTF-8 (``log\\xff.jsonl``): Python gives such a name's
  undecodable bytes as surrogates. :func:`file_name_text` writes each of those bytes as
  ``\\xNN`` instead, so the stored name still tells the file apart and finds it.
"""

from __future__ import annotations

import dataclasses
import json
import os
import re
from pathlib import Path
from typing import Any

from trajectory_platform.traces.record import Episode, canonical_json

REPLACEMENT = "\ufffd"
SURROGATES_KEY = "lone_surrogates_replaced"
"""The ``extra_json`` key counting the lone surrogates an episode's text had replaced."""
_SURROGATE = re.compile("[\ud800-\udfff]")


def replace_lone_surrogates(text: str) -> tuple[str, int]:
    """``text`` with each lone surrogate replaced by U+FFFD, and how many were."""
    if text.isascii():
        return text, 0
    return _SURROGATE.subn(REPLACEMENT, text)


_PLAIN = (int, float, bool, type(None))
"""Values with no text in them: the walk below passes over them at once."""


def _scrub(value: Any) -> int:
    """Replace the lone surrogates in the texts of a record object (a dataclass of
    :mod:`~trajectory_platform.traces.record`: strings, lists, nested records) in place; returns
    how many. Dispatches on the exact type first: this runs once per record. A value of a type the
    schema does not hold is left to :func:`~trajectory_platform.traces.validate.validate_episode`."""
    total = 0
    fields = value.__dict__
    for name, item in fields.items():
        kind = type(item)
        if kind is str:
            fields[name], count = replace_lone_surrogates(item)
            total += count
        elif kind is list:
            for index, element in enumerate(item):
                if type(element) is str:
                    item[index], count = replace_lone_surrogates(element)
                    total += count
                elif not isinstance(element, _PLAIN) and dataclasses.is_dataclass(element):
                    total += _scrub(element)
        elif not isinstance(item, _PLAIN) and dataclasses.is_dataclass(item):
            total += _scrub(item)
    return total


def scrub_episode(episode: Episode) -> int:
    """Replace the lone surrogates of every text of ``episode`` (in place) by U+FFFD; a non-zero
    count is recorded in ``extra_json`` under :data:`SURROGATES_KEY`. Returns the count."""
    count = _scrub(episode)
    if count:
        try:
            extra = json.loads(episode.extra_json) if episode.extra_json else {}
        except ValueError:
            extra = {"extra": episode.extra_json}
        if not isinstance(extra, dict):
            extra = {"extra": extra}
        extra[SURROGATES_KEY] = extra.get(SURROGATES_KEY, 0) + count
        episode.extra_json = canonical_json(extra)
    return count


def file_name_text(path: Path | str) -> str:
    """``path`` as text that is always valid UTF-8: the bytes of a name that are not UTF-8 (which
    Python holds as surrogates) written as ``\\xNN``; any other name unchanged."""
    text = str(path)
    if text.isascii() or not _SURROGATE.search(text):
        return text
    try:
        raw = os.fsencode(text)
    except UnicodeEncodeError:  # a surrogate that did not come from the file system
        return _SURROGATE.sub(REPLACEMENT, text)
    return raw.decode("utf-8", "backslashreplace")
