"""The workbench's HTML: Jinja2 templates (sim/workbench/templates) filled from the editor's groups and the
jobs' looks, and the seat chart drawn as inline SVG on the server (no script or font from elsewhere: the
page works offline)."""

from __future__ import annotations

import html
from typing import Any

from jinja2 import Environment, PackageLoader, select_autoescape
from markupsafe import Markup

from analysis.questions import DEFAULT_QUESTIONS, QUESTIONS
from analysis.verdict_section import CHANGE_BADGES, badge, badge_words
from analysis.verdicts import duration
from sim import games
from sim.app.skill_cost import SKILLS
from sim.workbench.form import groups
from sim.workbench.status import JobView, RunView
from sim.workbench.workspace import Start

_ENV = Environment(loader=PackageLoader("sim.workbench", "templates"), autoescape=select_autoescape())


def counted(view: JobView) -> str:
    """A job's games as the status line and the runs list both say them, from the look its cards show:
    "735 games of 1,000"; a comparison's each config's, "start 735 · draft 0 games of 1,000 each"."""
    games = (f"start {view.counts[0]:,} · draft {view.counts[1]:,} games" if view.job.kind == "compare"
             and len(view.counts) == 2 else f"{view.games:,} games")
    if not view.target:
        return games
    return f"{games} of {view.target:,}" + (" each" if len(view.counts) > 1 else "")


def change_badge(verdict: Any) -> Markup:
    """A comparison's verdict badge in `balance compare`'s words ("fairer", "unchanged within the margin")."""
    words = badge_words(verdict, CHANGE_BADGES)
    return Markup(f"<span class='status status-{verdict.status}'>{words}</span> ") if words else Markup("")


_ENV.globals.update(badge=lambda v: Markup(badge(v)), change_badge=change_badge, duration=duration,
                    counted=counted)


#: each question's check box says, on hover, what it asks (analysis.questions names them)
QUESTION_WORDS = {"seats": "are the seats fair? (compare: is the draft fairer than its start?)",
                  "start": "does the start player gain?", "ties": "how often do games tie, and whom does the "
                  "tie-break favour?", "length": "how long do games run?"}


def page(workspace: str, starts: list[Start]) -> str:
    questions = [(q, QUESTION_WORDS.get(q, q)) for q in QUESTIONS]

    offered = {name for spec in games.specs() for name in spec.agents}
    skills = [(name, words) for name, words in SKILLS.items() if name in offered]
    return _ENV.get_template("page.html").render(workspace=workspace, games=games.specs(), starts=starts,
                                                 questions=questions, asked=DEFAULT_QUESTIONS, skills=skills)


def editor(draft: Any, players: int, problem: str | None) -> str:
    """The editor of a draft: its groups of fields, the bulk edit, and whether it is valid for `players`."""
    config = draft.config
    return _ENV.get_template("editor.html").render(
        draft=draft.path.name, title=draft.spec.vocabulary.title, players=players, problem=problem,
        groups=groups(config, draft.spec), patterns=bulk_patterns(config))


def bulk_patterns(config: dict[str, Any]) -> list[str]:
    """Suggestions for the bulk edit: every array of tables' columns with [*] ("chits.blue[*].points",
    "chits.*[*].points", "cards[*].garden")."""
    out: list[str] = []
    for key, value in config.items():
        tables = value.items() if isinstance(value, dict) else [(None, value)]
        for sub, items in tables:
            if isinstance(items, list) and items and all(isinstance(i, dict) for i in items):
                prefix = f"{key}.{sub}" if sub else key
                out += [f"{prefix}[*].{c}" for c in dict.fromkeys(k for i in items for k in i)]
                if sub:
                    out += [f"{key}.*[*].{c}" for c in dict.fromkeys(k for i in items for k in i)]
    return list(dict.fromkeys(out))


def job(view: JobView, workspace: str) -> str:
    labels = ["start (base)", "draft (variant)"] if view.job.kind == "compare" else ["run"]
    return _ENV.get_template("job.html").render(view=view, workspace=workspace, labels=labels,
                                                seat_chart=seat_chart, worth_chart=worth_chart)


def job_list(looks: list[JobView]) -> str:
    """The runs list: each job's kind, config, state and games (its look's, as its card counts them)."""
    return _ENV.get_template("jobs.html").render(looks=looks, busy=any(v.job.active for v in looks))


def seat_chart(run: RunView) -> Markup:
    """Each seat's win rate as a dot on its interval, with the fair share dashed: an SVG 480 px wide."""
    seats, fair = run.seats, run.fair
    if not seats or fair is None:
        return Markup("")
    top = max(0.6, *(s["high"] for s in seats))
    width, left, row = 480, 70, 26
    height = row * len(seats) + 34
    x = lambda share: left + (width - left - 20) * max(0.0, share) / top  # noqa: E731
    parts = [f"<svg class='seat-chart' width='{width}' height='{height}' role='img' "
             f"aria-label='seat win rates with 95% intervals'>"]
    for i, s in enumerate(seats):
        y = 14 + i * row
        parts.append(f"<text x='4' y='{y + 4}'>seat {s['seat']}</text>"
                     f"<line x1='{x(s['low']):.1f}' x2='{x(s['high']):.1f}' y1='{y}' y2='{y}' class='ci'/>"
                     f"<circle cx='{x(s['rate']):.1f}' cy='{y}' r='4'/>"
                     f"<text x='{x(s['high']) + 6:.1f}' y='{y + 4}' class='value'>"
                     f"{100 * s['rate']:.1f}%</text>")
    base = row * len(seats) + 6
    parts.append(f"<line x1='{x(fair):.1f}' x2='{x(fair):.1f}' y1='2' y2='{base}' class='fair'/>"
                 f"<text x='{x(fair):.1f}' y='{base + 14}' class='fair-label' text-anchor='middle'>"
                 f"fair {100 * fair:.1f}%</text></svg>")
    caption = ("Win rate by seat (seat 0 starts), each with its 95% confidence sequence: an interval that "
               "stays valid however often the page is looked at while games are added.")
    return Markup("".join(parts) + f"<p class='caption meta'>{html.escape(caption)}</p>")


def worth_chart(run: RunView) -> Markup:
    """Each component's worth minus its face value in whole score units, ranked, with its interval
    (simultaneous over the components) and the margin as a band around zero: an SVG 480 px wide."""
    rows = [v for v in run.verdicts if v.key.startswith("worth:") and v.detail.get("face") is not None
            and v.low == v.low]
    if not rows:
        return Markup("")
    reach = max(2.0, *(max(abs(v.low), abs(v.high)) for v in rows), rows[0].margin or 0)
    width, left, row = 480, 150, 22
    mid = left + (width - left - 60) / 2
    x = lambda d: mid + (width - left - 60) / 2 * d / reach  # noqa: E731
    margin = rows[0].margin or 0
    parts = [f"<svg class='worth-chart' width='{width}' height='{row * len(rows) + 30}' role='img' "
             "aria-label='worth minus face value by component'>",
             f"<rect x='{x(-margin):.1f}' y='0' width='{x(margin) - x(-margin):.1f}' "
             f"height='{row * len(rows)}' class='band'/>"]
    for i, v in enumerate(rows):
        y = 12 + i * row
        name = html.escape(v.detail["component"])
        parts.append(f"<text x='4' y='{y + 4}'>{name}</text>"
                     f"<line x1='{x(v.low):.1f}' x2='{x(v.high):.1f}' y1='{y}' y2='{y}' class='ci'/>"
                     f"<circle cx='{x(v.value):.1f}' cy='{y}' r='4'/>"
                     f"<text x='{x(v.high) + 6:.1f}' y='{y + 4}' class='value'>{v.value:+.0f}</text>")
    unit = html.escape(rows[0].unit)
    parts.append(f"<text x='{mid:.1f}' y='{row * len(rows) + 16}' text-anchor='middle' class='fair-label'>"
                 f"0 = priced at its face; the band: the {margin:g}-{unit} margin</text></svg>")
    caption = ("Worth minus face value in whole score points: right of the band, over-valued (it gives more "
               "than it says); left, under-valued. Intervals are simultaneous over the components.")
    return Markup("".join(parts) + f"<p class='caption meta'>{html.escape(caption)}</p>")
