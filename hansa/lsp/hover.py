"""What the word under the cursor means, in Markdown, from the catalogues and the checked project.

Components, parameters, quantities, effects and hooks show the catalogues' own documentation
(compiler/rules/catalogue.py, compiler/expr/catalogue.py: the text docs/rules-language.md is
built from); a city its spaces, abilities and routes; a route its points; a rule set its
`extends` chain and what it changes against its parent (the edits `hansa diff` reports); a board
and a game what they are made of.
"""

from __future__ import annotations

from hansa.compiler.diff.edits import _city_summary, diff_rulesets, format_value
from hansa.compiler.errors import HansaError
from hansa.compiler.expr import catalogue as expr
from hansa.compiler.rules import catalogue
from hansa.compiler.rules.catalogue import CATALOGUE, spec_text
from hansa.compiler.rules.prelude import defined

from .symbols import Context, Symbol, cursor_at, symbol_at
from .text import Word
from .workspace import Snapshot

EFFECT_VERBS = {
    "gain": "gain_pp",
    "gains": "gain_pp",
    "lose": "lose_pp",
    "loses": "lose_pp",
    "develop": "develop",
    "develops": "develop",
    "take": "take",
    "takes": "take",
    "receive": "receive",
    "receives": "receive",
    "draw": "draw_keep",
    "choose": "display",
    "becomes": "set_param",
    "may": "may_take",
}
HOOK_WORDS = {
    ("at", "setup"): "setup",
    ("at", "turn", "start"): "turn_start",
    ("at", "turn", "end"): "turn_end",
    ("at", "marker", "draw"): "marker_draw",
    ("after", "create_route"): "after_create_route",
    ("after", "income"): "after_income",
    ("after", "place"): "after_place",
    ("after", "displace"): "after_displace",
    ("after", "use", "marker"): "after_use_marker",
    ("favour",): "favour",
    ("forbid",): "forbid",
    ("control",): "control",
    ("tiebreak",): "tiebreak",
}


# Statements whose words are all catalogue words (no rules in words inside them).
CATALOGUE_ONLY = frozenset(
    {"pieces", "setup", "markers", "pawn", "ability", "action", "option", "board_rules"}
    | {"permanent_marker"}
)


def _component_text(component) -> str:

    word = "end when" if component.section == "end" else component.section
    lines = [f"**{word} {component.kind}**", "", component.doc]
    if component.section == "ability":
        lines[-1] += f" Default role `{component.default_role}`."
    definition = defined(component.section, component.kind)
    if definition is not None:
        lines += ["", f"Prelude: `{definition.source}`"]
    if component.params:
        lines += ["", "Parameters:"]
        lines += [
            f"- `{p.name}`: {p.type.expected} ({spec_text(p.default)})"
            + (f" — {p.doc}" if p.doc else "")
            for p in component.params
        ]
    return "\n".join(lines)


def _param_text(component, param) -> str:

    where = "bonus"
    if component is not None:
        where = component.section
        if component.kind != component.section:
            where += f" {component.kind}"
    return (
        f"**{param.name}** (parameter of `{where}`)\n\n{param.type.expected},"
        f" default {spec_text(param.default)}" + (f"\n\n{param.doc}" if param.doc else "")
    )


def _section_of(words: list[Word]) -> str:
    values = [w.value for w in words]
    if values[:1] in (["replace"], ["remove"]) and len(values) > 1:
        return values[1]
    return values[0] if values else ""


def catalogue_hover(words: list[Word], index: int) -> str | None:
    """The catalogue's text for a statement keyword, component kind or parameter."""

    section = _section_of(words)
    value = words[index].value
    if section not in catalogue.SECTIONS:
        return None
    if section in catalogue.SINGLE_SECTIONS and index == 0:
        return _component_text(catalogue.CATALOGUE[(section, section)])
    if index == 0 or (words[0].value in ("replace", "remove") and index == 1):
        kinds = ", ".join(f"`{k}`" for k in catalogue.kinds(section))
        return f"**{section}** statement: one of {kinds}"
    comp = catalogue.CATALOGUE.get((section, value))
    if comp is not None:
        return _component_text(comp)
    kinds = set(catalogue.kinds(section))
    stated = next((w.value for w in words[1:index] if w.value in kinds), None)
    comp = catalogue.CATALOGUE.get((section, stated)) if stated else None
    if section in catalogue.SINGLE_SECTIONS:
        comp = catalogue.CATALOGUE.get((section, section))
    params = list(comp.params if comp else ())
    if section == "bonus":
        params += catalogue.MARKER_PARAMS
    for param in params:
        if param.name == value:
            return _param_text(comp, param)
    return None


def words_hover(words: list[Word], index: int) -> str | None:
    """A quantity, effect or hook of rules in words, from the expression catalogue."""

    values = [w.value.lower() for w in words]
    for length in (4, 3, 2, 1):
        for start in range(max(0, index - length + 1), index + 1):
            phrase = " ".join(values[start : start + length])
            quantity = expr.QUANTITIES.get(phrase)
            if quantity is not None and start + length > index:
                return (
                    f"**{quantity.name}** (quantity, {quantity.type})\n\n{quantity.doc}\n\n"
                    f"Example: `{quantity.example}`"
                )
    for key, hook in HOOK_WORDS.items():
        if tuple(values[: len(key)]) == key and index < len(key) and hook in expr.HOOK_DOCS:
            example, doc = expr.HOOK_DOCS[hook]
            return f"**{' '.join(key)}** (hook)\n\n{doc}\n\nExample: `{example}`"
    effect = EFFECT_VERBS.get(values[index])
    if effect == "gain_pp" and index + 2 < len(values) and values[index + 2].startswith("action"):
        effect = "extra_actions"
    if effect in expr.EFFECTS:
        example, hooks, doc = expr.EFFECTS[effect]
        where = ", ".join(hooks)
        return f"**{values[index]}** (effect)\n\n{doc}\n\nIn: {where}\n\nExample: `{example}`"
    if values[index] in expr.DOMAINS:
        return f"**{values[index]}**: a set to count or add up over (`count cities where …`)"
    return None


def _city_text(snapshot: Snapshot, symbol: Symbol) -> str:

    board = snapshot.project.boards.get(symbol.owner)
    city = next(c for c in board.cities if c.name == symbol.name)
    routes = [
        f"{r.cities[1] if r.cities[0] == city.name else r.cities[0]} ({len(r.points)})"
        for r in board.routes
        if city.name in r.cities
    ]
    lines = [
        f"**city {city.name}** (board `{board.id}`)",
        f"`{_city_summary(city)}`",
        f"routes to: {', '.join(routes) or 'none'}",
    ]
    if city.aliases:
        lines.append(f"also written: {', '.join(city.aliases)}")
    return "\n\n".join(lines)


def _chain(snapshot: Snapshot, name: str, attribute: str) -> list[str]:
    chain, seen = [name], {name}
    declarations = snapshot.project.declarations(attribute)
    extended = snapshot.project.extended_boards
    while True:
        declaration = extended.get(chain[-1]) or declarations.get(chain[-1])
        parent = getattr(declaration, "extends", None)
        if not parent or parent in seen:
            return chain
        chain.append(parent)
        seen.add(parent)


def _rules_text(snapshot: Snapshot, name: str) -> str:

    project = snapshot.project
    declared = project.rulesets.get(name)
    title = getattr(declared, "title", "") if declared else ""
    chain = _chain(snapshot, name, "rulesets")
    lines = [f"**rules {name}**" + (f" — {title}" if title else ""), ""]
    lines.append("extends: " + " → ".join(f"`{n}`" for n in chain))
    resolved = project.declarations("resolved_rulesets")
    if len(chain) > 1 and name in resolved and chain[1] in resolved:
        try:
            edits = diff_rulesets(resolved[chain[1]], resolved[name])
        except (HansaError, TypeError, ValueError):
            edits = []
        if edits:
            lines += ["", f"changes against `{chain[1]}`:"]
            lines += [f"- {e.describe()}" for e in edits[:30]]
            if len(edits) > 30:
                lines.append(f"- … and {len(edits) - 30} more")
    games = sorted(g.name for g in project.games.values() if g.rules == name)
    if games:
        lines += ["", "games: " + ", ".join(f"`{g}`" for g in games)]
    return "\n".join(lines)


def _board_text(snapshot: Snapshot, name: str) -> str:
    board = snapshot.project.boards.get(name)
    chain = _chain(snapshot, name, "boards")
    lines = [f"**board {name}**" + (f" — {board.title}" if board and board.title else "")]
    if board is not None:
        players = ", ".join(str(p) for p in board.players) or "—"
        lines += [
            "",
            f"{len(board.cities)} cities, {len(board.routes)} routes; players {players}",
        ]
    if len(chain) > 1:
        lines += ["", "extends: " + " → ".join(f"`{n}`" for n in chain)]
    return "\n".join(lines)


def _game_text(snapshot: Snapshot, name: str) -> str:
    game = snapshot.project.games.get(name)
    if game is None:
        return f"**game {name}**"
    players = ", ".join(str(p) for p in game.players)
    return f"**game {name}**\n\nrules `{game.rules}` on board `{game.board}`, players {players}"


def _route_text(snapshot: Snapshot, context: Context | None, words: list[Word]) -> str | None:
    if context is None or context.kind != "board" or len(words) < 3:
        return None
    board = snapshot.project.boards.get(context.name)
    ends = {words[1].value, words[2].value}
    for route in board.routes if board is not None else ():
        if set(route.cities) == ends:
            kinds = ", ".join("ship" if p == "merchant" else "house" for p in route.points)
            flags = [f for f in ("tavern" if route.tavern else "",) if f]
            if route.permanent_bonus:
                flags.append(f"permanent {route.permanent_bonus}")
            if route.country:
                flags.append(f"country {route.country}")
            head = f"**route {route.cities[0]} -- {route.cities[1]}**"
            body = f"{len(route.points)} points, {route.cities[0]} to {route.cities[1]}: {kinds}"
            return "\n\n".join([head, body, *(["; ".join(flags)] if flags else [])])
    return None


def _component_of(snapshot: Snapshot, symbol: Symbol):
    ruleset = snapshot.project.declarations("resolved_rulesets").get(symbol.owner)
    if ruleset is None:
        return None
    items = {
        "marker": (*ruleset.bonus_markers, *ruleset.permanent_markers),
        "ability": ruleset.abilities,
        "category": ruleset.scoring,
    }[symbol.kind]
    return next((i for i in items if i.span == symbol.span), None)


def _rule_text(snapshot: Snapshot, symbol: Symbol) -> str | None:
    """A bonus marker, ability or scoring category of a rule set as it resolves, with where it
    was last defined and its kind's catalogue text."""

    item = _component_of(snapshot, symbol)
    if item is None:
        return None
    section = {"marker": "bonus", "ability": "ability", "category": "score"}[symbol.kind]
    if symbol.kind == "marker" and not hasattr(item, "count"):
        section = "permanent_marker"
    kind = getattr(item, "kind", None) or getattr(item, "name", "")
    head = f"**{section} {symbol.name}**"
    if symbol.kind == "category":
        head = f"**score {item.key} {item.kind}**"
    fields = [
        f"{name}: {format_value(getattr(item, name))}"
        for name in ("kind", "params", "count", "start", "values", "covered_by", "full_pp")
        if getattr(item, name, None) not in (None, (), "")
    ]
    lines = [head, f"in `{symbol.owner}` (defined at {symbol.span})", "; ".join(fields)]
    comp = CATALOGUE.get((section, kind))
    if comp is not None:
        lines.append(_component_text(comp))
    return "\n\n".join(lines)


def symbol_hover(snapshot: Snapshot, symbol: Symbol) -> str | None:
    if symbol.kind in ("marker", "ability", "category"):
        return _rule_text(snapshot, symbol)
    if symbol.kind == "city":
        return _city_text(snapshot, symbol)
    if symbol.kind == "rules":
        return _rules_text(snapshot, symbol.name)
    if symbol.kind == "board":
        return _board_text(snapshot, symbol.name)
    if symbol.kind == "game":
        return _game_text(snapshot, symbol.name)
    return None


def hover(snapshot: Snapshot, file: str, lines: list[str], position) -> str | None:
    """The Markdown shown for the word under the cursor, or None."""
    cursor = cursor_at(lines, position)
    if cursor is None:
        return None
    words, index, context = cursor.words, cursor.index, cursor.context
    if words[0].value == "route" and index == 0:
        return _route_text(snapshot, context, words)
    symbol = symbol_at(snapshot, file, lines, position)
    if symbol is not None and symbol.kind in ("city", "rules", "board", "game"):
        return symbol_hover(snapshot, symbol)
    if symbol is not None and symbol.kind in ("marker", "ability", "category") and index > 1:
        text = symbol_hover(snapshot, symbol)  # a name used elsewhere than its own statement
        if text is not None:
            return text
    if context is not None and context.kind == "rules":
        text = catalogue_hover(words, index)
        if text is None and _section_of(words) not in CATALOGUE_ONLY:
            text = words_hover(words, index)
        if text is not None:
            return text
    if symbol is not None and symbol.kind == "prelude":
        return f"**{symbol.name}**: defined in the package's prelude ({symbol.span})"
    return None
