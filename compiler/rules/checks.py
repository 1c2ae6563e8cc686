"""Rule checks: a resolved rule set on its own, and a game (rule set + board + player counts).

`check_ruleset` finds what makes a rule set inconsistent whatever the board (roles, cross
references, piece counts, tables); `resolve` (resolve.py) refuses a rule set with such errors.
`check_game` finds what does not fit between a rule set and a board (abilities the board offers,
tavern routes for the start markers, the completed-cities trigger, the setup for the largest player
count); whether the game then compiles is the build stage's check (compiler/build/checks.py).
`stage.py` runs it all over a project's rule sets and games. Every problem is a `Diagnostic` with
the span of the offending spec text.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import replace

from ..board.regions import check_pawn
from ..errors import Diagnostic, Span, did_you_mean
from ..expr.check import check_hook_rules, missing_place, named_places, places_of
from ..nodes.board import Board
from ..nodes.rules import ABILITY_ROLES, PIECE_KINDS, Game, RuleSet, mangle_module_name
from .catalogue import CATALOGUE, MARKER_PARAMS, kinds, table_problems

_ACTION_NAMES = {
    "Income": "income",
    "Place": "place",
    "Displace": "displace",
    "Move": "move",
    "CreateRoute": "create_route",
}


def _error(message: str, span: Span | None) -> Diagnostic:
    return Diagnostic(message, span)


def _warning(message: str, span: Span | None) -> Diagnostic:
    return Diagnostic(message, span, severity="warning")


def pieces_on_tracks(ruleset: RuleSet) -> dict[str, int]:
    """Pieces of each kind covering the ability tracks at setup (one per value after the first)."""
    counts = dict.fromkeys(PIECE_KINDS, 0)
    for ability in ruleset.abilities:
        counts[ability.covered_by] = counts.get(ability.covered_by, 0) + len(ability.values) - 1
    return counts


def pieces_left(ruleset: RuleSet) -> dict[str, int]:
    """Pieces of each kind per player left for supply and stock after tracks and score marker."""
    assert ruleset.pieces is not None
    on_tracks = pieces_on_tracks(ruleset)
    total = {"trader": ruleset.pieces.traders, "merchant": ruleset.pieces.merchants}
    if ruleset.pieces.score_marker is not None:
        total[ruleset.pieces.score_marker] -= 1
    return {k: total[k] - on_tracks[k] for k in PIECE_KINDS}


def check_ruleset(ruleset: RuleSet) -> list[Diagnostic]:
    """Consistency of one resolved rule set, independent of any board."""
    out: list[Diagnostic] = []
    out += _check_abilities(ruleset)
    out += _check_pieces(ruleset)
    out += _check_actions(ruleset)
    out += _check_bonus_markers(ruleset)
    out += _check_end_and_scoring(ruleset)
    out += _check_tiebreak(ruleset)
    out += _check_options(ruleset)
    out += check_hook_rules(ruleset)  # rules in words (compiler/expr/check.py)
    return out


def _check_abilities(ruleset: RuleSet) -> list[Diagnostic]:
    out: list[Diagnostic] = []
    by_role: dict[str, str] = {}
    seen: set[str] = set()
    for ability in ruleset.abilities:
        if ("ability", ability.name) not in CATALOGUE:
            out.append(
                _error(
                    "unknown ability"
                    f" '{ability.name}'{did_you_mean(ability.name, kinds('ability'))}",
                    ability.span,
                )
            )
        if ability.name in seen:
            out.append(_error(f"ability {ability.name} is declared twice", ability.span))
        seen.add(ability.name)
        if ability.covered_by not in PIECE_KINDS:
            out.append(
                _error(
                    f"ability {ability.name}: covered_by must be one of {', '.join(PIECE_KINDS)}",
                    ability.span,
                )
            )
        if not ability.values:
            out.append(_error(f"ability {ability.name} has no values", ability.span))
        if ability.role not in ABILITY_ROLES:
            out.append(
                _error(
                    f"ability {ability.name}: unknown role"
                    f" '{ability.role}'{did_you_mean(ability.role, ABILITY_ROLES)}",
                    ability.span,
                )
            )
        elif ability.role in by_role:
            out.append(
                _error(
                    f"abilities {by_role[ability.role]} and {ability.name} both drive"
                    f" {ability.role}; each role needs exactly one",
                    ability.span,
                )
            )
        else:
            by_role[ability.role] = ability.name
    if ruleset.abilities:
        for role in ABILITY_ROLES:
            if role not in by_role:
                out.append(
                    _error(f"no ability drives {role} (every role needs one ability)", ruleset.span)
                )
    return out


def _check_pieces(ruleset: RuleSet) -> list[Diagnostic]:
    if ruleset.pieces is None:
        return []
    out: list[Diagnostic] = []
    on_tracks = pieces_on_tracks(ruleset)
    for kind, left in pieces_left(ruleset).items():
        if left < 0:
            marker = " and the score marker" if ruleset.pieces.score_marker == kind else ""
            have = ruleset.pieces.traders if kind == "trader" else ruleset.pieces.merchants
            out.append(
                _error(
                    f"the ability tracks{marker} need {on_tracks[kind] + (1 if marker else 0)}"
                    f" {kind}s per player,"
                    f" but pieces gives only {have} (shorten a track or add pieces)",
                    ruleset.pieces.span,
                )
            )
    return out


def _check_actions(ruleset: RuleSet) -> list[Diagnostic]:
    out: list[Diagnostic] = []
    seen: set[str] = set()
    for action in ruleset.actions:
        kind = _ACTION_NAMES.get(type(action).__name__, type(action).__name__)
        if kind in seen:
            out.append(_error(f"action {kind} is declared twice", action.span))
        seen.add(kind)
        fallback = getattr(action, "fallback", None)
        if fallback is not None and not fallback:
            out.append(_error("action displace needs at least one fallback source", action.span))
        awards = getattr(action, "east_west_awards", None)
        if awards is not None and list(awards) != sorted(awards, reverse=True):
            out.append(
                _warning(
                    "east_west_awards usually fall: a later link scores more than an earlier one",
                    action.span,
                )
            )
    return out


def _check_bonus_markers(ruleset: RuleSet) -> list[Diagnostic]:
    out: list[Diagnostic] = []
    ability_names = {a.name for a in ruleset.abilities}
    for marker in ruleset.bonus_markers:
        comp = CATALOGUE.get(("bonus", marker.kind))
        if comp is None:
            out.append(
                _error(
                    f"bonus marker kind '{marker.kind}' has no effect (not in the catalogue)"
                    f"{did_you_mean(marker.kind, kinds('bonus'))}",
                    marker.span,
                )
            )
            continue
        given = {name for name, _value in marker.params}
        for param in comp.params:
            if param.required and param.name not in given:
                out.append(
                    _error(f"bonus {marker.kind} lacks parameter '{param.name}'", marker.span)
                )
        for name, _value in marker.params:
            if comp.param(name) is None:
                out.append(
                    _error(
                        f"bonus {marker.kind} has no parameter"
                        f" '{name}'{did_you_mean(name, comp.param_names)}",
                        marker.span,
                    )
                )
        if marker.count < 1:
            out.append(
                _error(f"bonus {marker.name or marker.kind}: count must be at least 1", marker.span)
            )
        if not 0 <= marker.start <= marker.count:
            out.append(
                _error(
                    f"bonus {marker.name or marker.kind}: start {marker.start} must be between 0"
                    f" and count {marker.count}",
                    marker.span,
                )
            )
        ability = marker.param("ability")
        if (
            marker.kind == "develop_ability"
            and ability not in ("any", None)
            and ability not in ability_names
        ):
            out.append(
                _error(
                    f"bonus develop_ability names ability '{ability}', which this rule set"
                    f" lacks{did_you_mean(ability, ability_names)}",
                    marker.span,
                )
            )
        for name in ("count",):
            value = marker.param(name)
            if value is not None and comp.param(name) is not None and value < 1:
                out.append(_error(f"bonus {marker.kind}: {name} must be at least 1", marker.span))
    assert {p.name for p in MARKER_PARAMS} == {"count", "start"}
    return out


def _check_end_and_scoring(ruleset: RuleSet) -> list[Diagnostic]:
    out: list[Diagnostic] = []
    for trigger in ruleset.end_triggers:
        if ("end", trigger.kind) not in CATALOGUE:
            out.append(
                _error(
                    "unknown end trigger"
                    f" '{trigger.kind}'{did_you_mean(trigger.kind, kinds('end'))}",
                    trigger.span,
                )
            )
        elif trigger.kind == "track_pp" and (trigger.threshold is None or trigger.threshold < 1):
            out.append(_error("end trigger track_pp needs a threshold of at least 1", trigger.span))
        elif (
            trigger.kind == "completed_cities"
            and trigger.threshold is not None
            and trigger.threshold < 1
        ):
            out.append(
                _error("end trigger completed_cities needs a threshold of at least 1", trigger.span)
            )
    keys: set[str] = set()
    for category in ruleset.scoring:
        if not (len(category.key) == 1 and "A" <= category.key <= "Z"):
            out.append(
                _error(
                    f"score category key '{category.key}' must be one capital letter A-Z"
                    " (it names the category in score breakdowns)",
                    category.span,
                )
            )
        if category.key in keys:
            out.append(_error(f"score category {category.key} is declared twice", category.span))
        keys.add(category.key)
        if ("score", category.kind) not in CATALOGUE:
            out.append(
                _error(
                    "unknown scoring kind"
                    f" '{category.kind}'{did_you_mean(category.kind, kinds('score'))}",
                    category.span,
                )
            )
            continue
        comp = CATALOGUE[("score", category.kind)]
        given = {name for name, _value in category.params}
        for param in comp.params:
            if param.required and param.name not in given:
                out.append(
                    _error(f"score {category.key} lacks parameter '{param.name}'", category.span)
                )
        table = category.param("table")
        if category.kind == "bonus_markers":
            for _index, message in table_problems(tuple(table or ())):
                out.append(_error(f"score {category.key} table: {message}", category.span))
    return out


def _check_tiebreak(ruleset: RuleSet) -> list[Diagnostic]:
    out: list[Diagnostic] = []
    abilities = {a.name for a in ruleset.abilities}
    # a step names a category by kind (`most score network`) or by key (`most score F`, which
    # also names a category written in words)
    score_kinds = {c.kind for c in ruleset.scoring} | {c.key for c in ruleset.scoring}
    score_kinds |= {r.target for r in ruleset.hook_rules if r.hook == "score"}
    for index, step in enumerate(ruleset.tiebreak):
        if step.rule == "shared":
            if index != len(ruleset.tiebreak) - 1:
                out.append(
                    _error("'shared' ends the tie-break chain; nothing can follow it", step.span)
                )
            continue
        if step.rule not in ("fewest", "most"):
            out.append(
                _error(f"unknown tie-break rule '{step.rule}' (fewest, most or shared)", step.span)
            )
        elif step.what == "ability" and step.name not in abilities:
            out.append(
                _error(
                    f"tie-break names ability '{step.name}', which this rule set"
                    f" lacks{did_you_mean(step.name, abilities)}",
                    step.span,
                )
            )
        elif step.what == "score" and step.name not in score_kinds:
            out.append(
                _error(
                    f"tie-break names score category '{step.name}', which this rule set"
                    f" lacks{did_you_mean(step.name, score_kinds)}",
                    step.span,
                )
            )
        elif step.what not in ("ability", "score", "expr"):
            out.append(
                _error(
                    f"tie-break step must compare an ability or a score, not '{step.what}'",
                    step.span,
                )
            )
    return out


def _check_options(ruleset: RuleSet) -> list[Diagnostic]:
    out: list[Diagnostic] = []
    for option in ruleset.options:
        comp = CATALOGUE.get(("option", option.name))
        if comp is None:
            out.append(
                _error(
                    f"unknown option '{option.name}'{did_you_mean(option.name, kinds('option'))}",
                    option.span,
                )
            )
            continue
        param_type = comp.params[0].type
        ok = (
            isinstance(option.value, bool)
            if param_type.expected == "yes or no"
            else option.value in param_type.choices
        )
        if not ok:
            out.append(
                _error(
                    f"option {option.name}: expected {param_type.expected}, got {option.value!r}",
                    option.span,
                )
            )
    return out


# -------------------------------------------------------------------------------------------------
# Games.


def _counts_text(counts: list[int]) -> str:
    """Player counts in rising order, runs written as ranges: `1, 6..9`."""
    runs: list[list[int]] = []
    for count in sorted(counts):
        if runs and count == runs[-1][1] + 1:
            runs[-1][1] = count
        else:
            runs.append([count, count])
    return ", ".join(f"{a:,}" if a == b else f"{a:,}..{b:,}" for a, b in runs)


def check_game(
    game: Game,
    rulesets: Mapping[str, RuleSet],
    boards: Mapping[str, Board],
    board_has_errors: bool = False,
) -> list[Diagnostic]:
    """A game against its (resolved) rule set and board: names, player counts, fit to the board
    (not checked on a board with errors of its own: they are the mistake, said once)."""
    out: list[Diagnostic] = []
    ruleset = rulesets.get(game.rules)
    board = boards.get(game.board)
    if ruleset is None:
        out.append(
            _error(
                f"game {game.name}: unknown rule set"
                f" '{game.rules}'{did_you_mean(game.rules, list(rulesets))}",
                _at(game.rules_span, game),
            )
        )
    if board is None:
        out.append(
            _error(
                f"game {game.name}: unknown board"
                f" '{game.board}'{did_you_mean(game.board, list(boards))}",
                _at(game.board_span, game),
            )
        )
    if not game.players:
        out.append(_error(f"game {game.name} allows no player count", _at(game.players_span, game)))
    outside = [count for count in game.players if not 2 <= count <= 5]
    if outside:  # one error however many counts: `players 4..1000000` is one mistake
        out.append(
            _error(
                f"game {game.name}: {_counts_text(outside)} players; Hansa Teutonica is for 2 to 5",
                _at(game.players_span, game),
            )
        )
        # the rest is checked for the counts that can be played, so the mistake is said once
        game = replace(game, players=tuple(c for c in game.players if 2 <= c <= 5))
        if not game.players:
            return out
    if board is not None and board.players:
        printed = set(board.players) | set(board.original_edition_players)
        outside = [n for n in game.players if n not in printed]
        if outside:
            out.append(
                _warning(
                    f"game {game.name}: board {board.id} is printed for"
                    f" {_counts(sorted(printed))} players,"
                    f" not {_counts(outside)}",
                    _at(game.players_span, game),
                )
            )
    if ruleset is None or board is None or board_has_errors:
        return out
    out += _fit_rules_to_board(game, ruleset, board, boards)
    if ruleset.pawn is not None:
        out += check_pawn(board, ruleset.pawn.soldiers, ruleset.pawn.span, game.name)
        if any(count != 2 for count in game.players):
            out.append(
                _warning(
                    f"game {game.name}: the neutral pawn is a 2-player rule; with more players"
                    " the last seat places it and every player moves it",
                    _at(game.players_span, game),
                )
            )
    return out


def _fit_places(
    game: Game, ruleset: RuleSet, board: Board, boards: Mapping[str, Board]
) -> list[Diagnostic]:
    """The cities, routes and countries the rules in words name, on the game's board. A name no
    board of the project has is a misspelling: an error at the phrase, with the closest name of
    the board. One that other boards have but this board lacks is one error at the game's board,
    naming every such place: the rule set is meant for boards that have them."""
    named = named_places(ruleset)
    if not named:
        return []
    places = places_of(board)
    if any(-1 in ends for ends in places.routes):
        return []  # a route of the board names an unknown city: the board's error says so
    countries = tuple(c.lower() for c in board_countries(board))
    others = [
        (places_of(b), tuple(c.lower() for c in board_countries(b)))
        for b in boards.values()
        if b is not board
    ]
    out: list[Diagnostic] = []
    lacking: list[str] = []
    for kind, word, node in named:
        if not missing_place(kind, word, places, countries):
            continue
        if kind == "place" and all(p.city(word) is None for p, _c in others):
            continue  # `posts in NAME` of no city: a country, checked when the game is built
        having = next((p for p, c in others if not missing_place(kind, word, p, c)), None)
        if having is not None:
            what = {"city": "city", "route": "route", "pair": "cities", "place": "city"}[kind]
            where = f"{node.span.file}:{node.span.line}:{node.span.column}"
            lacking.append(f"{what} {_spelt(kind, word, having)} ({where})")
            continue
        out.append(_error(_misspelt(kind, word, [(places, countries), *others]), node.span))
    if lacking:
        out.append(
            _error(
                f"game {game.name}: rule set {ruleset.name} names places board {board.id} does"
                f" not have: {', '.join(dict.fromkeys(lacking))}; bind it to a board that has"
                " them",
                _at(game.board_span, game),
            )
        )
    return out


def _spelt(kind: str, word: str, places) -> str:
    """A place as the board that has it spells it (`Lübeck-Hamburg` for `lübeck-hamburg`)."""
    if kind in ("route", "pair"):
        a, b = places.pair(word)
        return f"{places.cities[a]}-{places.cities[b]}"
    city = places.city(word)
    return places.cities[city] if city is not None else word  # a country of that board


def _misspelt(kind: str, word: str, boards: list) -> str:
    """The error of a place no board has, with the closest name of any board."""
    if kind == "route":
        pair = next((p.pair(word) for p, _c in boards if p.pair(word) is not None), None)
        if pair is not None:
            places = next(p for p, _c in boards if p.pair(word) is not None)
            a, b = (places.cities[i] for i in pair)
            return f"no route joins {a} and {b} (a route is named by the two cities it joins)"
        choices = [name for p, _c in boards for name in p.route_names()]
        return (
            f"no board has a route '{word}'{did_you_mean(word, choices)} (a route is named by"
            " the two cities it joins, as `Hamburg-Lübeck`)"
        )
    cities = [name for p, _c in boards for name in p.cities]
    if kind == "pair":
        parts = word.split("-")
        unknown = next((x for x in parts if all(p.city(x) is None for p, _c in boards)), parts[0])
        return f"no board has a city '{unknown}'{did_you_mean(unknown, cities)} (in '{word}')"
    return f"no board has a city '{word}'{did_you_mean(word, cities)}"


def board_countries(board: Board) -> tuple[str, ...]:
    """Every country a board names (its list, its cities', its routes')."""
    names = [*board.countries, *(n for c in board.cities for n in c.countries)]
    names += [r.country for r in board.routes if r.country]
    return tuple(dict.fromkeys(names))


def _at(span: Span, game: Game) -> Span:
    """A part of the game declaration, or the whole declaration for games built in code."""
    return span if span.line > 0 else game.span


def _counts(numbers) -> str:
    return ", ".join(str(n) for n in numbers)


def _fit_rules_to_board(
    game: Game, ruleset: RuleSet, board: Board, boards: Mapping[str, Board]
) -> list[Diagnostic]:
    out: list[Diagnostic] = []
    for trigger in ruleset.end_triggers:
        if (
            trigger.kind == "completed_cities"
            and trigger.threshold is not None
            and trigger.threshold > len(board.cities)
        ):
            out.append(
                _error(
                    f"game {game.name}: the game ends at {trigger.threshold} completed cities,"
                    " but board"
                    f" {board.id} has only {len(board.cities)} cities (trigger at {trigger.span})",
                    game.span,
                )
            )
    abilities = {a.name for a in ruleset.abilities}
    for city in board.cities:
        for ability in city.abilities:
            if ability not in abilities:
                out.append(
                    _error(
                        f"game {game.name}: city {city.name} of board {board.id} offers ability"
                        f" {ability},"
                        f" which rule set {ruleset.name} does not define (city at {city.span})",
                        _at(game.board_span, game),
                    )
                )
    out.extend(_fit_missions(game, ruleset, board))
    out.extend(_fit_places(game, ruleset, board, boards))
    taverns = sum(1 for r in board.routes if r.tavern)
    starts = sum(m.start for m in ruleset.bonus_markers)
    if starts != taverns:
        out.append(
            _error(
                f"game {game.name}: rule set {ruleset.name} lays out {starts} start bonus"
                " markers, but board"
                f" {board.id} has {taverns} tavern routes",
                game.span,
            )
        )
    if ruleset.setup is not None and ruleset.pieces is not None and game.players:
        seat = max(game.players)
        left = pieces_left(ruleset)
        need = {
            "trader": ruleset.setup.personal_traders + ruleset.setup.per_seat_traders * seat,
            "merchant": ruleset.setup.personal_merchants,
        }
        for kind in PIECE_KINDS:
            if need[kind] > left[kind]:
                out.append(
                    _error(
                        f"game {game.name}: seat {seat} starts with {need[kind]} {kind}s in its"
                        " personal supply,"
                        f" but only {left[kind]} are left after the tracks (setup at"
                        f" {ruleset.setup.span})",
                        _at(game.players_span, game),
                    )
                )
    return out


def check_module_names(games: Mapping[str, Game]) -> list[Diagnostic]:
    """Two games whose names give one module name (`a-b` and `a_b`, `X` and `x`) would overwrite
    each other in generated/: refuse the later one at its declaration, so check ⇒ build."""
    out: list[Diagnostic] = []
    first: dict[str, Game] = {}
    for game in sorted(games.values(), key=lambda g: (g.span.file, g.span.line, g.name)):
        module = mangle_module_name(game.name)
        other = first.setdefault(module, game)
        if other is not game:
            out.append(
                _error(
                    f"game {game.name}: its module name {module} is the one of game"
                    f" {other.name} ({other.span}); rename one of them",
                    game.span,
                )
            )
    return out


def _fit_missions(game: Game, ruleset: RuleSet, board: Board) -> list[Diagnostic]:
    """Mission cards name cities of the game's board, and there is one card for every seat."""
    out: list[Diagnostic] = []
    names = [c.name for c in board.cities]
    names += [a for c in board.cities for a in c.aliases]
    for sc in ruleset.scoring:
        if sc.kind != "missions":
            continue
        cards = sc.param("cards", ())
        for number, cities in enumerate(cards, start=1):
            for city in cities:
                if city not in names:
                    out.append(
                        _error(
                            f"game {game.name}: mission card {number} names {city!r}, which is not"
                            f" a city of board {board.id}" + did_you_mean(city, names),
                            sc.span,
                        )
                    )
        if game.players and len(cards) < max(game.players):
            out.append(
                _error(
                    f"game {game.name}: {len(cards)} mission cards cannot be dealt to"
                    f" {max(game.players)} players",
                    sc.span,
                )
            )
    return out
