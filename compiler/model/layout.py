"""The action-id layout: one contiguous range of ids per kind of decision, in an order that keeps
each decision's list of legal ids sorted, and the game's names."""

from __future__ import annotations

from .fold import Fold
from .sizes import check_action_count, check_piece_count


def _sizes(f: Fold) -> list[tuple[str, int]]:
    """(kind, number of ids) in id order; a kind the game lacks has size 0 (so other games' ids
    never move), and the modules' kinds come last, only in games that have them."""
    k, comp = f.k, f.comp
    n_points, n_routes, n_cities = k["N_POINTS"], k["N_ROUTES"], k["N_CITIES"]

    def when(switch: str, size: int) -> int:
        return size if comp[switch] else 0

    sizes = [
        ("END_TURN", 1),
        ("INCOME", (k["TRADERS"] + 1) * (k["MERCHANTS"] + 1)),
        ("PLACE", 2 * n_points),
        ("DISPLACE", 2 * n_points),
        ("MOVE", 1),
        ("CREATE", n_routes),
        ("USE_MARKER", k["N_MARKER_TYPES"]),
        ("PAY", max(k["DISPLACE_COST"]) + 1),
        ("PICK", n_points),
        ("DONE_PICKING", 1),
        ("DROP", n_points),
        ("REMOVE", when("marker_remove_tradesmen", n_points)),
        ("DONE_REMOVING", when("marker_remove_tradesmen", 1)),
        ("ESTABLISH", when("establish", 2 * n_cities)),
        ("ADDITIONAL", when("marker_additional_trading_post", 2 * n_cities)),
        ("DEVELOP", len(k["ABILITY_NAMES"])),
        ("SPECIAL", when("special_prestige", len(k["SPECIAL_POINTS"]))),
        ("NO_POST", 1),
        ("EXCHANGE", when("marker_exchange_trading_posts", k["N_SPACES"])),
        ("PLACE_DISPLACED", n_points),
        ("EXTRA", 2),
        ("LIFT", when("lift_from_board", n_points)),
        ("DECLINE", 1),
        ("PLACE_MARKER", n_routes),
        # board features
        ("PERM_USE", when("permanent", 1)),
        ("GREEN_POST", when("permanent_green_city_post", 2 * n_cities)),
        ("ROUTE_PLACE", when("permanent_place_from_route", 2 * n_points)),
        ("COUNTRY_PLACE", when("permanent_place_in_countries", 2 * n_points)),
        ("COUNTRY_LIFT", when("lift_for_countries", n_points)),
    ]
    if comp["pawn"]:
        sizes += [("PAWN", k["N_REGIONS"]), ("PAWN_PAY", 1)]
    if comp["favour"]:  # one action per tile; one per pair of marker types the taker flips
        sizes += [("FAVOUR", k["N_FAVOUR"]), ("FLIP", len(k["FLIP_PAIRS"]))]
    if comp["x_may_take"]:  # `you may take 1 piece from the stock`: none, a trader, a merchant
        sizes += [("TAKE_PIECE", 3)]
    if comp["x_draw_keep"]:  # `at marker draw: draw N keep 1`: which type of drawn marker stays
        sizes += [("KEEP_MARKER", k["N_MARKER_TYPES"])]
    if comp["x_display"]:  # `at marker draw: choose from N on display`: which type is taken
        sizes += [("DISPLAY_MARKER", k["N_MARKER_TYPES"])]
    return sizes


def fold_action_layout(f: Fold) -> None:
    """A_<KIND> (first id of each kind), NUM_ACTIONS, ACTION_RANGES ((kind, first, count) of the
    kinds the game has); `GameModel.layout`."""
    base = 0
    for kind, size in _sizes(f):
        f.model.layout.append((kind, base, size))
        f.k["A_" + kind] = base
        base += size
    check_action_count(f.model.layout, f.game, f.rules, f.board)
    check_piece_count(f.rules)  # after: the action ids say more about a million pieces
    f.k["NUM_ACTIONS"] = base
    f.k["ACTION_RANGES"] = tuple((kind, b, s) for kind, b, s in f.model.layout if s)


def fold_names(f: Fold) -> None:
    """GAME_NAME, PLAYER_COUNTS, RULES_NAME, BOARD_ID."""
    f.k["GAME_NAME"] = f.game.name
    f.k["PLAYER_COUNTS"] = tuple(f.game.players)
    f.k["RULES_NAME"] = f.rules.name
    f.k["BOARD_ID"] = f.board.id
