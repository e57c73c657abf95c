"""The page kit of every report (`balance report`, the sweep, tune and ladder reports): a `Section` of
notes, tables and charts, the number formats (`pct`, `interval`, `p_value`), the helpers that lay several
runs side by side (`scope`, `fair_share`, `side_by_side`, `stack`, `wide`), the tie-break section every
game shares (`tie_section`, `rescoring_summary`) and the tables' formats (`format_table`, `per_run`), each
column shown by the kind the code that built its table declared (`declare`, KINDS). A run played until its
verdicts were decided loses its fixed-size intervals and tests (`leave_out_fixed_size`, `without_whiskers`;
analysis.adaptive_stop). analysis/report_page.py writes the page.

It imports no report module and nothing that reads the registry: the game packages' report sections,
which the registry refers to, import it.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass, field
from typing import Any

import pandas as pd

from analysis import charts
from analysis.adaptive_stop import adaptive_labels, adaptive_note, unless_adaptive
from analysis.figures import bounds, figure

# ---- column kinds: what a table's column holds, declared by the code that builds the table -------------
SHARE = "share"  # a proportion in [0, 1] (a win rate, a claim rate): "12.3%"
DIFFERENCE = "difference"  # a difference or deviation of shares, in percentage points: "-1.2 pp"
COUNT = "count"  # games, wins (win shares summed, so 1/k of a tie): "13,110"
NUMBER = "number"  # a score, points, a length, a statistic: 3 significant digits
MEAN = "mean"  # a mean game length beside others, to one decimal (34.0 beside 28.1, never "34")
P_VALUE = "p-value"
TEST = "test"  # a test's yes/no: "significant", "differs"
TEXT = "text"  # a label, shown as it is
#: a fixed-size 95% interval's bound, shown in its value's unit: SHARE_BOUND, DIFFERENCE_BOUND, NUMBER_BOUND
BOUND = " bound"
SHARE_BOUND, DIFFERENCE_BOUND, NUMBER_BOUND = SHARE + BOUND, DIFFERENCE + BOUND, NUMBER + BOUND
MEAN_BOUND = MEAN + BOUND
KINDS = (SHARE, DIFFERENCE, COUNT, NUMBER, MEAN, P_VALUE, TEST, TEXT, SHARE_BOUND, DIFFERENCE_BOUND,
         NUMBER_BOUND, MEAN_BOUND)


#: the headline questions in the order a report answers them (`Section.question`); other sections follow
QUESTIONS = ("verdicts", "seats", "ties", "components", "length", "skill")
#: a table with more rows than this is shown folded (its caption opens it); the CSV stays whole
FOLD_ROWS = 8


@dataclass
class Section:
    """One titled part of a report page: its notes (HTML), tables (also written as CSV) and charts (PNG).
    ``question``: which headline question it answers (QUESTIONS; "" for detail), which orders the page;
    ``anchor``: its id, which the verdicts link to (default: from the title); ``html``: blocks of HTML
    shown after the notes."""

    title: str
    notes: list[str] = field(default_factory=list)  # headline figures, each with its n and interval
    tables: list[tuple[str, str, pd.DataFrame]] = field(default_factory=list)  # (file name, caption, frame)
    charts: list[tuple[str, str, Any]] = field(default_factory=list)  # (file name, caption, figure)
    question: str = ""
    anchor: str = ""
    html: list[str] = field(default_factory=list)

    @property
    def id(self) -> str:
        return self.anchor or re.sub(r"[^a-z0-9]+", "-", self.title.lower()).strip("-")


def question_order(section: Section) -> int:
    """Where a section stands on the page: by its question, detail last."""
    return QUESTIONS.index(section.question) if section.question in QUESTIONS else len(QUESTIONS)


def scope(runs: dict[str, Any]) -> tuple[str | None, str]:
    """The chart series column (None for one run) and the "n = ... games" text for a game's runs."""
    total = sum(r.n_games for r in runs.values())
    many = len(runs) > 1
    return ("run" if many else None), f"n = {total:,} games" + (f" in {len(runs)} runs" if many else "")


def pct(x: float | None) -> str:
    """A share as a percentage with one decimal ("n/a" for None or NaN)."""
    return "n/a" if x is None or (isinstance(x, float) and math.isnan(x)) else f"{figure(100 * x)}%"


def interval(low: float, high: float) -> str:
    """An interval of shares: "[12.3%, 15.0%]", its bounds rounded outward (analysis.figures; a bound at 0%
    or 100% stays there)."""
    if any(x is None or (isinstance(x, float) and math.isnan(x)) for x in (low, high)):
        return f"[{pct(low)}, {pct(high)}]"
    shown = bounds(100 * low, 100 * high, keep_off=(), edges=(0.0, 100.0))
    return f"[{shown[0]}%, {shown[1]}%]"


def p_value(p: float) -> str:
    """A p-value to three significant digits ("p < 1e-300" below what a float tells apart from 0)."""
    return "p < 1e-300" if p < 1e-300 else f"p = {p:.3g}"


def fair_share(runs: dict[str, Any]) -> float | None:
    """1/players when every run has the same player count (else no single reference line is right)."""
    counts = {run.manifest.players for run in runs.values()}
    return 1 / counts.pop() if len(counts) == 1 else None


def side_by_side(tables: dict[str, pd.DataFrame], key: str | list[str], value_cols: list[str],
                 flat: bool = True, by: str = "run") -> pd.DataFrame:
    """Join one table per run (label -> DataFrame with the same columns) on `key`.

    One row per key value found in any run (an outer join: a seat or card one run lacks gets nulls there),
    sorted by key when the key values sort, else in order of first appearance. Columns: the key column(s),
    then for each run a block of `value_cols` (`by="value"` puts each value's runs next to each other
    instead). `flat=True` names them "<value> [<run>]"; `flat=False` gives MultiIndex columns (run, value),
    with the key columns as (key, ""). A value column a run lacks is null in its block. A key that occurs
    twice in one run's table is refused (ValueError), since the rows could not be matched."""
    if not tables:
        raise ValueError("side_by_side needs at least one table")
    if by not in ("run", "value"):
        raise ValueError(f"by must be 'run' or 'value', not {by!r}")
    keys = [key] if isinstance(key, str) else list(key)
    values = list(value_cols)
    labels = [str(label) for label in tables]
    if len(set(labels)) < len(labels):
        raise ValueError("run labels must be unique")
    parts = []
    for label, frame in zip(labels, tables.values(), strict=True):
        missing = [k for k in keys if k not in frame.columns]
        if missing:
            raise ValueError(f"run {label!r}: no key column {', '.join(missing)}")
        if frame.duplicated(keys).any():
            raise ValueError(f"run {label!r}: key {keys} is not unique")
        part = frame.reindex(columns=keys + values).set_index(keys)
        part.columns = pd.MultiIndex.from_product([[label], values], names=["run", "value"])
        parts.append(part)
    index = parts[0].index
    for part in parts[1:]:
        index = index.append(part.index[~part.index.isin(index)])
    try:
        index = index.sort_values()
    except TypeError:
        pass
    wide = pd.concat([part.reindex(index) for part in parts], axis=1)
    if by == "value":
        wide = wide[[(label, value) for value in values for label in labels]]
    wide = wide.reset_index()
    if flat:
        wide.columns = [run if not value and run in keys else f"{value} [{run}]"
                        for run, value in wide.columns]
    else:
        wide.columns = pd.MultiIndex.from_tuples(
            [(run, value) if run not in keys or value else (run, "") for run, value in wide.columns],
            names=["run", "value"])
    wide.attrs = {"kinds": kinds_of(tables.values())}
    return wide


def stack(frames: dict[str, pd.DataFrame]) -> pd.DataFrame:
    """One frame per run -> one frame with a `run` column first (the long form charts overlay)."""
    out = pd.concat([f.assign(run=label) for label, f in frames.items()], ignore_index=True)[
        ["run", *next(iter(frames.values())).columns]]
    out.attrs = {"kinds": {"run": TEXT, **kinds_of(frames.values())}}
    return out


def wide(frames: dict[str, pd.DataFrame], key: str | list[str]) -> pd.DataFrame:
    """One frame per run -> one row per key with one block of columns per run (single run: as is)."""
    if len(frames) == 1:
        return next(iter(frames.values()))
    first = next(iter(frames.values()))
    keys = [key] if isinstance(key, str) else key
    values = [c for c in first.columns if c not in keys]
    return side_by_side(frames, key, values)


#: the columns of a seat table (analysis.seats.seat_win_rates; a game that renames its mean score declares
#: that column itself)
SEAT_KINDS = {"seat": TEXT, "games": COUNT, "wins": COUNT, "win_rate": SHARE, "ci_low": SHARE_BOUND,
              "ci_high": SHARE_BOUND, "mean_score": NUMBER}
#: the columns of a tie-break re-scoring table (the games re-scored under each rule, by seat)
RESCORING_KINDS = {"rule": TEXT, "seat": TEXT, "games": COUNT, "wins": COUNT, "win_rate": SHARE,
                   "ci_low": SHARE_BOUND, "ci_high": SHARE_BOUND, "win_rate_change": DIFFERENCE,
                   "change_ci_low": DIFFERENCE_BOUND, "change_ci_high": DIFFERENCE_BOUND}


def seat_section(title: str, name: str, runs: dict[str, Any], *, seats: dict[str, pd.DataFrame],
                 notes: list[str], caption: str, chart_title: str, xlabel: str) -> Section:
    """The seat win-rate section every game's report opens with: its notes (each run's headline figures),
    a chart of win rate by seat with 95% intervals and the fair-share line (when the runs share a player
    count), and the table (one column block per run)."""
    series, _ = scope(runs)
    sec = Section(title, list(notes), question="seats", anchor=f"{name}-seats")
    bars = without_whiskers(stack(seats), runs, "win_rate", "ci_low", "ci_high")
    sec.charts.append((f"{name}_seat_win_rates", caption + whiskers_note(runs),
                       charts.grouped_bars(bars, "seat", "win_rate", "ci_low", "ci_high",
                                           series=series, title=chart_title, xlabel=xlabel,
                                           ylabel="win rate (%)", reference=fair_share(runs),
                                           reference_label="fair share")))
    sec.tables.append((f"{name}_seats", "Seat win rates",
                       wide({lab: declare(frame, SEAT_KINDS) for lab, frame in seats.items()}, "seat")))
    handicaps = {label: h for label, run in runs.items() if (h := run.handicap) is not None}
    if handicaps:
        unit = next(iter(handicaps.values())).attrs.get("unit", "points")  # the game's score unit
        kinds = {"seat": TEXT, f"handicap ({unit})": NUMBER, "handicap ci_low": NUMBER_BOUND,
                 "handicap ci_high": NUMBER_BOUND, "win rate then": SHARE,
                 "win rate then ci_low": SHARE_BOUND, "win rate then ci_high": SHARE_BOUND}
        frames = {label: declare(pd.DataFrame({
            "seat": h["seat"], f"handicap ({unit})": h["handicap_points"], "handicap ci_low": h["ci_low"],
            "handicap ci_high": h["ci_high"], "win rate then": h["share_at_handicap"],
            "win rate then ci_low": h["share_ci_low"], "win rate then ci_high": h["share_ci_high"]}), kinds)
            for label, h in handicaps.items()}
        caption = (f"Handicap in whole {unit} that brings each seat closest to the fair share: the whole "
                   "bonus added to (negative: the penalty taken from) the seat's final score whose win rate, "
                   "the games re-scored under the run's tie-break, lies closest to the fair share; 0 when no "
                   "whole bonus brings it closer than none (scores are whole, so the rate jumps at whole "
                   "bonuses and may pass the fair share or stop short of it), with the win rate it then has "
                   "and that rate's 95% interval over games; the handicap's 95% interval by test inversion: "
                   "the same search on the bounds of the re-scored rate's 95% interval at every bonus")
        sec.tables.append((f"{name}_seat_handicaps", caption, wide(frames, "seat")))
    return sec


def whiskers_note(runs: dict[str, Any]) -> str:
    """What a chart's caption adds when some runs' bars have no whiskers (`without_whiskers`)."""
    labels = sorted(adaptive_labels(runs))
    return (f"; no interval for {', '.join(labels)}: played until the verdicts were decided, so a fixed-size "
            "interval would overstate" if labels else "")


def seat_flags_text(tests: pd.DataFrame) -> str:
    """The seats whose win rate differs from the fair share, tested per seat and Holm-adjusted over the
    seats (analysis.seats.seat_tests), as a sentence for a run's note."""
    flagged = tests[tests["differs"]]
    which = ", ".join(f"{int(r.seat)} (Holm p = {r.p_holm:.2g})" for r in flagged.itertuples()) or "none"
    return (f"seats that differ from the fair share at 5% after Holm's adjustment over the {len(tests)} "
            f"seats (Holm's correction for testing several seats at once keeps the chance of any false flag "
            f"at 5%): {which}")


def length_chart(file: str, runs: dict[str, Any], unit: str, game_title: str, n_all: str) -> tuple:
    """The game-length histogram (a section's chart entry): games per length in `unit`, the histogram of
    the games table's length column in each run's tally (analysis.run_tally), one series per run."""
    return (file, f"Game length in {unit} ({n_all})",
            charts.histograms({lab: r.common["length"] for lab, r in runs.items()},
                              f"{game_title} game length ({n_all})", f"{unit} per game"))


TIE_KEYS = ("top_tied_rate", "top_tied_ci_low", "top_tied_ci_high", "decided_by_tiebreak_rate",
            "decided_by_tiebreak_ci_low", "decided_by_tiebreak_ci_high", "n")


def tie_section(title: str, name: str, runs: dict[str, Any], *, ties: dict[str, dict],
                rescored: dict[str, pd.DataFrame], tied_what: str, rule: str, n_all: str) -> Section:
    """How often the top is tied, how often the tie-break decided, and seat win rates re-scored from the
    logged scores under every tie-break rule: every game's report has this section.

    ``ties``: per run the `analysis.ties.tie_stats` dict; ``rescored``: per run the long table (rule, seat,
    win_rate, ci_low, ci_high) of the game's re-scoring; ``name``: the file-name prefix of its chart and
    table; ``tied_what`` and ``rule``: how the notes name the tie and the rule (its docs/rules.md number);
    ``n_all``: the `scope` text. The chart's title starts with the part of ``title`` before its colon."""
    sec = Section(title, question="ties", anchor=f"{name}-ties")
    for lab, run in runs.items():
        t = ties[lab]
        sec.notes.append(
            f"<b>{lab}</b>: {tied_what} tied in <b>{pct(t['top_tied_rate'])}</b> of games"
            + unless_adaptive(run, f" {interval(t['top_tied_ci_low'], t['top_tied_ci_high'])}")
            + f"; the tie-break ({rule}) decided the winner in <b>{pct(t['decided_by_tiebreak_rate'])}</b>"
            + unless_adaptive(run, " " + interval(t['decided_by_tiebreak_ci_low'],
                                                  t['decided_by_tiebreak_ci_high']))
            + f"; n = {run.n_games:,} games.")
    sec.notes.append(f"Re-scored from the logged final results under every tie-break rule ({rule}): the "
                     "difference between rules is what the rule is worth to each seat. The change against "
                     "the run's configured rule (win_rate_change) is paired, the same games re-scored, with "
                     "its 95% interval.")
    long = stack(rescored)
    long["series"] = (long["run"] + ": " if len(runs) > 1 else "") + long["rule"]
    game = title.split(":")[0]
    sec.charts.append((f"{name}_tiebreak_rescoring",
                       f"Seat win rates under each tie-break rule ({n_all})" + whiskers_note(runs),
                       charts.grouped_bars(without_whiskers(long, runs, "win_rate", "ci_low", "ci_high"),
                                           "seat", "win_rate", "ci_low", "ci_high", series="series",
                                           title=f"{game} win rate by seat and tie-break rule ({n_all})",
                                           xlabel="seat", ylabel="win rate (%)")))
    sec.tables.append((f"{name}_tiebreak_rescoring", "Seat win rates re-scored under each tie-break rule",
                       wide({k: declare(v.drop(columns=["wins"], errors="ignore"), RESCORING_KINDS)
                             for k, v in rescored.items()}, ["rule", "seat"])))
    return sec


def rescoring_summary(rescored: pd.DataFrame) -> dict[str, list[float]]:
    """Win rate per seat under each tie-break rule, for summary.json."""
    return {rule: grp.sort_values("seat")["win_rate"].tolist()
            for rule, grp in rescored.groupby("rule", sort=False)}


# ---- output --------------------------------------------------------------------------------------------
def declare(frame: pd.DataFrame, kinds: dict[str, str]) -> pd.DataFrame:
    """`frame` with the kinds of its columns declared (column name as the code that builds the table writes
    it -> one of KINDS), which is all `format_table` reads: a copy, carried in ``attrs["kinds"]`` (added
    to any declared before) through `side_by_side`, `wide` and `stack`, whose "<value> [<run label>]"
    columns take their value's kind."""
    unknown = sorted(set(kinds.values()) - set(KINDS))
    if unknown:
        raise ValueError(f"unknown column kind(s) {unknown}; one of {KINDS}")
    out = frame.copy()
    out.attrs["kinds"] = {**frame.attrs.get("kinds", {}), **kinds}
    return out


def kinds_of(frames: Any) -> dict[str, str]:
    """The column kinds declared on any of `frames` (`declare`), merged."""
    merged: dict[str, str] = {}
    for frame in frames:
        merged.update(frame.attrs.get("kinds", {}))
    return merged


def column_of(name: object, kinds: dict[str, str]) -> tuple[str | None, str | None]:
    """A column's declared value name and its run label: (name, None) for a column declared by its name,
    (value, label) for a side-by-side column "<value> [<run label>]" (the shortest declared prefix before
    " [", so a run label may hold brackets) or a nested one (run, value); (None, None) when undeclared."""
    if isinstance(name, tuple):  # side_by_side(flat=False): (run, value), or (key, "")
        run, value = str(name[0]), str(name[-1])
        return (value, run) if value in kinds else (run, None) if not value and run in kinds else (None, None)
    text = str(name)
    if text in kinds:
        return text, None
    if text.endswith("]"):
        at = text.find(" [")
        while at > 0:
            if text[:at] in kinds:
                return text[:at], text[at + 2:-1]
            at = text.find(" [", at + 1)
    return None, None


def column_kind(name: object, kinds: dict[str, str]) -> str | None:
    """The declared kind of a column (`column_of`), None when undeclared."""
    value, _ = column_of(name, kinds)
    return kinds[value] if value is not None else None


def is_fixed_size(kind: str | None) -> bool:
    """Whether a column of this kind is a fixed-size interval's bound or a test (a p-value, a flag)."""
    return kind is not None and (kind.endswith(BOUND) or kind in (P_VALUE, TEST))


# ---- runs played until decided (--until-decided, analysis.adaptive_stop) --------------------------------
def without_fixed_size(frame: pd.DataFrame, labels: set[str], every_run: bool) -> pd.DataFrame:
    """`frame` without the columns of a fixed-size interval or test (`is_fixed_size`, by the declared
    kinds) of the runs `labels` that stopped adaptively: in a side-by-side table their blocks' columns;
    in a one-run table (no run labels in it) all of them when `every_run` (that run is one of them)."""
    kinds = frame.attrs.get("kinds", {})
    drop = []
    for col in frame.columns:
        value, label = column_of(col, kinds)
        if value is not None and is_fixed_size(kinds[value]) and (label in labels if label else every_run):
            drop.append(col)
    return frame.drop(columns=drop) if drop else frame


def leave_out_fixed_size(sections: list[Section], runs: dict[str, Any]) -> None:
    """In the sections of `runs` (label -> run), leave out the fixed-size intervals and tests of the runs
    that stopped when their verdicts were decided: each table's such columns go, and a section that lost
    any says why (`adaptive_note`) first. The section builders leave them out of notes and charts."""
    labels = adaptive_labels(runs)
    if not labels:
        return
    for sec in sections:
        before = [frame.shape for _, _, frame in sec.tables]
        sec.tables = [(name, caption, without_fixed_size(frame, labels, labels == set(runs)))
                      for name, caption, frame in sec.tables]
        if before != [frame.shape for _, _, frame in sec.tables] and adaptive_note(labels) not in sec.notes:
            sec.notes.insert(0, adaptive_note(labels))


def without_whiskers(frame: pd.DataFrame, runs: dict[str, Any], value: str, low: str,
                     high: str) -> pd.DataFrame:
    """A chart's long frame (`stack`: a ``run`` column) with the interval of the runs that stopped
    adaptively collapsed onto the value: their bars are drawn without whiskers."""
    labels = adaptive_labels(runs)
    if not labels:
        return frame
    out = frame.copy()
    mine = out["run"].isin(labels)
    out.loc[mine, low] = out.loc[mine, value]
    out.loc[mine, high] = out.loc[mine, value]
    return out


def _number(v: float) -> str:
    """A float to 3 significant digits, with thousands separators instead of an exponent from 1,000 up."""
    if pd.isna(v):
        return ""
    v = float(v) + 0.0  # never "-0"
    return f"{v:,.0f}" if abs(v) >= 1000 else f"{v:.3g}"


def _mean(v: float) -> str:
    return "" if pd.isna(v) else f"{round(float(v), 1) + 0.0:,.1f}"  # never "-0.0"


def _count(v: float) -> str:
    """A count with thousands separators; a sum of win shares keeps one decimal when it is not whole."""
    if pd.isna(v):
        return ""
    return f"{float(v) + 0.0:,.0f}" if float(v).is_integer() else f"{round(float(v), 1) + 0.0:,.1f}"


def _share(v: float) -> str:
    return "" if pd.isna(v) else f"{figure(100 * v)}%"


def _difference(v: float) -> str:
    return "" if pd.isna(v) else f"{figure(100 * v)} pp"


def _p(v: float) -> str:
    return "" if pd.isna(v) else f"{v:.3g}"


def _text(v: Any) -> str:
    return "" if pd.isna(v) else str(v)


_FORMATS = {SHARE: _share, DIFFERENCE: _difference, COUNT: _count, NUMBER: _number, MEAN: _mean, P_VALUE: _p,
            TEXT: _text}


def format_table(frame: pd.DataFrame) -> pd.DataFrame:
    """A table as the page shows it, each column by its declared kind (`declare`) and never by its name:
    shares as percentages, differences of shares in pp, an interval's bounds in their value's unit, counts
    with thousands separators, p-values to 3 digits, tests and text as they are. An undeclared float
    column is a plain number (3 digits), an undeclared integer one a count. Flat column names."""
    kinds = frame.attrs.get("kinds", {})
    out = frame.copy()
    declared = [column_kind(col, kinds) for col in out.columns]
    if isinstance(out.columns, pd.MultiIndex):
        out.columns = [" ".join(str(c) for c in col if str(c)) for col in out.columns]
    for i, kind in enumerate(declared):
        column = out.iloc[:, i]
        numeric = pd.api.types.is_numeric_dtype(column) and not pd.api.types.is_bool_dtype(column)
        if kind is None:
            kind = NUMBER if pd.api.types.is_float_dtype(column) else COUNT if numeric else TEXT
        formatter = _FORMATS.get(kind.removesuffix(BOUND))
        if numeric and formatter is not None:
            out.isetitem(i, column.map(formatter))
    return out


_RUN_SUFFIX = re.compile(r"^(.*) \[(.+)\]$")
#: a side-by-side table with more columns than this is shown one run at a time (the CSV stays whole)
MAX_COLUMNS = 9


def per_run(frame: pd.DataFrame) -> list[tuple[str, pd.DataFrame]]:
    """A formatted table as the page shows it: whole, or, when it holds blocks of columns per run
    ("<value> [<run>]") and is too wide for the page, one table per run (the key columns repeated, the run
    label dropped from the headers). Returns (run label or "", table) pairs."""
    labels: dict[str, list[str]] = {}
    keys = []
    for col in frame.columns:
        m = _RUN_SUFFIX.match(str(col))
        if m:
            labels.setdefault(m.group(2), []).append(str(col))
        else:
            keys.append(col)
    if len(labels) < 2 or len(frame.columns) <= MAX_COLUMNS:
        return [("", frame)]
    return [(label, frame[keys + cols].rename(columns=lambda c: _RUN_SUFFIX.sub(r"\1", str(c))))
            for label, cols in labels.items()]


def human_header(name: object) -> str:
    """A column name as a reader reads it: words, not identifiers ("win_rate" -> "win rate", "ci_low" ->
    "95% low"); names already written for people are left as they are."""
    text = str(name)
    if " " in text and "_" not in text:
        return text
    text = re.sub(r"(^|[_ ])ci_(low|high)", lambda m: f"{m.group(1)}95% {m.group(2)}", text)
    return text.replace("_", " ")
