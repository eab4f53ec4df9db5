"""A key cut across shell variables (curation/redact/shell_words.py and the detector over it): each
joined word is expanded as the shell would, scanned in its line, and every piece of a key found
there is replaced where it was assigned; ordinary variable use is left alone."""

from __future__ import annotations

import pytest
from redact_factory import AWS_KEY, GITHUB_TOKEN

from trajectory_platform.curation.redact import redact_text
from trajectory_platform.curation.redact.shell_words import expansions

SALT = b"shell-words-salt"
SLACK = "xoxb-" + "2401234567-2401234567890-AbCdEfGhIjKlMnOpQrStUvWx"

SPLIT = {
    "two_variables": (
        f"A={AWS_KEY[:8]}; B={AWS_KEY[8:]}; aws configure set aws_access_key_id $A$B",
        [AWS_KEY[:8], AWS_KEY[8:]],
    ),
    "exported_and_quoted_on_lines_of_their_own": (
        f"export P1=\"{GITHUB_TOKEN[:14]}\"\nexport P2='{GITHUB_TOKEN[14:]}'\n"
        'curl -H "Authorization: token ${P1}${P2}" https://api.github.com/user',
        [GITHUB_TOKEN[:14], GITHUB_TOKEN[14:]],
    ),
    "three_variables_in_quotes": (
        f'X={SLACK[:12]} Y={SLACK[12:30]} Z={SLACK[30:]}; post "$X$Y$Z"',
        [SLACK[:12], SLACK[12:30], SLACK[30:]],
    ),
    "a_quote_between_the_pieces": (
        f'A={AWS_KEY[:8]}; B={AWS_KEY[8:]}; echo ${{A}}"$B"',
        [AWS_KEY[:8], AWS_KEY[8:]],
    ),
    "a_literal_prefix_and_a_variable": (
        f"T={GITHUB_TOKEN[4:]}; git clone https://ghp_$T@github.com/o/r",
        [GITHUB_TOKEN[4:]],
    ),
    "the_word_in_an_assignment": (
        f'K1={AWS_KEY[:10]}\nK2={AWS_KEY[10:]}\nprintf "aws_access_key_id = %s" "$K1$K2"',
        [AWS_KEY[:10], AWS_KEY[10:]],
    ),
}


@pytest.mark.parametrize("case", sorted(SPLIT))
def test_a_key_cut_across_shell_variables_is_replaced_piece_by_piece(case: str):
    text, pieces = SPLIT[case]
    redacted, findings = redact_text(text, SALT)
    assert not [piece for piece in pieces if piece in redacted], redacted
    assert (
        any(f.detector.endswith("+shell_vars") for f in findings) or case == "a_literal_prefix_and_a_variable"
    )


@pytest.mark.parametrize(
    "text",
    [
        "DIR=/usr/local; PREFIX=$DIR/bin; echo $PREFIX/tool",
        "VERSION=1.2.3; NAME=pkg; tar xf $NAME-$VERSION.tar.gz",
        f"echo $A$B; A={AWS_KEY[:8]}; B=unrelated",  # used before it is assigned: not this value
        "for f in *.py; do PYTHONPATH=$PWD/src python $f; done",
        'GREETING="hello"; NAME=world; echo "$GREETING, $NAME"',
    ],
)
def test_ordinary_variable_use_is_left_alone(text: str):
    assert redact_text(text, SALT) == (text, [])


def test_an_expansion_maps_each_piece_to_where_it_was_assigned():
    text = "A='abcd1234'; B=efgh; echo x${A}\"$B\"y"
    (expansion,) = expansions(text)
    assert expansion.line[expansion.start : expansion.end] == "xabcd1234efghy"
    assigned = [(text[raw_start:raw_end], variable) for *_, raw_start, raw_end, variable in expansion.pieces]
    assert assigned == [("x", False), ("abcd1234", True), ("efgh", True), ("y", False)]
    for start, end, raw_start, raw_end, _ in expansion.pieces:
        assert expansion.line[start:end] == text[raw_start:raw_end]


def test_quotes_around_a_word_stay_as_context_and_a_word_of_one_piece_is_not_expanded():
    (expansion,) = expansions('A=abcd1234; B=efgh5678; val password = "$A$B",')
    assert expansion.line.endswith('val password = "abcd1234efgh5678",')
    assert list(expansions("A=abcd1234; echo $A")) == []  # nothing joined: scanned as it stands
    assert list(expansions("B=abcd1234; echo $(cat key)$B")) == []  # a command's output: unknown
