"""Shared test hygiene: a test that draws report figures without writing a page (the section builders
called directly) leaves them open; they are closed after each test, so figures never pile up across the
suite's tests in one process."""

from __future__ import annotations

import sys
from collections.abc import Iterator

import pytest


@pytest.fixture(autouse=True)
def _close_figures_left_open() -> Iterator[None]:
    yield
    pyplot = sys.modules.get("matplotlib.pyplot")
    if pyplot is not None:
        pyplot.close("all")
