"""Board IR <-> the reference board JSON (schema_version 1; tests/fixtures/boards/, its README).

`board_from_json` validates as it converts: every wrong, missing or unknown field is a `HansaError`
naming the file and the field's path (`cities[3] (Bremen).offices[1].shape`), so imported data is
trusted no further than the schema. `board_to_json` produces the reference files exactly: the same
keys in the same order, optional keys present exactly when the reference has them, `kind` and
`merchant_points` derived from the point types, cities and routes sorted as the reference does.
`dumps_board_json` prints that dict in the reference files' layout (one city or route per line).
"""

from __future__ import annotations

import json
import unicodedata
from collections.abc import Callable
from pathlib import Path
from typing import Any

from hansa.runtime.serialize import json_problem

from ..errors import HansaError, Span, did_you_mean
from ..nodes.board import (
    ABILITIES,
    PERMANENT_BONUSES,
    POINT_TYPES,
    PRIVILEGES,
    SHAPES,
    Board,
    City,
    PostSpace,
    Route,
    SpecialPrestige,
    SpecialSpace,
)
from .lower import MAX_ROUTE_POINTS, PLAYER_COUNT_RANGE, VERIFICATION_LIST_KEYS

SCHEMA_VERSION = 1

# Keys in the order the reference files write them; `None` marks keys that may be absent.
TOP_LEVEL_KEYS = {
    "schema_version": True,
    "id": True,
    "board": True,
    "side": True,
    "players": True,
    "original_edition_players": False,
    "east_west": True,
    "completed_cities_to_end": True,
    "special_prestige": True,
    "countries": False,
    "verification": False,
    "position_frame": False,
    "cities": True,
    "routes": True,
}
CITY_KEYS = {
    "name": True,
    "aliases": False,
    "offices": True,
    "ability": True,
    "hanseatic": False,
    "country": False,
    "permission": False,
    "position": False,
}
ROUTE_KEYS = {
    "cities": True,
    "points": True,
    "kind": True,
    "merchant_points": True,
    "point_types": False,
    "tavern": True,
    "permanent_bonus": True,
    "country": False,
}
OFFICE_KEYS = {"shape": True, "privilege": True, "prestige": True}
SPECIAL_KEYS = {"city": True, "via_route": True, "spaces": True}
SPECIAL_SPACE_KEYS = {"points": True, "privilege": True}
FRAME_KEYS = {"image_size": True, "note": False}
COIN_VALUES = (0, 1, 2)
ROUTE_KINDS = ("land", "sea")


def name_sort_key(name: str) -> tuple[str, str]:
    """The reference name order: accents and case ignored (Goslar < Göttingen < Groningen)."""
    decomposed = unicodedata.normalize("NFKD", name)
    folded = "".join(ch for ch in decomposed if not unicodedata.combining(ch)).casefold()
    return (folded, name)


def land_route_ends(route: Route) -> tuple[str, str]:
    """Endpoints as the reference writes them: land routes alphabetical, sea routes as given."""
    if route.is_sea:
        return route.cities
    a, b = route.cities
    return (a, b) if name_sort_key(a) <= name_sort_key(b) else (b, a)


def route_sort_key(route: Route) -> tuple:
    """The reference route order: by the alphabetically sorted pair of endpoint names."""
    return tuple(sorted(name_sort_key(c) for c in route.cities))


def sorted_cities(board: Board) -> list[City]:
    return sorted(board.cities, key=lambda c: name_sort_key(c.name))


def sorted_routes(board: Board) -> list[Route]:
    return sorted(board.routes, key=route_sort_key)


# --------------------------------------------------------------------------- JSON -> IR


class _Reader:
    """Typed access to JSON values that reports errors with the file and the field's path."""

    def __init__(self, file: str):
        self.file = file

    def fail(self, path: str, message: str) -> HansaError:
        where = f"{path}: " if path else ""
        return HansaError(f"{where}{message}", Span(self.file, 0, 0))

    def obj(self, value: Any, path: str, keys: dict[str, bool]) -> dict:
        """Check that `value` is an object with every required key of `keys` and no other key."""
        if not isinstance(value, dict):
            raise self.fail(path, f"expected an object, got {_describe(value)}")
        for key, required in keys.items():
            if required and key not in value:
                raise self.fail(_join(path, key), "missing field")
        for key in value:
            if key not in keys:
                hint = did_you_mean(str(key), list(keys))
                raise self.fail(_join(path, str(key)), f"unknown field{hint}")
        return value

    def string(self, value: Any, path: str, *, allow_empty: bool = True) -> str:
        """A string, NFC-normalised as the board language normalises what it reads."""
        if not isinstance(value, str):
            raise self.fail(path, f"expected a string, got {_describe(value)}")
        if any(0xD800 <= ord(ch) <= 0xDFFF for ch in value):
            raise self.fail(path, "holds a lone surrogate (\\uD800-\\uDFFF), not a character")
        if not allow_empty and not value.strip():
            raise self.fail(path, "must not be empty")
        return unicodedata.normalize("NFC", value)

    def integer(
        self, value: Any, path: str, low: int | None = None, high: int | None = None
    ) -> int:
        if isinstance(value, bool) or not isinstance(value, int):
            raise self.fail(path, f"expected a whole number, got {_describe(value)}")
        if (low is not None and value < low) or (high is not None and value > high):
            bounds = f"{low}..{high}" if high is not None else f"at least {low}"
            raise self.fail(path, f"expected {bounds}, got {value}")
        return value

    def boolean(self, value: Any, path: str) -> bool:
        if not isinstance(value, bool):
            raise self.fail(path, f"expected true or false, got {_describe(value)}")
        return value

    def number(self, value: Any, path: str) -> float:
        if isinstance(value, bool) or not isinstance(value, int | float):
            raise self.fail(path, f"expected a number, got {_describe(value)}")
        if value != value or value in (float("inf"), float("-inf")):
            raise self.fail(path, f"expected a finite number, got {value}")
        return float(value)

    def array(self, value: Any, path: str, length: int | None = None) -> list:
        if not isinstance(value, list):
            raise self.fail(path, f"expected a list, got {_describe(value)}")
        if length is not None and len(value) != length:
            raise self.fail(path, f"expected {length} entries, got {len(value)}")
        return value

    def word(self, value: Any, path: str, allowed: tuple[str, ...], what: str) -> str:
        text = self.string(value, path)
        if text not in allowed:
            hint = did_you_mean(text, allowed)
            raise self.fail(
                path, f"unknown {what} {text!r}{hint}; expected one of {', '.join(allowed)}"
            )
        return text

    def strings(
        self, value: Any, path: str, *, unique: bool = True, allow_empty: bool = False
    ) -> tuple[str, ...]:
        """A list of strings (names: non-empty, and a name list may not repeat one)."""
        items = self.array(value, path)
        out = tuple(
            self.string(v, f"{path}[{i}]", allow_empty=allow_empty) for i, v in enumerate(items)
        )
        if unique:
            self.no_repeats(out, path)
        return out

    def no_repeats(self, values: tuple[str, ...], path: str) -> None:
        for i, v in enumerate(values):
            if v in values[:i]:
                raise self.fail(f"{path}[{i}]", f"{v!r} is listed twice")

    def one_or_many(
        self, value: Any, path: str, check: Callable[[Any, str], str]
    ) -> tuple[str, ...]:
        """A string or a non-empty list of strings (the schema's `ability` and `country`)."""
        if isinstance(value, list):
            if not value:
                raise self.fail(path, "an empty list; write null or leave the field out")
            out = tuple(check(v, f"{path}[{i}]") for i, v in enumerate(value))
            self.no_repeats(out, path)
            return out
        return (check(value, path),)

    def players(self, value: Any, path: str) -> tuple[int, ...]:
        counts = tuple(
            self.integer(v, f"{path}[{i}]", *PLAYER_COUNT_RANGE)
            for i, v in enumerate(self.array(value, path))
        )
        if not counts:
            raise self.fail(path, "expected at least one player count")
        if list(counts) != list(range(counts[0], counts[0] + len(counts))):
            raise self.fail(
                path, f"player counts must be consecutive and rising, got {list(counts)}"
            )
        return counts


def _join(path: str, key: str) -> str:
    return f"{path}.{key}" if path else key


def _describe(value: Any) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, str):
        return f"the string {value!r}"
    if isinstance(value, int | float):
        return f"the number {value!r}"
    if isinstance(value, list):
        return "a list"
    if isinstance(value, dict):
        return "an object"
    return type(value).__name__


def board_from_json(data: Any, file: str) -> Board:
    """Validate reference-schema data and build the Board IR; errors name `file` and the field."""
    r = _Reader(file)
    top = r.obj(data, "", TOP_LEVEL_KEYS)
    version = top["schema_version"]
    if isinstance(version, bool) or version != SCHEMA_VERSION:
        raise r.fail("schema_version", f"expected {SCHEMA_VERSION}, got {_describe(version)}")
    board_id = r.string(top["id"], "id", allow_empty=False)
    title = r.string(top["board"], "board")
    side = r.string(top["side"], "side")
    players = r.players(top["players"], "players")
    original = ()
    if "original_edition_players" in top:
        original = r.players(top["original_edition_players"], "original_edition_players")
    east_west = None
    if top["east_west"] is not None:
        ends = r.array(top["east_west"], "east_west", 2)
        east_west = (
            r.string(ends[0], "east_west[0]", allow_empty=False),
            r.string(ends[1], "east_west[1]", allow_empty=False),
        )
    completed = r.integer(top["completed_cities_to_end"], "completed_cities_to_end", 1)
    special = None
    if top["special_prestige"] is not None:
        special = _special_from_json(r, top["special_prestige"])
    countries = r.strings(top["countries"], "countries") if "countries" in top else ()
    verification: tuple[tuple[str, object], ...] = ()
    if "verification" in top:
        verification = _verification_from_json(r, top["verification"])
    frame, frame_note = None, ""
    if "position_frame" in top:
        pf = r.obj(top["position_frame"], "position_frame", FRAME_KEYS)
        size = r.array(pf["image_size"], "position_frame.image_size", 2)
        frame = (
            r.integer(size[0], "position_frame.image_size[0]", 1),
            r.integer(size[1], "position_frame.image_size[1]", 1),
        )
        if "note" in pf:
            frame_note = r.string(pf["note"], "position_frame.note")
    cities = tuple(
        _city_from_json(r, c, f"cities[{i}]")
        for i, c in enumerate(r.array(top["cities"], "cities"))
    )
    routes = tuple(
        _route_from_json(r, x, f"routes[{i}]")
        for i, x in enumerate(r.array(top["routes"], "routes"))
    )
    return Board(
        id=board_id,
        title=title,
        side=side,
        players=players,
        original_edition_players=original,
        east_west=east_west,
        completed_cities=completed,
        special_prestige=special,
        countries=countries,
        cities=cities,
        routes=routes,
        verification=verification,
        frame=frame,
        frame_note=frame_note,
        span=Span(file, 0, 0),
    )


def _special_from_json(r: _Reader, value: Any) -> SpecialPrestige:
    sp = r.obj(value, "special_prestige", SPECIAL_KEYS)
    city = r.string(sp["city"], "special_prestige.city", allow_empty=False)
    via = r.array(sp["via_route"], "special_prestige.via_route", 2)
    via_pair = (
        r.string(via[0], "special_prestige.via_route[0]", allow_empty=False),
        r.string(via[1], "special_prestige.via_route[1]", allow_empty=False),
    )
    spaces = []
    for i, s in enumerate(r.array(sp["spaces"], "special_prestige.spaces")):
        path = f"special_prestige.spaces[{i}]"
        s = r.obj(s, path, SPECIAL_SPACE_KEYS)
        spaces.append(
            SpecialSpace(
                points=r.integer(s["points"], f"{path}.points", 0),
                privilege=r.word(
                    s["privilege"], f"{path}.privilege", PRIVILEGES, "privilege colour"
                ),
            )
        )
    return SpecialPrestige(city=city, via=via_pair, spaces=tuple(spaces))


def _verification_from_json(r: _Reader, value: Any) -> tuple[tuple[str, object], ...]:
    """Provenance entries, shaped as the board language reads them back: the list keys
    (`sources_agreeing`) always hold a list, other keys a string when given a one-entry list."""
    if not isinstance(value, dict):
        raise r.fail("verification", f"expected an object, got {_describe(value)}")
    items: list[tuple[str, object]] = []
    for key, v in value.items():
        path = f"verification.{key}"
        if not key.strip():
            raise r.fail(path, "an empty key")
        if isinstance(v, list):
            values = r.strings(v, path, unique=False, allow_empty=True)
            if not values:
                raise r.fail(path, "an empty list")
        else:
            values = (r.string(v, path),)
        if len(values) == 1 and key not in VERIFICATION_LIST_KEYS:
            items.append((key, values[0]))
        else:
            items.append((key, values))
    return tuple(items)


def _city_from_json(r: _Reader, value: Any, path: str) -> City:
    if isinstance(value, dict) and isinstance(value.get("name"), str):
        path = f"{path} ({value['name']})"
    c = r.obj(value, path, CITY_KEYS)
    name = r.string(c["name"], f"{path}.name", allow_empty=False)
    spaces = []
    for i, o in enumerate(r.array(c["offices"], f"{path}.offices")):
        opath = f"{path}.offices[{i}]"
        o = r.obj(o, opath, OFFICE_KEYS)
        coin = r.integer(o["prestige"], f"{opath}.prestige")
        if coin not in COIN_VALUES:
            raise r.fail(f"{opath}.prestige", f"expected 0, 1 or 2, got {coin}")
        spaces.append(
            PostSpace(
                shape=r.word(o["shape"], f"{opath}.shape", SHAPES, "shape"),
                privilege=r.word(
                    o["privilege"], f"{opath}.privilege", PRIVILEGES, "privilege colour"
                ),
                coin=coin,
            )
        )
    abilities: tuple[str, ...] = ()
    if c["ability"] is not None:
        abilities = r.one_or_many(
            c["ability"], f"{path}.ability", lambda v, p: r.word(v, p, ABILITIES, "ability")
        )
    hanseatic = r.boolean(c["hanseatic"], f"{path}.hanseatic") if "hanseatic" in c else True
    countries: tuple[str, ...] = ()
    if "country" in c:
        countries = r.one_or_many(
            c["country"], f"{path}.country", lambda v, p: r.string(v, p, allow_empty=False)
        )
    permissions = r.strings(c["permission"], f"{path}.permission") if "permission" in c else ()
    position = None
    if "position" in c:
        pos = r.array(c["position"], f"{path}.position", 2)
        position = (
            r.number(pos[0], f"{path}.position[0]"),
            r.number(pos[1], f"{path}.position[1]"),
        )
    aliases = r.strings(c["aliases"], f"{path}.aliases") if "aliases" in c else ()
    return City(
        name=name,
        spaces=tuple(spaces),
        abilities=abilities,
        hanseatic=hanseatic,
        countries=countries,
        permissions=permissions,
        position=position,
        aliases=aliases,
        span=Span(r.file, 0, 0),
    )


def _route_from_json(r: _Reader, value: Any, path: str) -> Route:
    if isinstance(value, dict) and isinstance(value.get("cities"), list):
        path = f"{path} ({' -- '.join(str(c) for c in value['cities'])})"
    x = r.obj(value, path, ROUTE_KEYS)
    ends = r.array(x["cities"], f"{path}.cities", 2)
    cities = (
        r.string(ends[0], f"{path}.cities[0]", allow_empty=False),
        r.string(ends[1], f"{path}.cities[1]", allow_empty=False),
    )
    count = r.integer(x["points"], f"{path}.points", 0, MAX_ROUTE_POINTS)
    kind = r.word(x["kind"], f"{path}.kind", ROUTE_KINDS, "route kind")
    merchants = r.integer(x["merchant_points"], f"{path}.merchant_points", 0, count)
    if "point_types" in x:
        types = r.array(x["point_types"], f"{path}.point_types", count)
        points = tuple(
            r.word(t, f"{path}.point_types[{i}]", POINT_TYPES, "point type")
            for i, t in enumerate(types)
        )
        if kind != "sea":
            raise r.fail(f"{path}.point_types", "only sea routes list point types")
    else:
        if kind == "sea":
            raise r.fail(f"{path}.point_types", "missing field (a sea route lists its point types)")
        points = ("any",) * count
    if sum(1 for p in points if p == "merchant") != merchants:
        raise r.fail(
            f"{path}.merchant_points",
            f"says {merchants}, but the point types have a different count",
        )
    if (kind == "sea") != (merchants > 0):
        raise r.fail(f"{path}.kind", f"{kind!r} disagrees with merchant_points {merchants}")
    bonus = x["permanent_bonus"]
    if bonus is not None:
        bonus = r.word(bonus, f"{path}.permanent_bonus", PERMANENT_BONUSES, "permanent bonus")
    country = (
        r.string(x["country"], f"{path}.country", allow_empty=False) if "country" in x else None
    )
    return Route(
        cities=cities,
        points=points,
        tavern=r.boolean(x["tavern"], f"{path}.tavern"),
        permanent_bonus=bonus,
        country=country,
        span=Span(r.file, 0, 0),
    )


def load_board_json(path: str | Path) -> Board:
    """Read and validate a reference-schema JSON file; every failure is one HansaError."""
    name = str(path)
    p = Path(path)
    if not p.exists():
        raise HansaError("no such file", Span(name, 0, 0))
    if p.is_dir():
        raise HansaError("is a directory, not a JSON board file", Span(name, 0, 0))
    try:
        text = p.read_bytes().decode("utf-8-sig")
    except OSError as exc:
        raise HansaError(f"cannot read: {exc.strerror or exc}", Span(name, 0, 0)) from None
    except UnicodeDecodeError as exc:
        raise HansaError(
            f"not UTF-8 text (bad byte at offset {exc.start})", Span(name, 0, 0)
        ) from None
    if not text.strip():
        raise HansaError("empty file", Span(name, 0, 0))
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        raise HansaError(f"not valid JSON: {exc.msg}", Span(name, exc.lineno, exc.colno)) from None
    except (RecursionError, ValueError) as exc:  # nesting, or a number of 5,000 digits
        message, line, column = json_problem(exc, text)
        raise HansaError(message, Span(name, line, column)) from None
    return board_from_json(data, name)


# --------------------------------------------------------------------------- IR -> JSON


def board_to_json(board: Board) -> dict:
    """The board in the reference schema (schema_version 1), key for key as the reference files."""
    out: dict[str, Any] = {
        "schema_version": SCHEMA_VERSION,
        "id": board.id,
        "board": board.title,
        "side": board.side,
        "players": list(board.players),
    }
    if board.original_edition_players:
        out["original_edition_players"] = list(board.original_edition_players)
    out["east_west"] = list(board.east_west) if board.east_west is not None else None
    out["completed_cities_to_end"] = board.completed_cities
    sp = board.special_prestige
    out["special_prestige"] = (
        None
        if sp is None
        else {
            "city": sp.city,
            "via_route": list(sp.via),
            "spaces": [{"points": s.points, "privilege": s.privilege} for s in sp.spaces],
        }
    )
    if board.countries:
        out["countries"] = list(board.countries)
    if board.verification:
        out["verification"] = {
            key: list(value) if isinstance(value, tuple | list) else value
            for key, value in board.verification
        }
    if board.frame is not None:
        frame: dict[str, Any] = {"image_size": list(board.frame)}
        if board.frame_note:
            frame["note"] = board.frame_note
        out["position_frame"] = frame
    any_green = any(not c.hanseatic for c in board.cities)
    out["cities"] = [_city_to_json(c, any_green) for c in sorted_cities(board)]
    out["routes"] = [_route_to_json(r) for r in sorted_routes(board)]
    return out


def _one_or_many(values: tuple[str, ...]) -> str | list[str]:
    return values[0] if len(values) == 1 else list(values)


def _city_to_json(city: City, any_green: bool) -> dict:
    out: dict[str, Any] = {"name": city.name}
    if city.aliases:
        out["aliases"] = list(city.aliases)
    out["offices"] = [
        {"shape": s.shape, "privilege": s.privilege, "prestige": s.coin} for s in city.spaces
    ]
    out["ability"] = _one_or_many(city.abilities) if city.abilities else None
    if any_green:
        out["hanseatic"] = city.hanseatic
    if city.countries:
        out["country"] = _one_or_many(city.countries)
    if city.permissions:
        out["permission"] = list(city.permissions)
    if city.position is not None:
        out["position"] = [city.position[0], city.position[1]]
    return out


def _route_to_json(route: Route) -> dict:
    ends = land_route_ends(route)
    points = route.points if ends == route.cities else tuple(reversed(route.points))
    out: dict[str, Any] = {
        "cities": list(ends),
        "points": len(points),
        "kind": "sea" if route.is_sea else "land",
        "merchant_points": route.merchant_points,
    }
    if route.is_sea:
        out["point_types"] = list(points)
    out["tavern"] = route.tavern
    out["permanent_bonus"] = route.permanent_bonus
    if route.country is not None:
        out["country"] = route.country
    return out


def _compact(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False)


def dumps_board_json(data: dict) -> str:
    """Text in the reference layout: top-level keys one per line, one city or route per line."""
    lines = ["{"]
    items = list(data.items())
    for index, (key, value) in enumerate(items):
        comma = "," if index < len(items) - 1 else ""
        if key in ("cities", "routes") and isinstance(value, list) and value:
            lines.append(f"  {_compact(key)}: [")
            for j, item in enumerate(value):
                lines.append(f"    {_compact(item)}{',' if j < len(value) - 1 else ''}")
            lines.append(f"  ]{comma}")
        else:
            lines.append(f"  {_compact(key)}: {_compact(value)}{comma}")
    lines.append("}")
    return "\n".join(lines) + "\n"
