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

import hashlib
import pickle
import random
import re
import types
from collections import OrderedDict
from dataclasses import dataclass, replace

from ..errors import Diagnostic, HansaError, Span
from ..model.build import build_model
from ..nodes.rules import mangle_module_name
from ..rules.checks import check_game
from ..targets.python.codegen import module_from_text, render_model


def _files_with_errors(diagnostics: list[Diagnostic]) -> set[str]:
    return {d.span.file for d in diagnostics if d.severity == "error" and d.span is not None}


def check_buildable(project) -> list[Diagnostic]:
    """Diagnostics of the build's model stage for every game that is otherwise clean."""

    resolved = getattr(project, "resolved_rulesets", {}) or {}
    memo = getattr(project, "build_memo", None) or BuildMemo()
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
        found = memo.findings(game, rules, board)
        if found.refused is not None:
            problems = list(found.refused)
        elif found.setup_refused:
            problems = list(found.at_setup)
        else:
            problems = [
                d
                for d in found.at_setup
                if d.span not in at_setup  # a rule set shared by games: one error
            ]
            at_setup.update(d.span for d in problems)
            if not problems:
                problems = found.never_ends(game, rules, board, memo)
        for d in problems:
            located = d if d.span is not None and d.span.line > 0 else _at_game(d, game.span)
            if located not in out:
                out.append(located)
    return out


@dataclass
class _Findings:
    """What the model stage found for one game: the build's refusal (None: it built), the end
    conditions true at setup (or the refusal met finding them), and whether it can end (None
    until asked when some condition holds at setup, since only then is it not needed)."""

    refused: tuple[Diagnostic, ...] | None
    at_setup: tuple[Diagnostic, ...] = ()
    setup_refused: bool = False
    never: tuple[Diagnostic, ...] | None = None

    def never_ends(self, game, rules, board, memo: BuildMemo) -> list[Diagnostic]:
        if self.never is None:
            model = build_model(game, rules, board)
            self.never = _refusal_or(lambda: _never_ends(game, rules, board, model, memo))
        return list(self.never)


def _refusal_or(find) -> tuple[Diagnostic, ...]:
    try:
        return tuple(find())
    except HansaError as exc:
        return tuple(exc.diagnostics)


class BuildMemo:
    """What check ⇒ build found, kept between checks by a caller that checks again and again
    (`hansa lsp`): each game's findings by exactly what its model is built from (the pickled
    game, resolved rule set and board, spans and all, so a finding's location is never stale),
    the compiled top-level statements of the modules run in memory by their text, so games
    sharing a template share its compilation and an edit recompiles only the statements it
    changes, and what playing a module found (its setups, its stall search) by the module's text,
    so an edit that leaves a game's model as it was (a city moved on the board) plays nothing
    again. Each table is bounded (least recently used first out)."""

    def __init__(self, games: int = 256, statements: int = 4096, plays: int = 256) -> None:
        self.games: OrderedDict[bytes, _Findings] = OrderedDict()
        self.statements: OrderedDict[str, types.CodeType] = OrderedDict()
        self.plays: OrderedDict[bytes, object] = OrderedDict()
        self.limits = (games, statements, plays)
        self._pickled: dict[int, tuple[object, bytes]] = {}

    def played(self, asked: tuple, play):
        """`play()`'s result, kept by `asked` (a module's text and what was asked of it)."""
        key = hashlib.blake2b(repr(asked).encode("utf-8"), digest_size=32).digest()
        if key in self.plays:
            self.plays.move_to_end(key)
            return self.plays[key]
        found = play()
        _remember(self.plays, key, found, self.limits[2])
        return found

    def findings(self, game, rules, board) -> _Findings:
        key = self._key(game, rules, board)
        found = self.games.get(key) if key is not None else None
        if found is None:
            found = _find(game, rules, board, self)
            if key is not None:
                _remember(self.games, key, found, self.limits[0])
        else:
            self.games.move_to_end(key)
        return found

    def _key(self, *inputs) -> bytes | None:
        digest = hashlib.blake2b(digest_size=32)
        try:
            for part in inputs:
                digest.update(self._pickle(part))
                digest.update(b"\0")
        except (pickle.PicklingError, TypeError, AttributeError, RecursionError):
            return None  # not picklable: never cached, always built
        return digest.digest()

    def _pickle(self, part: object) -> bytes:
        """A declaration pickled, once per object while it lives (boards and rule sets are
        shared by games; the object is kept with its bytes so its id is not reused)."""
        kept = self._pickled.get(id(part))
        if kept is not None and kept[0] is part:
            return kept[1]
        data = pickle.dumps(part, protocol=pickle.HIGHEST_PROTOCOL)
        if len(self._pickled) >= 4 * self.limits[0]:
            self._pickled.clear()
        self._pickled[id(part)] = (part, data)
        return data

    def compiled(self, statement: str) -> types.CodeType:
        code = self.statements.get(statement)
        if code is None:
            # compiled here as codegen's module_from_text compiles a whole module, with the
            # future flags of the compiling module (both have `annotations`)
            code = compile(statement, _STATEMENT_FILE, "exec")
            _remember(self.statements, statement, code, self.limits[1])
        else:
            self.statements.move_to_end(statement)
        return code


def _remember(table: OrderedDict, key, value, limit: int) -> None:
    table[key] = value
    while len(table) > limit:
        table.popitem(last=False)


def _find(game, rules, board, memo: BuildMemo) -> _Findings:
    try:
        model = build_model(game, rules, board)
    except HansaError as exc:
        return _Findings(refused=tuple(exc.diagnostics))
    try:
        setup = tuple(_ends_at_setup(game, rules, board, model, memo))
    except HansaError as exc:
        return _Findings(refused=None, at_setup=tuple(exc.diagnostics), setup_refused=True)
    found = _Findings(refused=None, at_setup=setup)
    if not setup:  # the usual case: ask now, while the model is at hand
        found.never = _refusal_or(lambda: _never_ends(game, rules, board, model, memo))
    return found


# ---------------------------------------------------------------- a module run in memory, quickly

_STATEMENT_FILE = "<generated statement>"
# a line that starts a top-level statement: not indented, not closing a bracket, not a comment,
# not a clause continuing one (else, except, …) and not a bare string (which, first in a piece
# compiled alone, would become its docstring)
_CONTINUES = re.compile(r"[ \t\n)\]}#]|(?:else|elif|except|finally)\b|[rRbBuUfF]{0,2}[\"']")


def _statements(text: str) -> list[tuple[int, str]]:
    """The module's text cut before each top-level statement: (first line, its text)."""
    pieces: list[tuple[int, str]] = []
    current: list[str] = []
    first = quotes = 0  # quotes: triple quotes opened in the piece so far (odd: inside one)
    for number, line in enumerate(text.splitlines(keepends=True), 1):
        if (
            current
            and not _CONTINUES.match(line)
            and not current[-1].startswith("@")  # a decorator goes with what it decorates
            and quotes % 2 == 0
        ):
            pieces.append((first, "".join(current)))
            current, quotes = [], 0
        if not current:
            first = number
        current.append(line)
        quotes += line.count('"""') + line.count("'''")
    if current:
        pieces.append((first, "".join(current)))
    return pieces


def _placed(code: types.CodeType, lines: int, file: str) -> types.CodeType:
    """A statement's code (compiled from line 1) moved down to its line in the module's file
    (line numbers are relative to `co_firstlineno`), so a traceback reads as the whole's."""
    inner = tuple(
        _placed(c, lines, file) if isinstance(c, types.CodeType) else c for c in code.co_consts
    )
    return code.replace(
        co_firstlineno=code.co_firstlineno + lines, co_consts=inner, co_filename=file
    )


def _run_module(text: str, module_name: str, label: str, memo: BuildMemo):
    """`module_from_text`, statement by statement: each top-level statement compiled once per
    text (BuildMemo) and run in order in the module's namespace, as the whole module would be.
    A text the cut does not fit (a piece that does not compile alone) is compiled whole."""
    file = f"<generated {label}>"
    try:
        codes = [
            _placed(memo.compiled(piece), first - 1, file) for first, piece in _statements(text)
        ]
    except SyntaxError:
        return module_from_text(text, module_name, label)
    module = types.ModuleType(module_name)
    module.__dict__["__generated_text__"] = text
    for code in codes:
        exec(code, module.__dict__)
    return module


# Setup positions tried per player count: the seed fixes only the bonus-marker draw.
_SETUP_SEEDS = (0, 1, 2)


def _ends_at_setup(
    game, rules, board, model=None, memo: BuildMemo | None = None
) -> list[Diagnostic]:
    """An error at each `end when` condition in words that holds in a setup position of the game:
    found by compiling the game in memory and evaluating its own end test on the real setup
    (after every `at setup:` rule), the way a played game would, for every allowed player count."""
    ends = {r.key.removeprefix("end:"): r for r in rules.hook_rules if r.hook == "end"}
    if not ends:
        return []

    text = _module_text(game, rules, board, model)

    def holding() -> dict[str, int]:  # condition -> the first player count where it holds
        module = _check_module(game, text, memo)
        found: dict[str, int] = {}
        for players in game.players:
            for seed in _SETUP_SEEDS:
                state = module.new_initial_state(players, seed)
                for name in state.end_conditions_met():
                    if name in ends:
                        found.setdefault(name, players)
        return found

    asked = ("setup", text, tuple(game.players), tuple(sorted(ends)), _SETUP_SEEDS)
    found = _played(memo, asked, holding)
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


def _never_ends(game, rules, board, model=None, memo: BuildMemo | None = None) -> list[Diagnostic]:
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

    text = _module_text(game, rules, board, model)
    players = min(game.players)  # one short playout per game (a stall comes once pieces run out)
    stall = _played(
        memo,
        ("stall", text, players, PLAYOUT_SEED, PLAYOUT_DECISIONS),
        lambda: _stall(_check_module(game, text, memo), players, PLAYOUT_SEED),
    )
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


def _module_text(game, rules, board, model) -> str:
    """The text of the game's module as check runs it: rendered from its model alone (no sources,
    so no spec hash that changes with every keystroke; nothing the module does reads it), so two
    builds of one model give one text, and what a text does can be kept by the text."""
    return render_model(model or build_model(game, rules, board), {}, None)


def _check_module(game, text: str, memo: BuildMemo | None):
    """The game's module compiled and run in memory."""
    name = f"hansa.generated._check_{mangle_module_name(game.name)}"
    label = f"{game.name} (check)"
    if memo is None:
        return module_from_text(text, name, label)
    return _run_module(text, name, label, memo)


def _played(memo: BuildMemo | None, asked: tuple, play):
    """What playing a module found (its setups, its stall search), kept by the module's text and
    the question (`asked`), which are all it depends on."""
    if memo is None:
        return play()
    return memo.played(asked, play)


def _at_game(diagnostic: Diagnostic, span: Span) -> Diagnostic:

    return replace(diagnostic, span=span)
