"""Build positions by hand (scenario tests, puzzles): merge edits into the setup position's JSON.

Only the state JSON format (docs/state-format.md) and the piece counts every generated module
exports are used, so this works for every game.
"""

from __future__ import annotations

import copy
from collections import Counter
from typing import Any

from hansa.runtime.errors import Diagnostic, HansaError

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
    """A state: the setup position with `edits` merged, pieces and markers balanced, then fully
    checked.

    Pieces on the board are taken out of their owner's zones in `take_from` order; developed ability
    pieces go to the personal supply (where developing puts them); pieces left over go to the stock.
    A zone given explicitly in `player_state` is kept as given. A city's `posts` may list only its
    first spaces (the rest are empty). Bonus markers put anywhere are taken out of the supply (and
    markers taken off the board go back to it), unless `marker_supply` is given; the count of
    completed cities follows the cities' posts unless `completed_cities` is given. Raises one
    HansaError listing every problem found (pieces or markers that do not add up), before the
    state's own checks.
    """
    module = game.module
    players = game.num_players()
    base = game.new_initial_state(seed).to_dict()
    data = merge(base, edits)
    problems: list[str] = []
    _pad_posts(base, data, problems)
    if "marker_supply" not in edits:
        _balance_markers(base, data, problems)
    if "completed_cities" not in edits:
        data["completed_cities"] = sum(
            1
            for city in data.get("cities", [])
            if isinstance(city, dict)
            and isinstance(city.get("posts"), list)
            and city["posts"]
            and all(post is not None for post in city["posts"])
        )
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
                problems.append(
                    f"player {p} has {-surplus} {KINDS[kind]} in no zone (supply and "
                    "stock are both given)"
                )
                continue
            for zone in take_from:
                if surplus <= 0:
                    break
                if zone in fixed:
                    continue
                taken = min(surplus, zones[zone])
                zones[zone] -= taken
                surplus -= taken
            if surplus > 0:
                problems.append(f"player {p} would need {surplus} more {KINDS[kind]} than they own")
                continue
            for zone in ("supply", "stock"):
                ps[zone][KINDS[kind]] = zones[zone]
    if problems:
        raise HansaError([Diagnostic(f"position: {problem}") for problem in problems])
    return game.state_from_json(data)


def _pad_posts(base: dict, data: dict, problems: list[str]) -> None:
    """A city's `posts` written short (its first spaces only) gets its other spaces empty (a green
    city has no printed spaces: its posts are a list of any length)."""
    spaces = {
        city["name"]: len(city["posts"])
        for city in base.get("cities", [])
        if "name" in city and not city.get("green")
    }
    for city in data.get("cities", []):
        if not isinstance(city, dict) or city.get("name") not in spaces:
            continue
        posts, size = city.get("posts"), spaces[city["name"]]
        if isinstance(posts, list) and len(posts) < size:
            city["posts"] = posts + [None] * (size - len(posts))
        elif isinstance(posts, list) and len(posts) > size:
            problems.append(
                f"city {city['name']} has {size} trading-post spaces, "
                f"but {len(posts)} posts are given"
            )


def _marker_places(data: dict) -> list[Any]:
    """Every bonus marker outside the supply: on routes, with players, out of the game, in play."""
    found: list[Any] = []
    for route in data.get("routes", []):
        if isinstance(route, dict) and route.get("marker") is not None:
            found.append(route["marker"])
    for ps in data.get("player_state", []):
        markers = ps.get("markers", {}) if isinstance(ps, dict) else {}
        for key in ("unused", "used"):
            if isinstance(markers, dict) and isinstance(markers.get(key), list):
                found.extend(markers[key])
    if isinstance(data.get("markers_out_of_game"), list):
        found.extend(data["markers_out_of_game"])
    turn = data.get("turn", {})
    for key in ("markers_taken_this_action", "markers_to_place"):
        if isinstance(turn, dict) and isinstance(turn.get(key), list):
            found.extend(turn[key])
    return [m for m in found if isinstance(m, str)]


def _balance_markers(base: dict, data: dict, problems: list[str]) -> None:
    """Take the markers placed by the edits out of the supply; put markers no longer anywhere back
    at its end. Each marker of the game is then in exactly one place."""
    owned = Counter(_marker_places(base)) + Counter(base.get("marker_supply", []))
    placed = Counter(_marker_places(data))
    supply = list(base.get("marker_supply", []))
    for key in sorted(set(owned) | set(placed)):
        extra = placed[key] + supply.count(key) - owned[key]
        while extra > 0 and key in supply:
            del supply[len(supply) - 1 - supply[::-1].index(key)]
            extra -= 1
        if extra > 0:
            problems.append(
                f"{placed[key]} '{key}' bonus markers are placed, but the game has {owned[key]}"
            )
        elif extra < 0:
            supply.extend([key] * -extra)
    data["marker_supply"] = supply
