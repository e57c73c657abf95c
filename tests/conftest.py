"""Shared test hygiene: a test that draws report figures without writing a page (the section builders
called directly) leaves them open; they are closed after each test, so figures never pile up across the
suite's tests in one process. The expert's strength checks (sim/app/expert_check.py) are cached in a folder
of the session's, not the user's cache."""

from __future__ import annotations

import os
import sys
from collections.abc import Iterator

import pytest


@pytest.fixture(autouse=True)
def _close_figures_left_open() -> Iterator[None]:
    yield
    pyplot = sys.modules.get("matplotlib.pyplot")
    if pyplot is not None:
        pyplot.close("all")


@pytest.fixture(autouse=True, scope="session")
def _expert_checks_cached_for_the_session(tmp_path_factory: pytest.TempPathFactory) -> Iterator[None]:
    """The checks a command measures are kept in the session's own folder (commands run in a child process
    inherit it): never in the user's cache, and each measured once a session."""
    before = os.environ.get("BALANCE_CACHE_DIR")
    os.environ["BALANCE_CACHE_DIR"] = str(tmp_path_factory.mktemp("balance-cache"))
    yield
    if before is None:
        os.environ.pop("BALANCE_CACHE_DIR", None)
    else:
        os.environ["BALANCE_CACHE_DIR"] = before
