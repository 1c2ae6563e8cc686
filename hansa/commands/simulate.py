"""Simulate many games with agents and report statistics.

Game i is played with a seed derived from --seed and i, so the report is the same for any --jobs
(games are spread over that many processes; default: all cores). Reported, each with its spread
(standard deviation and 95% confidence interval): win rate by seat (a shared victory counts 1/k),
mean PP per scoring category, the winners' PP, end-trigger shares (with Wilson intervals) and game
length in turns, rounds and decisions, and how often each element of the game was used or applied
(action kinds, bonus markers by name, permanent markers, scoring categories, end triggers, rules in
words by source location; docs/play.md, "Which rules fired"); each seat's win rate against an even
share (tested, Holm-corrected) and balance flags for the end triggers, cities, routes and bonus
markers the games never saw end, completed, created or used (docs/play.md, "Balance flags"); and
what the games cost: CPU seconds (summed over workers) per game and per decision, and wall time.
Only that cost changes between runs. A progress bar runs on standard error when it is a terminal
(never with --json).

Agents as for `hansa play`: greedy, random, mcts, strong or module:Class (with :key=value
arguments), one for every seat or one per seat. Agents that differ rotate over the seats game by
game (each agent plays each seat equally often over P games), so results by agent and by seat are
both reported; --seats fixed keeps the order given.
"""

from __future__ import annotations

import argparse
import functools
import json
import sys
import textwrap
import time

from tqdm import tqdm

from hansa.compiler.errors import HansaError
from hansa.play.simulate import USAGE_GROUPS, search_backend_note, simulate

from .play import add_game_options, category_names, end_text, load_game, max_decisions

NAME = "simulate"
HELP = "play many games over several processes and report win rates, scores and game length"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.formatter_class = argparse.RawDescriptionHelpFormatter
    parser.add_argument("game", metavar="GAME", help="game name, e.g. bigbox-hanseatic-45p")
    parser.add_argument(
        "-n", "--games", type=int, required=True, metavar="N", help="number of games to play"
    )
    add_game_options(parser)
    add_seed_and_jobs_options(parser)
    add_seats_option(parser)
    add_executor_options(parser)
    parser.add_argument("--json", action="store_true", help="print the statistics as JSON")


def add_seed_and_jobs_options(parser: argparse.ArgumentParser) -> None:
    """`--seed` and `--jobs` of a study (simulate, ladder)."""
    parser.add_argument(
        "--seed", type=int, default=0, help="seed of the run; game i gets its own (default 0)"
    )
    parser.add_argument(
        "--jobs",
        "-j",
        type=int,
        default=None,
        metavar="J",
        help="processes to spread the games over (default: all cores)",
    )


def add_executor_options(parser, default: str | None = "local") -> None:
    """`--executor local|ray` and `--address ADDR` (docs/simulate.md, "Studies on Ray")."""
    parser.add_argument(
        "--executor",
        choices=("local", "ray"),
        default=default,
        help="where the games are played: processes of this machine (default), or Ray tasks "
        "(pip install 'hansa[cluster]'): a local Ray, or the cluster given by --address",
    )
    parser.add_argument(
        "--address",
        metavar="ADDR",
        default=None,
        help="with --executor ray: the Ray cluster to use (HOST:PORT, 'auto' for the one this "
        "machine belongs to); default: a local Ray started for the run",
    )


def add_seats_option(parser, default: str | None = "rotate") -> None:
    parser.add_argument(
        "--seats",
        choices=("rotate", "fixed"),
        default=default,
        help="with agents that differ, rotate them over the seats game by game (default), or "
        "keep the order given",
    )


class Progress:
    """A tqdm bar on standard error, only when that is a terminal."""

    def __init__(self, total: int, enabled: bool) -> None:
        self.bar = None
        if enabled:
            self.bar = tqdm(total=total, unit="game", file=sys.stderr, leave=False)
        self.done = 0

    def __call__(self, done: int, total: int) -> None:
        if self.bar is not None:
            self.bar.update(done - self.done)
        self.done = done

    def close(self) -> None:
        if self.bar is not None:
            self.bar.close()


def _fmt(stat: dict, digits: int = 1) -> str:
    mean, std, ci = stat["mean"], stat["std"], stat["ci95"]
    return f"{mean:.{digits}f} ± {std:.{digits}f} (95% CI ± {ci:.{digits}f})"


def run(args: argparse.Namespace) -> int:

    if args.games < 1:
        raise HansaError(f"-n must be at least 1, got {args.games}")
    if args.jobs is not None and args.jobs < 1:
        raise HansaError(f"--jobs must be at least 1, got {args.jobs}")
    game = load_game(args.game, args.players, args.spec, backend=args.backend)
    limit = max_decisions(args)
    note = search_backend_note(game, args.agents)
    if note:
        print(note, file=sys.stderr)
    progress = Progress(args.games, enabled=not args.json and sys.stderr.isatty())
    started = time.perf_counter()
    try:
        result = simulate(
            game,
            args.games,
            agents=args.agents,
            seed=args.seed,
            jobs=args.jobs,
            max_decisions=limit,
            progress=progress,
            loader=functools.partial(load_game, spec=args.spec, backend=args.backend),
            seats=args.seats,
            executor=args.executor,
            address=args.address,
        )
    finally:
        progress.close()
    elapsed = time.perf_counter() - started
    report = result.to_json()
    if args.json:
        print(json.dumps(report, indent=1, ensure_ascii=False))
        return 0
    print_report(report, category_names(game), elapsed)
    return 0


def print_report(report: dict, names: dict[str, str], elapsed: float) -> None:
    out = sys.stdout
    print(
        f"{report['game']}: {report['games']} games, {report['players']} players, "
        f"agents {', '.join(report['agents'])}, seed {report['seed']} ({elapsed:.1f} s)",
        file=out,
    )
    if report["seats"] == "rotate":
        print("seats rotate: game i seats the agents shifted by i seats", file=out)
    if len(report["by_agent"]) > 1:
        print("win rate by agent (per seat held; shared wins split):", file=out)
        for name, row in report["by_agent"].items():
            stat = row["win_rate"]
            print(
                f"  {name}: {100 * stat['mean']:5.1f}% ± {100 * stat['ci95']:.1f}   "
                f"PP {_fmt(row['points'])}   ({row['seats']} seats)",
                file=out,
            )
    print("win rate by seat (shared wins split):", file=out)
    for seat, stat in enumerate(report["win_rate_by_seat"]):
        total = report["total_points_by_seat"][seat]
        print(
            f"  seat {seat}: {100 * stat['mean']:5.1f}% ± {100 * stat['ci95']:.1f}   "
            f"PP {_fmt(total)}",
            file=out,
        )
    print("PP per player by category:", file=out)
    for key, stat in report["points_by_category"].items():
        print(f"  {key} {names.get(key, '?'):<18} {_fmt(stat, 2)}", file=out)
    print(f"winners' PP: {_fmt(report['winner_points'])}", file=out)
    print("end triggers (share, Wilson 95% interval, games):", file=out)
    seen: list[str] = []
    for trigger, stat in sorted(report["end_triggers"].items(), key=lambda kv: -kv[1]["count"]):
        print(
            f"  {100 * stat['share']:5.1f}%  [{100 * stat['low']:4.1f}–{100 * stat['high']:5.1f}]"
            f"  {stat['count']:>6}  {trigger.replace('+', ' + ')}",
            file=out,
        )
        seen += [part for part in trigger.split("+") if part not in seen]
    for part in seen:
        print(f"    {end_text(part)}", file=out)
    print(f"turns: {_fmt(report['turns'])}", file=out)
    print(f"rounds: {_fmt(report['rounds'])}", file=out)
    print(f"decisions: {_fmt(report['decisions'])}", file=out)
    print_usage(report["usage"], report["games"], out)
    print_balance(report["balance"], out)
    print(cost_text(report["cost"]), file=out)


def cost_text(cost: dict) -> str:
    """ "cost: 12.3 CPU s (0.062 CPU s per game, 0.19 CPU ms per decision), 7.1 s wall"."""
    return (
        f"cost: {cost['cpu_seconds']:.1f} CPU s ({cost['cpu_seconds_per_game']:.3g} CPU s per "
        f"game, {1000 * cost['cpu_seconds_per_decision']:.3g} CPU ms per decision), "
        f"{cost['wall_seconds']:.1f} s wall"
    )


def print_balance(balance: dict, out) -> None:
    """Seat win rates against an even share, then the flags (or "none")."""

    even = 100 * balance["even_share"]
    print(
        f"seat win rates against an even share of {even:.1f}% "
        "(Wilson 95% interval, exact binomial test, Holm p):",
        file=out,
    )
    for seat, row in enumerate(balance["seats"]):
        low, high = 100 * row["low"], 100 * row["high"]
        mark = "  *" if row["clear"] else ""
        p = "<0.001" if row["p_holm"] < 0.001 else f"{row['p_holm']:.3f}"
        print(
            f"  seat {seat}: {100 * row['share']:5.1f}% [{low:4.1f}–{high:5.1f}]  p {p}{mark}",
            file=out,
        )
    print("Balance flags:" + ("" if balance["flags"] else " none"), file=out)
    for flag in balance["flags"]:
        print(textwrap.fill(flag, 108, initial_indent="  - ", subsequent_indent="    "), file=out)


def print_usage(usage: dict, games: int, out) -> None:
    """Which elements of the game were used: per game (mean ± 95% CI) and in how many games."""

    group = None
    width = min(max([len(row["label"]) for row in usage.values()] + [10]), 60)
    for row in usage.values():
        if row["group"] != group:
            group = row["group"]
            print(f"{USAGE_GROUPS[group]}, per game and games used in:", file=out)
        stat, used = row["per_game"], row["games"]
        label = row["label"] if len(row["label"]) <= width else row["label"][: width - 1] + "…"
        low, high = 100 * used["low"], 100 * used["high"]
        print(
            f"  {label:<{width}}  {stat['mean']:8.2f} ± {stat['ci95']:<6.2f}"
            f" {used['count']:>6}/{games} games [{low:.0f}–{high:.0f}%]",
            file=out,
        )
