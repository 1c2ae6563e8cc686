"""The differential test of the two backends: seeded random games played on the Python and the
native backend side by side, compared after every decision (the legal action list, the rules'
counters, then the whole state: fields, JSON, scores, returns, end triggers, observation
tensors), stopping at the first divergence (`hansa verify`, docs/native.md)."""

from __future__ import annotations

import array
import random
from dataclasses import dataclass, field

from hansa.compiler.targets.native.fields import STATE_FIELDS
from hansa.play.greedy import GreedyAgent

from hansa.native import fields_of

FIELD_NAMES = tuple(what for _name, what in STATE_FIELDS)  # as a divergence names them
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


POLICIES = ("greedy", "uniform", "kinds")
EPSILON = 0.15  # the greedy games' share of uniformly random decisions


def policy_of_seed(seed: int) -> str:
    """The policy of a verification game: seeds cycle through greedy agents that play a random
    decision now and then (short, realistic games that use every rule), uniform random play
    (long games, mostly moving pieces) and random play by action kind (KIND_WEIGHTS)."""
    return POLICIES[seed % len(POLICIES)]


def compare_game(
    py_game,
    native_game,
    seed: int,
    origins: dict | None = None,
    cap: int = 500_000,
    policy: str | None = None,
):
    """Play one seeded random game on both backends; (decisions, Divergence or None).

    The legal actions are compared after every decision and the whole position every
    `FIELDS_EVERY` decisions and at the end; when they differ, the game is replayed comparing
    everything after every decision, so the divergence reported is the first one."""
    return compare_from(py_game, native_game, None, seed, origins, cap, policy)


def compare_from(
    py_game,
    native_game,
    start,
    seed: int,
    origins: dict | None = None,
    cap: int = 500_000,
    policy: str | None = None,
):
    """`compare_game` from the position `start` (a Python backend state, left unchanged; None:
    the start position of `seed`), e.g. a position set up to reach a rare rule."""
    policy = policy or policy_of_seed(seed)
    decisions, found = _play(py_game, native_game, seed, cap, FIELDS_EVERY, policy, origins, start)
    if found is None:
        return decisions, None
    _decisions, exact = _play(py_game, native_game, seed, decisions, 1, policy, origins, start)
    return decisions, exact or found


def _play(
    py_game, native_game, seed: int, cap: int, every: int, policy: str, origins=None, start=None
):
    rng = random.Random(seed)
    agents = twins = None
    if policy == "greedy":  # the Python policy on the Python state, the C policy on the native one
        agents = [GreedyAgent(seed * 16 + p) for p in range(py_game.num_players())]
        twins = [GreedyAgent(seed * 16 + p) for p in range(py_game.num_players())]
    elif policy not in POLICIES:
        raise ValueError(f"unknown verification policy {policy!r}")
    counters = Counters(py_game, native_game)  # the setup's rules count too
    if start is None:
        py = py_game.new_initial_state(seed)
        nat = native_game.new_initial_state(seed)
    else:
        py = start.clone()
        nat = native_game.from_python(start.clone())
    tensors = Tensors(py_game)
    action = None
    module = py_game.module
    n_types = module.N_MARKER_TYPES
    decision = 0
    while True:
        fields = decision % every == 0
        problem = _compare(py, nat, n_types, fields=fields, full=decision % FULL_EVERY == 0)
        if problem is None:  # what listing the legal actions (a forbid) and the action applied
            problem = counters.compare()
        if problem is None:
            problem = tensors.compare(py, nat, every_observer=fields or py.is_terminal())
        if problem is not None:
            what, a, b = problem
            text = module.action_name(action) if action is not None else ""
            rule = (
                (origins or {}).get(_origin_key(module, action), "") if action is not None else ""
            )
            return decision, Divergence(seed, decision, action, text, what, a, b, rule)
        if py.is_terminal() or decision >= cap:
            return decision, None
        legal = py.legal_actions()
        if agents is not None and twins is not None and rng.random() >= EPSILON:
            choice = agents[py.current_player()].step(py, legal)
            theirs = twins[py.current_player()].step(nat, nat.legal_actions())
            if theirs != choice:
                before = module.action_name(action) if action is not None else ""
                python, native = module.action_name(choice), module.action_name(theirs)
                what = "greedy decisions"
                return decision, Divergence(seed, decision, action, before, what, python, native)
            action = choice
        else:
            action = _choose(rng, legal, module.ACTION_RANGES, by_kind=policy == "kinds")
        counters.skip()  # the greedy agents' copies apply rules too: not the game's
        py.apply_action(action)
        nat.apply_action(action)
        decision += 1


# Weights of the action kinds for the "kinds" games (1 for the others): a game that
# creates routes and uses its bonus markers often, and ends turns and moves pieces less often
# than uniform play does (which spends most decisions moving pieces back and forth and hardly
# ever uses a marker), so the backends are compared on every rule.
KIND_WEIGHTS = {
    "END_TURN": 0.05,
    "MOVE": 0.05,
    "DONE_PICKING": 3.0,
    "INCOME": 3.0,
    "PLACE": 3.0,
    "CREATE": 8.0,
    "USE_MARKER": 8.0,
    "ESTABLISH": 3.0,
    "ADDITIONAL": 5.0,
    "SPECIAL": 5.0,
    "DEVELOP": 2.0,
    "NO_POST": 0.2,
}


def _choose(rng: random.Random, legal: list[int], ranges, by_kind: bool) -> int:
    """A random legal action: uniformly, or `by_kind`: a kind of action first by KIND_WEIGHTS
    among the kinds offered, then an action of that kind uniformly."""
    if not by_kind:
        return rng.choice(legal)
    groups: dict[str, list[int]] = {}
    for action in legal:
        for kind, base, size in ranges:
            if base <= action < base + size:
                groups.setdefault(kind, []).append(action)
                break
    kinds = sorted(groups)
    weights = [KIND_WEIGHTS.get(kind, 1.0) for kind in kinds]
    return rng.choice(groups[rng.choices(kinds, weights)[0]])


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


class Counters:
    """How often each rule in words applied (RULE_FIRED, what `hansa simulate` reports) on
    either backend, over the game's own listings and actions (an agent's search on copies of
    the position is left out): equal after every decision."""

    def __init__(self, py_game, native_game) -> None:
        self.sources = getattr(py_game.module, "RULE_SOURCES", ())
        self.py_game, self.native_game = py_game, native_game
        self.totals = [[0] * len(self.sources), [0] * len(self.sources)]
        self.marks = self._now()

    def _now(self) -> tuple[list[int], list[int]]:
        if not self.sources:
            return [], []
        return self.py_game.rule_fired(), self.native_game.rule_fired()

    def skip(self) -> None:
        """What ran since the last comparison was not the game's (an agent's copies)."""
        self.marks = self._now()

    def compare(self):
        now = self._now()
        for side in (0, 1):
            for i, (n, m) in enumerate(zip(now[side], self.marks[side], strict=True)):
                self.totals[side][i] += n - m
        self.marks = now
        python, native = self.totals
        if python != native:
            i = next(i for i, (x, y) in enumerate(zip(python, native, strict=True)) if x != y)
            hook, _name, where, text = self.sources[i]
            return f"rule counters (the {hook} rule at {where}: {text})", python[i], native[i]
        return None


class Tensors:
    """The observation tensors of both backends compared: the Python side's by a `TensorWriter`
    (patched per observer, so comparing after every decision stays cheap), the native side's
    written from nothing by its C writer."""

    def __init__(self, py_game) -> None:
        self.writer = py_game.observation_tensor_writer()
        self.layout = py_game.observation_tensor_layout()
        self.native = array.array("f", bytes(4 * self.writer.size))
        self.players = py_game.num_players()

    def compare(self, py, nat, every_observer: bool):
        """The first difference: the deciding player's tensor (the observer's), or with
        `every_observer` every player's; (what, python value, native value) or None."""
        if every_observer:
            observers = range(self.players)
        else:
            observers = [py.current_player()] if not py.is_terminal() else []
        for observer in observers:
            mine = self.writer.view(py, observer)
            nat.observation_tensor(observer, self.native)
            if mine.tobytes() != self.native.tobytes():
                return self._difference(observer, mine, self.native)
        return None

    def _difference(self, observer: int, mine, theirs):
        for i, (x, y) in enumerate(zip(mine, theirs, strict=True)):
            if x != y:
                block = next(b for b in reversed(self.layout) if b["offset"] <= i)
                where = f"{block['name']}[{i - block['offset']}]"
                return f"observation tensors (observer {observer}, {where})", x, y
        return f"observation tensors (observer {observer})", "-", "-"


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
    if py.returns() != nat.returns():
        return "returns", py.returns(), nat.returns()
    if py.winners() != nat.winners():
        return "winners", py.winners(), nat.winners()
    if py.is_terminal() and py.end_conditions_met() != nat.end_conditions_met():
        return "end conditions", py.end_conditions_met(), nat.end_conditions_met()
    return None


def verify(
    py_game, native_game, games: int, seed: int = 0, origins=None, policy: str | None = None
) -> VerifyResult:
    """`games` seeded games (seeds seed, seed+1, …; the policy of each by `policy_of_seed`
    unless one is given) on both backends, compared after every decision; stops at the first
    divergence."""
    result = VerifyResult()
    for i in range(games):
        decisions, divergence = compare_game(py_game, native_game, seed + i, origins, policy=policy)
        result.games += 1
        result.decisions += decisions
        if divergence is not None:
            result.divergence = divergence
            break
    return result
