"""The C tables of the greedy policy (templates/greedy.c.j2), rendered from the `GameTables`
the Python agent reads (compiler/model/policy.py), so both targets play one policy: its weights
as `G_<NAME>` defines written with Python's digits, every action kind a number (`K_<KIND>`), the
kind of each action id, each kind's first id (`G_BASE_<KIND>`, -1 when the game lacks it) and the
board's and the modules' facts the policy weighs."""

from __future__ import annotations

from ...model import policy
from ...model.build import GameModel
from ...model.frames import FRAME_KINDS

# Every kind of decision the policy names (a game without one never offers its ids): the kinds
# of a turn decision, then those of the decisions inside an action.
POLICY_KINDS = (
    *policy.TURN_KINDS,
    "PAY",
    "PICK",
    "DONE_PICKING",
    "DROP",
    "REMOVE",
    "DONE_REMOVING",
    "ESTABLISH",
    "ADDITIONAL",
    "DEVELOP",
    "SPECIAL",
    "NO_POST",
    "EXCHANGE",
    "PLACE_DISPLACED",
    "EXTRA",
    "LIFT",
    "DECLINE",
    "PLACE_MARKER",
    "PERM_USE",
    "GREEN_POST",
    "ROUTE_PLACE",
    "COUNTRY_PLACE",
    "COUNTRY_LIFT",
    "FLIP",
    "TAKE_PIECE",
    "KEEP_MARKER",
    "DISPLAY_MARKER",
)


def _array(name: str, values, ctype: str = "int32_t") -> str:
    items = ", ".join(str(int(v)) for v in values) or "0"
    return f"static const {ctype} {name}[] = {{{items}}};"


def _ragged(name: str, rows) -> list[str]:
    offsets = [0]
    values: list[int] = []
    for row in rows:
        values.extend(int(v) for v in row)
        offsets.append(len(values))
    return [_array(f"{name}_OFF", offsets), _array(f"{name}_V", values)]


def _weight(value: float | int) -> str:
    """A weight as C reads it: an int as an int, a float with the digits `repr` gives (the same
    double)."""
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise TypeError(f"a weight is a number, not {value!r}")
    return repr(value) if isinstance(value, float) else str(value)


def policy_tables(model: GameModel) -> str:
    """The C text of the greedy policy's tables for one game."""
    t = policy.GameTables(model.constants)
    unknown = {kind for kind, _base, _size in t.ranges} - set(POLICY_KINDS)
    if unknown:  # a new kind of decision: the policy must be taught it first
        raise ValueError(f"the greedy policy names no action kind {sorted(unknown)}")
    number = {kind: i for i, kind in enumerate(POLICY_KINDS)}
    lines = [f"#define G_{name} {_weight(getattr(policy, name))}" for name in policy.WEIGHT_NAMES]
    lines += [f"#define K_{kind} {i}" for kind, i in number.items()]
    lines.append(f"#define G_N_KINDS {len(POLICY_KINDS)}")
    lines += [f"#define G_BASE_{kind} {t.base.get(kind, -1)}" for kind in POLICY_KINDS]
    lines.append(f"#define G_HAS_FAVOUR {int('FAVOUR' in t.base)}")
    kind_of = [number[kind] if kind else 255 for kind in t.kind_of]
    lines.append(_array("G_KIND_OF", kind_of, "uint8_t"))
    turn = [v for kind, base, size in t.turn_ranges for v in (number[kind], base, size)]
    lines.append(_array("G_TURN_RANGES", turn))
    lines.append(f"#define G_N_TURN_RANGES {len(t.turn_ranges)}")
    role = t.role
    lines += [f"#define G_ROLE_{name.upper()} {role[name]}" for name in sorted(role)]
    special_max = max(t.special_points) if t.special_points else 0
    lines += [
        f"#define G_END_TRACK_PP {t.end_track_pp}",
        f"#define G_END_COMPLETED {t.end_completed}",
        f"#define G_MARKER_SUPPLY_START {t.marker_supply_start}",
        f"#define G_SPECIAL_ROUTE {t.special_route}",
        f"#define G_N_SPECIAL {len(t.special_points)}",
        f"#define G_SPECIAL_MAX {special_max}",
        f"#define G_MERCHANT_ANY_SPACE {int(t.merchant_any_space)}",
        f"#define G_AFTER_INCOME_HOOK {int('after_income' in t.rule_hooks)}",
        f"#define G_HAS_COUNTRIES {int(bool(t.route_country))}",
        f"#define G_N_REGIONS {len(t.region_routes)}",
        f"#define G_MOVE_FRAME {t.move_frame}",
    ]
    lines.append(_array("G_SPACE_CITY", t.space_city))
    lines.append(_array("G_PERMISSION_CITY", [c in t.permission_cities for c in range(t.n_cities)]))
    lines.append(_array("G_PERMANENT_ROUTE", [r in t.permanent_routes for r in range(t.n_routes)]))
    lines.append(_array("G_ROUTE_COUNTRY", t.route_country))
    lines.append(_array("G_ROUTE_PERMIT", t.route_permit))
    lines += _ragged("G_REGION_ROUTES", t.region_routes or ((),))
    lines.append(_array("G_FLIP_PAIRS", [m for pair in t.flip_pairs for m in pair]))
    frames = len(FRAME_KINDS)
    lines.append(_array("G_ROUTE_FRAME", [k in t.route_frames for k in range(frames)]))
    lines.append(_array("G_MISSION_SAME", t.mission_same))
    return "\n".join(lines)
