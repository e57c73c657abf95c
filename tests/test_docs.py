"""The documentation site (mkdocs.yml, docs/): it builds with --strict, the tutorial's commands run
as written on the page, and the Python examples of the pages listed in EXAMPLE_PAGES print what the page
says they print."""

from __future__ import annotations

import os
import re
import shlex
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
#: the tutorial's commands the test runs; others (`balance workbench`, a server) are only shown
RUN = {"simulate", "summary", "compare", "values", "report"}
#: pages whose every ```python block is followed by a ```text block of exactly what it prints
EXAMPLE_PAGES = ("howto/interop.md",)


def test_site_builds_strict(tmp_path: Path) -> None:
    pytest.importorskip("mkdocs", reason="mkdocs is in the test extra (pip install -e '.[test]')")
    done = subprocess.run([sys.executable, "-m", "mkdocs", "build", "--strict", "--site-dir",
                           str(tmp_path / "site")], cwd=ROOT, capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    commands = (tmp_path / "site" / "reference" / "commands.html").read_text()
    assert commands.count("usage: balance") >= 14  # every subcommand's help, from the parser


def tutorial_blocks() -> list[str]:
    page = (ROOT / "docs" / "tutorial.md").read_text()
    return re.findall(r"```(\w+)\n(.*?)```", page, flags=re.S)


def tutorial_commands() -> list[list[str]]:
    commands = []
    for lang, body in tutorial_blocks():
        if lang != "sh":
            continue
        for line in body.replace("\\\n", " ").splitlines():
            words = shlex.split(line, comments=True)
            if words and words[0] == "balance" and len(words) > 1 and words[1] in RUN:
                commands.append(words[1:])
    return commands


def test_tutorial_commands_run(tmp_path: Path) -> None:
    shutil.copytree(ROOT / "configs", tmp_path / "configs")
    variant = next(body for lang, body in tutorial_blocks() if lang == "toml")
    (tmp_path / "my-variant.toml").write_text(variant)
    commands = tutorial_commands()
    assert [c[0] for c in commands] == ["simulate", "summary", "compare", "values", "report"]
    for args in commands:
        done = subprocess.run([sys.executable, "-m", "sim", *args], cwd=tmp_path, capture_output=True,
                              text=True, env={**os.environ, "PYTHONPATH": str(ROOT)})
        assert done.returncode == 0, f"balance {shlex.join(args)}: {done.stderr[-2000:]}"


def example_pairs(page: str) -> list[tuple[str, str]]:
    """Each Python block of a page with the text block right after it (what running it prints)."""
    text = (ROOT / "docs" / page).read_text()
    pairs = re.findall(r"```python\n(.*?)```\s*```text\n(.*?)```", text, flags=re.S)
    assert len(pairs) == text.count("```python"), f"{page}: a Python block without its output block"
    return pairs


@pytest.mark.parametrize("page", EXAMPLE_PAGES)
def test_python_examples_print_what_the_page_says(page: str) -> None:
    """The interop page's examples need both optional extras (both are in the test extra)."""
    pytest.importorskip("pyspiel", reason="pip install -e '.[openspiel]'")
    pytest.importorskip("pettingzoo", reason="pip install -e '.[pettingzoo]'")
    pairs = example_pairs(page)
    assert pairs
    for code, expected in pairs:
        done = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True,
                              env={**os.environ, "PYTHONPATH": str(ROOT)})
        assert done.returncode == 0, f"{page}: {code[:200]}...\n{done.stderr[-2000:]}"
        assert done.stdout == expected, f"{page}: {code[:200]}..."
