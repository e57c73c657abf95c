"""The report's page: `write_report` writes a report folder (index.html with its sections, verdicts
first, summary.json and each table as CSV) from sections built with the page kit (analysis/page.py), with
the list of runs, their labels (`label_runs`) and how each read the rules (analysis.readings).
"""

from __future__ import annotations

import html
import json
import shutil
import time
from pathlib import Path
from typing import Any

import pandas as pd

from analysis import charts
from analysis.model_provenance import models_text
from analysis.page import FOLD_ROWS, Section, format_table, human_header, per_run, question_order
from analysis.readings import readings_text, reconstruction_notes
from analysis.run_labels import run_label


def label_runs(runs: list[Any]) -> list[str]:
    """Short labels of runs (`analysis.run_labels.run_label`), with the folder name where two collide."""
    labels = [run_label(run.manifest, run.path, run.spec) for run in runs]
    if len(set(labels)) < len(labels):
        labels = [f"{label} ({run.path.name})" for label, run in zip(labels, runs, strict=True)]
    return labels


CSS = """
body { font-family: system-ui, sans-serif; margin: 2em auto; max-width: 1340px; color: #222; }
h1 { font-size: 1.6em; } h2 { border-bottom: 1px solid #ccc; padding-bottom: .2em; margin-top: 2em; }
table { border-collapse: collapse; margin: .8em 0; font-size: .85em; }
th, td { border: 1px solid #ddd; padding: .25em .6em; text-align: right; }
th { background: #f3f3f3; max-width: 9em; white-space: normal; } \
td:first-child, th:first-child { text-align: left; }
figure { margin: 1em 0; } figcaption { font-size: .85em; color: #555; }
img { max-width: 100%; height: auto; }
.note { margin: .3em 0; } .meta { color: #555; font-size: .9em; }
.wide { overflow-x: auto; max-width: 100%; }
details { margin: .6em 0; } summary { cursor: pointer; color: #245; }
.verdicts { display: grid; grid-template-columns: repeat(auto-fit, minmax(420px, 1fr)); gap: .6em 1.2em; }
.run-verdicts { border: 1px solid #ddd; border-radius: 6px; padding: .4em .8em; font-size: .85em; }
.run-verdicts h3 { font-size: 1em; margin: .2em 0; } .run-verdicts ul { margin: .2em 0; padding-left: 1.1em; }
.run-verdicts li { margin: .25em 0; }
.status { font-weight: 600; padding: 0 .3em; border-radius: 3px; }
.status-within, .status-small { background: #dff0d8; } .status-beyond { background: #f8d7da; }
.status-undecided { background: #fff3cd; } .status-too_few, .status-info { background: #eee; }
"""


def write_report(sections: list[Section], runs: list[Any], labels: list[str], summary: dict,
                 out: Path, title: str = "Balance report", values_runs: dict[str, Any] | None = None) -> Path:
    """Write the page: ``out``/index.html (a "verdicts" section first, then the runs, then each section's
    notes, charts and tables), charts/<name>.png, tables/<name>.csv (both folders replaced) and
    summary.json. Returns index.html. `values_runs` (label -> `balance values` run) are listed and counted
    with the self-play runs: every run directory the page reports on."""
    out.mkdir(parents=True, exist_ok=True)
    for sub in ("charts", "tables"):
        shutil.rmtree(out / sub, ignore_errors=True)
        (out / sub).mkdir()
    lead = [s for s in sections if s.question == "verdicts"]
    sections = [s for s in sections if s.question != "verdicts"]
    body = [f"<h1>{html.escape(title)}</h1>"]
    for section in lead:
        body += _section_html(section, out)
    values_runs = values_runs or {}
    count = len(runs) + len(values_runs)
    plural = "y" if count == 1 else "ies"
    body += [f"<h2 id='runs'>The runs</h2><p class='meta'>Generated {time.strftime('%Y-%m-%d %H:%M')} from "
             f"{count} run director{plural}; every figure is computed from the logged tables. "
             "Intervals are 95%.</p><ul>"]
    for label, run in values_runs.items():
        m = run.manifest
        body.append(f"<li><b>{html.escape(label)}</b>: {html.escape(str(run.path))} — {m.game}, "
                    f"{m.players} players, agents {html.escape(','.join(m.agents))}, seed {m.seed}, "
                    f"n = {run.table['game_id'].nunique():,} base games (a values study), "
                    f"config {m.config_hash}</li>")
    for label, run in zip(labels, runs, strict=True):
        m = run.manifest
        readings = readings_text(run)
        body.append(f"<li><b>{html.escape(label)}</b>: {html.escape(str(run.path))} — {m.game}, "
                    f"{m.players} players, agents {html.escape(','.join(m.agents))}"
                    f"{' (seats rotated)' if m.rotate_seats else ''}, seed {m.seed}, "
                    f"n = {run.n_games:,} games"
                    + (f" (<b>{run.partial_note}</b>)" if run.partial_note else "")
                    + (", played until its verdicts were decided" if m.stopped_adaptively else "")
                    + f", config {m.config_hash}" + html.escape(models_text(m.models, m.config_hash))
                    + (f"; rules read as {html.escape(readings)}" if readings else "")
                    + "</li>")
    body.append("</ul>")
    body += [f"<p class='note'><b>Reconstructed.</b> {html.escape(note)}</p>"
             for note in reconstruction_notes(runs, labels)]
    for section in sorted(sections, key=question_order):
        body += _section_html(section, out)
    page = (f"<!DOCTYPE html><html lang='en'><head><meta charset='utf-8'><title>{html.escape(title)}</title>"
            f"<style>{CSS}</style></head><body>{''.join(body)}</body></html>")
    (out / "index.html").write_text(page)
    (out / "summary.json").write_text(json.dumps(summary, indent=2, default=_json_default))
    return out / "index.html"


def _section_html(section: Section, out: Path) -> list[str]:
    """A section as HTML, its charts and CSVs written into `out`: long tables folded (FOLD_ROWS)."""
    body = [f"<h2 id='{section.id}'>{html.escape(section.title)}</h2>"]
    body += [f"<p class='note'>{note}</p>" for note in section.notes]
    body += section.html
    for name, caption, figure in section.charts:
        charts.save(figure, out / "charts" / f"{name}.png")
        body.append(f"<figure><img src='charts/{name}.png' alt='{html.escape(caption)}'>"
                    f"<figcaption>{html.escape(caption)}</figcaption></figure>")
    for name, caption, frame in section.tables:
        frame.to_csv(out / "tables" / f"{name}.csv", index=False)
        head = f"<b>{html.escape(caption)}</b> (<a href='tables/{name}.csv'>CSV</a>)"
        tables = []
        for part_label, part in per_run(format_table(frame)):
            if part_label:
                tables.append(f"<p class='meta'>{html.escape(part_label)}</p>")
            tables.append("<div class='wide'>"
                          + part.rename(columns=human_header).to_html(index=False, border=0, na_rep="")
                          + "</div>")
        if len(frame) > FOLD_ROWS:
            body.append(f"<details><summary>{head}, {len(frame):,} rows</summary>{''.join(tables)}</details>")
        else:
            body += [f"<p class='note'>{head}</p>", *tables]
    return body


def _json_default(value: Any) -> Any:
    """numpy scalars and DataFrames (as records) in summary.json."""
    if hasattr(value, "item"):
        return value.item()
    if isinstance(value, pd.DataFrame):
        return value.to_dict(orient="records")
    raise TypeError(f"not JSON: {type(value)}")
