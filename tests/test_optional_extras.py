"""The toolkit without its optional extras (OpenSpiel, PettingZoo): the commands run, and `balance bench`,
the one command that uses them, says which extra to install. The extras are made unimportable in a fresh
interpreter (a `None` in `sys.modules` makes an import raise ImportError), as on a machine where
`pip install -e .` left them out."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
BLOCKED = ("pyspiel", "open_spiel", "pettingzoo", "gymnasium")


def balance_without_extras(*args: str, cwd: Path = ROOT) -> subprocess.CompletedProcess:
    code = ("import runpy, sys\n"
            f"for name in {BLOCKED!r}:\n    sys.modules[name] = None\n"
            f"sys.argv = ['balance', *{list(args)!r}]\n"
            "runpy.run_module('sim', run_name='__main__', alter_sys=True)\n")
    return subprocess.run([sys.executable, "-c", code], cwd=cwd, capture_output=True, text=True,
                          env={**os.environ, "PYTHONPATH": str(ROOT)})


def test_bench_says_which_extra_to_install() -> None:
    run = balance_without_extras("bench", "--scale", "0.02", "--repeats", "1")
    assert run.returncode == 0, run.stderr
    for title in ("Kamakura", "Sakura"):
        block = run.stdout.split(f"{title} through other libraries' APIs")[1]
        assert "random, OpenSpiel API" in block and "pip install -e '.[openspiel]'" in block
        assert "random, PettingZoo AEC" in block and "pip install -e '.[pettingzoo]'" in block
    assert "OpenSpiel MCTSBot: not measured (install the `openspiel` extra)" in run.stdout


def test_a_run_needs_no_extra(tmp_path: Path) -> None:
    out = tmp_path / "run"
    run = balance_without_extras("simulate", str(ROOT / "configs" / "sakura" / "base.toml"), "--players", "4",
                                 "--games", "40", "--out", str(out), "--quiet")
    assert run.returncode == 0, run.stderr
    assert (out / "manifest.json").is_file()
