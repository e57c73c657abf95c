"""docs/rules.md, the rules of record in the repository: it exists, names both games, and every
decision number R-n cited in the code, the configs or the README has its own anchor and heading there, so
a citation can always be looked up. Text only: no game is played."""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PAGE = ROOT / "docs" / "rules.md"
#: Where decisions are cited (what `grep -rhoE "R-[0-9]+" sim/ analysis/ configs/ README.md` sees).
CITING = ("sim", "analysis", "configs", "README.md")
TEXT_SUFFIXES = {".py", ".toml", ".md", ".txt", ".html", ".js", ".css", ".json", ".yaml", ".yml", ".cfg"}
CITATION = re.compile(r"\bR-(\d+)\b")
#: The decisions of the rules of record, R-1 ... R-23.
ALL_DECISIONS = set(range(1, 24))


def _page() -> str:
    return PAGE.read_text(encoding="utf-8")


def _cited() -> set[int]:
    found: set[int] = set()
    for name in CITING:
        top = ROOT / name
        files = [top] if top.is_file() else [p for p in top.rglob("*")
                                             if p.is_file() and p.suffix in TEXT_SUFFIXES
                                             and "__pycache__" not in p.parts]
        for path in files:
            found.update(int(n) for n in CITATION.findall(path.read_text(encoding="utf-8", errors="ignore")))
    return found


def _anchors(page: str) -> list[int]:
    return [int(n) for n in re.findall(r'<a id="r-(\d+)"></a>', page)]


def _headings(page: str) -> set[int]:
    return {int(n) for n in re.findall(r"^#{2,6} R-(\d+):", page, flags=re.MULTILINE)}


def test_the_page_exists_and_covers_both_games():
    assert PAGE.is_file(), "docs/rules.md is missing"
    page = _page()
    assert re.search(r"^## Kamakura\b", page, flags=re.MULTILINE)
    assert re.search(r"^## Sakura\b", page, flags=re.MULTILINE)


def test_every_decision_has_one_anchor_and_a_heading():
    page = _page()
    anchors = _anchors(page)
    assert len(anchors) == len(set(anchors)), f"repeated anchors: {sorted(anchors)}"
    assert set(anchors) >= ALL_DECISIONS, f"no anchor for R-{sorted(ALL_DECISIONS - set(anchors))}"
    assert _headings(page) >= ALL_DECISIONS, f"no heading for R-{sorted(ALL_DECISIONS - _headings(page))}"
    for n in ALL_DECISIONS:  # the anchor sits right before its decision's heading
        assert re.search(rf'<a id="r-{n}"></a>\n#{{2,6}} R-{n}:', page), f"R-{n}: anchor not at its heading"


def test_every_decision_cited_in_code_configs_or_readme_is_on_the_page():
    cited = _cited()
    assert cited, "no R-n citation found: the scan is broken"
    missing = sorted(cited - set(_anchors(_page())))
    assert not missing, f"cited but not on docs/rules.md: {', '.join(f'R-{n}' for n in missing)}"


def test_the_pages_own_links_to_decisions_resolve():
    page = _page()
    ids = set(re.findall(r'<a id="([^"]+)"></a>', page))
    for target in set(re.findall(r"\]\(#([^)]+)\)", page)):
        assert target in ids, f"link to #{target}: no such anchor on the page"


def test_no_reference_points_outside_the_repository() -> None:
    """Every R-number points to docs/rules.md; nothing names the rules' old place outside the
    repository (../shared) or its file name there."""
    import subprocess

    root = Path(__file__).resolve().parents[1]
    names = ["../" + "shared", "RULES" + ".md"]
    found = subprocess.run(["git", "grep", "-n", "-F", "-e", names[0], "-e", names[1], "--", ".",
                            ":!tests/test_rules_page.py"], cwd=root, capture_output=True, text=True).stdout
    assert found == ""
