"""Games held server-side for `hansa serve`: the catalogue of games and the live sessions.

A session is one game in the browser: a game played from a seed (seats human or agent), a game
log opened for stepping through (read only), or a position loaded from a state JSON. It keeps the
decisions made so far, so any earlier position can be shown (rebuilt from a snapshot every
`SNAPSHOT_EVERY` decisions) and the game can be saved as a `hansa play --log` log. Nothing here
imports a web framework: `hansa.web.app` puts these objects behind HTTP.
"""

from __future__ import annotations

import secrets
import threading
from collections import OrderedDict
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from types import ModuleType

import hansa
from hansa.compiler.errors import HansaError
from hansa.play.simulate import (
    AGENTS,
    GameRecord,
    GameTracker,
    agent_seed,
    checked_step,
    make_agent,
)
from hansa.runtime.game import Game

HUMAN = "human"
MAX_SESSIONS = 100  # live games kept; the least recently used one is dropped beyond this
SNAPSHOT_EVERY = 64
MAX_AGENT_STEPS = 20_000  # decisions one request may let agents make
MAX_SEED = 2**63 - 1

# Action kinds (the generated modules' ACTION_RANGES) by what they act on, and how the id within
# the kind maps to that thing: "pair" ids come in (thing, trader/merchant) pairs.
POINT_KINDS = {"PLACE": "pair", "DISPLACE": "pair", "PICK": "one", "DROP": "one", "REMOVE": "one"}
POINT_KINDS |= {"PLACE_DISPLACED": "one", "LIFT": "one"}
ROUTE_KINDS = {"CREATE", "PLACE_MARKER"}
CITY_KINDS = {"ESTABLISH", "ADDITIONAL"}


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

    return load_game(name, None, spec_dir).module


class Catalogue:
    """Every game the server offers; modules are loaded (or compiled) once, on first use."""

    def __init__(self, spec_dir: str | Path | None = "spec") -> None:
        self.spec_dir = Path(spec_dir) if spec_dir is not None else None
        self.entries: dict[str, GameEntry] = {}
        self.modules: dict[str, ModuleType] = {}
        self.layouts: dict[str, dict] = {}
        self.lock = threading.Lock()
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
        entry = self.entries.get(name) if isinstance(name, str) else None
        if entry is None:
            from hansa.compiler.errors import did_you_mean

            if isinstance(name, str) and self.spec_dir is not None and self.spec_dir.is_dir():
                from hansa.resolve import load_game

                load_game(name, None, self.spec_dir)  # raises the CLI's message for an unknown name
            raise HansaError(f"unknown game {name!r}{did_you_mean(str(name), self.entries)}")
        with self.lock:
            module = self.modules.get(entry.name)
            if module is None:
                if entry.source == "spec":
                    module = compile_spec_game(entry.name, self.spec_dir)
                else:
                    module = self._built(entry.name)
                self.modules[entry.name] = module
            return module

    def game(self, name: object, players: object = None) -> Game:
        return Game(self.module(name), players)  # Game checks the player count

    def layout(self, name: object) -> dict:
        from .board import board_layout

        module = self.module(name)
        with self.lock:
            cached = self.layouts.get(module.GAME_NAME)
            if cached is None:
                cached = self.layouts[module.GAME_NAME] = describe_rules(module)
                cached["layout"] = board_layout(module, self.boards)
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
            {"name": name, "values": list(values)}
            for name, values in zip(ns["ABILITY_NAMES"], ns["ABILITY_VALUES"], strict=True)
        ],
        "score_keys": list(ns["SCORE_KEYS"]),
        "score_kinds": list(ns["SCORE_KINDS"]),
        "end_track_pp": ns.get("END_TRACK_PP", 0),
        "completed_cities": ns.get("END_COMPLETED_CITIES", 0),
    }


_TARGETS: dict[int, list] = {}


def action_targets(module: ModuleType) -> list[dict | None]:
    """For each action id, what it acts on (a point, route, city, space, special space or ability
    track), so the page can offer it there; None for actions only offered in the list."""
    cached = _TARGETS.get(id(module))
    if cached is not None:
        return cached
    ns = vars(module)
    out: list[dict | None] = [None] * ns["NUM_ACTIONS"]
    for kind, base, size in ns["ACTION_RANGES"]:
        for i in range(size):
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
            out[base + i] = target
    _TARGETS[id(module)] = out
    return out


# ---- one game in the browser
@dataclass
class Session:
    id: str
    game: Game
    mode: str  # "play" (from a seed), "replay" (a log, read only), "position" (a loaded state)
    seed: int | None
    seats: list[str]
    initial: object  # the state before the first decision
    state: object = None
    agents: list = field(default_factory=list)
    moves: list[tuple[int, int]] = field(default_factory=list)
    snapshots: dict[int, object] = field(default_factory=dict)
    source_name: str | None = None  # the log or state file's name
    lock: threading.Lock = field(default_factory=threading.Lock)

    def __post_init__(self) -> None:
        self.state = self.initial.clone()
        self.snapshots[0] = self.initial.clone()
        self.tracker = GameTracker(self.game)
        self.agents = [
            None if name == HUMAN else make_agent(name, agent_seed(self.seed or 0, seat))
            for seat, name in enumerate(self.seats)
        ]

    # ---- making decisions
    def _apply(self, player: int, action: int) -> None:
        state = self.state
        legal = state.legal_actions()
        if action not in legal:
            state.apply_action(action)  # raises the engine's message, changing nothing
            raise HansaError(f"illegal action {action!r}")
        self.tracker.before(state, legal, player, action)
        state.apply_action(action)
        self.moves.append((player, action))
        if len(self.moves) % SNAPSHOT_EVERY == 0:
            self.snapshots[len(self.moves)] = state.clone()

    def human_action(self, action: object, expected_at: object = None) -> None:
        """A decision clicked in the page; `expected_at` (the decision count the page saw) guards
        against a double click applying one action to the next decision."""
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
        if isinstance(action, bool) or not isinstance(action, int):
            raise HansaError(f"illegal action {action!r}: an action is a whole number")
        self._apply(player, action)

    def agent_steps(self, steps: int, until_human: bool) -> int:
        """Let the agents make up to `steps` decisions (all until a human's turn when asked)."""
        self._require_live()
        done = 0
        limit = MAX_AGENT_STEPS if until_human else steps
        while done < limit and not self.state.is_terminal():
            player = self.state.current_player()
            agent = self.agents[player]
            if agent is None:
                if done == 0 and not until_human:
                    raise HansaError(f"it is player {player}'s decision, and a human plays it")
                break
            legal = self.state.legal_actions()
            # a plug-in agent's bug or illegal choice: one message saying whose; the game is kept
            action = checked_step(
                agent, self.state, legal, f"agent {self.seats[player]} (player {player})"
            )
            self._apply(player, action)
            done += 1
        return done

    def _require_live(self) -> None:
        if self.mode == "replay":
            raise HansaError("this game is a log opened for viewing: it cannot be played on")
        if self.state.is_terminal():
            raise HansaError("the game is over")

    # ---- looking at it
    def state_at(self, at: int):
        if at == len(self.moves):
            return self.state
        start = max(k for k in self.snapshots if k <= at)
        state = self.snapshots[start].clone()
        for _player, action in self.moves[start:at]:
            state.apply_action(action)
        return state

    def view(self, at: object = None, since: object = 0) -> dict:
        """The page's picture of the game at decision `at` (default: now)."""
        length = len(self.moves)
        at = length if at is None else at
        if isinstance(at, bool) or not isinstance(at, int) or not 0 <= at <= length:
            raise HansaError(f"at: expected a decision number from 0 to {length}, got {at!r}")
        if isinstance(since, bool) or not isinstance(since, int) or not 0 <= since <= length:
            raise HansaError(f"since: expected a decision number from 0 to {length}, got {since!r}")
        state = self.state_at(at)
        terminal = state.is_terminal()
        player = state.current_player()
        live = at == length and self.mode != "replay" and not terminal
        legal = []
        targets = action_targets(self.game.module)
        if live:
            legal = [
                {"id": a, "name": state.action_to_string(a), "target": targets[a]}
                for a in state.legal_actions()
            ]
        breakdown = state.score_breakdown()
        game = self.game
        return {
            "id": self.id,
            "game": game.name,
            "players": game.num_players(),
            "mode": self.mode,
            "seed": self.seed,
            "seats": self.seats,
            "source": self.source_name,
            "at": at,
            "length": length,
            "state": state.to_dict(),
            "current_player": None if terminal else player,
            "terminal": terminal,
            "decision": state._decision_name(),
            "waiting_for": None
            if not live
            else (HUMAN if self.seats[player] == HUMAN else "agent"),
            "legal": legal,
            "scores": {
                "breakdown": breakdown,
                "totals": [sum(b.values()) for b in breakdown],
                "winners": state.winners(),
                "final": terminal,
            },
            "history": [
                {
                    "n": n,
                    "player": p,
                    "action": a,
                    "name": game.action_to_string(a),
                    "target": targets[a],
                }
                for n, (p, a) in enumerate(self.moves[since:], start=since + 1)
            ],
            "end_trigger": self.tracker.end_trigger(self.state) if at == length else None,
            "turns": self.tracker.turns if at == length else None,
            "can_download_log": self.seed is not None,
        }

    def log_text(self) -> str:
        """The game as a `hansa play --log` log (JSON lines), for `hansa replay`."""
        from hansa.play.logs import header_for, log_lines

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
    if isinstance(seed, bool) or not isinstance(seed, int) or not 0 <= seed <= MAX_SEED:
        raise HansaError(f"seed: expected a whole number from 0 to {MAX_SEED}, got {seed!r}")
    return seed


class Sessions:
    """The live sessions, least recently used first; at most `limit` are kept."""

    def __init__(self, catalogue: Catalogue, limit: int = MAX_SESSIONS) -> None:
        self.catalogue = catalogue
        self.limit = limit
        self.items: OrderedDict[str, Session] = OrderedDict()
        self.lock = threading.Lock()

    def _add(self, **fields) -> Session:
        session = Session(id=secrets.token_hex(8), **fields)
        with self.lock:
            self.items[session.id] = session
            while len(self.items) > self.limit:
                self.items.popitem(last=False)
        return session

    def get(self, sid: str) -> Session:
        with self.lock:
            session = self.items.get(sid)
            if session is None:
                raise KeyError(sid)
            self.items.move_to_end(sid)
            return session

    def new_game(self, game_name: object, players: object, seed: object, seats: object) -> Session:
        game = self.catalogue.game(game_name, players)
        seed = check_seed(seed)
        seats = check_seats(seats, game.num_players())
        return self._add(
            game=game, mode="play", seed=seed, seats=seats, initial=game.new_initial_state(seed)
        )

    def open_log(self, text: str, name: str) -> Session:
        """A log, verified as `hansa replay` verifies it, opened for stepping through."""
        from hansa.play.logs import replay

        with _quoting(name, text):
            result = replay(name, self.catalogue.game, text=text)
        head_agents = _header_agents(text, result.game.num_players())
        session = self._add(
            game=result.game,
            mode="replay",
            seed=result.record.seed,
            seats=[HUMAN] * result.game.num_players(),
            initial=result.game.new_initial_state(result.record.seed),
            source_name=name,
        )
        session.seats = head_agents
        for player, action in result.record.moves:
            session._apply(player, action)
        return session

    def open_position(
        self, text: str, name: str, game_name: object, players: object, seats: object
    ) -> Session:
        """A state JSON, checked as `hansa score` checks it; played on from there."""
        from hansa.commands.score import load_state, parse_state_text

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
    import json

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
