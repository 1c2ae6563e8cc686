"""Score a position: the final scoring (categories A–F, total, winners) of a saved state.

STATE.json is a state in the documented state format (docs/state-format.md): written by
`state.to_json()` or by hand. Its `game` and `players` fields say which game it belongs to; a
hand-written state may leave them out and give --game/--players instead (if it has them, they must
agree). The state is read and checked in
full, so a malformed or inconsistent file is reported with the field at fault. For a game that is
not over, the table is the scoring as if the game ended now.
"""

from __future__ import annotations

import argparse
import json

from hansa.compiler.errors import HansaError, Span
from hansa.runtime.serialize import json_problem, read_text_file

from .play import add_spec_option, format_scores, load_game, winners_text

NAME = "score"
HELP = "print the final scoring (A–F, total, winners) of a saved or hand-written state"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.formatter_class = argparse.RawDescriptionHelpFormatter
    parser.add_argument("state", metavar="STATE.json", help="a state in the state JSON format")
    parser.add_argument("--game", help="game name, if the state does not say (its 'game' field)")
    parser.add_argument(
        "--players",
        type=int,
        default=None,
        metavar="N",
        help="player count, if the state does not say",
    )
    parser.add_argument("--json", action="store_true", help="print the scoring as JSON")
    add_spec_option(parser)


def read_state_file(path: str) -> dict:
    return parse_state_text(read_text_file(path), path)


def parse_state_text(text: str, path: str) -> dict:
    """The JSON object of a state file's text (named `path` in errors); `hansa serve` shares it."""
    if not text.strip():
        raise HansaError("empty file (expected a state as JSON)", Span(path, 0, 0))
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        hint = ""
        if exc.msg == "Extra data" and text.lstrip().startswith("{"):
            hint = " (several JSON documents: a game log? `hansa replay` reads logs)"
        span = Span(path, exc.lineno, exc.colno)
        raise HansaError(f"not valid JSON: {exc.msg}{hint}", span) from None
    except (ValueError, RecursionError) as exc:  # a 5,000-digit number, 100,000 nested brackets
        message, line, column = json_problem(exc, text)
        raise HansaError(message, Span(path, line, column)) from None
    if not isinstance(data, dict):
        raise HansaError(f"{path}: expected a JSON object (a state) at the top level")
    return data


def load_state(data: dict, path: str, game_name=None, players=None, loader=load_game):
    """The game and checked state of a state file's JSON; errors name the file and the field."""
    name = game_name if game_name is not None else data.get("game")
    if not isinstance(name, str):
        raise HansaError(f"{path}: game: the state names no game (a string); give --game GAME")
    players = players if players is not None else data.get("players")
    if players is not None and (isinstance(players, bool) or not isinstance(players, int)):
        raise HansaError(f"{path}: players: expected a whole number, got {players!r}")
    game = loader(name, players)
    data = dict(data)
    data.setdefault("game", game.name)
    data.setdefault("players", game.num_players())
    try:
        state = game.state_from_json(data)
    except HansaError as exc:
        message = exc.message
        if message.startswith("state JSON: "):
            message = message[len("state JSON: ") :]
        raise HansaError(f"{path}: {message}") from None
    return game, state


def run(args: argparse.Namespace) -> int:
    data = read_state_file(args.state)
    # a path is compiled only when the user typed it (--game); the state's own `game` is a name
    game, state = load_state(
        data,
        args.state,
        args.game,
        args.players,
        lambda n, p: load_game(n, p, args.spec, paths=args.game is not None),
    )
    breakdown = state.score_breakdown()
    returns = [sum(b.values()) for b in breakdown]
    winners = state.winners()
    over = state.is_terminal()
    if args.json:
        out = {
            "state": args.state,
            "game": game.name,
            "players": game.num_players(),
            "game_over": over,
            "breakdown": breakdown,
            "totals": returns,
            "winners": winners,
        }
        print(json.dumps(out, indent=1, ensure_ascii=False))
        return 0
    when = "final scoring" if over else "scoring as if the game ended now"
    print(f"{args.state}: {game.name}, {game.num_players()} players, {when}")
    word = "winner" if over else "leader"
    for line in format_scores(game, breakdown, winners, None, word):
        print(line)
    print(winners_text(winners, returns, word))
    return 0
