"""Knowledge-based authentication answers (a security question's answer, a memorable word, a
mother's maiden name) are passwords a user chose as words: their names mark them (red team rtsec11
class 06)."""

from __future__ import annotations

import json

import pytest

from trajectory_platform.curation.redact import redact_text
from trajectory_platform.curation.redact.credential_names import credential_class

SALT = b"kba-salt"
ANSWER = "Wrenfield"

NAMED = {
    "json_snake": json.dumps({"id": 7, "recovery_answer": ANSWER}),
    "env": f"CHALLENGE_ANSWER_2={ANSWER}",
    "yaml_camel": f"profile:\n  memorablePhrase: {ANSWER}\n",
    "sql": f"UPDATE accounts SET maiden_name = '{ANSWER}' WHERE id = 3;",
    "cli_flag": f"./bin/reset --user ana --security-question-answer {ANSWER}",
}


@pytest.mark.parametrize("text", NAMED.values(), ids=NAMED.keys())
def test_a_knowledge_based_answer_under_its_name_is_replaced(text: str) -> None:
    assert ANSWER not in redact_text(text, SALT, shell=text.startswith("./"))[0]


@pytest.mark.parametrize(
    "name",
    ["answer", "answer_count", "security_answer_hint", "maiden_voyage", "memorable_quotes", "quiz_answer"],
)
def test_names_near_a_knowledge_based_answer_mark_nothing(name: str) -> None:
    assert credential_class(name) is None
