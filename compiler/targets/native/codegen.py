"""Render one C rule module per game from the model (compiler/model/build.py) and jinja2
templates, the second target beside `targets/python`.

The model's tables become C arrays (ragged tables as an offset array and a value array), its
switches select template code, and rules in words compile through `native/expr.py`. The native
target plays a subset of what the spec can state; `check_supported` refuses every other game
with the construct named and its spec line, so a game is never played wrong natively.
"""

from __future__ import annotations

import hashlib
from pathlib import Path

import jinja2

from ...errors import HansaError
from ...model.build import GameModel
from ...model.state import FRAME_FIELDS, STATE_FIELDS, kind_type
from .. import template_context, template_environment
from .expr import Unsupported, c_generator, end_names
from .fields import field_defines
from .policy import policy_tables

TEMPLATES = Path(__file__).parent / "templates"
NATIVE_VERSION = "1"
MAX_PLAYERS = 5

# Components whose value must be the one the native templates implement (the Big Box rules).
# A game with another value is refused, naming the component (docs/native.md lists them).
REQUIRED: dict[str, object] = {
    "option_displaced_extra_kind": "owner_chooses",
    "option_displaced_piece_without_point": "personal_supply",
    "option_no_op_actions": "illegal",
    "option_move_must_place_all": True,
    "action_Income": True,
    "action_Place": True,
    "action_Displace": True,
    "action_Move": True,
    "action_CreateRoute": True,
    "extras_declinable": True,
    "move_swaps": True,
    "establish": True,
    "merchant_any_space": False,
    "develop_from_route": True,
    "special_prestige": True,
    "usable_in_taking_action": False,
    "end_marker_supply_empty": True,
}

MAX_FAVOUR = 32  # favour tiles a game may have (the state holds them as bits)

# The city-control tie rules the templates implement (controller/controllers in rules.c.j2).
CONTROL_TIES = ("rightmost_post", "nobody", "shared")

# The conditions on a route for placing a drawn marker the templates implement (any of them).
PLACEMENT = (
    "no_marker",
    "no_pieces",
    "vacant_space_in_a_city",
    "no_permanent_marker",
    "not_in_permission_country",
)

# Scoring categories with a template (not written in words): the C expression of each.
SCORE_TEMPLATES = {
    "missions": "mission_score(s, p)",
    "country_majority": "country_majority_score(s, p)",
}

# Marker kinds by number (templates: MK_*), and the model tables that list each kind's types.
MARKER_TABLES = (
    ("MK_ADDITIONAL", "ADDITIONAL_MARKERS"),
    ("MK_EXCHANGE", "EXCHANGE_MARKERS"),
    ("MK_DEVELOP", "DEVELOP_MARKERS"),
    ("MK_EXTRA", "EXTRA_ACTION_MARKERS"),
    ("MK_MOVE", "MOVE_MARKERS"),
    ("MK_REMOVE", "REMOVE_MARKERS"),
    ("MK_RULE", "RULE_MARKERS"),
)


def _where(model: GameModel, key: str) -> str:
    origin = model.origins.get(key) or model.origins.get(key.split("_", 1)[-1], "")
    return f" ({origin})" if origin else ""


def check_supported(model: GameModel) -> None:
    """Refuse a game the native target cannot play exactly: one HansaError naming the construct."""
    comp = model.components
    problems = []
    for key, wanted in REQUIRED.items():
        value = comp.get(key, wanted)
        if value != wanted and not (isinstance(wanted, list) and not value):
            problems.append(f"{key} = {value!r}{_origin_for(model, key)}")
    if comp.get("control_tie", "rightmost_post") not in CONTROL_TIES:
        problems.append(f"control_tie = {comp['control_tie']!r}{_origin_for(model, 'control_tie')}")
    unknown = [c for c in comp.get("placement", ()) if c not in PLACEMENT]
    if unknown:
        problems.append(f"placement = {tuple(comp['placement'])!r} ({', '.join(unknown)})")
    for key, kind, _params in comp.get("score_templates", []):
        if kind not in SCORE_TEMPLATES:
            problems.append(f"the scoring category {key} of kind {kind!r}{_origin_for(model, key)}")
    if model.constants["NUM_ACTIONS"] >= 32_000:
        problems.append(
            f"{model.constants['NUM_ACTIONS']} action ids (the native target holds 32,000)"
        )
    if max(model.players) > MAX_PLAYERS:
        problems.append(f"more than {MAX_PLAYERS} players")
    if model.constants.get("N_FAVOUR", 0) > MAX_FAVOUR:
        problems.append(f"more than {MAX_FAVOUR} favour tiles")
    try:
        _marker_tables(model)
        _expr_functions(model)
    except Unsupported as exc:
        problems.append(str(exc))
    if problems:
        raise HansaError(
            f"game {model.game!r} cannot be built natively yet: the native target does not"
            f" implement {'; '.join(problems)} (the Python backend plays it; docs/native.md)"
        )


def _origin_for(model: GameModel, key: str) -> str:
    for prefix in ("", "action:", "marker:", "end:"):
        name = key.removeprefix("action_").removeprefix("marker_").removeprefix("end_")
        origin = model.origins.get(prefix + name)
        if origin:
            return f" at {origin}"
    origin = model.origins.get("board") if key in ("green_cities", "countries") else None
    return f" at {origin}" if origin else ""


def _marker_tables(model: GameModel) -> dict[str, tuple[int, ...]]:
    """MARKER_KIND, MARKER_PARAM, MARKER_PARAM2, MARKER_PARAM3 per marker type."""
    k = model.constants
    n = k["N_MARKER_TYPES"]
    kind = [-1] * n
    param = [0] * n
    param2 = [0] * n
    param3 = [0] * n
    for number, (_name, table) in enumerate(MARKER_TABLES):
        for entry in k.get(table, ()):
            m = entry if isinstance(entry, int) else entry[0]
            kind[m] = number
            if table == "EXCHANGE_MARKERS":
                param[m] = int(bool(entry[1]))
            elif table in ("DEVELOP_MARKERS", "EXTRA_ACTION_MARKERS"):
                param[m] = int(entry[1])
            elif table in ("MOVE_MARKERS", "REMOVE_MARKERS"):
                param[m] = int(entry[1])
                param2[m] = 1 if entry[2] == "opponents" else 2
                if table == "REMOVE_MARKERS":
                    param3[m] = 0 if entry[3] == "personal" else 1
    for m, value in enumerate(kind):
        if value < 0:
            raise Unsupported(
                f"the bonus marker {k['MARKER_KEYS'][m]!r} (a marker written in words)"
            )
    return {
        "MARKER_KIND": tuple(kind),
        "MARKER_PARAM": tuple(param),
        "MARKER_PARAM2": tuple(param2),
        "MARKER_PARAM3": tuple(param3),
    }


def _expr_functions(model: GameModel) -> tuple[list[str], dict[str, tuple[int, ...]], int]:
    """The C functions of the rules in words, their folded tables, and the number of end rules."""
    comp, k = model.components, model.constants
    rules = comp.get("expr_rules", ())
    categories = [(key, kind) for key, kind, _params in comp["scoring"]]
    slots = comp.get("expr_rule_slots", ())
    compiler = c_generator(
        comp.get("expr_names"),
        k["ABILITY_NAMES"],
        categories,
        comp.get("expr_marker_ids", {}),
        x_params=bool(comp.get("x_params")),
        city_countries=k.get("CITY_COUNTRIES", ()),
        shared_control=comp.get("control_tie") == "shared",
        rule_index={id(r): i for r, i in zip(rules, slots, strict=True) if i >= 0},
        state_slots=comp.get("expr_state_slots", {}),
    )
    tie_exprs = comp.get("expr_tie_exprs", ())
    functions = compiler.hook_functions(rules, comp.get("expr_first_rule_marker", 0), tie_exprs)
    by_key = {}
    for i, (key, kind) in enumerate(categories):
        name = f"score_{key}"
        if kind in SCORE_TEMPLATES and name not in functions:
            by_key[i] = (
                f"static int64_t score_{i}(S *s, int p) {{ return {SCORE_TEMPLATES[kind]}; }}\n"
            )
            continue
        if name not in functions:
            raise Unsupported(f"the scoring category {key!r} (not written in words)")
        by_key[i] = functions.pop(name).replace(f"score_{key}(", f"score_{i}(", 1)
    texts = list(functions.values()) + [by_key[i] for i in sorted(by_key)]
    # the folded lookup tables (a country's cities are read through x_city_in_country instead)
    tables = {name: v for name, v in compiler.constants.items() if name.startswith("X_TABLE_")}
    return texts, tables, len(end_names(rules))


def _ragged(name: str, rows) -> str:
    offsets = [0]
    values: list[int] = []
    for row in rows:
        values.extend(int(v) for v in row)
        offsets.append(len(values))
    return (
        f"static const int16_t {name}_OFF[] = {{{', '.join(map(str, offsets))}}};\n"
        f"static const int16_t {name}_V[] = {{{', '.join(map(str, values or [0]))}}};"
    )


def _array(name: str, values, ctype: str = "int32_t") -> str:
    items = ", ".join(str(int(v)) for v in values) or "0"
    return f"static const {ctype} {name}[] = {{{items}}};"


def _tables(model: GameModel, extra: dict[str, tuple[int, ...]]) -> str:
    """The C tables and defines of a game: its sizes, its board, the board's and the modules'
    features (`extra`: the marker kinds and the folded tables of the rules in words)."""
    n_words = (model.constants["N_POINTS"] + 63) // 64
    lines = _defines(model, n_words)
    lines += _board_tables(model, extra, n_words)
    lines += _feature_tables(model, n_words)
    return "\n".join(lines)


def _defines(model: GameModel, n_words: int) -> list[str]:
    """Every scalar constant of the model, and the sizes the templates are written against."""
    k = model.constants
    lines = [f"#define {name} {int(v)}" for name, v in k.items() if isinstance(v, (bool, int))]
    defines = {
        "MAXP": MAX_PLAYERS,
        "NA": len(k["ABILITY_NAMES"]),
        "TERMINAL": -4,
        "N_SPECIAL": len(k["SPECIAL_POINTS"]),
        "N_SPECIAL1": max(1, len(k["SPECIAL_POINTS"])),
        "N_FALLBACK": len(k["FALLBACK"]),
        "N_EAST_WEST_AWARDS": len(k["EAST_WEST_AWARDS"]),
        "N_TAVERN_ROUTES": len(k["TAVERN_ROUTES"]),
        "MIN_DISPLACE_COST": min(k["DISPLACE_COST"]),
        "MAX_CITY_SIZE": max(len(s) for s in k["CITY_SPACES"]),
        "MAX_LEGAL": k["NUM_ACTIONS"] + 8,
        "N_SCORES": len(model.components["scoring"]),
        # the capacities of the state's lists (compiler/model/state.py)
        **model.components["state_sizes"],
    }  # the frame kinds (F_PAY, …) are the model's constants, defined with the others above
    defines["NW"] = n_words
    defines["NRW"] = (k["N_ROUTES"] + 63) // 64  # words of a route bitset
    defines.update({name: number for number, (name, _t) in enumerate(MARKER_TABLES)})
    lines += [f"#define {name} {value}" for name, value in defines.items()]
    return lines + field_defines()


def _board_tables(model: GameModel, extra: dict[str, tuple[int, ...]], n_words: int) -> list[str]:
    """The board's and the rules' tables every game has, flat or ragged."""
    k = model.constants
    route_cities, city_abilities = k["ROUTE_CITIES"], k["CITY_ABILITIES"]
    route_adjacent = [
        sorted({r2 for c in route_cities[r] for r2 in k["CITY_ROUTES"][c]} - {r})
        for r in range(k["N_ROUTES"])
    ]
    route_abilities = [
        sorted(set(city_abilities[a]) | set(city_abilities[b])) for a, b in route_cities
    ]
    flat = {
        "SETUP_PERSONAL": k["SETUP_PERSONAL"],
        "OFF_BOARD": k["OFF_BOARD"],
        "ABILITY_KIND": k["ABILITY_KIND"],
        "ABILITY_MAX": k["ABILITY_MAX"],
        "ABILITY_FULL_PP": k["ABILITY_FULL_PP"],
        "SPACE_ROUND": k["SPACE_ROUND"],
        "SPACE_PRIV": k["SPACE_PRIV"],
        "SPACE_COIN": k["SPACE_COIN"],
        "POINT_ROUTE": k["POINT_ROUTE"],
        "POINT_MERCHANT_ONLY": k["POINT_MERCHANT_ONLY"],
        "POINT_BIT": k["POINT_BIT"],
        "FULL_MASK": k["FULL_MASK"],
        "ROUTE_CITIES": [c for pair in route_cities for c in pair],
        "ROUTE_CITIES_SORTED": [c for pair in route_cities for c in sorted(pair)],
        "CITY_SIZE": [len(s) for s in k["CITY_SPACES"]],
        "TAVERN_ROUTES": k["TAVERN_ROUTES"],
        "EAST_WEST": tuple(k["EAST_WEST"]) or (0, 0),
        "EAST_WEST_AWARDS": k["EAST_WEST_AWARDS"],
        "SPECIAL_POINTS": k["SPECIAL_POINTS"],
        "SPECIAL_PRIV": k["SPECIAL_PRIV"],
        "DISPLACE_COST": k["DISPLACE_COST"],
        "COMPENSATION": k["COMPENSATION"],
        "FALLBACK": k["FALLBACK"],
        "MARKER_COUNT": k["MARKER_COUNT"],
        "MARKER_START": k["MARKER_START"],
        "CITY_COINS": k.get("CITY_COINS", (0,)),
        "CITY_GREEN": k.get("CITY_GREEN", (0,)),
        "CITY_COLOUR_SPACES": [
            v for row in k.get("CITY_COLOUR_SPACES", ((0, 0, 0, 0),)) for v in row
        ],
        "ROUTE_SHIPS": k.get("ROUTE_SHIPS", (0,)),
        "ROUTE_TAVERN": k.get("ROUTE_TAVERN", (0,)),
        **extra,
    }
    merchant_only = [x for x, only in enumerate(k["POINT_MERCHANT_ONLY"]) if only]
    lines = [_bit_words("MERCHANT_ONLY_BITS", merchant_only, n_words)]
    lines += [_array(name, values) for name, values in flat.items()]
    for name, rows in (
        ("ABILITY_VALUES", k["ABILITY_VALUES"]),
        ("CITY_SPACES", k["CITY_SPACES"]),
        ("CITY_ABILITIES", city_abilities),
        ("CITY_NEIGHBORS", k["CITY_NEIGHBORS"]),
        ("ROUTE_POINTS", k["ROUTE_POINTS"]),
        ("ROUTE_ADJACENT", route_adjacent),
        ("ROUTE_ABILITIES", route_abilities),
    ):
        lines.append(_ragged(name, rows))
    return lines


def _feature_tables(model: GameModel, n_words: int) -> list[str]:
    """The tables of the board's features and the modules a game has: the neutral pawn, green
    cities, permanent markers, countries, Emperor's Favour, mission cards."""
    k, comp = model.constants, model.components
    lines = []
    if comp.get("pawn"):  # the 2-player variant's neutral pawn (core/pawn.py.j2)
        regions = k["REGION_ROUTES"]
        n_regions = len(regions)
        near = [
            [
                q
                for q in range(n_regions)
                if 0 < k["REGION_DISTANCE"][g][q] <= k["PAWN_FREE_BORDERS"]
            ]
            for g in range(n_regions)
        ]
        ok = [int(r in regions[g]) for g in range(n_regions) for r in range(k["N_ROUTES"])]
        lines.append(_ragged("REGION_ROUTES", regions))
        lines.append(_ragged("PAWN_NEAR", near))
        lines.append(_array("PAWN_ROUTE_OK", ok))
        lines.append(f"#define N_REGIONS {n_regions}")
    if comp.get("green_cities"):
        lines.append(_array("GREEN_CITIES", k["GREEN_CITIES"]))
        lines.append(f"#define N_GREEN_CITIES {len(k['GREEN_CITIES'])}")
    if comp.get("permanent"):  # markers/permanent.py.j2
        # a row's third entry is a number, or (place_in_countries) the zones pieces come from,
        # which go to PERMANENT_SOURCES
        rows = k["PERMANENT"]
        flat_rows = [v if isinstance(v, int) else 0 for entry in rows for v in entry]
        lines.append(_array("PERMANENT", flat_rows))
        sources = [entry[2] if isinstance(entry[2], tuple) else () for entry in rows]
        lines.append(_ragged("PERMANENT_SOURCES", sources))
        lines.append(_array("ROUTE_PERMANENT", k["ROUTE_PERMANENT"]))
        lines.append(
            "enum { PK_MOVE, PK_DEVELOP, PK_GREEN_POST, PK_ROUTE_PLACE, PK_COUNTRY_PLACE };"
        )
    if "MARKER_ROUTE_ALLOWED" in k:  # no_permanent_marker, not_in_permission_country
        lines.append(_array("MARKER_ROUTE_ALLOWED", k["MARKER_ROUTE_ALLOWED"]))
    if comp.get("countries"):
        lines.extend(_country_tables(model, n_words))
    lines.extend(_favour_tables(model))
    lines.extend(_tiebreak_tables(model))
    cards = k.get("MISSION_CARDS", ())
    lines.append(_ragged("MISSION_CARDS", cards or ((),)))
    lines.append(f"#define N_MISSION_CARDS {len(cards)}")
    if not cards:
        lines.append("#define MISSION_POST_PP 0\n#define MISSION_ALL_PP 0")
    return lines


def _point_words(points, n_words: int) -> list[int]:
    """A set of points as a bitset of uint64 words (bit x % 64 of word x // 64)."""
    words = [0] * n_words
    for x in points:
        words[x // 64] |= 1 << (x % 64)
    return words


def _bit_words(name: str, points, n_words: int) -> str:
    """A bitset of points as a C array of uint64 words."""
    words = _point_words(points, n_words)
    return f"static const uint64_t {name}[] = {{{', '.join(f'{w}ULL' for w in words)}}};"


def _country_ok(rule: str, origin: int, r2: int, k: dict) -> bool:
    """Whether a moved piece from route `origin` may go to route `r2` under a move rule
    (`board_rules countries`: move, marker_move)."""
    country, permit = k["ROUTE_COUNTRY"], k["ROUTE_PERMIT_BIT"]
    if rule == "anywhere":
        return True
    if rule == "same_country":
        return country[r2] == country[origin]
    return country[r2] == country[origin] or not permit[r2]  # own_or_free


def _country_tables(model: GameModel, n_words: int) -> list[str]:
    """The countries' tables: ROUTE_COUNTRY, ROUTE_PERMIT_BIT, POINT_PERMIT_BIT, CITY_COUNTRIES,
    PERMIT_COUNTRIES, PERMISSION_CITIES (city, country bits), COUNTRY_MAJORITY_PP; for moves between
    countries the point classes (country, needs a permission, ship point) and route groups
    (country, needs a permission) of core/tables.py.j2, with ALLOWED[mode][kind][group][class]
    and its bitsets of points ALLOWED_BITS (mode 0 an own Move, 1 a marker's move)."""
    k, comp = model.constants, model.components
    route_country, permit = k["ROUTE_COUNTRY"], k["ROUTE_PERMIT_BIT"]
    point_route, merchant_only = k["POINT_ROUTE"], k["POINT_MERCHANT_ONLY"]
    n_points, n_routes = k["N_POINTS"], k["N_ROUTES"]
    point_bit = [permit[point_route[x]] for x in range(n_points)]
    grants = k.get("PERMISSION_CITIES", ())
    pp = k.get("COUNTRY_MAJORITY_PP", ())
    lines = [
        _array("ROUTE_COUNTRY", route_country),
        _array("ROUTE_PERMIT_BIT", permit),
        _array("POINT_PERMIT_BIT", point_bit),
        _bit_words("PERMIT_POINT_BITS", [x for x in range(n_points) if point_bit[x]], n_words),
        _ragged("CITY_COUNTRIES", k["CITY_COUNTRIES"]),
        _array("PERMIT_COUNTRIES", k["PERMIT_COUNTRIES"]),
        f"#define N_PERMIT_COUNTRIES {len(k['PERMIT_COUNTRIES'])}",
        _array("PERMISSION_CITIES", [v for grant in grants for v in grant]),
        f"#define N_PERMISSION_CITIES {len(grants)}",
        _array("COUNTRY_MAJORITY_PP", pp),
        f"#define N_COUNTRY_MAJORITY_PP {len(pp)}",
    ]
    if not comp.get("country_moves"):
        return lines

    def class_key(x: int) -> tuple[int, bool, int]:
        r = point_route[x]
        return (route_country[r], permit[r] > 0, merchant_only[x])

    class_keys = sorted({class_key(x) for x in range(n_points)})
    point_class = [class_keys.index(class_key(x)) for x in range(n_points)]
    class_route = [point_route[point_class.index(cl)] for cl in range(len(class_keys))]
    group_keys = sorted({(route_country[r], permit[r] > 0) for r in range(n_routes)})
    route_group = [group_keys.index((route_country[r], permit[r] > 0)) for r in range(n_routes)]
    group_route = [route_group.index(g) for g in range(len(group_keys))]
    allowed: list[int] = []
    bits: list[str] = []
    for rule in (comp["move_rule"], comp["marker_move_rule"]):
        for kind in (0, 1):
            for origin in group_route:
                row = [
                    int(bool(kind or not class_keys[cl][2]))
                    and int(_country_ok(rule, origin, class_route[cl], k))
                    for cl in range(len(class_keys))
                ]
                allowed.extend(row)
                words = _point_words((x for x in range(n_points) if row[point_class[x]]), n_words)
                bits.extend(f"{w}ULL" for w in words)
    lines += [
        _array("POINT_CLASS", point_class),
        f"#define N_CLASSES {len(class_keys)}",
        _array("ROUTE_GROUP", route_group),
        f"#define N_GROUPS {len(group_keys)}",
        _array("ALLOWED", allowed, "int8_t"),
        f"static const uint64_t ALLOWED_BITS[] = {{{', '.join(bits)}}};",
    ]
    return lines


# The steps of the tie-break chain (TIEBREAK): its rules and what they compare, by number.
TIE_RULES = ("shared", "fewest", "most")
TIE_WHAT = ("", "ability", "score", "expr")


def _tiebreak_tables(model: GameModel) -> list[str]:
    """TIE_RULE, TIE_WHAT, TIE_INDEX per step of the chain (rules.c.j2 `winners`; a quantity
    written in words is its `x_tie_N`, compiled with the rules)."""
    steps = model.constants["TIEBREAK"]
    return [
        _array("TIE_RULE", [TIE_RULES.index(rule) for rule, _what, _index in steps]),
        _array("TIE_WHAT", [TIE_WHAT.index(what) for _rule, what, _index in steps]),
        _array("TIE_INDEX", [index for _rule, _what, index in steps]),
        f"#define N_TIE_STEPS {len(steps)}",
    ]


def _favour_tables(model: GameModel) -> list[str]:
    """The per-player parameters' defaults and the favour tiles' flip pairs."""
    k, comp = model.constants, model.components
    lines = []
    if comp.get("x_params"):
        lines.append(_array("X_PARAM_DEFAULTS", k["X_PARAM_DEFAULTS"]))
    if comp.get("favour"):
        lines.append(_array("FLIP_PAIRS", [v for pair in k["FLIP_PAIRS"] for v in pair]))
        lines.append(f"#define N_FLIP_PAIRS {len(k['FLIP_PAIRS'])}")
    return lines


def _kind_types(model: GameModel, widen: str = "") -> str:
    """Per kind of value the state holds (compiler/model/state.py): its C type, the narrowest
    that holds its bounds (`widen`: one type for every kind, to test that the templates depend on
    no type), and its bounds, which the loader checks (KIND_LOW, KIND_HIGH)."""
    lines = []
    for kind, (low, high) in model.components["state_kinds"].items():
        ctype = widen or kind_type(kind, low, high)
        if kind == "tiles":  # bits of the favour tiles
            ctype = "uint32_t"
        lines.append(f"typedef {ctype} {kind}_t;")
        lines.append(f"#define {kind.upper()}_LOW ({low}LL)")
        lines.append(f"#define {kind.upper()}_HIGH ({high}LL)")
    return "\n".join(lines)


def _struct_fields(fields, comp: dict) -> str:
    """The members of a C struct from the model's declaration of the state's fields."""
    lines = []
    for name, kind, dims, switch, doc in fields:
        if switch and not comp.get(switch):
            continue
        shape = "".join(f"[{d}]" for d in dims)
        comment = f"  /* {doc} */" if doc else ""
        lines.append(f"    {kind}_t {name}{shape};{comment}")
    return "\n".join(lines)


def render_native(model: GameModel, header_hash: str = "", widen: str = "") -> str:
    """The C source of the native rule module of `model` (refused when unsupported); `widen`
    names one C type for every kind of value of the state (a test of the templates)."""
    check_supported(model)
    markers = _marker_tables(model)
    functions, folded, n_ends = _expr_functions(model)
    comp = model.components
    env = template_environment(TEMPLATES)
    tables = _tables(model, {**markers, **folded})
    tables += f"\n#define N_END_RULES {n_ends}"
    # one counter per rule of the spec `hansa simulate` counts (RULE_SOURCES), as in Python
    tables += f"\n#define N_RULE_SOURCES {len(model.constants.get('RULE_SOURCES', ()))}"
    module_name = "@MODULE@"
    context = template_context(model)
    context.update(
        state_kinds=_kind_types(model, widen),
        frame_fields=_struct_fields(FRAME_FIELDS, comp),
        state_fields=_struct_fields(STATE_FIELDS, comp),
        # each field's kind, as the loader checks its values (KIND_LOW..KIND_HIGH)
        kind={name: kind.upper() for name, kind, *_rest in STATE_FIELDS},
        frame_kind={name: kind.upper() for name, kind, *_rest in FRAME_FIELDS},
    )
    context.update(
        game_comment=repr(model.game).replace("*/", "* /"),
        header_hash=header_hash,
        tables=tables,
        expr_functions=functions,
        n_scores=len(comp["scoring"]),
        module_name=module_name,
        greedy_tables=policy_tables(model),
    )
    try:
        text = env.get_template("module.c.j2").render(**context)
    except jinja2.TemplateError as exc:
        raise HansaError(f"native code generation failed for game {model.game!r}: {exc}") from exc
    # The module is named by the hash of its own text: the build cache's key.
    digest = hashlib.sha256(f"{NATIVE_VERSION}\n{text}".encode()).hexdigest()
    return text.replace("@MODULE@", f"hansa_native_{model.module_name}_{digest[:16]}")


def end_rule_names(model: GameModel) -> list[str]:
    return end_names(model.components.get("expr_rules", ()))
