"""What the workbench costs: the time from pressing Run to the first seat rates on the page, the
time the server takes to answer one refresh while a run plays, and the run's pace with the page refreshing
every second against `balance simulate` of the same games without a server, side by side in turns.

    python scripts/workbench_timing.py [--games 20000] [--repeats 3]

Needs Debian's chromium for the first figure (Playwright drives it through its executable_path).
"""

from __future__ import annotations

import argparse
import json
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
CONFIG = ROOT / "configs" / "kamakura" / "base.toml"


class Workbench:
    def __init__(self, workspace: Path) -> None:
        self.proc = subprocess.Popen([sys.executable, "-m", "sim", "workbench", "--workspace", str(workspace),
                                      "--port", "0", "--jobs", "2"], stdout=subprocess.PIPE, text=True)
        for line in self.proc.stdout:
            found = re.search(r"(http://\S+)/\?token=(\S+)", line)
            if found:
                self.base, self.token = found.groups()
                break

    def call(self, path: str, body: dict | None = None) -> dict:
        data = json.dumps(body).encode() if body is not None else None
        request = urllib.request.Request(f"{self.base}{path}?token={self.token}", data=data,
                                         headers={"content-type": "application/json"})
        with urllib.request.urlopen(request, timeout=600) as response:
            return json.loads(response.read())

    def stop(self) -> None:
        self.proc.send_signal(2)
        self.proc.wait(60)


def pace(run_dir: Path) -> float:
    """Games per second of a run's last session, as its manifest records it."""
    from storage.run_dir import load_manifest

    session = load_manifest(run_dir / "manifest.json").sessions[-1]
    return session["games_played"] / session["seconds"]


def first_rates(bench: Workbench, seed: int) -> float:
    """Seconds from pressing Run in the page to the seat chart on screen (a fresh seed: nothing played)."""
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=shutil.which("chromium"), args=["--no-sandbox"])
        page = browser.new_page(viewport={"width": 1400, "height": 900})
        page.goto(f"{bench.base}/?token={bench.token}")
        page.select_option("#start", "shipped:kamakura/base.toml")
        page.click("[data-action=open]")
        page.wait_for_selector("#bulk-pattern")
        page.select_option("#agents", "greedy")
        page.fill("#seed", str(seed))
        page.fill("#games", "20000")
        started = time.perf_counter()
        page.click("#run-button")
        page.wait_for_selector(".seat-chart", timeout=600_000)
        seconds = time.perf_counter() - started
        page.click("[data-action=stop]")
        browser.close()
    return seconds


def watched_run(bench: Workbench, workspace: Path, games: int, seed: int) -> tuple[float, list[float]]:
    """A workbench run refreshed every second: its pace, and each refresh's answer time."""
    bench.call("/drafts", {"start": "shipped:kamakura/base.toml", "players": 3, "draft": "timing.toml"})
    job = bench.call("/run", {"draft": "timing.toml", "players": 3, "agents": "greedy", "seed": seed,
                              "games": games})["job"]
    answers = []
    while True:
        started = time.perf_counter()
        view = bench.call(f"/jobs/{job}")
        answers.append(time.perf_counter() - started)
        if not view["active"]:
            break
        time.sleep(1.0)
    out = re.search(r"--out (\S+)", view["html"]).group(1)
    return pace(workspace / out), answers


def plain_run(folder: Path, games: int, seed: int) -> float:
    out = folder / f"plain-{seed}"
    args = ["simulate", str(CONFIG), "--players", "3", "--agents", "greedy", "--games", str(games), "--seed",
            str(seed), "--jobs", "2", "--out", str(out), "--quiet"]
    subprocess.run([sys.executable, "-m", "sim", *args], check=True, capture_output=True)
    return pace(out)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--games", type=int, default=20000)
    parser.add_argument("--repeats", type=int, default=3)
    args = parser.parse_args()
    folder = Path(tempfile.mkdtemp())
    bench = Workbench(folder / "ws")
    try:
        firsts = [first_rates(bench, 100 + i) for i in range(args.repeats)]
        watched, plain, answers = [], [], []
        for i in range(args.repeats):  # in turns, so the machine's load falls on both alike
            rate, times = watched_run(bench, folder / "ws", args.games, 200 + i)
            watched.append(rate)
            answers += times
            plain.append(plain_run(folder, args.games, 200 + i))
    finally:
        bench.stop()
    med = statistics.median
    print(f"pressing Run to the first seat rates on screen: median {med(firsts):.1f} s "
          f"({', '.join(f'{s:.1f}' for s in firsts)})")
    print(f"one refresh of the watched run: median {1000 * med(answers):.0f} ms, 95th percentile "
          f"{1000 * sorted(answers)[int(0.95 * (len(answers) - 1))]:.0f} ms over {len(answers)} refreshes")
    print(f"games/s, 3-player Kamakura greedy, {args.games:,} games on 2 workers: workbench (refreshed every "
          f"second) median {med(watched):,.0f}, balance simulate median {med(plain):,.0f}, ratio "
          f"{med(watched) / med(plain):.2f}")


if __name__ == "__main__":
    main()
