"""What a game is, for the application: a `GameSpec` (its parameters, agents, vocabulary and the
references to its forward model, state and reports), with the types it is made of. Each game declares one
in its package (sim/<game>/spec.py); the registry (sim/games.py) lists them. References are functions
of the spec's module that import the object they return on first use, so importing a spec loads no kernels
and a reader (or a linter) follows each reference to its code.
"""

from __future__ import annotations

import ast
import inspect
import os
import textwrap
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from sim.agent_types import AgentKind, agent_codes

__all__ = ["AgentKind", "GameSpec", "Ref", "ValuesStudy", "Vocabulary", "agent_codes",
           "imported_module"]

#: a reference to a game's code: a function that imports the object on first use and returns it
Ref = Callable[[], Any]


def imported_module(ref: Ref) -> str:
    """The module a reference imports its object from, read from its source without importing it."""
    tree = ast.parse(textwrap.dedent(inspect.getsource(ref)))
    return next(node.module for node in ast.walk(tree) if isinstance(node, ast.ImportFrom) and node.module)


@dataclass(frozen=True)
class Vocabulary:
    """How a game's logs and reports name things."""

    title: str                      # the game's name as printed
    length: str                     # the games table's length column: "turns" or "rounds"
    score: str                      # what a player's score counts: "score", "tokens"
    batch_scores: str               # run_batch's array of final scores
    components: str                 # what a designer prices: "chits", "cards"
    study_means: tuple[tuple[str, str], ...] = ()  # (run_batch key, label) means `balance study` prints
    tie_rule: str = ""              # the rules' numbers of the tie-break, as reports cite them ("R-9")


@dataclass(frozen=True)
class ValuesStudy:
    """How `balance values` prices a game's components by paired intervention games
    (sim/<game>/interventions.py)."""

    run_ref: Ref                    # (rules, seeds, seating, params, positions, first_game=) -> arrays
    table_ref: Ref                  # (first game, arrays) -> the values table of a chunk
    components_ref: Ref             # rules -> one dict per component: `component` label and attributes
    positions: tuple[int, ...]      # the positions measured by default (turns or rounds played; 0: start)
    games: int                      # base games by default (each plays components x arms games)
    groups: tuple[str, ...] = ()    # component attributes the report also aggregates by
    #: component attributes that make a kind, for a tune's cap on what any kind is worth (components with
    #: equal values pooled, sim/design/component_balance.py); empty: each component is a kind of its own
    kinds: tuple[str, ...] = ()
    #: analysis: (scores (games, seats), game-specific columns, tie-break rule) -> win shares, to re-score
    #: games with a bonus (point equivalents, seat handicaps)
    shares_ref: Ref | None = None
    #: players-table columns the re-scoring needs besides the score, by the name `shares` takes them
    player_columns: tuple[tuple[str, str], ...] = ()
    max_position: int = 0           # positions past this are refused
    score_unit: str = "points"      # what a point equivalent counts

    @property
    def run(self) -> Callable[..., dict]:
        return self.run_ref()

    @property
    def table(self) -> Callable[..., Any]:
        return self.table_ref()

    @property
    def components(self) -> Callable[..., list[dict]]:
        return self.components_ref()

    @property
    def shares(self) -> Callable[..., Any] | None:
        return self.shares_ref() if self.shares_ref else None

    def columns_in(self, available: Any) -> dict[str, str]:
        """`player_columns` (players-table column -> the name `shares` takes it by) that a table has: logs
        written before a column existed (a game's newer re-scoring column) still re-score under the rules that
        do not need it."""
        return {k: v for k, v in self.player_columns if k in available}


@dataclass(frozen=True)
class GameSpec:
    """A game: its parameters, forward model and state, as references that import their code on first use.

    The `ref` properties below call them. Kernels are loaded only by what plays games (run_batch, the
    readable API, policies), never by validation, so the runner's parent process can start its workers
    before it loads any kernel.
    """

    name: str
    min_players: int
    max_players: int
    default_config: Path
    vocabulary: Vocabulary
    tie_breaks: tuple[str, ...]                  # the tie-break rules, in the order reports show them
    agents: dict[str, AgentKind]
    rules_ref: Ref                               # (merged config, players, source) -> validated rules
    batch_ref: Ref                               # run_batch(rules, seeds, seating, params) -> arrays
    tables_ref: Ref                              # (first game, seeds, seating, batch, rules) -> tables
    game_ref: Ref                                # the readable API class (sim.game_face.KernelGame)
    policies_ref: Ref                            # agent name -> readable-API policy class
    terminal_ref: Ref                            # the `balance play` view of a position
    report_ref: Ref                              # runs -> (report sections, per-run summaries)
    bench_ref: Ref | None = None                 # .figures(rules, scale, repeats, rate), .lines(figures)
    #: (games, players, events, manifest) of one chunk -> the game's mergeable report tally (analysis.tally)
    report_tally_ref: Ref | None = None
    #: (the game's half of a run's merged report tally, config) -> each component's worth
    tally_values_ref: Ref | None = None
    run_label_words: Callable[[dict, int], str] | None = None  # (config rules table, players) -> label words
    values: ValuesStudy | None = None            # `balance values`: causal worth by paired intervention
    #: `balance train`: (rules, seeds, seating, params) -> the expert's training positions: `features`
    #: (rows, features), `gained` (what the seat went on to score from there), `seat`, `game`
    training_ref: Ref | None = None
    bench_players: int = 3
    #: the `[rules]` keys where docs/rules.md names another plausible reading of the originals (R-9/R-20,
    #: R-14, R-21..R-23), each with the player counts it applies to (None: all): a report's run list says
    #: how each run read them (analysis.readings)
    readings: tuple[tuple[str, tuple[int, ...] | None], ...] = ()
    #: (dotted config key, what it is): the components the originals do not print, whose default values
    #: are reconstructions; a report on a run that keeps them says so at the top (analysis.readings)
    reconstructed: tuple[tuple[str, str], ...] = ()
    #: the player counts the original rules describe (None: every count the game allows)
    described_players: tuple[int, ...] | None = None
    #: (dotted key, "[*]" for any element, the strings it takes): the config's keys with a fixed set of
    #: values, offered as a choice where a config is edited (the workbench); the validator still decides
    choices: tuple[tuple[str, tuple[str, ...]], ...] = ()
    #: (end_reason label, what it is): games the engine stopped at its safety limit, not by the rules (a
    #: deck that cannot progress); `balance simulate` and the report count them (None: the game has none)
    limit_end: tuple[str, str] | None = None
    #: (players, dotted key, its values): a rule that exists at that player count only and changes the
    #: game, so that count is played once per value where every count is played (`balance sheet`)
    player_variants: tuple[tuple[int, str, tuple[str, ...]], ...] = ()

    # ---- references -----------------------------------------------------------------------------------
    @property
    def rules_from_mapping(self) -> Callable[..., Any]:
        return self.rules_ref()

    @property
    def run_batch(self) -> Callable[..., dict]:
        return self.batch_ref()

    @property
    def tables(self) -> Callable[..., dict]:
        return self.tables_ref()

    @property
    def game_class(self) -> type:
        return self.game_ref()

    @property
    def policies(self) -> dict[str, type]:
        return self.policies_ref()

    @property
    def terminal(self) -> Any:
        return self.terminal_ref()

    @property
    def report_sections(self) -> Callable[..., tuple[list, list]]:
        return self.report_ref()

    @property
    def report_tally(self) -> Callable[..., dict] | None:
        return self.report_tally_ref() if self.report_tally_ref else None

    @property
    def tally_values(self) -> Callable[..., Any] | None:
        return self.tally_values_ref() if self.tally_values_ref else None

    @property
    def bench(self) -> Callable[..., dict] | None:
        return self.bench_ref() if self.bench_ref else None

    @property
    def training_positions(self) -> Callable[..., dict] | None:
        return self.training_ref() if self.training_ref else None

    def run_label(self, config: dict, players: int) -> str:
        return self.run_label_words(config, players) if self.run_label_words else ""

    # ---- rules ----------------------------------------------------------------------------------------
    def rules(self, config: dict, players: int, source: str) -> Any:
        """The game's own validation of an already-merged config for `players` (ConfigError if bad)."""
        return self.rules_from_mapping(config, players, source)

    def load_rules(self, path: str | os.PathLike[str] | None, players: int) -> Any:
        """Load a config file (resolving `extends`; default: the base config) and validate it."""
        from sim.config import load_toml

        path = self.default_config if path is None else path
        merged, _ = load_toml(path)
        return self.rules(merged, players, os.fspath(path))

    def default_rules(self, players: int) -> Any:
        """The rules of record (docs/rules.md defaults), from the repository's base config."""
        return self.load_rules(None, players)

    def agent_codes(self) -> dict[str, int]:
        return agent_codes(self.agents)
