"""A configuration task ("Fix the data, not the code or tests") may edit its data files only.

Its edit scope was the folders of the files the reference edits; where the data file sits in a code
package (9 of the library's 30 configuration fixes), an episode that edited the loader to hide the
broken data behaved exactly like the data fix on every check, and was admitted as pristine with the
data still broken (red team, 2026-12-06). The scope of such a task is now the reference's files
(``Fixture.edit_scope``). Development case: textkit's stopwords (the red team's); validation, written
after the fix: geometry's unit table, a different package, file format and loader.
"""

from __future__ import annotations

import json
from pathlib import PurePosixPath

import pytest
from _verify_factory import GYM, make_episode

from trajectory_platform.curation.verify import CascadeConfig, verify_episodes
from trajectory_platform.curation.verify.dynamic import fixture_context
from trajectory_platform.gym.fixtures import Fixture
from trajectory_platform.gym.library import build_library

QUIET = CascadeConfig(progress=False, workers=1)
LIBRARY = build_library(0)


def _fixture(fixture_id: str) -> Fixture:
    return next(f for f in LIBRARY if f.fixture_id == fixture_id)


def _verdict(fixture: Fixture, final: dict[str, str], name: str):
    """The cascade's verdict on an episode that writes ``final``'s changed files, then runs the tests."""

    def rendered(op: str, roles: dict) -> tuple[str, str]:
        tool, args = fixture.manifest.render(op, roles)
        return tool, json.dumps(args, sort_keys=True)

    changed = sorted(p for p, text in final.items() if fixture.s0_files.get(p) != text)
    turns = [([rendered("write", {"path": p, "content": final[p]})], [GYM]) for p in changed]
    turns.append(([rendered("run_tests", {})], [GYM]))
    episode = make_episode(
        name,
        turns,
        final,
        fixture=fixture,
        fixture_id=fixture.fixture_id,
        tools_version=fixture.manifest.specs()[0].version,
    )
    return verify_episodes([episode], {fixture.fixture_id: fixture}, QUIET).verdicts[0]


def test_every_configuration_fix_may_edit_its_data_files_and_nothing_else():
    config_fixes = [f for f in LIBRARY if f.domain == "config_fix" and not f.learnable]
    assert len(config_fixes) == 30
    for fixture in config_fixes:
        scope = fixture_context(fixture).edit_scope
        assert scope == tuple(fixture.edited_paths), fixture.fixture_id
        assert not any(PurePosixPath(p).suffix == ".py" for p in scope), fixture.fixture_id


@pytest.mark.parametrize(
    ("fixture_id", "loader", "old", "new"),
    [
        ("textkit/v0/cfg-stopwords@alias", "textkit/counts.py", ".split())\n", '.split()) | {"the"}\n'),
        (
            "geometry/v0/cfg-m@uri",
            "geometry/units.py",
            '.read_text(encoding="utf-8"))\n',
            '.read_text(encoding="utf-8")) | {"m": 100.0}\n',
        ),
    ],
    ids=["development", "validation"],
)
def test_a_configuration_task_fixed_in_its_loader_is_not_admitted(fixture_id, loader, old, new):
    fixture = _fixture(fixture_id)
    forged_loader = fixture.s0_files[loader].replace(old, new, 1)
    assert forged_loader != fixture.s0_files[loader]
    forged = _verdict(fixture, {**fixture.s0_files, loader: forged_loader}, "in_the_loader")
    assert forged.sink != "admitted"
    assert forged.reason == "out_of_scope_edit"
    honest = _verdict(fixture, dict(fixture.reference_files), "in_the_data")
    assert (honest.sink, honest.role) == ("admitted", "pristine")
