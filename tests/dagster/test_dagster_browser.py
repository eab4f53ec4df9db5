"""The UI in a real browser: headless Chromium (Debian's ``chromium``) driven by Playwright.

Against the session's ``ui_server`` (tests/dagster/conftest.py): the asset graph draws every
stage, an asset's checks page lists its checks, a backfill of ``raw_traces`` alone is launched
from the partition dialog (as a person does it), and the evaluation report renders with its plots.
Playwright's own browser download cannot work here (no network but package registries), so it
drives the system Chromium; ``make browser-tool`` installs it (docs/operations.md).
"""

from __future__ import annotations

import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest
from playwright.sync_api import sync_playwright

from trajectory_platform.definitions import defs
from trajectory_platform.evaluation.calls import ScoredCall, call_validity
from trajectory_platform.evaluation.report import write_report
from trajectory_platform.evaluation.scorecard import decide_release

CHROMIUM_NAMES = ("chromium", "chromium-browser")
PAGE_TIMEOUT_MS = 60_000
"""A first page load compiles the UI's JavaScript: tens of seconds on a busy 2-core machine."""


def _chromium() -> str:
    """The system Chromium, or a failure that says how to install it (the suite requires it, as it
    requires bubblewrap)."""
    found = next((path for name in CHROMIUM_NAMES if (path := shutil.which(name))), None)
    if found is None:
        pytest.fail(
            "headless Chromium is required for the UI tests: run `make browser-tool` (as root it "
            "installs Debian's chromium) or `sudo apt-get install chromium`"
        )
    return found


@pytest.fixture(scope="module")
def page(ui_server) -> Iterator:
    with sync_playwright() as driver:
        browser = driver.chromium.launch(executable_path=_chromium(), headless=True)
        tab = browser.new_page(viewport={"width": 1400, "height": 1000})
        tab.set_default_timeout(PAGE_TIMEOUT_MS)
        yield tab
        browser.close()


def test_browser_asset_graph_shows_every_stage(ui_server, page) -> None:
    graph = defs.resolve_asset_graph()
    page.goto(f"{ui_server.url}/asset-groups")
    for group in sorted({graph.get(key).group_name for key in graph.get_all_asset_keys()}):
        page.get_by_text(group, exact=True).first.wait_for()
    page.keyboard.press("Alt+e")  # expand every group, as docs/operations.md tells a person
    # one asset per stage (long names are shortened inside the drawn nodes)
    for name in ("raw_traces", "verified_traces", "training_mixture", "checkpoint", "scorecard"):
        page.get_by_text(name, exact=True).first.wait_for()


def test_browser_asset_checks_page_lists_its_checks(ui_server, page) -> None:
    page.goto(f"{ui_server.url}/assets/raw_traces?view=checks")
    graph = defs.resolve_asset_graph()
    names = sorted(k.name for k in graph.asset_check_keys if k.asset_key.to_user_string() == "raw_traces")
    assert "records_conserved" in names
    for name in names:
        page.get_by_text(name, exact=True).first.wait_for()
    page.get_by_text(f"Checks ({len(names)})").wait_for()


def test_browser_launches_a_raw_traces_backfill(ui_server, page) -> None:
    """The partition dialog of raw_traces alone: a range typed in, *Launch backfill* pressed."""
    page.goto(f"{ui_server.url}/assets/raw_traces")
    page.get_by_role("button", name="Materialize…").click()
    dialog = page.get_by_role("dialog").filter(has_text="Launch runs to materialize raw_traces")
    dialog.get_by_text("Show all partitions").click()  # the dialog opens on the last 90 days
    days = dialog.get_by_placeholder("ex: ", exact=False)
    days.fill("[2024-03-01...2024-03-02]")
    days.press("Enter")
    dialog.get_by_text("2 partitions").wait_for()
    before = _backfill_ids(ui_server)
    dialog.get_by_role("button", name="Launch backfill").click()
    dialog.wait_for(state="detached")
    errors = page.get_by_role("dialog").filter(has_text="Error")
    assert errors.count() == 0, errors.all_inner_texts()
    [created] = [b for b in _backfills(ui_server) if b["id"] not in before]
    assert created["assetSelection"] == [{"path": ["raw_traces"]}]
    assert created["partitionNames"] == ["2024-03-01", "2024-03-02"]


BACKFILLS = """
{ partitionBackfillsOrError { ... on PartitionBackfills { results {
    id status partitionNames assetSelection { path } } } } }
"""


def _backfills(ui_server) -> list[dict]:
    return ui_server.graphql(BACKFILLS)["partitionBackfillsOrError"]["results"]


def _backfill_ids(ui_server) -> set[str]:
    return {b["id"] for b in _backfills(ui_server)}


def _scorecard() -> dict:
    """A decided scorecard with every plotted figure present (the shape the evaluation stores)."""
    schema = {"t": {"type": "object", "properties": {"a": {"type": "string"}}}}
    valid = call_validity([ScoredCall("t", {"a": "x"}, schema), ScoredCall("t", None, schema)])
    measurements = {
        "n": 10,
        "acceptance": {
            "candidate": 0.6,
            "baseline": 0.4,
            "difference": {"estimate": 0.2, "ci_low": -0.1, "ci_high": 0.5, "method": "tango_score"},
        },
        "call_validity": {"candidate": valid, "baseline": valid},
        "sfa": {
            "candidate": {"familiar": 0.9, "renamed": 0.5},
            "baseline": {"familiar": 0.8, "renamed": 0.4},
        },
        "pre": {
            "candidate": {"familiar": 0.0, "renamed": 0.01},
            "baseline": {"familiar": 0.0, "renamed": 0.0},
        },
        "recovery": {"candidate": 0.5, "baseline": 0.5},
        "retention": {"candidate": 1.0, "baseline": 1.0},
    }
    return decide_release(measurements, {"candidate": "sha256:c", "baseline": "sha256:b"}, {})


def test_browser_report_page_renders_its_plots_and_next_steps(page, tmp_path: Path) -> None:
    context = {
        "funnel": {"attempts": 9, "passed_syntactic": 8},
        "loss_curves": {"train": [(0, 3.0), (1, 2.5)]},
    }
    report = write_report(_scorecard(), tmp_path, context)
    page.goto(report.as_uri())
    page.get_by_role("heading", name="Release scorecard").wait_for()
    page.get_by_role("heading", name="What to do next").wait_for()
    assert page.locator("text=Decision:").count() >= 1
    images = page.locator("img")
    assert images.count() > 0
    for index in range(images.count()):  # every plot the page shows actually loads
        image = images.nth(index)
        assert image.evaluate("img => img.complete && img.naturalWidth > 0"), image.get_attribute("src")
