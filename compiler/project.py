"""A project: every spec file under some paths, parsed, lowered and checked, with all diagnostics.

`load_project` never stops at the first bad file: each file's syntax or lowering errors become
diagnostics and the other files still load, so `hansa check spec` reports everything at once. Each
top-level declaration is lowered by the function registered for its kind (the grammar's top rule
name). Other languages plug in here without touching this module's logic:

    LOWERERS["rules"] = ("rulesets", "rules.lower:lower_rules")     # or register_lowerer(...)
    CHECKERS.append("rules.stage:check_project")                    # or register_checker(...)

A lowerer is `fn(tree, file) -> declaration` (the declaration has a `.name` or `.id`); a checker is
`fn(project) -> list[Diagnostic]` and runs after every file is loaded. Entries may be callables or
"module:function" strings naming a module of this package, imported only when first needed (so a
lowering module may itself import this one).
"""

from __future__ import annotations

import importlib
import os
import re
import unicodedata
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from hansa.runtime.names import closest, shown

from . import LIBRARY_DIR
from .board.checks import check_board
from .board.extend import resolve_boards
from .errors import Diagnostic, HansaError, Span, did_you_mean, format_diagnostics
from .nodes.board import Board
from .syntax.parser import parse_text, read_source, source_text, span_of

SPEC_SUFFIX = ".hansa"
DEFAULT_SPEC_DIR = Path("spec")

Lowerer = Callable[[Any, str], Any]
Checker = Callable[["Project"], list[Diagnostic]]

# declaration kind (a top rule of the grammar) -> (Project attribute it goes into, lowering fn)
LOWERERS: dict[str, tuple[str, Lowerer | str]] = {
    "board": ("boards", "board.lower:lower_board"),
    "rules": ("rulesets", "rules.lower:lower_rules"),
    "game": ("games", "rules.lower:lower_game"),
    "define": (
        "kinds",
        "rules.prelude:refuse_define",
    ),  # the package's prelude only (compiler/rules/prelude.py)
}
# project-wide checks, run in order after loading (board checks first)
CHECKERS: list[Checker | str] = [
    "project:check_boards",
    "rules.stage:check_project",
    "build.checks:check_buildable",  # last: check ⇒ build
]

# Words for declaration kinds in messages ("board 'x' is declared twice").
KIND_WORDS = {"boards": "board", "rulesets": "rule set", "games": "game"}


def register_lowerer(kind: str, attribute: str, lowerer: Lowerer | str) -> None:
    """Lower top-level `kind` trees with `lowerer` and keep them in `Project.<attribute>`."""
    LOWERERS[kind] = (attribute, lowerer)


def register_checker(checker: Checker | str) -> None:
    """Run `checker(project)` after loading; it returns diagnostics (errors and warnings)."""
    if checker not in CHECKERS:
        CHECKERS.append(checker)


def _resolve(entry: Callable | str) -> Callable:
    if callable(entry):
        return entry
    module_name, _, function = entry.partition(":")
    module = importlib.import_module(f"{__package__}.{module_name}")
    return getattr(module, function)


@dataclass
class Project:
    """Everything declared under the loaded paths, by name, plus every diagnostic found."""

    files: list[Path] = field(default_factory=list)
    sources: dict[str, str] = field(default_factory=dict)  # file name -> text
    boards: dict[str, Board] = field(default_factory=dict)
    rulesets: dict[str, Any] = field(default_factory=dict)
    games: dict[str, Any] = field(default_factory=dict)
    diagnostics: list[Diagnostic] = field(default_factory=list)
    # (attribute, name) -> span of the declaration, for "declared twice" messages
    declared_at: dict[tuple[str, str], Span] = field(default_factory=dict)
    # (kind, name, file) of declarations that failed to parse or lower: their errors are reported
    # once, and a game or rule set naming them gets no second "unknown …" error
    broken: list[tuple[str, str, str]] = field(default_factory=list)
    # (attribute, name) of the built-in declarations taken in because the loaded files use them
    from_library: set[tuple[str, str]] = field(default_factory=set)
    # name -> the board as written, for each board that extends another (`boards` holds it folded)
    extended_boards: dict[str, Board] = field(default_factory=dict)
    # what check ⇒ build keeps between checks of a caller that checks again and again
    # (`build.checks.BuildMemo`, `load_project`'s `builds`); None: nothing is kept
    build_memo: Any = field(default=None, repr=False, compare=False)

    def own(self, attribute: str) -> dict[str, Any]:
        """The declarations of one kind from the loaded files themselves (no built-in ones)."""
        return {
            name: decl
            for name, decl in self.declarations(attribute).items()
            if (attribute, name) not in self.from_library
        }

    @property
    def errors(self) -> list[Diagnostic]:
        return [d for d in self.diagnostics if d.severity == "error"]

    @property
    def warnings(self) -> list[Diagnostic]:
        return [d for d in self.diagnostics if d.severity == "warning"]

    def declarations(self, attribute: str) -> dict[str, Any]:
        """The dict of declarations of one kind (creating it for kinds registered later)."""
        if not hasattr(self, attribute):
            setattr(self, attribute, {})
        return getattr(self, attribute)

    def format_diagnostics(self, diagnostics: Iterable[Diagnostic] | None = None) -> str:
        """Diagnostics as `file:line:col: severity: message` with source line and caret."""
        chosen = self.diagnostics if diagnostics is None else diagnostics
        return format_diagnostics(chosen, self.sources)

    def raise_for_errors(self) -> None:
        """Raise one HansaError with every error (commands that need a clean project)."""
        if self.errors:
            raise HansaError(self.errors)


def find_spec_files(paths: Iterable[str | Path]) -> list[Path]:
    """Spec files named by `paths`: files as given, folders searched recursively for `*.hansa`.

    Hidden folders (`.git`, `.venv`, …) are not searched. A missing path, or a folder holding no
    spec file, is a HansaError.
    """
    found: list[Path] = []
    paths = list(paths)
    if not paths:
        raise HansaError("no spec files or folders given")
    for raw in paths:
        path = Path(raw)
        if not path.exists():
            raise HansaError("no such file or directory", Span(str(raw), 0, 0))
        if path.is_dir():
            inside = sorted(_walk_spec_files(path))
            if not inside:
                raise HansaError(f"no spec files (*{SPEC_SUFFIX}) in {raw}", Span(str(raw), 0, 0))
            found.extend(inside)
        else:
            found.append(path)
    unique: dict[Path, Path] = {}
    for path in found:
        unique.setdefault(path.resolve(), path)
    return list(unique.values())


def _walk_spec_files(folder: Path) -> Iterable[Path]:
    for root, dirs, files in os.walk(folder):
        dirs[:] = [d for d in dirs if not d.startswith(".") and d != "__pycache__"]
        for name in files:
            if name.endswith(SPEC_SUFFIX) and not name.startswith("."):
                yield Path(root) / name


def load_project(
    paths: Iterable[str | Path],
    library: bool = True,
    overlay: Mapping[str, str] | None = None,
    cache: dict | None = None,
    builds: Any = None,
) -> Project:
    """Parse, lower and check every spec file under `paths`; problems become diagnostics.

    With `library`, a board or rule set the files use but do not declare is taken from the
    built-in spec (`LIBRARY_DIR`), with whatever it uses in turn. `overlay` maps a file's path to
    the text to check instead of what is on disk (an editor's unsaved buffer, `hansa lsp`); such a
    file need not exist on disk. `cache` (a dict the caller keeps) holds each file's parse and
    lowering by its text, so a file whose text is unchanged is not parsed again. `builds` (a
    `build.checks.BuildMemo` the caller keeps) holds what check ⇒ build found for each game by
    exactly what its model is built from, so a game whose inputs are unchanged is not built again.
    """
    paths = list(paths)
    overlay = dict(overlay or {})
    unsaved = [Path(p) for p in paths if str(p) in overlay and not Path(p).exists()]
    saved = [p for p in paths if Path(p) not in unsaved]
    project = Project(files=(find_spec_files(saved) if saved or not unsaved else []) + unsaved)
    project.build_memo = builds
    for path in project.files:
        _load_file(project, path, overlay.get(str(path)), cache)
    if library:
        _take_from_library(project)
    _resolve_extended_boards(project)
    for checker in CHECKERS:
        project.diagnostics.extend(_resolve(checker)(project))
    project.diagnostics = sorted_unique(_without_echoes(project, project.diagnostics))
    return project


# "unknown board 'x'", "unknown rule set 'x'", as the checks and `extends` resolution word them
_PLAIN_NAME = re.compile(r"[^\W\d][\w-]*")
_UNKNOWN_NAME = re.compile(r"unknown (board|rule set) '((?:[^'\\]|\\.)*)'")
_DECLARATION = re.compile(
    r'^[ \t]*(board|rules|game)[ \t]+("(?:[^"\\\n]|\\.)*"|[^\W\d][\w-]*)', re.M
)


def _without_echoes(project: Project, diagnostics: list[Diagnostic]) -> list[Diagnostic]:
    """Drop "unknown board/rule set 'x'" errors when 'x' is declared but failed to parse or lower:
    its own errors say what is wrong; the echo at every game using it (with a did-you-mean
    pointing elsewhere) would only bury them."""
    broken = {({"rules": "rule set"}.get(kind, kind), name) for kind, name, _ in project.broken}
    if not broken:
        return diagnostics
    # a declaration whose name could not be read (`rules "A title" extends …`) may be any name
    nameless = {kind for kind, name in broken if not _PLAIN_NAME.fullmatch(name)}
    kept = []
    for d in diagnostics:
        match = _UNKNOWN_NAME.search(d.message)
        if d.severity == "error" and match and (match.group(1), match.group(2)) in broken:
            continue
        if d.severity == "error" and match and match.group(1) in nameless:
            continue
        kept.append(d)
    return kept


def _name_of(token: Any) -> str:
    if hasattr(token, "children") and token.children:  # `rules NAME`: an r_name tree
        token = token.children[0]
    text = str(token)
    if text.startswith('"') and text.endswith('"') and len(text) >= 2:
        text = text[1:-1].replace('\\"', '"').replace("\\\\", "\\")
    return unicodedata.normalize("NFC", text)


# A line that looks like a declaration's head whose keyword is missing or misspelt
# (`ring "The Ring" {`, `bord ring "The Ring" {`, `rule quick "Quick" extends …`).
_HEADLESS = re.compile(
    r'^[ \t]*(?:"[^"\n]*"[ \t]+|[^\s"]+[ \t]+|[^\w\s"]+)?'  # a stray word or sign before it
    r"((?:[^\W\d][\w-]*[ \t]+){1,3})"  # up to three words: keyword, name (either mistyped)
    r'(?:"|\{|=|extends\b)',  # then a title, a block, `=` or `extends`
    re.M,
)


def _declarations_in_text(text: str) -> list[tuple[str, str]]:
    """(kind, name) of the declarations a file seems to hold, by their keywords alone."""
    return [(kind, _name_of(name)) for kind, name in _DECLARATION.findall(text)]


def _declarations_in_broken_text(text: str) -> list[tuple[str, str]]:
    """(kind, name) of the declarations a file that does not parse may hold: those with their
    keyword, a head whose name could not be read as any name ("?"), and under every kind the
    names of heads whose keyword is missing or misspelt (so a game naming one is not told it is
    unknown: the file's syntax error says why)."""
    found = _declarations_in_text(text)
    for line in re.finditer(r"^[ \t]*(board|rules|game)\b[^\n]*", text, re.M):
        if not _DECLARATION.match(line.group()):
            found.append((line.group(1), "?"))
    for words in _HEADLESS.findall(text):
        for name in words.split():
            if name not in ("board", "rules", "game", "define", "extends"):
                found += [(kind, name) for kind in ("board", "rules", "game")]
    return found


@dataclass(frozen=True)
class _FileResult:
    """What one file adds to a project: its text, diagnostics, the declarations that failed
    (kind, name, file) and the lowered ones (attribute, declaration, span). Lowered declarations
    are frozen, so a result may be added to several projects (`load_project`'s `cache`)."""

    text: str
    diagnostics: tuple[Diagnostic, ...] = ()
    broken: tuple[tuple[str, str, str], ...] = ()
    declarations: tuple[tuple[str, Any, Span], ...] = ()


def _read_file(path: Path, text: str) -> _FileResult:
    """Parse and lower one file's text (read already)."""
    file = str(path)
    try:
        tree = parse_text(text, file)
    except HansaError as err:
        broken = tuple((kind, name, file) for kind, name in _declarations_in_broken_text(text))
        return _FileResult(text, tuple(err.diagnostics), broken)
    diagnostics: list[Diagnostic] = []
    broken_list: list[tuple[str, str, str]] = []
    declarations: list[tuple[str, Any, Span]] = []
    for declaration in tree.children:
        kind = declaration.data
        if kind not in LOWERERS:  # a top rule nobody registered a lowering for
            diagnostics.append(
                Diagnostic(
                    f"'{kind}' declarations are not supported yet", span_of(declaration, file)
                )
            )
            continue
        attribute, lowerer = LOWERERS[kind]
        try:
            lowered = _resolve(lowerer)(declaration, file)
        except HansaError as err:
            diagnostics.extend(err.diagnostics)
            if declaration.children:
                broken_list.append((kind, _name_of(declaration.children[0]), file))
            continue
        declarations.append((attribute, lowered, span_of(declaration, file)))
    return _FileResult(text, tuple(diagnostics), tuple(broken_list), tuple(declarations))


def _load_file(
    project: Project, path: Path, unsaved: str | None = None, cache: dict | None = None
) -> None:
    """Add one file to the project; with `cache` ((file, text) → result), a file whose text
    was read before is not parsed and lowered again."""
    file = str(path)
    try:
        text = read_source(path) if unsaved is None else source_text(unsaved, file)
    except HansaError as err:
        project.diagnostics.extend(err.diagnostics)
        return
    result = cache.get((file, text)) if cache is not None else None
    if result is None:
        result = _read_file(path, text)
        if cache is not None:
            cache[(file, text)] = result
    project.sources[file] = result.text
    project.diagnostics.extend(result.diagnostics)
    project.broken.extend(result.broken)
    for attribute, lowered, span in result.declarations:
        _add_declaration(project, attribute, lowered, span)


_LIBRARY: Project | None = None


def library_project() -> Project | None:
    """The built-in spec, loaded once per process (None if this installation has none)."""
    global _LIBRARY
    if _LIBRARY is None and LIBRARY_DIR.is_dir():
        library = Project(files=sorted(_walk_spec_files(LIBRARY_DIR)))
        for path in library.files:
            _load_file(library, path)
        _resolve_extended_boards(library)
        _LIBRARY = library
    return _LIBRARY


def _used_names(declaration: Any) -> list[tuple[str, str]]:
    """(attribute, name) of the boards and rule sets a declaration names."""
    if isinstance(declaration, Board):  # `board mine extends PARENT`
        return [("boards", declaration.extends)] if declaration.extends else []
    used = []
    for attribute, field_name in (
        ("rulesets", "extends"),
        ("rulesets", "rules"),
        ("boards", "board"),
    ):
        value = getattr(declaration, field_name, None)
        if isinstance(value, str):
            used.append((attribute, value))
    return used


def _take_from_library(project: Project) -> None:
    """Add the built-in boards and rule sets that the loaded declarations use and lack."""
    wanted = [
        used
        for attribute in ("boards", "rulesets", "games")
        for declaration in project.declarations(attribute).values()
        for used in _used_names(declaration)
    ]
    _take_names(project, wanted)


def builtin_file(name: str) -> Path | None:
    """The built-in spec file declaring the board, rule set or game `name` (None if none does)."""
    library = library_project()
    for attribute in ("games", "boards", "rulesets"):
        declaration = library.declarations(attribute).get(name) if library else None
        span = getattr(declaration, "span", None)
        if span is not None and span.file:
            return Path(span.file)
    return None


def take_from_library(project: Project, name: str) -> bool:
    """Add the built-in board, rule set or game called `name` (and what it uses) to a project
    that declares nothing by that name; True if the built-in spec has one."""
    library = library_project()
    if library is None:
        return False
    wanted = [
        (attribute, name)
        for attribute in ("boards", "rulesets", "games")
        if name in library.declarations(attribute) and name not in project.declarations(attribute)
    ]
    found = bool(wanted)
    _take_names(project, wanted)
    _resolve_extended_boards(project)
    return found


def _take_names(project: Project, wanted: list[tuple[str, str]]) -> None:
    broken = {(_ATTRIBUTE_OF_KIND.get(kind, kind), name) for kind, name, _ in project.broken}
    library = None
    while wanted:
        attribute, name = wanted.pop()
        if name in project.declarations(attribute) or (attribute, name) in broken:
            continue
        library = library or library_project()
        if library is None:
            return
        built_in = library.declarations(attribute)
        declaration = built_in.get(name)
        if declaration is None:  # a misspelt name: take the nearest built-in one in, for the
            guess = closest(name, built_in)
            if guess is not None and guess not in project.declarations(attribute):
                wanted.append((attribute, guess))
            continue
        project.declarations(attribute)[name] = declaration
        project.from_library.add((attribute, name))
        span = getattr(declaration, "span", None)
        if span is not None and span.file in library.sources:
            project.sources.setdefault(span.file, library.sources[span.file])
        wanted.extend(_used_names(declaration))


_ATTRIBUTE_OF_KIND = {"board": "boards", "rules": "rulesets", "game": "games"}


def _declaration_name(declaration: Any) -> str:
    name = getattr(declaration, "name", None)
    return name if isinstance(name, str) else declaration.id


def _add_declaration(project: Project, attribute: str, declaration: Any, span: Span) -> None:
    name = _declaration_name(declaration)
    table = project.declarations(attribute)
    span = getattr(declaration, "span", None) or span
    if name in table:
        first = project.declared_at[(attribute, name)]
        what = KIND_WORDS.get(attribute, attribute.rstrip("s"))
        project.diagnostics.append(
            Diagnostic(f"{what} '{name}' is declared twice; it was first declared at {first}", span)
        )
        return
    table[name] = declaration
    project.declared_at[(attribute, name)] = span


def _resolve_extended_boards(project: Project) -> None:
    """Fold each `board … extends PARENT` into a complete board (compiler/board/extend.py), in
    place; a child that cannot be folded is reported and left out (as a board that failed to
    lower), so games on it get no second error."""

    if not any(b.extends is not None for b in project.boards.values()):
        return
    broken = {name for kind, name, _ in project.broken if kind == "board"}
    children = {n: b for n, b in project.boards.items() if b.extends is not None}
    resolved, diagnostics, failed = resolve_boards(project.boards, broken)
    project.diagnostics.extend(diagnostics)
    project.boards.clear()
    project.boards.update(resolved)
    project.extended_boards.update({n: b for n, b in children.items() if n in resolved})
    for name in failed:
        project.broken.append(("board", name, children[name].span.file))


def check_boards(project: Project) -> list[Diagnostic]:
    """The board checks (`board_checks.check_board`) for every board of the project.

    A board that extends another is checked as the complete board it folds into; a finding on
    something it inherited unchanged is reported at its `extends` clause (the author's line),
    naming where the parent states it, and none when the parent itself has that error."""
    diagnostics: list[Diagnostic] = []
    for name, board in project.boards.items():
        found = check_board(board)
        child = project.extended_boards.get(name)
        if child is not None:
            found = _at_the_child(found, child, project)
        diagnostics.extend(found)
    return diagnostics


def _at_the_child(found: list[Diagnostic], child: Board, project: Project) -> list[Diagnostic]:
    parent = project.boards.get(child.extends or "")
    parent_messages = {d.message for d in check_board(parent)} if parent is not None else set()
    out = []
    for d in found:
        if d.span is not None and d.span.file == child.span.file:
            out.append(d)
        elif d.message not in parent_messages:
            shown = (
                f" (inherited from {child.extends}, {d.span.file}:{d.span.line})" if d.span else ""
            )
            out.append(replace(d, message=d.message + shown, span=child.extends_span))
    return out


_DIGITS = re.compile(r"\d[\d,]*")


def sorted_unique(diagnostics: list[Diagnostic]) -> list[Diagnostic]:
    """Diagnostics in file order (file, line, column), each once; file-level ones first per file.

    One cause is said once: diagnostics at the same place whose messages differ only in their
    numbers (a check run once per player count, per seat, per space) become the first of them,
    with "(and N more like it)"."""
    seen: set[tuple] = set()
    groups: dict[tuple, list[Diagnostic]] = {}
    for d in diagnostics:
        key = (d.message, d.span, d.severity)
        if key in seen:
            continue
        seen.add(key)
        groups.setdefault((_DIGITS.sub("#", d.message), d.span, d.severity), []).append(d)
    out = [
        first
        if not more
        else replace(first, message=f"{first.message} (and {len(more):,} more like it)")
        for first, *more in groups.values()
    ]

    def position(d: Diagnostic) -> tuple:
        span = d.span or Span("", 0, 0)
        return (span.file, span.line, span.column)

    return sorted(out, key=position)


# ------------------------------------------------------------------------------ finding one board


def load_board(name_or_path: str | Path, spec_dir: str | Path = DEFAULT_SPEC_DIR) -> Board:
    """A checked board: `name_or_path` is a spec file (its one board) or a board's name in spec_dir.

    Raises HansaError when the file or name is unknown, or the board has errors (its syntax,
    lowering or check errors, each with its location).
    """
    text = str(name_or_path)
    path = Path(text)
    if path.is_file() or text.endswith(SPEC_SUFFIX):
        project = load_project([path])
        board_errors = [d for d in project.errors if d.span is None or d.span.file == str(path)]
        if board_errors:
            raise HansaError(board_errors)
        own = project.own("boards")  # not a built-in parent the file's board extends
        if len(own) != 1:
            names = ", ".join(sorted(own)) or "none"
            count = len(own)
            raise HansaError(
                f"expected one board in the file, found {count} ({names}); name the board instead",
                Span(str(path), 0, 0),
            )
        return project.boards[next(iter(own))]
    spec = Path(spec_dir)
    project = load_project([spec]) if spec.is_dir() else Project()
    board = project.boards.get(text)
    if board is None and take_from_library(project, text):
        board = project.boards.get(text)  # a built-in board, found from any folder
    if board is None:
        library = library_project()
        known = set(project.boards) | set(library.boards if library else ())
        hint = did_you_mean(text, known)
        if text in project.rulesets:
            hint = f" ('{text}' is a rule set, not a board)"
        elif text in project.games:
            hint = f" ('{text}' is a game; its board is '{project.games[text].board}')"
        where = f"in {spec}/ nor built in" if spec.is_dir() else f"built in (and no {spec}/ folder)"
        mine = ", ".join(sorted(project.own("boards"))) or "none"
        listed = f"boards in {spec}/: {mine}; " if spec.is_dir() else ""
        missing = Diagnostic(
            f"no board named {shown(text)} {where}{hint} ({listed}`hansa list` shows the built-in"
            " ones)"
        )
        raise HansaError([missing, *project.errors])
    file = board.span.file
    board_errors = [d for d in project.errors if d.span is not None and d.span.file == file]
    if board_errors:
        raise HansaError(board_errors)
    return board
