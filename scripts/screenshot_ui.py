#!/usr/bin/env python
"""Headless Chromium screenshot of the Dagster UI's global asset graph, every group expanded.

Usage:
    .venv/bin/python scripts/screenshot_ui.py [--workdir DIR] [--out PNG] [--url URL] [--page PATH]

Without ``--url`` it starts ``dagster-webserver`` on a free loopback port against the workdir's
Dagster home (as ``make ui`` would, without the daemon), takes the screenshot and stops exactly
that server. Chromium is driven over the DevTools protocol so it can wait for the graph and
press the UI's "expand all groups" shortcut. Needs Debian's ``chromium``
(``apt-get install -y chromium``); exits 2 naming the package when it is missing.
Prints a JSON object (the PNG's path and size) as its last line.
"""

from __future__ import annotations

import argparse
import base64
import json
import shutil
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path

from websockets.sync.client import connect  # ships with dagster-webserver (uvicorn[standard])

from trajectory_platform.resources import default_workdir, prepare_dagster_home
from trajectory_platform.resources.webserver import running_webserver, stop_process

CHROMIUM_FLAGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--hide-scrollbars",
    "--remote-debugging-port=0",  # Chromium picks a free port and writes it to DevToolsActivePort
]
WIDTH, HEIGHT = 1920, 1080
ALT = 1  # CDP modifier bit


class DevTools:
    """A minimal Chrome DevTools Protocol client over one page's websocket."""

    def __init__(self, socket) -> None:
        self.socket = socket
        self.next_id = 0

    def call(self, method: str, **params: object) -> dict:
        self.next_id += 1
        self.socket.send(json.dumps({"id": self.next_id, "method": method, "params": params}))
        while True:
            message = json.loads(self.socket.recv(timeout=60))
            if message.get("id") == self.next_id:
                if "error" in message:
                    raise RuntimeError(f"{method}: {message['error']}")
                return message.get("result", {})

    def evaluate(self, expression: str) -> object:
        return self.call("Runtime.evaluate", expression=expression, returnByValue=True)["result"].get("value")

    def wait_for(self, expression: str, timeout_s: float) -> bool:
        deadline = time.monotonic() + timeout_s
        while time.monotonic() < deadline:
            if self.evaluate(expression):
                return True
            time.sleep(0.5)
        return False

    def press_alt(self, key: str) -> None:
        """Alt+<key> on the page: the asset graph's keyboard shortcuts (Alt+E expands all groups)."""
        code = f"Key{key.upper()}"
        for kind in ("keyDown", "keyUp"):
            self.call(
                "Input.dispatchKeyEvent",
                type=kind,
                modifiers=ALT,
                key=key,
                code=code,
                windowsVirtualKeyCode=ord(key.upper()),
            )


def _devtools_page(profile: Path, process: subprocess.Popen) -> str:
    """The websocket URL of Chromium's first page, once DevTools is listening."""
    port_file = profile / "DevToolsActivePort"
    deadline = time.monotonic() + 60
    while not port_file.is_file() or not port_file.read_text().strip():
        if process.poll() is not None or time.monotonic() > deadline:
            raise RuntimeError("chromium did not start its DevTools endpoint")
        time.sleep(0.2)
    port = port_file.read_text().split()[0]
    with urllib.request.urlopen(f"http://127.0.0.1:{port}/json", timeout=10) as response:
        targets = json.load(response)
    return next(t["webSocketDebuggerUrl"] for t in targets if t["type"] == "page")


def screenshot(url: str, out: Path, browser: str, expect: str = "raw_traces") -> None:
    """Open ``url`` in a throwaway headless Chromium, expand every asset group and save a PNG.

    Waits until the page shows ``expect`` (an asset name) so the PNG shows the laid-out graph.
    """
    out.parent.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(prefix="chromium-profile-") as profile:
        process = subprocess.Popen(
            [browser, *CHROMIUM_FLAGS, f"--user-data-dir={profile}", "about:blank"],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            start_new_session=True,
        )
        try:
            with connect(_devtools_page(Path(profile), process), max_size=64 * 1024 * 1024) as socket:
                _capture(DevTools(socket), url, out, expect)
        finally:
            stop_process(process, grace_s=10)


def _capture(tools: DevTools, url: str, out: Path, expect: str) -> None:
    """Navigate, wait for the laid-out graph (expanding groups if needed), save the PNG."""
    tools.call(
        "Emulation.setDeviceMetricsOverride",
        width=WIDTH,
        height=HEIGHT,
        deviceScaleFactor=1,
        mobile=False,
    )
    tools.call("Page.navigate", url=url)
    tools.wait_for("document.readyState === 'complete' && document.querySelector('svg') !== null", 60)
    time.sleep(3)  # the graph layout runs in a web worker after the data arrives
    if not tools.evaluate(f"document.body.innerText.includes({json.dumps(expect)})"):
        tools.press_alt("e")  # asset groups start collapsed when there are several
    if not tools.wait_for(f"document.body.innerText.includes({json.dumps(expect)})", 60):
        raise RuntimeError(f"the page never showed {expect!r}: {url}")
    time.sleep(3)
    png = tools.call("Page.captureScreenshot", format="png")["data"]
    out.write_bytes(base64.b64decode(png))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--workdir", type=Path, default=None, help="workdir whose Dagster home to show")
    parser.add_argument("--out", type=Path, default=None, help="PNG (default <workdir>/ui_asset_graph.png)")
    parser.add_argument("--url", default=None, help="a running webserver (default: start one)")
    parser.add_argument("--page", default="/asset-groups", help="UI page (default: global asset lineage)")
    args = parser.parse_args(argv)
    browser = shutil.which("chromium") or shutil.which("chromium-browser")
    if browser is None:
        print("screenshot_ui: chromium not found: apt-get install -y chromium", file=sys.stderr)
        return 2
    workdir = (args.workdir or default_workdir()).resolve()
    out = (args.out or workdir / "ui_asset_graph.png").resolve()
    if args.url:
        screenshot(args.url.rstrip("/") + args.page, out, browser)
    else:
        workdir.mkdir(parents=True, exist_ok=True)
        home = prepare_dagster_home(workdir)
        with running_webserver(home, workdir, workdir / "screenshot_webserver.log") as url:
            screenshot(url + args.page, out, browser)
    print(json.dumps({"screenshot": str(out), "bytes": out.stat().st_size}))
    return 0


if __name__ == "__main__":
    sys.exit(main())
