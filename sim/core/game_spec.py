"""What a game is, for the application: a `GameSpec` (its parameters, agents, vocabulary and the
references to its forward model and state), with the types it is made of. Each game declares one in its
package (sim/<game>/spec.py) through `engine_spec`, which makes every reference by one rule from the
engine package's conventional module names; the registry (sim/games.py) lists them. A reference
(`CodeRef`) imports its object on first use, so importing a spec loads no kernel. The engine knows nothing
above it: a game's report sections, tallies and component values are the analysis layer's
(analysis/game_analysis.py, keyed by the game's name).
"""

from __future__ import annotations

import dataclasses
import importlib
import importlib.util
import json
import os
import threading
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from sim.core.agent_types import AgentKind, agent_codes
from sim.core.config import load_rules_file

__all__ = ["AgentKind", "CodeRef", "DesignRule", "GameSpec", "ValuesStudy", "Vocabulary", "agent_codes",
           "engine_spec", "validated"]

#: the rules validated in this process: (validator, config as canonical JSON, players) -> rules, the newest
#: VALIDATED_KEPT of them (`validated`)
_VALIDATED: dict[tuple[Any, ...], Any] = {}
_VALIDATED_LOCK = threading.Lock()
VALIDATED_KEPT = 64


def validated(validator: Callable[..., Any], config: dict, players: int, source: str) -> Any:
    """`validator(config, players, source)` (a game's `rules_from_mapping`), run once per config and player
    count in a process: a mapping equal to one validated before (compared as canonical JSON, so a run's
    manifest snapshot is the same config as the file it was merged from) gets those rules again, naming
    `source` as their own (frozen rules with a `source` field). Validation is a pure function of the mapping
    and the count, so the rules cannot go stale; a refusal is not kept, so each names its own source, and a
    mapping that JSON cannot hold is validated every time."""
    try:
        key = (validator, json.dumps(config, sort_keys=True), type(players), players)
        hash(key)
    except (TypeError, ValueError, RecursionError):
        return validator(config, players, source)
    with _VALIDATED_LOCK:
        rules = _VALIDATED.get(key)
    if rules is None:
        rules = validator(config, players, source)
        with _VALIDATED_LOCK:
            _VALIDATED[key] = rules
            while len(_VALIDATED) > VALIDATED_KEPT:
                del _VALIDATED[next(iter(_VALIDATED))]
    if dataclasses.is_dataclass(rules) and getattr(rules, "source", source) != source:
        rules = dataclasses.replace(rules, source=source)
    return rules


@dataclass(frozen=True)
class CodeRef:
    """A reference to an object of a game's code: `name` in `module`, imported when called."""

    module: str
    name: str

    def __call__(self) -> Any:
        return getattr(importlib.import_module(self.module), self.name)



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

    run_ref: CodeRef                    # (rules, seeds, seating, params, positions, first_game=) -> arrays
    table_ref: CodeRef                  # (first game, arrays) -> the values table of a chunk
    components_ref: CodeRef             # rules -> one dict per component: `component` label and attributes
    positions: tuple[int, ...]      # the positions measured by default (turns or rounds played; 0: start)
    games: int                      # base games by default (each plays components x arms games)
    groups: tuple[str, ...] = ()    # component attributes the report also aggregates by
    #: component attributes that make a kind, for a tune's cap on what any kind is worth (components with
    #: equal values pooled, sim/design/component_balance.py); empty: each component is a kind of its own
    kinds: tuple[str, ...] = ()
    #: players-table columns a re-scoring of the seats' scores needs besides the score (the analysis
    #: layer's `GameAnalysis.win_shares`), by the name it takes them
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

    def columns_in(self, available: Any) -> dict[str, str]:
        """`player_columns` (players-table column -> the name the re-scoring takes it by) that a table
        has: logs written before a column existed (a game's newer re-scoring column) still re-score under the
        rules that do not need it."""
        return {k: v for k, v in self.player_columns if k in available}


@dataclass(frozen=True)
class DesignRule:
    """A rule of a game's design that a search of its components keeps unless the designer turns it off
    (the workbench's fair alternatives), as a tune file's `[[constraints]]` table says it (docs/howto/
    tune.md): a `sum`, `count` or `nondecreasing` over the key pattern `keys`. Two additions: `each` names
    what one key of the pattern's table wildcard `*` is ("colour"), and the rule is then one constraint for
    each such key (`by` matched to it: "within each colour"); `within` makes a sum's bounds the draft's own
    total plus or minus it. A rule applies where a search touches it: it runs over a searched value."""

    name: str                     # how a request names it ("rising")
    words: str                    # as the page says it ("{each}": the keys kept; "{low}", "{high}")
    kind: str                     # "sum", "count" or "nondecreasing"
    keys: str                     # the dotted key pattern it runs over ("chits.*[*].points")
    by: str = ""                  # nondecreasing: the values that rank the keys ("chits.*[*].icons")
    each: str = ""                # what one key of the table wildcard is: one constraint per key
    value: Any = None             # count: the value counted (a list: any of them)
    low: float | None = None      # sum, count: the bounds
    high: float | None = None
    within: float | None = None   # sum: the draft's own total plus or minus this, instead of low and high


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
    rules_ref: CodeRef                               # (merged config, players, source) -> validated rules
    batch_ref: CodeRef                               # run_batch(rules, seeds, seating, params) -> arrays
    #   (and play_stream=, the agents' stream, and where the game draws after its setup draw_stream=)
    tables_ref: CodeRef                              # (first game, seeds, seating, batch, rules) -> tables
    game_ref: CodeRef                                # the readable API class (sim.core.game_face.KernelGame)
    policies_ref: CodeRef                            # agent name -> readable-API policy class
    terminal_ref: CodeRef                            # the `balance play` view of a position
    bench_ref: CodeRef | None = None                 # .figures(rules, scale, repeats, rate), .lines(figures)
    run_label_words: Callable[[dict, int], str] | None = None  # (config rules table, players) -> label words
    values: ValuesStudy | None = None            # `balance values`: causal worth by paired intervention
    #: `balance train`: (rules, seeds, seating, params) -> the expert's training positions: `features`
    #: (rows, features), `gained` (what the seat went on to score from there), `seat`, `game`
    training_ref: CodeRef | None = None
    #: the game through other libraries' APIs, each an optional extra's adapter taking `players=`: a pyspiel
    #: game (sim/<game>/openspiel_game.py) and a PettingZoo AEC environment (sim/<game>/pettingzoo_env.py),
    #: timed by `balance bench` (sim/core/interop_bench.py) when the extra is installed
    openspiel_ref: CodeRef | None = None
    pettingzoo_ref: CodeRef | None = None
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
    #: the rules of the game's design a search of its components keeps by default (the workbench's fair
    #: alternatives; a designer may turn each off): what the shipped tune files' constraints say
    design_rules: tuple[DesignRule, ...] = ()

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
    def bench(self) -> Callable[..., dict] | None:
        return self.bench_ref() if self.bench_ref else None

    @property
    def training_positions(self) -> Callable[..., dict] | None:
        return self.training_ref() if self.training_ref else None

    def run_label(self, config: dict, players: int) -> str:
        return self.run_label_words(config, players) if self.run_label_words else ""

    # ---- rules ----------------------------------------------------------------------------------------
    def rules(self, config: dict, players: int, source: str) -> Any:
        """The game's own validation of an already-merged config for `players` (ConfigError if bad), run
        once per config and player count in a process (`validated`)."""
        return validated(self.rules_from_mapping, config, players, source)

    def load_rules(self, path: str | os.PathLike[str] | None, players: int,
                   overrides: dict[str, Any] | None = None) -> Any:
        """A config file's rules (default: the base config), `overrides` over its ``[rules]``
        (`load_rules_file`), validated once per config in a process."""
        return load_rules_file(self.rules, path, self.default_config, players, overrides)

    def default_rules(self, players: int) -> Any:
        """The rules of record (docs/rules.md defaults), from the repository's base config."""
        return self.load_rules(None, players)

    def agent_codes(self) -> dict[str, int]:
        return agent_codes(self.agents)


def _ref_if_there(package: str, module: str, name: str) -> CodeRef | None:
    """A reference to an optional module's object: None when the game has no such module."""
    found = importlib.util.find_spec(f"{package}.{module}")
    return CodeRef(f"{package}.{module}", name) if found is not None else None


def engine_spec(package: str, game_class: str, values: dict[str, Any] | None = None,
                **data: Any) -> GameSpec:
    """A game's spec: its references made from its engine package's conventional modules (docs/design/
    layout.md, "Adding a game"), its `data` (name, player counts, vocabulary, agents, ...) as given, and
    its `values` study's data when it prices components (`balance values`, sim/<game>/interventions.py)."""
    def ref(module: str, name: str) -> CodeRef:
        return CodeRef(f"{package}.{module}", name)

    study = None if values is None else ValuesStudy(
        run_ref=ref("interventions", "run_values"), table_ref=ref("interventions", "values_table"),
        components_ref=ref("interventions", "components"), **values)
    return GameSpec(rules_ref=ref("params", "rules_from_mapping"), batch_ref=ref("batch", "run_batch"),
                    tables_ref=ref("tables", "run_tables"), game_ref=ref("game", game_class),
                    policies_ref=ref("policies", "POLICIES"), terminal_ref=ref("terminal", "VIEW"),
                    bench_ref=_ref_if_there(package, "bench", "BENCH"),
                    training_ref=_ref_if_there(package, "training", "positions"),
                    openspiel_ref=_ref_if_there(package, "openspiel_game", "load"),
                    pettingzoo_ref=_ref_if_there(package, "pettingzoo_env", "env"), values=study, **data)
