"""GraphQL variables bound to a credential's argument (red team rtsec13): ``login(password: $p)``
in the query and ``{"p": "x"}`` in ``variables``. No key names the value, so it stayed; and a
request posted with ``curl -d '{...}'`` is a command, whose JSON no structure rule read.

The operations and values here are not the red team's generators' (those are in its report)."""

from __future__ import annotations

import json

import pytest

from trajectory_platform.curation.redact import redact_text

SALT = b"query-variables-salt"
VALUE = "Hx8!qLm2Tz7Wv4Kd"


def _request(query: str, variables: dict[str, str]) -> dict[str, object]:
    return {"operationName": "Op", "query": query, "variables": variables}


BOUND = {
    "new_password": _request(
        "mutation Op($t: String!, $np: String!) { resetPassword(ticket: $t, newPassword: $np) { ok } }",
        {"t": "rst-2291", "np": VALUE},
    ),
    "secret_key": _request(
        "mutation Op($k: String!) { webhooks { create(url: $u, secretKey: $k) { id } } }",
        {"u": "https://ci.example.com/hook", "k": VALUE},
    ),
    "api_token_input": _request(
        "mutation Op($val: String!) { connect(input: { provider: SLACK, apiToken: $val }) { status } }",
        {"val": VALUE},
    ),
}


@pytest.mark.parametrize("body", BOUND.values(), ids=list(BOUND))
@pytest.mark.parametrize("carrier", ["document", "curl"])
def test_a_variable_bound_to_a_credentials_argument_is_replaced(
    body: dict[str, object], carrier: str
) -> None:
    document = json.dumps(body)
    text = document if carrier == "document" else f"curl -sS --data-raw '{document}' https://gql.example.com/"
    assert VALUE not in redact_text(text, SALT, shell=carrier == "curl")[0]


@pytest.mark.parametrize(
    "body",
    [
        _request("query Op($o: String!) { org(login: $o) { tokens { name } } }", {"o": "acme-robotics"}),
        _request("mutation Op($id: ID!) { revokeToken(id: $id) { ok } }", {"id": "T_kwDOAB12"}),
        _request("mutation Op($n: Int!) { generatePassword(length: $n) { ok } }", {"n": "24"}),
        _request(
            "mutation Op($p: String!) { login(password: $p) { token } }", {"p": "${{ secrets.GQL_PW }}"}
        ),
    ],
    ids=["org_login", "token_id", "length", "placeholder"],
)
def test_other_variables_and_placeholders_stay(body: dict[str, object]) -> None:
    document = json.dumps(body)
    assert redact_text(document, SALT)[0] == document
