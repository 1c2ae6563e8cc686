"""Semantic diff of two boards, rule sets or games: two IR trees in, a list of edits out.

The model is sqlglot's `diff` (tree → edits), specialised to our IR: one generic walk over the
frozen dataclasses, with a small table of per-type facts (`KINDS`): how an item is identified inside
a collection (a city by name, a route by its unordered city pair, a post space by its position, a
bonus marker by its kind and parameters), how it is named in a report, which fields are not rule
facts (drawing positions, provenance, titles, author labels) and which tuples are sets. Items are
matched by identity, never by list position, so reordering declarations is no difference; spans are
excluded from IR equality, so formatting and comments are none either. Each edit carries the spans
of the nodes that define the item on both sides, so a report can say `file:line` for A and for B.

`diff_boards`, `diff_rulesets` (on resolved rule sets) and `diff_games` return `list[Edit]`;
`format_text`, `format_json` and `format_markdown` render them (the JSON schema is documented in
docs/diff.md and is stable: fields are only ever added).
"""

from __future__ import annotations

import dataclasses
import difflib
import functools
import json
import re
from collections.abc import Callable, Hashable, Sequence
from dataclasses import dataclass
from typing import Any

from ..errors import Span
from ..expr.catalogue import EFFECT_HOOKS
from ..expr.check import named_places
from ..nodes.board import Board, City, PostSpace, Route, SpecialPrestige, SpecialSpace
from ..nodes.expr import HookRule
from ..nodes.rules import (
    Ability,
    BoardRule,
    BonusMarker,
    CreateRoute,
    Displace,
    EndTrigger,
    Game,
    Income,
    MarkerRules,
    Move,
    Option,
    Pawn,
    PermanentMarker,
    Pieces,
    Place,
    RuleSet,
    ScoreCategory,
    Setup,
    TieBreakStep,
)
from ..rules.catalogue import CATALOGUE

JSON_SCHEMA_VERSION = 1


# --------------------------------------------------------------------------------------------------
# Edits


@dataclass(frozen=True)
class Edit:
    """One difference between side A (old) and side B (new).

    `op` is added | removed | changed | replaced. `subject` names the item as on side A
    (`new_subject` as on side B; they differ for a replacement). `field` is the attribute that
    changed ("" when the whole item was added, removed or replaced); `old`/`new` are plain JSON
    values (None on the side that lacks the item). `path`/`new_path` identify the item for tools,
    e.g. ("city:Lübeck", "space:2"). `old_at`/`new_at`: the spans defining the item on each side.
    """

    op: str
    area: str
    subject: str
    new_subject: str
    field: str = ""
    old: Any = None
    new: Any = None
    path: tuple[str, ...] = ()
    new_path: tuple[str, ...] = ()
    old_summary: str = ""  # a few words about the item on side A ("count 2, start 1")
    new_summary: str = ""  # … and on side B
    old_at: Span | None = None
    new_at: Span | None = None
    unit: str = ""  # what `old`/`new` count ("PP" for a scoring table's rows), "" for none

    def inverse(self) -> Edit:
        """The same difference seen from the other side (diff(B, A))."""
        op = {"added": "removed", "removed": "added"}.get(self.op, self.op)
        return Edit(
            op=op,
            area=self.area,
            subject=self.new_subject,
            new_subject=self.subject,
            field=self.field,
            old=self.new,
            new=self.old,
            path=self.new_path,
            new_path=self.path,
            old_summary=self.new_summary,
            new_summary=self.old_summary,
            old_at=self.new_at,
            new_at=self.old_at,
            unit=self.unit,
        )

    @property
    def summary(self) -> str:
        """What the message says about the item: side A's words for a removal, else side B's."""
        return self.old_summary if self.op == "removed" else self.new_summary

    def describe(self) -> str:
        """The edit in the words of the rules: "ability 'actions': values 2, 3 → 2, 4"."""
        if self.op == "added":
            text = f"{self.new_subject} added"
            return f"{text} ({self.summary})" if self.summary else text
        if self.op == "removed":
            text = f"{self.subject} removed"
            return f"{text} ({self.summary})" if self.summary else text
        if self.field == "rule" and isinstance(self.old, str) and isinstance(self.new, str):
            return f"{self.subject}: {word_change(self.old, self.new)}"
        if self.op == "replaced":
            text = f"{self.subject} replaced by {_item_name(self.new_subject)}"
            return f"{text} ({self.summary})" if self.summary else text
        where = (
            self.subject
            if self.subject == self.new_subject
            else (f"{self.subject} (B: {self.new_subject})")
        )
        if self.unit:
            return f"{where}: {self.field}: {self.old} → {self.new} {self.unit}"
        return f"{where}: {self.field} {format_value(self.old, self.field)} → " + format_value(
            self.new, self.field
        )

    def to_json(self) -> dict:
        return {
            "op": self.op,
            "area": self.area,
            "subject": self.subject,
            "new_subject": self.new_subject,
            "field": self.field,
            "old": self.old,
            "new": self.new,
            "path": list(self.path),
            "new_path": list(self.new_path),
            "old_at": _span_json(self.old_at),
            "new_at": _span_json(self.new_at),
            "message": self.describe(),
            "unit": self.unit,
        }


def _item_name(subject: str) -> str:
    """The quoted name in a subject, for "X replaced by 'Y'" (else the whole subject)."""
    m = re.match(r"^[^']+ ('.*')$", subject)
    return m.group(1) if m else subject


def _span_json(span: Span | None) -> dict | None:
    if span is None or span.line <= 0:
        return None
    return {"file": span.file, "line": span.line, "column": span.column}


def format_value(value: Any, field_name: str = "") -> str:
    """A plain value in the words of the spec language (yes/no, none, space-separated lists)."""
    if value is None:
        # an end trigger's threshold left out is the board's own (`completed_cities >= board`)
        return "board" if field_name == "threshold" else "none"
    if isinstance(value, bool):
        return "yes" if value else "no"
    if field_name == "points" and isinstance(value, list | tuple):
        return _points_text(value)
    if field_name == "soldiers" and isinstance(value, list | tuple):
        return ", ".join(f"{a} -- {b}" for a, b in value) if value else "none"
    if field_name == "cards" and isinstance(value, list | tuple):  # mission cards, numbered
        return (
            "{" + ", ".join(f"{i}: {' '.join(map(str, c))}" for i, c in enumerate(value, 1)) + "}"
        )
    if isinstance(value, list | tuple):
        if value and all(isinstance(v, list | tuple) and len(v) == 2 for v in value):
            return "{" + ", ".join(f"{format_value(k)}: {format_value(v)}" for k, v in value) + "}"
        return ", ".join(format_value(v) for v in value) if value else "none"
    if isinstance(value, dict):
        return "{" + ", ".join(f"{k}: {format_value(v)}" for k, v in value.items()) + "}"
    return str(value)


def _points_text(points: Sequence[str]) -> str:
    if all(p == "any" for p in points):
        return f"{len(points)} house"
    return " ".join("ship" if p == "merchant" else "house" for p in points)


# --------------------------------------------------------------------------------------------------
# Per-type facts for the generic walk


@dataclass(frozen=True)
class Kind:
    """How the walk treats one IR class.

    `key(item, index)` identifies an item inside a collection; `segment(item, index)` is the path
    segment for tools; `name(item, index)` names it for people. `ignore` lists fields that are not
    rule facts; `unordered` lists tuple fields whose order means nothing (compared as sets).
    `ordered` collections (the tie-break chain) are compared as sequences. `family` pairs leftovers
    that are the same thing with changed parameters; `replaceable` pairs leftovers reported as
    "X replaced by Y"; `canonical(a, b)` makes two matched items comparable (route orientation).
    Classes without an entry get `_default_kind`.
    """

    key: Callable[[Any, int], Hashable]
    name: Callable[[Any, int], str]
    segment: Callable[[Any, int], str]
    ignore: frozenset[str] = frozenset()
    unordered: frozenset[str] = frozenset()
    ordered: bool = False
    family: Callable[[Any], Hashable] | None = None
    replaceable: Callable[[Any, Any], bool] | None = None
    summary: Callable[[Any], str] | None = None
    canonical: Callable[[Any, Any], tuple[Any, Any]] | None = None


def _route_name(route: Route) -> str:
    return f"route '{route.cities[0]} -- {route.cities[1]}'"


def _route_canonical(a: Route, b: Route) -> tuple[Route, Route]:
    """Two routes between the same cities, made comparable: points read in one orientation, and a
    stated `sea` that only repeats what the points say dropped (it is no difference)."""

    def plain(r: Route) -> Route:
        if r.sea is not None and r.sea == (r.merchant_points > 0):
            return dataclasses.replace(r, sea=None)
        return r

    a, b = plain(a), plain(b)
    if a.cities == b.cities:
        return a, b

    def oriented(r: Route) -> Route:
        if list(r.cities) == sorted(r.cities):
            return r
        return dataclasses.replace(r, cities=(r.cities[1], r.cities[0]), points=r.points[::-1])

    return oriented(a), oriented(b)


def _route_summary(route: Route) -> str:
    parts = [f"points {_points_text(route.points)}"]
    if route.tavern:
        parts.append("tavern")
    if route.permanent_bonus:
        parts.append(f"permanent {route.permanent_bonus}")
    if route.country:
        parts.append(f"country {route.country}")
    return ", ".join(parts)


def _city_summary(city: City) -> str:
    spaces = "; ".join(
        f"{s.shape} {s.privilege}" + (f" coin {s.coin}" if s.coin else "") for s in city.spaces
    )
    parts = [f"{{ {spaces} }}" if spaces else "{ }"]
    if city.abilities:
        parts.insert(0, "ability " + " | ".join(city.abilities))
    if city.permissions:
        parts.insert(0, "permission " + ", ".join(city.permissions))
    if city.countries:
        parts.insert(0, "country " + ", ".join(city.countries))
    if not city.hanseatic:
        parts.insert(0, "green")
    return " ".join(parts)


def marker_label(marker: BonusMarker) -> str:
    """A bonus marker's name: the author's label, else its kind with the count in place ("move 3
    tradesmen"); the other parameters are in the summary, so the name stays short."""
    if marker.name and marker.name != marker.kind:
        return marker.name.replace("_", " ")
    words = marker.kind.split("_")
    count = marker.param("count")
    if count is not None:
        words.insert(1, str(count))
    return " ".join(words)


def _marker_summary(marker: BonusMarker) -> str:
    rest = [f"{k}: {format_value(v)}" for k, v in marker.params if k != "count"]
    counts = f"count {marker.count}, start {marker.start}"
    return "; ".join([", ".join(rest), counts]) if rest else counts


def _marker_key(marker: BonusMarker, _index: int) -> Hashable:
    return (marker.kind, tuple(sorted((k, repr(v)) for k, v in marker.params)))


def word_change(old: str, new: str) -> str:
    """Two wordings of a rule, the words they share kept once: `2 → 3 PP per city where …`."""
    a, b = old.split(), new.split()
    head = 0
    while head < min(len(a), len(b)) and a[head] == b[head]:
        head += 1
    tail = 0
    while tail < min(len(a), len(b)) - head and a[len(a) - 1 - tail] == b[len(b) - 1 - tail]:
        tail += 1
    middle = (
        f"{' '.join(a[head : len(a) - tail]) or '∅'} → {' '.join(b[head : len(b) - tail]) or '∅'}"
    )
    return " ".join(w for w in (" ".join(a[:head]), middle, " ".join(a[len(a) - tail :])) if w)


def hook_name(rule: HookRule) -> str:
    return {
        "score": lambda: f"score {rule.target}" + (f" '{rule.label}'" if rule.label else ""),
        "marker_used": lambda: f"bonus marker '{rule.label}'",
        "favour": lambda: f"favour tile '{rule.label}'",
        "end": lambda: "end trigger in words",
        "forbid": lambda: f"forbid {rule.target}",
        "control": lambda: "city control",
        "setup": lambda: "at setup",
        "turn_start": lambda: "at turn start",
        "turn_end": lambda: "at turn end",
        "marker_draw": lambda: "at marker draw",
        "after_create_route": lambda: "after create_route",
        "after_use_marker": lambda: "after use marker",
        "state": lambda: f"{rule.label} '{rule.target}'",
        "order": lambda: "turn order",
    }.get(rule.hook, lambda: rule.hook.replace("_", " ", 1))()


def hook_body(rule: HookRule) -> str:
    """The rule's words after its head (what `changed` compares)."""
    text = rule.text()
    head, _, body = text.partition(": ")
    return body if rule.hook in ("score", "marker_draw", *EFFECT_HOOKS) and body else text


def _step_text(step: TieBreakStep) -> str:
    if step.what == "expr":
        return f"{step.rule} {step.name}"
    return " ".join(w for w in (step.rule, step.what, step.name) if w)


def _snake(name: str) -> str:
    return re.sub(r"(?<!^)(?=[A-Z])", "_", name).lower()


@functools.cache
def _default_kind(cls: type) -> Kind:
    """A class without an entry in KINDS (an action, or a component added to the IR later):
    identified by its class and its `name` or `kind` field, named after the class."""
    label = _snake(cls.__name__)
    word = "action" if issubclass(cls, Income | Place | Displace | Move | CreateRoute) else ""

    def ident(x: Any) -> Any:
        return getattr(x, "name", None) or getattr(x, "kind", None)

    def name(x: Any, i: int) -> str:
        if word:
            return f"{word} '{label}'"
        return f"{label.replace('_', ' ')} '{ident(x)}'" if ident(x) else label.replace("_", " ")

    def segment(x: Any, i: int) -> str:
        if word:
            return f"{word}:{label}"
        return f"{label}:{ident(x)}" if ident(x) else label

    return Kind(key=lambda x, i: (cls.__name__, ident(x)), name=name, segment=segment)


def kind_of(item: Any) -> Kind:
    """The walk's facts for an IR node."""
    return KINDS.get(type(item)) or _default_kind(type(item))


def _is_node(value: Any) -> bool:
    return dataclasses.is_dataclass(value) and not isinstance(value, type)


KINDS: dict[type, Kind] = {
    Board: Kind(
        key=lambda b, i: b.id,
        name=lambda b, i: "board",
        segment=lambda b, i: "board",
        ignore=frozenset({"id", "title", "side", "verification", "frame", "frame_note"})
        | frozenset({"allow_disconnected", "extends", "edits"}),
        unordered=frozenset({"players", "original_edition_players", "countries", "east_west"}),
    ),
    City: Kind(
        key=lambda c, i: c.name,
        name=lambda c, i: f"city '{c.name}'",
        segment=lambda c, i: f"city:{c.name}",
        ignore=frozenset({"position", "aliases"}),
        unordered=frozenset({"abilities", "countries", "permissions"}),
        summary=_city_summary,
    ),
    PostSpace: Kind(
        key=lambda s, i: i + 1,
        name=lambda s, i: f"space {i + 1}",
        segment=lambda s, i: f"space:{i + 1}",
        summary=lambda s: f"{s.shape} {s.privilege}" + (f" coin {s.coin}" if s.coin else ""),
    ),
    Route: Kind(
        key=lambda r, i: frozenset(r.cities),
        name=lambda r, i: _route_name(r),
        segment=lambda r, i: "route:" + "--".join(sorted(r.cities)),
        summary=_route_summary,
        canonical=_route_canonical,
    ),
    SpecialPrestige: Kind(
        key=lambda p, i: p.city,
        name=lambda p, i: "special prestige",
        segment=lambda p, i: "special_prestige",
        unordered=frozenset({"via"}),
    ),
    SpecialSpace: Kind(
        key=lambda s, i: i + 1,
        name=lambda s, i: f"special space {i + 1}",
        segment=lambda s, i: f"special_space:{i + 1}",
        summary=lambda s: f"{s.points} {s.privilege}",
    ),
    RuleSet: Kind(
        key=lambda r, i: r.name,
        name=lambda r, i: "rules",
        segment=lambda r, i: "rules",
        ignore=frozenset({"name", "title", "extends"}),
    ),
    Pieces: Kind(
        key=lambda p, i: "pieces", name=lambda p, i: "pieces", segment=lambda p, i: "pieces"
    ),
    Setup: Kind(key=lambda s, i: "setup", name=lambda s, i: "setup", segment=lambda s, i: "setup"),
    Ability: Kind(
        key=lambda a, i: a.name,
        name=lambda a, i: f"ability '{a.name}'",
        segment=lambda a, i: f"ability:{a.name}",
        summary=lambda a: "values " + format_value(a.values),
        replaceable=lambda a, b: a.role == b.role,  # another track driving the same rule
    ),
    BonusMarker: Kind(
        key=_marker_key,
        name=lambda m, i: f"bonus marker '{marker_label(m)}'",
        segment=lambda m, i: (
            "bonus_marker:"
            + m.kind
            + "".join(f",{k}={format_value(v)}" for k, v in sorted(m.params, key=lambda kv: kv[0]))
        ),
        ignore=frozenset({"name"}),
        family=lambda m: m.kind,
        replaceable=lambda a, b: (a.count, a.start) == (b.count, b.start),
        summary=_marker_summary,
    ),
    MarkerRules: Kind(
        key=lambda m, i: "marker_rules",
        name=lambda m, i: "marker rules",
        segment=lambda m, i: "marker_rules",
        unordered=frozenset({"placement"}),
    ),
    Pawn: Kind(
        key=lambda p, i: "pawn",
        name=lambda p, i: "2-player pawn",
        segment=lambda p, i: "pawn",
        unordered=frozenset({"soldiers"}),
        # a soldier stands between two cities: `A -- B` and `B -- A` are the same soldier
        canonical=lambda a, b: tuple(
            dataclasses.replace(p, soldiers=tuple(tuple(sorted(s)) for s in p.soldiers))
            for p in (a, b)
        ),
        summary=lambda p: (
            f"soldiers {format_value(p.soldiers, 'soldiers')}; free_borders {p.free_borders}"
        ),
    ),
    EndTrigger: Kind(
        key=lambda t, i: t.kind,
        name=lambda t, i: f"end trigger '{t.kind}'",
        segment=lambda t, i: f"end_trigger:{t.kind}",
        summary=lambda t: (
            f"threshold {format_value(t.threshold, 'threshold')}"
            if getattr(CATALOGUE.get(("end", t.kind)), "params", True)
            else ""
        ),
    ),
    ScoreCategory: Kind(
        key=lambda c, i: c.kind,
        name=lambda c, i: f"score {c.key} '{c.kind}'",
        segment=lambda c, i: f"score:{c.kind}",
        replaceable=lambda a, b: a.key == b.key,  # another way to score category C
        summary=lambda c: ", ".join(f"{k} {format_value(v, k)}" for k, v in c.params),
    ),
    HookRule: Kind(
        key=lambda r, i: r.key,
        name=lambda r, i: hook_name(r),
        segment=lambda r, i: r.key,
        summary=lambda r: r.text(),
    ),
    TieBreakStep: Kind(
        key=lambda s, i: (s.rule, s.what, s.name),
        ignore=frozenset({"expr"}),
        name=lambda s, i: f"tie-break step {i + 1} '{_step_text(s)}'",
        segment=lambda s, i: f"tiebreak:{i + 1}",
        ordered=True,
    ),
    Option: Kind(
        key=lambda o, i: o.name,
        name=lambda o, i: f"option '{o.name}'",
        segment=lambda o, i: f"option:{o.name}",
        summary=lambda o: f"value {format_value(o.value)}",
    ),
    BoardRule: Kind(
        key=lambda b, i: b.kind,
        name=lambda b, i: f"board rule '{b.kind}'",
        segment=lambda b, i: f"board_rules:{b.kind}",
        replaceable=lambda a, b: True,  # another rule of play for a board feature
        summary=lambda b: ", ".join(f"{k} {format_value(v)}" for k, v in b.params),
    ),
    PermanentMarker: Kind(
        key=lambda m, i: m.name,
        name=lambda m, i: f"permanent marker '{m.name}'",
        segment=lambda m, i: f"permanent_marker:{m.name}",
        replaceable=lambda a, b: a.kind == b.kind,  # the same effect under another board word
        summary=lambda m: (
            m.kind + (" (" + ", ".join(f"{k}: {format_value(v)}" for k, v in m.params) + ")")
        ),
    ),
    Game: Kind(
        key=lambda g, i: g.name,
        name=lambda g, i: "game",
        segment=lambda g, i: "game",
        ignore=frozenset({"name"}),
        unordered=frozenset({"players"}),
    ),
}

# The report group of each top-level field; nested items inherit their parent's group.
AREAS: dict[type, dict[str, str]] = {
    Board: {"cities": "cities", "routes": "routes", "special_prestige": "special prestige"},
    RuleSet: {
        "pieces": "pieces and setup",
        "setup": "pieces and setup",
        "abilities": "abilities",
        "actions": "actions",
        "bonus_markers": "bonus markers",
        "marker_rules": "bonus markers",
        "end_triggers": "end of game",
        "scoring": "scoring",
        "tiebreak": "tie-break",
        "options": "options",
        "board_rules": "board features",
        "permanent_markers": "board features",
        "pawn": "2-player pawn",
        "hook_rules": "rules in words",
    },
}
DEFAULT_AREA = {Board: "board", RuleSet: "rules", Game: "game"}
AREA_ORDER = (
    "game",
    "board",
    "cities",
    "routes",
    "special prestige",
    "pieces and setup",
    "abilities",
    "actions",
    "bonus markers",
    "end of game",
    "scoring",
    "tie-break",
    "options",
    "board features",
    "2-player pawn",
    "rules in words",
    "places named",
    "rules",
)


# --------------------------------------------------------------------------------------------------
# Plain values


def to_plain(value: Any) -> Any:
    """IR → JSON-able value: dataclasses become dicts without spans and ignored fields."""
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        ignore = kind_of(value).ignore
        out: dict[str, Any] = {}
        if isinstance(value, Income | Place | Displace | Move | CreateRoute):
            out["action"] = _snake(type(value).__name__)
        for f in dataclasses.fields(value):
            if f.compare and f.name not in ignore:
                item = getattr(value, f.name)
                if f.metadata.get("omit_default") and item == f.default:
                    continue  # a field added later stays out of output where it is unused
                out[f.name] = to_plain(item)
        return out
    if isinstance(value, tuple | list | frozenset | set):
        items = [to_plain(v) for v in value]
        if isinstance(value, frozenset | set):
            items.sort(key=repr)
        return items
    return value


def _is_mapping(a: Any, b: Any) -> bool:
    """A tuple of (key, value) pairs with unique scalar keys: parameters, costs, scoring tables."""
    if not (isinstance(a, tuple) and isinstance(b, tuple)) or not (a or b):
        return False
    for side in (a, b):
        keys = []
        for item in side:
            if not (isinstance(item, tuple) and len(item) == 2 and isinstance(item[0], str | int)):
                return False
            keys.append(item[0])
        if len(set(keys)) != len(keys):
            return False
    return True


def table_pp(table: dict[int, Any], count: int) -> Any:
    """PP a scoring table gives for `count` (0 below its first threshold)."""
    points: Any = 0
    for least in sorted(table):
        if count >= least:
            points = table[least]
    return points


def table_changes(da: dict[int, Any], db: dict[int, Any]) -> list[tuple[int, int | None, Any, Any]]:
    """(low, high, old PP, new PP) for the runs of counts the two tables score differently;
    high is None for a run that goes on past the last threshold."""
    top = max([*da, *db], default=0)
    runs: list[list] = []
    for count in range(1, top + 1):
        old, new = table_pp(da, count), table_pp(db, count)
        if old == new:
            continue
        if runs and runs[-1][1] == count - 1 and runs[-1][2:] == [old, new]:
            runs[-1][1] = count
        else:
            runs.append([count, count, old, new])
    if runs and runs[-1][1] == top and table_pp(da, top) != table_pp(db, top):
        runs[-1][1] = None
    return [tuple(run) for run in runs]


def _is_node_collection(a: Any, b: Any) -> bool:
    if not (isinstance(a, tuple) and isinstance(b, tuple)):
        return False
    items = list(a) + list(b)
    return bool(items) and all(_is_node(x) for x in items)


def _sort_token(key: Hashable) -> str:
    if isinstance(key, frozenset):
        return repr(sorted(key, key=repr))
    if isinstance(key, int):
        return f"{key:010d}"
    return repr(key)


def _as_set(value: Any) -> Any:
    if isinstance(value, tuple):
        return sorted(set(value), key=repr)
    return value


# --------------------------------------------------------------------------------------------------
# The walk


@dataclass
class _Where:
    """Where the walk is: the item's names, paths and defining spans on both sides."""

    area: str
    subject: str
    new_subject: str
    path: tuple[str, ...]
    new_path: tuple[str, ...]
    old_at: Span | None
    new_at: Span | None


def _span(node: Any, fallback: Span | None) -> Span | None:
    span = getattr(node, "span", None)
    if isinstance(span, Span) and span.line > 0:
        return span
    return fallback


def _statement_span(node: Any, name: str, fallback: Span | None) -> Span | None:
    """Where a node's statement for field `name` was written, when the node records it (boards)."""
    for key, span in getattr(node, "statement_spans", ()):
        if key == name and isinstance(span, Span) and span.line > 0:
            return span
    return fallback


class _Walker:
    def __init__(self) -> None:
        self.edits: list[Edit] = []

    def emit(self, where: _Where, op: str, **kw: Any) -> None:
        self.edits.append(
            Edit(
                op=op,
                area=where.area,
                subject=where.subject,
                new_subject=where.new_subject,
                path=where.path,
                new_path=where.new_path,
                old_at=where.old_at,
                new_at=where.new_at,
                **kw,
            )
        )

    def node(self, a: Any, b: Any, where: _Where) -> None:
        """Compare two matched items of one class field by field."""
        kind = kind_of(a)
        if type(a) is not type(b):
            self.emit(where, "replaced", old=to_plain(a), new=to_plain(b))
            return
        if isinstance(a, HookRule):  # a rule in words is compared by its words
            if a != b:
                self.emit(where, "changed", field="rule", old=hook_body(a), new=hook_body(b))
            return
        if kind.canonical is not None:
            a, b = kind.canonical(a, b)
        for f in dataclasses.fields(a):
            if not f.compare or f.name in kind.ignore:
                continue
            va, vb = getattr(a, f.name), getattr(b, f.name)
            area = AREAS.get(type(a), {}).get(f.name, where.area)
            here = dataclasses.replace(
                where,
                area=area,
                old_at=_statement_span(a, f.name, where.old_at),
                new_at=_statement_span(b, f.name, where.new_at),
            )
            if f.name in kind.unordered:
                if _as_set(va) != _as_set(vb):
                    self.emit(here, "changed", field=f.name, old=to_plain(va), new=to_plain(vb))
                continue
            self.value(va, vb, f.name, here)

    def value(self, va: Any, vb: Any, name: str, where: _Where) -> None:
        if va == vb:
            return
        a_node, b_node = _is_node(va), _is_node(vb)
        if a_node and b_node:
            self.node(va, vb, self.child(where, va, vb, 0, 0))
        elif a_node or b_node:  # an optional component present on one side only
            item = va if a_node else vb
            kind = kind_of(item)
            inner = self.child(where, va if a_node else None, vb if b_node else None, 0, 0)
            summary = kind.summary(item) if kind.summary else ""
            if a_node and vb is None:
                self.emit(inner, "removed", old=to_plain(va), old_summary=summary)
            elif b_node and va is None:
                self.emit(inner, "added", new=to_plain(vb), new_summary=summary)
            else:
                self.emit(where, "changed", field=name, old=to_plain(va), new=to_plain(vb))
        elif _is_node_collection(va, vb):
            self.collection(va, vb, where)
        elif _is_mapping(va, vb):
            self.mapping(va, vb, name, where)
        else:
            self.emit(where, "changed", field=name, old=to_plain(va), new=to_plain(vb))

    def mapping(self, va: tuple, vb: tuple, name: str, where: _Where) -> None:
        da, db = dict(va), dict(vb)
        if name == "table" and all(isinstance(k, int) for k in [*da, *db]):
            self.table(da, db, where)
            return
        keys = sorted(set(da) | set(db), key=_sort_token)
        for key in keys:
            if isinstance(key, int):
                label = f"{name} row {key}"
            else:
                label = str(key) if name == "params" else f"{name} {key}"
            if key not in db:
                self.emit(where, "changed", field=label, old=to_plain(da[key]), new=None)
            elif key not in da:
                self.emit(where, "changed", field=label, old=None, new=to_plain(db[key]))
            else:
                self.value(da[key], db[key], label, where)

    def table(self, da: dict[int, Any], db: dict[int, Any], where: _Where) -> None:
        """A scoring table is a function (count → PP; a row holds up to the next threshold, the
        last has no end): compared by value for each count, equal neighbours grouped, so a new
        `4+: 9` row reads `6 markers: 10 → 9 PP`, not as rows removed and added."""
        for low, high, old, new in table_changes(da, db):
            counts = f"{low}+" if high is None else str(low) if low == high else f"{low}-{high}"
            self.emit(where, "changed", field=f"{counts} markers", old=old, new=new, unit="PP")

    def child(self, where: _Where, a: Any, b: Any, ia: int, ib: int) -> _Where:
        """The position of item `a` (index ia on side A) / `b` (index ib on side B)."""
        some = a if a is not None else b
        kind = kind_of(some)
        name_a = kind.name(a, ia) if a is not None else None
        name_b = kind_of(b).name(b, ib) if b is not None else None
        seg_a = kind_of(a).segment(a, ia) if a is not None else None
        seg_b = kind_of(b).segment(b, ib) if b is not None else None

        def join(parent: str, own: str | None) -> str:
            if own is None:
                return parent
            return own if parent in ("board", "rules", "game") else f"{parent}, {own}"

        return _Where(
            area=where.area,
            subject=join(where.subject, name_a or name_b),
            new_subject=join(where.new_subject, name_b or name_a),
            path=where.path + ((seg_a or seg_b),),
            new_path=where.new_path + ((seg_b or seg_a),),
            old_at=_span(a, where.old_at) if a is not None else None,
            new_at=_span(b, where.new_at) if b is not None else None,
        )

    def collection(self, va: tuple, vb: tuple, where: _Where) -> None:
        if any(kind_of(x).ordered for x in list(va) + list(vb)):
            self.sequence(va, vb, where)
            return
        ka = self.keyed(va)
        kb = self.keyed(vb)
        pairs: list[tuple[Hashable, tuple[int, Any] | None, tuple[int, Any] | None]] = []
        for key in set(ka) & set(kb):
            pairs.append((key, ka[key], kb[key]))
        left_a = {k: v for k, v in ka.items() if k not in kb}
        left_b = {k: v for k, v in kb.items() if k not in ka}
        # Same thing, parameters changed: the only leftover of its family on each side.
        for fam_key, ea, eb in self.pair_families(left_a, left_b):
            pairs.append((fam_key, ea, eb))
        replaced = self.pair_replacements(left_a, left_b)  # in side A's key order
        for key, ea in left_a.items():
            pairs.append((key, ea, None))
        for key, eb in left_b.items():
            pairs.append((key, None, eb))
        pairs.sort(key=lambda p: _sort_token(p[0]))
        for (ia, a), (ib, b) in replaced:
            inner = self.child(where, a, b, ia, ib)
            kind = kind_of(a)
            self.emit(
                inner,
                "replaced",
                old=to_plain(a),
                new=to_plain(b),
                old_summary=kind.summary(a) if kind.summary else "",
                new_summary=kind.summary(b) if kind.summary else "",
            )
        for _key, ea, eb in pairs:
            self.item(ea, eb, where)

    def item(self, ea: tuple[int, Any] | None, eb: tuple[int, Any] | None, where: _Where) -> None:
        a = ea[1] if ea else None
        b = eb[1] if eb else None
        inner = self.child(where, a, b, ea[0] if ea else 0, eb[0] if eb else 0)
        if a is not None and b is not None:
            self.node(a, b, inner)
            return
        item = a if a is not None else b
        kind = kind_of(item)
        summary = kind.summary(item) if kind.summary else ""
        if b is None:
            self.emit(inner, "removed", old=to_plain(a), old_summary=summary)
        else:
            self.emit(inner, "added", new=to_plain(b), new_summary=summary)

    @staticmethod
    def keyed(items: tuple) -> dict[Hashable, tuple[int, Any]]:
        """Items by identity key; a repeated key gets an occurrence number so nothing is lost."""
        out: dict[Hashable, tuple[int, Any]] = {}
        for i, x in enumerate(items):
            key = kind_of(x).key(x, i)
            n = 1
            unique = key
            while unique in out:
                n += 1
                unique = (key, n)
            out[unique] = (i, x)
        return out

    @staticmethod
    def pair_families(left_a: dict, left_b: dict) -> list:
        out = []
        fam_a: dict[Hashable, list] = {}
        fam_b: dict[Hashable, list] = {}
        for side, fams in ((left_a, fam_a), (left_b, fam_b)):
            for key, (_i, x) in side.items():
                family = kind_of(x).family
                if family is not None:
                    fams.setdefault((type(x).__name__, family(x)), []).append(key)
        for fam in sorted(set(fam_a) & set(fam_b), key=_sort_token):
            if len(fam_a[fam]) == 1 and len(fam_b[fam]) == 1:
                ka, kb = fam_a[fam][0], fam_b[fam][0]
                out.append((ka, left_a.pop(ka), left_b.pop(kb)))
        return out

    @staticmethod
    def pair_replacements(left_a: dict, left_b: dict) -> list:
        """Pair leftovers that take each other's place (`Kind.replaceable`: a bonus marker with the
        same count and start, an ability with the same role, a score with the same letter). The
        tests are equivalences, so pairing in key order is the same seen from either side."""
        out = []
        for ka in sorted(left_a, key=_sort_token):
            ia, a = left_a[ka]
            check = kind_of(a).replaceable
            if check is None:
                continue
            for kb in sorted(left_b, key=_sort_token):
                ib, b = left_b[kb]
                if type(b) is type(a) and check(a, b):
                    out.append((left_a.pop(ka), left_b.pop(kb)))
                    break
        return out

    def sequence(self, va: tuple, vb: tuple, where: _Where) -> None:
        """An ordered chain (the tie-break): steps added, removed or replaced at their place."""
        keys_a = [kind_of(x).key(x, i) for i, x in enumerate(va)]
        keys_b = [kind_of(x).key(x, i) for i, x in enumerate(vb)]
        matcher = difflib.SequenceMatcher(a=keys_a, b=keys_b, autojunk=False)
        for tag, i1, i2, j1, j2 in matcher.get_opcodes():
            if tag == "equal":
                continue
            common = min(i2 - i1, j2 - j1) if tag == "replace" else 0
            for n in range(common):
                a, b = va[i1 + n], vb[j1 + n]
                inner = self.child(where, a, b, i1 + n, j1 + n)
                self.emit(inner, "replaced", old=to_plain(a), new=to_plain(b))
            for i in range(i1 + common, i2):
                self.emit(self.child(where, va[i], None, i, 0), "removed", old=to_plain(va[i]))
            for j in range(j1 + common, j2):
                self.emit(self.child(where, None, vb[j], 0, j), "added", new=to_plain(vb[j]))


def _root(a: Any, b: Any) -> _Where:
    kind = kind_of(a)
    return _Where(
        area=DEFAULT_AREA[type(a)],
        subject=kind.name(a, 0),
        new_subject=kind.name(b, 0),
        path=(),
        new_path=(),
        old_at=_span(a, None),
        new_at=_span(b, None),
    )


def _sorted(edits: list[Edit]) -> list[Edit]:
    """Group by area in report order; keep the walk's order inside an area (stable sort)."""
    rank = {area: i for i, area in enumerate(AREA_ORDER)}
    return sorted(edits, key=lambda e: rank.get(e.area, len(rank)))


def diff_boards(a: Board, b: Board) -> list[Edit]:
    """Edits turning board `a` into board `b` (drawing positions and provenance are ignored)."""
    walker = _Walker()
    walker.node(a, b, _root(a, b))
    return _sorted(walker.edits)


def diff_rulesets(a: RuleSet, b: RuleSet) -> list[Edit]:
    """Edits turning resolved rule set `a` into `b` (resolve `extends` first)."""
    walker = _Walker()
    walker.node(a, b, _root(a, b))
    return _sorted(walker.edits + _place_edits(a, b))


def _place_edits(a: RuleSet, b: RuleSet) -> list[Edit]:
    """The cities, routes and countries the rules in words of one side name and the other's do
    not (a game binding the rule set needs a board with them)."""

    def named(rules: RuleSet) -> dict[str, Span | None]:
        words = {"city": "city", "route": "route", "pair": "cities", "place": "city or country"}
        return {
            f"{words[kind]} {name}": node.span for kind, name, node in reversed(named_places(rules))
        }

    old, new = named(a), named(b)
    edits = []
    for subject in sorted(set(old) | set(new)):
        if (subject in old) == (subject in new):
            continue
        op = "added" if subject in new else "removed"
        edits.append(
            Edit(
                op=op,
                area="places named",
                subject=subject,
                new_subject=subject,
                path=(f"place:{subject}",),
                new_path=(f"place:{subject}",),
                old_at=old.get(subject),
                new_at=new.get(subject),
            )
        )
    return edits


def diff_games(
    a: Game,
    b: Game,
    rules_a: RuleSet | None = None,
    rules_b: RuleSet | None = None,
    board_a: Board | None = None,
    board_b: Board | None = None,
) -> list[Edit]:
    """The game declarations' differences, then those of their resolved rule sets and boards."""
    walker = _Walker()
    walker.node(a, b, _root(a, b))
    if rules_a is not None and rules_b is not None:
        walker.node(rules_a, rules_b, _root(rules_a, rules_b))
    if board_a is not None and board_b is not None:
        walker.node(board_a, board_b, _root(board_a, board_b))
    return _sorted(walker.edits)


def diff(a: Any, b: Any) -> list[Edit]:
    """Diff two IR roots of the same kind (Board or RuleSet; use diff_games for games)."""
    if type(a) is not type(b):
        raise TypeError(f"cannot diff a {type(a).__name__} with a {type(b).__name__}")
    if isinstance(a, Board):
        return diff_boards(a, b)
    if isinstance(a, RuleSet):
        return diff_rulesets(a, b)
    if isinstance(a, Game):
        return diff_games(a, b)
    raise TypeError(f"cannot diff {type(a).__name__}")


# --------------------------------------------------------------------------------------------------
# Reports


@dataclass(frozen=True)
class Side:
    """What one side of a diff is, for report headers: kind (board | rules | game), name, file."""

    kind: str
    name: str
    file: str = ""

    def label(self) -> str:
        return f"{self.kind} '{self.name}'" + (f" ({self.file})" if self.file else "")


def _where_text(span: Span | None) -> str:
    if span is None or span.line <= 0:
        return "—"
    return f"{span.file}:{span.line}"


ANSI = {"added": "32", "removed": "31", "changed": "33", "replaced": "35", "head": "1"}
MARKS = {"added": "+", "removed": "-", "changed": "~", "replaced": "±"}


def format_text(edits: list[Edit], a: Side, b: Side, color: bool = False) -> str:
    """A report grouped by area: one line per edit, then where it is defined on each side."""

    def paint(text: str, code: str) -> str:
        return f"\033[{code}m{text}\033[0m" if color else text

    lines = [
        paint(f"--- A: {a.label()}", ANSI["removed"]),
        paint(f"+++ B: {b.label()}", ANSI["added"]),
    ]
    if not edits:
        lines.append("no differences")
        return "\n".join(lines) + "\n"
    count = len(edits)
    lines.append(f"{count} difference{'s' if count != 1 else ''}")
    area = None
    for edit in edits:
        if edit.area != area:
            area = edit.area
            lines.append("")
            lines.append(paint(area, ANSI["head"]))
        mark = paint(MARKS[edit.op], ANSI[edit.op])
        lines.append(f"  {mark} {edit.describe()}")
        lines.append(f"      A: {_where_text(edit.old_at)}   B: {_where_text(edit.new_at)}")
    return "\n".join(lines) + "\n"


def json_document(edits: list[Edit], a: Side, b: Side) -> dict:
    """The stable machine form as a dict (schema in docs/diff.md); tools may add keys to it."""
    return {
        "schema_version": JSON_SCHEMA_VERSION,
        "a": {"kind": a.kind, "name": a.name, "file": a.file},
        "b": {"kind": b.kind, "name": b.name, "file": b.file},
        "equal": not edits,
        "edits": [e.to_json() for e in edits],
    }


def format_json(edits: list[Edit], a: Side, b: Side, extra: dict | None = None) -> str:
    """The stable machine form (schema in docs/diff.md); `extra` keys are appended (simulation)."""
    doc = json_document(edits, a, b)
    doc.update(extra or {})
    return json.dumps(doc, ensure_ascii=False, indent=2) + "\n"


def _md_cell(text: str) -> str:
    return text.replace("|", "\\|").replace("\n", " ")


def format_markdown(edits: list[Edit], a: Side, b: Side) -> str:
    """A table to paste into a forum post: area, change, old, new, and where on each side."""
    lines = [f"**A:** {_md_cell(a.label())}  ", f"**B:** {_md_cell(b.label())}", ""]
    if not edits:
        lines.append("No differences.")
        return "\n".join(lines) + "\n"
    lines.append("| area | change | A | B | defined in A | defined in B |")
    lines.append("|---|---|---|---|---|---|")
    for e in edits:
        if e.op == "changed":
            change = f"{e.subject}: {e.field}"
            old, new = format_value(e.old, e.field), format_value(e.new, e.field)
            if e.unit:
                old, new = f"{old} {e.unit}", f"{new} {e.unit}"
        elif e.op == "added":
            change, old, new = f"{e.new_subject} added", "—", e.summary or "added"
        elif e.op == "removed":
            change, old, new = f"{e.subject} removed", e.summary or "present", "—"
        else:
            change = f"{e.subject} replaced"
            old, new = _item_name(e.subject), _item_name(e.new_subject)
        cells = [e.area, change, old, new, _where_text(e.old_at), _where_text(e.new_at)]
        lines.append("| " + " | ".join(_md_cell(c) for c in cells) + " |")
    return "\n".join(lines) + "\n"
