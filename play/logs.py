"""Game logs: JSON lines that record a game so it can be replayed and checked step by step.

Line 1 is the header (game, players, seed, agents, the generated module's identity: rules, board
and the hash of the spec it was compiled from), then one line per decision (`n`, `player`,
`action`, `name`, `key`), then a footer (final returns, score breakdown,
winners, end trigger, turns and the final state in the documented state JSON). `replay` re-applies
the decisions to a fresh game from the header's seed and stops at the first line that disagrees
with the rules or with what the log claims, naming that line.

Decisions replay by `key`, the action's text with every route named in one fixed direction (its
cities in sorted order): `hansa fmt` reorders and turns routes, which renumbers action ids and
renames "Stendal–Perleberg #1" to "Perleberg–Stendal #3", but never changes a key. The header
holds the start position by name (`initial_state`), since the seed's setup follows the route order.
A log written before such a change replays after it (with a warning that the spec changed).

Lines are split at "\n" only, and the writer escapes the characters other programs (and Python's
`str.splitlines`) also take for line ends (U+0085, U+2028, U+2029), so a city of any name keeps
each record on its line.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

from hansa.runtime.errors import Diagnostic, HansaError, Span
from hansa.runtime.game import Game
from hansa.runtime.serialize import json_problem, read_text_file

from hansa.atomic import write_atomically

from .simulate import GameRecord, GameTracker, describe_game

LOG_FORMAT = "hansa-log"
LOG_VERSION = 1
SHOWN_LINE = 120  # characters of a bad log line quoted in an error


def _version() -> str:
    try:
        from importlib.metadata import version

        return version("hansa")
    except Exception:  # not installed (a source checkout): the log still works without it
        return "unknown"


def header_for(game: Game, seed: int, agents: list[str]) -> dict:
    identity = describe_game(game)
    return {
        "type": "header",
        "format": LOG_FORMAT,
        "version": LOG_VERSION,
        "game": game.name,
        "players": game.num_players(),
        "seed": seed,
        "deal": game.new_initial_state(seed).deal(),  # secret cards dealt at setup (may be {})
        "agents": list(agents),
        "rules": identity["rules"],
        "board": identity["board"],
        "module_hash": identity["module_hash"],
        "hansa_version": _version(),
        # the start position by name: the seed's setup follows the order routes are written in
        "initial_state": game.new_initial_state(seed).to_dict(),
    }


def footer_for(record: GameRecord, state) -> dict:
    return {
        "type": "footer",
        "finished": state.is_terminal(),
        "decisions": record.decisions,
        "turns": record.turns,
        "end_trigger": record.end_trigger,
        "returns": record.returns,
        "breakdown": record.breakdown,
        "winners": record.winners,
        "final_state": state.to_dict(),
    }


_LINE_BREAKS = {"\x85": "\\u0085", "\u2028": "\\u2028", "\u2029": "\\u2029"}


def json_line(data: dict) -> str:
    """One JSON record on one line: readable UTF-8, with the Unicode line separators escaped
    (json.dumps escapes only the ASCII controls; they are only ever inside strings)."""
    text = json.dumps(data, ensure_ascii=False)
    for char, escaped in _LINE_BREAKS.items():
        text = text.replace(char, escaped)
    return text


def _key_labels(game: Game) -> tuple[tuple[str, ...], tuple[str, ...]] | None:
    """The route and point labels of the keys: every route read in one fixed direction (its
    cities in sorted order, its points numbered from that end); None for a module without them."""
    cached = getattr(game, "_key_labels", None)
    if cached is not None:
        return cached or None
    ns = vars(game.module)
    labels: tuple = ()
    if all(k in ns for k in ("CITY_NAMES", "ROUTE_CITIES", "ROUTE_POINTS", "action_text")):
        cities, routes, points = ns["CITY_NAMES"], ns["ROUTE_CITIES"], ns["ROUTE_POINTS"]
        route_labels = []
        point_labels = [""] * sum(len(p) for p in points)
        for r, (a, b) in enumerate(routes):
            turned = cities[a] > cities[b]
            first, last = (cities[b], cities[a]) if turned else (cities[a], cities[b])
            label = f"{first}\u2013{last}"
            route_labels.append(label)
            n = len(points[r])
            for k, x in enumerate(points[r]):
                point_labels[x] = f"{label} #{n - k if turned else k + 1}"
        labels = (tuple(route_labels), tuple(point_labels))
    game._key_labels = labels
    return labels or None


def action_key(game: Game, action: int) -> str:
    """An action's stable identity: its text, with every route read in one fixed direction.

    Action ids and texts follow the order and direction routes are written in; the key does
    not, so it survives `hansa fmt` (and any reordering of a board file). It is made from the
    labels, never by editing the text, so it costs what the text costs and names one action (a
    city name cannot hold the '–' that joins a route's cities). A module without the route tables
    keys actions by their text.
    """
    labels = _key_labels(game)
    if labels is None:
        return game.action_to_string(action)
    return game.module.action_text(action, *labels)


def action_keys(game: Game) -> list[str]:
    """Every action's key (`action_key`), by id."""
    return [action_key(game, a) for a in range(game.num_distinct_actions())]


def log_lines(game: Game, header: dict, record: GameRecord, state) -> list[str]:
    lines = [json_line(header)]
    for n, (player, action) in enumerate(record.moves, start=1):
        entry = {
            "type": "decision",
            "n": n,
            "player": player,
            "action": action,
            "name": game.action_to_string(action),
            "key": action_key(game, action),
        }
        lines.append(json_line(entry))
    lines.append(json_line(footer_for(record, state)))
    return lines


def write_text_atomically(path: str, text: str) -> None:
    """Write through a temporary file in the same folder and rename: never a half-written file."""
    write_atomically(path, text)


# Characters other tools (and str.splitlines) take for line ends; json.dumps leaves them raw inside
# strings (a city named with U+2028), so they are written as JSON escapes: one entry, one line.
_LINE_BREAKERS = str.maketrans({ch: f"\\u{ord(ch):04x}" for ch in "\x85\u2028\u2029"})


def write_log(path: str, game: Game, header: dict, record: GameRecord, state) -> None:
    text = "\n".join(log_lines(game, header, record, state)) + "\n"
    write_text_atomically(path, text.translate(_LINE_BREAKERS))


# ---- reading
@dataclass
class LogLine:
    number: int  # 1-based line number in the file
    data: dict
    text: str


@dataclass
class GameLog:
    path: str
    header: LogLine
    decisions: list[LogLine]
    footer: LogLine | None


def log_error(path: str, line: int, message: str, text: str | None = None) -> HansaError:
    shown = None
    if text is not None:
        shown = text if len(text) <= SHOWN_LINE else text[: SHOWN_LINE - 1] + "…"
    return HansaError([Diagnostic(message, Span(path, line, 1), source_line=shown)])


def _field(path: str, entry: LogLine, key: str, kind: type | tuple[type, ...], what: str) -> Any:
    if key not in entry.data:
        raise log_error(path, entry.number, f"missing field {key!r} ({what})", entry.text)
    value = entry.data[key]
    if isinstance(value, bool) and bool not in (kind if isinstance(kind, tuple) else (kind,)):
        raise log_error(path, entry.number, f"field {key!r} must be {what}", entry.text)
    if not isinstance(value, kind):
        raise log_error(path, entry.number, f"field {key!r} must be {what}", entry.text)
    return value


def read_log(path: str, text: str | None = None) -> GameLog:
    """Read and structurally check a log; every problem names the file and line.

    `text` is the log's content when it did not come from a file (an upload), named `path`.
    """
    raw = read_text_file(path) if text is None else text
    entries: list[LogLine] = []
    for number, text in enumerate(raw.split("\n"), start=1):  # "\n" only: see the docstring
        text = text.removesuffix("\r")
        if not text.strip():
            continue
        try:
            data = json.loads(text)
        except (ValueError, RecursionError) as exc:
            message = json_problem(exc, text)[0]
            raise log_error(path, number, message, text) from None
        if not isinstance(data, dict):
            raise log_error(path, number, "expected a JSON object on each line", text)
        entries.append(LogLine(number, data, text))
    if not entries:
        raise HansaError(f"{path}: empty log (expected a header line)")
    header = entries[0]
    if header.data.get("type") != "header" or header.data.get("format") != LOG_FORMAT:
        raise log_error(
            path, header.number, f"the first line must be a {LOG_FORMAT} header", header.text
        )
    version = _field(path, header, "version", int, "a whole number")
    if version != LOG_VERSION:
        raise log_error(path, header.number, f"log version {version} is not supported", header.text)
    _field(path, header, "game", str, "a game name")
    _field(path, header, "players", int, "a whole number")
    _field(path, header, "seed", int, "a whole number")
    for key in ("rules", "board"):
        if key in header.data:
            _field(path, header, key, str, "a name")
    if "agents" in header.data:
        agents = header.data["agents"]
        if not (isinstance(agents, list) and all(isinstance(a, str) for a in agents)):
            raise log_error(
                path, header.number, "field 'agents' must list agent names", header.text
            )
    footer = None
    decisions = []
    for entry in entries[1:]:
        kind = entry.data.get("type")
        if footer is not None:
            raise log_error(path, entry.number, "nothing may follow the footer line", entry.text)
        if kind == "decision":
            _field(path, entry, "player", int, "a whole number")
            _field(path, entry, "action", int, "a whole number (an action id)")
            for key in ("name", "key"):
                if key in entry.data:
                    _field(path, entry, key, str, "an action's text")
            expected_n = len(decisions) + 1
            if "n" in entry.data and _field(path, entry, "n", int, "a whole number") != expected_n:
                raise log_error(
                    path,
                    entry.number,
                    f"decision number n={entry.data['n']!r}, expected {expected_n} (a decision "
                    "is missing, repeated or out of order)",
                    entry.text,
                )
            decisions.append(entry)
        elif kind == "footer":
            footer = entry
        else:
            raise log_error(
                path,
                entry.number,
                f"unknown line type {kind!r} (expected 'decision' or 'footer')",
                entry.text,
            )
    return GameLog(path, header, decisions, footer)


# ---- replaying
@dataclass
class ReplayResult:
    game: Game
    state: Any
    record: GameRecord
    warnings: list[str] = field(default_factory=list)


def replay(path: str, loader, text: str | None = None) -> ReplayResult:
    """Re-apply a log to a fresh game and check every decision and the footer's claims.

    `loader(name, players)` gives the `Game` (normally `hansa.load_game`); `text`, when given, is
    the log's content (see `read_log`).
    """
    log = read_log(path, text)
    head = log.header.data
    try:
        game = loader(head["game"], head["players"])
    except HansaError as exc:  # an unknown game or player count: the header's line says so
        raise log_error(path, log.header.number, exc.message, log.header.text) from None
    warnings, same_module = _check_header(path, log, game)
    actions = _ActionIndex(game)
    state = _initial_state(path, log.header, game, same_module)
    tracker, moves = _replay_decisions(path, log, game, state, actions, same_module)
    breakdown = state.score_breakdown()
    record = GameRecord(
        seed=head["seed"],
        players=game.num_players(),
        returns=[sum(b.values()) for b in breakdown],
        breakdown=breakdown,
        winners=state.winners(),
        end_trigger=tracker.end_trigger(state),
        turns=tracker.turns,
        decisions=len(moves),
        moves=moves,
    )
    if log.footer is None:
        last = log.decisions[-1].number if log.decisions else log.header.number
        raise log_error(path, last, "the log ends here without its footer line (truncated?)", None)
    footer = log.footer
    if not same_module and isinstance(footer.data.get("final_state"), dict):
        # the state JSON names routes and cities, but lists them in the module's order: read it
        try:
            claimed = game.state_from_json(footer.data["final_state"]).to_dict()
        except HansaError as exc:
            raise log_error(
                path, footer.number, f"the footer's final_state: {exc.message}", footer.text
            ) from None
        footer = LogLine(footer.number, {**footer.data, "final_state": claimed}, footer.text)
    _check_footer(path, footer, footer_for(record, state))
    return ReplayResult(game, state, record, warnings)


def _check_header(path: str, log, game: Game) -> tuple[list[str], bool]:
    """The header's claims against the game (agents, rules, board): (warnings, whether the log
    was written by this very rules module)."""
    head = log.header.data
    warnings = []
    identity = describe_game(game)
    if "agents" in head and len(head["agents"]) != game.num_players():
        raise log_error(
            path,
            log.header.number,
            f"field 'agents' names {len(head['agents'])} agents for {game.num_players()} players",
            log.header.text,
        )
    for key in ("rules", "board"):
        if key in head and head[key] != identity[key]:
            raise log_error(
                path,
                log.header.number,
                f"the log is of a game with {key} {head[key]!r}, but game {game.name!r} is "
                f"now played with {key} {identity[key]!r}",
                log.header.text,
            )
    recorded_hash = head.get("module_hash")
    current = identity["module_hash"]
    same_module = not (recorded_hash and current and recorded_hash != current)
    if not same_module:
        warnings.append(
            f"{path}:{log.header.number}: the log was written by another version of the "
            f"{game.name!r} rules module ({recorded_hash}, now {current}); its decisions are "
            "matched by their text"
        )
    return warnings, same_module


def _replay_decisions(path: str, log, game: Game, state, actions, same_module: bool):
    """Apply the log's decisions to `state`, each checked (whose it is, legal, its name); the
    deal first when the header records it. (tracker, moves)."""
    head = log.header.data
    recorded_deal = head.get("deal")
    if recorded_deal is not None:
        dealt = game.new_initial_state(head["seed"]).deal()
        if recorded_deal != dealt or recorded_deal != state.deal():
            raise log_error(
                path,
                log.header.number,
                f"the log records the deal {recorded_deal}, but seed {head['seed']} deals {dealt}",
                log.header.text,
            )
    tracker = GameTracker(game)
    moves: list[tuple[int, int]] = []
    for entry in log.decisions:
        data = entry.data
        player, action = data["player"], _identify(path, entry, actions, same_module)
        if state.is_terminal():
            raise log_error(
                path,
                entry.number,
                "the game is already over; this decision cannot follow",
                entry.text,
            )
        expected = state.current_player()
        if player != expected:
            raise log_error(
                path,
                entry.number,
                f"the log says player {player} decides, but it is player {expected}'s decision",
                entry.text,
            )
        legal = state.legal_actions()
        if action not in legal:
            try:
                state.apply_action(action)
            except HansaError as exc:
                raise log_error(path, entry.number, exc.message, entry.text) from None
            raise log_error(path, entry.number, f"illegal action {action}", entry.text)
        name = data.get("name")
        actual = game.action_to_string(action)
        if same_module and name is not None and name != actual:
            raise log_error(
                path,
                entry.number,
                f"action {action} is {actual!r}, but the log names it {name!r}",
                entry.text,
            )
        tracker.before(state, legal, player, action)
        state.apply_action(action)
        moves.append((player, action))
    return tracker, moves


def _initial_state(path: str, header: LogLine, game: Game, same_module: bool):
    """The start position: the seed's, which the header's `initial_state` (if any) must match;
    from the header's state alone when the module changed (routes reordered: the seed then puts
    the start markers elsewhere)."""
    seeded = game.new_initial_state(header.data["seed"])
    recorded = header.data.get("initial_state")
    if recorded is None:
        return seeded
    try:
        start = game.state_from_json(recorded)
    except HansaError as exc:
        raise log_error(
            path, header.number, f"the header's initial_state: {exc.message}", header.text
        ) from None
    if same_module and start != seeded:
        raise log_error(
            path,
            header.number,
            "the header's initial_state is not the start position of its seed",
            header.text,
        )
    return start


class _ActionIndex:
    """A game's actions by key and by text, for a replay. A decision names its id, so the key of
    that id is compared first; the maps of every key and text are made only when one must be
    searched (a log of another version of the module)."""

    def __init__(self, game: Game):
        self.game = game
        self._by_key: dict[str, int] | None = None
        self._by_name: dict[str, int] | None = None

    def key(self, action: int) -> str:
        if 0 <= action < self.game.num_distinct_actions():
            return action_key(self.game, action)
        return f"<no action {action}>"

    def by_key(self, key: str) -> int | None:
        if self._by_key is None:
            self._by_key = {k: a for a, k in enumerate(action_keys(self.game))}
        return self._by_key.get(key)

    def by_name(self, name: str) -> int | None:
        if self._by_name is None:
            n = self.game.num_distinct_actions()
            self._by_name = {self.game.action_to_string(a): a for a in range(n)}
        return self._by_name.get(name)


def _identify(path: str, entry: LogLine, actions: _ActionIndex, same_module: bool) -> int:
    """The action a decision means: by its key, else by its text, else (same module) its id."""
    data = entry.data
    if "key" in data:
        if same_module and actions.key(data["action"]) == data["key"]:
            return data["action"]
        found = actions.by_key(data["key"])
        if found is None:
            raise log_error(
                path, entry.number, f"no action {data['key']!r} in this game", entry.text
            )
    elif not same_module and "name" in data:
        found = actions.by_name(data["name"])
        if found is None:
            raise log_error(
                path, entry.number, f"no action {data['name']!r} in this game", entry.text
            )
    else:
        return data["action"]
    if same_module and found != data["action"]:
        raise log_error(
            path,
            entry.number,
            f"action {data['action']} is {actions.key(data['action'])!r}, but the log names it "
            f"{data['key']!r} (action {found})",
            entry.text,
        )
    return found


def _check_footer(path: str, footer: LogLine, actual: dict) -> None:
    """Every field the footer states must be what the replay produced."""
    for key, value in footer.data.items():
        if key == "type":
            continue
        if key not in actual:
            raise log_error(path, footer.number, f"unknown footer field {key!r}", footer.text)
        if value != actual[key]:
            detail = _first_difference(value, actual[key], key)
            raise log_error(
                path,
                footer.number,
                f"the footer's {detail} does not match the replayed game",
                footer.text,
            )


def _first_difference(claimed: Any, actual: Any, where: str) -> str:
    """The path of the first differing value, with both values when they are short."""
    if isinstance(claimed, dict) and isinstance(actual, dict):
        for key in list(claimed) + [k for k in actual if k not in claimed]:
            if claimed.get(key) != actual.get(key):
                return _first_difference(claimed.get(key), actual.get(key), f"{where}.{key}")
    elif isinstance(claimed, list) and isinstance(actual, list) and len(claimed) == len(actual):
        for i, (a, b) in enumerate(zip(claimed, actual, strict=True)):
            if a != b:
                return _first_difference(a, b, f"{where}[{i}]")
    shown_claimed, shown_actual = json.dumps(claimed), json.dumps(actual)
    if len(shown_claimed) + len(shown_actual) < 80:
        return f"{where} ({shown_claimed}, replay gives {shown_actual})"
    return where
