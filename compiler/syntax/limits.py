"""The language's limits: how long a name or a text may be, how deeply an expression may nest, and
which characters a name or a text may hold (docs/rules-language.md, "Limits").

Every later stage walks expressions recursively and the generated Python nests a parenthesis per
operator, so an expression deeper than `MAX_EXPR_DEPTH` is refused here, at its source, with one
error, rather than failing later as a RecursionError or as Python's "too many nested parentheses".
Names become file names, module names, log keys and action texts: `MAX_NAME` characters keep every
one of them short (a file name has at most 255 bytes). Names and texts are printed on terminals,
so control, format and line-separator characters (ANSI escapes, bidi overrides) are refused in
them: a spec cannot drive the terminal of whoever checks, diffs or plays it.

The parser checks every token and expression of a parsed file against these limits
(`parser.parse_text`); `text_problem` runs on every decoded string (the board and rules
languages, and the reference JSON boards).
"""

from __future__ import annotations

import unicodedata

import lark
from hansa.runtime.errors import HIDDEN_CATEGORIES

MAX_NAME = 64  # characters of a name: a city, a board, a rule set, a game, a label, a word
MAX_TEXT = 1000  # characters of a text: a title, a board side, a verification note
MAX_EXPR_DEPTH = 64  # levels of one expression's syntax tree (operators, `not`, sets, `where`)
# Every number written in a spec (a parameter, a table, a number in a rule in words) is a count, a
# PP value or a threshold: far below this. It keeps a 5,000-digit literal (which Python refuses to
# convert) and absurd sizes out of every later stage, and every literal well inside C's integers.
MAX_NUMBER = 1_000_000


def number_problem(digits: str) -> str | None:
    """Why a written whole number is too large, else None."""
    digits = digits.lstrip("0") or "0"
    if len(digits) <= len(str(MAX_NUMBER)) and int(digits) <= MAX_NUMBER:
        return None
    shown = digits if len(digits) <= 20 else f"a number of {len(digits)} digits"
    return f"{shown} is too large (numbers go up to {MAX_NUMBER})"


# Parents whose quoted strings are texts (descriptions) rather than names.
TEXT_PARENTS = frozenset(
    {"board_title", "board_side", "board_frame", "board_verification_entry", "r_title", "r_atom"}
)


def token_problem(token: lark.Token, parent: str) -> str | None:
    """Why a NAME or STRING token is too long (`parent`: the rule it stands in), else None."""
    if token.type == "NAME" and len(token) > MAX_NAME:
        return f"a name of {len(token):,} characters: names have at most {MAX_NAME}"
    if token.type == "STRING":
        length = len(token) - 2  # the quotes (escapes count as written: a bound, not a measure)
        limit, what = (MAX_TEXT, "text") if parent in TEXT_PARENTS else (MAX_NAME, "name")
        if length > limit:
            return f"a quoted {what} of {length:,} characters: {what}s have at most {limit}"
    return None


DEPTH_MESSAGE = (
    f"expression nested more than {MAX_EXPR_DEPTH} levels deep (each operator, 'not', set and"
    " 'where' is a level, and so is each further 'and', 'or', '+' … of a chain): write it in"
    " simpler parts"
)


def text_problem(text: str, what: str, *, text_ok: bool = False) -> str | None:
    """Why `text` cannot be a name (or, with `text_ok`, a title or other text); None when it can.

    A name has at most MAX_NAME characters, a text MAX_TEXT; neither holds control, format or
    line-separator characters (a text may hold line breaks and tabs)."""
    limit = MAX_TEXT if text_ok else MAX_NAME
    if len(text) > limit:
        return f"{what} of {len(text):,} characters: at most {limit}"
    if text.isprintable():
        return None
    for ch in text:
        if text_ok and ch in "\n\t":
            continue
        if unicodedata.category(ch) in HIDDEN_CATEGORIES:
            name = unicodedata.name(ch, "")
            return (
                f"{what} holds U+{ord(ch):04X}{f' ({name})' if name else ''}, a control or format"
                " character: names and texts hold printable characters only"
            )
    return None
