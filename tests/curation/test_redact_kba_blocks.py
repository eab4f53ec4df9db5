"""A plain ``answer`` inside a block of knowledge-based authentication questions is a password the
user chose as a word (``security_questions: - question: ... answer: ...``); an ``answer`` under any
other block (a quiz, an FAQ, a survey) is text and stays."""

from __future__ import annotations

import hashlib
import itertools
import json

import pytest

from trajectory_platform.curation.redact import redact_text

SALT = b"kba-block-salt"
ANSWERS = ("Wrenfield", "Blue Harbor", "ozzy2004", "Marguerite")
KBA_BLOCKS = (
    "security_questions",
    "securityQuestions",
    "challenge_questions",
    "SecretQuestions",
    "kba",
    "recovery-questions",
    "verification_qa",
)
OTHER_BLOCKS = ("faq", "quiz", "questions", "trivia_questions", "interview_questions", "survey")
ANSWER_KEYS = ("answer", "answer2", "answerText", "response")


def _yaml(block: str, key: str, answer: str) -> str:
    return f"user: ana\n{block}:\n  - question: Name of your first pet?\n    {key}: {answer}\nnext: 1\n"


def _json(block: str, key: str, answer: str) -> str:
    return json.dumps(
        {"user": "ana", block: [{"question": "Name of your first pet?", key: answer}]}, indent=2
    )


def _toml(block: str, key: str, answer: str) -> str:
    return f'[[{block}]]\nquestion = "Name of your first pet?"\n{key} = "{answer}"\n\n[other]\nx = 1\n'


def _js(block: str, key: str, answer: str) -> str:
    return f"profile.{block} = [{{q: 'Name of your first pet?', {key}: '{answer}'}}];"


FORMATS = {"yaml": _yaml, "json": _json, "toml": _toml, "js": _js}


def _cases(blocks: tuple[str, ...]) -> list[tuple[str, str, str]]:
    return [
        (f"{form}-{block}-{key}-{index}", FORMATS[form](block, key, answer), answer)
        for form, block, key, (index, answer) in itertools.product(
            FORMATS, blocks, ANSWER_KEYS, enumerate(ANSWERS)
        )
    ]


def _half(case_id: str) -> str:
    return "dev" if hashlib.sha256(case_id.encode()).digest()[0] % 2 == 0 else "validation"


KBA_CASES = _cases(KBA_BLOCKS)


@pytest.mark.parametrize("half", ["dev", "validation"])
def test_every_answer_in_a_kba_block_is_replaced(half: str) -> None:
    cases = [(text, answer) for case_id, text, answer in KBA_CASES if _half(case_id) == half]
    kept = [text for text, answer in cases if answer in redact_text(text, SALT)[0]]
    assert not kept, f"{len(kept)} of {len(cases)} kept"


@pytest.mark.parametrize(
    "text",
    [text for _, text, _ in _cases(OTHER_BLOCKS)],
    ids=[case_id for case_id, _, _ in _cases(OTHER_BLOCKS)],
)
def test_an_answer_outside_a_kba_block_stays(text: str) -> None:
    assert redact_text(text, SALT)[0] == text


def test_a_kba_block_ends_where_its_indentation_does() -> None:
    text = "security_questions:\n  - question: pet?\n    answer: Wrenfield\nfaq:\n  - answer: Fourteen\n"
    redacted = redact_text(text, SALT)[0]
    assert "Wrenfield" not in redacted and "answer: Fourteen" in redacted


@pytest.mark.parametrize("closer", ["]", "}", ")"])
@pytest.mark.parametrize("answer", ANSWERS)
def test_a_block_is_read_past_a_closing_bracket_inside_a_template_literal(closer, answer):
    """The block's end is found by the one reading of nesting and literals that call arguments use
    (``call_arguments.closing_bracket``): its own twin knew no backquoted string, so a JavaScript
    question written as a template literal holding a closing bracket ended the block before the
    answer, which stayed."""
    entry = f'{{ question: `Your city {closer}`, answer: "{answer}" }}'
    line = f"const profile = {{ securityQuestions: [ {entry} ] }};"
    assert answer not in redact_text(line, SALT)[0]
