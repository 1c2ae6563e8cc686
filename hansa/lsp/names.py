"""Where a spec file names things, read from its parse tree (not from its words).

Find references and rename go by these: a name inside a comment, inside a string that is a title
or text, or as part of another, longer name is never taken for the thing, because only the tokens
the grammar puts in a name's place are looked at. Each file's occurrences are kept by its text
(a few hundred files' worth), so asking again costs nothing until the file changes.
"""

from __future__ import annotations

from collections import OrderedDict
from dataclasses import dataclass

import lark

from hansa.compiler.errors import HansaError, Span
from hansa.compiler.syntax.parser import parse_text, source_text, span_of, unquote

# Board statements that name cities: which of their own name tokens (in order) are cities.
CITY_SLOTS = {
    "board_city": (0,),
    "board_change_city": (0,),
    "board_remove_city": (0,),
    "board_route": (0, 1),
    "board_change_route": (0, 1),
    "board_remove_route": (0, 1),
    "board_east_west": (0, 1),
    "board_special_prestige": (0, 1, 2),
}
# Rule statements that name a bonus marker declared elsewhere (by a plain name only).
MARKER_REFERENCES = ("r_remove_bonus", "r_remove_permanent", "r_replace_bonus")
_NAME_TOKENS = ("NAME", "STRING")
_KEPT = 512


@dataclass(frozen=True)
class Occurrence:
    """A name where the grammar puts one: what it names (board, rules, game, city, marker; value:
    a rule set's parameter value, which may be a city; word: a plain word of a rule in words,
    which may be a marker's label; name: any name token at all, titles left out), the name as the
    compiler reads it, where, and in which board or rule set it is written."""

    kind: str
    name: str
    span: Span
    scope: str = ""
    declares: bool = False
    bare: bool = False  # the grammar takes a plain name only here (no "string")
    quoted: bool = False
    renamable: bool = True  # False: the name is also what the thing is (an unlabelled marker)


_kept: OrderedDict[tuple[str, str], list[Occurrence] | None] = OrderedDict()


def occurrences(file: str, text: str) -> list[Occurrence] | None:
    """Every name of a file's text in its place, or None when the text does not parse."""
    key = (file, text)
    if key in _kept:
        _kept.move_to_end(key)
        return _kept[key]
    try:
        tree = parse_text(source_text(text, file), file)
        found: list[Occurrence] | None = _walk(tree, file)
    except (HansaError, RecursionError):
        found = None
    _kept[key] = found
    while len(_kept) > _KEPT:
        _kept.popitem(last=False)
    return found


def _tokens(tree: lark.Tree) -> list[lark.Token]:
    return [c for c in tree.children if isinstance(c, lark.Token) and c.type in _NAME_TOKENS]


def _at(kind: str, token: lark.Token, file: str, scope: str = "", **flags) -> Occurrence:
    quoted = token.type == "STRING"
    name = unquote(token, file) if quoted else str(token)
    return Occurrence(kind, name, span_of(token, file), scope, quoted=quoted, **flags)


def _first(tree: lark.Tree, data: str) -> lark.Tree | None:
    return next((c for c in tree.children if isinstance(c, lark.Tree) and c.data == data), None)


# Subtrees whose string is a text (a title, a side's label), never a name.
TEXTS = ("board_title", "board_side", "board_frame", "board_verification_entry", "r_title")


def _names(tree: lark.Tree, file: str, scope: str) -> list[Occurrence]:
    """Every name token of a declaration, whatever its place (texts left out): where an
    ability, a scoring category or a prelude kind may be named. A string that is no valid
    name (a text the language allows elsewhere) names nothing."""
    out = []
    for subtree in tree.iter_subtrees_topdown():
        if subtree.data in TEXTS:
            continue
        for token in _tokens(subtree):
            try:
                out.append(_at("name", token, file, scope))
            except HansaError:
                continue
    return out


def _walk(tree: lark.Tree, file: str) -> list[Occurrence]:
    out: list[Occurrence] = []
    for declaration in tree.children:
        if not isinstance(declaration, lark.Tree):
            continue
        head = next((t for t in declaration.scan_values(lambda v: isinstance(v, lark.Token))), None)
        scope = str(head) if head is not None and declaration.data != "game" else ""
        out.extend(_names(declaration, file, scope))
        if declaration.data == "board":
            out.extend(_board(declaration, file))
        elif declaration.data == "rules":
            out.extend(_rules(declaration, file))
        elif declaration.data == "game":
            parts = [c for c in declaration.children if isinstance(c, lark.Tree)]
            names = [t for part in parts for t in _tokens(part)]
            for kind, token in zip(("game", "rules", "board"), names, strict=False):
                out.append(_at(kind, token, file, declares=kind == "game"))
    return out


def _board(declaration: lark.Tree, file: str) -> list[Occurrence]:
    [name, *_] = _tokens(declaration)
    board = _at("board", name, file, declares=True)
    out = [board]
    for tree in declaration.iter_subtrees_topdown():
        if tree.data == "board_extends":
            out.extend(_at("board", t, file) for t in _tokens(tree))
        elif tree.data in CITY_SLOTS:
            tokens = _tokens(tree)
            for index in CITY_SLOTS[tree.data]:
                if index < len(tokens):
                    declares = tree.data == "board_city"
                    out.append(_at("city", tokens[index], file, board.name, declares=declares))
        elif tree.data == "route_permanent":
            out.extend(_at("marker", t, file, board.name) for t in _tokens(tree))
    return out


def _rules(declaration: lark.Tree, file: str) -> list[Occurrence]:
    head = _first(declaration, "r_name")
    rules = _at("rules", _tokens(head)[0], file, declares=True)
    out = [rules]
    scope = rules.name
    for tree in declaration.iter_subtrees_topdown():
        if tree.data == "r_extends":
            parent = _first(tree, "r_name")
            out.extend(_at("rules", t, file) for t in _tokens(parent) if parent is not None)
        elif tree.data == "r_bonus_body":
            label = _first(tree, "r_label")
            if label is not None:
                out.extend(
                    _at("marker", t, file, scope, declares=True, bare=True) for t in _tokens(label)
                )
            else:
                kind = [t for t in _tokens(tree) if t.type == "NAME"][:1]
                out.extend(
                    _at("marker", t, file, scope, declares=True, bare=True, renamable=False)
                    for t in kind
                )
        elif tree.data in MARKER_REFERENCES:
            out.extend(_at("marker", t, file, scope, bare=True) for t in _tokens(tree)[:1])
        elif tree.data == "r_bonus_rule":
            # `bonus "Guild charter" … when used: …`: a marker declared by its label
            out.extend(_at("marker", t, file, scope, declares=True) for t in _tokens(tree)[:1])
        elif tree.data == "r_atom":
            out.extend(_at("value", t, file, scope) for t in _tokens(tree))
        elif tree.data.startswith("x_"):  # a word of a rule in words (`marker used is NAME`)
            words = [t for t in _tokens(tree) if t.type == "NAME"]
            out.extend(_at("word", t, file, scope, bare=True) for t in words)
    return out
