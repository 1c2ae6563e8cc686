"""A game that cannot end, found by playing it (`hansa check`).

The compiler's own checks catch what is certain without playing (no Create Route and no end
condition in words; a cycle of forced decisions). Whatever else makes a game endless — a `forbid`
rule that takes away the one way to score, an end condition no one can reach, a parameter set out
of reach — shows when the game is played: each game of the checked files (one per rule set and
board, at its smallest player count) is compiled in memory and played by seeded agents, greedy in
every seat first, then greedy and random players in turn; when neither playout ends within
`PLAYOUT_DECISIONS` decisions (a greedy Big Box game on the 3-player board ends in about 270), the
game is reported as a warning. The warning stands at the rule most likely responsible: the first
rule in words of the checked files (not the built-in rule set it extends) whose removal lets the
greedy playout end; else at the game's line.

Bounds: at most 2 playouts of `PLAYOUT_DECISIONS` decisions per game, plus one greedy playout per
candidate rule (at most `MAX_SUSPECTS`) for a game found endless. A greedy playout is quick (a
Big Box game of 244 decisions takes about 0.02 CPU seconds), and a game found to end is remembered
by the hash of its module's text in the user's cache folder (`HANSA_CACHE`, else
~/.cache/hansa/ends), so checking it again only writes its module's text (docs/rules-language.md,
"A game that cannot end", has the figures).
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass, replace
from pathlib import Path

from hansa.compiler import LIBRARY_DIR
from hansa.compiler.errors import Diagnostic, HansaError
from hansa.compiler.nodes.rules import mangle_module_name
from hansa.compiler.targets.python.codegen import build_game_module, module_from_text
from hansa.runtime.game import Game as LoadedGame

from hansa.resolve import cache_root

from .agents import RandomAgent
from .greedy import GreedyAgent

PLAYOUT_DECISIONS = 1500
MAX_SUSPECTS = 8
# The playouts: (seed, which seats play greedily; the others play at random).
LINEUPS = ((0, "all"), (1, "even"))


@dataclass(frozen=True)
class Playout:
    """What one bounded playout came to."""

    ended: bool
    decisions: int
    track_pp: tuple[int, ...]


def _agents(players: int, seed: int, greedy_seats: str) -> list:
    def greedy(seat: int) -> bool:
        return greedy_seats == "all" or seat % 2 == 0

    return [
        GreedyAgent(seed + seat) if greedy(seat) else RandomAgent(seed + seat)
        for seat in range(players)
    ]


def playout(module, players: int, seed: int, greedy_seats: str = "all") -> Playout:
    """One seeded playout of at most PLAYOUT_DECISIONS decisions."""
    state = LoadedGame(module, players).new_initial_state(seed)
    agents = _agents(players, seed, greedy_seats)
    decisions = 0
    while not state.is_terminal() and decisions < PLAYOUT_DECISIONS:
        legal = state.legal_actions()
        state.apply_action(agents[state.current_player()].step(state, legal))
        decisions += 1
    track = tuple(int(v) for v in state.track_pp())
    return Playout(state.is_terminal(), decisions, track)


def _module(game, rules, board, sources, text: str | None = None):
    text = text if text is not None else build_game_module(game, rules, board, sources)
    name = f"hansa.generated._endless_{mangle_module_name(game.name)}"
    return text, module_from_text(text, name, f"{game.name} (check)")


def _ends_file(text: str, players: int) -> Path:
    """Where a game found to end is remembered: its module text, the player count and the
    playouts' bounds, hashed (a changed rule, compiler or bound is a new game)."""
    key = f"{PLAYOUT_DECISIONS}:{LINEUPS}:{players}:{text}"
    return cache_root() / "ends" / hashlib.sha256(key.encode("utf-8")).hexdigest()[:32]


def _remember_it_ends(path: Path) -> None:
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text("ends\n", encoding="utf-8")
    except OSError:
        pass  # no writable cache folder: the game is played again next time


def _suspects(rules, own_files: set[str]) -> list:
    """Rules in words of the checked files, `forbid` rules first, then end conditions, then the
    rest: the order a stalled game's causes are usually found in."""
    order = {"forbid": 0, "end": 1}
    own = [
        r
        for r in rules.hook_rules
        if r.span.file in own_files and not Path(r.span.file).resolve().is_relative_to(LIBRARY_DIR)
    ]
    return sorted(own, key=lambda r: order.get(r.hook, 2))[:MAX_SUSPECTS]


def _blame(game, rules, board, sources, own_files: set[str], players: int):
    """The first suspect whose removal lets the greedy playout end, or None."""
    for rule in _suspects(rules, own_files):
        fewer = replace(rules, hook_rules=tuple(r for r in rules.hook_rules if r is not rule))
        try:
            _, module = _module(game, fewer, board, sources)
        except HansaError:
            continue  # a rule others need (a marker's `when used:`): not removable alone
        if playout(module, players, LINEUPS[0][0], LINEUPS[0][1]).ended:
            return rule
    return None


def endless_game(game, rules, board, sources: dict[str, str], own_files: set[str]):
    """A warning when no playout of the game ends within the bound, else None."""
    players = min(game.players)
    text = build_game_module(game, rules, board, sources)
    remembered = _ends_file(text, players)
    if remembered.is_file():
        return None
    _, module = _module(game, rules, board, sources, text)
    runs = []
    for seed, seats in LINEUPS:
        run = playout(module, players, seed, seats)
        if run.ended:
            _remember_it_ends(remembered)
            return None
        runs.append(run)
    culprit = _blame(game, rules, board, sources, own_files, players)
    pp = ", ".join(str(v) for v in runs[0].track_pp)
    said = (
        f"game {game.name!r} may never end: {len(runs)} seeded playouts ({players} players;"
        f" greedy, then greedy and random) stopped unfinished after {PLAYOUT_DECISIONS} decisions"
        f" each (track PP {pp})"
    )
    if culprit is not None:
        said += f"; without this rule the greedy playout ends (game {game.name!r})"
        return Diagnostic(said, culprit.span, severity="warning")
    return Diagnostic(said, game.span, severity="warning")


def endless_games(project) -> list[Diagnostic]:
    """The warnings of `endless_game` for the checked files' games that have no errors."""
    if project.errors:
        return []  # the playouts need every game built; errors come first
    resolved = getattr(project, "resolved_rulesets", {}) or {}
    own_files = {str(f) for f in project.files}
    seen: set[tuple[str, str]] = set()
    out = []
    for _, game in sorted(project.own("games").items()):
        rules, board = resolved.get(game.rules), project.boards.get(game.board)
        if rules is None or board is None or (game.rules, game.board) in seen:
            continue
        seen.add((game.rules, game.board))
        warning = endless_game(game, rules, board, project.sources, own_files)
        if warning is not None and warning not in out:
            out.append(warning)
    return out
