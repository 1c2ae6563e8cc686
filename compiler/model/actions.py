"""The five actions' parameters: which are offered, what displacing costs and gives, how a Move
works and what completing a route awards."""

from __future__ import annotations

from ..nodes.rules import CreateRoute, Displace, Income, Move, Place
from .fold import Fold, error, where

FALLBACK_SOURCES = ("stock", "supply", "board")


def fold_actions(f: Fold) -> None:
    """Components action_<Name> (offered or not); the parameters of Displace, Move and Create
    Route below (a removed action's code keeps the default parameters)."""
    rules, comp = f.rules, f.comp
    actions = {type(a).__name__: a for a in rules.actions}
    if not actions:
        raise error(f"rule set {rules.name!r} has no actions", rules.span)
    for needed in (Income, Place, Displace, Move, CreateRoute):
        comp["action_" + needed.__name__] = needed.__name__ in actions
        actions.setdefault(needed.__name__, needed())
    for name, a in actions.items():
        f.origins[f"action:{name}"] = where(a.span)
    _displace(f, actions["Displace"])
    comp["move_swaps"] = bool(actions["Move"].swaps)
    _create_route(f, actions["CreateRoute"])


def _displace(f: Fold, disp: Displace) -> None:
    """DISPLACE_COST and COMPENSATION as (traders, merchants), FALLBACK (source indices of
    FALLBACK_SOURCES); components extras_declinable, lift_from_board."""
    k = f.k
    cost = dict(disp.cost)
    compensation = dict(disp.compensation)
    k["DISPLACE_COST"] = (int(cost.get("trader", 0)), int(cost.get("merchant", 0)))
    k["COMPENSATION"] = (int(compensation.get("trader", 0)), int(compensation.get("merchant", 0)))
    for source in disp.fallback:
        if source not in FALLBACK_SOURCES:
            raise error(f"unknown displacement fallback source {source!r}", disp.span)
    k["FALLBACK"] = tuple(FALLBACK_SOURCES.index(s) for s in disp.fallback)
    f.comp["extras_declinable"] = bool(disp.extras_declinable)
    f.comp["lift_from_board"] = "board" in disp.fallback and max(k["COMPENSATION"]) > 0


def _create_route(f: Fold, cr: CreateRoute) -> None:
    """CONTROL_PP, COIN_PP, MERCHANT_ANY_SPACE, EAST_WEST_AWARDS; components control_tie,
    establish, merchant_any_space, develop_from_route, special_prestige."""
    k, comp = f.k, f.comp
    k["CONTROL_PP"] = cr.control_pp
    if cr.control_tie not in ("rightmost_post", "nobody", "shared"):
        raise error(f"city-control tie rule {cr.control_tie!r} is not implemented", cr.span)
    comp["control_tie"] = cr.control_tie
    k["COIN_PP"] = bool(cr.coin_pp)
    comp["establish"] = bool(cr.establish_trading_post)
    if cr.space_shapes not in ("strict", "merchant_anywhere"):
        raise error(f"trading-post space rule {cr.space_shapes!r} is not implemented", cr.span)
    k["MERCHANT_ANY_SPACE"] = cr.space_shapes == "merchant_anywhere"
    comp["merchant_any_space"] = k["MERCHANT_ANY_SPACE"]
    comp["develop_from_route"] = bool(cr.develop_ability)
    comp["special_prestige"] = bool(cr.special_prestige) and f.board.special_prestige is not None
    k["EAST_WEST_AWARDS"] = tuple(cr.east_west_awards)
