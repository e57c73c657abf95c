"""Open a report in headless Chromium, as a person would: did every chart decode, did the page log errors?

Used by the tests and to take the README's screenshot. Needs Debian's `chromium` (.ci/run installs it).
"""

from __future__ import annotations

import json
import re
import shutil
import subprocess
import tempfile
from pathlib import Path

FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--no-first-run", "--disable-background-networking",
         "--disable-component-update", "--disable-sync", "--disable-quic"]

# Appended to a copy of the page: after load, record each image's natural width and any error events.
PROBE = """<script>
window.__errors = [];
window.addEventListener('error', e => window.__errors.push(String(e.message || (e.target && e.target.src))),
                        true);
window.addEventListener('load', () => {
  const images = Array.from(document.images).map(i => ({src: i.getAttribute('src'), width: i.naturalWidth}));
  const tables = Array.from(document.querySelectorAll('table')).map(t => ({
    width: t.getBoundingClientRect().width,
    headers: Array.from(t.querySelectorAll('th')).map(h => h.textContent.trim()),
    rows: Array.from(t.querySelectorAll('tbody tr')).map(r =>
      Array.from(r.querySelectorAll('td')).map(d => d.textContent.trim()))}));
  const pageWidth = document.documentElement.scrollWidth;  // before the probe's own output widens it
  const box = sel => { const e = document.querySelector(sel); if (!e) return null;
                       const r = e.getBoundingClientRect(); return {top: r.top, bottom: r.bottom}; };
  const out = document.createElement('pre');
  out.id = '__probe';
  out.textContent = JSON.stringify({images: images, errors: window.__errors, tables: tables,
                                    page_width: pageWidth, verdicts: box('.verdicts'),
                                    verdict_items: document.querySelectorAll('.run-verdicts li').length});
  document.body.appendChild(out);
});
</script>"""


def chromium() -> str | None:
    return shutil.which("chromium") or shutil.which("chromium-browser")


def probe(index_html: Path, timeout: int = 120, width: int = 1400) -> dict:
    """Load the page in a window `width` pixels wide; return {"images": [{src, width}], "errors": [...],
    "console": [...], "tables": [{width, headers, rows}] (each table's rendered width in pixels, header
    texts and cell texts), "page_width": the page's scroll width, "verdicts": the verdict cards' {top,
    bottom} in pixels from the page's top (None without), "verdict_items": how many verdicts they hold}."""
    browser = chromium()
    if browser is None:
        raise RuntimeError("chromium is not installed")
    page = Path(index_html)
    copy = page.with_name(".probe-" + page.name)
    copy.write_text(page.read_text().replace("</body>", PROBE + "</body>"))
    try:
        with tempfile.TemporaryDirectory() as profile:
            command = [browser, *FLAGS, f"--user-data-dir={profile}", f"--window-size={width},900",
                       "--enable-logging=stderr", "--v=0",
                       "--virtual-time-budget=5000", "--dump-dom", copy.resolve().as_uri()]
            run = subprocess.run(command, capture_output=True, text=True, timeout=timeout)
    finally:
        copy.unlink(missing_ok=True)
    found = re.search(r'<pre id="__probe">(.*?)</pre>', run.stdout, re.S)
    if not found:
        raise RuntimeError(f"the page did not finish loading: {run.stderr[-2000:]}")
    result = json.loads(found.group(1).replace("&quot;", '"').replace("&amp;", "&"))
    result["console"] = [line for line in run.stderr.splitlines() if "CONSOLE" in line]
    return result


def screenshot(index_html: Path, png: Path, width: int = 1200, height: int = 900,
               timeout: int = 120) -> None:
    browser = chromium()
    if browser is None:
        raise RuntimeError("chromium is not installed")
    with tempfile.TemporaryDirectory() as profile:
        command = [browser, *FLAGS, f"--user-data-dir={profile}", f"--window-size={width},{height}",
                   "--hide-scrollbars", f"--screenshot={Path(png).resolve()}",
                   Path(index_html).resolve().as_uri()]
        subprocess.run(command, capture_output=True, timeout=timeout, check=True)
