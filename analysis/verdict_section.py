"""The first screen of every report: the verdicts (analysis.verdicts) of each run, one sentence per
question with its number, interval and status, each linking to the section that holds its evidence."""

from __future__ import annotations

import html

from analysis.change_verdicts import COMPARE_NAMES
from analysis.page import Section
from analysis.verdicts import (
    ALPHA,
    BEYOND,
    FAIRER,
    LESS_FAIR,
    SMALL,
    TOO_FEW,
    UNDECIDED,
    WITHIN,
    Margins,
    PageError,
    Verdict,
    judged_split,
)

#: the short word on each verdict's badge, per question; the start player's carry the sign of its
#: difference (`badge_words`), and every "within" badge says so
BADGES = {
    "seats": {WITHIN: "fair within the margin", SMALL: "small difference, within the margin",
              BEYOND: "unfair"},
    "start": {WITHIN: "no advantage, within the margin", SMALL: "small {side}, within the margin",
              BEYOND: "{side} beyond the margin"},
    "tiebreak": {WITHIN: "neutral within the margin", SMALL: "small effect, within the margin",
                 BEYOND: "moves a seat beyond the margin"},
    "components": {WITHIN: "priced right within the margin", SMALL: "priced right within the margin",
                   BEYOND: "mispriced"},
    "worth": {WITHIN: "priced right within the margin", SMALL: "priced right within the margin",
              BEYOND: "mispriced"},
}
COMMON = {UNDECIDED: "undecided", TOO_FEW: "too few games", "info": "description"}


def badge_words(verdict: Verdict, table: dict | None = None) -> str | None:
    """The words on a verdict's badge: its question's word for its status, with the sign of the
    difference where the word has one ("small disadvantage, within the margin")."""
    words = {**(table if table is not None else BADGES.get(verdict.key.split(":")[0], {})), **COMMON}
    word = words.get(verdict.status)
    if word is None:
        return None
    return word.format(side="advantage" if verdict.value > 0 else "disadvantage")
#: the section (its anchor after the game's name) that holds each question's evidence
SECTIONS = {"seats": "seats", "start": "seats", "tiebreak": "ties", "ties": "ties", "length": "length"}


def badge(verdict: Verdict) -> str:
    words = badge_words(verdict)
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


#: a judged verdict's key (its part before ":") -> the question it answers, in --questions' words
JUDGED_AS = {"seats": "seats", "gap": "seats", "start": "start", "tiebreak": "ties", "ties": "ties",
             "length": "length", "worth": "worth", "components": "worth"}
#: what each judged question's margin is for, in the sentence that gives the margins
MARGIN_FOR = {"seats": "seats", "start": "the start player", "ties": "the tie-break", "length": "length",
              "worth": "a component's worth"}


def judged_questions(verdicts: list[Verdict]) -> list[str]:
    """The questions the page judges against a margin (verdicts with a margin and a status other than a
    description), in the order of `JUDGED_AS`."""
    asked = {JUDGED_AS.get(v.key.split(":")[0]) for v in verdicts
             if v.margin is not None and v.status != "info"}
    return [q for q in dict.fromkeys(JUDGED_AS.values()) if q in asked]


def _margin_text(question: str, margins: Margins, verdicts: list[Verdict]) -> str:
    key = {"ties": "tiebreak"}.get(question, question)
    unit = next((v.unit for v in verdicts if JUDGED_AS.get(v.key.split(":")[0]) == question), "")
    if key not in Margins.RATES and unit:  # "1 score point", "2 tokens", "1.5 turns"
        unit = unit[:-1] if getattr(margins, key) == 1 and unit.endswith("s") else unit
        unit = f"score {unit}" if unit.startswith("point") else unit
    value = margins.text(key) if key in Margins.RATES else f"{margins.text(key)} {unit}".strip()
    return f"{value} for {MARGIN_FOR[question]}"


def verdict_section(blocks: list[str], margins: Margins, verdicts: list[Verdict] | None = None, *,
                    sequences: bool = True, fixed_size: bool = True,
                    page: PageError | None = None) -> Section:
    """The verdicts section: one card per run, and how to read them, saying only what the page shows:
    the questions its `verdicts` judge and their margins; `sequences`, whether self-play runs' verdicts
    (confidence sequences) are on it; `fixed_size`, whether the sections below show fixed-size intervals
    of those runs (a run played until decided leaves them out, analysis.adaptive_stop); `page`, the
    page-wide error rate, said after the run's own unless one set carries it all."""
    sec = Section("The answer: verdicts", question="verdicts", anchor="verdicts")
    sec.html.append(f"<div class='verdicts'>{''.join(blocks)}</div>")
    judged = (judged_questions(verdicts) if verdicts is not None
              else [q for q in margins.asked if q != "length"])
    found = verdicts or []
    played = [q for q in judged if q != "worth"]  # the self-play questions (--questions asks them)
    parts = []
    if judged:
        given = "; ".join(_margin_text(q, margins, found) for q in judged)
        parts.append(f"Each verdict tests the figure against a margin, the difference that matters ({given}; "
                     f"set with <code>--margin</code>).")
    if played:
        parts.append("<b>Fair within the margin</b> means the whole equivalence interval lies inside it "
                     "(an equivalence test: each of its bounds is one-sided at the question's error rate, so "
                     "it is narrower than the interval shown otherwise; a non-significant difference alone "
                     "never earns it); <b>unfair</b>, the whole interval outside it; <b>undecided</b>, "
                     "neither, with a forecast of the games that would decide it and how often such "
                     "forecasts held in the error study's replays. "
                     "pp = percentage points of win rate.")
    if "worth" in judged:
        parts.append("<b>Priced right within the margin</b> means a component's worth minus its face "
                     "value lies inside the margin with its whole interval; <b>mispriced</b>, the whole "
                     "interval outside it; <b>undecided</b>, neither.")
    asked = (f"Judged here: {html.escape(', '.join(judged))}"
             + (" (<code>--questions</code>)" if played else ""))
    parts.append(f"{asked}; the chance that any judged verdict of a run is wrong is at most "
                 f"{100 * ALPHA:.0f}%, split evenly over the questions judged." if judged else
                 "Nothing is judged here against a margin (<code>--questions</code> asks for it).")
    if judged and page is not None and not page.alone:
        parts.append(f"<b>{html.escape(page.sentence)}</b>")
    if sequences:
        parts.append(f"A <b>description</b> is not judged: it carries its own {100 * (1 - ALPHA):.0f}% "
                     "interval. The intervals of the runs' verdicts are confidence sequences, valid however "
                     "often a run is looked at or extended, and simultaneous over the seats (Bonferroni)"
                     + (", so they are a little wider than the fixed-size intervals in the sections below."
                        if fixed_size else "; the sections below show no fixed-size interval of these runs "
                        "(played until their verdicts were decided)."))
    if "worth" in judged:
        parts.append("A component's worth interval is simultaneous over the run's components (Bonferroni), "
                     "in whole points, as the components section shows it.")
    sec.html.append(f"<p class='meta'>{' '.join(parts)}</p>")
    return sec


CHANGE_BADGES = {WITHIN: "unchanged within the margin", SMALL: "small change, within the margin",
                 BEYOND: "changed beyond the margin", FAIRER: "fairer", LESS_FAIR: "less fair",
                 **COMMON}  # compare
CHANGE_SECTIONS = {"gap": "seats", "seats": "seats", "start": "seats", "ties": "ties", "length": "length"}


def comparison_section(verdicts: list[Verdict], changes: list[str], game: str, answer: str = "") -> Section:
    """The first screen of a `balance compare` report: the answer in a sentence when either config is
    unfair on its own (`answer`, analysis.change_verdicts.fairness_lead), what the variant changes, then each
    question's paired verdict."""
    sec = Section("The answer: what the change did", question="verdicts", anchor="comparison")
    if answer:
        sec.html.append(f"<p><b>{html.escape(answer)}</b></p>")
    what = "; ".join(html.escape(c) for c in changes) or "nothing (the same rules)"
    items = []
    for v in verdicts:
        word = badge_words(v, CHANGE_BADGES) or ""
        topic, _, rest = v.brief.partition(":")
        items.append(f"<li><span class='status status-{v.status}'>{word}</span> <a href='#{game}-"
                     f"{CHANGE_SECTIONS.get(v.key, v.key)}'><b>{html.escape(topic)}</b></a>:"
                     f"{html.escape(rest)}</li>")
    sec.html.append(f"<div class='run-verdicts'><h3>The variant changes: {what}</h3><ul>{''.join(items)}"
                    "</ul></div>")
    judged = judged_split(verdicts)
    split = ", ".join(f"{100 * a:.3g}% for {COMPARE_NAMES.get(k, k)}" for k, a in judged.items())
    sec.html.append("<p class='meta'>Both configs were played by the same agents on the same seeds, so each "
                    "change is the mean of per-game differences and the luck of the deal drops out. "
                    "<b>Fairer</b> means the whole interval of the change of the seat gap (the largest minus "
                    "the smallest seat win rate) lies below zero; <b>no change beyond the margin</b>, that "
                    "the whole (equivalence) interval of a change lies inside the margin; <b>changed</b>, "
                    "wholly outside it. The intervals are confidence sequences, valid however often the runs "
                    "are looked at or extended. " + (
                        f"The chance that any judged verdict of the comparison is wrong is at most "
                        f"{100 * sum(judged.values()):.3g}% ({html.escape(split)})" if judged else
                        "No verdict is judged here")
                    + "; a <b>description</b> is not judged and carries its own 95% interval "
                    "(<code>--questions</code> chooses what is judged). pp = percentage points of win "
                    "rate.</p>")
    return sec


def profile_block(section: Section, text: str, verdicts: list[Verdict]) -> str:
    """A profile's card: stable at the top or not, then each answer's change from the second strongest
    level to the strongest (paired)."""
    items = "".join(f"<li><span class='status status-{v.status}'>{badge_words(v, CHANGE_BADGES) or ''}"
                    "</span> "
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
