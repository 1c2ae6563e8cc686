"""Board IR -> canonical board-language text, and canonical formatting of whole spec files.

One way to write every board (docs/board-language.md, "Canonical form"): header statements in the
order of the doc's table, then cities sorted by name, then routes in the reference order, one
statement per line, four-space indent. `hansa import` prints `format_board`; `hansa fmt` uses
`format_source`, which rewrites only the `board` declarations of a file and keeps everything else
(other declarations, comments outside boards) byte for byte. Comments inside a board move with the
statement they stand above or beside (see `BoardComments`); none is ever dropped.

Names are quoted only when they must be: when they are not a plain name, or are a keyword of the
language. The keyword set comes from the parser's own terminals, so a keyword added to any grammar
file is quoted without a change here.
"""

from __future__ import annotations

import copy
import functools
import json
import re
from collections.abc import Iterable
from dataclasses import dataclass, field

from lark.lexer import PatternStr

from ..errors import HansaError
from ..nodes.board import Board, BoardEdit, City, CityChange, Removal, Route, RouteChange
from ..syntax.parser import get_parser, parse_text
from ..syntax.rules_format import reindent_rule_sets
from .json_io import land_route_ends, name_sort_key, sorted_cities, sorted_routes
from .lower import CITY_CLAUSE_FIELDS, ROUTE_FLAG_FIELDS, lower_board

INDENT = "    "
POINT_WORDS = {"any": "house", "merchant": "ship"}

# --------------------------------------------------------------------------- names and literals


@functools.cache
def _name_rules() -> tuple[re.Pattern[str], frozenset[str]]:
    """The NAME token pattern and every keyword, read from the parser built from the grammar."""

    parser = get_parser()
    name_pattern = re.compile(parser.get_terminal("NAME").pattern.to_regexp())
    keywords = {
        term.pattern.value
        for term in parser.terminals
        if isinstance(term.pattern, PatternStr) and name_pattern.fullmatch(term.pattern.value)
    }
    return name_pattern, frozenset(keywords)


def keywords() -> frozenset[str]:
    """The words the language reserves (a name spelled like one must be quoted)."""
    return _name_rules()[1]


def quote(text: str) -> str:
    """A double-quoted string literal with quotes, backslashes and control characters escaped."""
    return json.dumps(text, ensure_ascii=False)


def name(text: str) -> str:
    """A name as the language writes it: bare when it lexes as a plain name, else quoted."""
    pattern, reserved = _name_rules()
    if pattern.fullmatch(text) and text not in reserved:
        return text
    return quote(text)


def number(value: float) -> str:
    """A position coordinate as `repr` writes it, so the float read back is the same float."""
    return repr(float(value))


def player_counts(counts: tuple[int, ...], statement: str) -> str:
    if len(counts) == 1:
        return str(counts[0])
    if list(counts) != list(range(counts[0], counts[0] + len(counts))):
        raise HansaError(
            f"{statement}: the board language writes player counts as a range, "
            f"but {list(counts)} are not consecutive"
        )
    return f"{counts[0]}..{counts[-1]}"


def _names(values: Iterable[str]) -> str:
    return ", ".join(name(v) for v in values)


# --------------------------------------------------------------------------- comments


@dataclass
class BoardComments:
    """Comments found inside one board declaration, keyed to the statement they belong to.

    Keys are ("statement", "east_west"), ("city", NAME) and ("route", frozenset of its two cities).
    """

    head: str | None = None  # at the end of the `board … {` line
    body: list[str] = field(default_factory=list)  # inside a multi-line statement: top of the body
    above: dict[tuple, list[str]] = field(default_factory=dict)  # full lines above a statement
    beside: dict[tuple, str] = field(default_factory=dict)  # at the end of a statement's line
    tail: list[str] = field(default_factory=list)  # after the last statement, before `}`


def _city_key(city: City) -> tuple:
    return ("city", city.name)


def _route_key(route: Route) -> tuple:
    return ("route", frozenset(route.cities))


def _statement_key(statement: str) -> tuple:
    return ("statement", statement)


_COMMENT_OR_STRING = re.compile(r'"(?:[^"\\\n]|\\.)*"|#[^\n]*')


def _line_comment(line: str) -> tuple[str, bool] | None:
    """The comment on a source line (outside strings), and whether it is the whole line."""
    for m in _COMMENT_OR_STRING.finditer(line):
        if m.group().startswith("#"):
            return m.group().rstrip(), not line[: m.start()].strip()
    return None


def collect_comments(board: Board, region: str, first_line: int) -> BoardComments:
    """Comments in a board's source text `region` (which starts on line `first_line`), attached to
    the statement they stand above or beside (see `BoardComments`)."""
    starts: dict[int, tuple] = {}
    covers: dict[int, tuple] = {}
    items = [(_statement_key(k), span) for k, span in board.statement_spans if k != "title"]
    items += [(_city_key(c), c.span) for c in board.cities]
    items += [(_route_key(r), r.span) for r in board.routes]
    items += [(_edit_key(e), e.span) for e in board.edits]
    for key, span in sorted(items, key=lambda item: (item[1].line, item[1].column)):
        if span.line <= 0:
            continue
        starts.setdefault(span.line, key)
        for line in range(span.line, max(span.line, span.end_line) + 1):
            covers.setdefault(line, key)
    found = BoardComments()
    pending: list[str] = []
    region_lines = region.split("\n")
    for offset, text in enumerate(region_lines):
        line = first_line + offset
        comment = _line_comment(text)
        if comment is not None and comment[1]:
            pending.append(comment[0])
            continue
        if not text.strip():
            continue
        if pending:
            if line in starts:
                found.above.setdefault(starts[line], []).extend(pending)
            elif offset == len(region_lines) - 1:  # the line of the closing brace
                found.tail.extend(pending)
            else:
                found.body.extend(pending)
            pending = []
        if comment is None:
            continue
        key = covers.get(line)
        if key is not None and key not in found.beside:
            found.beside[key] = comment[0]
        elif line == first_line and key is None:
            found.head = comment[0]
        else:
            found.body.append(comment[0])
    found.tail.extend(pending)
    return found


# --------------------------------------------------------------------------- boards


def format_board(board: Board, comments: BoardComments | None = None) -> str:
    """The board as canonical board-language text, ending with a newline."""
    # A copy whose entries are used up, so a repeated city or route name cannot repeat a comment.
    comments = copy.deepcopy(comments) if comments is not None else BoardComments()
    if board.extends is None:
        opening = f"board {name(board.id)} {quote(board.title)} {{"
        header = _header_statements(board)
    else:  # a child states only what differs: its title and header statements if written
        stated = {statement for statement, _ in board.statement_spans}
        title = f" {quote(board.title)}" if "title" in stated else ""
        opening = f"board {name(board.id)}{title} extends {name(board.extends)} {{"
        header = [(s, text) for s, text in _header_statements(board) if s in stated]
    lines = [opening + (f"  {comments.head}" if comments.head else "")]
    lines += [f"{INDENT}{c}" for c in comments.body]
    for statement, text in header:
        lines += _with_comments(text, _statement_key(statement), comments)
    cities = [(_city_key(c), format_city(c)) for c in sorted_cities(board)]
    routes = [(_route_key(r), format_route(r)) for r in sorted_routes(board)]
    for edit in board.edits:
        (cities if _edit_key(edit)[0] == "city" else routes).append(
            (_edit_key(edit), format_edit(edit))
        )
    if board.edits:  # additions and edits of one kind together, by the names they touch
        cities.sort(key=lambda item: name_sort_key(item[0][1]))
        routes.sort(key=lambda item: tuple(sorted(name_sort_key(c) for c in item[0][1])))
    if cities and (header or comments.body):
        lines.append("")
    for key, text in cities:
        lines += _with_comments([text], key, comments)
    if routes and (cities or header or comments.body):
        lines.append("")
    for key, text in routes:
        lines += _with_comments([text], key, comments)
    lines += [f"{INDENT}{c}" for c in comments.tail]
    lines.append("}")
    return "\n".join(lines) + "\n"


def _with_comments(statement: list[str], key: tuple, comments: BoardComments) -> list[str]:
    """A statement's lines, indented, with the comments above it and the one beside it."""
    out = [f"{INDENT}{c}" for c in comments.above.pop(key, [])]
    beside = comments.beside.pop(key, None)
    out.append(f"{INDENT}{statement[0]}" + (f"  {beside}" if beside else ""))
    out += [f"{INDENT}{line}" for line in statement[1:]]
    return out


def _header_statements(board: Board) -> list[tuple[str, list[str]]]:
    """The header statements that have a value, in canonical order: (statement, its lines)."""
    out: list[tuple[str, list[str]]] = []
    if board.side:
        out.append(("side", [f"side {quote(board.side)}"]))
    if board.players:
        out.append(("players", [f"players {player_counts(board.players, 'players')}"]))
    if board.original_edition_players:
        counts = player_counts(board.original_edition_players, "original_edition_players")
        out.append(("original_edition_players", [f"original_edition_players {counts}"]))
    if board.countries:
        out.append(("countries", [f"countries {_names(board.countries)}"]))
    if board.east_west is not None:
        west, east = board.east_west
        out.append(("east_west", [f"east_west {name(west)} -- {name(east)}"]))
    out.append(("completed_cities", [f"completed_cities {board.completed_cities}"]))
    sp = board.special_prestige
    if sp is not None:
        spaces = "; ".join(f"{s.points} {s.privilege}" for s in sp.spaces)
        text = f"special_prestige {name(sp.city)} via {name(sp.via[0])} -- {name(sp.via[1])} "
        out.append(("special_prestige", [text + (f"{{ {spaces} }}" if spaces else "{ }")]))
    if board.frame is not None:
        note = f" {quote(board.frame_note)}" if board.frame_note else ""
        out.append(("frame", [f"frame {board.frame[0]} x {board.frame[1]}{note}"]))
    if board.verification:
        block = ["verification {"]
        for key, value in board.verification:
            if isinstance(value, tuple | list):
                text = ", ".join(quote(v) for v in value)
            else:
                text = quote(str(value))
            block.append(f"{INDENT}{name(key)} {text}")
        block.append("}")
        out.append(("verification", block))
    if board.allow_disconnected:
        out.append(("allow_disconnected", ["allow_disconnected"]))
    return out


def format_city(city: City) -> str:
    """`city NAME [ability …] [green] [country …] [permission …] [aka …] [at (X, Y)] { SPACES }`."""
    fields = {f: getattr(city, f) for f in _CITY_FIELD_ORDER}
    return " ".join(["city", name(city.name), *_city_clauses(fields), _spaces(city.spaces)])


# The City fields a city's clauses write, in the canonical clause order.
_CITY_FIELD_ORDER = ("abilities", "hanseatic", "countries", "permissions", "aliases", "position")


def _city_clauses(fields: dict) -> list[str]:
    """The clauses for the City field values in `fields` (a field absent or empty: no clause)."""
    parts: list[str] = []
    if fields.get("abilities"):
        parts += ["ability", " | ".join(fields["abilities"])]
    if fields.get("hanseatic", True) is False:
        parts.append("green")
    if fields.get("countries"):
        parts += ["country", _names(fields["countries"])]
    if fields.get("permissions"):
        parts += ["permission", _names(fields["permissions"])]
    if fields.get("aliases"):
        parts += ["aka", _names(fields["aliases"])]
    position = fields.get("position")
    if position is not None:
        parts.append(f"at ({number(position[0])}, {number(position[1])})")
    return parts


def _spaces(spaces) -> str:
    texts = []
    for space in spaces:
        text = f"{space.shape} {space.privilege}"
        if space.coin:
            text += f" coin {space.coin}"
        texts.append(text)
    return f"{{ {'; '.join(texts)} }}" if texts else "{ }"


def format_route(route: Route) -> str:
    """`route A -- B: POINTS [tavern] [permanent BONUS] [country C]` (land routes alphabetical)."""
    ends = land_route_ends(route)
    points = route.points if ends == route.cities else tuple(reversed(route.points))
    parts = [f"route {name(ends[0])} -- {name(ends[1])}: {_points(points)}"]
    fields = {"tavern": route.tavern, "permanent_bonus": route.permanent_bonus}
    return " ".join(parts + _route_flags({**fields, "country": route.country}))


def _points(points: tuple[str, ...]) -> str:
    if any(p == "merchant" for p in points):
        return " ".join(POINT_WORDS[p] for p in points)
    return str(len(points))


def _route_flags(fields: dict) -> list[str]:
    parts = []
    if fields.get("tavern"):
        parts.append("tavern")
    if fields.get("permanent_bonus"):
        parts.append(f"permanent {fields['permanent_bonus']}")
    if fields.get("country") is not None:
        parts.append(f"country {name(fields['country'])}")
    return parts


# --------------------------------------------------------------------------- a child's edits


def _edit_key(edit: BoardEdit) -> tuple:
    if isinstance(edit, CityChange):
        return ("city", edit.name)
    if isinstance(edit, RouteChange):
        return ("route", frozenset(edit.cities))
    return (edit.what, edit.names[0] if edit.what == "city" else frozenset(edit.names))


def _without(cleared: tuple[str, ...], words: dict[str, str]) -> list[str]:
    if not cleared:
        return []
    word_of = {field_name: word for word, field_name in words.items()}
    return ["without", ", ".join(word_of[f] for f in cleared)]


def _ends(cities: tuple[str, str], points: tuple[str, ...] | None) -> tuple[tuple[str, str], tuple]:
    """A route statement's endpoints: alphabetical unless ship points fix the direction."""
    if points and any(p == "merchant" for p in points):
        return cities, points
    a, b = cities
    if name_sort_key(a) <= name_sort_key(b):
        return (a, b), points or ()
    return (b, a), tuple(reversed(points or ()))


def format_edit(edit: BoardEdit) -> str:
    """`change city …`, `change route …`, `remove city …` or `remove route …`, canonically."""

    if isinstance(edit, Removal):
        if edit.what == "city":
            return f"remove city {name(edit.names[0])}"
        (a, b), _ = _ends(edit.names, None)
        return f"remove route {name(a)} -- {name(b)}"
    values = dict(edit.values)
    if isinstance(edit, CityChange):
        parts = ["change city", name(edit.name), *_city_clauses(values)]
        if "spaces" in values:
            parts.append(_spaces(values["spaces"]))
        return " ".join(parts + _without(edit.cleared, CITY_CLAUSE_FIELDS))
    (a, b), points = _ends(edit.cities, values.get("points"))
    head = f"change route {name(a)} -- {name(b)}"
    if "points" in values:
        head += f": {_points(points)}"
    return " ".join([head, *_route_flags(values), *_without(edit.cleared, ROUTE_FLAG_FIELDS)])


# --------------------------------------------------------------------------- whole files


@dataclass(frozen=True)
class FormattedSource:
    text: str
    boards: int  # how many board declarations were rewritten


def format_source(text: str, file: str) -> FormattedSource:
    """The file with every `board` declaration in canonical form and every `rules` declaration
    canonically indented (compiler/syntax/rules_format.py); all else kept byte for byte.

    Raises HansaError (and formats nothing) if the file does not parse or a board does not lower:
    the formatter never guesses at text it cannot read.
    """

    tree = parse_text(text, file)
    # rule sets: indentation only (compiler/syntax/rules_format.py)
    reindented = reindent_rule_sets(text, tree)
    if reindented != text:
        text = reindented
        tree = parse_text(text, file)
    pieces: list[str] = []
    position = 0
    boards = 0
    for decl in tree.children:
        if getattr(decl, "data", None) != "board":
            continue
        meta = decl.meta
        board = lower_board(decl, file)
        start = meta.start_pos
        # Start the board at the beginning of its line when only blanks precede it there.
        line_start = text.rfind("\n", 0, start) + 1
        prefix = ""
        if not text[line_start:start].strip():
            start = line_start
        else:  # a board starts on its own line
            prefix = "\n"
        end = meta.end_pos
        comments = collect_comments(board, text[meta.start_pos : end], meta.line)
        pieces.append(
            text[position:start].rstrip(" \t") + prefix if prefix else text[position:start]
        )
        pieces.append(format_board(board, comments).rstrip("\n"))
        position = end
        boards += 1
    pieces.append(text[position:])
    result = "".join(pieces)
    if boards:  # a file with boards ends with exactly one newline; others stay as they are
        result = result.rstrip("\n") + "\n"
    return FormattedSource(result, boards)
