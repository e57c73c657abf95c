"""The balance sheet of a config (`balance sheet`, docs/howto/skill.md): for every player count, the top
level's answers on the seats, the start player and the tie-break, and whether the two top levels agree on
each (the same within its margin) or it still moves.

Pure functions: `sheet_row` (one table's verdicts -> a row), `sheet_frame` (rows -> the sheet),
`sheet_lead` (the sheet -> its sentences), `sheet_section` (the sheet -> the report's lead section),
`sheet_text` (the sheet -> the printed table, ending with `sheet_page_error`'s sentence).
"""

from __future__ import annotations

import html
from typing import Any

import pandas as pd

from analysis.page import Section
from analysis.verdicts import (
    ALPHA,
    BEYOND,
    SMALL,
    STATUS_WORDS,
    TOO_FEW,
    UNDECIDED,
    WITHIN,
    PageError,
    Verdict,
    judged_sets,
    page_error,
)

#: the top level's verdicts on the sheet (run verdict keys) and the paired change that says whether each
#: is stable at the top (change verdict keys): the tie-break pairs with the change of what it does (each
#: seat's win rate under the rule minus with tied wins shared, analysis.change_verdicts.tiebreak_change),
#: not with how often the top score is tied
ANSWERS = (("seats", "seats", "seats"), ("start", "start", "start player"),
           ("tiebreak", "tiebreak", "tie-break"))
HOLDS, MOVES, OPEN, NOT_ASKED = "agree", "still moves", "undecided", "not asked"


def _stable_word(verdict: Verdict | None) -> str:
    if verdict is None or verdict.status == "info":
        return NOT_ASKED
    if verdict.status in (WITHIN, SMALL):
        return HOLDS
    if verdict.status == BEYOND:
        return MOVES
    return OPEN if verdict.status == UNDECIDED else STATUS_WORDS[TOO_FEW]


def tiebreak_at_top(verdict: Verdict | None, top: str, below: str) -> str:
    """Whether the two top levels agree on what the tie-break does (analysis.change_verdicts.
    tiebreak_change), in words no stronger than its test: two levels equivalent within the tie-break margin
    at the stated error rate, which says nothing of players stronger than both; then its figures."""
    if verdict is None or verdict.status == "info" or verdict.margin is None:
        return NOT_ASKED
    m, rate = f"{100 * verdict.margin:g} pp", f"error rate {100 * verdict.detail.get('alpha', ALPHA):.3g}%"
    said = {WITHIN: f"{below} and {top} agree on what the tie-break does within {m} ({rate})",
            BEYOND: f"what the tie-break does still moves from {below} to {top}, beyond {m} ({rate})",
            UNDECIDED: f"undecided whether {below} and {top} agree on what the tie-break does within {m} "
                       f"({rate})"}
    said[SMALL] = said[WITHIN]
    words = said.get(verdict.status, STATUS_WORDS.get(verdict.status, verdict.status))
    return f"{words}: {verdict.short}" if verdict.short else words


def _answer(verdict: Verdict | None) -> tuple[str, str]:
    """(status, words): the verdict's status and its answer in a few words."""
    if verdict is None:
        return "", "not judged"
    if verdict.status == "info":
        return "info", f"not asked: {verdict.short or verdict.sentence}"
    return verdict.status, f"{STATUS_WORDS[verdict.status]}: {verdict.short or verdict.sentence}"


def sheet_row(table: str, players: int, *, top: str, below: str, top_verdicts: list[Verdict],
              stable_verdicts: list[Verdict], games: int, paired: int) -> dict[str, Any]:
    """One table of the sheet (a player count, or a count's variant): each answer at the top level with
    its status, and whether the two top levels agree on it."""
    found = {v.key: v for v in top_verdicts}
    changes = {v.key: v for v in stable_verdicts}
    row: dict[str, Any] = {"table": table, "players": players, "top": top, "below": below, "games": games,
                           "paired_games": paired}
    for key, change_key, name in ANSWERS:
        status, words = _answer(found.get(key))
        row[f"{name}"] = words
        row[f"{name} status"] = status
        row[f"{name} at the top"] = _stable_word(changes.get(change_key)) if stable_verdicts else "not judged"
    row["tie-break at the top, in words"] = (tiebreak_at_top(changes.get("tiebreak"), top, below)
                                             if stable_verdicts else "not judged")
    return row


def sheet_frame(rows: list[dict[str, Any]]) -> pd.DataFrame:
    """The sheet: one row per table, in the order played."""
    return pd.DataFrame(rows)


def _tables(frame: pd.DataFrame, mask: pd.Series) -> str:
    names = list(frame.loc[mask, "table"])
    return names[0] if len(names) == 1 else ", ".join(names[:-1]) + " and " + names[-1]


def sheet_lead(frame: pd.DataFrame) -> list[str]:
    """The sheet's answer in sentences, one per question: where the top level finds it fair, unfair or
    undecided, and where the two top levels agree on it within the margin."""
    if frame.empty:
        return []
    top, below = frame["top"].iloc[0], frame["below"].iloc[0]
    said = []
    for _, _, name in ANSWERS:
        status = frame[f"{name} status"]
        if (status == "info").all() or (status == "").all():
            continue
        parts = []
        for word, statuses in (("unfair", (BEYOND,)), ("fair within the margin", (WITHIN, SMALL)),
                               ("undecided", (UNDECIDED, TOO_FEW))):
            mask = status.isin(statuses)
            if mask.any():
                parts.append(f"{word} at {_tables(frame, mask)}")
        holds = frame[f"{name} at the top"] == HOLDS
        moves = frame[f"{name} at the top"] == MOVES
        what = "what it does" if name == "tie-break" else "it"  # the tie-break's change: of what it does
        stable = (f"; {below} and {top} agree on {what} within the margin at {_tables(frame, holds)}"
                  if holds.any() else f"; at no table are {below} and {top} yet shown to agree on {what}")
        if moves.any():
            stable += f", and {what} still moves from {below} to {top} at {_tables(frame, moves)}"
        said.append(f"{name.capitalize()}, at the top level ({top}): {'; '.join(parts)}{stable}.")
    return said


def sheet_section(frame: pd.DataFrame, margins_text: str) -> Section:
    """The report's lead section: the sentences, then the sheet as a table."""
    notes = [html.escape(s) for s in sheet_lead(frame)]
    notes.append(html.escape(
        f"Each answer is the top level's verdict ({margins_text}); 'agree' means its change from the level "
        "below to the top level is equivalent within the margin on the same deals (the two levels agree, "
        "which says nothing of stronger players), 'still moves' that it changed beyond the margin, so "
        "stronger play than these may move it further. For the tie-break the change judged is of what it "
        "does (each seat's win rate under the rule minus with tied wins shared), not of how often ties "
        "happen. Every table is its own report section below."))
    shown = frame[[c for c in frame.columns if not c.endswith(" status")]]
    return Section("Balance sheet", notes=notes, tables=[("sheet", "The balance sheet, one row per table",
                                                           shown)], question="verdicts", anchor="sheet")


def sheet_text(frame: pd.DataFrame) -> str:
    """The sheet as printed: the sentences, then per table each answer and whether it holds at the top."""
    lines = sheet_lead(frame)
    for row in frame.to_dict(orient="records"):
        lines.append(f"{row['table']} ({row['games']:,} games of {row['top']}, {row['paired_games']:,} "
                     f"paired with {row['below']}):")
        for _, _, name in ANSWERS:
            said = row.get(f"{name} at the top, in words", row[f"{name} at the top"])
            lines.append(f"  {name:<13} {row[name]}  [at the top: {said}]")
    if not frame.empty:
        lines.append(sheet_page_error(frame).sentence)
    return "\n".join(lines)


def sheet_page_error(frame: pd.DataFrame) -> PageError:
    """The printed sheet's error rate in all (analysis.verdicts.page_error): each table shows two judged
    sets, its top level's own verdicts and the paired changes from the level below (whether they agree),
    each at its own 5%; a table with nothing judged in one of them adds 0 there."""
    top, below = frame["top"].iloc[0], frame["below"].iloc[0]
    answers = [name for _, _, name in ANSWERS]
    tops = [ALPHA if any(row[f"{n} status"] not in ("info", "") for n in answers) else 0.0
            for row in frame.to_dict(orient="records")]
    changes = [ALPHA if any(row[f"{n} at the top"] not in (NOT_ASKED, "not judged") for n in answers) else 0.0
               for row in frame.to_dict(orient="records")]
    sets = [*judged_sets(tops, f"table's verdicts at {top}", f"tables' verdicts at {top}"),
            *judged_sets(changes, f"table's changes from {below} to {top}",
                         f"tables' changes from {below} to {top}")]
    return page_error(sets, where="In the sheet above,")
