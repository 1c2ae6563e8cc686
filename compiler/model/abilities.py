"""The ability tracks: their values by level, which role each drives, and the pieces that start on
them (which, with the setup, must fit in what a player owns)."""

from __future__ import annotations

from ..nodes.board import PRIVILEGES
from ..nodes.rules import ABILITY_ROLES
from .fold import Fold, error, where
from .sizes import MAX_ACTIONS_LEFT, MAX_PIECES, MAX_PP, MAX_TURNS, check_ability_values

# Bank value "all": every piece a player can own (sizes.check_piece_count keeps it so).
ALL_PIECES = MAX_PIECES


def _values(ab) -> tuple[int, ...]:
    """An ability's values as ints: privilege colours by index, "all" as ALL_PIECES."""
    vals = []
    for v in ab.values:
        if ab.role == "post_privilege":
            if v not in PRIVILEGES:
                raise error(f"privilege value {v!r} is not a colour", ab.span)
            vals.append(PRIVILEGES.index(v))
        elif v == "all":
            vals.append(ALL_PIECES)
        elif isinstance(v, int) and not isinstance(v, bool):
            vals.append(v)
        else:
            raise error(f"ability {ab.name!r}: value {v!r} is not a number", ab.span)
    return tuple(vals)


def fold_abilities(f: Fold) -> None:
    """ABILITY_NAMES, ABILITY_VALUES (per level), ABILITY_KIND (0: a trader covers a level, 1: a
    merchant), ABILITY_FULL_PP, ABILITY_MAX (highest level), AB_<ROLE> (the ability driving each
    role of ABILITY_ROLES)."""
    rules, k = f.rules, f.k
    roles: dict[str, int] = {}
    names, values, kinds, full_pp = [], [], [], []
    if len(rules.abilities) == 0:
        raise error(f"rule set {rules.name!r} declares no abilities", rules.span)
    for i, ab in enumerate(rules.abilities):
        if ab.role not in ABILITY_ROLES:
            raise error(f"ability {ab.name!r} has unknown role {ab.role!r}", ab.span)
        if ab.role in roles:
            raise error(f"two abilities drive the role {ab.role!r}", ab.span)
        roles[ab.role] = i
        names.append(ab.name)
        values.append(_values(ab))
        check_ability_values(ab.name, ab.role, values[-1], ab.span)
        kinds.append(0 if ab.covered_by == "trader" else 1)
        full_pp.append(int(ab.full_pp))
        f.origins[f"ability:{ab.name}"] = where(ab.span)
    actions_values = values[roles["actions_per_turn"]] if "actions_per_turn" in roles else (1,)
    if min(actions_values) < 1:
        raise error(
            "the actions ability must give at least one action per turn",
            rules.abilities[roles["actions_per_turn"]].span,
        )
    missing = [r for r in ABILITY_ROLES if r not in roles]
    if missing:
        raise error(f"rule set {rules.name!r}: no ability drives {', '.join(missing)}", rules.span)
    k["ABILITY_NAMES"] = tuple(names)
    k["ABILITY_VALUES"] = tuple(values)
    k["ABILITY_KIND"] = tuple(kinds)
    k["ABILITY_FULL_PP"] = tuple(full_pp)
    k["ABILITY_MAX"] = tuple(len(v) - 1 for v in values)
    # the numbers that saturate on both backends (sizes.py): the track, the actions of a turn
    k["MAX_PP"] = MAX_PP
    k["MAX_ACTIONS_LEFT"] = MAX_ACTIONS_LEFT
    k["MAX_TURNS"] = MAX_TURNS  # the turn number (`turn number`, where a rule reads it)
    for role, idx in roles.items():
        k["AB_" + role.upper()] = idx


def fold_supply(f: Fold) -> None:
    """ON_TRACKS (traders, merchants covering the tracks' levels) and OFF_BOARD (those plus the
    score marker); refuse a setup that needs more pieces than a player owns."""
    pieces, setup, game, rules, k = f.rules.pieces, f.rules.setup, f.game, f.rules, f.k
    on_tracks = [0, 0]
    for vals, kind in zip(k["ABILITY_VALUES"], k["ABILITY_KIND"], strict=True):
        on_tracks[kind] += len(vals) - 1
    k["ON_TRACKS"] = tuple(on_tracks)
    on_tracks_plus = list(on_tracks)
    if k["SCORE_MARKER"] >= 0:
        on_tracks_plus[k["SCORE_MARKER"]] += 1
    for seat in range(1, 6):
        supply_t = setup.personal_traders + setup.per_seat_traders * seat
        if supply_t + on_tracks_plus[0] > pieces.traders and seat <= max(game.players):
            raise error(
                f"rule set {rules.name!r}: seat {seat} needs more traders than a player owns",
                setup.span,
            )
    if setup.personal_merchants + on_tracks_plus[1] > pieces.merchants:
        raise error(f"rule set {rules.name!r}: more merchants needed than owned", setup.span)
    k["OFF_BOARD"] = tuple(on_tracks_plus)  # pieces that start on tracks or as score marker
