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


def cell_map(values: np.ndarray, edges: tuple[np.ndarray, np.ndarray],
             marks: list[tuple[float, float, str, bool]], title: str, labels: tuple[str, str, str],
             vmax: float | None = None) -> Figure:
    """A heat map of a grid of cells (`values[i, j]`: column i of the x axis, row j of the y axis; NaN an
    empty cell, drawn blank) between `edges` (x, y), coloured by the value (low is good: light), with
    points `marks` (x, y, label, filled) drawn on top: a filled star with its label, or an open circle."""
    fig, ax = plt.subplots(figsize=TALL)
    grid = np.ma.masked_invalid(np.asarray(values, dtype=float).T)
    mesh = ax.pcolormesh(edges[0], edges[1], grid, cmap="viridis_r", vmin=0.0, vmax=vmax, shading="flat")
    fig.colorbar(mesh, ax=ax, label=labels[2])
    for x, y, label, filled in marks:
        if filled:
            ax.plot(x, y, marker="*", markersize=16, color="red", markeredgecolor="white")
            ax.annotate(label, (x, y), textcoords="offset points", xytext=(6, 6), fontsize=8, color="black",
                        bbox={"boxstyle": "round,pad=0.2", "fc": "white", "alpha": 0.8})
        else:
            ax.plot(x, y, marker="o", markersize=8, markerfacecolor="none", markeredgecolor="red")
    ax.set_xlim(edges[0][0], edges[0][-1])
    ax.set_ylim(edges[1][0], edges[1][-1])
    fig = _finish(fig, ax, title, labels[0], labels[1])
    ax.grid(False)
    return fig


def two_lines(x: np.ndarray, left: np.ndarray, right: np.ndarray, title: str,
              labels: tuple[str, str, str]) -> Figure:
    """Two series against one x axis, each on its own y axis (left: solid, right: dashed), e.g. a
    search's coverage and its best objective against the games spent."""
    fig, ax = plt.subplots(figsize=WIDE)
    ax.plot(x, left, color="tab:blue", marker=".", label=labels[1])
    other = ax.twinx()
    other.plot(x, right, color="tab:orange", linestyle="--", marker=".", label=labels[2])
    other.set_ylabel(labels[2])
    ax.tick_params(axis="y", labelcolor="tab:blue")
    other.tick_params(axis="y", labelcolor="tab:orange")
    return _finish(fig, ax, title, labels[0], labels[1])


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
