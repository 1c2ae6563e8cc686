"""Bounds on a game's sizes, so every spec `hansa check` accepts makes a game of bounded size.

A game's action ids are laid out at compile time (`build_model`): one range per kind of decision,
sized by the board (points, routes, cities) and by rule parameters (the income choices are every
split of traders and merchants, the displacement payments every merchant count up to the cost).
Adapters size their action spaces by it, logs and replays name every id, and a web page lists the
legal ones, so `pieces merchants 1000000` (28 million income choices) would make every one of
them take gigabytes. A game with more than MAX_ACTIONS ids is refused, at the statement that makes
most of them, with the count. A player owns at most MAX_PIECES pieces (the bank's `all` is
that many), and a game has at most MAX_MARKERS bonus markers (every state holds the supply).

The other limits here keep every number a game can hold inside the native state's C types, so
both backends play it alike (docs/rules-language.md, "Limits"; docs/native.md, "Numbers"): sizes a
rule set writes are refused at their statement, numbers play accumulates saturate identically on
both backends, and rules in words are bounded statically (bounds.py).
"""

from __future__ import annotations

from ..errors import HansaError, Span
from ..expr.catalogue import MAX_COUNTER
from ..nodes.board import Board
from ..nodes.rules import Displace, Game, RuleSet

MAX_ACTIONS = 100_000  # the built-in games have 1,100 to 1,800
MAX_PIECES = 999  # per player, traders and merchants together: the bank's `all`
# Bonus markers of a game, all types together (the editions have 15 and 16): every state holds
# the supply, so its JSON, every log and every clone grow with the count.
# 100 keeps every marker count (the supply, a player's markers of a type, the markers one `draw N
# keep 1` holds) in the native state's 8-bit counters.
MAX_MARKERS = 100
# The value of any level of an ability (the Bank's `all` is MAX_PIECES): what a turn, an income or
# a network multiplies by.
MAX_ABILITY_VALUE = MAX_PIECES
# Levels of one ability track (its values): a level is an 8-bit number in the native state.
MAX_ABILITY_LEVELS = 100
# A per-player parameter a rule in words sets (`your city pp becomes N`): the native decision
# frame holds the trader compensation in 16 bits.
# A declared counter is a slot of them (MAX_COUNTER); the state JSON reads one up to 1,000.
MAX_PARAM = MAX_COUNTER
# Pieces one `you may take N pieces from the stock` offers: a player's stock never holds more, so
# a larger N takes the same pieces (both backends cut N to this).
MAX_TAKE = 2 * MAX_PIECES
# Pieces one Move, one move marker (bonus or permanent) or one removal picks up: the pieces held
# in a decision frame (the native frame holds them in fixed arrays, 8-bit counted, in every
# state's stack, so a larger count makes every state and every clone larger).
MAX_MOVE = 100
# Decisions rules in words may leave pending at once (`develop an ability`, `you may take N pieces
# from the stock`, `draw N keep 1`; one per player for an effect on several players or a favour
# tile): the native state's decision stack is sized by them (BASE_STACK more for the rules' own
# frames), so more would make every state larger.
MAX_RULE_DECISIONS = 50
BASE_STACK = 16
DECISION_EFFECTS = ("may_take", "draw_keep", "display")
# Extra actions one bonus marker gives (`extra_actions(count: N)`).
MAX_EXTRA_ACTIONS = 100
# The numbers a game holds whatever its rules: PP on the track, actions left in a turn, the turn
# number. Each saturates at its maximum, identically on both backends (a gain past it stops there),
# so no sequence of moves makes either overflow; the state JSON reads them back in these bounds
# (runtime/state_json.py: TRACK_LIMIT, and 1,000 actions left, 10**9 turns;
# tests/games/test_bounds.py).
MAX_PP = 1_000_000
MAX_ACTIONS_LEFT = 1_000
MAX_TURNS = 1_000_000_000
# Every rule in words is bounded statically (compiler/model/bounds.py): every quantity it reads has
# a largest value, and each sum, product and count over a set multiplies them. A rule any of whose
# parts could exceed MAX_VALUE is refused at check, so its arithmetic is exact in C's 64-bit
# integers (9.2 * 10**18) as in Python's.
MAX_VALUE = 10**15


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


def check_value(value: int, limit: int, what: str, span: Span | None) -> None:
    """Raise a located HansaError when `value` (of `what`, at the statement `span`) exceeds
    `limit`."""
    if value > limit:
        raise HansaError(f"{what} is {value:,}: at most {limit:,}", span)


def check_ability_values(name: str, role: str, values: tuple[int, ...], span: Span) -> None:
    """An ability's values are at most MAX_ABILITY_VALUE; the move count's at most MAX_MOVE."""
    if len(values) > MAX_ABILITY_LEVELS:
        raise HansaError(
            f"ability {name!r} has {len(values):,} values: at most {MAX_ABILITY_LEVELS}", span
        )
    limit = MAX_MOVE if role == "move_count" else MAX_ABILITY_VALUE
    what = "pieces a Move picks up" if role == "move_count" else "an ability's value"
    check_value(max(values), limit, f"{what} (ability {name!r})", span)


def rule_decisions(rule, players: int) -> int:
    """The decision frames one rule in words may push when it applies: one per decision effect,
    times the players when it acts on several or is a favour tile (each holder decides)."""
    n = 0
    for effect in rule.effects:
        if effect.kind in DECISION_EFFECTS or (effect.kind == "develop" and not effect.name):
            many = rule.hook == "favour" or (
                effect.whom is not None and effect.whom.kind != "player"
            )
            n += players if many else 1
    return n


def check_rule_decisions(game: Game, rules, players: int) -> int:
    """The decision frames all rules in words may leave pending together, refused past
    MAX_RULE_DECISIONS at the rule that adds most."""
    counted = [(rule_decisions(r, players), r.span) for r in rules]
    total = sum(n for n, _span in counted)
    if total > MAX_RULE_DECISIONS:
        n, span = max(counted, key=lambda item: item[0])
        raise HansaError(
            f"game {game.name!r}: its rules in words could leave {total:,} decisions pending at"
            f" once (at most {MAX_RULE_DECISIONS}): this rule adds {n:,}",
            span,
        )
    return total


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
