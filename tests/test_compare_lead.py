"""`balance compare`'s answer in one sentence (analysis.change_verdicts.fairness_lead): when the variant is
unfair on its own it says so first, with the base's own verdict and what the change did, each with its
interval and n, whatever the change's own verdict; a variant that fixes an unfair base says so; when both
are fair, the change verdicts lead as before. On verdict records, then on one real `balance compare` of two
small runs that are both unfair."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

from analysis.change_verdicts import fairness_lead, level_text
from analysis.verdicts import FAIRER, LESS_FAIR, WITHIN, Margins, Verdict, seat_verdict
from tests.test_verdicts import tally

ROOT = Path(__file__).resolve().parents[1]
BASE = "configs/kamakura/base.toml"
#: each config's own seats verdict: unfair (seats 1 and 0, seats 1 and 2; 5,000 games), and fair (15,000)
UNFAIR_BASE = seat_verdict(tally([1640, 1940, 1420], 5000), 1 / 3, Margins())
UNFAIR_VARIANT = seat_verdict(tally([1980, 1350, 1670], 5000), 1 / 3, Margins())
FAIR = seat_verdict(tally([5000, 5000, 5000], 15000), 1 / 3, Margins())


def gap(status: str, base: float, variant: float, low: float, high: float) -> Verdict:
    """A seat-gap verdict record as analysis.change_verdicts.gap_verdict makes it."""
    return Verdict("gap", "Is the variant fairer?", status, "Seat gap: ...", value=variant - base, low=low,
                   high=high, unit="pp", margin=0.02, n=5000,
                   detail={"gap_base": base, "gap_variant": variant, "gap_change": variant - base})


def test_both_unfair_leads_with_the_variant_then_the_base_then_the_unchanged_gap() -> None:
    unchanged = gap(WITHIN, 0.110, 0.111, -0.015, 0.017)
    said = fairness_lead(UNFAIR_BASE, UNFAIR_VARIANT, [unchanged], level_text(["expert"] * 3))
    assert said.startswith("The variant is unfair at expert: seat 1 -6.3 pp [-8.7, -4.0], seat 0 +6.3 pp "
                           "[+3.7, +8.8] against the fair share of 33.3%; the base is unfair too (seat 1 "
                           "+5.5 pp [+2.9, +8.0], seat 2 -4.9 pp [-7.3, -2.6]); "), said
    assert "the seat gap did not change beyond the 2 pp margin (11.0 -> 11.1 pp, +0.1 pp [-1.5, +1.7])" \
        in said
    assert said.endswith("n = 5,000 games each; each config's seats judged on its own run at the 2 pp "
                         "margin, the change paired game by game.")
    assert "point" not in said.replace("pp", "")  # percentage points are pp, never "points"


def test_a_fair_variant_of_an_unfair_base_fixes_it() -> None:
    narrowed = gap(FAIRER, 0.110, 0.012, -0.12, -0.07)
    said = fairness_lead(UNFAIR_BASE, FAIR, [narrowed], level_text(["greedy", "random", "random"]))
    assert said.startswith("The variant fixes the base's unfairness with greedy,random,random: the base "
                           "is unfair (seat 1 +5.5 pp [+2.9, +8.0], seat 2 -4.9 pp [-7.3, -2.6] against the "
                           "fair share of 33.3%), the variant fair within the 2 pp margin (nearest to it: "
                           "seat "), said
    assert "; the seat gap narrowed (11.0 -> 1.2 pp, -9.8 pp [-12.0, -7.0])." in said


def test_an_unfair_variant_of_a_fair_base_says_the_base_is_fair() -> None:
    said = fairness_lead(FAIR, UNFAIR_VARIANT, [gap(LESS_FAIR, 0.01, 0.12, 0.08, 0.14)], "at expert")
    assert said.startswith("The variant is unfair at expert: ")
    assert "; the base is fair within the 2 pp margin (nearest to it: seat " in said
    assert "; the seat gap widened (1.0 -> 12.0 pp, +11.0 pp [+8.0, +14.0])" in said


def test_both_fair_leaves_the_change_verdicts_to_lead() -> None:
    assert fairness_lead(FAIR, FAIR, [gap(WITHIN, 0.01, 0.011, -0.01, 0.01)], "at expert") == ""


def test_two_players_say_the_seats_change() -> None:
    """With two players the gap is a description; the seats' paired change says what the change did."""
    seats = Verdict("seats", "Did the seats' win rates change?", WITHIN, "Seats: ...", value=0.004,
                    low=-0.012, high=0.015, unit="pp", margin=0.02, n=5000, detail={"named": [1]})
    described = Verdict("gap", "Is the variant fairer?", "info", "Seat gap: ...", value=0.0, low=-0.1,
                        high=0.1, unit="pp", margin=None, n=5000)
    base = seat_verdict(tally([2900, 2100], 5000), 1 / 2, Margins())
    said = fairness_lead(base, base, [seats, described], "at expert")
    assert said.startswith("The variant is unfair at expert: seat ")
    assert "; no seat's win rate changed beyond the 2 pp margin (seat 1 +0.4 pp [-1.2, +1.5])." in said


def test_compare_of_two_unfair_configs_leads_with_the_variant_unfair(tmp_path: Path) -> None:
    """Greedy players, 3 seats: the base is unfair on its own, and so is a variant whose last order chit
    grants 8 extra moves and the others none; the first line after what the variant changes says both."""
    variant = tmp_path / "chits.toml"
    variant.write_text(f'extends = "{(ROOT / BASE).as_posix()}"\n[rules]\norder_chit_moves = [0, 0, 0, 8]\n')
    done = subprocess.run([sys.executable, "-m", "sim", "compare", BASE, str(variant), "--players", "3",
                           "--agents", "greedy", "--games", "1000", "--jobs", "1", "--quiet", "--out",
                           str(tmp_path / "cmp")], cwd=ROOT, capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    assert lines[1].startswith("  what the variant changes: rules.order_chit_moves")
    lead = lines[2].strip()
    assert re.match(r"The variant is unfair at greedy: seat \d [-+]\d+\.\d pp \[[-+][\d.]+, [-+][\d.]+\]",
                    lead)
    assert "; the base is unfair too (seat " in lead and "n = 1,000 games each" in lead
    assert lines[3].strip().startswith("Seat gap: ")
    page = (tmp_path / "cmp" / "report" / "index.html").read_text()
    assert "The variant is unfair at greedy: seat " in page
