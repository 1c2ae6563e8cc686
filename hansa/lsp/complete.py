"""The words that fit at the cursor: the parser's expected keywords, and the names the statement
around the cursor takes (component kinds, parameters and their values, quantities, city, board,
rule set and marker names of the bound board and rule set)."""

from __future__ import annotations

import functools
import re

from lsprotocol import types

from hansa.compiler.expr.catalogue import QUANTITIES
from hansa.compiler.nodes.board import ABILITIES, PERMANENT_BONUSES, PRIVILEGES, SHAPES
from hansa.compiler.rules import catalogue
from hansa.compiler.syntax.parser import expected_after

from .symbols import DECLARATION_KINDS, bound_boards, context_at, parent_of, statement_words
from .text import Word, from_utf16
from .workspace import Snapshot

KEYWORD, NAME = types.CompletionItemKind.Keyword, types.CompletionItemKind.Value


def _item(label: str, kind: types.CompletionItemKind, detail: str = "") -> types.CompletionItem:
    return types.CompletionItem(label=label, kind=kind, detail=detail or None)


def _component_names(section: str, words: list[str]) -> list[types.CompletionItem]:
    """Kinds of a section, or the parameters (and a parameter's values) of the kind written."""

    kinds = catalogue.kinds(section)
    stated = next((w for w in words[1:] if w in kinds), None)
    if section in catalogue.SINGLE_SECTIONS:
        stated = section
    if stated is None:
        return [
            _item(k, types.CompletionItemKind.Class, catalogue.CATALOGUE[(section, k)].doc)
            for k in kinds
        ]
    comp = catalogue.CATALOGUE[(section, stated)]
    params = list(comp.params) + (list(catalogue.MARKER_PARAMS) if section == "bonus" else [])
    last = words[-1] if words else ""
    for param in params:
        if param.name == last:  # the value of the parameter just written
            choices = param.type.choices or (
                ("yes", "no") if "yes or no" in param.type.expected else ()
            )
            return [_item(c, NAME, param.type.expected) for c in choices]
    return [
        _item(p.name, types.CompletionItemKind.Property, f"{p.type.expected}: {p.doc}")
        for p in params
        if p.name not in words
    ]


# Statements whose body is rules in words (after their head and a ':' or `when`).
WORDS_HEADS = frozenset({"at", "after", "favour", "forbid", "control", "end", "tiebreak"})
EFFECT_WORDS = ("gain", "lose", "develop", "take", "receive", "draw", "you may take")
SETS = ("cities", "routes", "players", "opponents", "abilities")


def _cities(snapshot: Snapshot, rules: str) -> list[types.CompletionItem]:
    return [
        _item(c.name, types.CompletionItemKind.Constant, f"city of {board.id}")
        for board in bound_boards(snapshot, rules)
        for c in board.cities
    ]


def _in_words(snapshot: Snapshot, ruleset, last: str) -> list[types.CompletionItem]:
    """Names inside rules in words: after `marker` the markers, after `develop` and `of` the
    abilities (and categories), else the quantities, sets and effects."""

    markers = (
        [_item(m.name, NAME, "bonus marker") for m in ruleset.bonus_markers] if ruleset else []
    )
    abilities = [_item(a.name, NAME, "ability") for a in ruleset.abilities] if ruleset else []
    if last == "marker":
        return markers
    if last in ("develop", "develops"):
        return [*abilities, _item("an ability", KEYWORD, "the player chooses")]
    if last == "of":
        categories = (
            [_item(c.kind, NAME, f"category {c.key}") for c in ruleset.scoring] if ruleset else []
        )
        return [*abilities, *categories]
    items = [_item(q.name, types.CompletionItemKind.Variable, q.doc) for q in QUANTITIES.values()]
    items += [_item(w, types.CompletionItemKind.Enum, "a set") for w in SETS]
    items += [_item(w, types.CompletionItemKind.Function, "an effect") for w in EFFECT_WORDS]
    return items + markers + abilities


def _rules_names(
    snapshot: Snapshot, rules: str, words: list[str], in_words: bool, parent: str = ""
) -> list[types.CompletionItem]:

    head = words[0] if words else ""
    if words[:1] in (["replace"], ["remove"]) and len(words) > 1:
        head = words[1]
    resolved = snapshot.project.declarations("resolved_rulesets")
    # a rule set the last check could not resolve (being typed): its parent's names
    ruleset = resolved.get(rules) or resolved.get(parent)
    if in_words or head in WORDS_HEADS - {"end"}:
        return _in_words(snapshot, ruleset, words[-1] if words else "")
    if head == "option" and len(words) >= 3:
        comp = catalogue.CATALOGUE.get(("option", words[1]))
        return [_item(c, NAME) for c in comp.params[0].type.choices] if comp else []
    if {"soldiers", "cards"} & set(words):  # the pawn's soldiers, mission cards: cities
        return _cities(snapshot, rules)
    if head == "end":
        kinds = [_item(k, types.CompletionItemKind.Class) for k in catalogue.kinds("end")]
        return kinds + _in_words(snapshot, ruleset, words[-1] if words else "")
    if head in catalogue.SECTIONS and not (head == "score" and len(words) < 2):
        return _component_names(head, words[2:] if head == "score" else words)
    return []


def _board_names(snapshot: Snapshot, board_name: str, words: list[str]) -> list:

    project = snapshot.project
    last = words[-1] if words else ""
    if last == "ability" or (len(words) > 1 and words[-2] == "ability" and last == "|"):
        return [_item(a, NAME, "ability") for a in ABILITIES]
    if last == "permanent":
        return [_item(p, NAME, "permanent bonus marker") for p in PERMANENT_BONUSES]
    head = words[0] if words else ""
    if head == "city" and "{" in words:
        return [_item(w, NAME) for w in (*SHAPES, *PRIVILEGES, "coin")]
    board = project.boards.get(board_name)
    if board is None:
        parent = project.extended_boards.get(board_name)
        board = project.boards.get(parent.extends) if parent and parent.extends else None
    cities = board.cities if board is not None else ()
    return [_item(c.name, types.CompletionItemKind.Constant, "city") for c in cities]


def _declared(snapshot: Snapshot, kind: str) -> list[types.CompletionItem]:
    names = snapshot.project.declarations(DECLARATION_KINDS[kind])
    return [_item(n, types.CompletionItemKind.Module, kind) for n in sorted(names)]


def completions(
    snapshot: Snapshot, lines: list[str], position: types.Position
) -> list[types.CompletionItem]:
    """Everything that may be written at the cursor (the word being typed left for the editor to
    filter by)."""

    if not 0 <= position.line < len(lines):
        return []
    line = lines[position.line]
    column = from_utf16(line, position.character)
    start = column
    while start > 0 and (line[start - 1].isalnum() or line[start - 1] in "_-"):
        start -= 1
    prefix = "\n".join([*lines[: position.line], line[:start]])
    keywords, takes_name, may_end = expected_after(prefix)
    context = context_at(lines, position.line)
    typed = [
        w for w in statement_words(lines, position.line) if w.line < position.line or w.end <= start
    ]
    kind = context.kind if context is not None else ""
    # where the statement may end, a next statement's first word belongs on a new line (a
    # board's statements have no line rule, but their first words never continue one, except
    # after `change` and `remove`)
    board_continues = bool(typed) and typed[-1].value not in ("change", "remove")
    if typed and ((kind == "rules" and may_end) or (kind == "board" and board_continues)):
        keywords = [k for k in keywords if k not in _statement_heads(kind)]
    items = [_item(k, KEYWORD) for k in keywords if k.isidentifier() and k != "define"]
    if not takes_name:
        return items
    words = [w.value for w in typed]
    if typed and typed[-1].line == position.line and line[typed[-1].end : start].strip():
        # something else (a number, '|', '{') follows the last word: say so with it
        words.append(line[typed[-1].end : start].strip().split()[-1])
    in_words = _rules_in_words(lines, typed, position.line, start)
    parent = parent_of(lines, context) if context is not None else ""
    items += _names(snapshot, context, words, typed, in_words, parent)
    return items


def _rules_in_words(lines: list[str], typed: list[Word], line: int, column: int) -> bool:
    """Whether the cursor stands in rules in words: after the ':' of a category in words, a new
    marker kind (`bonus "NAME" … when used:`) or a hook, or after `end when`/`forbid … when`."""
    if not typed:
        return False
    first = typed[0]
    text = "\n".join([lines[first.line][first.start :], *lines[first.line + 1 : line + 1]])
    text = (
        text[: len(text) - len(lines[line]) + column]
        if line > first.line
        else text[: column - first.start]
    )
    return bool(_WORDS_START.search(text))


_WORDS_START = re.compile(
    r'^(?:replace\s+)?(?:score\s+\w+\s*(?:"[^"]*")?\s*:|bonus\s+"[^"]*".*\bused\s*:)'
    r"|^(?:at|after|favour)\b.*:|^(?:end|forbid)\b.*\bwhen\b|^(?:control|tiebreak)\b",
    re.S,
)


@functools.cache
def _statement_heads(kind: str) -> frozenset[str]:
    """The keywords that start a statement of a rule set or board (offered at a line's start)."""

    return frozenset(expected_after(f"{kind} x {{\n    ")[0])


def _names(
    snapshot: Snapshot,
    context,
    words: list[str],
    typed: list[Word],
    in_words: bool = False,
    parent: str = "",
) -> list:
    if context is None:
        return []
    last = words[-1] if words else ""
    if last == "extends":
        return _declared(snapshot, "board" if context.kind == "board" else "rules")
    if context.kind == "game":
        if last == "on":
            return _declared(snapshot, "board")
        return _declared(snapshot, "rules") if len(typed) >= 2 else []
    if context.kind == "board":
        return _board_names(snapshot, context.name, words)
    return _rules_names(snapshot, context.name, words, in_words, parent)
