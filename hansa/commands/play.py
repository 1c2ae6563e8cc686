"""Play one game with agents and print the final table.

Each seat is played by an agent: `greedy` (a beginner who builds routes, scores and develops
abilities), `random` (uniformly random legal actions), `mcts` (a tree search) or your own class as
`module:Class` (a class with a method `step(state, legal_actions) -> action`; it gets `seed=` if its
constructor takes one); `:key=value,…` after a name passes arguments (`mcts:iterations=200`).
`--agents greedy` puts the same kind of agent in every seat; `--agents greedy,random,greedy,greedy`
names one per seat.

The table shows the PP of every final-scoring category (A–F) per player, the winner(s) after the
tie-break chain, which end trigger ended the game, and its length in turns and decisions.
`--log FILE` writes the game as JSON lines (header, one line per decision, footer with the final
scores and state) for `hansa replay`.
"""

from __future__ import annotations

import argparse
import json
import sys

from hansa.compiler.errors import HansaError
from hansa.play.logs import header_for, write_log
from hansa.play.simulate import DEFAULT_MAX_DECISIONS, make_agents, parse_agents, play_game
from hansa.resolve import load_game as resolve_game
from hansa.resolve import load_native_game

NAME = "play"
HELP = (
    "play one game with agents (greedy, random, mcts, strong, module:Class) "
    "and print the final scores"
)

END_TRIGGER_TEXT = {
    "track_pp": "a player reached the PP limit on the track",
    "completed_cities": "the required number of cities was completed",
    "marker_supply_empty": "a bonus marker had to be drawn from the empty supply",
    "unfinished": "stopped at --max-decisions before the game ended",
}


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.formatter_class = argparse.RawDescriptionHelpFormatter
    parser.add_argument("game", metavar="GAME", help="game name, e.g. bigbox-hanseatic-45p")
    add_game_options(parser)
    parser.add_argument(
        "--seed", type=int, default=0, help="seed of the game (marker draw and agents; default 0)"
    )
    parser.add_argument("--log", metavar="FILE", help="write the game log (JSON lines) to FILE")
    parser.add_argument("--json", action="store_true", help="print the result as JSON")


def add_spec_option(parser: argparse.ArgumentParser) -> None:
    """`--spec DIR`: where game, board and rule set names are looked up (see hansa.resolve)."""
    parser.add_argument(
        "--spec",
        metavar="DIR",
        default=None,
        help="spec folder whose games are compiled on demand (default: ./spec if present; "
        "then the built-in games)",
    )


def add_game_options(parser: argparse.ArgumentParser) -> None:
    add_spec_option(parser)
    parser.add_argument(
        "--players",
        type=int,
        default=None,
        metavar="N",
        help="number of players (default: the game's smallest player count)",
    )
    parser.add_argument(
        "--agents",
        default="greedy",
        metavar="A[,B…]",
        help="agent for every seat, or one per seat: greedy, random, mcts, strong or "
        "module:Class (your own class with a step method), optionally with :key=value,… "
        "arguments, e.g. mcts:iterations=200 (default greedy)",
    )
    add_backend_option(parser)
    parser.add_argument(
        "--max-decisions",
        type=int,
        default=None,
        metavar="N",
        help="stop a game after N decisions (default 200000; random agents wander for long)",
    )


def add_backend_option(parser, default: str | None = "python") -> None:
    """`--backend python|native` (docs/native.md); `default=None` where it must be told apart
    from not given (hansa diff's options that apply only with --simulate)."""
    parser.add_argument(
        "--backend",
        choices=("python", "native"),
        default=default,
        help="python (default) or native: the rule step in C, built with the system C compiler "
        "(the same games for the same seeds; docs/native.md)",
    )


def load_game(
    name: str,
    players: int | None,
    spec: str | None = None,
    paths: bool = True,
    backend: str = "python",
):
    """The game by name (spec folder or built in) for the player count, with clear errors;
    `paths=False` for a name read from a file (never opened as a `.hansa` path); `backend`
    python or native (hansa.resolve.load_native_game)."""

    if backend == "native":
        return load_native_game(name, players, spec, paths)
    if backend != "python":
        raise HansaError(f"unknown backend {backend!r}: python or native")
    return resolve_game(name, players, spec, paths)


def max_decisions(args: argparse.Namespace) -> int:

    value = args.max_decisions
    if value is None:
        return DEFAULT_MAX_DECISIONS
    if value < 1:
        raise HansaError(f"--max-decisions must be at least 1, got {value}")
    return value


def category_names(game) -> dict[str, str]:
    """Score key → the kind of its category (`A` → `track`), from the generated module."""
    ns = vars(game.module)
    return dict(zip(ns["SCORE_KEYS"], ns["SCORE_KINDS"], strict=True))


def format_scores(
    game,
    breakdown: list[dict[str, int]],
    winners: list[int],
    agents: list[str] | None = None,
    winner_word: str = "winner",
) -> list[str]:
    """The final table: one row per player, one column per category, total, winner mark."""
    keys = list(breakdown[0]) if breakdown else []
    names = category_names(game)
    header = ["player"] + (["agent"] if agents else []) + keys + ["total"]
    rows = []
    for p, scores in enumerate(breakdown):
        row = [str(p)] + ([agents[p]] if agents else []) + [str(scores[k]) for k in keys]
        row.append(str(sum(scores.values())))
        rows.append(row)
    widths = [max(len(r[i]) for r in [header] + rows) for i in range(len(header))]
    text_columns = 2 if agents else 1

    def line(cells: list[str]) -> str:
        out = []
        for i, cell in enumerate(cells):
            out.append(cell.ljust(widths[i]) if i < text_columns else cell.rjust(widths[i]))
        return "  ".join(out).rstrip()

    lines = [line(header)]
    for p, row in enumerate(rows):
        mark = f"  <- {winner_word}" if p in winners else ""
        lines.append(line(row) + mark)
    lines.append("categories: " + ", ".join(f"{k} {names.get(k, '?')}" for k in keys))
    return lines


def winners_text(winners: list[int], returns: list[int], word: str = "winner") -> str:
    if not winners:
        return f"{word}: none"
    if len(winners) == 1:
        return f"{word}: player {winners[0]} ({returns[winners[0]]} PP)"
    who = ", ".join(str(p) for p in winners)
    return f"shared {word}s: players {who} ({returns[winners[0]]} PP each)"


def end_text(trigger: str) -> str:
    parts = trigger.split("+")
    return "; ".join(f"{p} ({END_TRIGGER_TEXT.get(p, 'a rule of the rule set')})" for p in parts)


def outcome_fields(record, state) -> dict:
    """The JSON fields that describe how a played (or replayed) game ended."""
    return {
        "finished": state.is_terminal(),
        "end_trigger": record.end_trigger,
        "turns": record.turns,
        "decisions": record.decisions,
        "returns": record.returns,
        "breakdown": record.breakdown,
        "winners": record.winners,
    }


def run(args: argparse.Namespace) -> int:

    game = load_game(args.game, args.players, args.spec, backend=args.backend)
    limit = max_decisions(args)
    names = parse_agents(args.agents, game.num_players())
    agents = make_agents(names, args.seed)
    record, state = play_game(game, agents, args.seed, limit, record_moves=bool(args.log))
    if args.log:
        write_log(args.log, game, header_for(game, args.seed, names), record, state)
    result = {
        "game": game.name,
        "players": game.num_players(),
        "seed": args.seed,
        "agents": names,
        **outcome_fields(record, state),
        "log": args.log,
    }
    if args.json:
        print(json.dumps(result, indent=1, ensure_ascii=False))
        return 0
    out = sys.stdout
    print(
        f"{game.name}: {game.num_players()} players, seed {args.seed}, agents {', '.join(names)}",
        file=out,
    )
    word = "winner" if state.is_terminal() else "leader"
    for text in format_scores(game, record.breakdown, record.winners, names, word):
        print(text, file=out)
    if state.is_terminal():
        print(winners_text(record.winners, record.returns), file=out)
    else:
        print(winners_text(record.winners, record.returns, "leader") + " (unfinished)", file=out)
    print(f"end: {end_text(record.end_trigger)}", file=out)
    rounds = record.turns / game.num_players()
    print(
        f"length: {record.turns} turns ({rounds:.1f} rounds), {record.decisions} decisions",
        file=out,
    )
    if args.log:
        print(f"log: {args.log}", file=out)
    return 0
