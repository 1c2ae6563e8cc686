"""Playing games with agents: one game (`play_game`), many over processes (`simulate`), statistics.

`simulate` is the function `hansa simulate` prints and `hansa diff --simulate` can reuse: it derives
one seed per game from the run's seed (so the result does not depend on how games are spread over
processes), plays them, and summarises win rate by seat, PP per scoring category, end-trigger shares
and game length, each with its spread.
"""

from __future__ import annotations

import functools
import hashlib
import importlib
import inspect
import itertools
import math
import multiprocessing
import os
import signal
import threading
import time
from collections.abc import Callable, Sequence
from concurrent.futures import ProcessPoolExecutor, as_completed
from dataclasses import asdict, dataclass, field

from hansa.runtime.errors import HansaError
from hansa.runtime.game import Game
from hansa.runtime.state import BaseState

import hansa

from .agents import RandomAgent
from .cluster import game_from_text, import_ray, run_on_ray
from .greedy import GreedyAgent, module_namespace
from .mcts import MCTSAgent, native_search_unavailable

# A game that has not ended after this many decisions is stopped and reported as "unfinished".
DEFAULT_MAX_DECISIONS = 200_000

# `strong`: the recommended search for studies — the default search's 30 iterations, each played
# to the end of the game, continuing the chosen action's subtree within a turn, stopping a search
# once its choice cannot change, on the native backend where the game builds natively (the same
# choices, about half the time; docs/play.md, "The strong agent").
STRONG_SETTINGS = {"iterations": 30, "turns": 0, "reuse": True, "stop": True, "backend": "auto"}


def StrongAgent(seed: int | None = 0, **settings) -> MCTSAgent:  # noqa: N802 (an agent "class")
    """`MCTSAgent` with `STRONG_SETTINGS`; each may be overridden (`strong:iterations=40`)."""
    return MCTSAgent(seed=seed, **(STRONG_SETTINGS | settings))


StrongAgent.__signature__ = inspect.signature(MCTSAgent).replace(  # type: ignore[attr-defined]
    parameters=[
        p.replace(default=STRONG_SETTINGS.get(p.name, p.default))
        for p in inspect.signature(MCTSAgent).parameters.values()
    ]
)

# Where the games of `simulate` are played: processes of this machine (`jobs`), or Ray tasks.
EXECUTORS = ("local", "ray")

AGENTS: dict[str, type] = {
    "random": RandomAgent,
    "greedy": GreedyAgent,
    "mcts": MCTSAgent,
    "strong": StrongAgent,  # type: ignore[dict-item]
}

# End-trigger names (the rule components of the spec's `end when` line) as reported.
TRACK_PP = "track_pp"
COMPLETED_CITIES = "completed_cities"
MARKER_SUPPLY_EMPTY = "marker_supply_empty"
UNFINISHED = "unfinished"
# The action kinds of a permanent bonus marker's decision (docs/game-api.md, "Decisions").
PERMANENT_ACTION_KINDS = frozenset(
    ("PERM_USE", "GREEN_POST", "ROUTE_PLACE", "COUNTRY_PLACE", "COUNTRY_LIFT")
)


# ---- agents
def make_agent(spec: str, seed: int):
    """An agent from its name (`random`, `greedy`, `mcts`) or `module:Class` (a class with `step`),
    optionally followed by `:key=value,key=value` keyword arguments (`mcts:iterations=200`).

    A class is called with `seed=…` when its constructor takes a seed (a `seed=` parameter in the
    spec overrides the per-seat seed), else without it.
    """
    spec = spec.strip()
    name, params = split_agent_params(spec)
    if name in AGENTS:
        return _construct(spec, AGENTS[name], seed, params)
    spec_name = spec
    spec = name
    if ":" not in spec:
        known = ", ".join(sorted(AGENTS))
        raise HansaError(
            f"unknown agent {spec!r}: use one of {known}, or module:Class for your own agent"
        )
    module_name, _, class_name = spec.partition(":")
    try:
        module = importlib.import_module(module_name)
    except ImportError as exc:
        raise HansaError(f"agent {spec!r}: cannot import module {module_name!r} ({exc})") from None
    cls = getattr(module, class_name, None)
    if cls is None or not callable(cls):
        raise HansaError(f"agent {spec!r}: module {module_name!r} has no class {class_name!r}")
    return _construct(spec_name, cls, seed, params)


def split_agent_params(spec: str) -> tuple[str, dict[str, bool | int | float | str]]:
    """`name:k=v,k=v` → (name, {k: v}); values become int or float when they read as one, True
    or False for `true` and `false`."""
    head, sep, tail = spec.rpartition(":")
    if not sep or "=" not in tail:
        return spec, {}
    params: dict[str, bool | int | float | str] = {}
    for item in tail.split(","):
        key, eq, value = item.partition("=")
        key, value = key.strip(), value.strip()
        if not eq or not key.isidentifier():
            raise HansaError(f"agent {spec!r}: expected key=value parameters, got {item!r}")
        params[key] = _param_value(value)
    return head, params


def _param_value(text: str) -> bool | int | float | str:
    if text in ("true", "false"):  # a switch: `strong:reuse=false`
        return text == "true"
    for kind in (int, float):
        try:
            return kind(text)
        except ValueError:
            pass
    return text


def _construct(spec: str, cls, seed: int, params: dict):
    try:
        accepted = inspect.signature(cls).parameters
    except (TypeError, ValueError):
        accepted = {}
    takes_any = any(p.kind is inspect.Parameter.VAR_KEYWORD for p in accepted.values())
    unknown = [k for k in params if k not in accepted and not takes_any]
    if unknown:
        names = ", ".join(k for k in accepted if k != "self") or "none"
        raise HansaError(f"agent {spec!r}: unknown parameter {unknown[0]!r} (parameters: {names})")
    kwargs = dict(params)
    if "seed" in accepted and "seed" not in kwargs:
        kwargs["seed"] = seed
    try:
        agent = cls(**kwargs)
    except (TypeError, ValueError) as exc:
        raise HansaError(f"agent {spec!r}: {exc}") from None
    if not callable(getattr(agent, "step", None)):
        raise HansaError(f"agent {spec!r} has no method step(state, legal_actions)")
    return agent


def split_agents(text: str | Sequence[str]) -> list[str]:
    """`greedy,mcts:iterations=400,rollout=random` → the agents named, in order (a `key=value`
    piece continues the previous agent's parameters); an empty name is an error."""
    if isinstance(text, str):
        names: list[str] = []
        for piece in (n.strip() for n in text.split(",")):
            # `mcts:iterations=400,rollout=random`: a key=value piece continues the parameters
            if names and "=" in piece and ":" not in piece and "=" in names[-1]:
                names[-1] += "," + piece
            else:
                names.append(piece)
    else:
        names = list(text)
    if not names or any(not n for n in names):
        raise HansaError(f"--agents: empty agent name in {text!r}")
    return names


def parse_agents(text: str | Sequence[str], players: int) -> list[str]:
    """`greedy` (everyone) or `greedy,random,…` (one per seat) → one agent name per seat."""
    names = split_agents(text)
    if len(names) == 1:
        return names * players
    if len(names) != players:
        raise HansaError(
            f"--agents names {len(names)} agents but the game has {players} players "
            "(give one name for everybody or one per seat)"
        )
    return names


def derived_seed(*parts: object) -> int:
    """A 48-bit seed from the parts, the same on every machine and Python version."""
    text = ":".join(str(p) for p in parts)
    return int.from_bytes(hashlib.sha256(text.encode("utf-8")).digest()[:6], "big")


def game_seed(run_seed: int, index: int) -> int:
    """The seed of game `index` of a simulation run with `run_seed`."""
    return derived_seed("hansa-game", run_seed, index)


def agent_seed(seed: int, seat: int) -> int:
    """The seed of the agent in `seat` of the game with `seed`."""
    return derived_seed("hansa-agent", seed, seat)


def search_backend_note(game: Game, agents: str | Sequence[str]) -> str | None:
    """One line for a study whose search agents would search native copies of its positions
    (`strong`, `backend=auto`) and will search Python positions instead (no C compiler, a
    construct the native target refuses): why, and what it costs. None when nothing changes."""
    if getattr(game, "backend", "python") == "native":
        return None  # the positions are native already
    try:
        names = parse_agents(agents, game.num_players())
        auto = [
            name
            for name in names
            if isinstance(agent := make_agent(name, 0), MCTSAgent) and agent.backend == "auto"
        ]
    except HansaError:
        return None  # the study itself says what is wrong with the agents
    if not auto:
        return None
    reason = native_search_unavailable(vars(game.module), game.num_players())
    if reason is None:
        return None
    return (
        f"note: {', '.join(dict.fromkeys(auto))} will search Python positions (about ten times"
        f" slower; the results are the same): {reason}"
    )


def make_agents(names: Sequence[str], seed: int) -> list:
    return [make_agent(name, agent_seed(seed, seat)) for seat, name in enumerate(names)]


# ---- one game
@dataclass
class GameRecord:
    """What one finished (or stopped) game leaves: enough for statistics and for a log footer."""

    seed: int
    players: int
    returns: list[int]
    breakdown: list[dict[str, int]]
    winners: list[int]
    end_trigger: str
    turns: int
    decisions: int
    moves: list[tuple[int, int]] = field(default_factory=list)  # (player, action) if recorded
    # How often each element of the game was used or applied (`usage_keys`): "action:PLACE",
    # "marker:Guild charter", "permanent:NAME", "category:G", "end:track_pp", "rule:FILE:LINE".
    usage: dict[str, int] = field(default_factory=dict)
    # What the board looked like at the end: the cities complete (every space taken), by name,
    # and the routes created in the game (indices into the module's ROUTE_CITIES), ascending.
    cities_completed: list[str] = field(default_factory=list)
    routes_created: list[int] = field(default_factory=list)

    def summary(self) -> dict:
        data = asdict(self)
        del data["moves"]
        return data


class GameTracker:
    """Counts turns and notices which end trigger fired, watching one game decision by decision.

    A turn is a run of decisions of the active player; the turn decision is the one that offers
    END_TURN (the smallest action id of every turn decision). The end triggers are the game's own
    (`state.end_conditions_met()` at the end: catalogue kinds and rules in words), and, from a
    clone taken before each route creation, whether it drew from an empty marker supply.
    """

    def __init__(self, game: Game) -> None:
        ns = vars(game.module)
        self.end_turn = next(b for kind, b, _s in ns["ACTION_RANGES"] if kind == "END_TURN")
        self.create = next(((b, s) for kind, b, s in ns["ACTION_RANGES"] if kind == "CREATE"))
        self.turns = 0
        self.turn_player = -1
        self.before_create = None
        self.created_route = -1
        self.routes_created: set[int] = set()
        self.kind_of: list[str] = [""] * ns["NUM_ACTIONS"]
        for kind, base, size in ns["ACTION_RANGES"]:
            self.kind_of[base : base + size] = [kind] * size
        self.marker_labels: tuple[str, ...] = ns["MARKER_LABELS"]
        self.route_permanent: tuple[int, ...] = ns.get("ROUTE_PERMANENT", ())
        self.permanent_names: tuple[str, ...] = ns.get("PERMANENT_NAMES", ())
        self.rule_sources: tuple = ns.get("RULE_SOURCES", ())
        # the game's counters of its rules in words (None: it has none), on either backend
        self.rule_fired = game.rule_fired if ns.get("RULE_SOURCES") else None
        self.score_keys: tuple[str, ...] = ns["SCORE_KEYS"]
        self.usage: dict[str, int] = {}
        self.last_kind = ""
        self.unused: list[tuple[int, ...]] = []
        self.fired: list[int] = []

    def _count(self, key: str, n: int = 1) -> None:
        self.usage[key] = self.usage.get(key, 0) + n

    def watch(self, state) -> None:
        """Before the first decision: the setup's rules applied, the markers held."""
        if self.rule_fired is not None:
            self.fired = self.rule_fired()
        self.unused = [state.unused_markers(p) for p in range(len(state.track_pp()))]

    def start_decision(self) -> None:
        """Before the game's legal actions are listed (a forbid rule counts there); the rules an
        agent's search applied on its copies since the last decision are not the game's."""
        if self.rule_fired is not None:
            self.fired = self.rule_fired()

    def listed(self) -> None:
        """After listing the legal actions: what the listing applied counts."""
        self._rules_applied()

    def before(self, state, legal: list[int], player: int, action: int) -> None:
        if legal[0] == self.end_turn and player != self.turn_player:
            self.turns += 1
            self.turn_player = player
        base, size = self.create
        if base <= action < base + size:
            self.before_create = state.clone()
            self.created_route = action - base
            self.routes_created.add(self.created_route)
        kind = self.kind_of[action]
        self._count("action:" + kind)
        if kind in PERMANENT_ACTION_KINDS and self.last_kind not in PERMANENT_ACTION_KINDS:
            route = state.decision_route()
            if 0 <= route < len(self.route_permanent) and self.route_permanent[route] >= 0:
                self._count("permanent:" + self.permanent_names[self.route_permanent[route]])
        self.last_kind = kind
        if self.rule_fired is not None:
            self.fired = self.rule_fired()

    def after(self, state) -> None:
        """After the game applied an action: the markers that left their owner's hand were used
        (by a use, a step-3 post or a favour tile's flip), and the rules the action applied."""
        for p, before in enumerate(self.unused):
            now = state.unused_markers(p)
            if now != before:
                for m in set(before):
                    gone = before.count(m) - now.count(m)
                    if gone > 0:
                        self._count("marker:" + self.marker_labels[m], gone)
                self.unused[p] = now
        self._rules_applied()

    def _rules_applied(self) -> None:
        if self.rule_fired is None:
            return
        now = self.rule_fired()
        for i, (count, was) in enumerate(zip(now, self.fired, strict=True)):
            if count != was:
                self._count("rule:" + self.rule_sources[i][2], count - was)
        self.fired = now

    def finish(self, state, breakdown: list[dict[str, int]], end_trigger: str) -> dict[str, int]:
        """The game's usage: the counts so far, the categories that scored (players), the end
        triggers that fired, and the scoring and end rules in words among them."""
        for key in self.score_keys:
            scored = sum(1 for row in breakdown if row[key])
            if scored:
                self._count("category:" + key, scored)
        fired = end_trigger.split("+") if end_trigger != UNFINISHED else []
        for name in fired:
            self._count("end:" + name)
        for hook, name, where, _text in self.rule_sources:
            if hook == "score" and self.usage.get("category:" + name):
                self._count("rule:" + where, self.usage["category:" + name])
            elif hook == "end" and name in fired:
                self._count("rule:" + where)
        return dict(sorted(self.usage.items()))

    def board_facts(self, state) -> tuple[list[str], list[int]]:
        """Once, at the end: the cities complete (every space taken) and the routes created."""
        cities = [
            city["name"]
            for city in state.to_dict()["cities"]
            if city["posts"] and all(post is not None for post in city["posts"])
        ]
        return cities, sorted(self.routes_created)

    def end_trigger(self, state) -> str:
        if not state.is_terminal():
            return UNFINISHED
        fired = list(state.end_conditions_met())
        if self.before_create is not None:
            before = self.before_create.to_dict()
            route = before["routes"][self.created_route]
            if route["marker"] is not None and not before["marker_supply"]:
                fired.append(MARKER_SUPPLY_EMPTY)
        if not fired:  # no other trigger can end a game; keep the record honest anyway
            fired.append(MARKER_SUPPLY_EMPTY)
        return "+".join(fired)


def play_game(
    game: Game,
    agents: Sequence,
    seed: int,
    max_decisions: int | None = DEFAULT_MAX_DECISIONS,
    record_moves: bool = False,
) -> tuple[GameRecord, BaseState]:
    """Play one game from `game.new_initial_state(seed)`; agent i decides for player i.

    Returns the record and the final state.
    """
    if len(agents) != game.num_players():
        raise HansaError(f"{len(agents)} agents for a {game.num_players()}-player game")
    tracker = GameTracker(game)
    tracker.start_decision()
    state = game.new_initial_state(seed)
    tracker.listed()  # the setup's rules
    tracker.watch(state)
    moves: list[tuple[int, int]] = []
    decisions = 0
    while not state.is_terminal():
        if max_decisions is not None and decisions >= max_decisions:
            break
        player = state.current_player()
        tracker.start_decision()
        legal = state.legal_actions()
        tracker.listed()
        agent = agents[player]
        action = checked_step(
            agent,
            state,
            legal,
            f"agent {type(agent).__name__} (player {player})",
            f" at decision {decisions + 1}",
        )
        tracker.before(state, legal, player, action)
        state.apply_action(action)
        tracker.after(state)
        decisions += 1
        if record_moves:
            moves.append((player, action))
    breakdown = state.score_breakdown()
    end_trigger = tracker.end_trigger(state)
    cities, routes = tracker.board_facts(state)
    return GameRecord(
        seed=seed,
        players=game.num_players(),
        returns=[sum(b.values()) for b in breakdown],
        breakdown=breakdown,
        winners=state.winners(),
        end_trigger=end_trigger,
        turns=tracker.turns,
        decisions=decisions,
        moves=moves,
        usage=tracker.finish(state, breakdown, end_trigger),
        cities_completed=cities,
        routes_created=routes,
    ), state


# ---- which elements of a game were used
USAGE_GROUPS = {
    "action": "action kinds (decisions taken)",
    "marker": "bonus markers (used)",
    "permanent": "permanent markers (used)",
    "category": "scoring categories (players scoring)",
    "end": "end triggers (fired)",
    "rule": "rules in words (applied)",
}


def usage_elements(game: Game) -> dict[str, str]:
    """Every element of a game whose use `play_game` counts, key -> what a reader calls it: the
    action kinds, bonus markers by label, permanent markers, scoring categories, the end
    triggers it names and its rules in words by source location."""
    ns = vars(game.module)
    out: dict[str, str] = {}
    for kind, _base, _size in ns["ACTION_RANGES"]:
        out["action:" + kind] = kind.lower().replace("_", " ")
    for label in dict.fromkeys(ns["MARKER_LABELS"]):
        out["marker:" + label] = label
    for name in ns.get("PERMANENT_NAMES", ()):
        out["permanent:" + name] = name.replace("_", " ")
    for key, kind in zip(ns["SCORE_KEYS"], ns["SCORE_KINDS"], strict=True):
        out["category:" + key] = f"{key} {kind}"
    if ns.get("END_TRACK_PP"):
        out["end:" + TRACK_PP] = TRACK_PP
    if ns.get("END_COMPLETED_CITIES"):
        out["end:" + COMPLETED_CITIES] = COMPLETED_CITIES
    for hook, name, where, text in ns.get("RULE_SOURCES", ()):
        if hook == "end":
            out["end:" + name] = name
        out["rule:" + where] = f"{where} {text}"
    return out


# ---- statistics
def spread(values: Sequence[float]) -> dict[str, float]:
    """Mean, sample standard deviation and the half-width of a normal 95% confidence interval."""
    n = len(values)
    if n == 0:
        return {"mean": 0.0, "std": 0.0, "ci95": 0.0, "min": 0.0, "max": 0.0}
    mean = math.fsum(values) / n
    var = math.fsum((v - mean) ** 2 for v in values) / (n - 1) if n > 1 else 0.0
    std = math.sqrt(var)
    return {
        "mean": round(mean, 4),
        "std": round(std, 4),
        "ci95": round(1.96 * std / math.sqrt(n), 4),
        "min": min(values),
        "max": max(values),
    }


def share(count: int, n: int) -> dict[str, float]:
    """A proportion with its Wilson 95% interval (sensible near 0 and 1, unlike mean ± 1.96·se)."""
    if n == 0:
        return {"count": count, "share": 0.0, "low": 0.0, "high": 0.0}
    z = 1.96
    p = count / n
    centre = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / (1 + z * z / n)
    return {
        "count": count,
        "share": round(p, 4),
        "low": round(max(0.0, centre - half), 4),
        "high": round(min(1.0, centre + half), 4),
    }


@dataclass
class SimulationResult:
    """Statistics of a run of games; `to_json()` is the `hansa simulate --json` document."""

    game: str
    players: int
    agents: list[str]
    seed: int
    games: int
    records: list[dict] = field(repr=False)
    elements: dict[str, str] = field(default_factory=dict, repr=False)  # usage_elements(game)
    # "rotate": game i seats the agents shifted by i (`seated`); "ladder": `agents` are the
    # ladder's agents and game i seats lineup i of their cycle (`ladder_lineups`)
    seats: str = "fixed"
    wall_seconds: float = 0.0  # the games' wall time (not loading the game, not the report)
    end_names: tuple[str, ...] = ()  # `end_trigger_names(game)`: the triggers that can end it
    city_names: tuple[str, ...] = ()
    route_names: tuple[str, ...] = ()  # `route_names(game)`, by route index
    marker_names: tuple[str, ...] = ()  # `marker_names(game)`: the bonus marker types in play

    def _column(self, key: str) -> list[float]:
        return [r[key] for r in self.records]

    def win_rate(self) -> list[dict[str, float]]:
        """Per seat: the share of games won (a shared victory counts 1/k for each of k winners)."""
        per_seat = [[0.0] * len(self.records) for _ in range(self.players)]
        for i, r in enumerate(self.records):
            for p in r["winners"]:
                per_seat[p][i] = 1.0 / len(r["winners"])
        return [spread(column) for column in per_seat]

    def categories(self) -> dict[str, dict[str, float]]:
        """Per scoring category, the PP of a player (all seats together)."""
        keys = list(self.records[0]["breakdown"][0]) if self.records else []
        return {key: spread([b[key] for r in self.records for b in r["breakdown"]]) for key in keys}

    def categories_by_seat(self) -> list[dict[str, float]]:
        keys = list(self.records[0]["breakdown"][0]) if self.records else []
        return [
            {key: spread([r["breakdown"][p][key] for r in self.records])["mean"] for key in keys}
            for p in range(self.players)
        ]

    def end_triggers(self) -> dict[str, dict[str, float]]:
        counts: dict[str, int] = {}
        for r in self.records:
            counts[r["end_trigger"]] = counts.get(r["end_trigger"], 0) + 1
        return {k: share(counts[k], len(self.records)) for k in sorted(counts)}

    def by_agent(self) -> dict[str, dict]:
        """Per distinct agent: its win rate per seat it held (a game's wins over the seats it
        had; a shared victory counts 1/k) and its mean PP per seat held, each with its spread
        over games, and the seats it held."""
        out: dict[str, dict] = {}
        for name in dict.fromkeys(self.agents):
            wins, points, held = [], [], 0
            for r in self.records:
                seats = [p for p, a in enumerate(r.get("agents", self.agents)) if a == name]
                held += len(seats)
                won = sum(1.0 / len(r["winners"]) for p in r["winners"] if p in seats)
                wins.append(won / len(seats))
                points.append(sum(r["returns"][p] for p in seats) / len(seats))
            out[name] = {"seats": held, "win_rate": spread(wins), "points": spread(points)}
        return out

    def usage(self) -> dict[str, dict]:
        """Per element of the game (`usage_elements`, and any other that was counted): its group
        and label, uses per game (mean with a 95% interval) and the games it was used in (Wilson
        interval), so an element never used shows as 0 of N games."""
        return usage_table(self.records, self.elements)

    def cost(self) -> dict[str, float | int]:
        """What the games cost (`study_cost`); the one part of the report that varies by run."""
        return study_cost(self.records, self.wall_seconds)

    def balance(self) -> dict:
        """Seat win rates against an even share, and what never happened (`balance_report`)."""
        return balance_report(
            self.records,
            self.players,
            self.end_names,
            self.city_names,
            self.route_names,
            self.marker_names,
            self.usage(),
        )

    def to_json(self) -> dict:
        return {
            "format": "hansa-simulation",
            "version": 1,
            "game": self.game,
            "players": self.players,
            "agents": self.agents,
            "seats": self.seats,
            "seed": self.seed,
            "games": self.games,
            "win_rate_by_seat": self.win_rate(),
            "by_agent": self.by_agent(),
            "points_by_category": self.categories(),
            "mean_points_by_seat_and_category": self.categories_by_seat(),
            "total_points_by_seat": [
                spread([r["returns"][p] for r in self.records]) for p in range(self.players)
            ],
            "winner_points": spread([max(r["returns"]) for r in self.records]),
            "end_triggers": self.end_triggers(),
            "turns": spread(self._column("turns")),
            "rounds": spread([r["turns"] / self.players for r in self.records]),
            "decisions": spread(self._column("decisions")),
            "usage": self.usage(),
            "balance": self.balance(),
            "cost": self.cost(),
        }


def study_cost(records: Sequence[dict], wall_seconds: float) -> dict[str, float | int]:
    """CPU seconds of the games (each record's `cpu_seconds`, measured in the process that played
    it, summed), per game and per decision, and the wall time of the run."""
    games = len(records)
    decisions = sum(r["decisions"] for r in records)
    cpu = math.fsum(r.get("cpu_seconds", 0.0) for r in records)
    return {
        "games": games,
        "decisions": decisions,
        "cpu_seconds": round(cpu, 3),
        "cpu_seconds_per_game": round(cpu / games, 6) if games else 0.0,
        "cpu_seconds_per_decision": round(cpu / decisions, 8) if decisions else 0.0,
        "wall_seconds": round(wall_seconds, 3),
    }


# ---- balance flags
def end_trigger_names(game: Game) -> tuple[str, ...]:
    """The end triggers a game has: the catalogue's (track PP, completed cities), its end rules
    in words, and the empty marker supply when it is on."""
    ns = vars(game.module)
    names = [k.partition(":")[2] for k in usage_elements(game) if k.startswith("end:")]
    if "end_marker_supply_empty" in ns.get("SWITCHES", ()):
        names.append(MARKER_SUPPLY_EMPTY)
    return tuple(dict.fromkeys(names))


def route_names(game: Game) -> tuple[str, ...]:
    """Each route by the cities it joins ("Arnheim–Duisburg"; "(2)" for a second such route)."""
    ns = vars(game.module)
    cities = ns["CITY_NAMES"]
    out: list[str] = []
    for a, b in ns["ROUTE_CITIES"]:
        name = f"{cities[a]}–{cities[b]}"
        same = sum(1 for n in out if n == name or n.startswith(name + " ("))
        out.append(name if not same else f"{name} ({same + 1})")
    return tuple(out)


def marker_names(game: Game) -> tuple[str, ...]:
    """The labels of the bonus marker types the game deals (a count above 0, start tiles in it)."""
    ns = vars(game.module)
    pairs = zip(ns["MARKER_LABELS"], ns["MARKER_COUNT"], strict=True)
    return tuple(dict.fromkeys(label for label, count in pairs if count > 0))


def binomial_p(k: int, n: int, p: float) -> float:
    """Two-sided exact binomial p-value: the probability of an outcome no likelier than k."""
    if n == 0:
        return 1.0

    def log_pmf(i: int) -> float:
        if p in (0.0, 1.0):
            return 0.0 if i == round(n * p) else -math.inf
        return (
            math.lgamma(n + 1)
            - math.lgamma(i + 1)
            - math.lgamma(n - i + 1)
            + i * math.log(p)
            + (n - i) * math.log1p(-p)
        )

    observed = log_pmf(k)
    total = math.fsum(math.exp(v) for i in range(n + 1) if (v := log_pmf(i)) <= observed + 1e-7)
    return min(1.0, total)


def holm(p_values: Sequence[float]) -> list[float]:
    """Holm's step-down adjusted p-values, in the order given."""
    m = len(p_values)
    adjusted = [1.0] * m
    running = 0.0
    for rank, i in enumerate(sorted(range(m), key=lambda j: p_values[j])):
        running = max(running, min(1.0, (m - rank) * p_values[i]))
        adjusted[i] = running
    return adjusted


BALANCE_ALPHA = 0.05


def balance_report(
    records: Sequence[dict],
    players: int,
    end_names: Sequence[str],
    city_names: Sequence[str],
    route_names: Sequence[str],
    marker_names: Sequence[str],
    usage: dict[str, dict],
) -> dict:
    """What a map author wants flagged: per seat its wins (a shared win counts 1/k) against the
    even share 1/P with a Wilson interval and an exact two-sided binomial test (on the wins
    rounded to whole games), Holm-corrected over the seats; and the end triggers, cities, routes
    and bonus marker types that never ended, were never completed, created or used."""
    n = len(records)
    even = 1 / players
    seats = []
    for seat in range(players):
        wins = math.fsum(1 / len(r["winners"]) for r in records if seat in r["winners"])
        row = share(round(wins, 4), n)
        seats.append(row | {"p": binomial_p(round(wins), n, even)})
    for row, adjusted in zip(seats, holm([row["p"] for row in seats]), strict=True):
        row["p"] = round(row["p"], 6)
        row["p_holm"] = round(adjusted, 6)
        row["clear"] = adjusted < BALANCE_ALPHA
    ended = {t for r in records for t in r["end_trigger"].split("+")}
    completed = {c for r in records for c in r.get("cities_completed", ())}
    created = {i for r in records for i in r.get("routes_created", ())}
    never = {
        "end_triggers": [t for t in end_names if t not in ended],
        "cities_completed": [c for c in city_names if c not in completed],
        "routes_created": [name for i, name in enumerate(route_names) if i not in created],
        "markers_used": [
            m for m in marker_names if usage.get("marker:" + m, {"total": 0})["total"] == 0
        ],
    }
    word = "game" if n == 1 else "games"
    flags = []
    for seat, row in enumerate(seats):
        if row["clear"]:
            side = "more" if row["share"] > even else "less"
            flags.append(
                f"seat {seat} won {100 * row['share']:.1f}% of {n} {word} "
                f"[{100 * row['low']:.1f}–{100 * row['high']:.1f}%], {side} than an even share "
                f"of {100 * even:.1f}% (Holm p {_p_text(row['p_holm'])})"
            )
    for key, what, total in (
        ("end_triggers", "end triggers that never ended a game", len(end_names)),
        ("cities_completed", "cities never completed", len(city_names)),
        ("routes_created", "routes never created", len(route_names)),
        ("markers_used", "bonus marker types never used", len(marker_names)),
    ):
        if never[key]:
            names = ", ".join(never[key])
            flags.append(f"{what} in {n} {word} ({len(never[key])} of {total}): {names}")
    return {
        "even_share": round(even, 4),
        "alpha": BALANCE_ALPHA,
        "test": "binomial_exact",
        "correction": "holm",
        "seats": seats,
        "never": never,
        "flags": flags,
    }


def _p_text(p: float) -> str:
    return "<0.001" if p < 0.001 else f"{p:.3f}"


def usage_table(records: Sequence[dict], elements: dict[str, str]) -> dict[str, dict]:
    """`SimulationResult.usage` over game records (each with its `usage` counts)."""
    keys = list(elements)
    keys += sorted({k for r in records for k in r.get("usage", {}) if k not in elements})
    keys.sort(key=lambda k: (list(USAGE_GROUPS).index(k.split(":", 1)[0]), k))
    n = len(records)
    table = {}
    for key in keys:
        counts = [r.get("usage", {}).get(key, 0) for r in records]
        group, _, name = key.partition(":")
        table[key] = {
            "group": group,
            "label": elements.get(key, name),
            "total": sum(counts),
            "per_game": spread(counts),
            "games": share(sum(1 for c in counts if c), n),
        }
    return table


# ---- many games over processes
_LOADED: dict[tuple[str, int], Game] = {}


def default_loader(name: str, players: int | None) -> Game:
    """`hansa.load_game`, imported late so the runtime itself needs nothing beyond the stdlib."""

    return hansa.load_game(name, players=players)


def _game_for(name: str, players: int | None, loader: Callable[[str, int], Game]) -> Game:
    game = _LOADED.get((name, players))
    if game is None:
        game = _LOADED[(name, players)] = loader(name, players)
    return game


def _play_chunk(
    name: str,
    players: int,
    agents: list[str],
    seed: int,
    indices: list[int],
    max_decisions: int | None,
    loader: Callable[[str, int], Game],
    seating: str = "fixed",
    record_moves: bool = False,
) -> list[tuple[int, dict]]:
    game = _game_for(name, players, loader)
    return play_games(game, agents, seed, indices, max_decisions, seating, record_moves)


def play_games(
    game: Game,
    agents: list[str],
    seed: int,
    indices: list[int],
    max_decisions: int | None,
    seating: str,
    record_moves: bool = False,
) -> list[tuple[int, dict]]:
    """Games `indices` of a run with `seed`: (index, record summary) each, wherever they run;
    `seating` ("fixed", "rotate", "ladder") says who sits where in each (`seat_names`).

    Each summary carries `cpu_seconds`, the CPU time of this process spent on the game (making
    its agents and playing it), so a study's cost adds up over worker processes and Ray tasks;
    with `record_moves`, also `moves`, the game's (player, action) pairs in order."""
    out = []
    for i in indices:
        started = time.process_time()
        s = game_seed(seed, i)
        names = seat_names(agents, seating, i, game.num_players())
        record, _state = play_game(game, make_agents(names, s), s, max_decisions, record_moves)
        summary = record.summary()
        summary["agents"] = names
        if record_moves:
            summary["moves"] = [list(move) for move in record.moves]
        summary["cpu_seconds"] = time.process_time() - started
        out.append((i, summary))
    return out


def play_batch(
    module_name: str,
    text: str,
    players: int,
    agents: list[str],
    seed: int,
    indices: list[int],
    max_decisions: int | None,
    seating: str,
    record_moves: bool = False,
) -> list[tuple[int, dict]]:
    """A Ray task's body (`hansa.play.cluster` runs it on a worker): games `indices` of the study,
    as `simulate`'s local workers play them, of the game rebuilt from its module's text (each
    record with the CPU seconds this worker spent on its game)."""
    game = game_from_text(module_name, text, players)
    return play_games(game, agents, seed, indices, max_decisions, seating, record_moves)


def seated(agents: Sequence[str], index: int) -> list[str]:
    """The agents of game `index` when seats rotate: the list shifted by `index` seats, so over
    any P consecutive games each agent plays each of the P seats once."""
    n = len(agents)
    shift = index % n
    return [agents[(seat - shift) % n] for seat in range(n)]


def ladder_lineups(agents: Sequence[str], players: int) -> list[tuple[str, ...]]:
    """One cycle of a ladder's lineups (`hansa ladder`; docs/play.md, "hansa ladder: a rated
    ladder of agents").

    With at least as many agents as seats, every `players`-subset of the agents (in the order
    given), else one table of the agents repeated in turn (`a,b,c` in four seats: `a,b,c,a`);
    each table in its `players` rotations, then reversed in its rotations (but for two seats,
    where reversing is a rotation). So over a cycle every agent sits every seat equally often,
    every pair of agents meets, and each has the other on either side equally often."""
    agents = tuple(agents)
    if len(agents) >= players:
        tables = list(itertools.combinations(agents, players))
    else:
        tables = [tuple(agents[seat % len(agents)] for seat in range(players))]
    orders = (1, -1) if players > 2 else (1,)
    return [
        tuple(seated(table[::order], shift))
        for table in tables
        for order in orders
        for shift in range(players)
    ]


def seat_names(agents: Sequence[str], seating: str, index: int, players: int) -> list[str]:
    """The agents of game `index`, seat by seat: as given ("fixed"), shifted by `index` seats
    ("rotate", `seated`), or lineup `index` of the ladder's cycle ("ladder", `ladder_lineups`)."""
    if seating == "rotate":
        return seated(agents, index)
    if seating == "ladder":
        cycle = _ladder_cycle(tuple(agents), players)
        return list(cycle[index % len(cycle)])
    return list(agents)


@functools.lru_cache(maxsize=8)
def _ladder_cycle(agents: tuple[str, ...], players: int) -> list[tuple[str, ...]]:
    return ladder_lineups(agents, players)


SEATINGS = ("rotate", "fixed", "ladder")


def ladder_agents(text: str | Sequence[str]) -> list[str]:
    """The distinct agents of a ladder (`split_agents`): two or more, none named twice."""
    names = split_agents(text)
    if len(names) < 2:
        raise HansaError(
            f"a ladder needs at least two agents to rate against each other, got {names[0]!r}"
        )
    repeated = next((name for i, name in enumerate(names) if name in names[:i]), None)
    if repeated is not None:
        raise HansaError(f"--agents names {repeated!r} twice: a ladder rates distinct agents")
    return names


def simulate(
    game_name: str | Game,
    n: int,
    players: int | None = None,
    agents: str | Sequence[str] = "greedy",
    seed: int = 0,
    jobs: int | None = None,
    max_decisions: int | None = DEFAULT_MAX_DECISIONS,
    progress: Callable[[int, int], None] | None = None,
    loader: Callable[[str, int], Game] = default_loader,
    seats: str = "rotate",
    executor: str = "local",
    address: str | None = None,
    record_moves: bool = False,
) -> SimulationResult:
    """Play `n` games (game i with seed `game_seed(seed, i)`) over `jobs` processes and summarise.

    `game_name` is a game name (loaded with `loader`, in each worker) or an already loaded `Game`.
    The result is the same for any `jobs` and executor. `progress(done, n)` is called as games
    finish. With agents that differ and `seats="rotate"` (the default), game i seats them shifted
    by i (`seated`), so agent and seat are not confounded; `seats="fixed"` keeps the given order;
    `seats="ladder"` takes `agents` as the distinct agents of a ladder (two or more, any number
    against the seats) and game i seats lineup i of their cycle (`ladder_lineups`).
    `executor="ray"` plays the games as Ray tasks (`hansa.play.cluster`): on a local Ray with
    `jobs` CPUs, or on the cluster at `address`. With `record_moves` every record keeps its
    game's moves (`hansa diff --simulate` pairs the games of its two sides by them). The result's
    `cost()` (CPU seconds of the games, summed over workers, and the wall time) is the only part
    that changes from run to run.
    """
    if seats not in SEATINGS:
        raise HansaError(f"--seats must be rotate or fixed, not {seats!r}")
    if executor not in EXECUTORS:
        raise HansaError(f"--executor must be {' or '.join(EXECUTORS)}, not {executor!r}")
    if address is not None and executor != "ray":
        raise HansaError("--address names a Ray cluster: it applies with --executor ray")
    if address is not None and jobs is not None:
        raise HansaError("--jobs applies to one machine; a Ray cluster (--address) uses its CPUs")
    if isinstance(n, bool) or not isinstance(n, int) or n < 1:
        raise HansaError(f"the number of games must be at least 1, got {n!r}")
    if isinstance(game_name, Game):
        game = game_name
        name = game.name
        if players is not None and players != game.num_players():
            game = Game(game.module, players)
        _LOADED[(name, game.num_players())] = game
    else:
        name = game_name
        game = _game_for(name, players, loader)
        _LOADED[(name, game.num_players())] = game
    players = game.num_players()
    if seats == "ladder":
        seat_agents = ladder_agents(agents)
        seating = "ladder"
    else:
        seat_agents = parse_agents(agents, players)
        seating = "rotate" if seats == "rotate" and len(set(seat_agents)) > 1 else "fixed"
    for spec in set(seat_agents):
        make_agent(spec, 0)  # fail early on a bad name, before any process starts
    if jobs is not None and (isinstance(jobs, bool) or not isinstance(jobs, int) or jobs < 1):
        raise HansaError(f"--jobs must be at least 1, got {jobs!r}")
    report = progress or (lambda done, total: None)
    started = time.perf_counter()
    if executor == "ray":
        results = _play_on_ray(
            game, seat_agents, seed, n, max_decisions, seating, report, jobs, address, record_moves
        )
    else:
        results = _play_local(
            name,
            players,
            seat_agents,
            seed,
            n,
            jobs,
            max_decisions,
            loader,
            seating,
            report,
            record_moves,
        )
    wall = time.perf_counter() - started
    missing = [i for i in range(n) if i not in results]
    if missing:  # never reached: a study is reported with every game or not at all
        raise HansaError(f"{len(missing)} games were not played (first: game {missing[0]})")
    return SimulationResult(
        game=name,
        players=players,
        agents=seat_agents,
        seats=seating,
        seed=seed,
        games=n,
        records=[results[i] for i in range(n)],
        elements=usage_elements(game),
        wall_seconds=wall,
        end_names=end_trigger_names(game),
        city_names=tuple(vars(game.module)["CITY_NAMES"]),
        route_names=route_names(game),
        marker_names=marker_names(game),
    )


def _play_on_ray(
    game, agents, seed, n, max_decisions, seating, progress, cpus, address, record_moves=False
):
    """The games as Ray tasks of two games each (a cluster's size is not known here, and a batch
    whose worker dies costs little to rerun)."""
    import_ray()  # the missing extra is one clear error, before anything starts
    batches = [list(range(i, min(n, i + 2))) for i in range(0, n, 2)]
    previous_term = _stop_on_sigterm()
    try:
        return run_on_ray(
            play_batch,
            game,
            agents,
            seed,
            batches,
            max_decisions,
            seating,
            lambda done: progress(done, n),
            address=address,
            cpus=cpus,
            record_moves=record_moves,
        )
    finally:
        _restore_sigterm(previous_term)


def _play_local(
    name, players, agents, seed, n, jobs, max_decisions, loader, seating, progress, moves=False
):
    """The games here (`jobs` 1) or over `jobs` forked processes; game index -> record."""
    jobs = min((os.cpu_count() or 1) if jobs is None else jobs, n)
    results: dict[int, dict] = {}
    chunk = max(1, min(25, n // (jobs * 4) or 1))
    batches = [list(range(i, min(n, i + chunk))) for i in range(0, n, chunk)]
    if jobs == 1:
        for batch in batches:
            for i, summary in _play_chunk(
                name, players, agents, seed, batch, max_decisions, loader, seating, moves
            ):
                results[i] = summary
            progress(len(results), n)
        return results
    context = _fork_context()
    children_before = {process.pid for process in _active_children()}
    previous_term = _stop_on_sigterm()
    pool = ProcessPoolExecutor(max_workers=jobs, mp_context=context, initializer=_ignore_interrupts)
    try:
        futures = [
            pool.submit(
                _play_chunk,
                name,
                players,
                agents,
                seed,
                batch,
                max_decisions,
                loader,
                seating,
                moves,
            )
            for batch in batches
        ]
        for future in as_completed(futures):
            for i, summary in future.result():
                results[i] = summary
            progress(len(results), n)
    except BaseException:
        _stop_pool(pool, children_before)  # Ctrl-C or a failed game: don't wait for the queue
        raise
    finally:
        _restore_sigterm(previous_term)
    pool.shutdown()
    return results


def _active_children() -> list:

    return multiprocessing.active_children()


def _ignore_interrupts() -> None:
    """Workers leave Ctrl-C to the parent, which stops them all (no traceback from each worker);
    SIGTERM (how the parent stops them) ends a worker at once, whatever the parent installed."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.signal(signal.SIGTERM, signal.SIG_DFL)


class Terminated(SystemExit):
    """SIGTERM reached the parent of a parallel run: it stops its workers, then exits 143."""


def _raise_terminated(signum, frame) -> None:
    raise Terminated(128 + signum)


def _stop_on_sigterm():
    """While workers run, SIGTERM becomes an exception (so they are stopped), not a silent death
    of the parent that would leave them running. Only the main thread may set a handler."""

    if threading.current_thread() is not threading.main_thread():
        return None
    return signal.signal(signal.SIGTERM, _raise_terminated)


def _restore_sigterm(previous) -> None:
    if previous is not None:
        signal.signal(signal.SIGTERM, previous)


def _stop_pool(pool: ProcessPoolExecutor, children_before: set[int]) -> None:
    """Cancel queued games and end the workers now; shutdown() alone waits for every queued game.

    The executor replaces a worker that dies while it is still winding down, so terminating its
    workers can race with it forking a new one: end every child this pool started until none is
    left and the executor's manager thread (the one that forks) has ended (bounded).
    """
    manager = getattr(pool, "_executor_manager_thread", None)
    pool.shutdown(wait=False, cancel_futures=True)
    for _ in range(50):
        workers = [p for p in _active_children() if p.pid not in children_before]
        if not workers and (manager is None or not manager.is_alive()):
            return
        for process in workers:
            process.terminate()
        for process in workers:
            process.join(timeout=5)
        if manager is not None:
            manager.join(timeout=0.1)


def _fork_context():
    """Fork where available: workers inherit loaded (even in-memory) games instead of reloading."""

    try:
        return multiprocessing.get_context("fork")
    except ValueError:
        return None


def describe_game(state_or_game) -> dict:
    """The generated module's identity for logs: game, rules, board and its spec hash."""
    ns = (
        vars(state_or_game.module)
        if isinstance(state_or_game, Game)
        else module_namespace(state_or_game)
    )
    return {
        "game": ns["GAME_NAME"],
        "rules": ns["RULES_NAME"],
        "board": ns["BOARD_ID"],
        "module_hash": module_hash(ns),
    }


def module_hash(ns: dict) -> str | None:
    """A generated module's `SPEC_HASH` (the `spec-sha256=…` of its header), read from the module
    itself: its file may be gone (a spec folder's cache emptied meanwhile). For a module without
    one, the header line or the hash of its text or file."""
    if isinstance(ns.get("SPEC_HASH"), str):
        return ns["SPEC_HASH"]
    text = ns.get("__generated_text__")
    if isinstance(text, str):
        data = text.encode("utf-8")
    else:
        path = ns.get("__file__")
        if not path:
            return None
        try:
            with open(path, "rb") as handle:
                data = handle.read()
        except OSError:
            return None
    for line in data.decode("utf-8", "replace").splitlines()[:40]:
        if line.startswith("# hansa-generated:"):
            return line.split(":", 1)[1].strip()
    return "sha256=" + hashlib.sha256(data).hexdigest()


def checked_step(agent, state, legal: list[int], who: str, at: str = "") -> int:
    """The agent's choice among `legal`; a plug-in agent's bug or an illegal choice becomes one
    HansaError naming `who` (and `at`, where in the game), without a traceback."""
    try:
        action = agent.step(state, legal)
    except HansaError:
        raise
    except Exception as exc:
        raise HansaError(f"{who} failed{at}: {type(exc).__name__}: {exc}") from exc
    if action.__class__ is not int or action not in legal:
        raise HansaError(f"{who} chose {action!r}{at}, which is not one of the legal actions")
    return action
