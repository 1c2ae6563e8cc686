"""Game modules with decisions of their own: the 2-player variant's neutral pawn and the Emperor's
Favour tiles (and the take-from-stock choice their rules in words can leave)."""

from __future__ import annotations

from ..board.regions import RegionError, board_regions
from ..errors import HansaError
from ..expr.check import MAY_TAKE_KINDS
from ..nodes.expr import Num
from .fold import Fold, where
from .sizes import MAX_TAKE


def fold_pawn(f: Fold) -> None:
    """N_REGIONS, REGION_ROUTES, REGION_DISTANCE, REGION_LABELS, REGION_OUTLINES (faces of the
    board's plane drawing of routes and soldiers), PAWN_FREE_BORDERS; component pawn."""
    pawn, k = f.rules.pawn, f.k
    f.comp["pawn"] = pawn is not None
    if pawn is None:
        return
    try:
        regions = board_regions(f.board, pawn.soldiers, pawn.span)
    except RegionError as exc:
        raise HansaError(exc.diagnostics) from None
    k["N_REGIONS"] = regions.count
    k["REGION_ROUTES"] = regions.region_routes
    k["REGION_DISTANCE"] = regions.distance
    k["REGION_LABELS"] = tuple(regions.label(r) for r in range(regions.count))
    # each region's boundary walks as city numbers (a hole winds the other way): for drawings
    number = {c.name: i for i, c in enumerate(f.board.cities)}
    k["REGION_OUTLINES"] = tuple(
        tuple(tuple(number[c] for c in walk) for walk in walks) for walks in regions.polygons
    )
    k["PAWN_FREE_BORDERS"] = pawn.free_borders
    f.origins["pawn"] = where(pawn.span)


def fold_favour(f: Fold) -> None:
    """FAVOUR_NAMES, N_FAVOUR, FLIP_PAIRS (the pairs of marker types a taker may flip) and
    TAKE_STOCK_SOURCES; components favour, favour_functions, x_triggers, x_marker_triggers,
    x_may_take."""
    k, comp, hook_rules = f.k, f.comp, f.rules.hook_rules
    favours = [r for r in hook_rules if r.hook == "favour"]
    comp["favour"] = bool(favours)
    if favours:
        k["FAVOUR_NAMES"] = tuple(r.label for r in favours)
        k["N_FAVOUR"] = len(favours)
        comp["favour_functions"] = [f"_favour_{i}" for i in range(len(favours))]
        n_types = k["N_MARKER_TYPES"]
        k["FLIP_PAIRS"] = tuple((a, b) for a in range(n_types) for b in range(a, n_types))
    comp["x_triggers"] = any(r.trigger for r in favours)
    comp["x_marker_triggers"] = any(r.trigger.endswith(":use_marker") for r in favours)
    comp["x_may_take"] = any(e.kind == "may_take" for r in hook_rules for e in r.effects)
    if comp["x_may_take"]:
        k["TAKE_STOCK_SOURCES"] = take_stock_sources(hook_rules)
        k["MAX_TAKE"] = MAX_TAKE  # the most pieces `you may take N pieces` offers


def take_stock_sources(hook_rules) -> tuple[tuple[int, str, int, int], ...]:
    """Every rule that can leave a take-from-stock choice, for loading a state that has one:
    (favour tile index, or -1 for a rule without a trigger; whose choice it is: 'turn' the turn
    player, 'seat' any seat (at setup), or a triggered tile's 'another'/'you'/'any' holder as seen
    from the turn player, who acted; the kinds' bits; the most pieces, -1 when computed)."""
    favours = [r for r in hook_rules if r.hook == "favour"]
    out = set()
    for rule in hook_rules:
        for effect in rule.effects:
            if effect.kind != "may_take":
                continue
            most = effect.value.value if isinstance(effect.value, Num) else -1
            kinds = MAY_TAKE_KINDS[effect.name]
            if rule.hook == "favour" and rule.trigger:
                tile = next(i for i, r in enumerate(favours) if r is rule)
                out.add((tile, rule.trigger.split(":", 1)[0], kinds, most))
            else:
                out.add((-1, "seat" if rule.hook == "setup" else "turn", kinds, most))
    return tuple(sorted(out))
