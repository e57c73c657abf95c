"""Figures for the report: matplotlib (Agg), every chart titled with its sample size, every axis labelled.

Each function takes plain DataFrames or arrays and returns a Figure; several runs overlay (grouped bars
or stacked histograms, one colour per run).
"""

from __future__ import annotations

import contextlib
import os
import textwrap
from collections.abc import Iterator
from typing import Any

import matplotlib

matplotlib.use("Agg")

import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
import pandas as pd  # noqa: E402
from matplotlib.figure import Figure  # noqa: E402

WIDE = (8.0, 4.2)
TALL = (8.0, 6.0)


def _finish(fig: Figure, ax, title: str, xlabel: str, ylabel: str) -> Figure:
    ax.set_title(title, fontsize=11)
    ax.set_xlabel(xlabel)
    ax.set_ylabel(ylabel)
    ax.grid(axis="y", alpha=0.3)
    fig.tight_layout()
    fit_titles(fig)
    return fig


def fit_titles(fig: Figure) -> None:
    """Wrap any axes title wider than the figure onto more lines, so no title is clipped at the image's
    edge (a title is centred on its axes, which a legend beside the plot pushes left)."""
    renderer = fig.canvas.get_renderer()
    for ax in fig.axes:
        title = ax.title
        text = title.get_text()
        width = 70
        while text and not title_fits(fig, title, renderer) and width > 20:
            title.set_text(textwrap.fill(text, width))
            fig.tight_layout()
            width -= 8


def title_fits(fig: Figure, title: Any, renderer: Any = None) -> bool:
    """Whether an axes title lies wholly inside the figure."""
    box = title.get_window_extent(renderer or fig.canvas.get_renderer())
    return box.x0 >= 0 and box.x1 <= fig.bbox.x1 and box.y1 <= fig.bbox.y1


def grouped_bars(frame: pd.DataFrame, category: str, value: str, low: str, high: str, series: str | None,
                 title: str, xlabel: str, ylabel: str, reference: float | None = None,
                 reference_label: str = "", percent: bool = True, horizontal: bool = False) -> Figure:
    """Bars of `value` per `category` with 95% interval whiskers, one bar per `series` (run) in a group."""
    scale = 100.0 if percent else 1.0
    groups = list(dict.fromkeys(frame[series])) if series else [None]
    cats = list(dict.fromkeys(frame[category]))
    fig, ax = plt.subplots(figsize=TALL if horizontal and len(cats) > 12 else WIDE)
    width = 0.8 / len(groups)
    pos = np.arange(len(cats), dtype=float)
    for i, group in enumerate(groups):
        part = frame if group is None else frame[frame[series] == group]
        part = part.set_index(category).reindex(cats)
        y = part[value].to_numpy(dtype=float) * scale
        err = np.vstack([y - part[low].to_numpy(dtype=float) * scale,
                         part[high].to_numpy(dtype=float) * scale - y])
        where = pos - 0.4 + width * (i + 0.5)
        # A bar with no interval (one game, or none) is not estimable: it is named, not drawn.
        ok = np.isfinite(err).all(axis=0) & np.isfinite(y)
        whiskers = err[:, ok] if np.any(err[:, ok]) else None  # a run shown without intervals: no caps
        if horizontal:
            ax.barh(where[ok], y[ok], height=width, xerr=whiskers, capsize=2, label=group)
        else:
            ax.bar(where[ok], y[ok], width=width, yerr=whiskers, capsize=3, label=group)
        for at in where[~ok]:
            if horizontal:
                ax.text(0, at, " not estimable", va="center", ha="left", fontsize=7, color="grey")
            else:
                ax.text(at, 0, "not estimable", va="bottom", ha="center", rotation=90, fontsize=7,
                        color="grey")
    if horizontal:
        ax.set_yticks(pos, [str(c) for c in cats])
        ax.invert_yaxis()
        if reference is not None:
            ax.axvline(reference * scale, color="grey", linestyle="--", label=reference_label or None)
    else:
        ax.set_xticks(pos, [str(c) for c in cats], rotation=0 if len(cats) <= 8 else 60)
        if reference is not None:
            ax.axhline(reference * scale, color="grey", linestyle="--", label=reference_label or None)
    if len(groups) > 1 or reference_label:  # beside the plot, so it never covers a bar
        ax.legend(fontsize=8, loc="upper left", bbox_to_anchor=(1.01, 1.0), borderaxespad=0)
    fig = _finish(fig, ax, title, xlabel, ylabel)
    if horizontal:
        ax.grid(axis="x", alpha=0.3)
    return fig


def histograms(samples: dict[str, Any], title: str, xlabel: str, ylabel: str = "share of games (%)",
               discrete: bool = True) -> Figure:
    """Distributions of a quantity per run, as shares (so runs of different sizes compare). Each run's
    samples are an array, or an integer histogram (`analysis.tally.Hist`: values and their counts)."""
    fig, ax = plt.subplots(figsize=WIDE)
    values, counts = [], []
    for v in samples.values():
        if hasattr(v, "counts"):  # a Hist: each value that occurred, weighted by its count
            present = np.flatnonzero(v.counts)
            values.append((v.offset + present).astype(float))
            counts.append(v.counts[present].astype(float))
        else:
            v = np.asarray(v, dtype=float)
            values.append(v[~np.isnan(v)])
            counts.append(np.ones(len(values[-1])))
    lo = min((v.min() for v in values if len(v)), default=0)
    hi = max((v.max() for v in values if len(v)), default=1)
    bins = np.arange(np.floor(lo), np.ceil(hi) + 2) - 0.5 if discrete else 30
    for label, v, c in zip(samples, values, counts, strict=True):
        if len(v):
            weights = 100.0 * c / c.sum()
            ax.hist(v, bins=bins, weights=weights, histtype="step" if len(samples) > 1 else "bar",
                    alpha=0.85, linewidth=1.6, label=label)
    if len(samples) > 1:
        ax.legend(fontsize=8, loc="upper left", bbox_to_anchor=(1.01, 1.0),  # beside the data
                  borderaxespad=0)
    return _finish(fig, ax, title, xlabel, ylabel)


@contextlib.contextmanager
def closing_new_figures() -> Iterator[None]:
    """Close, on the way out, every figure made inside and still open: a report refused part-way leaves
    none behind (figures made before are left alone)."""
    before = set(plt.get_fignums())
    try:
        yield
    finally:
        for number in set(plt.get_fignums()) - before:
            plt.close(number)


def save(fig: Figure, path: str | os.PathLike[str]) -> None:
    """Write a figure as PNG (90 dpi) and close it."""
    fig.savefig(path, dpi=90)
    plt.close(fig)
