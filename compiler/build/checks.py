"""check ⇒ build: every game `hansa check` accepts must compile.

The code generator refuses some inputs the language checks cannot see alone (a board feature the
templates do not implement yet, a bonus-marker name that makes no module constant, …). Rather than
keep a second copy of each such rule, `check` runs the model stage of the build on every game
whose rule set, board and declaration passed the other checks, and reports what it refuses at the
place it names (the offending statement, city or route, else the game's declaration).

A game whose rule set ends the game in words (`end when CONDITION`) is also compiled in memory and
set up for each of its player counts: a condition that already holds in the setup position would
end every game before its first decision, which no author means (`end when players > 0`).

A game that can never end is flagged too. Statically, where it is certain: without Create Route
nothing draws a marker, completes a city or (unless a rule in words gains PP) scores PP, so a
rule set without it and without an end condition in words cannot end (an error). Where it is not
certain (an action removed, a `forbid` rule), one short seeded random playout per game (its
smallest player count) looks for a stall: a position reached again while every decision since was
the only legal one, so play would go round that cycle for ever (a warning naming the seed).
"""

from __future__ import annotations

from ..errors import Diagnostic, HansaError, Span
import random
from dataclasses import replace
from ..model.build import build_model
from ..nodes.rules import mangle_module_name
from ..rules.checks import check_game
from ..targets.python.codegen import build_game_module, module_from_text


def _files_with_errors(diagnostics: list[Diagnostic]) -> set[str]:
    return {d.span.file for d in diagnostics if d.severity == "error" and d.span is not None}


def check_buildable(project) -> list[Diagnostic]:
    """Diagnostics of the build's model stage for every game that is otherwise clean."""

    resolved = getattr(project, "resolved_rulesets", {}) or {}
    failed_files = _files_with_errors(project.diagnostics)
    out: list[Diagnostic] = []
    at_setup: set = set()  # spans of end conditions found true at setup (one error each)
    for game in project.games.values():
        rules = resolved.get(game.rules)
        board = project.boards.get(game.board)
        if rules is None or board is None:
            continue  # reported by the rules checks
        if board.span.file in failed_files or game.span.file in failed_files:
            continue  # one mistake, one error: the board's or the game's own errors stand
        if any(d.severity == "error" for d in check_game(game, resolved, project.boards)):
            continue
        try:
            build_model(game, rules, board)
            problems = [
                d
                for d in _ends_at_setup(game, rules, board, project.sources)
                if d.span not in at_setup  # a rule set shared by games: one error
            ]
            at_setup.update(d.span for d in problems)
            if not problems:
                problems = _never_ends(game, rules, board, project.sources)
        except HansaError as exc:
            problems = exc.diagnostics
        for d in problems:
            located = d if d.span is not None and d.span.line > 0 else _at_game(d, game.span)
            if located not in out:
                out.append(located)
    return out


# Setup positions tried per player count: the seed fixes only the bonus-marker draw.
_SETUP_SEEDS = (0, 1, 2)


def _ends_at_setup(game, rules, board, sources: dict[str, str]) -> list[Diagnostic]:
    """An error at each `end when` condition in words that holds in a setup position of the game:
    found by compiling the game in memory and evaluating its own end test on the real setup
    (after every `at setup:` rule), the way a played game would, for every allowed player count."""
    ends = {r.key.removeprefix("end:"): r for r in rules.hook_rules if r.hook == "end"}
    if not ends:
        return []

    text = build_game_module(game, rules, board, sources)
    name = f"hansa.generated._check_{mangle_module_name(game.name)}"
    module = module_from_text(text, name, f"{game.name} (check)")
    found: dict[str, int] = {}  # condition -> the first player count where it holds at setup
    for players in game.players:
        for seed in _SETUP_SEEDS:
            state = module.new_initial_state(players, seed)
            for name in state.end_conditions_met():
                if name in ends:
                    found.setdefault(name, players)
    return [
        Diagnostic(
            f"end condition '{name}' already holds at setup (game {game.name!r}, {players} "
            "players): every game would end before its first decision",
            ends[name].span,
        )
        for name, players in found.items()
    ]


# The stall search: decisions per playout (a random playout of the Big Box does not end by itself,
# so running out of decisions says nothing; only a proven cycle is reported).
PLAYOUT_DECISIONS = 2000
PLAYOUT_SEED = 0
_ACTIONS = ("income", "place", "displace", "move", "create_route")


def _never_ends(game, rules, board, sources: dict[str, str]) -> list[Diagnostic]:
    """An error when nothing can end the game; else, for a rule set that takes an action away or
    forbids one, a warning when a seeded random playout reaches a cycle of forced decisions."""
    has_route = any(type(a).__name__ == "CreateRoute" for a in rules.actions)
    words_ends = any(r.hook == "end" for r in rules.hook_rules)
    gains_pp = any(e.kind == "gain_pp" for r in rules.hook_rules for e in r.effects)
    if not has_route and not words_ends and not (gains_pp and rules.end_triggers):
        return [
            Diagnostic(
                f"game {game.name!r} can never end: without Create Route no end trigger of its"
                " rule set can fire (no marker is drawn, no city completed, no PP scored); add"
                " an end condition in words (`end when turn number >= 60`)",
                game.span,
            )
        ]
    forbids = any(r.hook == "forbid" for r in rules.hook_rules)
    if len(rules.actions) >= len(_ACTIONS) and not forbids:
        return []  # every action of the game and none forbidden: the editions' own play

    text = build_game_module(game, rules, board, sources)
    name = f"hansa.generated._check_{mangle_module_name(game.name)}"
    module = module_from_text(text, name, f"{game.name} (check)")
    players = min(game.players)  # one short playout per game (a stall comes once pieces run out)
    stall = _stall(module, players, PLAYOUT_SEED)
    if stall is not None:
        decisions, forced = stall
        return [
            Diagnostic(
                f"game {game.name!r} may never end: a random playout ({players} players,"
                f" seed {PLAYOUT_SEED}) reached, after {decisions} decisions, a position"
                f" from which only {forced!r} is ever legal, round and round",
                game.span,
                severity="warning",
            )
        ]
    return []


def _stall(module, players: int, seed: int) -> tuple[int, str] | None:
    """(decisions played, the forced decision) when a seeded random playout comes back to a
    position with only forced decisions in between (a cycle play never leaves), else None."""

    rng = random.Random(seed)
    state = module.new_initial_state(players, seed)
    seen: set[str] = set()
    for decision in range(PLAYOUT_DECISIONS):
        if state.is_terminal():
            return None
        legal = state.legal_actions()
        if len(legal) == 1:
            position = state.to_json()
            if position in seen:
                return decision, state.action_to_string(legal[0])
            seen.add(position)
        else:
            seen.clear()
        state.apply_action(rng.choice(legal))
    return None


def _at_game(diagnostic: Diagnostic, span: Span) -> Diagnostic:

    return replace(diagnostic, span=span)
