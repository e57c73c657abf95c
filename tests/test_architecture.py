"""The shape of the house (docs/design/layout.md): no import circles in sim/, storage/ and analysis/, layers
that point one way, and no module outside a game's own packages names a game, except the registry.

The import graph counts every import: module-level, inside functions and under TYPE_CHECKING, `import a.b`
and `from a import b` (b a submodule or a name), and any import by string (`importlib.import_module("m")`,
a "module:attribute" reference). The registry (sim/games.py) hands out each game's spec through a function
that imports it, an ordinary function-level import. A spec's references (`CodeRef`s, made by one rule in
`sim.core.game_spec.engine_spec`) and the analysis entries `analysis.game_analysis` finds by a game's name are
read from the registered games themselves and added as edges. An edge from a module to its own parent
package is left out: Python imports the parent first whatever the child does.
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

from analysis.game_analysis import analysis_of
from sim import games
from sim.core.game_spec import CodeRef

ROOT = Path(__file__).resolve().parents[1]
PACKAGES = ("sim", "analysis", "storage")
#: an import by string: importlib.import_module("m"), or a "module:attribute" reference
STRING_IMPORT = re.compile(r"import_module\(\s*[\"']([\w.]+)[\"']"
                           r"|[\"']((?:sim|analysis|storage)(?:\.\w+)+):\w+[\"']")


def _modules() -> dict[str, Path]:
    out = {}
    for package in PACKAGES:
        for path in sorted((ROOT / package).rglob("*.py")):
            parts = list(path.relative_to(ROOT).with_suffix("").parts)
            if parts[-1] == "__init__":
                parts.pop()
            out[".".join(parts)] = path
    return out


def _target(name: str, modules: dict[str, Path]) -> str | None:
    """The module of ours an imported dotted name refers to (the longest known prefix), if any."""
    parts = name.split(".")
    for end in range(len(parts), 0, -1):
        candidate = ".".join(parts[:end])
        if candidate in modules:
            return candidate
    return None


def _registered_edges(name: str, modules: dict[str, Path]) -> set[str]:
    """The imports a module makes from names it is handed: a game's spec, of its `CodeRef`s' modules;
    `analysis.game_analysis`, of each game's `analysis/<game>/entry.py`."""
    found: set[str] = set()
    for game in games.names():
        if name == f"sim.{game}.spec":
            spec = games.spec(game)
            refs = [getattr(spec, field) for field in vars(spec) if field.endswith("_ref")]
            refs += [getattr(spec.values, field) for field in vars(spec.values) if field.endswith("_ref")] \
                if spec.values else []
            found |= {ref.module for ref in refs if isinstance(ref, CodeRef)}
        if name == "analysis.game_analysis":
            found.add(f"analysis.{game}.entry")
    return found & set(modules)


def import_graph() -> dict[str, set[str]]:
    modules = _modules()
    graph: dict[str, set[str]] = {name: set() for name in modules}
    for name, path in modules.items():
        graph[name] |= _registered_edges(name, modules)
        tree = ast.parse(path.read_text(), filename=str(path))
        package = name if path.name == "__init__.py" else name.rpartition(".")[0]
        for node in ast.walk(tree):
            targets: list[str] = []
            if isinstance(node, ast.Import):
                targets = [alias.name for alias in node.names]
            elif isinstance(node, ast.ImportFrom):
                base = node.module or ""
                if node.level:
                    anchor = package.split(".")[:len(package.split(".")) - node.level + 1]
                    base = ".".join([*anchor, base] if base else anchor)
                targets = [f"{base}.{alias.name}" for alias in node.names] + [base]
            for target in targets:
                found = _target(target, modules)
                if found and found != name and not name.startswith(found + "."):
                    graph[name].add(found)
        for match in STRING_IMPORT.finditer(path.read_text()):  # imports by string
            found = _target(match.group(1) or match.group(2), modules)
            if found and found != name:
                graph[name].add(found)
    return graph


def cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """Every strongly connected component of more than one module (Tarjan), each a circle."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []
    counter = [0]

    def visit(v: str) -> None:
        index[v] = low[v] = counter[0]
        counter[0] += 1
        stack.append(v)
        on_stack.add(v)
        for w in sorted(graph[v]):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            component = []
            while True:
                w = stack.pop()
                on_stack.discard(w)
                component.append(w)
                if w == v:
                    break
            if len(component) > 1:
                found.append(sorted(component))

    for v in sorted(graph):
        if v not in index:
            visit(v)
    return found


def test_no_import_circles_in_sim_storage_and_analysis():
    graph = import_graph()
    assert len(graph) > 60  # the walk found the packages
    assert cycles(graph) == []


def test_the_graph_walk_sees_function_level_imports_registry_references_and_strings():
    graph = import_graph()
    assert "sim.kamakura.spec" in graph["sim.games"]                 # a registry reference
    assert "sim.kamakura.batch" in graph["sim.kamakura.spec"]        # a spec's reference
    assert "sim.sakura.interventions" in graph["sim.sakura.spec"]   # its values study's
    assert "analysis.sakura.entry" in graph["analysis.game_analysis"]  # an analysis entry
    assert STRING_IMPORT.search('import_module("analysis.runs")').group(1) == "analysis.runs"
    assert STRING_IMPORT.search('ref = "sim.kamakura.batch:run_batch"').group(2) == "sim.kamakura.batch"


#: the layers' folders, top to bottom, as docs/design/layout.md's diagram draws them
DIAGRAM = re.compile(r"```text\n(.*?)```", re.S)


def documented_layers() -> list[str]:
    """The folders of layout.md's layer diagram, top to bottom, as dotted prefixes (`sim/<game>/` stands
    for every registered game's package)."""
    block = DIAGRAM.search((ROOT / "docs" / "design" / "layout.md").read_text()).group(1)
    folders = [line.split()[0] for line in block.splitlines() if line.strip() and line.strip() != "|"]
    return [folder.removesuffix("/").removesuffix(".py").replace("/", ".") for folder in folders]


def layer_of(module: str, layers: list[str]) -> int:
    """A module's layer: its index in `layers` counted from the bottom (0, the foundation). `sim` itself
    (sim/__init__.py, which sets numba's cache up) is the foundation's; a module in no drawn folder has
    none (ValueError), so a new folder must be drawn before it is used."""
    games_here = {f"sim.{name}" for name in games.names()}
    package = module.split(".")[0] if module.split(".")[0] != "sim" else ".".join(module.split(".")[:2])
    folder = module if module in layers else "sim.<game>" if package in games_here else package
    if module == "sim":
        folder = "sim.core"
    return len(layers) - 1 - layers.index(folder)


def test_every_import_points_down_the_documented_layers():
    """No module imports a layer above its own, counting imports inside functions, by string and by the
    registry's references; two layers of one rank (sim/app and sim/design) are still ordered as drawn."""
    layers = documented_layers()
    assert layers == ["sim.__main__", "sim.commands", "sim.workbench", "sim.design", "sim.app", "analysis",
                      "storage", "sim.games", "sim.<game>", "sim.core"]
    graph = import_graph()
    assert {name: layer_of(name, layers) for name in graph}  # every module sits in a drawn folder
    with pytest.raises(ValueError):
        layer_of("sim.newfolder.module", layers)  # a folder the diagram does not draw has no layer
    upward = [f"{name} -> {target}" for name, targets in graph.items() for target in sorted(targets)
              if layer_of(target, layers) > layer_of(name, layers)]
    assert any(name.startswith("sim.commands.") for name in graph)  # the walk found the command modules
    assert layer_of("sim.kamakura.kernels", layers) == 1 and layer_of("sim.core.config", layers) == 0
    assert layer_of("sim.games", layers) == 2 and layer_of("sim.commands.tune", layers) == 8
    assert upward == []


def test_the_engines_know_nothing_above_them():
    """The games' packages and sim's own modules (the kernels, their specs and what they read) sit beneath
    storage, the analysis and the application: they import none of them, not even inside a function."""
    graph = import_graph()
    above = ("storage", "analysis", "sim.app", "sim.design", "sim.workbench", "sim.commands")
    engines = [name for name in graph if name.startswith("sim") and name != "sim.__main__"
               and not name.startswith(above)]
    assert "sim.kamakura.expert" in engines and "sim.core.config" in engines and "sim.sakura.spec" in engines
    assert [f"{n} -> {t}" for n in engines for t in sorted(graph[n]) if t.startswith(above)] == []


def test_the_cycle_finder_finds_a_planted_circle():
    graph = {"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}
    assert cycles(graph) == [["a", "b", "c"]]


def _outside_game_packages() -> list[Path]:
    names = games.names()
    inside = [ROOT / "sim" / n for n in names] + [ROOT / "analysis" / n for n in names]
    registry = ROOT / "sim" / "games.py"
    return [path for package in PACKAGES for path in sorted((ROOT / package).rglob("*.py"))
            if path != registry and not any(folder in path.parents for folder in inside)]


def _example_lines(tree: ast.AST) -> set[int]:
    """The lines of a command's `examples(...)`: its --help's example command lines, which name games as
    a user types them."""
    return {n for node in ast.walk(tree) if isinstance(node, ast.Call)
            and getattr(node.func, "id", None) == "examples"
            for n in range(node.lineno, node.end_lineno + 1)}


def test_no_module_outside_the_game_packages_names_a_game():
    pattern = re.compile("|".join(games.names()), re.IGNORECASE)
    offenders = []
    for path in _outside_game_packages():
        text = path.read_text()
        examples = _example_lines(ast.parse(text))
        for number, line in enumerate(text.splitlines(), start=1):
            if pattern.search(line) and number not in examples:
                offenders.append(f"{path.relative_to(ROOT)}:{number}: {line.strip()}")
    assert offenders == []


def test_every_registered_game_has_its_packages():
    for name in games.names():
        assert (ROOT / "sim" / name / "spec.py").is_file()
        spec = games.spec(name)
        assert spec.name == name
        for ref in (spec.rules_ref, spec.batch_ref, spec.tables_ref, spec.game_ref, spec.policies_ref,
                    spec.terminal_ref):
            assert ref.module.startswith(f"sim.{name}."), ref
            assert ref() is not None
        entry = analysis_of(spec)
        assert entry.sections is not None and entry.tally is not None


def _njit(decorator: ast.expr) -> bool:
    target = decorator.func if isinstance(decorator, ast.Call) else decorator
    return getattr(target, "id", getattr(target, "attr", "")) == "njit"


def test_no_kernel_takes_more_than_ten_arguments():
    """Kernels take their data grouped (rules, outputs, trees as namedtuples), not as long argument lists."""
    kernels = []
    for path in sorted((ROOT / "sim").rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.FunctionDef) and any(_njit(d) for d in node.decorator_list):
                kernels.append((len(node.args.args), f"{path.relative_to(ROOT)}:{node.name}"))
    assert len(kernels) > 100  # the walk found the compiled code
    assert [k for k in kernels if k[0] > 10] == []


def test_module_names_do_not_collide_across_layers():
    """A module's name says which one it is: unique across the generic layers (sim/, storage/, sim.app,
    sim.design, analysis/); a module of sim.commands is named for its command, whose engine may carry the
    same name one layer down; a game's package repeats the names of the other game's (the same role per
    game) and only those generic names whose question it answers for its game (bench, ties)."""
    from sim.commands import COMMANDS

    games_folders = {ROOT / p / n for p in PACKAGES for n in games.names()}
    generic: dict[str, list[str]] = {}
    in_games: set[str] = set()
    for package in PACKAGES:
        for path in sorted((ROOT / package).rglob("*.py")):
            if path.name == "__init__.py" or path.parent.name == "commands":
                continue
            if path.parent in games_folders:
                in_games.add(path.stem)
            else:
                generic.setdefault(path.stem, []).append(str(path.relative_to(ROOT)))
    assert {name: paths for name, paths in generic.items() if len(paths) > 1} == {}
    assert in_games & set(generic) == {"bench", "ties"}
    helpers = {"options", "playing", "compile_kernels", "interrupt"}  # the dispatcher's, not commands
    commands = {p.stem for p in (ROOT / "sim" / "commands").glob("*.py") if p.stem != "__init__"}
    assert commands - helpers == set(COMMANDS)


def _python_code() -> list[tuple[Path, ast.AST, set[int]]]:
    """Each module of sim/, storage/ and analysis/ with the ids of the nodes inside numba kernels."""
    out = []
    for package in PACKAGES:
        for path in sorted((ROOT / package).rglob("*.py")):
            tree = ast.parse(path.read_text())
            kernel_nodes = {id(node) for fn in ast.walk(tree) if isinstance(fn, ast.FunctionDef)
                            and any(_njit(d) for d in fn.decorator_list) for node in ast.walk(fn)}
            out.append((path, tree, kernel_nodes))
    return out


def test_no_function_outside_the_kernels_is_over_80_lines():
    long = [f"{path.relative_to(ROOT)}:{node.lineno} {node.name} {node.end_lineno - node.lineno + 1}"
            for path, tree, kernel in _python_code() for node in ast.walk(tree)
            if isinstance(node, ast.FunctionDef) and id(node) not in kernel
            and node.end_lineno - node.lineno + 1 > 80]
    assert long == []


def test_no_call_outside_the_kernels_passes_more_than_five_positional_arguments():
    """Calls of a numba kernel are exempt: kernels take no keywords and at most ten arguments."""
    code = _python_code()
    kernels = {node.name for _, tree, _ in code for node in ast.walk(tree)
               if isinstance(node, ast.FunctionDef) and any(_njit(d) for d in node.decorator_list)}
    long = []
    for path, tree, kernel in code:
        for node in ast.walk(tree):
            if isinstance(node, ast.Call) and id(node) not in kernel and len(node.args) > 5:
                callee = node.func.func.args[0] if isinstance(node.func, ast.Call) and node.func.args \
                    else node.func  # delayed(f)(...) calls f
                if getattr(callee, "id", getattr(callee, "attr", None)) not in kernels:
                    long.append(f"{path.relative_to(ROOT)}:{node.lineno} {ast.unparse(node.func)}")
    assert long == []


def test_a_game_is_looked_up_by_name_only_where_its_name_comes_in():
    """Application code receives the game's spec, not its name: the registry's `spec(name)` is
    called only where a name enters, from the command line (sim/commands), a run's manifest
    (analysis.runs.spec_of, used by every loader) or a workspace file's `game` key (the workbench)."""
    lookup = re.compile(r"\b(games|registry)\.spec\(|from sim\.games import[^\n]*\bspec\b")
    allowed = {"analysis/runs.py", "sim/workbench/workspace.py"}
    found = set()
    for package in PACKAGES:
        for path in sorted((ROOT / package).rglob("*.py")):
            where = str(path.relative_to(ROOT))
            if lookup.search(path.read_text()) and not where.startswith("sim/commands/"):
                found.add(where)
    assert found == allowed


def function_level_imports(tree: ast.AST) -> set[str]:
    """The modules a module's syntax tree imports inside a function (`from m import x` names m)."""
    found: set[str] = set()
    for function in ast.walk(tree):
        if isinstance(function, (ast.FunctionDef, ast.AsyncFunctionDef)):
            for node in ast.walk(function):
                if isinstance(node, ast.ImportFrom):
                    found.add(node.module or "")
                elif isinstance(node, ast.Import):
                    found |= {alias.name for alias in node.names}
    return found


def listed_late_imports() -> dict[str, set[str]]:
    """layout.md's table of the imports allowed inside a function: file -> the modules it may import
    there."""
    text = (ROOT / "docs" / "design" / "layout.md").read_text()
    section = text.split("## Imports at the top", 1)[1].split("\n## ", 1)[0]
    listed: dict[str, set[str]] = {}
    for row in section.splitlines():
        cells = [cell.strip() for cell in row.strip().strip("|").split("|")]
        if len(cells) < 3 or not cells[0].startswith("`"):
            continue
        for file in re.findall(r"`([^`]+)`", cells[0]):
            listed.setdefault(file, set()).update(re.findall(r"`([^`]+)`", cells[1]))
    return listed


def test_imports_inside_functions_are_only_the_listed_ones():
    """Imports sit at a module's top; the few inside a function are the ones layout.md lists with the
    cost that keeps them there, and each listed one is still there."""
    found = {}
    for package in PACKAGES:
        for path in sorted((ROOT / package).rglob("*.py")):
            late = function_level_imports(ast.parse(path.read_text()))
            if late:
                found[str(path.relative_to(ROOT))] = late
    listed = listed_late_imports()
    assert len(listed) >= 5  # the table was read
    assert found == listed


def test_the_late_import_finder_sees_imports_in_functions_only():
    tree = ast.parse("import os\n\ndef f():\n    from a.b import c\n    import d\n\n"
                     "class K:\n    def m(self):\n        import e\n")
    assert function_level_imports(tree) == {"a.b", "d", "e"}
