"""Checking what the editor holds: the workspace's spec files with the unsaved buffers over them.

`check` is `hansa check` on the workspace folder (`load_project` with an overlay of the open
buffers), so a file and every file that extends it or plays on its board are checked together
and each gets the diagnostics `hansa check` would print. A file outside the workspace is checked
alone (with the built-in spec) and says so. Nothing here raises for bad input: whatever the
compiler refuses becomes a diagnostic.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path

from lsprotocol import types
from pygls.uris import from_fs_path

from hansa.compiler.board.format import quote
from hansa.compiler.build.checks import BuildMemo
from hansa.compiler.errors import Diagnostic, HansaError, Span
from hansa.compiler.project import Project, find_spec_files, load_project

from .text import lines_of, span_range, word_range, words_of, words_of_line

SOURCE = "hansa"
OUTSIDE = (
    "this file is outside the workspace folder: it is checked alone (with the built-in spec),"
    " and the workspace's files that may use it are not"
)
_PLAIN_NAME = re.compile(r"[^\W\d]\w*(?:-\w+)*")
_DID_YOU_MEAN = re.compile(r"\(did you mean '((?:[^'\\]|\\.)+)'\?\)")


@dataclass
class Snapshot:
    """One check: the project, the text of each file as checked, and which buffer it was for."""

    project: Project
    texts: dict[str, str] = field(default_factory=dict)
    focus: str = ""
    extra: list[Diagnostic] = field(default_factory=list)
    scope: Path | None = None  # the folder checked (None: the focus file alone)

    def text(self, file: str) -> str | None:
        """A file's text as checked (or as on disk / in the built-in spec)."""
        if file in self.texts:
            return self.texts[file]
        if file in self.project.sources:
            return self.project.sources[file]
        try:
            return Path(file).read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError, ValueError):
            return None

    def lines(self, file: str) -> list[str]:
        return lines_of(self.text(file) or "")


def inside(root: Path | None, file: str) -> bool:
    if root is None:
        return False
    try:
        Path(file).resolve().relative_to(root.resolve())
    except (ValueError, OSError, RuntimeError):
        return False
    return True


def scope_of(root: Path | None, focus: str) -> Path | None:
    """The folder checked with a file: the workspace's `spec/` folder for a file in it (a
    repository's other spec files, test fixtures say, are no part of its spec), the file's own
    folder for another file of such a workspace, else the workspace; None outside it."""
    if root is None or not inside(root, focus):
        return None
    spec = root / "spec"
    if not spec.is_dir():
        return root
    return spec if inside(spec, focus) else Path(focus).parent


def workspace_files(root: Path, buffers: dict[str, str]) -> list[str]:
    """The workspace's spec files on disk, and its unsaved buffers not yet on disk."""
    try:
        on_disk = [str(p) for p in find_spec_files([root])]
    except HansaError:
        on_disk = []
    return sorted(set(on_disk) | {f for f in buffers if inside(root, f)})


def closure(previous: Snapshot | None, buffers: dict[str, str], focus: str) -> list[str] | None:
    """The focus file and the files declaring what it names, and what those name in turn, by
    the declarations of the previous check (None without one): enough to check the focus file
    alone, before the whole workspace tells the files that depend on it."""
    if previous is None:
        return None
    where = {name: span.file for (_, name), span in previous.project.declared_at.items()}
    found, todo = {focus}, [focus]
    while todo:
        file = todo.pop()
        text = buffers.get(file) if file in buffers else previous.text(file)
        for word in words_of(text or ""):
            other = where.get(word.value)
            if other is not None and other not in found:
                found.add(other)
                todo.append(other)
    return sorted(found)


def check(
    root: Path | None,
    buffers: dict[str, str],
    focus: str,
    files: list[str] | None = None,
    cache: dict | None = None,
    builds: BuildMemo | None = None,
) -> Snapshot:
    """`hansa check` of the workspace (or of `focus` alone when it lies outside) with `buffers`
    (path → unsaved text) read instead of the disk; `files` narrows a workspace check to them.
    `cache` keeps each file's parse by its text between checks (`load_project`); it is trimmed
    to the files of this check when it grows, so it never holds more than a few texts a file.
    `builds` keeps each game's check ⇒ build by exactly what its model is built from (bounded),
    so an edit builds again only the games it changes."""
    extra: list[Diagnostic] = []
    scope = scope_of(root, focus)
    whole = files is None  # only a whole check trims the cache (a narrow one would empty it)
    if scope is not None:
        files = files if files is not None else workspace_files(scope, buffers)
    else:
        files = [focus]
        extra.append(Diagnostic(OUTSIDE, Span(focus, 1, 1, 1, 1), "warning"))
    overlay = {f: buffers[f] for f in files if f in buffers}
    try:
        project = load_project(files, overlay=overlay, cache=cache, builds=builds)
        if whole and cache is not None and len(cache) > 4 * max(len(project.files), 8):
            kept = {(str(f), project.sources.get(str(f))) for f in project.files}
            for key in [k for k in cache if k not in kept]:
                del cache[key]
    except HansaError as exc:
        project = Project(diagnostics=list(exc.diagnostics))
    except RecursionError:
        project = Project(diagnostics=[Diagnostic("too deeply nested to check", Span(focus, 1, 1))])
    return Snapshot(project, dict(overlay), focus, extra, scope)


def _definition_of(snapshot: Snapshot, name: str) -> tuple[str, Span] | None:
    """Where a suggested name is declared: a board, rule set or game, or a city of a board."""
    project = snapshot.project
    for attribute in ("boards", "rulesets", "games"):
        declaration = project.declarations(attribute).get(name)
        if declaration is not None and getattr(declaration, "span", None) is not None:
            return attribute, declaration.span
    for board in project.boards.values():
        for city in board.cities:
            if city.name == name and city.span.line > 0:
                return "city", city.span
    return None


def suggestion(d: Diagnostic) -> str | None:
    """The name a diagnostic's "did you mean" suggests, if any."""
    match = _DID_YOU_MEAN.search(d.message)
    return match.group(1).replace("\\'", "'") if match else None


def to_lsp(snapshot: Snapshot, d: Diagnostic) -> types.Diagnostic:
    """A compiler diagnostic as the editor shows it: range, severity, the suggested name's
    declaration as related information, and the suggestion as data for the quick fix."""
    file = d.span.file if d.span is not None else snapshot.focus
    lines = snapshot.lines(file)
    severity = {
        "error": types.DiagnosticSeverity.Error,
        "warning": types.DiagnosticSeverity.Warning,
    }.get(d.severity, types.DiagnosticSeverity.Information)
    related = None
    guess = suggestion(d)
    if guess is not None:
        found = _definition_of(snapshot, guess)
        if found is not None:
            kind, span = found
            where = types.Location(uri_of(span.file), span_range(span, snapshot.lines(span.file)))
            related = [types.DiagnosticRelatedInformation(where, f"'{guess}' is declared here")]
    return types.Diagnostic(
        range=span_range(d.span, lines),
        message=d.message,
        severity=severity,
        source=SOURCE,
        related_information=related,
        data={"replacement": guess} if guess is not None else None,
    )


def uri_of(file: str) -> str:

    return from_fs_path(str(Path(file).absolute())) or file


def diagnostics_by_file(snapshot: Snapshot, root: Path | None) -> dict[str, list[types.Diagnostic]]:
    """Every diagnostic of the check, by file, for the checked folder's files and the focus only
    (the built-in spec's files are the package's, not the author's)."""
    out: dict[str, list[types.Diagnostic]] = {}
    for d in [*snapshot.extra, *snapshot.project.diagnostics]:
        file = d.span.file if d.span is not None else snapshot.focus
        if file != snapshot.focus and not inside(snapshot.scope, file):
            continue
        out.setdefault(file, []).append(to_lsp(snapshot, d))
    return out


def quick_fix(lines: list[str], diagnostic: types.Diagnostic) -> types.TextEdit | None:
    """The one replacement a "did you mean" diagnostic suggests: its range, when that range is a
    single name on one line, becomes the suggested name (quoted as the formatter would)."""
    data = diagnostic.data if isinstance(diagnostic.data, dict) else None
    replacement = data.get("replacement") if data else None
    r = diagnostic.range
    if not isinstance(replacement, str) or r.start.line != r.end.line:
        return None
    if not 0 <= r.start.line < len(lines):
        return None
    words = words_of_line(lines[r.start.line], r.start.line)
    for word in words:
        if word_range(word, lines) == r:
            if word.value == replacement:
                return None

            # a keyword ("did you mean 'when'") is written bare, so is any plain name
            bare = _PLAIN_NAME.fullmatch(replacement) is not None
            return types.TextEdit(r, replacement if bare else quote(replacement))
    return None
