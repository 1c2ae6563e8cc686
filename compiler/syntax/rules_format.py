"""Canonical indentation of rule sets, for `hansa fmt` (docs/rules-language.md, "Formatting").

A rule set is not reprinted the way a board is (its statements keep their order, spelling and
hand-aligned columns); only where each line starts changes:

- `rules … {` starts its line, and so does the closing `}` (when it begins its line);
- a statement that begins its line, and every full-line comment between statements, is indented
  by one level (four spaces);
- the continuation lines of a multi-line statement (and comments among them) move by as much as
  its first line did, so columns aligned by hand stay aligned, but never less than two levels
  (one for a line that starts with a closing bracket, as a block's `}` under its statement);
- blank lines inside the block lose their blanks.

Everything after a line's indentation is kept byte for byte, so comments are never moved or
dropped. Applying it twice gives the same text as applying it once.
"""

from __future__ import annotations

import lark

INDENT = "    "
_HEADER = ("r_name", "r_title", "r_extends")


def _width(blanks: str) -> int:
    return len(blanks.expandtabs(len(INDENT)))


def _split(line: str) -> tuple[str, str]:
    """(leading blanks, the rest) of one line."""
    rest = line.lstrip(" \t\f")
    return line[: len(line) - len(rest)], rest


def reindent_rule_sets(text: str, tree: lark.Tree) -> str:
    """`text` (which parsed to `tree`) with every `rules` declaration canonically indented."""
    lines = text.split("\n")
    new: dict[int, str] = {}  # 0-based line index -> its new indentation
    for decl in tree.children:
        if getattr(decl, "data", None) == "rules" and not decl.meta.empty:
            new.update(_rule_set_indents(decl, lines))
    if not new:
        return text
    out = []
    for i, line in enumerate(lines):
        if i in new:
            blanks, rest = _split(line)
            line = new[i] + rest if rest else ""
        out.append(line)
    return "\n".join(out)


def _starts_line(lines: list[str], line: int, column: int) -> bool:
    """Whether the text at 1-based (line, column) is the first non-blank of its line."""
    blanks, rest = _split(lines[line - 1])
    return bool(rest) and len(blanks) == column - 1


def _rule_set_indents(decl: lark.Tree, lines: list[str]) -> dict[int, str]:
    meta = decl.meta
    out: dict[int, str] = {}
    if _starts_line(lines, meta.line, meta.column):
        out[meta.line - 1] = ""
    header_end = meta.line
    statements = []
    for child in decl.children:
        if not isinstance(child, lark.Tree) or child.meta.empty:
            continue
        if child.data in _HEADER:
            header_end = max(header_end, child.meta.end_line)
        else:
            statements.append(child)
    covered: set[int] = set()
    for stmt in statements:
        first, last = stmt.meta.line, stmt.meta.end_line
        covered.update(range(first, last + 1))
        delta = 0
        if _starts_line(lines, first, stmt.meta.column):
            delta = len(INDENT) - _width(_split(lines[first - 1])[0])
            out[first - 1] = INDENT
        for number in range(first + 1, last + 1):
            blanks, rest = _split(lines[number - 1])
            if rest:
                least = len(INDENT) if rest.startswith(("}", ")")) else 2 * len(INDENT)
                out[number - 1] = " " * max(least, _width(blanks) + delta)
            else:
                out[number - 1] = ""
    for number in range(header_end + 1, meta.end_line):
        if number in covered:
            continue
        rest = _split(lines[number - 1])[1]
        if not rest:
            out[number - 1] = ""
        elif rest.startswith("#"):
            out[number - 1] = INDENT
    closing = lines[meta.end_line - 1]
    if meta.end_line > meta.line and _split(closing)[1].startswith("}"):
        if meta.end_column - 1 == len(_split(closing)[0]) + 1:  # this `}` closes the rule set
            out[meta.end_line - 1] = ""
    return out
