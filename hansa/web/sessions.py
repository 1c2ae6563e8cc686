"""Games held server-side for `hansa serve`: the catalogue of games and the live sessions.

A session is one game in the browser: a game played from a seed (seats human or agent), a game
log opened for stepping through (read only), or a position loaded from a state JSON. It keeps the
decisions made so far, so any earlier position can be shown (rebuilt from a snapshot every
`SNAPSHOT_EVERY` decisions) and the game can be saved as a `hansa play --log` log. Who may see and
do what is `hansa.web.access` (a token per seat); what each of them is shown is `hansa.web.views`;
agents think in `hansa.web.runner`'s worker pool. Nothing here imports a web framework:
`hansa.web.app` puts these objects behind HTTP.

A game is only ever found by name among the catalogue's games: a name is never opened as a file.
"""

from __future__ import annotations

import bisect
import json
import secrets
import threading
import time
from collections import OrderedDict
from collections.abc import Callable
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from types import ModuleType

import hansa
from hansa.commands.score import load_state, parse_state_text
from hansa.compiler.errors import HansaError
from hansa.compiler.model.sizes import MAX_ACTIONS
from hansa.play.logs import header_for, log_lines, replay
from hansa.play.simulate import (
    AGENTS,
    GameRecord,
    GameTracker,
    agent_seed,
    checked_step,
    make_agent,
)
from hansa.runtime.game import Game

from .access import SEAT, Refused, Viewer, make_tokens, new_token
from .runner import AgentPool, Job
from .talk import KEPT_MESSAGES, Talk

HUMAN = "human"
MAX_SESSIONS = 100  # live games kept; the least recently used one is dropped beyond this
SNAPSHOT_EVERY = 64
MAX_AGENT_STEPS = 20_000  # decisions one request may let agents make
MAX_DECISIONS = 100_000  # decisions one session keeps (a game of random agents ends long before)
MAX_SEED = 2**63 - 1
# Action ids a game served here may have: the compiler's own bound (check refuses more), asked again
# of every module served, since a module built by an older compiler may come from the cache.

# Action kinds (the generated modules' ACTION_RANGES) by what they act on, and how the id within
# the kind maps to that thing: "pair" ids come in (thing, trader/merchant) pairs.
POINT_KINDS = {"PLACE": "pair", "DISPLACE": "pair", "PICK": "one", "DROP": "one", "REMOVE": "one"}
POINT_KINDS |= {"PLACE_DISPLACED": "one", "LIFT": "one", "COUNTRY_PLACE": "pair"}
POINT_KINDS |= {"COUNTRY_LIFT": "one", "ROUTE_PLACE": "pair"}
ROUTE_KINDS = {"CREATE", "PLACE_MARKER"}
CITY_KINDS = {"ESTABLISH", "ADDITIONAL", "GREEN_POST"}


def agent_names() -> list[str]:
    """The seat choices: a human, or any agent `hansa play --agents` knows by name."""
    return [HUMAN, *AGENTS]


# ---- the games: built modules and the spec folder's games, compiled in memory
@dataclass
class GameEntry:
    name: str
    source: str  # "built" (hansa.generated) or "spec" (compiled from the spec folder)
    players: tuple[int, ...]
    rules: str
    board: str
    lock: threading.Lock = field(default_factory=threading.Lock, repr=False)
    refused: HansaError | None = field(default=None, repr=False)  # a game too large to serve


def bundled_spec_dir() -> Path | None:
    """The spec folder beside the package in a source checkout (the built games come from it)."""
    folder = Path(hansa.__file__).resolve().parent.parent / "spec"
    return folder if folder.is_dir() else None


def load_spec(spec_dir: str | Path | None) -> tuple[dict, dict, list[str]]:
    """Games and boards declared under `spec_dir`, and the spec's errors as CLI-formatted text.

    A small, replaceable loader: the games are compiled only when played (`compile_spec_game`).
    """
    from hansa.compiler.project import load_project

    if spec_dir is None or not Path(spec_dir).is_dir():
        return {}, {}, []
    try:
        project = load_project([Path(spec_dir)])
    except HansaError as exc:  # a folder without spec files
        return {}, {}, [exc.format()]
    problems = [d.format(project.sources) for d in project.errors]
    return dict(project.games), dict(project.boards), problems


def compile_spec_game(name: str, spec_dir: str | Path) -> ModuleType:
    """The module of a game declared in `spec_dir`, compiled by the CLI's resolver (cached by the
    spec folder's hash, so `hansa play --spec` and the page share one compiled module)."""
    from hansa.resolve import load_game

    return load_game(name, None, spec_dir, paths=False).module


UNKNOWN_KEPT = 256  # messages for names that are no game, kept (the oldest goes first)


class Catalogue:
    """Every game the server offers; modules are loaded (or compiled) once, on first use."""

    def __init__(self, spec_dir: str | Path | None = "spec") -> None:
        self.spec_dir = Path(spec_dir) if spec_dir is not None else None
        self.entries: dict[str, GameEntry] = {}
        self.modules: dict[str, ModuleType] = {}
        self.layouts: dict[str, dict] = {}
        self.unknown: dict[str, HansaError] = {}  # the message for a name that is no game
        self.lock = threading.Lock()  # the caches; a compile holds only its game's entry lock
        built = hansa.available_games()
        bundled = bundled_spec_dir()
        spec_games, self.boards, self.problems = load_spec(self.spec_dir)
        same = self.spec_dir is not None and bundled is not None and self.spec_dir.is_dir()
        if bundled is not None and not (same and self.spec_dir.resolve() == bundled):
            bundled_boards = load_spec(bundled)[1]  # the built games' boards, for drawing
            self.boards = {**bundled_boards, **self.boards}
        for name in sorted(built):
            module = self._built(name)
            ns = vars(module)
            self.entries[name] = GameEntry(
                name, "built", tuple(ns["PLAYER_COUNTS"]), ns["RULES_NAME"], ns["BOARD_ID"]
            )
        for name in sorted(spec_games):  # the spec's own version wins: it is what the author edits
            if self.problems and name in built:
                continue  # a spec with errors compiles no game: keep the built one playable
            decl = spec_games[name]
            self.entries[name] = GameEntry(name, "spec", decl.players, decl.rules, decl.board)
            self.modules.pop(name, None)

    def _built(self, name: str) -> ModuleType:
        module = hansa.load_game(name).module
        self.modules[name] = module
        return module

    def module(self, name: object) -> ModuleType:
        """The module of the game called `name`, which is only ever looked up by name."""
        entry = self.entries.get(name) if isinstance(name, str) else None
        if entry is None:
            raise self._unknown(name)
        with entry.lock:
            if entry.refused is not None:
                raise entry.refused
            with self.lock:
                module = self.modules.get(entry.name)
            if module is None:
                if entry.source == "spec":
                    module = compile_spec_game(entry.name, self.spec_dir)
                else:
                    module = hansa.load_game(entry.name).module
                count = vars(module)["NUM_ACTIONS"]
                if count > MAX_ACTIONS:
                    entry.refused = HansaError(
                        f"game {entry.name!r} has {count:,} action ids; hansa serve plays games "
                        f"with at most {MAX_ACTIONS:,} (a spec asking for that many pieces or "
                        "spaces would take gigabytes to name its actions)"
                    )
                    raise entry.refused
                with self.lock:
                    self.modules[entry.name] = module
            return module

    def loaded(self, name: object) -> bool:
        """Whether asking for `name` is quick: a game whose module is ready (or refused), or a
        name that is no game at all."""
        entry = self.entries.get(name) if isinstance(name, str) else None
        with self.lock:
            if entry is None:
                return self._quick_unknown(name)
            return entry.name in self.modules or entry.refused is not None

    def laid_out(self, name: object) -> bool:
        """Whether the board of `name` is quick to answer (drawn already, refused or no game)."""
        entry = self.entries.get(name) if isinstance(name, str) else None
        with self.lock:
            if entry is None:
                return self._quick_unknown(name)
            return entry.refused is not None or entry.name in self.layouts

    def _unknown(self, name: object) -> HansaError:
        """The CLI's message for an unknown game name (never looking at the file system for the
        name itself). Working it out reads the spec folder, so the last `UNKNOWN_KEPT` answers are
        kept: a flood of one bad name costs one reading."""
        from hansa.resolve import did_you_mean, load_game, shown

        if isinstance(name, str) and self.spec_dir is not None and self.spec_dir.is_dir():
            with self.lock:
                kept = self.unknown.get(name)
            if kept is not None:
                return kept
            try:
                load_game(name, None, self.spec_dir, paths=False)
            except HansaError as exc:
                with self.lock:
                    self.unknown[name] = exc
                    while len(self.unknown) > UNKNOWN_KEPT:
                        self.unknown.pop(next(iter(self.unknown)))
                return exc
        text = shown(str(name)) if isinstance(name, str) else repr(name)
        return HansaError(f"unknown game {text}{did_you_mean(str(name), self.entries)}")

    def _quick_unknown(self, name: object) -> bool:
        """Whether `name` is no game and its message is at hand (caller holds the lock)."""
        spec = self.spec_dir is not None and self.spec_dir.is_dir()
        return not isinstance(name, str) or not spec or name in self.unknown

    def game(self, name: object, players: object = None) -> Game:
        return Game(self.module(name), players)  # Game checks the player count

    def layout(self, name: object) -> dict:
        from .board import board_layout

        module = self.module(name)
        with self.lock:
            cached = self.layouts.get(module.GAME_NAME)
        if cached is None:
            cached = describe_rules(module)
            cached["layout"] = board_layout(module, self.boards)
            with self.lock:
                self.layouts[module.GAME_NAME] = cached
        return cached

    def listing(self) -> dict:
        return {
            "games": [
                {
                    "name": e.name,
                    "source": e.source,
                    "players": list(e.players),
                    "rules": e.rules,
                    "board": e.board,
                }
                for e in self.entries.values()
            ],
            "seats": agent_names(),
            "spec": str(self.spec_dir) if self.spec_dir else None,
            "problems": self.problems,
        }


def describe_rules(module: ModuleType) -> dict:
    """What the page needs besides the board to show a desk: ability tracks, score categories."""
    ns = vars(module)
    return {
        "game": ns["GAME_NAME"],
        "rules": ns["RULES_NAME"],
        "board": ns["BOARD_ID"],
        "players": list(ns["PLAYER_COUNTS"]),
        "abilities": [
            {
                "name": name,
                "values": list(values),
                # the piece covering each space not yet uncovered ("t" trader, "m" merchant)
                "piece": "tm"[kind],
                "full_pp": full_pp,
            }
            for name, values, kind, full_pp in zip(
                ns["ABILITY_NAMES"],
                ns["ABILITY_VALUES"],
                ns.get("ABILITY_KIND", (0,) * len(ns["ABILITY_NAMES"])),
                ns.get("ABILITY_FULL_PP", (0,) * len(ns["ABILITY_NAMES"])),
                strict=True,
            )
        ],
        "pieces": {"traders": ns["TRADERS"], "merchants": ns["MERCHANTS"]},
        "markers": dict(zip(ns["MARKER_KEYS"], ns["MARKER_LABELS"], strict=True)),
        "permanent_markers": list(ns.get("PERMANENT_NAMES", ())),
        "favour_tiles": list(ns.get("FAVOUR_NAMES", ())),
        # the per-player values a rule may change (a favour tile's `your city pp becomes 4`):
        # the observation's key, the spec's name, the value before any rule changed it
        "parameters": [
            {"key": key, "label": label, "default": default}
            for key, label, default in zip(
                ns.get("X_PARAM_NAMES", ()),
                ns.get("X_PARAM_LABELS", ()),
                ns.get("X_PARAM_DEFAULTS", ()),
                strict=True,
            )
        ],
        "frames": list(ns.get("FRAME_NAMES", ())),
        "action_kinds": [[kind.lower(), base, size] for kind, base, size in ns["ACTION_RANGES"]],
        # the 2-player variant's regions: their names, the routes bordering each and its outline
        # (boundary walks of city numbers, between cities a route or a soldier joins)
        "regions": [
            {"label": label, "routes": list(routes), "outline": [list(w) for w in outline]}
            for label, routes, outline in zip(
                ns.get("REGION_LABELS", ()),
                ns.get("REGION_ROUTES", ()),
                ns.get("REGION_OUTLINES", ()),
                strict=True,
            )
        ],
        "score_keys": list(ns["SCORE_KEYS"]),
        "score_kinds": list(ns["SCORE_KINDS"]),
        "secret_score_keys": list(ns.get("SECRET_SCORE_KEYS", ())),
        "end_track_pp": ns.get("END_TRACK_PP", 0),
        "completed_cities": ns.get("END_COMPLETED_CITIES", 0),
    }


_TARGETS: dict[str, tuple[list[int], list[tuple[str, int]], dict]] = {}


def action_target(module: ModuleType, action: int) -> dict | None:
    """What action `action` acts on (a point, route, city, space, special space or ability
    track), so the page can offer it there; None for actions only offered in the list. Found per
    id from ACTION_RANGES (remembered per id asked for), so a game's size never matters."""
    key = module.__name__
    found = _TARGETS.get(key)
    if found is None:
        ranges = sorted(  # a kind without ids shares its base with the next kind: left out
            (base, kind) for kind, base, size in vars(module)["ACTION_RANGES"] if size
        )
        found = _TARGETS[key] = ([base for base, _ in ranges], ranges, {})
    starts, ranges, memo = found
    if action in memo:
        return memo[action]
    i = bisect.bisect_right(starts, action) - 1
    target = None
    if i >= 0 and 0 <= action < vars(module)["NUM_ACTIONS"]:
        base, kind = ranges[i]
        target = _target(kind, action - base)
    memo[action] = target
    return target


def action_kind(module: ModuleType, action: int) -> str | None:
    """The kind of action `action` (its ACTION_RANGES entry, lower case: "income", "place", …),
    which the page groups the choices by."""
    action_target(module, action)  # fills the per-module tables
    starts, ranges, _memo = _TARGETS[module.__name__]
    i = bisect.bisect_right(starts, action) - 1
    return ranges[i][1].lower() if i >= 0 else None


def _target(kind: str, i: int) -> dict | None:
    target = None
    if kind in POINT_KINDS:
        point, piece = divmod(i, 2) if POINT_KINDS[kind] == "pair" else (i, None)
        target = {"type": "point", "index": point}
        if piece is not None:
            target["piece"] = "tm"[piece]
    elif kind in ROUTE_KINDS:
        target = {"type": "route", "index": i}
    elif kind in CITY_KINDS:
        city, piece = divmod(i, 2)
        target = {"type": "city", "index": city, "piece": "tm"[piece]}
    elif kind == "EXCHANGE":
        target = {"type": "space", "index": i}
    elif kind == "SPECIAL":
        target = {"type": "special", "index": i}
    elif kind == "DEVELOP":
        target = {"type": "ability", "index": i}
    if target is not None:
        target["kind"] = kind.lower()
    return target


def turn_player(state) -> int:
    """The player whose turn it is (the turn player, not whoever decides a frame of it)."""
    return state.to_dict()["turn"]["player"]


def hidden_count(state) -> int:
    """How many things no one sees: the items of the full state's entries the public observation
    leaves out (the face-down markers, …) and every player's own secrets. A decision that
    changes it revealed something (it drew a marker); the count itself is public (the
    observation's `marker_supply_size`), so whether a decision may be taken back never depends
    on what the viewer cannot see."""
    full = state.to_dict()
    public = state.observation(0)
    count = 0
    for key, value in full.items():
        if key not in public:
            count += len(value) if isinstance(value, list | dict) else 1
    for p in range(state.num_players):
        count += len(state.observation(p)["own"])
    return count


# ---- one game in the browser
@dataclass(eq=False)
class Session:
    id: str
    game: Game
    mode: str  # "play" (from a seed), "replay" (a log, read only), "position" (a loaded state)
    seed: int | None  # secret while the game hides anything (views.revealed)
    seats: list[str]
    initial: object  # the state before the first decision
    tokens: dict[str, Viewer] = field(default_factory=dict)
    source_name: str | None = None  # the log or state file's name
    state: object = None
    agents: list = field(default_factory=list)
    moves: list[tuple[int, int]] = field(default_factory=list)
    snapshots: dict[int, object] = field(default_factory=dict)
    lock: threading.Lock = field(default_factory=threading.Lock)
    version: int = 0  # counts every change (a decision, agents starting or stopping)
    job: Job | None = None  # the agents' current work
    thinking: bool = False  # a pool worker is calling one of this session's agents
    thought: float = 0.0  # seconds its agents have thought, over all requests (the pool's order)
    listeners: set = field(default_factory=set)  # called (from any thread) on every change
    pool: AgentPool | None = None
    open_at: tuple = (None, False)  # (known, whether the game hides nothing): views.revealed
    store: object = None  # the Store its decisions are written to as they are made
    scores_at: dict = field(default_factory=dict)  # views.scoring, by (version, length, at)
    undo_known: tuple = (None, 0)  # undo_size's answer, by (version, length, seat)
    turn_facts: dict = field(default_factory=dict)  # _turn_facts' answers, by decision count
    talk: Talk = field(default_factory=Talk)  # the players' names and the chat
    summaries: dict = field(default_factory=dict)  # views.since_mine, by (version, length, seat)

    def __post_init__(self) -> None:
        self.state = self.initial.clone()
        self.snapshots[0] = self.initial.clone()
        self.tracker = GameTracker(self.game)
        self.agents = [
            None if name == HUMAN else make_agent(name, agent_seed(self.seed or 0, seat))
            for seat, name in enumerate(self.seats)
        ]

    # ---- changes and who hears of them
    def changed(self) -> None:
        self.version += 1
        for listener in list(self.listeners):
            listener()

    def listen(self, listener: Callable[[], None]) -> None:
        self.listeners.add(listener)

    def unlisten(self, listener: Callable[[], None]) -> None:
        self.listeners.discard(listener)

    # ---- making decisions
    def _apply(self, player: int, action: int) -> None:
        state = self.state
        if len(self.moves) >= MAX_DECISIONS:
            raise HansaError(f"this game has reached {MAX_DECISIONS} decisions, the most kept")
        legal = state.legal_actions()
        if action not in legal:
            state.apply_action(action)  # raises the engine's message, changing nothing
            raise HansaError(f"illegal action {action!r}")
        self.tracker.before(state, legal, player, action)
        state.apply_action(action)
        self.moves.append((player, action))
        if self.store is not None:
            self.store.add_move(self.id, len(self.moves) - 1, player, action)
        if len(self.moves) % SNAPSHOT_EVERY == 0:
            self.snapshots[len(self.moves)] = state.clone()

    def human_action(self, viewer: Viewer, action: object, expected_at: object = None) -> None:
        """A decision clicked in the page by the seat `viewer`; `expected_at` (the decision count
        the page saw) guards against a double click applying one action to the next decision."""
        self._require_live()
        if expected_at is not None and expected_at != len(self.moves):
            raise HansaError(
                f"the game has moved on (decision {len(self.moves)}, the page showed "
                f"{expected_at}): reload the position"
            )
        player = self.state.current_player()
        if self.seats[player] != HUMAN:
            raise HansaError(
                f"it is player {player}'s decision, and {self.seats[player]} plays that seat "
                "(ask the agent: POST …/agent)"
            )
        if viewer.role != SEAT:
            raise Refused(f"it is player {player}'s decision: only player {player}'s link decides")
        if viewer.seat != player:
            raise Refused(
                f"it is player {player}'s decision, and this is player {viewer.seat}'s link"
            )
        if isinstance(action, bool) or not isinstance(action, int):
            raise HansaError(f"illegal action {action!r}: an action is a whole number")
        self._apply(player, action)
        self.changed()

    # ---- names and chat (hansa.web.talk), kept with the game
    def rename(self, viewer: Viewer, token: str, name: object) -> None:
        seat, kept = self.talk.rename(viewer, token, name)
        if self.store is not None:
            self.store.add_name(self.id, seat, kept)
        self.changed()

    def say(self, viewer: Viewer, token: str, text: object) -> None:
        message = self.talk.say(viewer, token, text)
        if self.store is not None:
            self.store.add_message(self.id, message, KEPT_MESSAGES)
        self.changed()

    # ---- taking a decision back
    def undo_size(self, viewer: Viewer) -> int:
        """How many decisions `viewer`'s Undo takes back (0: none): its own seat's last decision
        and every decision made since, when all of them belong to the turn still being played
        (the turn player is the same at every position from before it to now) and none revealed
        anything hidden (as many things are hidden at each of those positions: no face-down
        marker drawn). The others' decisions in between are answers to it (an agent taking
        pieces from its stock, a displaced player's replacements) and are asked again; only the
        turn's own player may take back another person's answers with its decision. Everything
        looked at is public (who decided, whose turn, how many things are hidden), so the answer
        never depends on what the viewer cannot see. Asked once per change of the game."""
        if viewer.role != SEAT or self.mode == "replay" or not self.moves:
            return 0
        if self.state.is_terminal() or (self.job is not None and not self.job.finished):
            return 0
        key = (self.version, len(self.moves), viewer.seat)
        if self.undo_known[0] == key:
            return self.undo_known[1]
        size = self._undo_size(viewer.seat)
        self.undo_known = (key, size)
        return size

    def _undo_size(self, seat: int) -> int:
        if self.seats[seat] != HUMAN:
            return 0
        mine = [n for n, (player, _action) in enumerate(self.moves) if player == seat]
        if not mine:
            return 0
        first = mine[-1]
        later = [player for player, _action in self.moves[first + 1 :]]
        facts = self._turn_facts(first)
        owner = facts[0][0]
        if seat != owner and any(self.seats[p] == HUMAN and p != seat for p in later):
            return 0  # a displaced person may not take back the turn player's decisions
        if any(fact != facts[0] for fact in facts):
            return 0  # another turn began, or something hidden was revealed
        return len(self.moves) - first

    def _turn_facts(self, first: int) -> list[tuple[int, int]]:
        """(turn player, hidden count) at every position from `first` decisions to now; each
        position's are worked out once (a few milliseconds), when an Undo first asks."""
        facts, length = self.turn_facts, len(self.moves)
        missing = [n for n in range(first, length + 1) if n not in facts]
        if missing:
            start = missing[0]
            position = self.state_at(start)  # a fresh copy, or the live state when start == length
            for n in range(start, length + 1):
                if n > start:
                    position.apply_action(self.moves[n - 1][1])
                if n not in facts:
                    facts[n] = (turn_player(position), hidden_count(position))
        return [facts[n] for n in range(first, length + 1)]

    def undo(self, viewer: Viewer, expected_at: object = None) -> None:
        """Take back the last decision of `viewer`'s seat and the others' answers to it (see
        `undo_size`): the game is played again from its first position without them, in
        memory and in the store."""
        self._require_live()
        if expected_at is not None and expected_at != len(self.moves):
            raise HansaError(
                f"the game has moved on (decision {len(self.moves)}, the page showed "
                f"{expected_at}): reload the position"
            )
        size = self.undo_size(viewer)
        if not size:
            raise HansaError(
                "nothing to take back: only your own decisions of this turn can be taken "
                "back, while nothing hidden has been revealed since"
            )
        kept = self.moves[:-size]
        self.state = self.initial.clone()
        self.snapshots = {0: self.initial.clone()}
        self.tracker = GameTracker(self.game)
        self.moves = []
        store, self.store = self.store, None  # the kept decisions are stored already
        try:
            for player, action in kept:
                self._apply(player, action)
        finally:
            self.store = store
        if store is not None:
            store.truncate(self.id, len(self.moves))
        for n in [n for n in self.turn_facts if n > len(self.moves)]:
            del self.turn_facts[n]  # those positions are gone (the earlier ones are the same)
        self.changed()

    def start_agents(
        self, viewer: Viewer, steps: int, until_human: bool, delay: float = 0.0
    ) -> Job:
        """Ask the agents for up to `steps` decisions (all until a human's turn with
        `until_human`), made by the pool; replaces any work they were doing."""
        if not viewer.may_drive_agents:
            raise Refused("a spectator's link cannot ask the agents to move")
        self._require_live()
        player = self.state.current_player()
        if self.agents[player] is None and not until_human:
            raise HansaError(f"it is player {player}'s decision, and a human plays it")
        running = self.job
        if (
            until_human
            and running is not None
            and not running.finished
            and running.until_human
            and running.delay == delay
        ):
            return running  # several pages asking the same: the agents keep thinking
        self._cancel_job()
        steps = MAX_AGENT_STEPS if until_human else steps
        job = Job(steps=steps, until_human=until_human, delay=delay)
        self.job = job
        self.changed()
        if self.pool is None:
            raise HansaError("this session has no agent workers")  # a bug: Sessions sets it
        self.pool.submit(self, job)
        return job

    def stop_agents(self, viewer: Viewer) -> None:
        if not viewer.may_drive_agents:
            raise Refused("a spectator's link cannot stop the agents")
        if self._cancel_job():
            self.changed()

    def _cancel_job(self) -> bool:
        job = self.job
        if job is None or job.finished:
            return False
        job.cancelled = True
        job.finish("cancelled")
        return True

    def agent_turn(self, job: Job) -> float | None:
        """One decision of `job` (called by a pool worker): the delay before the next one, or
        None when the job is over. The agent thinks on a copy, outside the session's lock."""
        with self.lock:
            if job is not self.job or job.finished:
                return None
            if self.thinking:  # a cancelled job's decision is still being thought about
                return 0.01
            stop = self._stop_reason(job)
            if stop is not None:
                job.finish(stop)
                self.changed()
                return None
            player = self.state.current_player()
            agent = self.agents[player]
            position = self.state.clone()
            legal = list(self.state.legal_actions())
            length = len(self.moves)
            self.thinking = True
        started = time.monotonic()
        try:
            action = checked_step(
                agent, position, legal, f"agent {self.seats[player]} (player {player})"
            )
            error = None
        except HansaError as exc:  # a plug-in agent's bug or illegal choice: the game is kept
            action, error = None, exc.format()
        finally:
            spent = time.monotonic() - started
            with self.lock:
                self.thinking = False
                self.thought += spent
        with self.lock:
            if job is not self.job or job.finished or len(self.moves) != length:
                return None  # cancelled meanwhile: the choice is thrown away
            job.spent += spent
            if error is not None:
                job.finish("error", error)
                self.changed()
                return None
            try:
                self._apply(player, action)
            except HansaError as exc:
                job.finish("error", exc.format())
                self.changed()
                return None
            job.done += 1
            stop = self._stop_reason(job)
            if stop is not None:
                job.finish(stop)
            self.changed()
            return None if stop is not None else job.delay

    def _stop_reason(self, job: Job) -> str | None:
        if job.cancelled:
            return "cancelled"
        if self.state.is_terminal():
            return "over"
        if job.done >= job.steps:
            return "steps"
        if self.agents[self.state.current_player()] is None:
            return "human"
        if job.spent >= job.budget:
            return "budget"
        if len(self.moves) >= MAX_DECISIONS:
            return "decisions"
        return None

    def _require_live(self) -> None:
        if self.mode == "replay":
            raise HansaError("this game is a log opened for viewing: it cannot be played on")
        if self.state.is_terminal():
            raise HansaError("the game is over")

    def close(self) -> None:
        """The session is dropped: its agents stop, its listeners hear of it."""
        with self.lock:
            if self._cancel_job():
                self.changed()

    # ---- looking at it
    def state_at(self, at: int):
        if at == len(self.moves):
            return self.state
        start = max(k for k in self.snapshots if k <= at)
        state = self.snapshots[start].clone()
        for _player, action in self.moves[start:at]:
            state.apply_action(action)
        return state

    def log_text(self) -> str:
        """The game as a `hansa play --log` log (JSON lines), for `hansa replay`."""

        if self.seed is None:
            raise HansaError(
                "a game started from a loaded position has no log (a log starts from a seed)"
            )
        state = self.state
        breakdown = state.score_breakdown()
        record = GameRecord(
            seed=self.seed,
            players=self.game.num_players(),
            returns=[sum(b.values()) for b in breakdown],
            breakdown=breakdown,
            winners=state.winners(),
            end_trigger=self.tracker.end_trigger(state),
            turns=self.tracker.turns,
            decisions=len(self.moves),
            moves=list(self.moves),
        )
        header = header_for(self.game, self.seed, self.seats)
        return "\n".join(log_lines(self.game, header, record, state)) + "\n"


def check_seats(seats: object, players: int) -> list[str]:
    names = agent_names()
    if not isinstance(seats, list) or len(seats) != players:
        raise HansaError(f"seats: expected a list of {players} seat names ({', '.join(names)})")
    for i, seat in enumerate(seats):
        if not isinstance(seat, str) or seat not in names:
            raise HansaError(f"seats[{i}]: expected one of {', '.join(names)}, got {seat!r}")
    return list(seats)


def check_seed(seed: object) -> int:
    """The seed asked for; none given: a secret random one (the seed decides every draw)."""
    if seed is None:
        return secrets.randbelow(MAX_SEED + 1)
    if isinstance(seed, bool) or not isinstance(seed, int) or not 0 <= seed <= MAX_SEED:
        raise HansaError(f"seed: expected a whole number from 0 to {MAX_SEED}, got {seed!r}")
    return seed


class Sessions:
    """The live sessions, least recently used first; at most `limit` are kept.

    `token` makes session ids and tokens (tests pass a deterministic one); `pool` is where the
    agents of every session think; `store` (a `hansa.web.store.Store`) keeps every session and
    decision, so a session dropped from memory, or one of a server that was restarted, is found
    there (its decisions replayed) when it is asked for again.
    """

    def __init__(
        self,
        catalogue: Catalogue,
        limit: int = MAX_SESSIONS,
        pool: AgentPool | None = None,
        token: Callable[[], str] = new_token,
        store=None,
    ) -> None:
        self.catalogue = catalogue
        self.limit = limit
        self.pool = pool if pool is not None else AgentPool()
        self.token = token
        self.store = store
        self.items: OrderedDict[str, Session] = OrderedDict()
        self.lock = threading.Lock()
        self.restoring = threading.Lock()  # one session read back from the store at a time

    def _add(self, **fields) -> Session:
        seats = fields["seats"]
        human = [p for p, seat in enumerate(seats) if seat == HUMAN]
        if fields["mode"] == "replay":
            human = []  # a log is only looked at
        session = Session(
            id=self.token()[:16], tokens=make_tokens(human, self.token), pool=self.pool, **fields
        )
        return self.add(session)

    def add(self, session: Session, stored: bool = False) -> Session:
        session.pool = self.pool
        if self.store is not None:
            if not stored:
                self.store.add_session(session)
            session.store = self.store
        dropped = []
        with self.lock:
            self.items[session.id] = session
            while len(self.items) > self.limit:
                dropped.append(self.items.popitem(last=False)[1])
        for old in dropped:
            old.close()
        return session

    def get(self, sid: str) -> Session:
        session = self.in_memory(sid)
        if session is not None:
            return session
        if self.store is None or not isinstance(sid, str) or len(sid) > 64:
            raise KeyError(sid)
        with self.restoring:
            with self.lock:
                if sid in self.items:
                    return self.items[sid]
            stored = self.store.load(sid)
            if stored is None:
                raise KeyError(sid)
            try:
                session = self.restore(stored)
            except (HansaError, KeyError, TypeError, ValueError) as exc:
                reason = exc.message if isinstance(exc, HansaError) else repr(exc)
                raise HansaError(
                    f"the stored game {sid} cannot be played back (its rules module changed?): "
                    f"{reason}"
                ) from None
            return self.add(session, stored=True)

    def in_memory(self, sid: str) -> Session | None:
        """The session if it is in memory (asking is quick; `get` may read the store)."""
        with self.lock:
            session = self.items.get(sid)
            if session is not None:
                self.items.move_to_end(sid)
            return session

    def restore(self, stored) -> Session:
        """A stored session as it was: its first position and every decision made, replayed."""

        game = self.catalogue.game(stored.game, stored.players)
        session = Session(
            id=stored.id,
            game=game,
            mode=stored.mode,
            seed=stored.seed,
            seats=[HUMAN] * game.num_players() if stored.mode == "replay" else stored.seats,
            initial=game.state_from_json(stored.initial),
            tokens={t: Viewer(v["role"], v["seat"]) for t, v in stored.tokens.items()},
            source_name=stored.source,
        )
        for player, action in stored.moves:
            session._apply(player, action)
        session.seats = list(stored.seats)
        session.talk.restore(stored.names, stored.chat)
        return session

    def close(self) -> None:
        """The server stops: every session's agents stop and every listener hears of it."""
        self.pool.stop()
        with self.lock:
            sessions = list(self.items.values())
        for session in sessions:
            session.close()
            session.changed()

    def new_game(self, game_name: object, players: object, seed: object, seats: object) -> Session:
        game = self.catalogue.game(game_name, players)
        seed = check_seed(seed)
        seats = check_seats(seats, game.num_players())
        return self._add(
            game=game, mode="play", seed=seed, seats=seats, initial=game.new_initial_state(seed)
        )

    def open_log(self, text: str, name: str) -> Session:
        """A log, verified as `hansa replay` verifies it, opened for stepping through."""

        with _quoting(name, text):
            result = replay(name, self.catalogue.game, text=text)
        seats = _header_agents(text, result.game.num_players())
        session = Session(
            id="",
            game=result.game,
            mode="replay",
            seed=result.record.seed,
            seats=[HUMAN] * result.game.num_players(),
            initial=result.game.new_initial_state(result.record.seed),
            source_name=name,
        )
        for player, action in result.record.moves:
            session._apply(player, action)
        session.seats = seats
        session.agents = [None] * len(seats)
        session.id = self.token()[:16]
        session.tokens = make_tokens([], self.token)
        return self.add(session)

    def open_position(
        self, text: str, name: str, game_name: object, players: object, seats: object
    ) -> Session:
        """A state JSON, checked as `hansa score` checks it; played on from there."""

        with _quoting(name, text):
            data = parse_state_text(text, name)
            game, state = load_state(data, name, game_name, players, self.catalogue.game)
        if seats is None:
            seats = [HUMAN] * game.num_players()
        seats = check_seats(seats, game.num_players())
        return self._add(
            game=game, mode="position", seed=None, seats=seats, initial=state, source_name=name
        )


@contextmanager
def _quoting(name: str, text: str):
    """Errors about an uploaded file quote its lines from `text` (never from a file on disk that
    happens to have the upload's name), as the command line quotes the file."""
    try:
        yield
    except HansaError as exc:
        exc.sources = {name: text}
        raise


def _header_agents(text: str, players: int) -> list[str]:
    """The agent names a (verified) log's header gives, for display only."""

    try:
        agents = json.loads(text.lstrip().splitlines()[0]).get("agents")
    except (ValueError, IndexError, AttributeError):
        agents = None
    if (
        isinstance(agents, list)
        and len(agents) == players
        and all(isinstance(a, str) for a in agents)
    ):
        return [a[:40] for a in agents]
    return ["?"] * players
