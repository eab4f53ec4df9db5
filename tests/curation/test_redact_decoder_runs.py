"""A decoder whose matches are searched only inside the runs that can hold a piece (:class:`.decoders.
InRuns`) builds the same view as one searched over the whole text, without a regex's backtracking
over every other word."""

import random

import pytest

from trajectory_platform.curation.redact import decoders
from trajectory_platform.curation.redact.decoders import _FORM_RUN, _FORM_WORD, DECODERS, InRuns, _view

_PIECES = ("a", "Zq9", "+", "%2B", "%41", "%zz", "%", "x+y", " ", "\n", ".", "~", "é", "=", "/", "%E2%82%AC")


def _texts(seed: int) -> list[str]:
    rng = random.Random(seed)
    return ["".join(rng.choice(_PIECES) for _ in range(rng.randrange(0, 80))) for _ in range(60)]


def _form_view(text: str, matches):
    view = _view("form_encoded", text, matches, decoders._form_encoded, None)
    return None if view is None else (view.text, view.segments)


@pytest.mark.parametrize("seed", range(4))
def test_the_form_encoded_view_is_the_one_a_whole_text_search_builds(seed):
    finder = InRuns(_FORM_WORD, _FORM_RUN, "%+")
    for text in _texts(seed):
        assert _form_view(text, finder.finditer(text)) == _form_view(text, _FORM_WORD.finditer(text))
        middle = len(text) // 2  # a nested view searches the lines its parent changed
        within = _FORM_WORD.finditer(text, 3, middle)
        assert _form_view(text, finder.finditer(text, 3, middle)) == _form_view(text, within)


def test_a_word_without_a_plus_and_a_percent_is_never_searched():
    """``_FORM_WORD`` backtracks through a word with no ``+`` from each of its characters on: a
    base64 line of a canary document cost it as much as the rest of the document's rules."""
    searched: list[tuple[int, int]] = []

    class Recording:
        def finditer(self, string, pos=0, endpos=None):
            searched.append((pos, endpos))
            return _FORM_WORD.finditer(string, pos, endpos)

    finder = next(pattern for name, _gate, pattern, _decode in DECODERS if name == "form_encoded")
    assert isinstance(finder, InRuns)
    text = "A" * 3000 + " a+b c%41 name=x+y%21 " + "B+" * 20
    recording = InRuns(Recording(), finder.run, finder.needs)  # type: ignore[arg-type]
    assert [m.group() for m in recording.finditer(text)] == ["x+y%21"]
    assert [text[start:end] for start, end in searched] == ["x+y%21"]
