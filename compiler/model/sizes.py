"""Bounds on a game's sizes, so every spec `hansa check` accepts makes a game of bounded size.

A game's action ids are laid out at compile time (`build_model`): one range per kind of decision,
sized by the board (points, routes, cities) and by rule parameters (the income choices are every
split of traders and merchants, the displacement payments every merchant count up to the cost).
Adapters size their action spaces by it, logs and replays name every id, and a web page lists the
legal ones, so `pieces merchants 1000000` (28 million income choices) would make every one of
them take gigabytes. A game with more than MAX_ACTIONS ids is refused, at the statement that makes
most of them, with the count. A player owns at most MAX_PIECES pieces (the bank's `all` is
that many), and a game has at most MAX_MARKERS bonus markers (every state holds the supply).
"""

from __future__ import annotations

from ..errors import HansaError, Span
from ..nodes.board import Board
from ..nodes.rules import Displace, Game, RuleSet

MAX_ACTIONS = 100_000  # the built-in games have 1,100 to 1,800
MAX_PIECES = 999  # per player, traders and merchants together: the bank's `all`
# Bonus markers of a game, all types together (the editions have 15 and 16): every state holds
# the supply, so its JSON, every log and every clone grow with the count.
MAX_MARKERS = 500


def check_action_count(
    layout: list[tuple[str, int, int]], game: Game, rules: RuleSet, board: Board
) -> None:
    """Raise a located HansaError when the layout (kind, first id, size) exceeds MAX_ACTIONS."""
    total = sum(size for _kind, _first, size in layout)
    if total <= MAX_ACTIONS:
        return
    kind, _first, size = max(layout, key=lambda entry: entry[2])
    span, what = _maker(kind, rules, board, game)
    raise HansaError(
        f"game {game.name!r} would have {total:,} action ids (at most {MAX_ACTIONS:,}): {what}"
        f" make {size:,} of them",
        span,
    )


def _maker(kind: str, rules: RuleSet, board: Board, game: Game) -> tuple[Span, str]:
    """Where the ids of one kind come from, and that in words."""
    if kind == "INCOME" and rules.pieces is not None:
        pieces = rules.pieces
        return pieces.span, (
            f"the income choices (every split of up to {pieces.traders:,} traders and"
            f" {pieces.merchants:,} merchants)"
        )
    displace = next((a for a in rules.actions if isinstance(a, Displace)), None)
    if kind == "PAY" and displace is not None:
        return displace.span, "the displacement payments (one per merchant count up to the cost)"
    if board.span.line > 0:
        return board.span, f"the board's {kind.lower()} decisions"
    return game.span, f"the {kind.lower()} decisions"


def check_piece_count(rules: RuleSet) -> None:
    """Raise a located HansaError when a player would own more than MAX_PIECES pieces."""
    pieces = rules.pieces
    if pieces is not None and pieces.traders + pieces.merchants > MAX_PIECES:
        raise HansaError(
            f"a player has at most {MAX_PIECES} pieces, not {pieces.traders:,} traders and"
            f" {pieces.merchants:,} merchants",
            pieces.span,
        )


def check_marker_count(game: Game, counted: list[tuple[int, Span]]) -> None:
    """Raise a located HansaError, at the statement with the largest count, when the marker
    types' counts (count, statement) add up to more than MAX_MARKERS."""
    total = sum(count for count, _span in counted)
    if total <= MAX_MARKERS:
        return
    count, span = max(counted, key=lambda item: item[0])
    raise HansaError(
        f"game {game.name!r} would have {total:,} bonus markers (at most {MAX_MARKERS}):"
        f" this statement adds {count:,}",
        span,
    )
