"""References a reader can follow: no tracked text file cites a document or a tracker the repository does
not hold. An internal API document is cited by name nowhere (the pages of docs/reference/ and docs/rules.md
say what it said), and no issue number of the project's own tracker is cited (the sentence says the reason
itself, or names the docs page that explains the feature). A link to a public upstream tracker
(`.../issues/1234` in a URL) stays: a reader can follow it.
"""

from __future__ import annotations

import re
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
#: generated or binary: the runs' and reports' output folders, and images
SKIPPED_DIRS = ("runs/", "reports/")
SKIPPED_SUFFIXES = (".png", ".jpg", ".jpeg", ".gif", ".ico", ".parquet")

#: the internal document by its file name, in any folder (case-sensitive: python-api.md is a page of ours)
INTERNAL_DOC = re.compile(r"(?<![\w-])API\.md\b")
#: an issue number of our tracker: the word issue or issues (any case), then spaces, "#", "_" or "-", or a
#: line break and a comment's "#", then a number: a citation in prose, a heading, a comment wrapped after
#: the word, a test's name. A URL's ".../issues/" and number keeps its slash in the gap and is left alone.
ISSUE_NUMBER = re.compile(r"(?<![A-Za-z0-9])issues?(?:[ \t_#-]|\n[ \t]*#?)*\d+", re.IGNORECASE)


def _tracked_text_files() -> list[Path]:
    try:
        listed = subprocess.run(["git", "ls-files", "-z"], cwd=ROOT, capture_output=True, check=True)
    except (OSError, subprocess.CalledProcessError):
        pytest.skip("not a git checkout: the tracked files are unknown")
    names = [name for name in listed.stdout.decode().split("\0") if name]
    files = []
    for name in names:
        if name.startswith(SKIPPED_DIRS) or name.lower().endswith(SKIPPED_SUFFIXES):
            continue
        path = ROOT / name
        if path.is_file():
            files.append(path)
    return files


def citations(text: str) -> list[tuple[int, str]]:
    """(line number, the citation) of every internal-document or issue-number citation in `text`."""
    found = []
    for pattern in (INTERNAL_DOC, ISSUE_NUMBER):
        for match in pattern.finditer(text):
            line = text.count("\n", 0, match.start()) + 1
            found.append((line, " ".join(match.group(0).split())))
    return sorted(found)


def test_the_patterns_find_citations_and_leave_urls_and_the_api_page():
    doc = "API" + ".md"
    issue = "issue"
    cited = (f"see {doc}, docs/{doc}\n"
             f"x ({issue} 17)\n"
             f"{issue.capitalize()}s 12 and 35\n"
             f"{issue} #48\n"
             f"# the expert before {issue}\n# 38\n"
             f"def test_{issue}_47(): ...\n")
    assert [line for line, _ in citations(cited)] == [1, 1, 2, 3, 4, 5, 7]
    fine = ("[Python API](docs/reference/python-api.md)\n"
            f"https://github.com/numba/numba/{issue}s/1234\n"
            f"known {issue}s, the {issue}'s 20 times, an {issue} of 2 kinds\n")
    assert citations(fine) == []


def test_no_tracked_text_cites_an_internal_document_or_an_issue_number():
    hits = []
    for path in _tracked_text_files():
        try:
            text = path.read_text(encoding="utf-8")
        except UnicodeDecodeError:
            continue
        hits += [f"{path.relative_to(ROOT)}:{line}: {cited}" for line, cited in citations(text)]
    assert hits == [], f"{len(hits)} citations a reader cannot follow:\n" + "\n".join(hits)
