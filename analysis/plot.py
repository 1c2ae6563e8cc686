"""The picture of a behavioural diff (`hansa diff A B --simulate N --plot FILE.png|svg`).

Under the title, what the games cost (CPU seconds per game) and how many paired games diverged;
then four panels, side A in blue and side B in orange: mean PP per player by scoring category, the
share of games each end trigger ended, the distribution of game length in turns, and win rate by
seat. Bars carry their 95% intervals as whiskers; a star marks a statistically clear difference
(the same test and Holm correction as the text report). Drawn with matplotlib's object API on the
Agg/SVG backends (no pyplot state, no display needed) and written atomically.
"""

from __future__ import annotations

import io
import os
import textwrap
from collections.abc import Sequence
from pathlib import Path

from hansa.compiler.errors import HansaError
from matplotlib.figure import Figure
from matplotlib.lines import Line2D
from matplotlib.patches import Patch

from hansa.atomic import write_atomically

from .behaviour import ALPHA, BehaviourDiff, Comparison, SideRun, agents_text, divergence_text

COLOURS = ("#1f77b4", "#ff7f0e")  # A blue, B orange (matplotlib's first two, colour-blind safe)
STAR = "*"


def write_plot(result: BehaviourDiff, path: str | os.PathLike[str]) -> None:
    """Draw the comparison to `path` (.png or .svg): a temporary file, renamed when complete."""
    target = Path(path)
    fmt = target.suffix.lower().lstrip(".")
    if fmt not in ("png", "svg"):
        raise HansaError(f"--plot: give a .png or .svg file name, not '{path}'")
    figure = draw(result)
    buffer = io.BytesIO()
    metadata = {"Date": None} if fmt == "svg" else {"Software": None}
    try:
        figure.savefig(buffer, format=fmt, dpi=110, metadata=metadata)
        write_atomically(target, buffer.getvalue())
    except OSError as exc:
        raise HansaError(f"--plot: cannot write '{path}': {exc.strerror or exc}") from None
    except HansaError as exc:
        raise HansaError(f"--plot: {exc}") from None


def draw(result: BehaviourDiff):
    """The figure (a `matplotlib.figure.Figure`, not attached to any GUI)."""

    figure = Figure(figsize=(14, 12.5), layout="constrained")
    a, b = result.a, result.b
    figure.suptitle(
        f"A: {a.playable.label}   vs   B: {b.playable.label}\n"
        f"{a.games} games per side, {_players(a, b)}, agents {agents_text(a.agents)}, "
        f"seed {result.seed}\n{_cost_line(a, b)}; {divergence_text(result)}",
        fontsize=12,
    )
    grid = figure.add_gridspec(4, 2, height_ratios=(0.05, 1, 1, 1))
    by_group = {
        group: [c for c in result.comparisons if c.group == group]
        for group in ("length", "end", "points", "wins")
    }
    categories = [c for c in by_group["points"] if c.measure.count(":") == 2]
    _bars(
        figure.add_subplot(grid[1, 0]),
        categories,
        "mean PP per player by scoring category",
        "PP per player",
        result,
    )
    _bars(
        figure.add_subplot(grid[1, 1]),
        by_group["end"],
        "share of games each end trigger ended",
        "% of games",
        result,
        percent=True,
    )
    turns = next(c for c in by_group["length"] if c.measure == "turns")
    _lengths(figure.add_subplot(grid[2, 0]), a, b, turns)
    wins = figure.add_subplot(grid[2, 1])
    _bars(
        wins,
        by_group["wins"],
        "win rate by seat (a shared win counts 1/k)",
        "% of games",
        result,
        percent=True,
    )
    if a.players == b.players:
        wins.axhline(100 / a.players, color="#666666", linestyle="--", linewidth=1)
    else:
        for run, colour in ((a, COLOURS[0]), (b, COLOURS[1])):
            wins.axhline(100 / run.players, color=colour, linestyle="--", linewidth=1)
    _bars(
        figure.add_subplot(grid[3, :]),
        _usage_shares(result),
        "share of games each bonus marker, permanent marker and rule in words was used or applied"
        " (* only one side has it)",
        "% of games",
        result,
        percent=True,
    )
    _legend(figure.add_subplot(grid[0, :]), a, b)
    figure.supxlabel(
        "whiskers: 95% intervals (t for means, Wilson for shares).  "
        f"{STAR} clear difference: Holm-adjusted p < {ALPHA} over {result.tested} comparisons "
        "(Welch's t for means, two-proportion z for shares)",
        fontsize=9,
        color="#444444",
    )
    return figure


def _usage_shares(result: BehaviourDiff) -> list[Comparison]:
    """The usage rows the other panels do not show, as shares of games (Wilson intervals); a
    side without the element has no bar. Not tested, so never starred."""
    ua, ub = result.a.usage(), result.b.usage()
    differing = set(result.differing())
    rows = []
    for key in sorted(set(ua) | set(ub)):
        if key.split(":", 1)[0] not in ("marker", "permanent", "rule"):
            continue
        stats = []
        for usage, run in ((ua, result.a), (ub, result.b)):
            item = usage.get(key)
            present = item is not None and (key in run.elements or item["total"])
            stats.append(item["games"] if present else None)
        label = (ua.get(key) or ub[key])["label"]
        if key.startswith("rule:"):  # its source location: the file's name and line
            label = key.removeprefix("rule:").replace("\\", "/").rsplit("/", 1)[-1]
        label = label if len(label) <= 28 else label[:27] + "…"
        label += " *" if key in differing else ""
        rows.append(Comparison("usage", key, label, "share", stats[0], stats[1]))
    return rows


def _cost_line(a: SideRun, b: SideRun) -> str:
    """ "CPU per game: A 0.022 s, B 0.026 s" — what the games cost, side by side."""
    per_game = [run.cost()["cpu_seconds_per_game"] for run in (a, b)]
    return f"CPU per game: A {per_game[0]:.3g} s, B {per_game[1]:.3g} s"


def _legend(axes, a: SideRun, b: SideRun) -> None:
    """One legend for every panel, in a strip under the title, so none hides a bar or a star."""

    handles = [
        Patch(color=COLOURS[0], label=f"A: {a.playable.label}"),
        Patch(color=COLOURS[1], label=f"B: {b.playable.label}"),
        Line2D([], [], color="#666666", linestyle="--", label="even win rate 1/P"),
    ]
    axes.axis("off")
    axes.legend(handles=handles, loc="center", ncols=3, fontsize=10, frameon=False)


def _players(a: SideRun, b: SideRun) -> str:
    if a.players == b.players:
        return f"{a.players} players"
    return f"{a.players} players (A) / {b.players} players (B)"


def _centre(comparison: Comparison, stat: dict[str, float]) -> float:
    return stat["share"] if comparison.kind == "share" else stat["mean"]


def _bars(
    axes,
    comparisons: Sequence[Comparison],
    title: str,
    ylabel: str,
    result: BehaviourDiff,
    percent: bool = False,
) -> None:
    """Grouped bars A | B per measure, whiskers for the intervals, a star over clear ones."""
    scale = 100.0 if percent else 1.0
    width = 0.38
    top = 0.0
    for side, colour in enumerate(COLOURS):
        xs, heights, below, above = [], [], [], []
        for i, c in enumerate(comparisons):
            stat = c.a if side == 0 else c.b
            if stat is None:
                continue
            centre = _centre(c, stat) * scale
            xs.append(i + (side - 0.5) * width)
            heights.append(centre)
            below.append(max(0.0, centre - stat["low"] * scale))
            above.append(max(0.0, stat["high"] * scale - centre))
            top = max(top, stat["high"] * scale)
        axes.bar(
            xs,
            heights,
            width,
            yerr=[below, above],
            capsize=3,
            color=colour,
            error_kw={"elinewidth": 1, "ecolor": "#333333"},
        )
    for i, c in enumerate(comparisons):
        if c.clear:
            high = max(s["high"] for s in (c.a, c.b) if s is not None) * scale
            axes.annotate(
                STAR,
                (i, high),
                xytext=(0, 2),
                textcoords="offset points",
                ha="center",
                va="bottom",
                fontsize=16,
                fontweight="bold",
            )
    axes.set_xticks(range(len(comparisons)))
    axes.set_xticklabels([_tick(c.label) for c in comparisons], fontsize=9)
    axes.set_ylim(0, (top or 1.0) * 1.18)
    axes.set_title(title, fontsize=11)
    axes.set_ylabel(ylabel)
    axes.grid(axis="y", alpha=0.3)
    axes.set_axisbelow(True)


def _tick(label: str) -> str:
    """Category and trigger names wrapped so neighbouring ticks do not collide."""
    return textwrap.fill(label.replace("_", " "), 12)


def _lengths(axes, a: SideRun, b: SideRun, turns: Comparison) -> None:
    """Overlaid histograms of turns per game, with each side's mean and its interval shaded."""
    values = [[float(r["turns"]) for r in run.records] for run in (a, b)]
    low = min(min(v) for v in values)
    high = max(max(v) for v in values)
    bins = _bins(low, high, max(len(v) for v in values))
    for data, colour in zip(values, COLOURS, strict=True):
        axes.hist(
            data,
            bins=bins,
            color=colour,
            alpha=0.45,
            edgecolor=colour,
        )
    for stat, colour in ((turns.a, COLOURS[0]), (turns.b, COLOURS[1])):
        if stat is None:
            continue
        axes.axvline(stat["mean"], color=colour, linewidth=2)
        axes.axvspan(stat["low"], stat["high"], color=colour, alpha=0.2)
    mark = f"  {STAR} clear difference" if turns.clear else ""
    lines = [
        f"{letter} mean {stat['mean']:.1f} [{stat['low']:.1f}, {stat['high']:.1f}]"
        for letter, stat in (("A", turns.a), ("B", turns.b))
        if stat is not None
    ]
    diff = turns.difference
    if diff:
        lines.append(f"B − A {diff['value']:+.1f} [{diff['low']:+.1f}, {diff['high']:+.1f}]")
    shift = "\n".join(lines)
    axes.set_title(f"game length: turns per game (lines: means, bands: 95% CI){mark}", fontsize=11)
    axes.text(
        0.01,
        0.97,
        shift,
        transform=axes.transAxes,
        va="top",
        fontsize=9,
        bbox={"facecolor": "white", "alpha": 0.85, "edgecolor": "none"},
    )
    axes.set_ylim(0, axes.get_ylim()[1] * 1.3)  # room for the summary box above the peak
    axes.set_xlabel("turns")
    axes.set_ylabel("games")
    axes.grid(axis="y", alpha=0.3)
    axes.set_axisbelow(True)


def _bins(low: float, high: float, n: int) -> list[float]:
    """Whole-turn bins, about √n of them (at least 5, at most 25: turn counts have a parity
    pattern that narrower bins turn into a saw-tooth)."""
    count = max(5, min(25, round(n**0.5)))
    span = max(1.0, high - low)
    step = max(1.0, round(span / count))
    edges = [low - 0.5]
    while edges[-1] <= high:
        edges.append(edges[-1] + step)
    return edges
