"""Positions and words of a spec text, as an editor counts them and as the compiler does.

The compiler counts lines by "\\n" and columns in code points (1-based) of the NFC text; the
Language Server Protocol counts lines from 0 and columns in UTF-16 code units of the text the
editor holds. Every conversion between the two lives here, so no other module of the server
does arithmetic on columns.
"""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass

from lsprotocol import types

from hansa.compiler.errors import Span

# The language's tokens that can stand for a name (compiler/syntax/grammar/common.lark), and
# comments, which hide what follows on their line.
_TOKEN = re.compile(
    r'(?P<string>"(?:[^"\\\n]|\\.)*")|(?P<name>[^\W\d]\w*(?:-\w+)*)|(?P<comment>#.*)'
)


@dataclass(frozen=True)
class Word:
    """A name or quoted string on one line: its value (unquoted), 0-based line, and code-point
    columns [start, end) in the editor's line."""

    value: str
    line: int
    start: int
    end: int
    quoted: bool = False


def lines_of(text: str) -> list[str]:
    """The lines as the parser counts them ("\\n" only; a "\\r" stays at the end of its line)."""
    return text.split("\n")


def utf16_length(text: str) -> int:
    return len(text.encode("utf-16-le")) // 2


def to_utf16(line: str, column: int) -> int:
    """Code-point column (0-based) → UTF-16 column of the same place."""
    return utf16_length(line[: max(0, column)])


def from_utf16(line: str, character: int) -> int:
    """UTF-16 column → code-point column (0-based), clamped to the line."""
    units = 0
    for index, ch in enumerate(line):
        if units >= character:
            return index
        units += 2 if ord(ch) > 0xFFFF else 1
    return len(line)


def _editor_column(line: str, column: int) -> int:
    """A 0-based column of the NFC form of `line` → the column of the same place in `line`."""
    if line.isascii() or unicodedata.is_normalized("NFC", line):
        return column
    for index in range(len(line) + 1):
        if len(unicodedata.normalize("NFC", line[:index])) >= column:
            return index
    return len(line)


def span_range(span: Span | None, lines: list[str]) -> types.Range:
    """The editor range of a compiler span (a span without a line is the file's first place)."""
    if span is None or span.line <= 0:
        return types.Range(types.Position(0, 0), types.Position(0, 0))
    line = min(span.line, len(lines)) - 1
    text = lines[line] if lines else ""
    start = _editor_column(text, max(0, span.column - 1))
    if span.end_line >= span.line and span.end_column > 0:
        end_line = min(span.end_line, len(lines)) - 1
        end_text = lines[end_line] if lines else ""
        end = _editor_column(end_text, span.end_column - 1)
    else:
        end_line, end_text, end = line, text, start + 1
        end = min(end, len(text))
    if (end_line, end) < (line, start):
        end_line, end_text, end = line, text, start
    return types.Range(
        types.Position(line, to_utf16(text, start)),
        types.Position(end_line, to_utf16(end_text, end)),
    )


def word_range(word: Word, lines: list[str]) -> types.Range:
    text = lines[word.line] if 0 <= word.line < len(lines) else ""
    return types.Range(
        types.Position(word.line, to_utf16(text, word.start)),
        types.Position(word.line, to_utf16(text, word.end)),
    )


def words_of_line(line: str, number: int) -> list[Word]:
    """The names and strings of one line, left to right (comments left out)."""
    out = []
    for match in _TOKEN.finditer(line):
        if match.group("comment") is not None:
            break
        if match.group("string") is not None:
            raw = match.group("string")[1:-1]
            value = raw.replace('\\"', '"').replace("\\\\", "\\")
            out.append(Word(value, number, match.start(), match.end(), quoted=True))
        else:
            out.append(Word(match.group("name"), number, match.start(), match.end()))
    return out


def words_of(text: str) -> list[Word]:
    """Every name and string of a text, in order."""
    return [w for number, line in enumerate(lines_of(text)) for w in words_of_line(line, number)]


def word_at(lines: list[str], position: types.Position) -> Word | None:
    """The name or string under (or just before) the editor's cursor."""
    if not 0 <= position.line < len(lines):
        return None
    line = lines[position.line]
    column = from_utf16(line, position.character)
    for word in words_of_line(line, position.line):
        if word.start <= column <= word.end:
            return word
    return None


def offset_of(lines: list[str], position: types.Position) -> int:
    """The code-point offset into the text of an editor position (clamped to the text)."""
    line = max(0, min(position.line, len(lines) - 1)) if lines else 0
    before = sum(len(row) + 1 for row in lines[:line])
    column = from_utf16(lines[line], position.character) if lines else 0
    return before + column


def whole_range(lines: list[str]) -> types.Range:
    last = len(lines) - 1
    return types.Range(
        types.Position(0, 0),
        types.Position(max(0, last), utf16_length(lines[last]) if lines else 0),
    )
