"""The first run explains itself (issue 16, item 7): with numba's cache cold the commands announce the
one-time compilation instead of sitting at 0%; with it warm they say nothing."""

from __future__ import annotations

import types
from pathlib import Path

import pytest

from sim.app import kernel_cache


@pytest.fixture
def fake_batch(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    source = tmp_path / "batch.py"
    source.write_text("")
    monkeypatch.setattr(kernel_cache.importlib.util, "find_spec",
                        lambda name: types.SimpleNamespace(origin=str(source)))
    monkeypatch.delenv("NUMBA_CACHE_DIR", raising=False)
    return source


def test_a_cold_cache_is_announced_once_warm_it_is_not(fake_batch: Path, monkeypatch) -> None:
    said: list[str] = []
    assert kernel_cache.announce_compiling("kamakura", said.append) is True
    assert said == ["compiling the kamakura kernels into numba's cache, once (about a minute on 2 cores); "
                    "later runs start at once"]
    (fake_batch.parent / "__pycache__").mkdir()
    (fake_batch.parent / "__pycache__" / "batch.play_batch-134.py311.nbi").write_bytes(b"")
    assert kernel_cache.announce_compiling("kamakura", said.append) is False and len(said) == 1
    monkeypatch.setenv("NUMBA_CACHE_DIR", str(fake_batch.parent / "elsewhere"))
    assert kernel_cache.cache_is_warm("sakura")  # a cache we do not look into is not called cold
