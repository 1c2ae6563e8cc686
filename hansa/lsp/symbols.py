"""What a word of a spec names, where that is declared, where else it is named, and the outline.

A word is looked up in the checked project (`workspace.Snapshot`): the declaration around the
cursor (a board, rule set or game, found from the text so a file that does not parse still has
one) decides what a name can be: in a board a city of that board, in a rule set a bonus marker,
ability, scoring category or prelude definition of its resolved form, or a city of the boards
its games are played on, and everywhere a board, rule set or game.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from lsprotocol import types

from hansa.compiler.board.format import name as written_name
from hansa.compiler.board.format import quote
from hansa.compiler.errors import HansaError, Span
from hansa.compiler.nodes.board import ROUTE_LABEL_SEPARATOR
from hansa.compiler.project import library_project
from hansa.compiler.rules.prelude import defined
from hansa.compiler.syntax.limits import text_problem

from .names import Occurrence, occurrences
from .text import Word, lines_of, span_range, word_at, word_range, words_of_line
from .workspace import Snapshot, inside, uri_of

DECLARATION_KINDS = {"board": "boards", "rules": "rulesets", "game": "games"}


@dataclass(frozen=True)
class Symbol:
    """A named thing: its kind, name, where it is declared, and the board or rule set it is of."""

    kind: str  # board | rules | game | city | marker | ability | category | prelude
    name: str
    span: Span
    owner: str = ""


@dataclass(frozen=True)
class Context:
    """The declaration a line lies in: its keyword, name and first and last line (0-based)."""

    kind: str
    name: str
    first: int
    last: int


def declarations_in(lines: list[str]) -> list[Context]:
    """The top-level declarations of a text, found from their first words (no parse needed)."""
    starts = []
    for number, line in enumerate(lines):
        words = words_of_line(line, number)
        if len(words) >= 2 and words[0].start == 0 and words[0].value in DECLARATION_KINDS:
            if not words[0].quoted:
                starts.append((number, words[0].value, words[1].value))
    out = []
    for index, (number, kind, name) in enumerate(starts):
        last = starts[index + 1][0] - 1 if index + 1 < len(starts) else len(lines) - 1
        while last > number and not lines[last].strip():
            last -= 1
        out.append(Context(kind, name, number, last))
    return out


def context_at(lines: list[str], line: int) -> Context | None:
    for context in declarations_in(lines):
        if context.first <= line <= context.last:
            return context
    return None


def statement_words(lines: list[str], line: int) -> list[Word]:
    """The words of the statement the line belongs to, up to the end of the line: continuation
    lines (indented further than the statement's first word) are joined to it."""
    start = line
    while start > 0 and lines[start].strip() and _continues(lines, start):
        start -= 1
    words: list[Word] = []
    for number in range(start, line + 1):
        words.extend(words_of_line(lines[number], number))
    return words


def bound_boards(snapshot: Snapshot, rules: str) -> list:
    """The boards the games of a rule set are played on (for city names in its statements)."""
    project = snapshot.project
    names = [g.board for g in project.games.values() if g.rules == rules]
    return [project.boards[n] for n in dict.fromkeys(names) if n in project.boards]


def _declaration(snapshot: Snapshot, kind: str, name: str) -> Symbol | None:
    project = snapshot.project
    attribute = DECLARATION_KINDS[kind]
    declaration = project.declarations(attribute).get(name)
    span = project.declared_at.get((attribute, name))
    if span is None and declaration is not None:
        span = getattr(declaration, "span", None)
    if span is None:  # a declaration that failed to lower: still found by its first words
        for file, text in {**project.sources, **snapshot.texts}.items():
            for context in declarations_in(lines_of(text)):
                if (context.kind, context.name) == (kind, name):
                    span = Span(file, context.first + 1, 1)
    return Symbol(kind, name, span) if span is not None else None


def _city(board, name: str) -> Symbol | None:
    for city in board.cities:
        if name == city.name or name in city.aliases:
            return Symbol("city", city.name, city.span, board.id)
    return None


def parent_of(lines: list[str], context: Context) -> str:
    """The name after `extends` on a declaration's first line ("" if none)."""
    head = [w.value for w in words_of_line(lines[context.first], context.first)]
    return head[head.index("extends") + 1] if "extends" in head[:-1] else ""


def _in_rules(
    snapshot: Snapshot, rules: str, words: list[Word], index: int, parent: str = ""
) -> Symbol | None:
    """A name in a rule set's statement: a marker, ability, category, prelude kind or city (of
    the parent's resolved form while the rule set itself does not resolve)."""

    project = snapshot.project
    value = words[index].value
    resolved = project.declarations("resolved_rulesets")
    if rules not in resolved and parent in resolved:
        rules = parent
    ruleset = resolved.get(rules) or project.rulesets.get(rules)
    head = [w.value for w in words[:4]]
    section = ""
    if (head[:1] == ["score"] and index == 2) or (head[:2] == ["replace", "score"] and index == 4):
        section = "score"  # `score E controlled_cities`, `replace score F with network`
    elif head[:1] == ["end"] or head[:2] == ["replace", "end"]:
        section = "end"
    definition = defined(section, value) if section else None
    if definition is not None and definition.span is not None:
        return Symbol("prelude", value, definition.span)
    if ruleset is not None:
        for marker in (*ruleset.bonus_markers, *ruleset.permanent_markers):
            if value in (marker.name, getattr(marker, "kind", None)) and marker.span.line:
                return Symbol("marker", marker.name, marker.span, rules)
        for ability in ruleset.abilities:
            if value == ability.name:
                return Symbol("ability", value, ability.span, rules)
        for category in ruleset.scoring:
            if value in (category.key, category.kind):
                return Symbol("category", category.key, category.span, rules)
    for board in bound_boards(snapshot, rules):
        found = _city(board, value)
        if found is not None:
            return found
    return None


@dataclass
class Cursor:
    """The word under the cursor, its statement's words, its index there, and the declaration
    it is written in (None outside every declaration)."""

    word: Word
    words: list[Word]
    index: int
    context: Context | None


def cursor_at(lines: list[str], position) -> Cursor | None:
    word = word_at(lines, position)
    if word is None:
        return None
    words = statement_words(lines, word.line)
    index = next(i for i, w in enumerate(words) if w == word)
    return Cursor(word, words, index, context_at(lines, word.line))


def symbol_at(snapshot: Snapshot, file: str, lines: list[str], position) -> Symbol | None:
    """What the word under the cursor names, if it names something declared."""
    cursor = cursor_at(lines, position)
    if cursor is None:
        return None
    word, words, index, context = cursor.word, cursor.words, cursor.index, cursor.context
    before = words[index - 1].value if index > 0 else ""
    project = snapshot.project
    if context is not None and context.kind in ("board", "rules") and before == "extends":
        return _declaration(snapshot, context.kind, word.value)
    if context is not None and index == 1 and words[0].value == context.kind:
        return _declaration(snapshot, context.kind, word.value)
    if context is not None and context.kind == "board":
        board = project.boards.get(context.name)
        found = _city(board, word.value) if board is not None else None
        if found is not None:
            return found
        for rules in {g.rules for g in project.games.values() if g.board == context.name}:
            found = _in_rules(snapshot, rules, words, index)
            if found is not None and found.kind == "marker":
                return found
    if context is not None and context.kind == "rules":
        found = _in_rules(snapshot, context.name, words, index, parent_of(lines, context))
        if found is not None:
            return found
    for kind in ("rules", "board", "game"):
        if word.value in project.declarations(DECLARATION_KINDS[kind]):
            return _declaration(snapshot, kind, word.value)
    for board in project.boards.values():
        found = _city(board, word.value)
        if found is not None:
            return found
    return None


def name_range(snapshot: Snapshot, symbol: Symbol) -> types.Range:
    """The range of the symbol's name where it is declared (else its statement's start)."""
    lines = snapshot.lines(symbol.span.file)
    line = symbol.span.line - 1
    if 0 <= line < len(lines):
        for word in words_of_line(lines[line], line):
            if word.value == symbol.name:
                return word_range(word, lines)
    return span_range(symbol.span, lines)


def location(snapshot: Snapshot, symbol: Symbol) -> types.Location:
    return types.Location(uri_of(symbol.span.file), name_range(snapshot, symbol))


def _spellings(snapshot: Snapshot, symbol: Symbol) -> set[str]:
    if symbol.kind == "city":
        board = snapshot.project.boards.get(symbol.owner)
        for city in board.cities if board is not None else ():
            if city.name == symbol.name:
                return {city.name, *city.aliases}
    return {symbol.name}


def workspace_texts(snapshot: Snapshot, root: Path | None) -> dict[str, str]:
    """The text of every workspace file the check read (buffers as the editor holds them)."""
    texts = {f: t for f, t in snapshot.project.sources.items() if inside(root, f)}
    texts.update(snapshot.texts)
    return texts


def references(
    snapshot: Snapshot, symbol: Symbol, root: Path | None, spellings: set[str] | None = None
) -> list[types.Location]:
    """Every place in the workspace's files (and where it is declared) that names the symbol,
    found in each file's parse tree (`names.occurrences`): a file that does not parse is left
    out (rename refuses to run then)."""
    return [
        types.Location(uri_of(file), span_range(found.span, lines_of(text)))
        for file, text, found in _occurrences_of(snapshot, symbol, root, spellings)
    ] + ([location(snapshot, symbol)] if _declared_outside(snapshot, symbol, root) else [])


def _declared_outside(snapshot: Snapshot, symbol: Symbol, root: Path | None) -> bool:
    return symbol.span.file not in workspace_texts(snapshot, root)


def _occurrences_of(
    snapshot: Snapshot, symbol: Symbol, root: Path | None, spellings: set[str] | None = None
) -> list[tuple[str, str, Occurrence]]:
    """(file, text, occurrence) of each place the workspace names the symbol, file by file."""
    names = spellings if spellings is not None else _spellings(snapshot, symbol)
    matches = _matcher(snapshot, symbol, names)
    out = []
    for file, text in sorted(workspace_texts(snapshot, root).items()):
        for found in occurrences(file, text) or ():
            if matches(found):
                out.append((file, text, found))
    return out


def _matcher(snapshot: Snapshot, symbol: Symbol, names: set[str]):
    """Whether an occurrence names the symbol: the same kind and name, written where the name
    means this thing (a city in its board's family or a rule set played there; a marker in its
    rule set's family or a board its games are played on)."""
    if symbol.kind == "city":
        boards = _board_family(snapshot, _city_home(snapshot, symbol))
        rules = _rules_played_on(snapshot, boards)

        def city(found: Occurrence) -> bool:
            return found.name in names and (
                (found.kind == "city" and found.scope in boards)
                or (found.kind == "value" and found.scope in rules)
            )

        return city
    if symbol.kind == "marker":
        rules = _rules_family(snapshot, _declaring_rules(snapshot, symbol))
        boards = {g.board for g in snapshot.project.games.values() if g.rules in rules}

        def marker(found: Occurrence) -> bool:
            if found.name not in names:
                return False
            if found.kind == "word":  # `forbid use marker when marker used is plus_3_actions`
                return found.scope in rules
            return found.kind == "marker" and (found.scope in rules or found.scope in boards)

        return marker
    kind = symbol.kind if symbol.kind in RENAMABLE else "name"  # an ability, category, …
    return lambda found: found.kind == kind and found.name in names


def _city_home(snapshot: Snapshot, symbol: Symbol) -> str:
    """The board a city comes from: up the `extends` chain while the parent has it too."""
    project, board = snapshot.project, symbol.owner
    child = project.extended_boards.get(board)
    while child is not None and child.extends in project.boards:
        if _city(project.boards[child.extends], symbol.name) is None:
            break
        board = child.extends
        child = project.extended_boards.get(board)
    return board


def _board_family(snapshot: Snapshot, board: str) -> set[str]:
    """A board, the boards extending it (and those extending them), and the boards it extends."""
    project = snapshot.project
    family = {board}
    changed = True
    while changed:
        changed = False
        for name, child in project.extended_boards.items():
            if child.extends in family and name not in family:
                family.add(name)
                changed = True
    parent = project.extended_boards.get(board)
    while parent is not None and parent.extends and parent.extends not in family:
        family.add(parent.extends)
        parent = project.extended_boards.get(parent.extends)
    return family


def _rules_played_on(snapshot: Snapshot, boards: set[str]) -> set[str]:
    """The rule sets of the games played on the boards, and the rule sets they extend."""
    project = snapshot.project
    found: set[str] = set()
    for name in {g.rules for g in project.games.values() if g.board in boards}:
        while name and name not in found:
            found.add(name)
            name = getattr(project.rulesets.get(name), "extends", None) or ""
    return found


def _declaring_rules(snapshot: Snapshot, symbol: Symbol) -> str:
    """The rule set whose own statement declares a marker (the symbol's owner may inherit it)."""
    for name, rules in snapshot.project.rulesets.items():
        if any(m.name == symbol.name and m.span == symbol.span for m in _markers(rules)):
            return name
    return symbol.owner


def _markers(rules) -> tuple:
    """A rule set's bonus and permanent markers (none for a rule set that is missing)."""
    return (*getattr(rules, "bonus_markers", ()), *getattr(rules, "permanent_markers", ()))


def _rules_family(snapshot: Snapshot, rules: str) -> set[str]:
    """A rule set, the rule sets it extends, and every rule set extending it at any depth."""
    project = snapshot.project
    family = {rules}
    name = getattr(project.rulesets.get(rules), "extends", None)
    while name and name not in family:
        family.add(name)
        name = getattr(project.rulesets.get(name), "extends", None)
    return family | _rules_inheriting_any(snapshot, family)


RENAMABLE = {
    "city": "city",
    "marker": "bonus marker",
    "board": "board",
    "rules": "rule set",
    "game": "game",
}
NOT_RENAMABLE = "only a city, bonus marker, board, rule set or game can be renamed"


def rename(
    snapshot: Snapshot, symbol: Symbol, new_name: str, root: Path | None
) -> types.WorkspaceEdit:
    """The edits renaming a city, bonus marker, board, rule set or game wherever the workspace
    names it (a city's aliases stay), found in the parse trees; refused, with one clear message,
    for a name the language refuses, a name already taken, a thing declared outside the
    workspace, an unlabelled marker (its name is its kind), or a file that does not parse."""
    what = RENAMABLE.get(symbol.kind)
    if what is None:
        raise HansaError(NOT_RENAMABLE)
    problem = text_problem(new_name, f"{what} name")
    if not new_name.strip():
        problem = f"a {what} name may not be empty"
    elif symbol.kind == "city" and ROUTE_LABEL_SEPARATOR in new_name:
        problem = f"a city name may not hold '{ROUTE_LABEL_SEPARATOR}' (it joins route names)"
    if problem:
        raise HansaError(problem)
    if not inside(root, symbol.span.file):
        raise HansaError(
            f"{what} '{symbol.name}' is declared in {symbol.span.file}, outside the workspace:"
            " change it there"
            + (", or write `change city` in a board that extends it" if what == "city" else "")
        )
    if new_name != symbol.name:
        taken = _taken(snapshot, symbol, new_name)
        if taken:
            raise HansaError(taken)
    _refuse_unparsed(snapshot, root)
    found = _occurrences_of(snapshot, symbol, root, {symbol.name})
    if symbol.kind == "city":
        shared = _shared_by_another_board(snapshot, symbol, found, root)
        if shared:
            raise HansaError(shared)
    changes: dict[str, list[types.TextEdit]] = {}
    for file, text, where in found:
        declaration = (where.span.file, where.span.line) == (symbol.span.file, symbol.span.line)
        if declaration and not where.renamable:
            raise HansaError(
                f"marker '{symbol.name}' has no label: its name is its kind; label it first"
                f" (`bonus {written_name(new_name)} = {symbol.name} …`)"
            )
        if where.bare and written_name(new_name) != new_name:
            raise HansaError(
                f"{what} names are written without quotes here ({file}:{where.span.line}), and"
                f" {quote(new_name)} is not a plain name (letters, digits, _ and inner -)"
            )
        written = quote(new_name) if where.quoted else written_name(new_name)
        edit = types.TextEdit(span_range(where.span, lines_of(text)), written)
        changes.setdefault(uri_of(file), []).append(edit)
    return types.WorkspaceEdit(changes=changes)


def _shared_by_another_board(
    snapshot: Snapshot, symbol: Symbol, found: list, root: Path | None
) -> str:
    """Why renaming a city would break another board's games ("" when it would not): a rule set
    that names the city (a mission card, a rule in words) is also played, in a game of the
    workspace, on a board outside the city's family that has a city of that name, which keeps
    it."""
    project = snapshot.project
    family = _board_family(snapshot, _city_home(snapshot, symbol))
    for _file, _text, where in found:
        if where.kind != "value":
            continue
        rules = _rules_inheriting(snapshot, where.scope)
        for game_name, game in sorted(project.games.items()):
            board = project.boards.get(game.board)
            if game.rules not in rules or game.board in family or board is None:
                continue
            if not inside(root, game.span.file):  # a built-in game: not the workspace's to break
                continue
            if _city(board, symbol.name) is not None:
                return (
                    f"rule set '{where.scope}' names '{symbol.name}' ({where.span.file}:"
                    f"{where.span.line}) and is played on board '{game.board}' (game"
                    f" '{game_name}'), whose own city '{symbol.name}' keeps its name: rename"
                    " that city too, or name the city in a rule set of this board's own"
                )
    return ""


def _rules_inheriting(snapshot: Snapshot, rules: str) -> set[str]:
    """A rule set and every rule set extending it at any depth (what its statements reach)."""
    return _rules_inheriting_any(snapshot, {rules})


def _rules_inheriting_any(snapshot: Snapshot, start: set[str]) -> set[str]:
    """The rule sets `start` and every rule set extending one of them at any depth."""
    family = set(start)
    changed = True
    while changed:
        changed = False
        for child, declared in snapshot.project.rulesets.items():
            if getattr(declared, "extends", None) in family and child not in family:
                family.add(child)
                changed = True
    return family


def _taken(snapshot: Snapshot, symbol: Symbol, new_name: str) -> str:
    """Why the new name would collide with one already there ("" when it is free)."""
    project = snapshot.project
    if symbol.kind == "city":
        for board_name in sorted(_board_family(snapshot, _city_home(snapshot, symbol))):
            board = project.boards.get(board_name)
            for city in board.cities if board is not None else ():
                if new_name == city.name or new_name in city.aliases:
                    return (
                        f"board '{board_name}' already has a city '{new_name}'"
                        f" ({city.span.file}:{city.span.line}): a rename may not merge two cities"
                    )
        return ""
    if symbol.kind == "marker":
        resolved = project.declarations("resolved_rulesets")
        for rules_name in sorted(_rules_family(snapshot, _declaring_rules(snapshot, symbol))):
            rules = resolved.get(rules_name) or project.rulesets.get(rules_name)
            markers = (
                *getattr(rules, "bonus_markers", ()),
                *getattr(rules, "permanent_markers", ()),
            )
            for marker in markers:
                if marker.name == new_name:
                    return f"rule set '{rules_name}' already has a bonus marker '{new_name}'"
        return ""
    attribute = DECLARATION_KINDS[symbol.kind]
    library = library_project()
    for where in (project, library):
        if where is not None and new_name in where.declarations(attribute):
            span = where.declared_at.get((attribute, new_name))
            at = f" ({span.file}:{span.line})" if span is not None else " (built in)"
            return f"a {RENAMABLE[symbol.kind]} named '{new_name}' already exists{at}"
    return ""


def _refuse_unparsed(snapshot: Snapshot, root: Path | None) -> None:
    """A rename reads every file of the workspace; one that does not parse could name the thing
    where no tree shows it (and its declarations are unknown), so the rename waits for it."""
    for file, text in sorted(workspace_texts(snapshot, root).items()):
        if occurrences(file, text) is None:
            raise HansaError(
                f"{file} does not parse: fix its errors first (a rename edits only what the"
                " parser reads, and cannot read that file)"
            )


_CHILD_HEADS = {
    "board": ("city", "route", "change", "remove", "special_prestige", "east_west"),
}


def _child_name(words: list[Word]) -> str:
    head = [w.value for w in words[:4]]
    if head and head[0] == "route" and len(head) >= 3:
        return f"{head[1]} -- {head[2]}"
    if head and head[0] in ("change", "remove") and len(head) >= 3:
        return " ".join(head[:3])
    return " ".join(head[:3])


def document_symbols(lines: list[str]) -> list[types.DocumentSymbol]:
    """The outline: each board (its cities and routes), rule set (its statements) and game."""
    kinds = {
        "board": types.SymbolKind.Module,
        "rules": types.SymbolKind.Class,
        "game": types.SymbolKind.Object,
    }
    out = []
    for context in declarations_in(lines):
        children = []
        for number in range(context.first + 1, context.last + 1):
            words = words_of_line(lines[number], number)
            if not words or words[0].quoted:
                continue
            indent = words[0].start
            if indent == 0 or (number > 0 and _continues(lines, number)):
                continue
            if context.kind == "board" and words[0].value not in _CHILD_HEADS["board"]:
                continue
            kind = types.SymbolKind.Field
            if words[0].value == "city":
                kind = types.SymbolKind.Struct
            elif words[0].value == "route":
                kind = types.SymbolKind.Event
            selection = word_range(words[min(1, len(words) - 1)], lines)
            line_range = types.Range(
                types.Position(number, 0), types.Position(number, len(lines[number]))
            )
            children.append(types.DocumentSymbol(_child_name(words), kind, line_range, selection))
        first_words = words_of_line(lines[context.first], context.first)
        whole = types.Range(
            types.Position(context.first, 0),
            types.Position(context.last, len(lines[context.last])),
        )
        out.append(
            types.DocumentSymbol(
                context.name,
                kinds[context.kind],
                whole,
                word_range(first_words[1], lines),
                detail=context.kind,
                children=children,
            )
        )
    return out


def _code(line: str) -> str:
    return line.split("#", 1)[0].rstrip() if '"' not in line else line.rstrip()


def _continues(lines: list[str], number: int) -> bool:
    """Whether a line continues the statement above: indented further than the block's
    statements (the parser's rule), and not the first line of a block."""
    text = lines[number]
    indent = len(text) - len(text.lstrip())
    smallest = None
    for above in range(number - 1, -1, -1):
        row = _code(lines[above])
        if not row.strip():
            continue
        row_indent = len(row) - len(row.lstrip())
        if smallest is None and row.endswith("{"):
            return False
        if row_indent == 0:
            break
        smallest = row_indent if smallest is None else min(smallest, row_indent)
    return smallest is not None and indent > smallest


def at(snapshot: Snapshot, file: str, position) -> Symbol | None:
    """The symbol under the cursor of a file as the check read it."""
    return symbol_at(snapshot, file, snapshot.lines(file), position)
