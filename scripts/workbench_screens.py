"""The README's pictures of the workbench (docs/workbench-edit.png, -run.png, -fix.png): a designer's
first loop on Kamakura at 1,400 x 900, in Debian's chromium; and the "Show fair alternatives" form before it
starts (docs/workbench-alternatives.png: what it keeps and each plan with its time on this machine).

    python scripts/workbench_screens.py               # all four
    python scripts/workbench_screens.py alternatives  # the last one only
"""

from __future__ import annotations

import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

from playwright.sync_api import sync_playwright

ROOT = Path(__file__).resolve().parents[1]


def main(only: str = "") -> None:
    workspace = Path(tempfile.mkdtemp()) / "ws"
    args = ["workbench", "--workspace", str(workspace), "--port", "0", "--jobs", "2"]
    proc = subprocess.Popen([sys.executable, "-m", "sim", *args], stdout=subprocess.PIPE, text=True)
    url = next(m.group(0) for line in proc.stdout if (m := re.search(r"http://\S+", line)))
    try:
        with sync_playwright() as p:
            browser = p.chromium.launch(executable_path=shutil.which("chromium"), args=["--no-sandbox"])
            page = browser.new_page(viewport={"width": 1400, "height": 900})
            page.goto(url)
            if only == "alternatives":
                page.select_option("#start", "shipped:kamakura/base.toml")
                page.fill("#draft", "fair-alternatives.toml")
                page.click("[data-action=open]")
                page.wait_for_selector("#editor fieldset")
                _alternatives(page)
                return
            _edit(page)
            page.screenshot(path=ROOT / "docs" / "workbench-edit.png")
            page.click("[data-action=open]")  # the editor again from the file: the refused edit is gone
            page.wait_for_selector('[data-key="rules.order_chit_moves"]:not(.invalid)')
            page.select_option("#agents", "greedy")
            page.fill("#games", "4000")
            page.click("#run-button")
            page.wait_for_selector(".job-head[data-active=no]", timeout=600_000)
            page.screenshot(path=ROOT / "docs" / "workbench-run.png")
            _fix(page)
            page.screenshot(path=ROOT / "docs" / "workbench-fix.png")
            _alternatives(page)
            browser.close()
    finally:
        proc.send_signal(2)
        proc.wait(60)


def _edit(page) -> None:
    """Every blue chit one point less, and a refused edit shown at its field."""
    page.select_option("#start", "shipped:kamakura/base.toml")
    page.fill("#draft", "cheaper-blue.toml")
    page.click("[data-action=open]")
    page.fill("#bulk-pattern", "chits.blue[*].points")
    page.fill("#bulk-value", "-1")
    page.click("[data-action=bulk]")
    page.wait_for_function("document.querySelector('[data-error-for=bulk]')?.textContent.includes('changed')")
    page.fill('[data-key="rules.order_chit_moves"]', "[0, 2]")
    page.keyboard.press("Tab")
    page.wait_for_selector(".invalid")


def _fix(page) -> None:
    """A tune of the order-chit moves of seats 1 and 2, and its recommendation."""
    page.click("#fix summary")
    page.fill(".tune-space tbody tr:nth-child(1) .tune-pattern", "rules.order_chit_moves[1]")
    page.fill(".tune-space tbody tr:nth-child(1) .tune-min", "0")
    page.fill(".tune-space tbody tr:nth-child(1) .tune-max", "4")
    page.fill(".tune-space tbody tr:nth-child(2) .tune-pattern", "rules.order_chit_moves[2]")
    page.fill(".tune-space tbody tr:nth-child(2) .tune-min", "0")
    page.fill(".tune-space tbody tr:nth-child(2) .tune-max", "6")
    page.fill("#budget", "60000")
    page.click("#tune-button")
    page.wait_for_selector(".tune-outcome", timeout=1_200_000)


def _alternatives(page) -> None:
    """"Show fair alternatives" at expert on the order-chit moves of seats 1 and 2 (0 to 4) and the blue
    chits' points (1 to 8): what it keeps and each plan with its time, before anything starts."""
    page.select_option("#agents", "expert")
    if not page.is_visible(".tune-space"):
        page.click("#fix summary")
    rows = [("rules.order_chit_moves[1]", 0, 4), ("rules.order_chit_moves[2]", 0, 4),
            ("chits.blue[*].points", 1, 8)]
    for i, row in enumerate(rows, start=1):
        for column, value in zip(("pattern", "min", "max"), row, strict=True):
            page.fill(f".tune-space tbody tr:nth-child({i}) .tune-{column}", str(value))
    page.click("[data-action=explore]")
    page.wait_for_selector("#explore-estimate .plan", timeout=600_000)
    page.locator("#fix").screenshot(path=ROOT / "docs" / "workbench-alternatives.png")


if __name__ == "__main__":
    main(*sys.argv[1:2])
