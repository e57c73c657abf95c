"""The first screen of every report: the verdicts (analysis.verdicts) of each run, one sentence per
question with its number, interval and status, each linking to the section that holds its evidence."""

from __future__ import annotations

import html

from analysis.page import Section
from analysis.verdicts import ALPHA, BEYOND, SMALL, TOO_FEW, UNDECIDED, WITHIN, Margins, Verdict

#: the short word on each verdict's badge, per question
BADGES = {
    "seats": {WITHIN: "fair", SMALL: "small difference", BEYOND: "unfair"},
    "start": {WITHIN: "no advantage", SMALL: "small advantage", BEYOND: "start matters"},
    "tiebreak": {WITHIN: "neutral", SMALL: "small effect", BEYOND: "favours a seat"},
    "components": {WITHIN: "priced right", SMALL: "priced right", BEYOND: "mispriced"},
    "worth": {WITHIN: "priced right", SMALL: "priced right", BEYOND: "mispriced"},
}
COMMON = {UNDECIDED: "undecided", TOO_FEW: "too few games"}
#: the section (its anchor after the game's name) that holds each question's evidence
SECTIONS = {"seats": "seats", "start": "seats", "tiebreak": "ties", "ties": "ties", "length": "length"}


def badge(verdict: Verdict) -> str:
    words = {**BADGES.get(verdict.key.split(":")[0], {}), **COMMON}.get(verdict.status)
    return f"<span class='status status-{verdict.status}'>{words}</span> " if words else ""


def verdict_item(verdict: Verdict, link: str) -> str:
    """One verdict as a list item: its badge, then its sentence with the topic linking to the evidence."""
    topic, _, rest = verdict.brief.partition(":")
    return (f"<li>{badge(verdict)}<a href='#{link}'><b>{html.escape(topic)}</b></a>:"
            f"{html.escape(rest)}</li>")


def run_block(label: str, game: str, agents: str, verdicts: list[Verdict]) -> str:
    """A run's card: its label and players, then its verdicts."""
    items = "".join(verdict_item(v, f"{game}-{SECTIONS.get(v.key, v.key)}") for v in verdicts)
    n = max((v.n for v in verdicts), default=0)
    return (f"<div class='run-verdicts'><h3>{html.escape(label)} <span class='meta'>({html.escape(agents)}; "
            f"n = {n:,} games)</span></h3><ul>{items}</ul></div>")


def verdict_section(blocks: list[str], margins: Margins) -> Section:
    """The verdicts section: one card per run, and how to read them."""
    sec = Section("The answer: verdicts", question="verdicts", anchor="verdicts")
    sec.html.append(f"<div class='verdicts'>{''.join(blocks)}</div>")
    sec.html.append(
        f"<p class='meta'>Each verdict tests the figure against a margin, the difference that matters (win "
        f"rates: {margins.text('seats')} for seats, {margins.text('start')} for the start player, "
        f"{margins.text('tiebreak')} for the tie-break; set with <code>--margin</code>). <b>Fair within "
        f"the margin</b> means the whole interval lies inside it (an equivalence test: a non-significant "
        f"difference alone never earns it); <b>unfair</b>, the whole interval outside it; "
        f"<b>undecided</b>, neither, with the games that would decide it. pp = percentage points of win "
        f"rate. The intervals are {100 * (1 - ALPHA):.0f}% confidence sequences, valid however often a run "
        f"is looked at or extended, and simultaneous over the seats (Bonferroni), so they are a little "
        f"wider than the fixed-size intervals in the sections below.</p>")
    return sec


CHANGE_BADGES = {WITHIN: "no change", SMALL: "small change", BEYOND: "changed", **COMMON}  # compare
CHANGE_SECTIONS = {"seats": "seats", "start": "seats", "ties": "ties", "length": "length"}


def comparison_section(verdicts: list[Verdict], changes: list[str], game: str) -> Section:
    """The first screen of a `balance compare` report: what the variant changes, then each question's
    paired verdict."""
    sec = Section("The answer: what the change did", question="verdicts", anchor="comparison")
    what = "; ".join(html.escape(c) for c in changes) or "nothing (the same rules)"
    items = []
    for v in verdicts:
        word = CHANGE_BADGES.get(v.status, "")
        topic, _, rest = v.brief.partition(":")
        items.append(f"<li><span class='status status-{v.status}'>{word}</span> <a href='#{game}-"
                     f"{CHANGE_SECTIONS.get(v.key, v.key)}'><b>{html.escape(topic)}</b></a>:"
                     f"{html.escape(rest)}</li>")
    sec.html.append(f"<div class='run-verdicts'><h3>The variant changes: {what}</h3><ul>{''.join(items)}"
                    "</ul></div>")
    sec.html.append("<p class='meta'>Both configs were played by the same agents on the same seeds, so each "
                    "change is the mean of per-game differences and the luck of the deal drops out. <b>No "
                    "change, equivalent within the margin</b> means the whole interval of the change lies "
                    "inside the margin; <b>changed</b>, wholly outside it. The intervals are 95% confidence "
                    "sequences, valid however often the runs are looked at or extended. pp = percentage "
                    "points of win rate.</p>")
    return sec


def profile_block(section: Section, text: str, verdicts: list[Verdict]) -> str:
    """A profile's card: stable at the top or not, then each answer's change from the second strongest
    level to the strongest (paired)."""
    items = "".join(f"<li><span class='status status-{v.status}'>{CHANGE_BADGES.get(v.status, '')}</span> "
                    f"{html.escape(v.brief)}</li>" for v in verdicts)
    return (f"<div class='run-verdicts'><h3><a href='#{section.id}'>{html.escape(section.title)}</a></h3>"
            f"<p>{html.escape(text)}</p><ul>{items}</ul></div>")


#: a values run's card lists at most this many components by name (all are in the components section)
NAMED_COMPONENTS = 3


def worth_block(label: str, verdicts: list[Verdict]) -> str:
    """A values run's card: the components' headline, then the mispriced ones (worth minus face beyond the
    margin), farthest first."""
    head, *rest = verdicts
    wrong = sorted((v for v in rest if v.status == BEYOND), key=lambda v: -abs(v.value))
    items = [f"<li>{badge(head)}<a href='#components'><b>Components</b></a>:"
             f"{html.escape(head.sentence.partition(':')[2])}</li>"]
    items += [f"<li>{badge(v)}{html.escape(v.brief)}</li>" for v in wrong[:NAMED_COMPONENTS]]
    if len(wrong) > NAMED_COMPONENTS:
        items.append(f"<li>... and {len(wrong) - NAMED_COMPONENTS} more mispriced (see the components "
                     "section)</li>")
    return (f"<div class='run-verdicts'><h3>{html.escape(label)} <span class='meta'>(what each component is "
            f"worth)</span></h3><ul>{''.join(items)}</ul></div>")
