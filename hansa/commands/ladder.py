"""Rate agents against each other: a ladder of games with rotating seats, Bradley–Terry ratings.

The agents (two or more: greedy, random, mcts, strong or module:Class, each with :key=value
arguments, as `hansa simulate --agents` takes them) play N games of the game; game i seats lineup
i of a cycle in which every agent sits every seat equally often and every pair of agents meets
(docs/play.md, "hansa ladder: a rated ladder of agents"), with the seed of game i derived from
--seed and i, so the report is the same for any --jobs and executor. Each game gives a result
for every pair of seats held by different agents (the winners after the tie-break chain first,
then final PP; equal standing is a draw); the ratings are a Bradley–Terry fit of those results
(choix, the `rl` extra) on the Elo scale, with 95% intervals from a bootstrap over games.
Output: a table (text, --json or --csv, on standard output or in --output FILE) and, with
--plot, a picture; files are written whole.
"""

from __future__ import annotations

import argparse
import functools
import json
import sys

from hansa.atomic import write_atomically
from hansa.play.simulate import ladder_agents, search_backend_note
from hansa.runtime.errors import HansaError

from .play import add_backend_option, add_spec_option, load_game, max_decisions
from .simulate import Progress, add_executor_options, add_seed_and_jobs_options

NAME = "ladder"
HELP = "rate agents against each other: games with rotating seats, Bradley–Terry ratings"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.formatter_class = argparse.RawDescriptionHelpFormatter
    parser.add_argument("game", metavar="GAME", help="game name, e.g. bigbox-hanseatic-45p")
    parser.add_argument(
        "--agents",
        required=True,
        metavar="A,B[,…]",
        help="the agents to rate, two or more: greedy, random, mcts, strong or module:Class, "
        "each optionally with :key=value,… arguments (mcts:iterations=200)",
    )
    parser.add_argument(
        "-n", "--games", type=int, required=True, metavar="N", help="number of games to play"
    )
    add_spec_option(parser)
    parser.add_argument(
        "--players",
        type=int,
        default=None,
        metavar="P",
        help="number of players (default: the game's smallest player count)",
    )
    add_backend_option(parser)
    parser.add_argument(
        "--max-decisions",
        type=int,
        default=None,
        metavar="N",
        help="stop a game after N decisions (default 200000)",
    )
    add_seed_and_jobs_options(parser)
    add_executor_options(parser)
    parser.add_argument(
        "--bootstrap",
        type=int,
        default=1000,
        metavar="B",
        help="bootstrap draws for the 95%% intervals (default 1000; 0: no intervals)",
    )
    parser.add_argument(
        "--anchor",
        default=None,
        metavar="AGENT",
        help="the agent rated 0 (default: the agents' mean is 0)",
    )
    output = parser.add_mutually_exclusive_group()
    output.add_argument("--json", action="store_true", help="the report as JSON")
    output.add_argument("--csv", action="store_true", help="the ratings table as CSV")
    parser.add_argument(
        "-o",
        "--output",
        metavar="FILE",
        default=None,
        help="write the report to FILE (written whole, or not at all) instead of standard output",
    )
    parser.add_argument(
        "--plot", metavar="FILE", default=None, help="draw the ratings to FILE.png or FILE.svg"
    )


def run(args: argparse.Namespace) -> int:
    from hansa.analysis.ladder import csv_text, import_choix, report_text, run_ladder
    from hansa.analysis.ladder_plot import check_plot_path, write_ladder_plot

    if args.games < 1:
        raise HansaError(f"-n must be at least 1, got {args.games}")
    if args.jobs is not None and args.jobs < 1:
        raise HansaError(f"--jobs must be at least 1, got {args.jobs}")
    if args.plot is not None:
        check_plot_path(args.plot)
    agents = ladder_agents(args.agents)
    import_choix()
    game = load_game(args.game, args.players, args.spec, backend=args.backend)
    limit = max_decisions(args)
    notes = {search_backend_note(game, [name] * game.num_players()) for name in agents}
    for note in sorted(n for n in notes if n):
        print(note, file=sys.stderr)
    quiet = args.json or args.csv or args.output is not None
    progress = Progress(args.games, enabled=not quiet and sys.stderr.isatty())
    try:
        ladder = run_ladder(
            game,
            args.games,
            agents,
            seed=args.seed,
            jobs=args.jobs,
            max_decisions=limit,
            progress=progress,
            loader=functools.partial(load_game, spec=args.spec, backend=args.backend),
            executor=args.executor,
            address=args.address,
            bootstrap=args.bootstrap,
            anchor=args.anchor,
        )
    finally:
        progress.close()
    report = ladder.to_json()
    if args.json:
        text = json.dumps(report, indent=1, ensure_ascii=False) + "\n"
    elif args.csv:
        text = csv_text(report)
    else:
        text = report_text(report)
    if args.plot is not None:
        write_ladder_plot(report, args.plot)
    if args.output is not None:
        write_atomically(args.output, text)
    else:
        sys.stdout.write(text)
    return 0
