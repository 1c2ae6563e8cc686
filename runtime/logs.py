"""Game logs: JSON lines that record a game so it can be replayed and checked step by step.

Line 1 is the header (game, players, seed, agents, the generated module's identity), then one line
per decision (`n`, `player`, `action`, `name`), then a footer (final returns, score breakdown,
winners, end trigger, turns and the final state in the documented state JSON). `replay` re-applies
the decisions to a fresh game from the header's seed and stops at the first line that disagrees
with the rules or with what the log claims, naming that line.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

from .atomic import write_atomically
from .errors import Diagnostic, HansaError, Span
from .game import Game
from .serialize import read_text_file
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


def log_lines(game: Game, header: dict, record: GameRecord, state) -> list[str]:
    lines = [json.dumps(header, ensure_ascii=False)]
    for n, (player, action) in enumerate(record.moves, start=1):
        entry = {
            "type": "decision",
            "n": n,
            "player": player,
            "action": action,
            "name": game.action_to_string(action),
        }
        lines.append(json.dumps(entry, ensure_ascii=False))
    lines.append(json.dumps(footer_for(record, state), ensure_ascii=False))
    return lines


def write_text_atomically(path: str, text: str) -> None:
    """Write through a temporary file in the same folder and rename: never a half-written file."""
    write_atomically(path, text)


def write_log(path: str, game: Game, header: dict, record: GameRecord, state) -> None:
    write_text_atomically(path, "\n".join(log_lines(game, header, record, state)) + "\n")


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


def read_log(path: str) -> GameLog:
    """Read and structurally check a log; every problem names the file and line."""
    raw = read_text_file(path)
    entries: list[LogLine] = []
    for number, text in enumerate(raw.splitlines(), start=1):
        if not text.strip():
            continue
        try:
            data = json.loads(text)
        except ValueError as exc:
            raise log_error(path, number, f"not valid JSON: {exc}", text) from None
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
    footer = None
    decisions = []
    for entry in entries[1:]:
        kind = entry.data.get("type")
        if footer is not None:
            raise log_error(path, entry.number, "nothing may follow the footer line", entry.text)
        if kind == "decision":
            _field(path, entry, "player", int, "a whole number")
            _field(path, entry, "action", int, "a whole number (an action id)")
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


def replay(path: str, loader) -> ReplayResult:
    """Re-apply a log to a fresh game and check every decision and the footer's claims.

    `loader(name, players)` gives the `Game` (normally `hansa.load_game`).
    """
    log = read_log(path)
    head = log.header.data
    game = loader(head["game"], head["players"])
    warnings = []
    recorded_hash = head.get("module_hash")
    current = describe_game(game)["module_hash"]
    if recorded_hash and current and recorded_hash != current:
        warnings.append(
            f"{path}:{log.header.number}: the log was written by another version of the "
            f"{game.name!r} rules module ({recorded_hash}, now {current})"
        )
    state = game.new_initial_state(head["seed"])
    recorded_deal = head.get("deal")
    if recorded_deal is not None and recorded_deal != state.deal():
        raise log_error(
            path,
            log.header.number,
            f"the log records the deal {recorded_deal}, but seed {head['seed']} deals "
            f"{state.deal()}",
            log.header.text,
        )
    tracker = GameTracker(game)
    moves: list[tuple[int, int]] = []
    for entry in log.decisions:
        data = entry.data
        player, action = data["player"], data["action"]
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
        if name is not None and name != actual:
            raise log_error(
                path,
                entry.number,
                f"action {action} is {actual!r}, but the log names it {name!r}",
                entry.text,
            )
        tracker.before(state, legal, player, action)
        state.apply_action(action)
        moves.append((player, action))
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
    _check_footer(path, log.footer, footer_for(record, state))
    return ReplayResult(game, state, record, warnings)


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
