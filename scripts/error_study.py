"""The error study of docs/explanation/statistics.md ("The error study"): `--until-decided` replayed as the
tool plays it, on games whose truth is known, judged by the verdict functions themselves.

Each replay is one run: the first round of FIRST_GAMES, then each next round to `next_target` of the
verdicts, every look's tallies recorded and intersected (the running intersection), until every asked
question is decided or the cap. Then the run is extended to twice its games and looked at again. Per
question it counts: wrong verdicts (a decided status whose claim is false of the truth), verdicts
withdrawn (a decided status that later reads otherwise, in the loop or after the extension), the
games to decide, and every forecast "about N more games (80% of runs decide within)" the loop stated,
held when the question was decided at a look of at most N games in all. Page-wide: a run whose page
holds any wrong verdict.

Two sources of games:
- synthetic: k seats, ties in 15% of games between two seats, the tie-break favouring seat 0; seat 0's
  deviation from the fair share and the tie-break's effect on seat 0 both set to the truth;
- real: games resampled from a run directory's logs (`--pool`), exponentially tilted so that seat 0's
  deviation and the tie-break's effect on it are the truth (the other seats as the tilted games give).
Truths are 0, 0.5, 0.9 and 1.25 times the 2 pp margin. The compare (`--compare`) replays paired runs of a
base and a variant (3 seats, no ties, the same deal coupled: the variant's winner is the base's in 60% of
games), the variant moving seat 0 by the truth toward fair; its page holds the comparison and both
configs' own seat verdicts.

    PYTHONPATH=. python scripts/error_study.py --runs 250 --seed 62 [--pool RUN_DIR | --compare] [--jobs 2]

(--runs: replays a truth.) The real replays resample a run of 30,000 expert games of 3-player Kamakura:
`balance simulate configs/kamakura/base.toml --players 3 --games 30000 --agents expert --seed 7 --out POOL`.
"""

from __future__ import annotations

import argparse
import time
from dataclasses import dataclass, field
from pathlib import Path
from types import SimpleNamespace

import numpy as np
from joblib import Parallel, delayed

from analysis.change_verdicts import (
    _seats_family,
    change_verdicts,
    gap_bounds,
    gap_family,
    gap_status,
    over_looks,
)
from analysis.sequences import (
    BEYOND,
    DECIDED,
    FAIRER,
    LESS_FAIR,
    SMALL,
    UNDECIDED,
    WITHIN,
    classify,
    intersected,
)
from analysis.tally import SHARE_SCALE
from analysis.verdicts import (
    Margins,
    judged_families,
    seat_family,
    seat_verdict,
    start_verdict,
    tie_verdict,
)
from sim.app.until_decided import DEFAULT_CAP, FIRST_GAMES, next_target

#: with --calibrate, every stated forecast also records these quantiles of its continuations at each of
#: SPREADS (how far the true means are drawn around the estimates, in standard errors)
QUANTILES = (0.5, 0.6, 0.7, 0.8, 0.9)
SPREADS = (0.25,)
_EXTRA: list = []
MARGIN = 0.02
FACTORS = (0.0, 0.5, 0.9, 1.25)
CAP = DEFAULT_CAP  # the tool's own games cap
BLOCK = 100
TIE_RATE = 0.15
RUN_QUESTIONS = ("seats", "start", "tiebreak")
COMPARE_QUESTIONS = ("gap", "seats", "base", "variant")


# ---- games -------------------------------------------------------------------------------------------
def synthetic_probs(k: int, seat0: float, effect0: float) -> tuple[np.ndarray, float]:
    """(win probabilities of the untied games, the chance seat 0 wins a tie it is in), so that seat 0 wins
    1/k + seat0 of all games and the tie-break moves it by effect0 against sharing."""
    pairs = k * (k - 1) / 2
    in_tie = TIE_RATE * (k - 1) / pairs  # seat 0's chance of being in a tie
    a = 0.5 + effect0 / in_tie
    rate0 = 1 / k + seat0
    p0 = (rate0 - in_tie * a) / (1 - TIE_RATE)
    other_rate = (1 - rate0) / (k - 1)
    other_ties = TIE_RATE / pairs * (1 - a) + TIE_RATE * (k - 2) / pairs * 0.5
    pj = (other_rate - other_ties) / (1 - TIE_RATE)
    return np.array([p0, *([pj] * (k - 1))]), a


def synthetic_games(k: int, seat0: float, effect0: float, n: int, rng: np.random.Generator):
    """n games: (shares under the tie-break, shares with tied wins shared), each (n, k) in 1/SHARE_SCALE."""
    p, a = synthetic_probs(k, seat0, effect0)
    rule = np.zeros((n, k), dtype=np.int64)
    shared = np.zeros((n, k), dtype=np.int64)
    tied = rng.random(n) < TIE_RATE
    winners = rng.choice(k, size=n, p=p / p.sum())
    pairs = np.array([(i, j) for i in range(k) for j in range(i + 1, k)])
    pick = pairs[rng.integers(len(pairs), size=n)]
    favour = np.where(pick[:, 0] == 0, a, 0.5)  # the chance the pair's first seat wins the tie-break
    first = rng.random(n) < favour
    tie_winner = np.where(first, pick[:, 0], pick[:, 1])
    rows = np.arange(n)
    win = np.where(tied, tie_winner, winners)
    rule[rows, win] = SHARE_SCALE
    shared[rows[~tied], winners[~tied]] = SHARE_SCALE
    shared[rows[tied], pick[tied, 0]] = SHARE_SCALE // 2
    shared[rows[tied], pick[tied, 1]] = SHARE_SCALE // 2
    return rule, shared


@dataclass
class Pool:
    """A run's games as rows: shares under its tie-break and with tied wins shared (1/SHARE_SCALE)."""

    rule: np.ndarray
    shared: np.ndarray

    @classmethod
    def read(cls, run_dir: str) -> Pool:
        from analysis.runs import read_table

        players = read_table(run_dir, "players", columns=["game_id", "seat", "win_share", "score"])
        shares = players.pivot(index="game_id", columns="seat", values="win_share").to_numpy(float)
        scores = players.pivot(index="game_id", columns="seat", values="score").to_numpy(float)
        top = scores == scores.max(axis=1, keepdims=True)
        shared = top / top.sum(axis=1, keepdims=True)
        units = lambda x: np.rint(x * SHARE_SCALE).astype(np.int64)  # noqa: E731
        return cls(units(shares), units(shared))

    def tilted(self, seat0: float, effect0: float) -> np.ndarray:
        """Resampling weights (exponential tilt) giving seat 0 the deviation seat0 and the tie-break the
        effect effect0 on it."""
        k = self.rule.shape[1]
        x = np.stack([self.rule[:, 0] / SHARE_SCALE - 1 / k,
                      (self.rule[:, 0] - self.shared[:, 0]) / SHARE_SCALE], axis=1)
        target = np.array([seat0, effect0])
        lam = np.zeros(2)
        for _ in range(50):
            w = np.exp(x @ lam - (x @ lam).max())
            w /= w.sum()
            mean = w @ x
            cov = (x - mean).T @ ((x - mean) * w[:, None])
            lam += np.linalg.solve(cov + 1e-12 * np.eye(2), target - mean)
            if np.abs(target - mean).max() < 1e-7:
                break
        return w

    def truth(self, w: np.ndarray) -> dict[str, np.ndarray]:
        k = self.rule.shape[1]
        return {"seats": w @ self.rule / SHARE_SCALE - 1 / k,
                "tiebreak": w @ (self.rule - self.shared) / SHARE_SCALE}


# ---- tallies -----------------------------------------------------------------------------------------
def block_sums(rule: np.ndarray, shared: np.ndarray) -> np.ndarray:
    """Rows of additive sums, one a block of BLOCK games: seat units, seat squares, re-scoring change and
    its squares (shared minus rule), tied games."""
    k = rule.shape[1]
    rule = rule.reshape(-1, BLOCK, k)
    change = shared.reshape(-1, BLOCK, k) - rule
    tied = (change != 0).any(axis=2)
    return np.concatenate([rule.sum(1), (rule * rule).sum(1), change.sum(1), (change * change).sum(1),
                           tied.sum(1)[:, None]], axis=1)


def tallies(row: np.ndarray, n: int, k: int) -> tuple[dict, dict]:
    """(common tally, re-scoring tally) of cumulative sums `row` over n games."""
    units, squares, change, csq, tied = row[:k], row[k:2 * k], row[2 * k:3 * k], row[3 * k:4 * k], row[-1]
    common = {"games": n, "seat_games": np.full(k, n, dtype=np.int64), "seat_units": units,
              "seat_squares": squares, "ties": np.array([tied, tied, 0])}
    rescore = {"seat_games": np.full(k, n, dtype=np.int64), "reference": {"lowest": 1},
               "rules": {"shared": {"change": change, "change_squares": csq}}}
    return common, rescore


class Stream:
    """A run's games played on demand, block by block; `at(n)`: the cumulative sums over n games."""

    def __init__(self, make, rng: np.random.Generator) -> None:
        self.make, self.rng, self.rows = make, rng, []

    def at(self, n: int) -> np.ndarray:
        blocks = n // BLOCK - len(self.rows)
        if blocks > 0:
            more = np.cumsum(block_sums(*self.make(blocks * BLOCK, self.rng)), axis=0)
            self.rows.extend(more + (self.rows[-1] if self.rows else 0))
        return self.rows[n // BLOCK - 1]


# ---- what a verdict claims -----------------------------------------------------------------------------
def wrong(status: str, truth: np.ndarray, margin: float) -> bool:
    """Whether a decided status claims something false of the true member values."""
    beyond = bool((np.abs(truth) > margin + 1e-12).any())
    if status == BEYOND:
        return not beyond
    if status == WITHIN:
        return beyond
    if status == SMALL:
        return beyond or bool((np.abs(truth) < 1e-12).all())
    return False


def gap_wrong(status: str, change: float, margin: float) -> bool:
    if status == FAIRER:
        return change >= 0
    if status == LESS_FAIR:
        return change <= 0
    if status == WITHIN:
        return abs(change) > margin + 1e-12
    return False


#: the later statuses that only add to a decided one (`Record.withdrawn`)
REFINES = {WITHIN: (SMALL, FAIRER, LESS_FAIR)}


@dataclass
class Record:
    """One question of one replay: its status at every look, forecasts stated (games in hand, N)."""

    statuses: list = field(default_factory=list)
    games: list = field(default_factory=list)
    forecasts: list = field(default_factory=list)
    fine: int | None = None  # the first size of FINE at which it reads decided (the loop's looks intersected)
    fine_reach: int = 0  # the largest size of FINE read

    def look(self, games: int, verdict) -> None:
        self.statuses.append(verdict.status)
        self.games.append(games)
        extra = _EXTRA.pop() if _EXTRA else None
        _EXTRA.clear()
        if verdict.status == UNDECIDED and verdict.needed is not None:
            self.forecasts.append((games, verdict.needed, extra))

    def first_decided(self) -> tuple[str, int | None]:
        for s, g in zip(self.statuses, self.games, strict=True):
            if s in DECIDED:
                return s, g
        return UNDECIDED, None

    def withdrawn(self) -> bool:
        """Whether a later look reads otherwise than the first decided one: undecided, or a claim that
        contradicts it. Refinements are not withdrawals: "within the margin" becoming "a small difference
        within it" (a real difference found too), or the seat gap's "no change beyond the margin" becoming
        "fairer" or "less fair"."""
        status, games = self.first_decided()
        later = {s for s, g in zip(self.statuses, self.games, strict=True) if games is not None and g > games}
        return bool(later - {status, *REFINES.get(status, ())})

    def held(self) -> list[tuple[int, int, bool | None]]:
        """Every forecast (games in hand, N in all, held, held at QUANTILES x SPREADS): held when the
        question reads decided at a size of FINE of at most N; None when N is past what was read."""
        decided_at, last = self.fine, self.fine_reach
        out = []
        for have, need, extra in self.forecasts:
            out.append((have, need, self._held(need, decided_at, last), extra and {
                s: [self._held(n, decided_at, last) if n is not None else None for n in ns]
                for s, ns in extra.items()}))
        return out

    @staticmethod
    def _held(need: int, decided_at: int | None, last: int) -> bool | None:
        if decided_at is not None and decided_at <= need:
            return True
        return False if (last >= need or decided_at is not None) else None


# ---- the loop ----------------------------------------------------------------------------------------
def calibrating() -> None:
    """Every stated forecast of the verdicts also records QUANTILES at SPREADS (into _EXTRA)."""
    import analysis.change_verdicts as cv
    import analysis.verdicts as vd
    from analysis.sequences import forecasts

    original = vd.stated_forecasts

    def stated(fam, margin, decide=None, loadings=None, **kw):
        out = original(fam, margin, decide=decide, loadings=loadings, **kw)
        _EXTRA.append({s: forecasts(fam, margin, QUANTILES, draws=500, decide=decide, spread=s,
                                    loadings=loadings)
                       for s in SPREADS})
        return out

    vd.stated_forecasts = cv.stated_forecasts = stated


#: the sizes at which a replay is read again after its loop, to tell when each question is first decided
#: (3% apart, as the forecast's own grid): a forecast held when the question reads decided by its N
FINE = np.unique(np.round(200 * 1.03 ** np.arange(0, 400) / BLOCK).astype(int) * BLOCK)


def read_fine(records: dict[str, Record], status_at, stop: int, cap: int) -> None:
    """Each record's first decided size on FINE, reading up to the largest N it stated (or the stop)."""
    top = max([stop] + [need for r in records.values() for _, need, _ in r.forecasts])
    for n in FINE[(FINE <= min(top, cap))]:
        statuses = status_at(int(n))
        for q, r in records.items():
            r.fine_reach = int(n)
            if r.fine is None and statuses[q] in DECIDED:
                r.fine = int(n)
        if all(r.fine is not None for r in records.values()):
            break


def replay_run(make, k: int, seed: int, cap: int = CAP, first: int = FIRST_GAMES) -> dict[str, Record]:
    """One self-play run of --until-decided asking seats, start and ties."""
    rng = np.random.default_rng(seed)
    stream = Stream(make, rng)
    margins = Margins(asked=("seats", "start", "ties"))
    fair = 1 / k
    records = {q: Record() for q in RUN_QUESTIONS}
    commons, rescores = [], []
    have, stop = first, None

    def look(n: int) -> list:
        c, r = tallies(stream.at(n), n, k)
        judges = [lambda: seat_verdict(c, fair, margins, looks=commons),
                  lambda: start_verdict(c, fair, margins, looks=commons),
                  lambda: tie_verdict(c, r, "lowest", "R-x", margins=margins, looks=rescores)]
        verdicts = []
        for q, judge_one in zip(RUN_QUESTIONS, judges, strict=True):
            _EXTRA.clear()
            verdicts.append(judge_one())
            records[q].look(n, verdicts[-1])
        commons.append(c)
        rescores.append(r)
        return verdicts

    seen: list = []  # (games, families) of the loop's looks

    def status_at(n: int) -> dict[str, str]:
        c, r = tallies(stream.at(n), n, k)
        now = judged_families(c, fair, margins, r)
        return {q: classify(intersected(fam, [f[q][0] for g, f in seen if g < n]), m)
                for q, (fam, m) in now.items()}

    while stop is None:
        verdicts = look(have)
        c, r = tallies(stream.at(have), have, k)
        seen.append((have, judged_families(c, fair, margins, r)))
        if all(v.decided for v in verdicts) or have >= cap:
            stop = have
            break
        have = -(-next_target(verdicts, have, cap) // BLOCK) * BLOCK
    read_fine(records, status_at, stop, cap)
    look(2 * stop)  # the run extended by hand and looked at again
    return records


def replay_compare(seed: int, factor: float, cap: int = CAP) -> dict[str, Record]:
    """One `balance compare --until-decided`: paired base and variant, 3 seats; records the comparison's
    gap and seat changes and both configs' own seats verdicts."""
    rng = np.random.default_rng(seed)
    k, fair, rho = 3, 1 / 3, 0.6
    base = np.array([fair + 0.035, fair - 0.0175, fair - 0.0175])
    move = factor * MARGIN
    variant = base + np.array([-move, move / 2, move / 2])
    other = (variant - rho * base) / (1 - rho)
    margins = Margins(asked=("seats",))
    records = {q: Record() for q in COMPARE_QUESTIONS}
    rows: list = []
    looks: list = []
    own_looks: dict = {"base": [], "variant": []}

    def at(n: int) -> np.ndarray:
        while len(rows) * BLOCK < n:
            b = rng.choice(k, size=BLOCK, p=base)
            v = np.where(rng.random(BLOCK) < rho, b, rng.choice(k, size=BLOCK, p=other))
            both = np.zeros((BLOCK, 2 * k), dtype=np.int64)
            both[np.arange(BLOCK), v] = SHARE_SCALE
            both[np.arange(BLOCK), k + b] = SHARE_SCALE
            more = np.concatenate([both.sum(0), (both.T @ both).ravel(), [(v != b).sum()]])
            rows.append(more if not rows else rows[-1] + more)
        return rows[n // BLOCK - 1]

    def sums(n: int) -> tuple[dict, dict]:
        row = at(n)
        units, cross = row[:2 * k], row[2 * k:-1].reshape(2 * k, 2 * k)
        zero = np.array([n, 0, 0])
        pair = {"games": n, "seats": np.array([k]), "units": units, "cross": cross,
                "differ": np.array([row[-1]]), "tie": zero, "decided": zero, "length": zero}
        own = {}
        for name, cols in (("variant", slice(0, k)), ("base", slice(k, 2 * k))):
            u = units[cols]
            own[name] = {"games": n, "seat_games": np.full(k, n, dtype=np.int64), "seat_units": u,
                         "seat_squares": u * SHARE_SCALE, "ties": np.zeros(3, dtype=np.int64),
                         "length": SimpleNamespace(values=[0], counts=[n])}
        return pair, own

    def look(n: int) -> list:
        pair, own = sums(n)
        _EXTRA.clear()
        verdicts = change_verdicts(own["base"], own["variant"], pair, "turns", margins, looks=looks)
        looks.append(pair)
        by_key = {v.key: v for v in verdicts}
        extras = list(_EXTRA)  # the gap's forecast is made first, then the seat changes'
        for q in ("gap", "seats"):
            _EXTRA[:] = [extras.pop(0)] if by_key[q].status == UNDECIDED and extras else []
            records[q].look(n, by_key[q])
        for name in ("base", "variant"):
            _EXTRA.clear()
            v = seat_verdict(own[name], fair, margins, looks=own_looks[name])
            own_looks[name].append(own[name])
            records[name].look(n, v)
        return [by_key["gap"], by_key["seats"]]

    def status_at(n: int) -> dict[str, str]:
        pair, own = sums(n)
        earlier = [p for p in looks if p["games"] < n]
        gap = over_looks(lambda p: gap_family(p, k, MARGIN, 0.025), pair, earlier)
        out = {"gap": str(gap_status(*gap_bounds(gap.low, gap.high, k), MARGIN)),
               "seats": classify(over_looks(lambda p: _seats_family(p, k, MARGIN, 0.025), pair, earlier),
                                 MARGIN)}
        for name in ("base", "variant"):
            olds = [seat_family(t, fair, MARGIN) for t in own_looks[name] if t["games"] < n]
            out[name] = classify(intersected(seat_family(own[name], fair, MARGIN), olds), MARGIN)
        return out

    have, stop = FIRST_GAMES, None
    while stop is None:
        verdicts = look(have)
        if all(v.decided for v in verdicts) or have >= cap:
            stop = have
            break
        have = -(-next_target(verdicts, have, cap) // BLOCK) * BLOCK
    read_fine(records, status_at, stop, cap)
    look(2 * stop)
    return records


# ---- the tables --------------------------------------------------------------------------------------
def judge(records: dict[str, Record], truths: dict[str, object]) -> dict[str, dict]:
    """Per question: wrong, withdrawn, decided at, forecasts held."""
    out = {}
    for q, rec in records.items():
        status, games = rec.first_decided()
        truth = truths[q]
        if q == "gap":
            bad = gap_wrong(status, float(truth), MARGIN)
        else:
            bad = wrong(status, np.atleast_1d(truth), MARGIN)
        out[q] = {"wrong": bad, "withdrawn": rec.withdrawn(), "games": games, "forecasts": rec.held()}
    return out


def run_truths(k: int, factor: float, pool: Pool | None, w: np.ndarray | None) -> dict:
    t = factor * MARGIN
    if pool is not None:
        truth = pool.truth(w)
        return {"seats": truth["seats"], "start": truth["seats"][:1], "tiebreak": truth["tiebreak"]}
    seats = np.array([t, *([-t / (k - 1)] * (k - 1))])
    p, a = synthetic_probs(k, t, t)
    pairs = k * (k - 1) / 2
    # the tie-break's effect: seat 0 gains (a - 1/2) in its ties; the seat tied with it loses as much
    effect = np.array([t, *([-t / (k - 1)] * (k - 1))])
    assert abs(TIE_RATE * (k - 1) / pairs * (a - 0.5) - t) < 1e-12 and (p >= 0).all()
    return {"seats": seats, "start": seats[:1], "tiebreak": effect}


def compare_truths(factor: float) -> dict:
    fair, move = 1 / 3, factor * MARGIN
    base = np.array([fair + 0.035, fair - 0.0175, fair - 0.0175])
    variant = base + np.array([-move, move / 2, move / 2])
    gap = lambda r: r.max() - r.min()  # noqa: E731
    return {"gap": gap(variant) - gap(base), "seats": variant - base, "base": base - fair,
            "variant": variant - fair}


def one_run(kind: str, k: int, factor: float, seed: int, pool: Pool | None, w: np.ndarray | None,
            calibrate: bool = False, first: int = FIRST_GAMES) -> dict:
    if calibrate:
        calibrating()
    if kind == "compare":
        return judge(replay_compare(seed, factor), compare_truths(factor))
    t = factor * MARGIN
    if pool is None:
        def make(n, rng):
            return synthetic_games(k, t, t, n, rng)
    else:
        cdf = np.cumsum(w)

        def make(n, rng):
            rows = np.minimum(np.searchsorted(cdf, rng.random(n) * cdf[-1]), len(cdf) - 1)
            return pool.rule[rows], pool.shared[rows]
    return judge(replay_run(make, k, seed, first=first), run_truths(k, factor, pool, w))


def upper95(bad: int, runs: int) -> float:
    from scipy.stats import beta

    return 1.0 if bad == runs else float(beta.ppf(0.95, bad + 1, runs - bad))


def summarise(label: str, factor: float, results: list[dict], rates: dict[str, float],
              page_rate: float) -> list[str]:
    """Markdown rows: per question and for the page."""
    rows = []
    runs = len(results)
    for q, rate in rates.items():
        bad = sum(r[q]["wrong"] for r in results)
        gone = sum(r[q]["withdrawn"] for r in results)
        games = np.array([r[q]["games"] if r[q]["games"] is not None else np.inf for r in results])
        undecided = int(np.isinf(games).sum())
        med = float(np.median(games))
        fc = [h for r in results for (_, _, h, _) in r[q]["forecasts"] if h is not None]
        held = f"{100 * np.mean(fc):.1f}% of {len(fc):,}" if fc else "none stated"
        rows.append(f"| {label} | {factor:g} | {q} | {runs:,} | {bad} ({100 * bad / runs:.1f}%, <= "
                    f"{100 * upper95(bad, runs):.1f}%) | {100 * rate:.3g}% | {gone} | "
                    f"{med:,.0f} | {undecided} | {held} |")
    page = sum(any(r[q]["wrong"] for q in rates) for r in results)
    rows.append(f"| {label} | {factor:g} | **page** | {runs:,} | {page} ({100 * page / runs:.1f}%, <= "
                f"{100 * upper95(page, runs):.1f}%) | {100 * page_rate:.3g}% | | | | |")
    return rows


def calibration_table(saved: dict, rates: dict) -> str:
    """Per question, spread and quantile: the share of forecasts held at each truth and pooled."""
    lines = ["\n| question | spread | quantile | " + " | ".join(f"{f:g}" for f in saved) + " | pooled |",
             "| --- | ---: | ---: |" + " ---: |" * (len(saved) + 1)]
    for q in rates:
        for spread in SPREADS:
            for i, quantile in enumerate(QUANTILES):
                cells, pooled = [], []
                for results in saved.values():
                    held = [x[spread][i] for r in results for (_, _, _, x) in r[q]["forecasts"]
                            if x and x[spread][i] is not None]
                    pooled.append(np.mean(held) if held else np.nan)
                    cells.append(f"{100 * np.mean(held):.0f}% ({len(held)})" if held else "-")
                lines.append(f"| {q} | {spread:g} | {quantile:g} | " + " | ".join(cells)
                             + f" | {100 * np.nanmean(pooled):.1f}% |")
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=1000)
    parser.add_argument("--seed", type=int, default=62)
    parser.add_argument("--seats", type=int, default=3)
    parser.add_argument("--pool", help="a run directory whose games are resampled (the real replays)")
    parser.add_argument("--compare", action="store_true", help="replay compare instead")
    parser.add_argument("--factors", default=",".join(map(str, FACTORS)))
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--calibrate", action="store_true",
                        help="also record each forecast's quantiles at SPREADS (the calibration table)")
    parser.add_argument("--save", help="pickle every replay's results here")
    parser.add_argument("--first", type=int, default=FIRST_GAMES,
                        help="the first round's games (a searching agent's loop starts at MIN_GAMES)")
    args = parser.parse_args()
    started = time.perf_counter()
    pool = Pool.read(args.pool) if args.pool else None
    k = pool.rule.shape[1] if pool is not None else args.seats
    kind = "compare" if args.compare else "run"
    label = ("compare, 3 seats" if args.compare else
             f"real ({Path(args.pool).name}), {k} seats" if pool is not None else f"synthetic, {k} seats")
    rates = ({"gap": 0.025, "seats": 0.025, "base": 0.05, "variant": 0.05} if args.compare else
             {"seats": 0.05 / 3, "start": 0.05 / 3, "tiebreak": 0.05 / 3})
    page_rate = 0.15 if args.compare else 0.05
    print("| source | truth (x margin) | question | runs | wrong (share, 95% upper) | stated rate | "
          "withdrawn | median games | undecided at cap | forecasts held |")
    print("| --- | ---: | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |")
    saved: dict = {}
    for factor in (float(f) for f in args.factors.split(",")):
        w = pool.tilted(factor * MARGIN, factor * MARGIN) if pool is not None else None
        seeds = np.random.SeedSequence([args.seed, int(1000 * factor)]).generate_state(args.runs)
        results = Parallel(n_jobs=args.jobs)(delayed(one_run)(kind, k, factor, int(s), pool, w,
                                                              args.calibrate, args.first) for s in seeds)
        for row in summarise(label, factor, results, rates, page_rate):
            print(row, flush=True)
        saved[factor] = results
        if args.save:
            import pickle

            Path(args.save).write_bytes(pickle.dumps(saved))
    if args.calibrate:
        print(calibration_table(saved, rates))
    print(f"\n({time.perf_counter() - started:.0f} s)")


if __name__ == "__main__":
    main()
