"""The fixture library: coverage of the task matrix, determinism, and oracle validation."""

from __future__ import annotations

import dataclasses
from collections import Counter

import pytest

from trajectory_platform.evaluation.settings import SuiteSpec
from trajectory_platform.gym.library import (
    LEARN_FILE_PIECES,
    LEARN_NAME_PIECES,
    LEARN_VALUES,
    LEARNABLE_FAMILIES,
    build_library,
    generate,
    get_fixture,
    learn_combos,
    learnable_fixture,
)
from trajectory_platform.gym.oracle import run_oracle, validate_fixture
from trajectory_platform.gym.policies import ScriptedExpert
from trajectory_platform.gym.runtime import run_episode
from trajectory_platform.gym.tools import TOOL_FAMILIES, manifest


@pytest.fixture(scope="module")
def library():
    return build_library(0)


def test_a_reserved_family_declares_every_operation_where_no_trained_family_does():
    """The renamed regime measures reading the delivered block. If the reserved family declared
    its read tool where the training families do, a policy that learned the place would pass it
    without reading; so no operation sits at a place a trained family gives it."""

    def places(family: str) -> set[tuple[str, int]]:
        return {(op, index) for index, tool in enumerate(manifest(family).tools) for op in tool.ops()}

    for reserved in SuiteSpec.reserved_tool_families:
        trained = set().union(
            *(places(f) for f in TOOL_FAMILIES if f not in SuiteSpec.reserved_tool_families)
        )
        assert {op for op, _ in places(reserved)} == {"list", "read", "edit", "write", "run_tests"}
        assert not places(reserved) & trained


def test_library_covers_the_task_matrix(library):
    families = Counter(f.repo_family for f in library)
    assert len(library) >= 300
    assert len(families) >= 6 and min(families.values()) >= 20
    assert {f.tool_family for f in library} == set(TOOL_FAMILIES)
    assert {f.domain for f in library} == {"bug_repair", "config_fix", "diagnostic_report"}
    assert {f.strata["horizon"] for f in library} == {"H1", "H2-5", "H6-9", "H10+"}
    assert {f.strata["authority"] for f in library} == {"A0", "A1"}
    horizons = {f.min_tool_calls for f in library}
    assert min(horizons) == 1 and max(horizons) >= 15
    licenses = {f.repo_family: f.license for f in library}
    assert "GPL-3.0-only" in licenses.values()  # copyleft
    assert "CC-BY-NC-4.0" in licenses.values()  # restricted (non-commercial)
    assert any(f.flaky for f in library) and all(f.repo_family == "jobqueue" for f in library if f.flaky)
    shared = {f.repo_family for f in library if "corelib" in f.depends_on}
    assert len(shared) >= 2, "several families depend on the shared internal helper library"
    assert all(any(p.startswith("corelib/") for p in f.s0_files) for f in library if f.depends_on)
    learnable = [f for f in library if f.learnable]
    assert {f.task_kind for f in learnable} == {"report_value", "fix_constant", "count_files"}
    assert all(f.min_tool_calls <= 3 for f in learnable)


def test_every_learnable_task_exists_in_every_tool_family(library):
    by_task = Counter(f.fixture_id.split("@")[0] for f in library if f.learnable)
    assert set(by_task.values()) == {len(TOOL_FAMILIES)}


def test_the_learnable_expert_looks_a_constant_up_by_name_so_the_value_ends_its_observation():
    """Issue 17: the expert's read passes ``match`` (the constant's name, copied from the prompt),
    so the value to report or replace is the last token the tool shows, never a lookup in a file."""
    for task in (0, 6):  # report_value, fix_constant
        for tool_family in TOOL_FAMILIES:
            fixture = learnable_fixture(LEARNABLE_FAMILIES[1], task, tool_family)
            lookup = fixture.plan[0]
            assert lookup.op == "read" and lookup.match and lookup.match in fixture.prompt
            result = run_episode(fixture, ScriptedExpert(), seed=0)
            observation = next(e.content for e in result.episode.events if e.kind == "tool")
            lines = fixture.s0_files[lookup.path].splitlines(keepends=True)
            assert observation == next(line for line in lines if line.startswith(lookup.match))
            assert result.oracle is not None and result.oracle.passed
            if fixture.task_kind == "report_value":
                assert observation.split(" = ")[1].strip() == fixture.reference_answer


def test_learnable_families_share_every_name_piece_and_no_name():
    names = {f: set(learn_combos(LEARN_NAME_PIECES, f)) for f in LEARNABLE_FAMILIES}
    files = {f: set(learn_combos(LEARN_FILE_PIECES, f)) for f in LEARNABLE_FAMILIES}
    for combos, pieces in ((names, LEARN_NAME_PIECES), (files, LEARN_FILE_PIECES)):
        for family, mine in combos.items():
            others = set().union(*(c for f, c in combos.items() if f != family))
            assert mine and not mine & others  # a held-out family's names are new combinations...
            used = {piece for name in mine for piece in name.split("_")}
            assert used == set(pieces[0]) | set(pieces[1])  # ...of pieces every family uses


def test_learnable_tasks_use_the_closed_inventory_and_past_the_library_regenerate_by_id(library):
    for fixture in (f for f in library if f.learnable):
        source = fixture.s0_files[next(p for p in fixture.s0_files if p.endswith(".py") and "/" not in p)]
        for line in source.splitlines():
            name, value = line.split(" = ")
            assert name in learn_combos(LEARN_NAME_PIECES, fixture.repo_family) and value in LEARN_VALUES
    generated = learnable_fixture("learn-beta", 500, "uri")
    assert generated.fixture_id == "learn-beta/fix_constant-500@uri"
    assert get_fixture(generated.fixture_id) == generated
    assert validate_fixture(generated).ok
    with pytest.raises(KeyError):
        get_fixture("learn-beta/report_value-500@uri")  # task 500 draws a fix_constant task


def test_same_seed_same_digests_other_seed_differs(library):
    def digests(fixtures):
        return [(f.fixture_id, f.s0_digest, f.tool_manifest_digest, f.reference_diff) for f in fixtures]

    assert digests(generate(0)) == digests(library)
    assert {f.s0_digest for f in generate(1)} != {f.s0_digest for f in library}


def test_f2p_fail_at_s0_and_manifest_is_versioned_json_schema(library):
    fixture = next(f for f in library if f.fixture_id.startswith("inventory/v0/bug-subtotal@"))
    assert get_fixture(fixture.fixture_id) is fixture
    assert fixture.fail_to_pass and fixture.pass_to_pass
    assert not set(fixture.fail_to_pass) & set(fixture.pass_to_pass)
    manifest = fixture.tool_manifest
    assert all(t["version"] == f"{fixture.tool_family}@1.0" for t in manifest)
    assert all('"type":"object"' in t["parameters_json"] for t in manifest)
    assert fixture.tool_manifest_digest.startswith("sha256:")
    with pytest.raises(KeyError, match="no fixture"):
        get_fixture("nope/v0/missing@path")


def test_a_sample_of_every_family_validates(library):
    seen: dict[str, int] = {}
    sample = []
    for f in library:
        key = f"{f.repo_family}:{f.domain}"
        if seen.get(key, 0) < 1:
            seen[key] = 1
            sample.append(f)
    results = [validate_fixture(f) for f in sample]
    bad = [(r.fixture_id, r.reason) for r in results if not r.ok]
    assert not bad
    assert all(r.rejects_s0 and r.accepts_reference for r in results)


def test_validation_refuses_a_fixture_with_a_reason(library):
    fixture = next(f for f in library if f.domain == "bug_repair" and not f.flaky)
    trivial = dataclasses.replace(fixture, s0_files=dict(fixture.reference_files), plan=[])
    verdict = validate_fixture(trivial)
    assert not verdict.ok and not verdict.rejects_s0 and "accepts untouched S0" in verdict.reason
    unsolvable = dataclasses.replace(fixture, reference_files=dict(fixture.s0_files))
    verdict = validate_fixture(unsolvable)
    assert not verdict.ok and not verdict.accepts_reference and "rejects the reference" in verdict.reason


def test_flaky_oracle_disagrees_with_itself_reproducibly(library):
    """The flaky family fails about 1 run in 5, drawn from (files, run label): never from the clock."""
    fixture = next(f for f in library if f.flaky)

    def outcomes():
        return [
            run_oracle(fixture, fixture.reference_diff, fixture.reference_answer, run_label=f"r:{i}").passed
            for i in range(16)
        ]

    first = outcomes()
    assert first == outcomes()  # the same runs, again: the same verdicts
    assert 1 <= first.count(False) <= 9  # and still a flaky oracle across runs
    stable = next(f for f in library if not f.flaky and f.domain == "bug_repair")
    assert all(
        run_oracle(stable, stable.reference_diff, stable.reference_answer, run_label=f"r:{i}").passed
        for i in range(4)
    )


def test_a_learnable_answer_listing_every_candidate_is_refused():
    """The oracle of a report takes the value asked for, stated alone or with its name, and refuses
    an answer that also states another candidate: listing every value is not a lookup."""
    report = learnable_fixture(LEARNABLE_FAMILIES[0], 0, TOOL_FAMILIES[0])
    assert report.task_kind == "report_value"
    values = dict(
        line.split(" = ") for line in next(iter(report.s0_files.values())).splitlines() if " = " in line
    )
    target = report.prompt.split(" of ", 1)[1].split(" in ", 1)[0]
    value = values[target]
    others = sorted(set(values.values()) - {value})
    assert others  # the sampled task has values to confuse

    def accepted(answer: str) -> bool:
        return run_oracle(report, report.reference_diff, answer).passed

    assert accepted(value) and accepted(f"{target} = {value}")
    assert not accepted(" ".join([value, *others]))
    assert not accepted(others[0])
