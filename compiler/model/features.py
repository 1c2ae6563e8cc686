"""Board features: green cities, countries, permissions and permanent markers. The board says where
they are, the rule set's `board_rules` and `permanent_marker` components say how they play. A
feature the board lacks compiles to nothing (no constants, no code); one the rules lack is an error
at the board's line."""

from __future__ import annotations

from .fold import Fold, error, where
from .sizes import MAX_MOVE, check_value

PERMANENT_KINDS = (
    "move_tradesmen",
    "develop_ability",
    "green_city_post",
    "place_from_route",
    "place_in_countries",
)
SOURCES = ("stock", "supply", "board")


def fold_green_cities(f: Fold) -> None:
    """GREEN_CITIES, CITY_GREEN; components green_cities, green_first_post_completes,
    green_additional_post."""
    board, rules, k, comp = f.board, f.rules, f.k, f.comp
    green = tuple(i for i, c in enumerate(board.cities) if not c.hanseatic)
    green_rule = rules.board_rule("green_cities")
    if green and green_rule is None:
        city = board.cities[green[0]]
        raise error(
            f"game {f.game.name!r}: city {city.name!r} of board {board.id!r} is green, but rule "
            f"set {rules.name!r} has no `board_rules green_cities`",
            city.span,
        )
    comp["green_cities"] = bool(green)
    comp["green_first_post_completes"] = bool(green) and bool(
        green_rule.param("first_post_completes", True)
    )
    comp["green_additional_post"] = bool(green) and bool(green_rule.param("additional_post", True))
    if green:
        k["GREEN_CITIES"] = green
        k["CITY_GREEN"] = tuple(1 if not c.hanseatic else 0 for c in board.cities)
        f.origins["board_rules:green_cities"] = where(green_rule.span)


def _country_names(board) -> list[str]:
    """The board's countries: declared ones first, then those cities and routes name."""
    countries = list(board.countries)
    for c in board.cities:
        for name in c.countries + c.permissions:
            if name not in countries:
                countries.append(name)
    for r in board.routes:
        if r.country and r.country not in countries:
            countries.append(r.country)
    return countries


def fold_countries(f: Fold) -> None:
    """COUNTRY_NAMES, ROUTE_COUNTRY (-1: none), CITY_COUNTRIES, ROUTE_PERMIT_BIT (the bit of a
    route's country when it needs a permission), PERMIT_COUNTRIES; components countries,
    permissions, displaced_to, move_rule, marker_move_rule, country_moves."""
    board, rules, k, comp = f.board, f.rules, f.k, f.comp
    game = f.game.name
    countries = _country_names(board)
    permit = [n for n in countries if any(n in c.permissions for c in board.cities)]
    uses_countries = bool(countries) and any(r.country for r in board.routes)
    country_rule = rules.board_rule("countries")
    if uses_countries and country_rule is None:
        raise error(
            f"game {game!r}: board {board.id!r} has countries, but rule set {rules.name!r} has no "
            "`board_rules countries`",
            board.statement_span("countries"),
        )
    if permit and rules.board_rule("permissions") is None:
        city = next(c for c in board.cities if c.permissions)
        raise error(
            f"game {game!r}: city {city.name!r} of board {board.id!r} grants permissions, but rule "
            f"set {rules.name!r} has no `board_rules permissions`",
            city.span,
        )
    if permit and not uses_countries:
        city = next(c for c in board.cities if c.permissions)
        raise error(
            f"game {game!r}: city {city.name!r} grants a permission, but no route of board "
            f"{board.id!r} lies in a country",
            city.span,
        )
    comp["countries"] = uses_countries
    comp["permissions"] = bool(permit)
    cidx = {n: i for i, n in enumerate(countries)}
    if uses_countries:
        k["COUNTRY_NAMES"] = tuple(countries)
        k["ROUTE_COUNTRY"] = tuple(cidx[r.country] if r.country else -1 for r in board.routes)
        k["CITY_COUNTRIES"] = tuple(tuple(cidx[n] for n in c.countries) for c in board.cities)
        permit_bits = sum(1 << cidx[n] for n in permit)
        k["ROUTE_PERMIT_BIT"] = tuple(
            (1 << cidx[r.country]) & permit_bits if r.country else 0 for r in board.routes
        )
        k["PERMIT_COUNTRIES"] = tuple(cidx[n] for n in permit)
        comp["displaced_to"] = country_rule.param("displaced_to", "own_or_free")
        comp["move_rule"] = country_rule.param("move", "own_or_free")
        comp["marker_move_rule"] = country_rule.param("marker_move", "same_country")
        f.origins["board_rules:countries"] = where(country_rule.span)
    else:
        comp["displaced_to"] = comp["move_rule"] = comp["marker_move_rule"] = "anywhere"
    comp["country_moves"] = uses_countries and (
        comp["move_rule"] != "anywhere" or comp["marker_move_rule"] != "anywhere"
    )
    _permissions(f, permit, cidx)


def _permissions(f: Fold, permit: list[str], cidx: dict[str, int]) -> None:
    """PERMISSION_CITIES as (city, country bits), the narrowest grant first; components
    permission_place, permission_displace, permission_once."""
    comp = f.comp
    if not permit:
        comp["permission_place"] = comp["permission_displace"] = False
        comp["permission_once"] = False
        return
    permission_rule = f.rules.board_rule("permissions")
    grants = [
        (f.city_index[c.name], sum(1 << cidx[n] for n in c.permissions))
        for c in f.board.cities
        if c.permissions
    ]
    grants.sort(key=lambda g: (bin(g[1]).count("1"), g[0]))  # the narrowest is used first
    f.k["PERMISSION_CITIES"] = tuple(grants)
    actions = tuple(permission_rule.param("actions", ("place", "displace")))
    comp["permission_place"] = "place" in actions
    comp["permission_displace"] = "displace" in actions
    comp["permission_once"] = bool(permission_rule.param("once_per_turn", True))
    f.origins["board_rules:permissions"] = where(permission_rule.span)


def _check_permanent(f: Fold, route, pm) -> None:
    """Refuse a permanent marker the templates or this board cannot play."""
    game, board = f.game.name, f.board
    if pm.kind not in PERMANENT_KINDS:
        raise error(f"permanent marker kind {pm.kind!r} has no template", pm.span)
    count = pm.param("count", 2)
    if pm.kind in ("move_tradesmen", "place_from_route", "place_in_countries"):
        check_value(count, MAX_MOVE, f"pieces the permanent marker {pm.name!r} moves", pm.span)
    if pm.kind == "develop_ability":
        ab = pm.param("ability", "any")
        if ab != "any" and ab not in f.k["ABILITY_NAMES"]:
            raise error(f"develop_ability names unknown ability {ab!r}", pm.span)
    needs = {"place_in_countries": "permissions", "green_city_post": "green_cities"}
    if pm.kind in needs and not f.comp[needs[pm.kind]]:
        what = (
            "places pieces in countries that need a permission"
            if pm.kind == "place_in_countries"
            else "posts in a green city"
        )
        raise error(
            f"game {game!r}: route {route.cities[0]}–{route.cities[1]}: permanent marker "
            f"{pm.name!r} {what}, and board {board.id!r} has none",
            route.span,
        )


def _permanent_row(f: Fold, pm) -> tuple:
    """A permanent marker's row of PERMANENT: (kind index, count or choice, more)."""
    kind = PERMANENT_KINDS.index(pm.kind)
    if pm.kind == "move_tradesmen":
        whose = 1 if pm.param("whose", "any") == "opponents" else 2
        return (kind, int(pm.param("count", 2)), whose)
    if pm.kind == "develop_ability":
        ab = pm.param("ability", "any")
        return (kind, -1 if ab == "any" else f.k["ABILITY_NAMES"].index(ab), 0)
    if pm.kind == "green_city_post":
        return (kind, 1 if pm.param("side", "right") == "right" else 0, 0)
    if pm.kind == "place_from_route":
        return (kind, int(pm.param("count", 2)), 0)
    sources = tuple(SOURCES.index(x) for x in pm.param("from", SOURCES))
    return (kind, int(pm.param("count", 2)), sources)


def fold_permanent_markers(f: Fold) -> None:
    """PERMANENT_NAMES, PERMANENT (a row per marker used), ROUTE_PERMANENT (-1: none); components
    permanent, permanent_<kind>, lift_for_countries."""
    board, rules, k, comp = f.board, f.rules, f.k, f.comp
    by_name = {pm.name: pm for pm in rules.permanent_markers}
    used: list[str] = []
    route_permanent = []
    for r in board.routes:
        if not r.permanent_bonus:
            route_permanent.append(-1)
            continue
        pm = by_name.get(r.permanent_bonus)
        if pm is None:
            raise error(
                f"game {f.game.name!r}: route {r.cities[0]}–{r.cities[1]} has the permanent "
                f"marker {r.permanent_bonus!r}, which rule set {rules.name!r} does not declare "
                f"(`permanent_marker {r.permanent_bonus} = …`)",
                r.span,
            )
        _check_permanent(f, r, pm)
        if pm.name not in used:
            used.append(pm.name)
            f.origins["permanent:" + pm.name] = where(pm.span)
        route_permanent.append(used.index(pm.name))
    comp["permanent"] = bool(used)
    kinds_used = {by_name[n].kind for n in used}
    for kind in PERMANENT_KINDS:
        comp["permanent_" + kind] = kind in kinds_used
    table = [_permanent_row(f, by_name[n]) for n in used]
    comp["lift_for_countries"] = any(
        row[0] == PERMANENT_KINDS.index("place_in_countries") and 2 in row[2] for row in table
    )
    if used:
        k["PERMANENT_NAMES"] = tuple(used)
        k["PERMANENT"] = tuple(table)
        k["ROUTE_PERMANENT"] = tuple(route_permanent)
