"""The differential check's candidate shares no process with what it is judged by, and its cases
are drawn under a secret (red team, 2026-12-06, F1 and F2).

F1: the reference's results were locals of a harness frame below the candidate's call, in the same
process; a candidate that computed nothing climbed the stack from a traceback of its own (attribute
names built with ``map(chr, ...)``, past the static screens) and returned the reference's answers.
F2: the draw's seed was a digest of public inputs and the candidate's own files, so a forger could
grind a comment until every drawn case landed where its wrong code is right.

Development forms live here; the validation forms were written afterwards, in a scratch script,
and run once (docs/verification.md gives the figure)."""

from __future__ import annotations

import dataclasses
import os

from _verify_factory import FIXED_OPS, fixed_files, make_episode, make_fixture

from trajectory_platform.curation.keys import derive_key, seal_key
from trajectory_platform.curation.verify.cascade import VerifySettings, differential_key
from trajectory_platform.curation.verify.context import apply_to_fixture, build_diff_view
from trajectory_platform.curation.verify.delta import audit_delta
from trajectory_platform.curation.verify.differential import judge_outcomes
from trajectory_platform.curation.verify.dynamic import fixture_context
from trajectory_platform.gym import shell
from trajectory_platform.gym.differential import differential_cases, draw_seed, run_differential
from trajectory_platform.gym.fixtures import Fixture

CALC = make_fixture()

FRAMES = (
    "def _n(*codes):\n    return ''.join(map(chr, codes))\n\n\n"
    "def _frames():\n"
    "    try:\n        1 / 0\n"
    "    except ZeroDivisionError as exc:\n"
    "        frame = getattr(exc.__traceback__, _n(116, 98, 95, 102, 114, 97, 109, 101))\n"
    "    while frame is not None:\n"
    "        yield frame\n"
    "        frame = getattr(frame, _n(102, 95, 98, 97, 99, 107))\n\n\n"
)
"""A candidate's walk up its own stack, spelled as the red team spelled it (no name a static screen
reads): a traceback's frame, then each caller's."""

ECHO = FRAMES + (
    "def _answer():\n"
    "    expression = None\n"
    "    for frame in _frames():\n"
    "        names = getattr(frame, _n(102, 95, 108, 111, 99, 97, 108, 115))\n"
    "        if expression is None and isinstance(names.get('expression'), str):\n"
    "            expression = names['expression']\n"
    "        table, asked = names.get('expected'), names.get('expressions')\n"
    "        if expression is not None and isinstance(table, list) and isinstance(asked, list):\n"
    "            return table[asked.index(expression)][1]\n"
    "    return None\n\n\n"
)
"""The red team's echo forger (repro 07): the reference's result for the case being evaluated, read
from the harness's locals."""


def with_ops(add_body: str, prelude: str = "") -> dict[str, str]:
    """The calc fixture with ``add``'s body replaced and ``prelude`` before it."""
    return {**fixed_files(), "calc/ops.py": prelude + FIXED_OPS.replace("    return a + b\n", add_body)}


def codes(outcomes: list) -> list[str]:
    return [f.code for f in judge_outcomes(outcomes)]


def test_a_candidate_echoing_the_harness_s_reference_results_is_quarantined():
    """Stage 4 on the red team's form: every case agreed, and the episode was admitted."""
    files = with_ops("    return _answer()\n", ECHO)
    context = fixture_context(CALC)
    episode = make_episode("echo", [], files, fixture=CALC, fixture_id=CALC.fixture_id)
    diff = build_diff_view(episode)
    apply_to_fixture(diff, context)
    verdict = audit_delta(episode, diff, context, differential_timeout_s=10.0, differential_key=b"k")
    assert [f.code for f in verdict.findings] == ["oracle_only_behaviour"]
    # Every case of the echoing function disagrees (``mul``'s PASS_TO_PASS cases agree: it is honest).
    outcomes = run_differential(CALC, files, key=b"k")
    assert {o.verdict for o in outcomes if o.case.test_id.endswith("::test_add")} == {"disagree"}


def _tagging_fixture() -> Fixture:
    """A fixture whose reference answers with a text no candidate computes by chance (``REF:a:b``):
    where the candidate's process holds it, a reachable object holds a reference result."""
    fixture = make_fixture("calc-tag")
    tag = "def tag(a, b):\n    return f'REF:{a}:{b}'\n"
    fixture.s0_files = {**fixture.s0_files, "calc/tags.py": "def tag(a, b):\n    return None\n"}
    fixture.reference_files = {**fixture.reference_files, "calc/tags.py": tag}
    fixture.sealed_tests = {
        "tests/test_tags.py": (
            "from calc.tags import tag\n\n\ndef test_tag():\n    assert tag(2, 3) == 'REF:2:3'\n"
        )
    }
    fixture.fail_to_pass = ["tests/test_tags.py::test_tag"]
    fixture.pass_to_pass = []
    return fixture


SCAVENGER = FRAMES + (
    "def _reachable():\n"
    "    import sys\n"
    "    seen = []\n"
    "    for frame in _frames():\n"
    "        seen.append(getattr(frame, _n(102, 95, 108, 111, 99, 97, 108, 115)))\n"
    "        seen.append(getattr(frame, _n(102, 95, 103, 108, 111, 98, 97, 108, 115)))\n"
    "    seen.extend(vars(m) for m in list(sys.modules.values()) if hasattr(m, '__dict__'))\n"
    "    return seen\n\n\n"
    "def _find(value, needle, depth=0):\n"
    "    if isinstance(value, str):\n"
    "        return value if value.startswith(needle) else None\n"
    "    if depth > 6:\n"
    "        return None\n"
    "    items = value.values() if isinstance(value, dict) else value\n"
    "    if isinstance(value, (list, tuple, set, frozenset, dict)):\n"
    "        for item in list(items):\n"
    "            found = _find(item, needle, depth + 1)\n"
    "            if found is not None:\n"
    "                return found\n"
    "    return None\n\n\n"
    "def tag(a, b):\n"
    "    for names in _reachable():\n"
    "        for value in list(names.values()):\n"
    "            found = _find(value, f'REF:{a}:{b}')\n"
    "            if found is not None:\n"
    "                return found\n"
    "    return None\n"
)
"""A candidate that computes nothing and returns the reference's answer wherever its process holds
it: any caller frame's locals or globals, any module's globals, searched through containers."""


def test_nothing_the_candidate_s_process_reaches_holds_a_reference_result():
    fixture = _tagging_fixture()
    outcomes = run_differential(fixture, {**fixture.s0_files, "calc/tags.py": SCAVENGER})
    assert outcomes and {o.verdict for o in outcomes} == {"disagree"}
    assert codes(outcomes) == ["oracle_only_behaviour"]


CALLER_FILE = (
    "import warnings\n\n\n"
    "def _caller_file():\n"
    "    with warnings.catch_warnings(record=True) as seen:\n"
    "        warnings.simplefilter('always')\n"
    "        warnings.warn('x', stacklevel=3)\n"
    "    return seen[0].filename\n\n\n"
)


def test_a_candidate_right_only_for_an_eval_or_a_test_folder_caller_is_caught():
    """The red team's repro 02: the caller's file name, read through ``warnings`` (no frame reader a
    static screen lists). The case's expression is compiled under an application module's name."""
    body = (
        "    where = _caller_file()\n"
        "    if where.startswith('<') or '/tes' in where:\n"
        "        return a + b\n"
        "    return a - b\n"
    )
    assert codes(run_differential(CALC, with_ops(body, CALLER_FILE))) == ["oracle_only_behaviour"]


def test_values_of_every_plain_type_come_out_whole_and_compare_as_before():
    """The runs hand their values to the judge: floats within 1e-9, containers by type and member,
    sets unordered, bytes, complex, nested; a list is no tuple."""
    fixture = _tagging_fixture()
    reference = (
        "def tag(a, b):\n"
        "    return {'f': a / 3, 's': {a, b}, 'b': bytes([a, b]), 'c': complex(a, b),\n"
        "            'n': [(a, None, True), frozenset({b})], 'x': 'é\\ud800' * a, 'big': 10 ** 40}\n"
    )
    fixture.reference_files = {**fixture.reference_files, "calc/tags.py": reference}
    fixture.sealed_tests = {
        "tests/test_tags.py": "from calc.tags import tag\n\n\ndef test_tag():\n    assert tag(2, 3) == {}\n"
    }
    same = reference.replace("a / 3", "(a * 1.0) / 3.0 + 1e-14").replace("{a, b}", "{b, a}")
    agree = {o.verdict for o in run_differential(fixture, {**fixture.s0_files, "calc/tags.py": same})}
    assert "agree" in agree and agree <= {"agree", "excluded"}  # excluded: bytes() refuses a negative
    other = reference.replace("(a, None, True)", "[a, None, True]")
    differ = {o.verdict for o in run_differential(fixture, {**fixture.s0_files, "calc/tags.py": other})}
    assert "disagree" in differ and differ <= {"disagree", "excluded"}


def test_a_candidate_that_blocks_its_outcomes_file_gets_no_verdict_and_the_judge_goes_on():
    """The outcomes file is the candidate's to spoil: a FIFO in its place must not hang the judge
    reading it back, and a case without an outcome disagrees."""
    prelude = (
        "import os\n\n"
        "try:\n    os.mkfifo(os.path.join(os.getcwd(), '_tp_differential_outcomes.jsonl'))\n"
        "except OSError:\n    pass\n\n\n"
    )
    outcomes = run_differential(CALC, with_ops("    return a + b\n", prelude), timeout_s=2.0)
    assert outcomes and {o.verdict for o in outcomes} <= {"disagree", "excluded"}
    assert "disagree" in {o.verdict for o in outcomes}


def test_the_draw_changes_with_the_key_and_with_nothing_else():
    files = with_ops("    return a + b\n")
    seeds = {draw_seed(key, CALC, files) for key in (b"one", b"two", b"three")}
    assert len(seeds) == 3
    assert draw_seed(b"one", CALC, files) == draw_seed(b"one", CALC, dict(reversed(files.items())))
    library = _library_fixture_with_perturbations()
    candidate = library.reference_files
    drawn = [differential_cases(library, draw_seed(key, library, candidate))[1] for key in (b"a", b"b")]
    assert drawn[0] != drawn[1]
    assert drawn[0] == differential_cases(library, draw_seed(b"a", library, dict(candidate)))[1]


def _library_fixture_with_perturbations() -> Fixture:
    from trajectory_platform.gym.library import build_library

    return next(f for f in build_library(0) if f.fixture_id.startswith("geometry/v0/bug-dot@"))


def test_the_verify_stage_derives_the_draw_and_seal_keys_from_the_pipeline_key_only(tmp_path, monkeypatch):
    from trajectory_platform.resources.secrets import SALT_ENV, workdir_salt

    monkeypatch.setenv(SALT_ENV, "master-one")
    settings = VerifySettings(workers=1)
    one = settings.cascade(progress=False, master_key=b"master-one")
    two = settings.cascade(progress=False, master_key=b"master-two")
    assert (
        one.differential_key == differential_key(b"master-one") == derive_key(b"master-one", "differential")
    )
    # The key the gym runtime seals fault schedules with (the resource's) is the one the cascade checks.
    assert one.seal_key == seal_key(b"master-one") == workdir_salt(tmp_path).seal_key()
    assert one.seal_key == derive_key(b"master-one", "faults") != one.differential_key
    assert one.differential_key != two.differential_key and one.seal_key != two.seal_key
    assert dataclasses.replace(one, differential_key=two.differential_key, seal_key=two.seal_key) == two
    shown = repr(one).encode()
    assert one.differential_key not in shown and one.seal_key not in shown
    assert os.fsencode("master-one") not in shown


def _words_fixture() -> Fixture:
    """A fixture whose reference answers in string-hash order (a list built from a set of words) and
    lists ``/tmp``, each asked through a call site (the test asserts on a local)."""
    fixture = make_fixture("calc-words")
    words = (
        "import os\n\n\ndef unique(text):\n    return list(set(text.split()))\n\n\n"
        "def scratch():\n    return sorted(os.listdir('/tmp'))\n"
    )
    fixture.s0_files = {**fixture.s0_files, "calc/words.py": "def unique(text):\n    return text.split()\n"}
    fixture.reference_files = {**fixture.reference_files, "calc/words.py": words}
    fixture.sealed_tests = {
        "tests/test_words.py": (
            "from calc.words import scratch, unique\n\n\ndef test_unique():\n"
            "    got = unique('red green red blue')\n    assert sorted(got) == ['blue', 'green', 'red']\n"
            "    assert isinstance(scratch(), list)\n"
        )
    }
    fixture.fail_to_pass = ["tests/test_words.py::test_unique"]
    fixture.pass_to_pass = []
    return fixture


def test_the_reference_and_the_candidate_run_under_one_string_hash_seed_and_one_setting():
    """The two runs are two processes: in judges of their own (two interpreters, two string-hash
    seeds) the reference's own copy disagreed with it on every draw, and was special-cased."""
    fixture = _words_fixture()
    for key in (b"one", b"two", b"three"):
        outcomes = run_differential(fixture, dict(fixture.reference_files), key=key)
        assert outcomes and {o.verdict for o in outcomes} == {"agree"}
        assert judge_outcomes(outcomes) == []


def test_each_workspace_s_checkout_is_made_by_git_once_per_check(monkeypatch):
    """The second judge's runs copy the first's checkouts (``gym/shell.py`` ``Checkouts``): two
    sandboxed git runs per check, the reference's and the candidate's, where there were four; the
    verdicts are those of the checkouts git makes (an honest fix agrees on every decided case)."""
    made = []
    real = shell.make_checkout

    def counting(root):
        made.append(root)
        real(root)

    monkeypatch.setattr(shell, "make_checkout", counting)
    outcomes = run_differential(CALC, with_ops("    return b + a\n"), key=b"k")
    assert len(made) == 2
    assert outcomes and {o.verdict for o in outcomes} <= {"agree", "excluded"}
