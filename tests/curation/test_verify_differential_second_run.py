"""The differential check's second judge runs the candidate first and the reference only where a
case needs its answer, in the candidate's interpreter (``gym/differential.py`` ``_second_run``):
the same verdicts as running the reference first every time, one sandboxed run fewer for an
episode whose answers do not move between the judges."""

from __future__ import annotations

import os
import signal

import pytest
from _verify_factory import FIXED_OPS, fixed_files, make_fixture

from trajectory_platform.curation.verify.differential import judge_outcomes
from trajectory_platform.gym import differential
from trajectory_platform.gym.differential import run_differential
from trajectory_platform.gym.fixtures import Fixture

CALC = make_fixture()


def with_ops(add_body: str, prelude: str = "") -> dict[str, str]:
    """The calc fixture with ``add``'s body replaced and ``prelude`` before it."""
    return {**fixed_files(), "calc/ops.py": prelude + FIXED_OPS.replace("    return a + b\n", add_body)}


@pytest.fixture
def runs(monkeypatch) -> list[str]:
    """Which file map each sandboxed run of the check evaluated, in order: ``reference`` or
    ``candidate`` (the reference runs cold, the candidate warm)."""
    seen: list[str] = []
    real = differential._evaluate

    def spied(judge, *args, **kwargs):
        seen.append("candidate" if kwargs["warm"] else "reference")
        return real(judge, *args, **kwargs)

    monkeypatch.setattr(differential, "_evaluate", spied)
    return seen


def test_an_honest_fix_has_the_reference_run_once(runs):
    outcomes = run_differential(CALC, with_ops("    return b + a\n"), key=b"k")
    assert outcomes and {o.verdict for o in outcomes} <= {"agree", "excluded"}
    assert runs == ["reference", "candidate", "candidate"]


def test_a_fix_answering_by_chance_has_the_reference_run_again_after_it(runs):
    body = "    import random\n    return a - b if random.random() < 0.5 else a + b\n"
    outcomes = run_differential(CALC, with_ops(body), key=b"k")
    assert "unstable" in {o.verdict for o in outcomes}
    assert runs == ["reference", "candidate", "candidate", "reference"]


def _configured_fixture() -> Fixture:
    """A fixture whose reference reads its user's configuration (``~/.calcrc``), as command-line
    tools do; the setting's home holds none."""
    fixture = make_fixture("calc-configured")
    ops = (
        "import os\n\n\ndef add(a, b):\n    path = os.path.expanduser('~/.calcrc')\n"
        "    scale = int(open(path).read()) if os.path.exists(path) else 1\n"
        "    return (a + b) * scale\n\n\ndef mul(a, b):\n    return a * b\n"
    )
    fixture.reference_files = {**fixture.reference_files, "calc/ops.py": ops}
    return fixture


def test_a_candidate_cannot_steer_the_reference_run_after_it_through_the_home():
    """A fix wrong on a random share of its calls that also writes the reference's configuration: a
    reference run after it that read the file would answer otherwise than in the first judge,
    every case would look unsteady, and the chance it decides by would go unseen."""
    fixture = _configured_fixture()
    body = (
        "    import os, random\n    with open(os.path.expanduser('~/.calcrc'), 'w') as fh:\n"
        "        fh.write(str(random.randint(2, 10**6)))\n"
        "    return a - b if random.random() < 0.3 else a + b\n"
    )
    outcomes = run_differential(fixture, with_ops(body), key=b"k")
    assert "unstable" in {o.verdict for o in outcomes}
    honest = run_differential(fixture, with_ops("    return b + a\n"), key=b"k")
    assert honest and {o.verdict for o in honest} <= {"agree", "excluded"}


ONCE = ["reference", "candidate", "candidate"]
"""The runs of a check whose second judge needed no answer of the reference."""


def _words_fixture() -> Fixture:
    """A fixture whose reference answers in string-hash order (a list built from a set of words)."""
    fixture = make_fixture("calc-words")
    fixture.s0_files = {**fixture.s0_files, "calc/words.py": "def unique(text):\n    return text.split()\n"}
    words = "def unique(text):\n    return list(set(text.split()))\n"
    fixture.reference_files = {**fixture.reference_files, "calc/words.py": words}
    fixture.sealed_tests = {
        "tests/test_words.py": (
            "from calc.words import unique\n\n\ndef test_unique():\n"
            "    got = unique('red green red blue')\n    assert sorted(got) == ['blue', 'green', 'red']\n"
        )
    }
    fixture.fail_to_pass = ["tests/test_words.py::test_unique"]
    fixture.pass_to_pass = []
    return fixture


def test_a_reference_answering_in_hash_order_is_rerun_in_the_candidate_s_own_interpreter(runs):
    """The honest copy of such a reference answers otherwise in the two judges exactly when the
    reference does: its answers move, so the reference runs again, in the same interpreter as the
    candidate's second run (a third interpreter would match the first by chance and call it
    ``unstable``)."""
    fixture = _words_fixture()
    for key in (b"one", b"two", b"three"):
        runs.clear()
        outcomes = run_differential(fixture, dict(fixture.reference_files), key=key)
        assert outcomes and {o.verdict for o in outcomes} == {"agree"}
        assert judge_outcomes(outcomes) == []
        assert runs in (
            ["reference", "candidate", "candidate"],
            ["reference", "candidate", "candidate", "reference"],
        )


def test_when_the_judge_s_interpreter_changes_before_the_reference_reruns_the_pair_runs_again(monkeypatch):
    """The second judge's interpreter killed between the candidate's run and the reference's: the
    reference would answer from another hash seed than the candidate did, so the pair runs again in
    a fresh judge, reference first; the honest copy of a hash-order reference stays ``agree``."""
    fixture = _words_fixture()
    seen: list[str] = []
    real = differential._evaluate

    def killing(judge, *args, **kwargs):
        seen.append("candidate" if kwargs["warm"] else "reference")
        if len(seen) == 4:  # the second judge's rerun of the reference
            os.killpg(judge._proc.pid, signal.SIGKILL)
            judge._proc.wait()
        return real(judge, *args, **kwargs)

    monkeypatch.setattr(differential, "_evaluate", killing)
    sequences = []
    for key in (b"one", b"two", b"three"):
        seen.clear()
        outcomes = run_differential(fixture, dict(fixture.reference_files), key=key)
        assert outcomes and {o.verdict for o in outcomes} == {"agree"}
        sequences.append(list(seen))
    again = [*ONCE, "reference", "reference", "candidate"]
    assert set(map(tuple, sequences)) <= {tuple(ONCE), tuple(again)} and again in sequences


def test_a_fix_right_only_where_the_drawn_setting_takes_the_oracle_s_value_is_unstable():
    """``LANG`` is ``C.UTF-8`` in the oracle's sandbox and in one draw of three of the setting: a fix
    right only there agreed in every check whose one setting drew it (session 45). The second judge's
    setting is drawn apart from the first's, so where the first drew the oracle's value and the
    second did not, the fix answers otherwise in the second run: ``unstable``."""
    tell = "os.environ.get('LANG') == 'C.UTF-8'"
    candidates = (
        with_ops(f"    return a + b if {tell} else a - b\n", f"import os  # {n}\n") for n in range(60)
    )
    files = next(
        files
        for files in candidates
        if [dict(p.env)["LANG"] for p in differential.settings(differential.draw_seed(b"k", CALC, files))]
        == ["C.UTF-8", "en_US.UTF-8"]
    )
    outcomes = run_differential(CALC, files, key=b"k")
    assert not {"disagree", "rejects"} & {
        o.verdict for o in outcomes
    }  # the first setting: the oracle's value
    assert "unstable" in {o.verdict for o in outcomes}
    assert [f.code for f in judge_outcomes(outcomes)] == ["special_cased_outputs"]
