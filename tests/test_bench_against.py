"""`balance bench --against REV` (sim/app/bench_against.py): the comparison of figures, the alternation, the
refusals, the worktree's clean-up, and the whole loop end to end on a toy checkout whose `python -m sim`
prints fixed figures (the real bench compiles for minutes)."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest

from sim.app import bench_against as ba
from sim.core.errors import ConfigError, RunFailed

FAKE_MAIN = """import json, os, sys
print("a line before the object")
print(json.dumps({**FIGURES, "repeats": 1, "kamakura_players": 3, "scale": sys.argv[-1],
                  "cache": os.environ.get("NUMBA_CACHE_DIR", ""), "path": os.environ["PYTHONPATH"],
                  "cwd": os.getcwd()}))
"""


def _git(root: Path, *args: str) -> str:
    return subprocess.run(["git", "-C", str(root), *args], check=True, capture_output=True,
                          text=True).stdout.strip()


def _commit(root: Path, figures: dict, message: str) -> None:
    (root / "sim").mkdir(exist_ok=True)
    (root / "sim" / "__init__.py").write_text("")
    (root / "sim" / "__main__.py").write_text(f"FIGURES = {figures!r}\n" + FAKE_MAIN)
    _git(root, "add", "-A")
    _git(root, "-c", "user.name=t", "-c", "user.email=t@t", "commit", "-q", "-m", message)


@pytest.fixture
def toy(tmp_path: Path) -> Path:
    """A checkout with two commits: the old prints x and z, the new (HEAD) x twice as fast and y."""
    root = tmp_path / "repo"
    root.mkdir()
    _git(root, "init", "-q")
    _commit(root, {"x_per_s": 10.0, "z_per_s": 5.0, "openspiel_per_s": None}, "old")
    _commit(root, {"x_per_s": 20.0, "y_per_s": 3.0, "x_over_y": 6.7}, "new")
    return root


def test_compare_figures_medians_ratio_and_the_keys_one_side_lacks() -> None:
    current = [{"a_per_s": 4.0, "b_per_s": 1.0, "repeats": 1, "k_players": 3, "n_games_per_repeat": {"x": 1}},
               {"a_per_s": 6.0, "b_per_s": 1.0, "repeats": 1, "k_players": 3},
               {"a_per_s": 5.0, "b_per_s": 1.0, "repeats": 1, "k_players": 3}]
    other = [{"a_per_s": 2.0, "c_per_s": 7.0, "flag": True, "machine": "x"},
             {"a_per_s": 3.0, "c_per_s": 7.0, "flag": True, "machine": "x"},
             {"a_per_s": 2.5, "c_per_s": 7.0, "flag": True, "machine": "x"}]
    result = ba.compare_figures(current, other)
    assert list(result["figures"]) == ["a_per_s"]
    row = result["figures"]["a_per_s"]
    assert (row["current"], row["other"], row["ratio"]) == (5.0, 2.5, 2.0)
    assert row["current_runs"] == [4.0, 6.0, 5.0] and row["other_runs"] == [2.0, 3.0, 2.5]
    assert row["paired_ratios"] == [2.0, 2.0, 2.0]
    assert result["only_current"] == ["b_per_s"] and result["only_other"] == ["c_per_s"]
    text = ba.format_against({"against": "d6cd0a5", "against_commit": "d6cd0a5" + "0" * 33,
                              "current_tree": "/x at abc", "scale": 0.2, "repeats": 3, **result})
    assert "a_per_s" in text and "2.000" in text and "2.00 to 2.00" in text
    assert "only in d6cd0a5 (not compared): c_per_s" in text
    assert "only in the current tree (not compared): b_per_s" in text


def test_the_seat_question_seconds_are_figures_and_its_settings_are_not() -> None:
    from sim.app.bench import seat_question

    keys = ba.figure_keys({**seat_question("sakura", 4, 3.0, 2), "sakura_mcts_iters_per_search": 200})
    assert keys == ["sakura_seat_question_seconds_one_core", "sakura_seat_question_seconds_all_cores"]


def test_the_ratios_within_a_repeat_show_the_noise() -> None:
    row = ba.compare_figures([{"a_per_s": 3.0}, {"a_per_s": 6.0}], [{"a_per_s": 2.0}, {"a_per_s": 3.0}])
    assert row["figures"]["a_per_s"]["paired_ratios"] == [1.5, 2.0]
    assert row["figures"]["a_per_s"]["ratio"] == 1.8  # 4.5 / 2.5: medians, not the mean of the pairs


def test_a_figure_missing_from_one_run_is_not_compared() -> None:
    result = ba.compare_figures([{"a_per_s": 1.0}, {}], [{"a_per_s": 1.0}, {"a_per_s": 2.0}])
    assert result["figures"] == {} and result["only_other"] == ["a_per_s"]


def test_alternate_flips_the_order_every_repeat() -> None:
    calls: list[str] = []
    current, other = ba.alternate(lambda: calls.append("c") or {"n": len(calls)},
                                  lambda: calls.append("o") or {"n": len(calls)}, 4)
    assert calls == ["o", "c", "c", "o", "o", "c", "c", "o"]
    assert [f["n"] for f in current] == [2, 3, 6, 7] and [f["n"] for f in other] == [1, 4, 5, 8]


def test_outside_a_checkout_and_an_unknown_revision_are_refused(tmp_path: Path, toy: Path) -> None:
    with pytest.raises(ConfigError, match="not in a git checkout"):
        ba.checkout_of(_bare(tmp_path))
    for rev in ("no-such-rev", "-h", "HEAD~9"):
        with pytest.raises(ConfigError, match="git does not know the revision"):
            ba.bench_against(rev, 0.1, 1, say=print, source=toy)
    assert _git(toy, "worktree", "list").count("\n") == 0  # nothing was added


def _bare(tmp_path: Path) -> Path:
    folder = tmp_path / "plain"
    folder.mkdir()
    if subprocess.run(["git", "-C", str(folder), "rev-parse"], capture_output=True).returncode == 0:
        pytest.skip("the temporary folder is inside a git checkout")
    return folder


def test_the_command_refuses_an_unknown_revision_in_one_line(capsys: pytest.CaptureFixture) -> None:
    from sim.commands import main

    if subprocess.run(["git", "-C", str(ba.SOURCE_ROOT), "rev-parse"], capture_output=True).returncode:
        pytest.skip("the toolkit is not in a git checkout here")
    before = _git(ba.SOURCE_ROOT, "worktree", "list")
    assert main(["bench", "--against", "no-such-revision-38"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "no-such-revision-38" in err
    assert _git(ba.SOURCE_ROOT, "worktree", "list") == before
    assert main(["bench", "--against", "HEAD", "--runner"]) == 2


def test_the_worktree_is_removed_on_an_interrupt(toy: Path) -> None:
    commit = ba.resolve(toy, "HEAD~1")
    with pytest.raises(KeyboardInterrupt), ba.temporary_worktree(toy, commit) as tree:
        (tree / "made-inside").write_text("x")
        assert "10.0" in (tree / "sim" / "__main__.py").read_text()
        raise KeyboardInterrupt
    assert not tree.exists() and not tree.parent.exists()
    assert _git(toy, "worktree", "list").count("\n") == 0


def test_a_failing_bench_is_reported_by_its_last_stderr_line(tmp_path: Path) -> None:
    (tmp_path / "sim").mkdir()
    (tmp_path / "sim" / "__init__.py").write_text("")
    (tmp_path / "sim" / "__main__.py").write_text("import sys\nprint('boom', file=sys.stderr)\nsys.exit(3)\n")
    with pytest.raises(RunFailed, match=r"exit 3\): boom"):
        ba.run_bench_once(tmp_path, ba.bench_env(tmp_path), 0.1, "toy")


def test_end_to_end_on_a_toy_checkout(toy: Path) -> None:
    said: list[str] = []
    result = ba.bench_against("HEAD~1", 0.25, 3, say=said.append, source=toy)
    assert list(result["figures"]) == ["x_per_s"] and result["figures"]["x_per_s"]["ratio"] == 2.0
    assert result["only_current"] == ["y_per_s", "x_over_y"] and result["only_other"] == ["z_per_s"]
    assert result["against_commit"] == _git(toy, "rev-parse", "HEAD~1")
    assert any("untimed" in line for line in said) and sum("repeat" in line for line in said) == 3
    assert _git(toy, "worktree", "list").count("\n") == 0  # the worktree is gone
    json.dumps(result)


def test_each_tree_runs_its_own_sources_and_the_other_its_own_cache(toy: Path) -> None:
    commit = ba.resolve(toy, "HEAD~1")
    with ba.temporary_worktree(toy, commit) as tree:
        theirs = ba.run_bench_once(tree, ba.bench_env(tree, cache=tree / ".numba-cache"), 0.5, "old")
    mine = ba.run_bench_once(toy, ba.bench_env(toy), 0.5, "new")
    assert theirs["x_per_s"] == 10.0 and theirs["path"] == str(tree) and theirs["cwd"] == str(tree)
    assert theirs["cache"] == str(tree / ".numba-cache") and theirs["scale"] == "0.5"
    assert mine["x_per_s"] == 20.0 and mine["path"] == str(toy)
