"""Build positions by hand (scenario tests, puzzles): merge edits into the setup position's JSON.

Only the state JSON format (docs/state-format.md) and the piece counts every generated module
exports are used, so this works for every game.
"""

from __future__ import annotations

import copy
from typing import Any

from .errors import HansaError

KINDS = ("traders", "merchants")


def _merge_list(base: list[dict], edits: list[dict], key) -> list[dict]:
    index = {key(item): i for i, item in enumerate(base)}
    out = [copy.deepcopy(item) for item in base]
    for edit in edits:
        k = key(edit)
        if k in index:
            out[index[k]].update(copy.deepcopy(edit))
        else:
            out.append(copy.deepcopy(edit))
    return out


def _route_key(item: dict):
    cities = item.get("cities")
    return frozenset(cities) if isinstance(cities, list) and len(cities) == 2 else id(item)


def _city_key(item: dict):
    return item.get("name", id(item))


def merge(base: dict, edits: dict) -> dict:
    """`base` (a state dict) with `edits` merged in: routes and cities matched by cities/name,
    `player_state` given as a list or as {player index: fields to change}, `turn` field by field."""
    out = copy.deepcopy(base)
    for key, value in edits.items():
        if key == "routes":
            out["routes"] = _merge_list(out.get("routes", []), value, _route_key)
            # an edited route's points are given in the order its cities are written
        elif key == "cities":
            out["cities"] = _merge_list(out.get("cities", []), value, _city_key)
        elif key == "player_state" and isinstance(value, dict):
            for p, fields in value.items():
                target = out["player_state"][int(p)]
                for field, v in fields.items():
                    if isinstance(v, dict) and isinstance(target.get(field), dict):
                        target[field].update(copy.deepcopy(v))
                    else:
                        target[field] = copy.deepcopy(v)
        elif key == "turn" and isinstance(value, dict):
            out["turn"].update(copy.deepcopy(value))
        else:
            out[key] = copy.deepcopy(value)
    return out


def _count_pieces(data: dict, players: int) -> list[list[int]]:
    """Pieces of each player and kind standing on routes, posts, special spaces and in frames."""
    counts = [[0, 0] for _ in range(players)]

    def add(piece: Any) -> None:
        if isinstance(piece, str) and len(piece) >= 2 and piece[0] in "tm" and piece[1:].isdigit():
            p = int(piece[1:])
            if p < players:
                counts[p][piece[0] == "m"] += 1

    for route in data.get("routes", []):
        for piece in route.get("points", []):
            add(piece)
    for city in data.get("cities", []):
        for piece in city.get("posts", []) + city.get("additional_posts", []):
            add(piece)
    for piece in data.get("special_prestige", []):
        add(piece)
    for frame in data.get("stack", []):
        holding = frame.get("holding")
        if isinstance(holding, list):
            for piece in holding:
                add(piece)
        elif isinstance(holding, str) and frame.get("frame") in ("displaced", "permanent_marker"):
            counts[frame["player"]][holding == "merchant"] += 1
    return counts


def make_position(
    game,
    edits: dict,
    seed: int = 0,
    take_from: tuple[str, ...] = ("stock", "supply"),
):
    """A state: the setup position with `edits` merged, pieces balanced, then fully checked.

    Pieces on the board are taken out of their owner's zones in `take_from` order; developed ability
    pieces go to the personal supply (where developing puts them); pieces left over go to the stock.
    A zone given explicitly in `player_state` is kept as given. Raises HansaError if the pieces do
    not add up.
    """
    module = game.module
    players = game.num_players()
    base = game.new_initial_state(seed).to_dict()
    data = merge(base, edits)
    on_board = _count_pieces(data, players)
    explicit = edits.get("player_state", {})
    explicit = explicit if isinstance(explicit, dict) else dict(enumerate(explicit))
    for p in range(players):
        ps = data["player_state"][p]
        fixed = {
            zone
            for zone in ("supply", "stock")
            if zone in explicit.get(p, explicit.get(str(p), {}))
        }
        for kind in (0, 1):
            owned = (module.TRADERS, module.MERCHANTS)[kind]
            on_tracks = sum(
                module.ABILITY_MAX[a] - int(ps["abilities"].get(name, 0))
                for a, name in enumerate(module.ABILITY_NAMES)
                if module.ABILITY_KIND[a] == kind
            )
            marker = 1 if module.SCORE_MARKER == kind else 0
            zones = {z: int(ps[z][KINDS[kind]]) for z in ("supply", "stock")}
            at_start = sum(
                module.ABILITY_MAX[a]
                for a in range(len(module.ABILITY_NAMES))
                if module.ABILITY_KIND[a] == kind
            )
            if "supply" not in fixed:
                zones["supply"] += at_start - on_tracks  # developing puts pieces in the supply
            surplus = sum(zones.values()) + on_board[p][kind] + on_tracks + marker - owned
            for zone in ("stock", "supply"):  # pieces left over: the stock keeps the rest
                if surplus < 0 and zone not in fixed:
                    zones[zone] -= surplus
                    surplus = 0
            if surplus < 0:
                raise HansaError(
                    f"position: player {p} has {-surplus} {KINDS[kind]} in no zone (supply and "
                    "stock are both given)"
                )
            for zone in take_from:
                if surplus <= 0:
                    break
                if zone in fixed:
                    continue
                taken = min(surplus, zones[zone])
                zones[zone] -= taken
                surplus -= taken
            if surplus > 0:
                raise HansaError(
                    f"position: player {p} would need {surplus} more {KINDS[kind]} than they own"
                )
            for zone in ("supply", "stock"):
                ps[zone][KINDS[kind]] = zones[zone]
    return game.state_from_json(data)
