"""The first run explains itself: with numba's cache cold the commands announce the
one-time compilation instead of sitting at 0%; with it warm they say nothing. And the cache follows every
kernel source (sim/core/numba_cache.py): numba checks a cached kernel against its own file only, so a
kernel whose callee in another file was edited must not run the old compiled callee; and only those: editing
the config validation or the registry compiles nothing."""

from __future__ import annotations

import ast
import os
import subprocess
import sys
import textwrap
import types
from pathlib import Path

import pytest

from sim import games
from sim.app import kernel_cache
from sim.core import numba_cache


@pytest.fixture
def fake_batch(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    source = tmp_path / "pkg" / "batch.py"
    source.parent.mkdir()
    source.write_text("")
    monkeypatch.setattr(kernel_cache.importlib.util, "find_spec",
                        lambda name: types.SimpleNamespace(origin=str(source)))
    monkeypatch.setenv("NUMBA_CACHE_DIR", str(tmp_path / "cache"))
    return source


def test_a_cold_cache_is_announced_once_warm_it_is_not(fake_batch: Path) -> None:
    said: list[str] = []
    assert kernel_cache.announce_compiling(games.spec("kamakura"), said.append) is True
    assert said == ["compiling the kamakura kernels into numba's cache, once (about a minute on 2 cores); "
                    "later runs start at once"]
    folder = numba_cache.cache_dir() / "pkg_0123abcd"  # numba's subfolder: the source folder's name, a hash
    folder.mkdir(parents=True)
    (folder / "batch.play_batch-134.py311.nbi").write_bytes(b"")
    assert kernel_cache.announce_compiling(games.spec("kamakura"), said.append) is False and len(said) == 1


def test_the_cache_of_other_sources_is_cold(fake_batch: Path) -> None:
    folder = fake_batch.parent.parent / "cache" / f"{numba_cache.PREFIX}0000000000000000" / "pkg_0123abcd"
    folder.mkdir(parents=True)
    (folder / "batch.play_batch-134.py311.nbi").write_bytes(b"")
    # compiled from sources as they were before an edit
    assert not kernel_cache.cache_is_warm(games.spec("sakura"))


def _package(root: Path, files: dict[str, str]) -> Path:
    package = root / "pkg"
    package.mkdir(exist_ok=True)
    for name, text in files.items():
        (package / name).write_text(textwrap.dedent(text))
    return package


def test_the_digest_follows_the_kernels_sources_and_nothing_else(tmp_path: Path) -> None:
    package = _package(tmp_path, {"__init__.py": "", "a.py": "X = 1\n", "b.py": "Y = 1\n"})
    first = numba_cache.source_digest(package, ("a.py",))
    assert numba_cache.source_digest(package, ("a.py",)) == first
    (package / "b.py").write_text("Y = 2\n")  # not a kernel source: nothing compiles afresh
    assert numba_cache.source_digest(package, ("a.py",)) == first
    (package / "a.py").write_text("X = 2\n")
    second = numba_cache.source_digest(package, ("a.py",))
    assert second != first
    assert numba_cache.source_digest(package, ("a.py", "b.py")) not in (first, second)


def _top_level_imports(path: Path, modules: dict[str, Path]) -> set[str]:
    """The project modules a file imports at its top (not inside functions, not under TYPE_CHECKING)."""
    found = set()
    for node in ast.parse(path.read_text()).body:
        if isinstance(node, ast.ImportFrom) and node.module:
            found |= {node.module} | {f"{node.module}.{alias.name}" for alias in node.names}
        elif isinstance(node, ast.Import):
            found |= {alias.name for alias in node.names}
    return found & set(modules)


def _defines_a_kernel(path: Path) -> bool:
    return any(isinstance(node, ast.FunctionDef) and any("jit" in ast.unparse(d) for d in node.decorator_list)
               for node in ast.walk(ast.parse(path.read_text())))


def kernel_sources() -> set[str]:
    """The modules that define a kernel and every module they import at their top, transitively: what
    numba compiles, or freezes into compiled code as a global, as paths relative to sim/."""
    package = numba_cache.PACKAGE
    modules = {".".join(p.relative_to(package.parent).with_suffix("").parts).removesuffix(".__init__"): p
               for p in package.rglob("*.py") if "__pycache__" not in p.parts}
    todo = [name for name, path in modules.items() if _defines_a_kernel(path)]
    seen: set[str] = set()
    while todo:
        name = todo.pop()
        if name not in seen:
            seen.add(name)
            todo += _top_level_imports(modules[name], modules)
    return {modules[name].relative_to(package).as_posix() for name in seen}


def test_the_digest_covers_exactly_the_kernels_sources() -> None:
    found = numba_cache.kernel_sources()
    assert set(found) == kernel_sources()
    for edited in ("config.py", "games.py", "game_spec.py", "agent_spec.py", "kamakura/params.py",
                   "kamakura/spec.py", "sakura/params.py", "sakura/spec.py", "sakura/game.py",
                   "app/runner.py"):
        assert edited not in found, f"editing {edited} would recompile every kernel"


def test_the_base_is_the_users_folder_or_ours(tmp_path: Path) -> None:
    assert numba_cache.cache_base({}) == numba_cache.PACKAGE / "__pycache__" / "numba"
    assert numba_cache.cache_base({"NUMBA_CACHE_DIR": str(tmp_path)}) == tmp_path
    inherited = tmp_path / f"{numba_cache.PREFIX}abc"  # a worker process inherits our folder
    assert numba_cache.cache_base({"NUMBA_CACHE_DIR": str(inherited)}) == tmp_path
    assert numba_cache.cache_dir({"NUMBA_CACHE_DIR": str(inherited)}).parent == tmp_path


def test_prune_keeps_the_newest_folders_and_the_current_one(tmp_path: Path) -> None:
    folders = [tmp_path / f"{numba_cache.PREFIX}{i}" for i in range(5)]
    for age, folder in enumerate(folders):
        folder.mkdir()
        os.utime(folder, (1_000_000 + age, 1_000_000 + age))
    (tmp_path / "unrelated").mkdir()
    current = tmp_path / f"{numba_cache.PREFIX}new"
    removed = numba_cache.prune(tmp_path, current, keep=3)
    assert sorted(removed) == folders[:3]
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted(
        ["unrelated", folders[3].name, folders[4].name])


def test_sim_points_numba_at_the_current_sources_folder() -> None:
    out = subprocess.run([sys.executable, "-c", textwrap.dedent("""
        import numba  # imported before sim: sim still moves the cache
        import sim
        from numba.core import config
        from sim import games
        from sim.core import numba_cache
        print(config.CACHE_DIR == str(numba_cache.cache_dir()))
    """)], capture_output=True, text=True, check=True)
    assert out.stdout.split() == ["True"]


CALLER = """
    import os
    import sys
    from pathlib import Path
    from sim import games
    from sim.core import numba_cache
    package = Path(sys.argv[1])
    os.environ["NUMBA_CACHE_DIR"] = str(numba_cache.cache_dir({"NUMBA_CACHE_DIR": sys.argv[2]}, package,
                                                              ("callee.py", "caller.py")))
    sys.path.insert(0, str(package.parent))
    from pkg.caller import twice
    print(twice())
"""


def test_an_edited_callee_in_another_file_is_compiled_afresh(tmp_path: Path) -> None:
    """What numba alone gets wrong: the caller's file is unchanged, its callee's file is edited."""
    package = _package(tmp_path, {
        "__init__.py": "",
        "callee.py": """
            from numba import njit
            @njit(cache=True)
            def value():
                return 1
        """,
        "caller.py": """
            from numba import njit
            from pkg.callee import value
            @njit(cache=True)
            def twice():
                return 2 * value()
        """})
    script = tmp_path / "run.py"
    script.write_text(textwrap.dedent(CALLER))

    def run() -> str:
        return subprocess.run([sys.executable, str(script), str(package), str(tmp_path / "cache")],
                              capture_output=True, text=True, check=True).stdout.strip()

    assert run() == "2"
    assert run() == "2"  # from the cache
    (package / "callee.py").write_text((package / "callee.py").read_text().replace("return 1", "return 5"))
    assert run() == "10"
