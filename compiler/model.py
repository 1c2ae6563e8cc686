"""Fold a board and a resolved rule set into plain tables for code generation.

Everything the generated module needs is computed here, once, at compile time: cities, routes,
connection points, post spaces and special-prestige spaces become small ints; adjacency,
route→points,
city→routes, the rings of routes at each distance from a route (displacement), ability and scoring
tables, the bonus-marker mix and the action-id layout become tuples. The templates only arrange code
around these values, so a game never pays at run time for what the compiler already knew.

Every component value the rules catalogue accepts has a template choice (docs/rules-language.md,
"What the variants mean"). Board features the templates do not implement (permanent bonuses,
countries, green cities) are refused here with a `HansaError` pointing at the spec text, rather
than being silently mis-played.
"""

from __future__ import annotations

import hashlib
import keyword
import re
import unicodedata
from dataclasses import dataclass, field, replace

from .errors import HansaError, Span, did_you_mean
from .ir import PRIVILEGES, Board
from .prelude import defined
from .rules_catalogue import component
from .rules_ir import (
    ABILITY_ROLES,
    CreateRoute,
    Displace,
    Game,
    Income,
    Move,
    Place,
    RuleSet,
)

# Bank value "all": more pieces than any player owns.
ALL_PIECES = 999

# The option values (Decisions of RULES.md) the templates implement.
SUPPORTED_OPTIONS: dict[str, tuple[object, ...]] = {
    "displaced_extra_kind": ("owner_chooses", "traders_only"),
    "displaced_piece_without_point": ("personal_supply", "general_stock"),
    "unplaceable_marker": ("out_of_game", "back_to_supply"),
    "no_op_actions": ("illegal", "legal"),
    "move_must_place_all": (True, False, "yes", "no"),
}
# Each option's value as the templates read it (yes/no options as booleans).
OPTION_DEFAULTS: dict[str, object] = {
    "displaced_extra_kind": "owner_chooses",
    "displaced_piece_without_point": "personal_supply",
    "unplaceable_marker": "out_of_game",
    "no_op_actions": "illegal",
    "move_must_place_all": True,
}

MARKER_KINDS = (
    "additional_trading_post",
    "exchange_trading_posts",
    "develop_ability",
    "extra_actions",
    "move_tradesmen",
    "remove_tradesmen",
)
# Kinds that stay templates because they are procedures, not values (docs/architecture.md); every
# other end trigger and scoring kind is defined in words in compiler/prelude.hansa.
END_KINDS = ("marker_supply_empty",)
SCORE_KINDS = ("country_majority", "missions")
PLACEMENT_CONDITIONS = ("no_marker", "no_pieces", "vacant_space_in_a_city")
BOARD_PLACEMENT_CONDITIONS = ("no_permanent_marker", "not_in_permission_country")


def mangle_module_name(game_name: str) -> str:
    """A Python module name for a game name; lossy names get a hash suffix so none collide."""
    plain = game_name.replace("-", "_").lower()
    ascii_name = re.sub(r"[^a-z0-9_]", "_", plain)
    if ascii_name != plain or not ascii_name:
        digest = hashlib.sha256(game_name.encode("utf-8")).hexdigest()[:8]
        ascii_name = f"{ascii_name}_{digest}"
    if ascii_name[0].isdigit() or ascii_name[0] == "_" or keyword.iskeyword(ascii_name):
        # a leading underscore would reach the package's own files (`__init__`, `_index`)
        ascii_name = f"game_{ascii_name}"
    return ascii_name


def where(span: Span) -> str:
    """`file:line` of a component for the comments in generated code (a validated literal)."""
    if span is None or span.line <= 0:
        return ""
    text = f"{span.file}:{span.line}"
    # Only characters that cannot end a comment line or confuse a reader reach the module.
    return "".join(ch if ch.isprintable() and ch not in "\r\n" else "?" for ch in text)


@dataclass
class GameModel:
    """The tables and the component selection one generated module is rendered from."""

    game: str
    module_name: str
    rules: str
    board: str
    players: tuple[int, ...]
    sources: tuple[str, ...]
    constants: dict[str, object] = field(default_factory=dict)
    components: dict[str, object] = field(default_factory=dict)
    origins: dict[str, str] = field(default_factory=dict)  # component → "file:line"
    layout: list[tuple[str, int, int]] = field(default_factory=list)  # (kind, base, size)


def _error(message: str, span: Span | None) -> HansaError:
    return HansaError(message, span if span is not None and span.line > 0 else None)


def _check_board_supported(board: Board, game: Game) -> None:
    for city in board.cities:
        if not city.spaces and city.hanseatic:
            raise _error(f"city {city.name!r} has no trading-post spaces", city.span)
    if board.east_west is None:
        raise _error(f"board {board.id!r} has no East-West connection", board.span)


PERMANENT_KINDS = (
    "move_tradesmen",
    "develop_ability",
    "green_city_post",
    "place_from_route",
    "place_in_countries",
)


def _board_features(model: GameModel, rules: RuleSet, board: Board, names: list[str]) -> None:
    """Green cities, countries, permissions and permanent markers: the board says where they are,
    the rule set's `board_rules` and `permanent_marker` components say how they play. A feature
    the board lacks compiles to nothing (no constants, no code); one the rules lack is an error
    at the board's line."""
    k, comp, origins = model.constants, model.components, model.origins
    game = model.game
    city_index = {c.name: i for i, c in enumerate(board.cities)}
    # ---- green cities
    green = tuple(i for i, c in enumerate(board.cities) if not c.hanseatic)
    green_rule = rules.board_rule("green_cities")
    if green and green_rule is None:
        city = board.cities[green[0]]
        raise _error(
            f"game {game!r}: city {city.name!r} of board {board.id!r} is green, but rule set "
            f"{rules.name!r} has no `board_rules green_cities`",
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
        origins["board_rules:green_cities"] = where(green_rule.span)
    # ---- countries and permissions
    countries = list(board.countries)
    for c in board.cities:
        for name in c.countries + c.permissions:
            if name not in countries:
                countries.append(name)
    for r in board.routes:
        if r.country and r.country not in countries:
            countries.append(r.country)
    permit = [n for n in countries if any(n in c.permissions for c in board.cities)]
    uses_countries = bool(countries) and any(r.country for r in board.routes)
    country_rule = rules.board_rule("countries")
    if uses_countries and country_rule is None:
        raise _error(
            f"game {game!r}: board {board.id!r} has countries, but rule set {rules.name!r} has no "
            "`board_rules countries`",
            board.statement_span("countries"),
        )
    permission_rule = rules.board_rule("permissions")
    if permit and permission_rule is None:
        city = next(c for c in board.cities if c.permissions)
        raise _error(
            f"game {game!r}: city {city.name!r} of board {board.id!r} grants permissions, but rule "
            f"set {rules.name!r} has no `board_rules permissions`",
            city.span,
        )
    if permit and not uses_countries:
        city = next(c for c in board.cities if c.permissions)
        raise _error(
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
        origins["board_rules:countries"] = where(country_rule.span)
    else:
        comp["displaced_to"] = comp["move_rule"] = comp["marker_move_rule"] = "anywhere"
    comp["country_moves"] = uses_countries and (
        comp["move_rule"] != "anywhere" or comp["marker_move_rule"] != "anywhere"
    )
    if permit:
        grants = [
            (city_index[c.name], sum(1 << cidx[n] for n in c.permissions))
            for c in board.cities
            if c.permissions
        ]
        grants.sort(key=lambda g: (bin(g[1]).count("1"), g[0]))  # the narrowest is used first
        k["PERMISSION_CITIES"] = tuple(grants)
        actions = tuple(permission_rule.param("actions", ("place", "displace")))
        comp["permission_place"] = "place" in actions
        comp["permission_displace"] = "displace" in actions
        comp["permission_once"] = bool(permission_rule.param("once_per_turn", True))
        origins["board_rules:permissions"] = where(permission_rule.span)
    else:
        comp["permission_place"] = comp["permission_displace"] = False
        comp["permission_once"] = False
    # ---- permanent markers
    by_name = {pm.name: pm for pm in rules.permanent_markers}
    used: list[str] = []
    route_permanent = []
    for r in board.routes:
        if not r.permanent_bonus:
            route_permanent.append(-1)
            continue
        pm = by_name.get(r.permanent_bonus)
        if pm is None:
            raise _error(
                f"game {game!r}: route {r.cities[0]}–{r.cities[1]} has the permanent marker "
                f"{r.permanent_bonus!r}, which rule set {rules.name!r} does not declare "
                f"(`permanent_marker {r.permanent_bonus} = …`)",
                r.span,
            )
        if pm.kind not in PERMANENT_KINDS:
            raise _error(f"permanent marker kind {pm.kind!r} has no template", pm.span)
        if pm.kind == "develop_ability":
            ab = pm.param("ability", "any")
            if ab != "any" and ab not in names:
                raise _error(f"develop_ability names unknown ability {ab!r}", pm.span)
        if pm.kind == "place_in_countries" and not permit:
            raise _error(
                f"game {game!r}: route {r.cities[0]}–{r.cities[1]}: permanent marker "
                f"{pm.name!r} places pieces in countries that need a permission, and board "
                f"{board.id!r} has none",
                r.span,
            )
        if pm.kind == "green_city_post" and not green:
            raise _error(
                f"game {game!r}: route {r.cities[0]}–{r.cities[1]}: permanent marker "
                f"{pm.name!r} posts in a green city, and board {board.id!r} has none",
                r.span,
            )
        if pm.name not in used:
            used.append(pm.name)
            origins["permanent:" + pm.name] = where(pm.span)
        route_permanent.append(used.index(pm.name))
    comp["permanent"] = bool(used)
    kinds_used = {by_name[n].kind for n in used}
    for kind in PERMANENT_KINDS:
        comp["permanent_" + kind] = kind in kinds_used
    comp["lift_for_countries"] = False
    if used:
        table: list[tuple] = []
        for n in used:
            pm = by_name[n]
            kind = PERMANENT_KINDS.index(pm.kind)
            if pm.kind == "move_tradesmen":
                whose = 1 if pm.param("whose", "any") == "opponents" else 2
                table.append((kind, int(pm.param("count", 2)), whose))
            elif pm.kind == "develop_ability":
                ab = pm.param("ability", "any")
                table.append((kind, -1 if ab == "any" else names.index(ab), 0))
            elif pm.kind == "green_city_post":
                table.append((kind, 1 if pm.param("side", "right") == "right" else 0, 0))
            elif pm.kind == "place_from_route":
                table.append((kind, int(pm.param("count", 2)), 0))
            else:
                sources = tuple(
                    ("stock", "supply", "board").index(x)
                    for x in pm.param("from", ("stock", "supply", "board"))
                )
                table.append((kind, int(pm.param("count", 2)), sources))
                comp["lift_for_countries"] = comp["lift_for_countries"] or 2 in sources
        k["PERMANENT_NAMES"] = tuple(used)
        k["PERMANENT"] = tuple(table)
        k["ROUTE_PERMANENT"] = tuple(route_permanent)


def _marker_key(kind: str, params: tuple, unique: bool, name: str = "") -> str:
    """The marker type's name in state JSON: the author's name when it is a plain lowercase word,
    else the kind (plus its parameter values when several types share the kind)."""
    if name and re.fullmatch(r"[a-z][a-z0-9_]*", name):
        return name
    if unique:
        return kind
    parts = [kind] + [str(v).lower() for _, v in params]
    return "_".join(parts)


def build_model(game: Game, rules: RuleSet, board: Board) -> GameModel:
    """Fold the board and resolved rules of `game` into a GameModel; refuse what is unsupported."""
    _check_board_supported(board, game)
    if rules.pieces is None or rules.setup is None:
        raise _error(f"rule set {rules.name!r} is incomplete (pieces or setup missing)", rules.span)
    for player_count in game.players:
        if not 2 <= player_count <= 5:
            raise _error(f"game {game.name!r}: {player_count} players is outside 2..5", game.span)
    for opt in rules.options:
        supported = SUPPORTED_OPTIONS.get(opt.name)
        if supported is None:
            raise _error(f"option {opt.name!r} is not known to the code generator", opt.span)
        if opt.value not in supported:
            raise _error(
                f"option {opt.name} = {opt.value!r} is not implemented (supported: "
                + ", ".join(repr(v) for v in supported)
                + ")",
                opt.span,
            )
    options = dict(OPTION_DEFAULTS)
    for opt in rules.options:
        value = opt.value
        if value in ("yes", "no"):
            value = value == "yes"
        options[opt.name] = value

    model = GameModel(
        game=game.name,
        module_name=mangle_module_name(game.name),
        rules=rules.name,
        board=board.id,
        players=tuple(game.players),
        sources=tuple(rules.sources),
    )
    k = model.constants
    comp = model.components
    origins = model.origins
    for name, value in options.items():
        comp["option_" + name] = value

    # ---- pieces and setup
    pieces = rules.pieces
    k["TRADERS"] = pieces.traders
    k["MERCHANTS"] = pieces.merchants
    k["SCORE_MARKER"] = {"trader": 0, "merchant": 1, None: -1}.get(pieces.score_marker, -1)
    setup = rules.setup
    k["SETUP_PERSONAL"] = (setup.personal_traders, setup.per_seat_traders, setup.personal_merchants)
    origins["setup"] = where(setup.span)

    # ---- abilities
    roles: dict[str, int] = {}
    names, values, kinds, full_pp = [], [], [], []
    if len(rules.abilities) == 0:
        raise _error(f"rule set {rules.name!r} declares no abilities", rules.span)
    for i, ab in enumerate(rules.abilities):
        if ab.role not in ABILITY_ROLES:
            raise _error(f"ability {ab.name!r} has unknown role {ab.role!r}", ab.span)
        if ab.role in roles:
            raise _error(f"two abilities drive the role {ab.role!r}", ab.span)
        roles[ab.role] = i
        names.append(ab.name)
        vals = []
        for v in ab.values:
            if ab.role == "post_privilege":
                if v not in PRIVILEGES:
                    raise _error(f"privilege value {v!r} is not a colour", ab.span)
                vals.append(PRIVILEGES.index(v))
            elif v == "all":
                vals.append(ALL_PIECES)
            elif isinstance(v, int) and not isinstance(v, bool):
                vals.append(v)
            else:
                raise _error(f"ability {ab.name!r}: value {v!r} is not a number", ab.span)
        values.append(tuple(vals))
        kinds.append(0 if ab.covered_by == "trader" else 1)
        full_pp.append(int(ab.full_pp))
        origins[f"ability:{ab.name}"] = where(ab.span)
    actions_values = values[roles["actions_per_turn"]] if "actions_per_turn" in roles else (1,)
    if min(actions_values) < 1:
        raise _error(
            "the actions ability must give at least one action per turn",
            rules.abilities[roles["actions_per_turn"]].span,
        )
    missing = [r for r in ABILITY_ROLES if r not in roles]
    if missing:
        raise _error(f"rule set {rules.name!r}: no ability drives {', '.join(missing)}", rules.span)
    k["ABILITY_NAMES"] = tuple(names)
    k["ABILITY_VALUES"] = tuple(values)
    k["ABILITY_KIND"] = tuple(kinds)
    k["ABILITY_FULL_PP"] = tuple(full_pp)
    k["ABILITY_MAX"] = tuple(len(v) - 1 for v in values)
    for role, idx in roles.items():
        k["AB_" + role.upper()] = idx
    on_tracks = [0, 0]
    for vals, kind in zip(values, kinds, strict=True):
        on_tracks[kind] += len(vals) - 1
    k["ON_TRACKS"] = tuple(on_tracks)
    if k["SCORE_MARKER"] >= 0:
        on_tracks_plus = list(on_tracks)
        on_tracks_plus[k["SCORE_MARKER"]] += 1
    else:
        on_tracks_plus = list(on_tracks)
    for seat in range(1, 6):
        supply_t = setup.personal_traders + setup.per_seat_traders * seat
        if supply_t + on_tracks_plus[0] > pieces.traders and seat <= max(game.players):
            raise _error(
                f"rule set {rules.name!r}: seat {seat} needs more traders than a player owns",
                setup.span,
            )
    if setup.personal_merchants + on_tracks_plus[1] > pieces.merchants:
        raise _error(f"rule set {rules.name!r}: more merchants needed than owned", setup.span)
    k["OFF_BOARD"] = tuple(on_tracks_plus)  # pieces that start on tracks or as score marker

    # ---- board: cities, spaces, routes, points
    city_names = tuple(c.name for c in board.cities)
    city_index = {n: i for i, n in enumerate(city_names)}
    for c in board.cities:
        for alias in c.aliases:
            city_index.setdefault(alias, city_index[c.name])
    city_spaces, space_city, space_round, space_priv, space_coin = [], [], [], [], []
    for ci, c in enumerate(board.cities):
        ids = []
        for sp in c.spaces:
            ids.append(len(space_city))
            space_city.append(ci)
            space_round.append(1 if sp.shape == "round" else 0)
            space_priv.append(PRIVILEGES.index(sp.privilege))
            space_coin.append(int(sp.coin))
        city_spaces.append(tuple(ids))
    city_abilities = []
    for c in board.cities:
        idxs = []
        for a in c.abilities:
            if a not in names:
                raise _error(
                    f"city {c.name!r} offers ability {a!r}, which rule set {rules.name!r} lacks",
                    c.span,
                )
            idxs.append(names.index(a))
        city_abilities.append(tuple(idxs))

    route_cities, route_points, point_route, point_merchant = [], [], [], []
    city_routes: list[list[int]] = [[] for _ in city_names]
    for ri, r in enumerate(board.routes):
        try:
            a, b = (city_index[r.cities[0]], city_index[r.cities[1]])
        except KeyError as exc:
            raise _error(f"route names unknown city {exc.args[0]!r}", r.span) from None
        route_cities.append((a, b))
        city_routes[a].append(ri)
        city_routes[b].append(ri)
        pts = []
        for ptype in r.points:
            pts.append(len(point_route))
            point_route.append(ri)
            point_merchant.append(1 if ptype == "merchant" else 0)
        route_points.append(tuple(pts))
    n_routes = len(route_cities)
    neighbors: list[set[int]] = [set() for _ in city_names]
    for a, b in route_cities:
        neighbors[a].add(b)
        neighbors[b].add(a)

    k["CITY_NAMES"] = city_names
    k["N_CITIES"] = len(city_names)
    k["CITY_SPACES"] = tuple(city_spaces)
    k["SPACE_CITY"] = tuple(space_city)
    k["SPACE_ROUND"] = tuple(space_round)
    k["SPACE_PRIV"] = tuple(space_priv)
    k["SPACE_COIN"] = tuple(space_coin)
    k["N_SPACES"] = len(space_city)
    k["CITY_ABILITIES"] = tuple(city_abilities)
    k["CITY_NEIGHBORS"] = tuple(tuple(sorted(n)) for n in neighbors)
    k["CITY_ROUTES"] = tuple(tuple(rs) for rs in city_routes)
    k["ROUTE_CITIES"] = tuple(route_cities)
    k["ROUTE_POINTS"] = tuple(route_points)
    k["N_ROUTES"] = n_routes
    k["POINT_ROUTE"] = tuple(point_route)
    k["POINT_MERCHANT_ONLY"] = tuple(point_merchant)
    k["N_POINTS"] = len(point_route)
    k["TAVERN_ROUTES"] = tuple(i for i, r in enumerate(board.routes) if r.tavern)
    ew = board.east_west
    k["EAST_WEST"] = (city_index[ew[0]], city_index[ew[1]])
    k["BOARD_COMPLETED_CITIES"] = board.completed_cities
    origins["board"] = where(board.span)
    _board_features(model, rules, board, names)

    # Per route and free-point mask: the free points (all, and those a trader may take).
    free_pts, free_any = [], []
    for pts in route_points:
        row_all, row_any = [], []
        for mask in range(1 << len(pts)):
            chosen = tuple(p for j, p in enumerate(pts) if mask >> j & 1)
            row_all.append(chosen)
            row_any.append(tuple(p for p in chosen if not point_merchant[p]))
        free_pts.append(tuple(row_all))
        free_any.append(tuple(row_any))
    k["FREE_POINTS"] = tuple(free_pts)
    k["FREE_HOUSE_POINTS"] = tuple(free_any)
    k["FULL_MASK"] = tuple((1 << len(p)) - 1 for p in route_points)
    k["POINT_BIT"] = tuple(
        1 << route_points[point_route[p]].index(p) for p in range(len(point_route))
    )

    sp = board.special_prestige
    if sp is not None:
        sp_city = city_index[sp.city]
        via = (city_index[sp.via[0]], city_index[sp.via[1]])
        sp_route = -1
        for ri, (a, b) in enumerate(route_cities):
            if {a, b} == set(via):
                sp_route = ri
        if sp_route < 0:
            raise _error("the special-prestige route does not exist on the board", sp.span)
        k["SPECIAL_ROUTE"] = sp_route
        k["SPECIAL_POINTS"] = tuple(s.points for s in sp.spaces)
        k["SPECIAL_PRIV"] = tuple(PRIVILEGES.index(s.privilege) for s in sp.spaces)
        k["SPECIAL_CITY"] = sp_city
    else:
        k["SPECIAL_ROUTE"] = -1
        k["SPECIAL_POINTS"] = ()
        k["SPECIAL_PRIV"] = ()
        k["SPECIAL_CITY"] = -1

    # ---- actions
    actions = {type(a).__name__: a for a in rules.actions}
    if not actions:
        raise _error(f"rule set {rules.name!r} has no actions", rules.span)
    for needed in (Income, Place, Displace, Move, CreateRoute):
        # A removed action is never offered; its code keeps the default parameters.
        comp["action_" + needed.__name__] = needed.__name__ in actions
        actions.setdefault(needed.__name__, needed())
    for name_, a in actions.items():
        origins[f"action:{name_}"] = where(a.span)
    disp: Displace = actions["Displace"]
    cost = dict(disp.cost)
    comp_ = dict(disp.compensation)
    k["DISPLACE_COST"] = (int(cost.get("trader", 0)), int(cost.get("merchant", 0)))
    k["COMPENSATION"] = (int(comp_.get("trader", 0)), int(comp_.get("merchant", 0)))
    for source in disp.fallback:
        if source not in ("stock", "supply", "board"):
            raise _error(f"unknown displacement fallback source {source!r}", disp.span)
    k["FALLBACK"] = tuple(("stock", "supply", "board").index(s) for s in disp.fallback)
    comp["extras_declinable"] = bool(disp.extras_declinable)
    comp["lift_from_board"] = "board" in disp.fallback and max(k["COMPENSATION"]) > 0
    mv: Move = actions["Move"]
    comp["move_swaps"] = bool(mv.swaps)
    cr: CreateRoute = actions["CreateRoute"]
    k["CONTROL_PP"] = cr.control_pp
    if cr.control_tie not in ("rightmost_post", "nobody"):
        raise _error(f"city-control tie rule {cr.control_tie!r} is not implemented", cr.span)
    comp["control_tie"] = cr.control_tie
    k["COIN_PP"] = bool(cr.coin_pp)
    comp["establish"] = bool(cr.establish_trading_post)
    if cr.space_shapes not in ("strict", "merchant_anywhere"):
        raise _error(f"trading-post space rule {cr.space_shapes!r} is not implemented", cr.span)
    k["MERCHANT_ANY_SPACE"] = cr.space_shapes == "merchant_anywhere"
    comp["merchant_any_space"] = k["MERCHANT_ANY_SPACE"]
    comp["develop_from_route"] = bool(cr.develop_ability)
    comp["special_prestige"] = bool(cr.special_prestige) and sp is not None
    k["EAST_WEST_AWARDS"] = tuple(cr.east_west_awards)

    # ---- bonus markers
    kinds_seen: dict[str, int] = {}
    for bm in rules.bonus_markers:
        if bm.kind not in MARKER_KINDS:
            raise _error(f"bonus marker kind {bm.kind!r} has no template", bm.span)
        kinds_seen[bm.kind] = kinds_seen.get(bm.kind, 0) + 1
    marker_keys, marker_labels, marker_kind, marker_count, marker_start = [], [], [], [], []
    marker_params: list[dict] = []
    for bm in rules.bonus_markers:
        key = _marker_key(bm.kind, bm.params, kinds_seen[bm.kind] == 1, bm.name)
        if key in marker_keys:
            raise _error(f"two bonus marker types are both called {key!r}", bm.span)
        if not re.fullmatch(r"[a-z0-9_]+", key):
            raise _error(f"bonus marker parameters give an unusable name {key!r}", bm.span)
        marker_keys.append(key)
        label = bm.name or key.replace("_", " ")
        marker_labels.append(unicodedata.normalize("NFC", str(label)))
        marker_kind.append(bm.kind)
        if bm.count < 0 or bm.start < 0 or bm.start > bm.count:
            raise _error(f"bonus marker {key!r}: bad count/start", bm.span)
        marker_count.append(bm.count)
        marker_start.append(bm.start)
        params = dict(bm.params)
        marker_params.append(params)
        origins[f"marker:{key}"] = where(bm.span)
        if bm.kind == "develop_ability":
            ab = params.get("ability", "any")
            if ab != "any" and ab not in names:
                raise _error(f"develop_ability names unknown ability {ab!r}", bm.span)
        if bm.kind in ("move_tradesmen", "remove_tradesmen"):
            if params.get("whose", "opponents") not in ("opponents", "any"):
                raise _error(f"{bm.kind}: whose must be opponents or any", bm.span)
            if bm.kind == "remove_tradesmen" and params.get("to", "personal") not in (
                "personal",
                "stock",
            ):
                raise _error("remove_tradesmen: to must be personal or stock", bm.span)
    rule_markers = [r for r in rules.hook_rules if r.hook == "marker_used"]
    k_rule_first = len(marker_keys)
    for rule in rule_markers:  # new marker kinds written in words (expr_ir.HookRule)
        key = re.sub(r"[^a-z0-9]+", "_", unicodedata.normalize("NFKD", rule.label).lower())
        key = key.strip("_") or "marker"
        if key in marker_keys:
            raise _error(f"two bonus marker types are both called {key!r}", rule.span)
        params = dict(rule.params)
        count, start = params.get("count", 1), params.get("start", 0)
        marker_keys.append(key)
        marker_labels.append(unicodedata.normalize("NFC", rule.label))
        marker_kind.append("rule")
        marker_count.append(count)
        marker_start.append(start)
        marker_params.append({})
        origins[f"marker:{key}"] = where(rule.span)
    k["MARKER_KEYS"] = tuple(marker_keys)
    k["MARKER_LABELS"] = tuple(marker_labels)
    k["MARKER_COUNT"] = tuple(marker_count)
    k["MARKER_START"] = tuple(marker_start)
    k["N_MARKER_TYPES"] = len(marker_keys)
    if sum(marker_start) != len(k["TAVERN_ROUTES"]):
        raise _error(
            f"game {game.name!r}: {sum(marker_start)} start markers but board {board.id!r} has "
            f"{len(k['TAVERN_ROUTES'])} tavern routes",
            game.span,
        )

    def ids_of(kind: str) -> tuple[int, ...]:
        return tuple(i for i, kd in enumerate(marker_kind) if kd == kind)

    k["ADDITIONAL_MARKERS"] = ids_of("additional_trading_post")
    k["EXCHANGE_MARKERS"] = tuple(
        (i, bool(marker_params[i].get("must_own_one", True)))
        for i in ids_of("exchange_trading_posts")
    )
    k["DEVELOP_MARKERS"] = tuple(
        (
            i,
            -1
            if marker_params[i].get("ability", "any") == "any"
            else names.index(marker_params[i]["ability"]),
        )
        for i in ids_of("develop_ability")
    )
    k["EXTRA_ACTION_MARKERS"] = tuple(
        (i, int(marker_params[i].get("count", 3))) for i in ids_of("extra_actions")
    )
    k["MOVE_MARKERS"] = tuple(
        (i, int(marker_params[i].get("count", 3)), marker_params[i].get("whose", "opponents"))
        for i in ids_of("move_tradesmen")
    )
    k["REMOVE_MARKERS"] = tuple(
        (
            i,
            int(marker_params[i].get("count", 3)),
            marker_params[i].get("whose", "opponents"),
            marker_params[i].get("to", "personal"),
        )
        for i in ids_of("remove_tradesmen")
    )
    for kind in MARKER_KINDS:
        comp["marker_" + kind] = bool(ids_of(kind))
    if rule_markers:
        k["RULE_MARKERS"] = ids_of("rule")

    mr = rules.marker_rules
    comp["usable_in_taking_action"] = bool(mr is not None and mr.usable_in_taking_action)
    if mr is not None:
        for cond in mr.placement:
            if cond not in PLACEMENT_CONDITIONS + BOARD_PLACEMENT_CONDITIONS:
                raise _error(f"unknown marker placement condition {cond!r}", mr.span)
        comp["placement"] = tuple(mr.placement)
        origins["marker_rules"] = where(mr.span)
    else:
        comp["placement"] = PLACEMENT_CONDITIONS
    # Conditions about board features the board lacks compile to nothing.
    placement = [
        cond
        for cond in comp["placement"]
        if not (cond == "no_permanent_marker" and not comp["permanent"])
        and not (cond == "not_in_permission_country" and not comp["permissions"])
    ]
    comp["placement"] = tuple(placement)
    if "no_permanent_marker" in placement or "not_in_permission_country" in placement:
        k["MARKER_ROUTE_ALLOWED"] = tuple(
            0
            if ("no_permanent_marker" in placement and k["ROUTE_PERMANENT"][r] >= 0)
            or ("not_in_permission_country" in placement and k["ROUTE_PERMIT_BIT"][r])
            else 1
            for r in range(n_routes)
        )

    # ---- end triggers: kinds defined in the prelude become rules in words (compiler/prelude.py);
    # the others are procedures with a template (END_KINDS)
    prelude_rules: list = []  # rules in words the prelude's kinds expand to
    settable_defaults: dict[str, int] = {}  # per-player parameters a kind's parameter starts
    ends = {}
    for t in rules.end_triggers:
        if t.kind not in END_KINDS and defined("end", t.kind) is None:
            raise _error(f"end trigger {t.kind!r} has no definition", t.span)
        ends[t.kind] = t
        origins[f"end:{t.kind}"] = where(t.span)
    comp["end_marker_supply_empty"] = "marker_supply_empty" in ends
    if "track_pp" in ends and ends["track_pp"].threshold is None:
        raise _error("the track_pp end trigger needs a threshold", ends["track_pp"].span)
    # Thresholds the agents read (runtime/greedy.py); 0: no such trigger.
    k["END_TRACK_PP"] = int(ends["track_pp"].threshold) if "track_pp" in ends else 0
    if "completed_cities" in ends:
        thr = ends["completed_cities"].threshold
        thr = board.completed_cities if thr is None else int(thr)
        if thr > len(city_names):
            raise _error(
                f"the completed-cities trigger ({thr}) exceeds the {len(city_names)} cities",
                ends["completed_cities"].span,
            )
        k["END_COMPLETED_CITIES"] = thr
    else:
        k["END_COMPLETED_CITIES"] = 0
    for kind, t in ends.items():
        definition = defined("end", kind)
        if definition is not None:
            threshold = k["END_COMPLETED_CITIES"] if kind == "completed_cities" else t.threshold
            values = {"threshold": threshold} if definition.params else {}
            prelude_rules.append(_expand(definition, kind, values, t.span)[0])

    # ---- scoring: kinds defined in the prelude become rules in words, like a category written in
    # words; the others are procedures with a template (SCORE_KINDS)
    categories = []
    for sc in rules.scoring:
        definition = defined("score", sc.kind)
        if sc.kind not in SCORE_KINDS and definition is None:
            raise _error(f"scoring category {sc.kind!r} has no definition", sc.span)
        if not re.fullmatch(r"[A-Z]", sc.key):
            raise _error(f"scoring category key {sc.key!r} must be one capital letter", sc.span)
        params = dict(sc.params)
        if definition is not None:
            catalogue = component("score", sc.kind)
            values = {p.name: params.get(p.name, p.default) for p in catalogue.params}
            rule, defaults = _expand(definition, sc.key, values, sc.span)
            prelude_rules.append(rule)
            settable_defaults.update(defaults)
            params = {}
        if sc.kind == "country_majority":
            if not comp["permissions"]:
                continue  # no country needs a permission on this board: nothing to score
            params = {"pp": tuple(int(v) for v in params.get("pp", (7, 4, 2)))}
            k["COUNTRY_MAJORITY_PP"] = params["pp"]
        if sc.kind == "missions":  # secret cards dealt at setup (docs/rules-language.md)
            if "MISSION_CARDS" in k:
                raise _error("only one mission-card category is allowed", sc.span)
            cards = []
            for number, card_cities in enumerate(params.get("cards", ()), start=1):
                unknown = [c for c in card_cities if c not in city_index]
                if unknown:
                    raise _error(
                        f"mission card {number} names {unknown[0]!r}, which is not a city of"
                        f" board {board.id!r}" + did_you_mean(unknown[0], list(city_index)),
                        sc.span,
                    )
                cards.append(tuple(city_index[c] for c in card_cities))
            if len(cards) < max(game.players):
                raise _error(
                    f"{len(cards)} mission cards cannot be dealt to {max(game.players)} players",
                    sc.span,
                )
            k["MISSION_CARDS"] = tuple(cards)
            k["MISSION_POST_PP"] = int(params.get("post_pp", 1))
            k["MISSION_ALL_PP"] = int(params.get("all_pp", 5))
            params = {}
        categories.append((sc.key, sc.kind, params))
        origins[f"score:{sc.key}"] = where(sc.span)
    for rule in rules.hook_rules:
        if rule.hook == "score":  # a category written in words
            if rule.target in [c[0] for c in categories]:
                raise _error(f"score category {rule.target} is declared twice", rule.span)
            # named by its title in score tables ("H Harbour master"), else as written in words
            categories.append((rule.target, rule.label or "expression", {}))
            origins[f"score:{rule.target}"] = where(rule.span)
    k["SCORE_KEYS"] = tuple(c[0] for c in categories)
    k["SCORE_KINDS"] = tuple(c[1] for c in categories)
    # categories that read a player's secret (their mission card): hidden from the others in play
    k["SECRET_SCORE_KEYS"] = tuple(c[0] for c in categories if c[1] == "missions")
    comp["scoring"] = categories
    comp["score_templates"] = [c for c in categories if c[1] in SCORE_KINDS]
    comp["missions"] = "MISSION_CARDS" in k
    # PP per controlled city unless a rule sets it per player (the prelude's `pp as city PP`)
    k["CITY_CONTROL_PP"] = settable_defaults.get("city pp", 0)

    # ---- tie-break chain
    steps = []
    tie_exprs: list = []
    for st in rules.tiebreak:
        if st.rule == "shared":
            steps.append(("shared", "", -1))
            continue
        if st.rule not in ("fewest", "most"):
            raise _error(f"tie-break rule {st.rule!r} is not known", st.span)
        if st.what == "ability":
            if st.name not in names:
                raise _error(f"tie-break names unknown ability {st.name!r}", st.span)
            steps.append((st.rule, "ability", names.index(st.name)))
        elif st.what == "score":
            kinds_ = [c[1] for c in categories]
            if st.name not in kinds_:
                raise _error(f"tie-break names unknown score category {st.name!r}", st.span)
            steps.append((st.rule, "score", kinds_.index(st.name)))
        elif st.what == "expr":
            steps.append((st.rule, "expr", len(tie_exprs)))
            tie_exprs.append(st.expr)
        else:
            raise _error(f"tie-break step compares unknown {st.what!r}", st.span)
    k["TIEBREAK"] = tuple(steps)
    if rules.tiebreak:
        origins["tiebreak"] = where(rules.tiebreak[0].span)

    # ---- the 2-player variant's neutral pawn (regions from the board's plane drawing)
    comp["pawn"] = rules.pawn is not None
    if rules.pawn is not None:
        from .regions import RegionError, board_regions

        try:
            regions = board_regions(board, rules.pawn.soldiers, rules.pawn.span)
        except RegionError as exc:
            raise HansaError(exc.diagnostics) from None
        k["N_REGIONS"] = regions.count
        k["REGION_ROUTES"] = regions.region_routes
        k["REGION_DISTANCE"] = regions.distance
        k["REGION_LABELS"] = tuple(regions.label(r) for r in range(regions.count))
        k["PAWN_FREE_BORDERS"] = rules.pawn.free_borders
        origins["pawn"] = where(rules.pawn.span)
    # ---- rules in words: board facts they read, then their compiled functions
    _compile_hook_rules(model, rules, board, categories, tie_exprs, k_rule_first, prelude_rules)

    # ---- action-id layout: contiguous ranges, in an order that keeps each decision's list sorted
    n_points = len(point_route)
    n_spaces = len(space_city)
    layout_sizes = [
        ("END_TURN", 1),
        ("INCOME", (pieces.traders + 1) * (pieces.merchants + 1)),
        ("PLACE", 2 * n_points),
        ("DISPLACE", 2 * n_points),
        ("MOVE", 1),
        ("CREATE", n_routes),
        ("USE_MARKER", len(marker_keys)),
        ("PAY", max(k["DISPLACE_COST"]) + 1),
        ("PICK", n_points),
        ("DONE_PICKING", 1),
        ("DROP", n_points),
        ("REMOVE", n_points if comp["marker_remove_tradesmen"] else 0),
        ("DONE_REMOVING", 1 if comp["marker_remove_tradesmen"] else 0),
        ("ESTABLISH", 2 * len(city_names) if comp["establish"] else 0),
        ("ADDITIONAL", 2 * len(city_names) if comp["marker_additional_trading_post"] else 0),
        ("DEVELOP", len(names)),
        ("SPECIAL", len(k["SPECIAL_POINTS"]) if comp["special_prestige"] else 0),
        ("NO_POST", 1),
        ("EXCHANGE", n_spaces if comp["marker_exchange_trading_posts"] else 0),
        ("PLACE_DISPLACED", n_points),
        ("EXTRA", 2),
        ("LIFT", n_points if comp["lift_from_board"] else 0),
        ("DECLINE", 1),
        ("PLACE_MARKER", n_routes),
        # board features (size 0 when the board lacks them, so other games' ids never move)
        ("PERM_USE", 1 if comp["permanent"] else 0),
        ("GREEN_POST", 2 * len(city_names) if comp["permanent_green_city_post"] else 0),
        ("ROUTE_PLACE", 2 * n_points if comp["permanent_place_from_route"] else 0),
        ("COUNTRY_PLACE", 2 * n_points if comp["permanent_place_in_countries"] else 0),
        ("COUNTRY_LIFT", n_points if comp["lift_for_countries"] else 0),
    ]
    if comp["pawn"]:  # only games with the pawn get these ids (the others stay byte-identical)
        layout_sizes += [("PAWN", k["N_REGIONS"]), ("PAWN_PAY", 1)]
    favours = [r for r in rules.hook_rules if r.hook == "favour"]
    comp["favour"] = bool(favours)
    if favours:  # Emperor's Favour: one action per tile (only games with tiles get these ids)
        layout_sizes += [("FAVOUR", len(favours))]
        k["FAVOUR_NAMES"] = tuple(r.label for r in favours)
        k["N_FAVOUR"] = len(favours)
        comp["favour_functions"] = [f"_favour_{i}" for i in range(len(favours))]
        # The taker chooses which 2 unused markers to flip: one id per pair of marker types.
        n_types = k["N_MARKER_TYPES"]
        k["FLIP_PAIRS"] = tuple((a, b) for a in range(n_types) for b in range(a, n_types))
        layout_sizes += [("FLIP", len(k["FLIP_PAIRS"]))]
    comp["x_triggers"] = any(r.trigger for r in favours)
    comp["x_marker_triggers"] = any(r.trigger.endswith(":use_marker") for r in favours)
    comp["x_may_take"] = any(e.kind == "may_take" for r in rules.hook_rules for e in r.effects)
    if comp["x_may_take"]:  # `you may take 1 piece from the stock`: none, a trader, a merchant
        layout_sizes += [("TAKE_PIECE", 3)]
        k["TAKE_STOCK_SOURCES"] = _take_stock_sources(rules.hook_rules)
    base = 0
    for kind, size in layout_sizes:
        model.layout.append((kind, base, size))
        k["A_" + kind] = base
        base += size
    k["NUM_ACTIONS"] = base
    k["ACTION_RANGES"] = tuple((kind, b, s) for kind, b, s in model.layout if s)
    k["GAME_NAME"] = game.name
    k["PLAYER_COUNTS"] = tuple(game.players)
    k["RULES_NAME"] = rules.name
    k["BOARD_ID"] = board.id
    return model


def _take_stock_sources(hook_rules) -> tuple[tuple[int, str, int, int], ...]:
    """Every rule that can leave a take-from-stock choice, for loading a state that has one:
    (favour tile index, or -1 for a rule without a trigger; whose choice it is: 'turn' the turn
    player, 'seat' any seat (at setup), or a triggered tile's 'another'/'you'/'any' holder as seen
    from the turn player, who acted; the kinds' bits; the most pieces, -1 when computed)."""
    from .expr_check import MAY_TAKE_KINDS
    from .expr_ir import Num

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


def _expand(definition, key: str, values: dict, span: Span):
    """A prelude kind with the rule set's values, as a rule in words located at the statement."""
    from .prelude import expand

    rule, defaults = expand(definition, key, values)
    return replace(rule, span=span), defaults


def _compile_hook_rules(
    model: GameModel,
    rules: RuleSet,
    board: Board,
    categories,
    tie_exprs,
    first_marker: int,
    prelude_rules: list,
) -> None:
    """Tables and functions for the rule set's rules in words and the prelude's kinds it uses."""
    from .expr_check import ExprError, check_rule, names_of
    from .expr_codegen import ExprCompiler

    k, comp = model.constants, model.components
    countries = tuple(n.lower() for n in k.get("COUNTRY_NAMES", ()))
    # The board's countries, for `posts in wales`: every rule is checked again knowing them, so
    # each rule naming an unknown country gets its error (one per rule), not only the first.
    names = replace(names_of(rules), countries=countries, board=board.id)
    problems = []
    for rule in rules.hook_rules:
        try:
            check_rule(rule, names, rules)
        except ExprError as exc:
            problems.append(exc.diagnostic)
    if problems:
        raise HansaError(problems)
    for rule in prelude_rules:  # a rule set without the ability a definition reads, …
        try:
            check_rule(rule, names, rules)
        except ExprError as exc:
            what = rule.target or rule.key.partition(":")[2]
            raise _error(f"{what}: {exc.diagnostic.message}", rule.span) from None
    hook_rules = tuple(prelude_rules) + tuple(rules.hook_rules)
    comp["expr_functions"] = []
    comp["x_setup"] = comp["x_turn_start"] = comp["x_after_route"] = False
    comp["x_forbid"] = comp["x_end"] = comp["x_control_most"] = False
    comp["x_tiebreak"] = bool(tie_exprs)
    comp["x_turns"] = _mentions(hook_rules, tie_exprs, "turn number")
    comp["x_params"] = any(e.kind == "set_param" for r in hook_rules for e in r.effects)
    # A sixth parameter only in rule sets that set it, so every other module keeps its five.
    comp["x_reach"] = any(
        e.kind == "set_param" and e.name == "displacement reach"
        for r in hook_rules
        for e in r.effects
    )
    comp["x_chosen_develop"] = any(
        e.kind == "develop" and not e.name for r in hook_rules for e in r.effects
    )
    comp["n_tie_exprs"] = len(tie_exprs)
    comp["uses_expr"] = bool(hook_rules or tie_exprs)
    if not comp["uses_expr"]:
        return
    k["CITY_COINS"] = tuple(sum(sp.coin for sp in c.spaces) for c in board.cities)
    k["CITY_GREEN"] = tuple(not c.hanseatic for c in board.cities)
    k["CITY_COLOUR_SPACES"] = tuple(
        tuple(sum(1 for sp in c.spaces if sp.privilege == colour) for colour in PRIVILEGES)
        for c in board.cities
    )
    k["ROUTE_SHIPS"] = tuple(sum(1 for pt in r.points if pt == "merchant") for r in board.routes)
    k["ROUTE_TAVERN"] = tuple(bool(r.tavern) for r in board.routes)
    marker_ids = {}
    for i, key in enumerate(k["MARKER_KEYS"]):
        marker_ids[key] = i
    for i, bm in enumerate(rules.bonus_markers):
        marker_ids[bm.name or bm.kind] = i
    for i, rule in enumerate(r for r in hook_rules if r.hook == "marker_used"):
        marker_ids[rule.label] = first_marker + i
    compiler = ExprCompiler(
        names,
        k["ABILITY_NAMES"],
        [(key, kind) for key, kind, _params in categories],
        marker_ids,
        x_params=comp["x_params"],
        city_countries=k.get("CITY_COUNTRIES", ()),
    )
    try:
        functions = compiler.hook_functions(hook_rules, first_marker, tie_exprs)
    except ExprError as exc:  # the checks refuse these first; a rule set built in code may not
        raise HansaError([exc.diagnostic]) from None
    k.update(compiler.constants)
    comp["expr_functions"] = list(functions.values())
    if comp["x_params"]:  # per-player parameters a rule may set (expr_catalogue.SETTABLE)
        k["X_PARAM_NAMES"] = (
            "control_pp",
            "full_track_pp",
            "city_pp",
            "extra_actions_per_turn",
            "trader_compensation",
        )
        k["X_PARAM_DEFAULTS"] = (
            k["CONTROL_PP"],
            -1,
            k["CITY_CONTROL_PP"],
            0,
            k["COMPENSATION"][0],
        )
        k["N_X_PARAMS"] = 5
        k["X_CONTROL_PP"] = 0
        k["X_FULL_ABILITY_PP"] = 1
        k["X_CITY_PP"] = 2
        k["X_EXTRA_ACTIONS"] = 3
        k["X_TRADER_COMPENSATION"] = 4
    if comp["x_reach"]:  # Emperor's Favour "displaced pieces may go to any free points"
        k["X_PARAM_NAMES"] += ("displacement_reach",)
        k["X_PARAM_DEFAULTS"] += (0,)
        k["N_X_PARAMS"] = 6
        k["X_DISPLACEMENT_REACH"] = 5
    comp["x_setup"] = "_x_setup" in functions
    comp["x_turn_start"] = "_x_turn_start" in functions
    comp["x_after_route"] = "_x_after_route" in functions
    comp["x_forbid"] = "_x_forbidden" in functions
    comp["x_end"] = "_x_end" in functions
    comp["x_control_most"] = "_x_control_value" in functions
    for rule in hook_rules:
        if rule.hook == "control" and rule.condition is None:
            comp["control_tie"] = rule.target
        if any(e.kind == "develop" and not e.name for e in rule.effects):
            comp["marker_develop_ability"] = True  # the chosen-ability decision


def _mentions(hook_rules, tie_exprs, quantity: str) -> bool:
    """Whether any rule in words (or tie-break quantity) reads `quantity`."""
    from .expr_check import _refs

    nodes: list = list(tie_exprs)
    for rule in hook_rules:
        nodes += [rule.amount, rule.condition]
        for effect in rule.effects:
            nodes += [effect.amount, effect.value, effect.when]
    return any(quantity in _refs(node) for node in nodes if node is not None)
