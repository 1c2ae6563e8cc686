"""Bonus markers: the types in the mix (kinds with a template, and kinds written in words), the
parameters of each kind, and where drawn markers may be placed."""

from __future__ import annotations

import re
import unicodedata

from .fold import Fold, error, where
from .sizes import MAX_EXTRA_ACTIONS, MAX_MOVE, check_marker_count, check_value

MARKER_KINDS = (
    "additional_trading_post",
    "exchange_trading_posts",
    "develop_ability",
    "extra_actions",
    "move_tradesmen",
    "remove_tradesmen",
)
PLACEMENT_CONDITIONS = ("no_marker", "no_pieces", "vacant_space_in_a_city")
BOARD_PLACEMENT_CONDITIONS = ("no_permanent_marker", "not_in_permission_country")


def marker_key(kind: str, params: tuple, unique: bool, name: str = "") -> str:
    """The marker type's name in state JSON: the author's name when it is a plain lowercase word,
    else the kind (plus its parameter values when several types share the kind)."""
    if name and re.fullmatch(r"[a-z][a-z0-9_]*", name):
        return name
    if unique:
        return kind
    parts = [kind] + [str(v).lower() for _, v in params]
    return "_".join(parts)


class _Types:
    """The marker types being collected, one list per column."""

    def __init__(self) -> None:
        self.keys: list[str] = []
        self.labels: list[str] = []
        self.kinds: list[str] = []
        self.counts: list[int] = []
        self.starts: list[int] = []
        self.params: list[dict] = []

    def add(self, key: str, label: str, kind: str, count: int, start: int, params: dict) -> None:
        self.keys.append(key)
        self.labels.append(unicodedata.normalize("NFC", str(label)))
        self.kinds.append(kind)
        self.counts.append(count)
        self.starts.append(start)
        self.params.append(params)

    def ids_of(self, kind: str) -> tuple[int, ...]:
        return tuple(i for i, kd in enumerate(self.kinds) if kd == kind)


def _check_params(f: Fold, bm, params: dict) -> None:
    if bm.kind == "develop_ability":
        ab = params.get("ability", "any")
        if ab != "any" and ab not in f.k["ABILITY_NAMES"]:
            raise error(f"develop_ability names unknown ability {ab!r}", bm.span)
    if bm.kind in ("move_tradesmen", "remove_tradesmen"):
        if params.get("whose", "opponents") not in ("opponents", "any"):
            raise error(f"{bm.kind}: whose must be opponents or any", bm.span)
        if bm.kind == "remove_tradesmen" and params.get("to", "personal") not in (
            "personal",
            "stock",
        ):
            raise error("remove_tradesmen: to must be personal or stock", bm.span)


def _spec_types(f: Fold, types: _Types) -> None:
    """The rule set's `bonus` statements, in order."""
    kinds_seen: dict[str, int] = {}
    for bm in f.rules.bonus_markers:
        if bm.kind not in MARKER_KINDS:
            raise error(f"bonus marker kind {bm.kind!r} has no template", bm.span)
        kinds_seen[bm.kind] = kinds_seen.get(bm.kind, 0) + 1
    for bm in f.rules.bonus_markers:
        key = marker_key(bm.kind, bm.params, kinds_seen[bm.kind] == 1, bm.name)
        if key in types.keys:
            raise error(f"two bonus marker types are both called {key!r}", bm.span)
        if not re.fullmatch(r"[a-z0-9_]+", key):
            raise error(f"bonus marker parameters give an unusable name {key!r}", bm.span)
        if bm.count < 0 or bm.start < 0 or bm.start > bm.count:
            raise error(f"bonus marker {key!r}: bad count/start", bm.span)
        params = dict(bm.params)
        types.add(key, bm.name or key.replace("_", " "), bm.kind, bm.count, bm.start, params)
        f.origins[f"marker:{key}"] = where(bm.span)
        _check_params(f, bm, params)


def _word_types(f: Fold, types: _Types) -> None:
    """New marker kinds written in words (`when a marker is used`, expr HookRule), after the
    others; `Fold.first_rule_marker` is the first one's type id."""
    f.first_rule_marker = len(types.keys)
    for rule in f.rules.hook_rules:
        if rule.hook != "marker_used":
            continue
        key = re.sub(r"[^a-z0-9]+", "_", unicodedata.normalize("NFKD", rule.label).lower())
        key = key.strip("_") or "marker"
        if key in types.keys:
            raise error(f"two bonus marker types are both called {key!r}", rule.span)
        params = dict(rule.params)
        types.add(key, rule.label, "rule", params.get("count", 1), params.get("start", 0), {})
        f.origins[f"marker:{key}"] = where(rule.span)


def _kind_tables(f: Fold, types: _Types) -> None:
    """The types of each kind with their parameters: ADDITIONAL_MARKERS (ids),
    EXCHANGE_MARKERS (id, must own one), DEVELOP_MARKERS (id, ability or -1: any),
    EXTRA_ACTION_MARKERS (id, count), MOVE_MARKERS (id, count, whose), REMOVE_MARKERS (id, count,
    whose, to), RULE_MARKERS (ids of the kinds in words)."""
    k, params, names = f.k, types.params, f.k["ABILITY_NAMES"]

    def ability(i: int) -> int:
        ab = params[i].get("ability", "any")
        return -1 if ab == "any" else names.index(ab)

    k["ADDITIONAL_MARKERS"] = types.ids_of("additional_trading_post")
    k["EXCHANGE_MARKERS"] = tuple(
        (i, bool(params[i].get("must_own_one", True)))
        for i in types.ids_of("exchange_trading_posts")
    )
    k["DEVELOP_MARKERS"] = tuple((i, ability(i)) for i in types.ids_of("develop_ability"))
    k["EXTRA_ACTION_MARKERS"] = tuple(
        (i, int(params[i].get("count", 3))) for i in types.ids_of("extra_actions")
    )
    k["MOVE_MARKERS"] = tuple(
        (i, int(params[i].get("count", 3)), params[i].get("whose", "opponents"))
        for i in types.ids_of("move_tradesmen")
    )
    k["REMOVE_MARKERS"] = tuple(
        (
            i,
            int(params[i].get("count", 3)),
            params[i].get("whose", "opponents"),
            params[i].get("to", "personal"),
        )
        for i in types.ids_of("remove_tradesmen")
    )
    for kind in MARKER_KINDS:
        f.comp["marker_" + kind] = bool(types.ids_of(kind))
    if types.ids_of("rule"):
        k["RULE_MARKERS"] = types.ids_of("rule")


def _check_marker_total(f: Fold) -> None:
    """The markers' counts with the statements that declare them (`sizes.check_marker_count`)."""
    words = [r for r in f.rules.hook_rules if r.hook == "marker_used"]
    counted = [(bm.count, bm.span) for bm in f.rules.bonus_markers]
    counted += [(dict(r.params).get("count", 1), r.span) for r in words]
    check_marker_count(f.game, counted)
    for bm in f.rules.bonus_markers:
        count = dict(bm.params).get("count")
        if not isinstance(count, int) or isinstance(count, bool):
            continue
        if bm.kind in ("move_tradesmen", "remove_tradesmen"):
            check_value(count, MAX_MOVE, f"pieces one {bm.kind} marker picks up", bm.span)
        elif bm.kind == "extra_actions":
            check_value(count, MAX_EXTRA_ACTIONS, "actions one extra_actions marker gives", bm.span)


def fold_bonus_markers(f: Fold) -> None:
    """MARKER_KEYS (names in state JSON), MARKER_LABELS, MARKER_COUNT, MARKER_START (face up at
    setup, one per tavern route), N_MARKER_TYPES, the kind tables; components marker_<kind>."""
    types = _Types()
    _spec_types(f, types)
    _word_types(f, types)
    k = f.k
    k["MARKER_KEYS"] = tuple(types.keys)
    k["MARKER_LABELS"] = tuple(types.labels)
    k["MARKER_COUNT"] = tuple(types.counts)
    k["MARKER_START"] = tuple(types.starts)
    k["N_MARKER_TYPES"] = len(types.keys)
    _check_marker_total(f)
    if sum(types.starts) != len(k["TAVERN_ROUTES"]):
        raise error(
            f"game {f.game.name!r}: {sum(types.starts)} start markers but board {f.board.id!r} "
            f"has {len(k['TAVERN_ROUTES'])} tavern routes",
            f.game.span,
        )
    _kind_tables(f, types)


def fold_marker_placement(f: Fold) -> None:
    """Components usable_in_taking_action and placement (the conditions a route must meet to take
    a drawn marker, those about board features the board lacks left out); MARKER_ROUTE_ALLOWED
    per route when a board-feature condition applies."""
    k, comp, mr = f.k, f.comp, f.rules.marker_rules
    comp["usable_in_taking_action"] = bool(mr is not None and mr.usable_in_taking_action)
    if mr is not None:
        for cond in mr.placement:
            if cond not in PLACEMENT_CONDITIONS + BOARD_PLACEMENT_CONDITIONS:
                raise error(f"unknown marker placement condition {cond!r}", mr.span)
        conditions = tuple(mr.placement)
        f.origins["marker_rules"] = where(mr.span)
    else:
        conditions = PLACEMENT_CONDITIONS
    placement = [
        cond
        for cond in conditions
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
            for r in range(k["N_ROUTES"])
        )
