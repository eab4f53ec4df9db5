"""A credential cut by a terminal's wrap where no other row shows the width loses its tail too: one
long line cut once (a lone row exactly 80 columns wide, a short row under it), or a capture pasted
into prose wider than the terminal. The row's width is a terminal's own
(:data:`trajectory_platform.curation.redact.decoders._TERMINAL_WIDTHS`), so the rows are joined.

Cases are generated (secret kinds x carriers x widths x cut points) and split in two by carrier: the
rule was written against the development carriers (``/proc`` dumps, NUL-separated); the validation
carriers (a ``docker run`` line, a curl header, an ``export`` in prose wider than the terminal) are
held to the same standard. Controls: ordinary lines exactly a terminal's width followed by another
line (prose, code, a package list), kept byte for byte."""

from __future__ import annotations

import random
import string
from collections.abc import Callable

import pytest

from trajectory_platform.curation.redact import redact_text

SALT = b"wrapped-lone-rows-salt"
_ALNUM = string.ascii_letters + string.digits


def _draw(seed: str, length: int, alphabet: str = _ALNUM) -> str:
    rng = random.Random(seed)
    return "".join(rng.choice(alphabet) for _ in range(length))


_KINDS: dict[str, Callable[[str], tuple[str, str]]] = {
    "aws": lambda seed: ("AWS_SECRET_ACCESS_KEY", _draw(seed, 40, _ALNUM + "+/")),
    "github": lambda seed: ("GITHUB_TOKEN", "ghp_" + _draw(seed, 36)),
    "random": lambda seed: ("API_KEY", _draw(seed, 32)),
    "stripe": lambda seed: ("STRIPE_KEY", "sk_live_" + _draw(seed, 24)),
}


def _proc_environ(name: str, value: str) -> str:
    return f"PATH=/usr/local/bin:/usr/bin\x00HOSTNAME=web-1\x00{name}={value}\x00HOME=/root\x00"


def _proc_cmdline(name: str, value: str) -> str:
    flag = name.lower().replace("_", "-")
    return f"node\x00/srv/app/server.js\x00--{flag}\x00{value}\x00--port\x008080\x00"


def _docker_run(name: str, value: str) -> str:
    return f"$ docker run --rm -e {name}={value} -p 8080:8080 registry.example.com/app:1.4"


def _curl_header(name: str, value: str) -> str:
    return f"+ curl -s -X POST -H 'X-{name.title().replace('_', '-')}: {value}' https://api.example.com/hook"


def _export_in_prose(name: str, value: str) -> str:
    return f"export {name}={value}; ./deploy.sh --region eu-west-1 --verbose"


DEVELOPMENT = {"proc_environ": _proc_environ, "proc_cmdline": _proc_cmdline}
VALIDATION = {"docker_run": _docker_run, "curl_header": _curl_header, "export_in_prose": _export_in_prose}
_PROSE = (
    "I ran the deployment script again after exporting the credentials, and this is what the "
    "terminal printed back to me, wrapped as it appeared in my window:"
)


def _cases(carriers: dict[str, Callable[[str, str], str]]) -> list[tuple[str, str, int, int]]:
    """(carrier, kind, width, cut): the carrier line padded on its left so the terminal's cut at
    ``width`` falls ``cut`` characters into the value."""
    return [
        (carrier, kind, width, cut)
        for carrier in carriers
        for kind in _KINDS
        for width in (80, 100, 132)
        for cut in (9, 17)
    ]


def _wrapped(
    carriers: dict[str, Callable[[str, str], str]], carrier: str, kind: str, width: int, cut: int
) -> tuple[str, str]:
    name, value = _KINDS[kind](f"{carrier}{kind}{width}{cut}")
    line = carriers[carrier](name, value)
    line = "." * (width - line.index(value) - cut) + line  # every carrier's value starts before 80
    rows = [line[i : i + width] for i in range(0, len(line), width)]
    text = "\n".join(rows)
    if carrier == "export_in_prose":
        text = _PROSE + "\n\n" + text + "\n\nIt failed again."
    return text, value


def _leaks(text: str, value: str) -> bool:
    out = redact_text(text, SALT)[0].replace("\n", "")
    return any(value[i : i + 8] in out for i in range(len(value) - 7))


@pytest.mark.parametrize(("carrier", "kind", "width", "cut"), _cases(DEVELOPMENT))
def test_development_a_value_cut_by_a_lone_row_is_replaced_whole(
    carrier: str, kind: str, width: int, cut: int
) -> None:
    text, value = _wrapped(DEVELOPMENT, carrier, kind, width, cut)
    assert not _leaks(text, value)


def test_validation_a_value_cut_by_a_lone_row_is_replaced_whole() -> None:
    leaked = [case for case in _cases(VALIDATION) if _leaks(*_wrapped(VALIDATION, *case))]
    assert leaked == []


_CONTROLS = (
    "The migration finished without errors, and every table now has the new index in place"[:80]
    + "\nNext I will run the test suite to make sure nothing else depends on the old layout.",
    "    result = compute_the_weighted_average(values, weights, normalise=True, clip=None)"[:80]
    + "\nreturn_value = result",
    "libllvm15/jammy-updates 1:15.0.7-0ubuntu0.22.04.3 amd64 Modular compiler and toolchain "[:100].ljust(
        100, "x"
    )
    + "\nllvm-14-linker-tools/jammy 1:14.0.0-1ubuntu1.1 amd64",
    "=" * 132 + "\nIPv4Endpoints Filtered",
    # a wheel's RECORD row exactly 80 wide, ending in a size, and the next row's distribution name
    "requests_toolbelt/multipart/decoder.py,sha256=".ljust(76, "Q")
    + ",986\nrequests_toolbelt-1.0.0.dist-info/RECORD,,",
)


@pytest.mark.parametrize("text", _CONTROLS, ids=range(len(_CONTROLS)))
def test_ordinary_lines_a_terminal_wide_are_kept(text: str) -> None:
    assert redact_text(text, SALT)[0] == text
