"""Helpers for the rule-book scenario tests: load a game from spec/, write a position compactly,
find actions by their readable names.

A scenario builds a position as state JSON (docs/state-format.md) through `Position`, which fills
in what a hand-written position must agree with: each player's general stock is whatever the other
zones leave of 27 traders and 4 merchants, the bonus-marker supply is whatever is not placed
elsewhere, and the completed-cities counter counts the full cities. Decisions are then made by
their `action_to_string` text, so a test reads like the rule book's example.
"""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path
from typing import Any

import pytest
from hansa.compiler.errors import HansaError

import hansa

SPEC = Path(__file__).resolve().parent.parent / "spec"

# RULES.md §1-3: pieces per player, the ability tracks (pieces covering each one at level 0, and the
# kind of piece covering it), and the trader that marks the score.
TRADERS = 27
MERCHANTS = 4
TRACK_PIECES = {"keys": 4, "actions": 5, "privilege": 3, "book": 3, "bank": 3}
TRACK_KIND = {"keys": 0, "actions": 0, "privilege": 0, "book": 1, "bank": 0}
SCORE_MARKER_TRADERS = 1


def load(name: str, players: int):
    """The game through the public API: the built module (`hansa.load_game`), or compiled in memory
    from spec/ (`hansa.compile_game`) when generated/ does not have it."""
    try:
        return hansa.load_game(name, players=players)
    except HansaError:
        return hansa.compile_game(name, players, spec_dir=str(SPEC))


# ---- actions by name
def action_names(game) -> dict[str, int]:
    """Every action of the game by its readable name."""
    key = (game.name, game.num_distinct_actions())
    found = _ALL_NAMES.get(key)
    if found is None:
        found = {game.action_to_string(a): a for a in range(game.num_distinct_actions())}
        _ALL_NAMES[key] = found
    return found


_ALL_NAMES: dict[tuple[str, int], dict[str, int]] = {}


def legal(state) -> list[str]:
    """The legal decisions of the position, by name."""
    return [state.action_to_string(a) for a in state.legal_actions()]


def act(state, *texts: str) -> None:
    """Make each named decision in turn; a name that is not legal fails the test with the list."""
    for text in texts:
        options = {state.action_to_string(a): a for a in state.legal_actions()}
        if text not in options:
            shown = "\n  ".join(options)
            raise AssertionError(f"{text!r} is not legal here; legal:\n  {shown}")
        state.apply_action(options[text])


def refuse(game, state, text: str) -> HansaError:
    """Applying the named action fails with a HansaError naming it, and the state is unchanged."""
    action = action_names(game)[text]
    assert action not in state.legal_actions(), f"{text!r} is legal but should not be"
    before = state.to_json()
    with pytest.raises(HansaError) as caught:
        state.apply_action(action)
    assert state.to_json() == before
    assert text in str(caught.value)
    return caught.value


def doc(state) -> dict:
    return json.loads(state.to_json())


def track(state) -> list[int]:
    return [p["track"] for p in doc(state)["player_state"]]


def supply(state, p: int) -> tuple[int, int]:
    zone = doc(state)["player_state"][p]["supply"]
    return zone["traders"], zone["merchants"]


def stock(state, p: int) -> tuple[int, int]:
    zone = doc(state)["player_state"][p]["stock"]
    return zone["traders"], zone["merchants"]


def route_points(state, a: str, b: str) -> list[str | None]:
    for entry in doc(state)["routes"]:
        if set(entry["cities"]) == {a, b}:
            return entry["points"]
    raise KeyError((a, b))


def route_marker(state, a: str, b: str) -> str | None:
    for entry in doc(state)["routes"]:
        if set(entry["cities"]) == {a, b}:
            return entry["marker"]
    raise KeyError((a, b))


def city_posts(state, name: str) -> tuple[list[str | None], list[str]]:
    """(posts on the spaces left to right, additional posts left to right)."""
    for entry in doc(state)["cities"]:
        if entry["name"] == name:
            return entry["posts"], entry["additional_posts"]
    raise KeyError(name)


def markers(state, p: int) -> tuple[list[str], list[str]]:
    entry = doc(state)["player_state"][p]["markers"]
    return entry["unused"], entry["used"]


# ---- positions
class Position:
    """A position written compactly; `state()` loads it through `game.state_from_json`.

    Pieces are written as in the state JSON: 't0' a trader of player 0, 'm2' a merchant of player 2.
    Unless a test sets it, a player's personal supply is the setup one, lowered only where the
    pieces put elsewhere leave too few for the general stock, which takes the rest.
    """

    def __init__(self, game) -> None:
        self.game = game
        self.n = game.num_players()
        initial = doc(game.new_initial_state(0))
        self._route_sizes = {
            frozenset(r["cities"]): (tuple(r["cities"]), len(r["points"]))
            for r in initial["routes"]
        }
        self._city_sizes = {c["name"]: len(c["posts"]) for c in initial["cities"]}
        self._special_size = len(initial["special_prestige"])
        counts: Counter[str] = Counter(initial["marker_supply"])
        for r in initial["routes"]:
            if r["marker"]:
                counts[r["marker"]] += 1
        self.marker_counts = counts
        self._setup_supply = [
            (ps["supply"]["traders"], ps["supply"]["merchants"]) for ps in initial["player_state"]
        ]
        self.routes: dict[frozenset, dict] = {}
        self.cities: dict[str, dict] = {}
        self.special = [None] * self._special_size
        self.players: list[dict] = [
            {
                "supply": None,
                "stock": None,
                "abilities": dict.fromkeys(TRACK_PIECES, 0),
                "track": 0,
                "unused": [],
                "used": [],
            }
            for _ in range(self.n)
        ]
        self.turn: dict[str, Any] = {"player": 0, "actions_left": None}
        self.plate: list[str] = []
        self.fresh: list[str] = []
        self.marker_supply: list[str] | None = None
        self.out: list[str] = []
        self.east_west: list[int] = []
        self.stack: list[dict] = []
        self.permissions_used: list[str] = []
        self.game_over = False
        self.ending = False
        self.pawn: dict[str, Any] | None = None  # the 2-player variant's neutral pawn

    # -- writing the position
    def route(self, a: str, b: str, *pieces: str | None, marker: str | None = None) -> Position:
        """Pieces on the route's points (in the state JSON's point order), the rest free."""
        key = frozenset((a, b))
        if key not in self._route_sizes:
            raise KeyError(f"no route {a}-{b} on this board")
        cities, size = self._route_sizes[key]
        if len(pieces) > size:
            raise ValueError(f"route {a}-{b} has {size} points")
        self.routes[key] = {
            "cities": list(cities),
            "points": list(pieces) + [None] * (size - len(pieces)),
            "marker": marker,
        }
        return self

    def city(self, name: str, *posts: str | None, additional: tuple[str, ...] = ()) -> Position:
        """Posts on the city's spaces from the left; additional posts left to right."""
        size = self._city_sizes[name]
        if len(posts) > size:
            raise ValueError(f"{name} has {size} spaces")
        self.cities[name] = {
            "name": name,
            "posts": list(posts) + [None] * (size - len(posts)),
            "additional_posts": list(additional),
        }
        return self

    def green_city(self, name: str, *posts: str) -> Position:
        """Posts in a green city (no printed spaces), left to right (Big Box p. 12)."""
        if self._city_sizes[name]:
            raise ValueError(f"{name} is not a green city")
        self.cities[name] = {"name": name, "green": True, "posts": list(posts)}
        return self

    def special_space(self, index: int, piece: str) -> Position:
        self.special[index] = piece
        return self

    def player(
        self,
        p: int,
        *,
        supply: tuple[int, int] | None = None,
        stock: tuple[int, int] | None = None,
        track: int | None = None,
        unused: list[str] | tuple[str, ...] = (),
        used: list[str] | tuple[str, ...] = (),
        **abilities: int,
    ) -> Position:
        """A player's zones: supply/stock as (traders, merchants); abilities as levels (the number
        of pieces taken off that track)."""
        entry = self.players[p]
        if supply is not None:
            entry["supply"] = supply
        if stock is not None:
            entry["stock"] = stock
        if track is not None:
            entry["track"] = track
        entry["unused"] = list(unused) or entry["unused"]
        entry["used"] = list(used) or entry["used"]
        for name, level in abilities.items():
            if name not in TRACK_PIECES:
                raise KeyError(name)
            entry["abilities"][name] = level
        return self

    def to_move(
        self, player: int, actions_left: int | None = None, plate: tuple[str, ...] = ()
    ) -> Position:
        """Whose turn it is and how many actions are left (default: the Actions value)."""
        self.turn = {"player": player, "actions_left": actions_left}
        self.plate = list(plate)
        return self

    def pawn_in(self, region: int | None, free_move: str = "before_first_action") -> Position:
        """The neutral pawn of the 2-player variant: its region and the turn's free move."""
        self.pawn = {"region": region, "free_move": free_move}
        return self

    # -- assembling the JSON
    def _placed(self) -> Counter[str]:
        placed: Counter[str] = Counter()
        for entry in self.routes.values():
            placed.update(x for x in entry["points"] if x)
        for entry in self.cities.values():
            placed.update(x for x in entry["posts"] if x)
            placed.update(entry.get("additional_posts", ()))
        placed.update(x for x in self.special if x)
        return placed

    def _zones(self, p: int, placed: Counter[str]) -> tuple[tuple[int, int], tuple[int, int]]:
        entry = self.players[p]
        free = []
        for kind, total in ((0, TRADERS), (1, MERCHANTS)):
            on_tracks = sum(
                TRACK_PIECES[a] - entry["abilities"][a]
                for a in TRACK_PIECES
                if TRACK_KIND[a] == kind
            )
            held = placed["tm"[kind] + str(p)] + on_tracks
            held += SCORE_MARKER_TRADERS if kind == 0 else 0
            free.append(total - held)
        supply, stock = entry["supply"], entry["stock"]
        if supply is None and stock is None:
            setup = self._setup_supply[p]
            supply = tuple(min(setup[k], free[k]) for k in (0, 1))
        if supply is None:
            supply = (free[0] - stock[0], free[1] - stock[1])
        if stock is None:
            stock = (free[0] - supply[0], free[1] - supply[1])
        for k in (0, 1):
            if supply[k] < 0 or stock[k] < 0 or supply[k] + stock[k] != free[k]:
                raise ValueError(
                    f"player {p}: {free[k]} {('traders', 'merchants')[k]} left for supply and "
                    f"stock, but supply {supply} and stock {stock} were asked for"
                )
        return supply, stock

    def to_dict(self) -> dict:
        placed = self._placed()
        used_markers: Counter[str] = Counter(self.plate + self.fresh + self.out)
        for entry in self.routes.values():
            if entry["marker"]:
                used_markers[entry["marker"]] += 1
        players = []
        for p, entry in enumerate(self.players):
            supply, stock = self._zones(p, placed)
            used_markers.update(entry["unused"] + entry["used"])
            players.append(
                {
                    "supply": {"traders": supply[0], "merchants": supply[1]},
                    "stock": {"traders": stock[0], "merchants": stock[1]},
                    "abilities": dict(entry["abilities"]),
                    "track": entry["track"],
                    "markers": {"unused": entry["unused"], "used": entry["used"]},
                }
            )
        left = self.marker_counts - used_markers
        out = list(self.out)
        if self.marker_supply is None:
            marker_supply = sorted(left.elements())
        else:
            marker_supply = list(self.marker_supply)
            out += sorted((left - Counter(marker_supply)).elements())
        actions_left = self.turn["actions_left"]
        if actions_left is None:
            level = self.players[self.turn["player"]]["abilities"]["actions"]
            actions_left = (2, 3, 3, 4, 4, 5)[level]
        completed = sum(
            1 for entry in self.cities.values() if all(x is not None for x in entry["posts"])
        )
        out = {
            "format": "hansa-state",
            "version": 1,
            "game": self.game.name,
            "players": self.n,
            "turn": {
                "player": self.turn["player"],
                "actions_left": actions_left,
                "game_ends_after_action": self.ending,
                "game_over": self.game_over,
                "markers_taken_this_action": self.fresh,
                "markers_to_place": self.plate,
                **({"permissions_used": self.permissions_used} if self.permissions_used else {}),
            },
            "player_state": players,
            "marker_supply": marker_supply,
            "markers_out_of_game": out,
            "completed_cities": completed,
            "east_west": self.east_west,
            "routes": list(self.routes.values()),
            "cities": list(self.cities.values()),
            "special_prestige": self.special,
            "stack": self.stack,
        }
        if self.pawn is not None:
            out["pawn"] = self.pawn
        return out

    def finished(self) -> Position:
        """A finished game: over, with an end condition met the way that changes no score (the
        bonus-marker supply ran out; the markers left in it go out of the game)."""
        self.game_over = True
        self.marker_supply = []
        return self

    def state(self):
        return self.game.state_from_json(json.dumps(self.to_dict(), ensure_ascii=False))
