"""The walk of `balance compare` from the command to its verdict sentence, measured (docs/design/notes.md,
"The compare walk"). One small compare is run in this process, in a fresh folder with --jobs 1 (every chunk
is played and tallied here), under instrumentation that counts:

- tallies: per run directory, how often its report tally was read (`analysis.run_tally.read_run_tally`),
  and how often one of its chunks' tallies was read or computed (`analysis.parts.chunk_stats`);
- validations: per config (its merged mapping) and player count, how often its game's validator ran (the
  game's `rules_from_mapping`, however it is reached: `GameSpec.rules` or imported by name);
- order: the moments the verdict sentences reached stdout, the report began to be built (the work of
  `analysis.run_report.build_report`, `_build`) and its page was written
  (`analysis.report_page.write_report`);
- the walk: every call of a project function (sim/, analysis/, storage/) on the main thread
  (sys.setprofile), judged by its layer (docs/design/layout.md) against its caller's. The layers from the
  top: commands, workbench, design, app, analysis, storage, engines, foundation. A call is *downhill* when
  its function's layer is its caller's or below it, *up* when above; a *return* is an up call into a layer
  still on the call stack beneath it (the walk went down and comes back: a callback). The registry
  (sim/games.py, sim/core/game_spec.py, each sim/<game>/spec.py) is a table of references, not a step: a call
  through it is judged by who called whom through it, and its own frames are left out. So are calls made
  while a module is imported, and frames of code outside the project (a library calling a function of
  ours counts as the project function that called the library).

Run from the repository root (numba compiles the kernels first in a fresh checkout):

    PYTHONPATH=. python scripts/compare_walk.py              # the figures in words
    PYTHONPATH=. python scripts/compare_walk.py --json       # as JSON (tests/test_compare_walk.py)
"""

from __future__ import annotations

import argparse
import contextlib
import hashlib
import io
import json
import sys
import tempfile
from collections.abc import Callable, Iterator
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

BASE = "configs/kamakura/base.toml"
VARIANT = "configs/kamakura/tie-shared.toml"
#: the compare measured: two configs of one game, few fast games, one job (all in this process)
SMALL = ["--players", "3", "--agents", "random", "--games", "200", "--jobs", "1", "--quiet"]
#: the layers from the top (docs/design/layout.md); a call is downhill when its rank is its caller's or more
LAYERS = ("commands", "workbench", "design", "app", "analysis", "storage", "engines", "foundation")
RANK = {name: i for i, name in enumerate(LAYERS)}
REGISTRY = "registry"


@dataclass
class Figures:
    """What one measured compare did (the module docstring says how each is counted)."""

    tallies: dict[str, int] = field(default_factory=dict)        # run folder -> read_run_tally calls
    chunk_tallies: dict[str, int] = field(default_factory=dict)  # run folder -> chunk tallies read
    validations: dict[str, int] = field(default_factory=dict)    # "config file, N players" -> validator calls
    events: list[str] = field(default_factory=list)              # "sentence", "report built", ... in order
    calls: int = 0                                               # project calls on the walk to the sentence
    layers: dict[str, int] = field(default_factory=dict)         # "caller -> callee" layer changes, counted
    up: dict[str, int] = field(default_factory=dict)             # "caller module -> callee module", counted
    returns: int = 0                                             # up calls into a layer still on the stack
    module_returns: dict[str, int] = field(default_factory=dict) # calls into a module still on the stack
    up_after: int = 0                                            # up calls after the sentence, to the end
    stdout: str = ""
    status: int = 0

    @property
    def up_calls(self) -> int:
        return sum(self.up.values())


def place(filename: str, games: tuple[str, ...]) -> tuple[str, str] | None:
    """(module, layer) of a source file of the project, None for any other code."""
    try:
        parts = Path(filename).resolve().relative_to(ROOT).with_suffix("").parts
    except ValueError:
        return None
    if not parts or parts[0] not in ("sim", "analysis", "storage"):
        return None
    module = ".".join(parts)
    if parts[0] in ("analysis", "storage"):
        return module, parts[0]
    if parts == ("sim", "__main__"):
        return module, "commands"
    if module in ("sim.games", "sim.core.game_spec"):  # the registry, and the specs' references it follows
        return module, REGISTRY
    if len(parts) == 2 or parts[1] == "core":
        return module, "foundation"
    if parts[1] in games:
        return module, REGISTRY if parts[-1] == "spec" else "engines"
    return module, parts[1] if parts[1] in RANK else "foundation"


class Walk:
    """The profile hook: each call of a project function on the main thread, judged against its caller."""

    def __init__(self, games: tuple[str, ...], figures: Figures) -> None:
        self.games, self.figures = games, figures
        self.places: dict[str, tuple[str, str] | None] = {}
        self.said = False  # the sentence reached stdout: what follows counts apart

    def _place(self, frame: Any) -> tuple[str, str] | None:
        name = frame.f_code.co_filename
        if name not in self.places:
            self.places[name] = place(name, self.games)
        return self.places[name]

    def _caller(self, frame: Any) -> tuple[Any, tuple[str, str]] | None:
        """The nearest project frame beneath `frame`, the registry's and libraries' skipped."""
        caller = frame.f_back
        while caller is not None:
            where = self._place(caller)
            if where is not None and where[1] != REGISTRY:
                return caller, where
            caller = caller.f_back
        return None

    def __call__(self, frame: Any, event: str, arg: Any) -> None:
        if event != "call":
            return
        where = self._place(frame)
        if where is None or where[1] == REGISTRY or frame.f_code.co_name == "<module>":
            return
        found = self._caller(frame)
        if found is None or found[0].f_code.co_name == "<module>":  # the root, or an import's own code
            return
        caller, (caller_module, caller_layer) = found
        module, layer = where
        f = self.figures
        if self.said:
            f.up_after += RANK[layer] < RANK[caller_layer]
            return
        f.calls += 1
        if layer != caller_layer:
            edge = f"{caller_layer} -> {layer}"
            f.layers[edge] = f.layers.get(edge, 0) + 1
        if module == caller_module:
            return
        beneath = self._stack(caller)
        edge = f"{caller_module} -> {module}"
        if module in beneath:
            f.module_returns[edge] = f.module_returns.get(edge, 0) + 1
        if RANK[layer] < RANK[caller_layer]:
            f.up[edge] = f.up.get(edge, 0) + 1
            f.returns += layer in beneath.values()

    def _stack(self, frame: Any) -> dict[str, str]:
        """module -> layer of the project frames from `frame` down to the root (the registry's too)."""
        out = {}
        while frame is not None:
            where = self._place(frame)
            if where is not None and where[1] != REGISTRY:
                out[where[0]] = where[1]
            frame = frame.f_back
        return out


class Stdout(io.StringIO):
    """stdout, kept; the first write holding a verdict sentence is an event."""

    def __init__(self, sentences: list[str], figures: Figures, walk: Walk) -> None:
        super().__init__()
        self.sentences, self.figures, self.walk = sentences, figures, walk

    def write(self, text: str) -> int:
        if not self.walk.said and any(s in text for s in self.sentences):
            self.walk.said = True
            self.figures.events.append("sentence")
        return super().write(text)


@contextlib.contextmanager
def replaced(original: Callable, wrapper: Callable) -> Iterator[None]:
    """`wrapper` in place of `original` in every loaded module of the project that holds it by name."""
    held = [(module, name) for module in list(sys.modules.values())
            if getattr(module, "__name__", "").partition(".")[0] in ("sim", "analysis", "storage")
            for name, value in list(vars(module).items()) if value is original]
    for module, name in held:
        setattr(module, name, wrapper)
    try:
        yield
    finally:
        for module, name in held:
            setattr(module, name, original)


def config_key(config: Any, players: int) -> str:
    digest = hashlib.sha256(json.dumps(config, sort_keys=True, default=str).encode()).hexdigest()[:12]
    return f"{digest}, {players} players"


def _counting(counts: dict[str, int], original: Callable, key: Callable[..., str]) -> Callable:
    def counted(*args: Any, **kwargs: Any) -> Any:
        name = key(*args, **kwargs)
        counts[name] = counts.get(name, 0) + 1
        return original(*args, **kwargs)
    return counted


def _event(figures: Figures, original: Callable, name: str, after: bool) -> Callable:
    def marked(*args: Any, **kwargs: Any) -> Any:
        if not after:
            figures.events.append(name)
        out = original(*args, **kwargs)
        if after:
            figures.events.append(name)
        return out
    return marked


def measure(argv: list[str]) -> Figures:
    """Run `balance` with `argv` (a compare) under the instrumentation; its figures."""
    import analysis.change_verdicts as change
    import analysis.parts as parts
    import analysis.report_page as page
    import analysis.run_report as run_report
    import analysis.run_tally as run_tally
    from analysis.game_analysis import analysis_of
    from sim import games
    from sim.commands import main

    figures = Figures()
    sentences: list[str] = []
    for spec in games.specs():  # import every validator and every module that may hold one by name
        spec.rules_from_mapping, analysis_of(spec)  # noqa: B018
    folder = {}

    def run_name(run_dir: Any, *args: Any, **kwargs: Any) -> str:
        path = Path(run_dir).resolve()
        return folder.setdefault(str(path), path.name)

    def judged(*args: Any, **kwargs: Any) -> Any:
        verdicts = change_verdicts(*args, **kwargs)
        sentences.extend(v.sentence for v in verdicts)
        return verdicts

    change_verdicts = change.change_verdicts
    walk = Walk(games.names(), figures)
    with contextlib.ExitStack() as stack:
        for spec in games.specs():
            validator = spec.rules_from_mapping
            stack.enter_context(replaced(validator, _counting(
                figures.validations, validator, lambda config, players, *_, **__: config_key(
                    config, players))))
        stack.enter_context(replaced(run_tally.read_run_tally, _counting(
            figures.tallies, run_tally.read_run_tally, run_name)))
        stack.enter_context(replaced(parts.chunk_stats, _counting(
            figures.chunk_tallies, parts.chunk_stats, run_name)))
        stack.enter_context(replaced(change.change_verdicts, judged))
        stack.enter_context(replaced(run_report._build, _event(  # every report's build, whatever the entry
            figures, run_report._build, "report built", after=False)))
        stack.enter_context(replaced(page.write_report, _event(
            figures, page.write_report, "report written", after=True)))
        out = Stdout(sentences, figures, walk)
        stack.enter_context(contextlib.redirect_stdout(out))
        sys.setprofile(walk)
        try:
            figures.status = main(argv)
        finally:
            sys.setprofile(None)
    figures.stdout = out.getvalue()
    figures.validations = _named_configs(figures.validations, argv)
    return figures


def _named_configs(counts: dict[str, int], argv: list[str]) -> dict[str, int]:
    """The validation counts keyed by config file where a file of `argv` merges to that config."""
    from sim.core.config import load_toml

    players = argv[argv.index("--players") + 1]
    names = {}
    for arg in argv:
        if arg.endswith(".toml"):
            names[config_key(load_toml(arg)[0], int(players))] = f"{arg}, {players} players"
    return {names.get(key, key): n for key, n in counts.items()}


def compare_argv(out: Path, base: str = BASE, variant: str = VARIANT) -> list[str]:
    return ["compare", base, variant, *SMALL, "--out", str(out)]


def words(f: Figures) -> str:
    first = {"sentence": "the verdict sentences printed", "report built": "the report built",
             "report written": "the report page written"}
    order = ", then ".join(first[e] for e in f.events)
    lines = [f"tallies of each run (read_run_tally): {f.tallies}",
             f"chunk tallies read or computed: {f.chunk_tallies}",
             f"validations per config and players: {f.validations} ({sum(f.validations.values())} in all)",
             f"order: {order}",
             f"to the sentence: {f.calls:,} project calls; layer changes {f.layers}",
             f"up calls to the sentence: {f.up_calls} ({f.returns} of them returns into a layer on the "
             "stack)",
             *(f"  {n} x {edge}" for edge, n in sorted(f.up.items())),
             f"up calls after the sentence: {f.up_after}",
             f"calls into a module still on the stack beneath another, to the sentence: "
             f"{sum(f.module_returns.values())}",
             *(f"  {n} x {edge}" for edge, n in sorted(f.module_returns.items())),
             f"exit status {f.status}"]
    return "\n".join(lines)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--json", action="store_true", help="the figures as JSON")
    parser.add_argument("--out", type=Path, help="the compare folder (default: a temporary one)")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as temp:
        figures = measure(compare_argv(args.out or Path(temp) / "compare"))
    if args.json:
        print(json.dumps({**asdict(figures), "up_calls": figures.up_calls}, indent=1))
    else:
        print(words(figures))
    return 0 if figures.status == 0 else 1


if __name__ == "__main__":
    sys.exit(main())
