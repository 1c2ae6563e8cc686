"""The game as a whole: what the templates can play at all (board, pieces, player counts), the
option values (Decisions of RULES.md), and the pieces each player owns and starts with."""

from __future__ import annotations

from .fold import Fold, error, where

# The option values (Decisions of RULES.md) the templates implement.
SUPPORTED_OPTIONS: dict[str, tuple[object, ...]] = {
    "displaced_extra_kind": ("owner_chooses", "traders_only"),
    "displaced_piece_without_point": ("personal_supply", "general_stock"),
    "unplaceable_marker": ("out_of_game", "back_to_supply"),
    "returned_marker": ("shuffled", "bottom", "top"),
    "no_op_actions": ("illegal", "legal"),
    "move_must_place_all": (True, False, "yes", "no"),
}
# Each option's value as the templates read it (yes/no options as booleans).
OPTION_DEFAULTS: dict[str, object] = {
    "displaced_extra_kind": "owner_chooses",
    "displaced_piece_without_point": "personal_supply",
    "unplaceable_marker": "out_of_game",
    "returned_marker": "shuffled",
    "no_op_actions": "illegal",
    "move_must_place_all": True,
}


def check_game(f: Fold) -> None:
    """Refuse a game the templates cannot play: a board without post spaces or an East-West
    connection, a rule set without pieces or setup, a player count outside 2..5."""
    board, rules, game = f.board, f.rules, f.game
    for city in board.cities:
        if not city.spaces and city.hanseatic:
            raise error(f"city {city.name!r} has no trading-post spaces", city.span)
    if board.east_west is None:
        raise error(f"board {board.id!r} has no East-West connection", board.span)
    if rules.pieces is None or rules.setup is None:
        raise error(f"rule set {rules.name!r} is incomplete (pieces or setup missing)", rules.span)
    for player_count in game.players:
        if not 2 <= player_count <= 5:
            raise error(f"game {game.name!r}: {player_count} players is outside 2..5", game.span)


def fold_options(f: Fold) -> None:
    """Components `option_<name>`: every option's value, the default where the rules are silent."""
    for opt in f.rules.options:
        supported = SUPPORTED_OPTIONS.get(opt.name)
        if supported is None:
            raise error(f"option {opt.name!r} is not known to the code generator", opt.span)
        if opt.value not in supported:
            raise error(
                f"option {opt.name} = {opt.value!r} is not implemented (supported: "
                + ", ".join(repr(v) for v in supported)
                + ")",
                opt.span,
            )
    options = dict(OPTION_DEFAULTS)
    for opt in f.rules.options:
        value = opt.value
        if value in ("yes", "no"):
            value = value == "yes"
        options[opt.name] = value
    for name, value in options.items():
        f.comp["option_" + name] = value


def fold_pieces(f: Fold) -> None:
    """TRADERS, MERCHANTS (owned per player), SCORE_MARKER (0 trader, 1 merchant, -1 none) and
    SETUP_PERSONAL (personal traders, more per seat, personal merchants)."""
    pieces, setup, k = f.rules.pieces, f.rules.setup, f.k
    k["TRADERS"] = pieces.traders
    k["MERCHANTS"] = pieces.merchants
    k["SCORE_MARKER"] = {"trader": 0, "merchant": 1, None: -1}.get(pieces.score_marker, -1)
    k["SETUP_PERSONAL"] = (setup.personal_traders, setup.per_seat_traders, setup.personal_merchants)
    f.origins["setup"] = where(setup.span)
