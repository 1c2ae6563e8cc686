"""The picture of a ladder (`hansa ladder … --plot FILE.png|svg`).

Left, each agent's rating (a dot) with its 95% bootstrap interval (a bar), best at the top; right,
the share of pairwise results each agent scored against each other (a heat map with the counts).
Drawn with matplotlib's object API (no pyplot state, no display needed) and written atomically,
like the behavioural diff's plot (`plot.py`).
"""

from __future__ import annotations

import io
import os
from pathlib import Path

from hansa.runtime.errors import HansaError
from matplotlib.figure import Figure

from hansa.atomic import write_atomically

FORMATS = ("png", "svg")


def check_plot_path(path: str | os.PathLike[str]) -> str:
    """The picture's format from its name (.png or .svg), or one clear error before any game."""
    fmt = Path(path).suffix.lower().lstrip(".")
    if fmt not in FORMATS:
        raise HansaError(f"--plot: give a .png or .svg file name, not '{path}'")
    return fmt


def write_ladder_plot(report: dict, path: str | os.PathLike[str]) -> None:
    """Draw the ladder's report (`Ladder.to_json()`) to `path`: a temporary file, then renamed."""
    fmt = check_plot_path(path)
    figure = draw_ladder(report)
    buffer = io.BytesIO()
    metadata = {"Date": None} if fmt == "svg" else {"Software": None}
    figure.savefig(buffer, format=fmt, dpi=110, metadata=metadata)
    try:
        write_atomically(path, buffer.getvalue())
    except HansaError as exc:
        raise HansaError(f"--plot: {exc}") from None


def draw_ladder(report: dict) -> Figure:
    """The figure: ratings with intervals, and the pairwise score shares."""
    rows = report["ratings"]
    figure = Figure(figsize=(13, 1.6 + 0.55 * len(rows)), layout="constrained")
    figure.suptitle(
        f"{report['game']}: {report['games']} games, {report['players']} players, "
        f"seed {report['seed']}; Bradley–Terry (Elo scale, 0 = {report['centre']}), "
        f"{round(100 * report['interval']['level'])}% bootstrap intervals",
        fontsize=11,
    )
    ratings_axes, pairs_axes = figure.subplots(1, 2, width_ratios=(3, 2))
    _ratings(ratings_axes, rows)
    _pairs(pairs_axes, report)
    return figure


def _ratings(axes, rows: list[dict]) -> None:
    y = list(range(len(rows)))[::-1]  # best at the top
    for row, at in zip(rows, y, strict=True):
        axes.plot([row["low"], row["high"]], [at, at], color="#1f77b4", linewidth=3)
        axes.plot([row["rating"]], [at], "o", color="#1f77b4", markersize=7)
        axes.annotate(
            f"{row['rating']:.0f} [{row['low']:.0f}, {row['high']:.0f}]",
            (row["high"], at),
            xytext=(6, 0),
            textcoords="offset points",
            va="center",
            fontsize=9,
        )
    axes.set_yticks(y, [row["agent"] for row in rows])
    axes.set_xlabel("rating (Elo scale)")
    axes.margins(x=0.25, y=0.15)
    axes.grid(axis="x", alpha=0.3)


def _pairs(axes, report: dict) -> None:
    names = [row["agent"] for row in report["ratings"]]
    index = {name: i for i, name in enumerate(names)}
    grid = [[float("nan")] * len(names) for _ in names]
    counts = [[0] * len(names) for _ in names]
    for pair in report["pairs"]:
        if not pair["results"]:
            continue
        i, j = index[pair["a"]], index[pair["b"]]
        grid[i][j], grid[j][i] = pair["a_score"], 1 - pair["a_score"]
        counts[i][j] = counts[j][i] = pair["results"]
    image = axes.imshow(grid, cmap="RdBu", vmin=0, vmax=1)
    for i in range(len(names)):
        for j in range(len(names)):
            if counts[i][j]:
                axes.text(
                    j,
                    i,
                    f"{100 * grid[i][j]:.0f}%\n({counts[i][j]})",
                    ha="center",
                    va="center",
                    fontsize=8,
                    color="white" if abs(grid[i][j] - 0.5) > 0.3 else "black",  # on dark cells
                )
    axes.set_xticks(range(len(names)), names, rotation=30, ha="right")
    axes.set_yticks(range(len(names)), names)
    axes.set_title("row's score against column (results)", fontsize=10)
    axes.figure.colorbar(image, ax=axes, shrink=0.8)
