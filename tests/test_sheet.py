"""`balance sheet` (docs/howto/skill.md): every player count of a config (a count with a rule of its own once
per value) played by the two top levels until decided, and one report that leads with, for each table,
the seat, start-player and tie-break verdicts at the top level and whether the two top levels agree on each
within its margin (the tie-break on what it does)."""

from __future__ import annotations

import json
import math
import re
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

from analysis.sheet_report import (
    HOLDS,
    MOVES,
    OPEN,
    sheet_frame,
    sheet_lead,
    sheet_row,
    sheet_section,
    sheet_text,
)
from analysis.verdicts import BEYOND, SMALL, UNDECIDED, WITHIN, Verdict
from sim import games
from sim.core.errors import ConfigError
from sim.design.sheet import SHEET_MANIFEST, plan_tables, top_levels
from tests.test_runner import KAMAKURA

ROOT = Path(__file__).resolve().parents[1]
SAKURA = str(ROOT / "configs" / "sakura" / "base.toml")


def balance(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "sim", *args], capture_output=True, text=True, cwd=ROOT)


def _verdict(key: str, status: str, short: str = "figures") -> Verdict:
    nan = math.nan
    return Verdict(key, "?", status, f"{key}: {short}", value=nan, low=nan, high=nan, unit="pp", margin=0.02,
                   n=1000, short=short)


# ---- the tables ----------------------------------------------------------------------------------------
def test_every_player_count_is_a_table_and_sakuras_two_player_variants_are_two(tmp_path: Path) -> None:
    kamakura = plan_tables(games.spec("kamakura"), Path(KAMAKURA), tmp_path)
    assert [t.label for t in kamakura] == ["2 players", "3 players", "4 players"]
    sakura = plan_tables(games.spec("sakura"), Path(SAKURA), tmp_path)
    assert [t.label for t in sakura] == ["2 players (court)", "2 players (tactical)", "3 players",
                                         "4 players", "5 players", "6 players"]
    assert sakura[1].variant == {"rules.two_player_variant": "tactical"}
    assert sakura[1].config == tmp_path / "configs" / "2p-tactical.toml"
    asked = plan_tables(games.spec("kamakura"), Path(KAMAKURA), tmp_path, [4, 2])
    assert [t.slug for t in asked] == ["4p", "2p"]


def test_the_two_levels_are_the_games_strongest_or_exactly_two_given() -> None:
    spec = games.spec("kamakura")
    assert top_levels(spec, None) == "expert,search"
    assert top_levels(games.spec("sakura"), None) == "expert,search"
    assert top_levels(spec, "greedy,expert") == "greedy,expert"
    with pytest.raises(ConfigError, match="two levels"):
        top_levels(spec, "random,greedy,expert")


# ---- the sentences -------------------------------------------------------------------------------------
def _row(table: str, seats: str, stable_seats: str | None) -> dict:
    stable = [] if stable_seats is None else [_verdict("seats", stable_seats), _verdict("start", WITHIN),
                                               _verdict("tiebreak", UNDECIDED)]
    return sheet_row(table, 3, top="search", below="expert",
                     top_verdicts=[_verdict("seats", seats), _verdict("start", WITHIN),
                                   _verdict("tiebreak", "info")],
                     stable_verdicts=stable, games=2000, paired=2000)


def test_a_row_says_each_answer_and_whether_it_holds_at_the_top() -> None:
    row = _row("3 players", BEYOND, BEYOND)
    assert row["seats"] == "unfair: figures" and row["seats at the top"] == MOVES
    assert row["start player"] == "fair within the margin: figures"
    assert row["start player at the top"] == HOLDS
    assert row["tie-break"].startswith("not asked") and row["tie-break at the top"] == OPEN
    assert _row("2 players", SMALL, None)["seats at the top"] == "not judged"


def test_the_lead_names_the_tables_of_each_answer() -> None:
    frame = sheet_frame([_row("2 players", WITHIN, WITHIN), _row("3 players", BEYOND, BEYOND),
                         _row("4 players", UNDECIDED, UNDECIDED)])
    lead = sheet_lead(frame)
    assert lead[0] == ("Seats, at the top level (search): unfair at 3 players; fair within the margin at 2 "
                       "players; undecided at 4 players; expert and search agree on it within the margin at "
                       "2 players, and it still moves from expert to search at 3 players.")
    assert lead[1].startswith("Start player, at the top level (search): fair within the margin at 2 players, "
                              "3 players and 4 players; expert and search agree on it within the margin at 2 "
                              "players, 3 players and 4 players")
    assert len(lead) == 2  # the tie-break was not asked: no sentence
    text = sheet_text(frame)
    assert "3 players (2,000 games of search, 2,000 paired with expert):" in text
    assert ("tie-break     not asked: figures  [at the top: undecided whether expert and search agree on "
            "what the tie-break does within 2 pp (error rate 5%): figures]") in text


def _tiebreak_row(table: str, status: str) -> dict:
    """A table whose tie-break change (what it does at search minus at expert) has `status`, judged at the
    ties question's share of the 5% (three questions asked)."""
    change = _verdict("tiebreak", status, "seat 0 -3.4 pp -> -3.1 pp against sharing tied wins, +0.3 pp "
                                          "[-1.2, +1.9].")
    change.detail["alpha"] = 0.05 / 3
    return sheet_row(table, 3, top="search", below="expert",
                     top_verdicts=[_verdict("seats", WITHIN), _verdict("start", WITHIN),
                                   _verdict("tiebreak", BEYOND)],
                     stable_verdicts=[_verdict("seats", WITHIN), _verdict("start", WITHIN), change],
                     games=2000, paired=2000)


def test_the_tie_break_at_the_top_says_the_two_levels_agree_within_the_margin_at_its_error_rate() -> None:
    """No stronger than its test: the two levels' effects equivalent within the margin at the verdict's
    error rate, never "holds for strong play"."""
    frame = sheet_frame([_tiebreak_row("3 players", WITHIN), _tiebreak_row("4 players", BEYOND)])
    assert frame["tie-break at the top"].tolist() == [HOLDS, MOVES]
    text = sheet_text(frame)
    assert ("[at the top: expert and search agree on what the tie-break does within 2 pp (error rate 1.67%): "
            "seat 0 -3.4 pp -> -3.1 pp against sharing tied wins, +0.3 pp [-1.2, +1.9].]") in text
    assert ("[at the top: what the tie-break does still moves from expert to search, beyond 2 pp (error rate "
            "1.67%)") in text
    assert sheet_lead(frame)[-1].endswith("expert and search agree on what it does within the margin at 3 "
                                          "players, and what it does still moves from expert to search at 4 "
                                          "players.")
    notes = " ".join(sheet_section(frame, "margins: tie-break ±2 pp").notes)
    for said in (text, notes):
        assert "strong play" not in said and "better play" not in said


# ---- bad input, refused before anything is written ----------------------------------------------------
@pytest.mark.parametrize("extra, said", [
    (("--players", "7"), "--players: kamakura is played by 2 to 4 players, got 7"),
    (("--players", "3,3"), "--players: a player count given twice"),
    (("--players", "three"), "--players: whole numbers"),
    (("--levels", "greedy"), "--levels: the sheet compares two levels"),
    (("--levels", "greedy,nobody"), "unknown agent 'nobody'"),
    (("--games", "150"), "--games"),
])
def test_bad_input_is_refused_in_one_line_and_nothing_is_written(extra: tuple[str, ...], said: str,
                                                                   tmp_path: Path) -> None:
    out = tmp_path / "sheet"
    done = balance("sheet", KAMAKURA, *extra, "--out", str(out))
    assert done.returncode == 2 and said in done.stderr and len(done.stderr.splitlines()) == 1, done.stderr
    assert not out.exists()


def test_a_folder_of_something_else_is_refused(tmp_path: Path) -> None:
    (tmp_path / "mine.toml").write_text("# a designer's file\n")
    done = balance("sheet", KAMAKURA, "--out", str(tmp_path))
    assert done.returncode == 2 and "not a balance sheet folder" in done.stderr
    assert [p.name for p in tmp_path.iterdir()] == ["mine.toml"]


# ---- a real sheet --------------------------------------------------------------------------------------
@pytest.fixture(scope="module")
def sheet(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, subprocess.CompletedProcess]:
    out = tmp_path_factory.mktemp("sheet") / "sheet"
    done = balance("sheet", SAKURA, "--players", "2,3", "--levels", "random,greedy", "--games", "400",
                   "--jobs", "1", "--out", str(out))
    assert done.returncode == 0, done.stderr
    return out, done


def test_the_sheet_plays_every_table_and_writes_one_report(sheet) -> None:
    out, done = sheet
    manifest = json.loads((out / SHEET_MANIFEST).read_text())
    labels = ["2 players (court)", "2 players (tactical)", "3 players"]
    assert [t["label"] for t in manifest["tables"]] == labels
    for table in manifest["tables"]:
        for level in ("random", "greedy"):
            assert (out / table["dir"] / level / "manifest.json").is_file()
    variant = tomllib.loads((out / "configs" / "2p-tactical.toml").read_text())
    assert variant["rules"] == {"two_player_variant": "tactical"} and Path(variant["extends"]).is_file()
    page = (out / "report" / "index.html").read_text()
    assert page.index("Balance sheet") < page.index("The runs")  # the sheet leads the report
    for label in ("2 players (court)", "2 players (tactical)", "3 players"):
        assert f"{label} (" in done.stdout and label in page
    assert "Seats, at the top level (greedy):" in done.stdout
    # the tie-break at the top: the two levels' effects compared within its margin, at its error rate
    tiebreak = [line for line in done.stdout.splitlines() if line.startswith("  tie-break ")]
    assert len(tiebreak) == 3, done.stdout
    judged = re.compile(r"\[at the top: .*what the tie-break does.* within 2 pp \(error rate [\d.]+%\)")
    assert all(judged.search(line) for line in tiebreak), tiebreak
    assert "strong play" not in done.stdout and "strong play" not in page


def test_the_tactical_table_plays_the_tactical_rules(sheet) -> None:
    out, _ = sheet
    court = json.loads((out / "2p-court" / "greedy" / "manifest.json").read_text())
    tactical = json.loads((out / "2p-tactical" / "greedy" / "manifest.json").read_text())
    assert court["config"]["rules"]["two_player_variant"] == "court"
    assert tactical["config"]["rules"]["two_player_variant"] == "tactical"


def test_the_sheet_again_plays_nothing_and_another_seed_is_refused(sheet) -> None:
    out, _ = sheet
    again = balance("sheet", SAKURA, "--players", "2,3", "--levels", "random,greedy", "--games", "400",
                    "--jobs", "1", "--out", str(out), "--quiet")
    assert again.returncode == 0 and "0 games played" in again.stdout, again.stderr
    other = balance("sheet", SAKURA, "--players", "2,3", "--levels", "random,greedy", "--games", "400",
                    "--seed", "9", "--out", str(out))
    assert other.returncode == 2 and "made by a different sheet (seed" in other.stderr
