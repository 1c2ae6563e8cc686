"""The differential test of the two backends: seeded random games played on the Python and the
native backend side by side, compared after every decision (the legal action list, then the
whole state), stopping at the first divergence (`hansa verify`, docs/native.md)."""

from __future__ import annotations

import random
from dataclasses import dataclass, field

from hansa.native import fields_of

FIELD_NAMES = (
    "scalars (players, player, actions left, ending, terminal, completed cities)",
    "pt", "mask", "full_owner", "post", "filled", "extra", "special", "rmark", "supply", "stock",
    "onboard", "level", "track", "unused", "used", "out", "fresh", "plate", "msupply", "ew",
    "stack",
)
FIELDS_EVERY = 32  # decisions between two comparisons of every field (legal actions: each one)
FULL_EVERY = 256  # … and of the state JSON, scores and end conditions


@dataclass
class Divergence:
    """Where the backends first disagreed: the game's seed, the decision number, the action
    applied before it (None at setup), what differed, and both sides."""

    seed: int
    decision: int
    action: int | None
    action_text: str
    what: str
    python: object
    native: object
    rule: str = ""  # the spec line of the rule involved, where known
    history: list[int] = field(default_factory=list)

    def report(self) -> str:
        where = f" (rule at {self.rule})" if self.rule else ""
        after = (
            "at setup"
            if self.action is None
            else f"after action {self.action} ({self.action_text})"
        )
        return (
            f"divergence in game seed {self.seed}, decision {self.decision}, {after}{where}:"
            f" {self.what} differ\n  python: {self.python}\n  native: {self.native}"
        )


@dataclass
class VerifyResult:
    games: int = 0
    decisions: int = 0
    divergence: Divergence | None = None


def _first_difference(a: dict, b: dict, path: str = "") -> tuple[str, object, object]:
    if isinstance(a, dict) and isinstance(b, dict):
        for key in list(a) + [k for k in b if k not in a]:
            if a.get(key) != b.get(key):
                return _first_difference(a.get(key), b.get(key), f"{path}.{key}" if path else key)
    if isinstance(a, list) and isinstance(b, list) and len(a) == len(b):
        for i, (x, y) in enumerate(zip(a, b, strict=True)):
            if x != y:
                return _first_difference(x, y, f"{path}[{i}]")
    return path, a, b


def compare_game(py_game, native_game, seed: int, origins: dict | None = None, cap=500_000):
    """Play one seeded random game on both backends; (decisions, Divergence or None).

    The legal actions are compared after every decision and the whole position every
    `FIELDS_EVERY` decisions and at the end; when they differ, the game is replayed comparing
    everything after every decision, so the divergence reported is the first one."""
    decisions, found = _play(py_game, native_game, seed, cap, every=FIELDS_EVERY)
    if found is None:
        return decisions, None
    _decisions, exact = _play(py_game, native_game, seed, decisions, every=1, origins=origins)
    return decisions, exact or found


def _play(py_game, native_game, seed: int, cap: int, every: int, origins=None):
    rng = random.Random(seed)
    py = py_game.new_initial_state(seed)
    nat = native_game.new_initial_state(seed)
    action = None
    module = py_game.module
    n_types = module.N_MARKER_TYPES
    decision = 0
    while True:
        problem = _compare(
            py, nat, n_types, fields=decision % every == 0, full=decision % FULL_EVERY == 0
        )
        if problem is not None:
            what, a, b = problem
            text = module.action_name(action) if action is not None else ""
            rule = (origins or {}).get(_origin_key(module, action), "") if action is not None else ""
            return decision, Divergence(seed, decision, action, text, what, a, b, rule)
        if py.is_terminal() or decision >= cap:
            return decision, None
        action = rng.choice(py.legal_actions())
        py.apply_action(action)
        nat.apply_action(action)
        decision += 1


# The action kinds of the layout by the rule component whose spec line `origins` holds.
_ORIGIN_OF_KIND = {
    "INCOME": "action:Income",
    "PLACE": "action:Place",
    "DISPLACE": "action:Displace",
    "PAY": "action:Displace",
    "PLACE_DISPLACED": "action:Displace",
    "EXTRA": "action:Displace",
    "LIFT": "action:Displace",
    "DECLINE": "action:Displace",
    "MOVE": "action:Move",
    "PICK": "action:Move",
    "DONE_PICKING": "action:Move",
    "DROP": "action:Move",
    "CREATE": "action:CreateRoute",
    "ESTABLISH": "action:CreateRoute",
    "ADDITIONAL": "marker:additional_trading_post",
    "DEVELOP": "action:CreateRoute",
    "SPECIAL": "action:CreateRoute",
    "NO_POST": "action:CreateRoute",
    "EXCHANGE": "marker:exchange_trading_posts",
    "PLACE_MARKER": "marker_rules",
    "END_TURN": "marker_rules",
}


def _origin_key(module, action: int) -> str:
    kind = _kind_of(module, action)
    if kind == "USE_MARKER":
        return "marker:" + module.MARKER_KEYS[action - module.A_USE_MARKER]
    return _ORIGIN_OF_KIND.get(kind, "")


def _kind_of(module, action: int) -> str:
    for kind, base, size in module.ACTION_RANGES:
        if base <= action < base + size:
            return kind
    return ""


def _compare(py, nat, n_types: int, fields: bool = True, full: bool = True):
    """The first difference between the two states: legal actions, then every field of the
    position (the native fields against those of the Python state), then (when `full`, and at
    the end) the state JSON, scores and end conditions."""
    a, b = py.legal_actions(), nat.legal_actions()
    if a != b:
        return "legal actions", a, b
    if py.current_player() != nat.current_player():
        return "current player", py.current_player(), nat.current_player()
    if not fields and not py.is_terminal():
        return None
    mine, theirs = fields_of(py, n_types), nat._export()
    if mine != theirs:
        for name, x, y in zip(FIELD_NAMES, mine, theirs, strict=True):
            if x != y:
                return f"states (field {name})", x, y
    if not full and not py.is_terminal():
        return None
    da, db = py.to_dict(), nat.to_dict()
    if da != db:
        path, x, y = _first_difference(da, db)
        return f"states (at {path})", x, y
    mine = nat.to_python()
    for name in ("at", "free", "free_house", "mask", "full_owner", "onboard"):
        if getattr(py, name) != getattr(mine, name):
            return f"states (field {name})", getattr(py, name), getattr(mine, name)
    if py.score_breakdown() != nat.score_breakdown():
        return "score breakdowns", py.score_breakdown(), nat.score_breakdown()
    if py.is_terminal() and py.end_conditions_met() != nat.end_conditions_met():
        return "end conditions", py.end_conditions_met(), nat.end_conditions_met()
    return None


def verify(py_game, native_game, games: int, seed: int = 0, origins=None) -> VerifyResult:
    """`games` seeded random games (seeds seed, seed+1, …) on both backends, compared after every
    decision; stops at the first divergence."""
    result = VerifyResult()
    for i in range(games):
        decisions, divergence = compare_game(py_game, native_game, seed + i, origins)
        result.games += 1
        result.decisions += decisions
        if divergence is not None:
            result.divergence = divergence
            break
    return result
