"""Finding a game by name, the same way in every command (`--spec DIR`, default `spec/`).

A name is looked up first among the games declared in the spec folder, then among the games built
into the package (`hansa build` output, `hansa.generated`). A spec folder's games are compiled in
memory the first time they are asked for and cached by the hash of the folder's files (and of the
compiler), under `$HANSA_CACHE` or `~/.cache/hansa`: the next command loads the cached module
without importing the compiler at all. Nothing is ever written into the spec folder.

An unknown name is one error that lists what exists and where it looked. Names quoted in messages
are shortened (`shown`), so a 10 MB argument is not echoed back in full.
"""

from __future__ import annotations

import hashlib
import importlib.util
import json
import os
import shutil
import sys
import types
from dataclasses import dataclass, field
from pathlib import Path

import hansa
from hansa.atomic import write_atomically
from hansa.generated import available_games, built_names
from hansa.runtime.errors import Diagnostic, HansaError, Span
from hansa.runtime.game import Game
from hansa.runtime.names import closest, did_you_mean, fold, shown

__all__ = ["closest", "did_you_mean", "fold", "load_game", "shown", "spec_index"]

DEFAULT_SPEC = "spec"
SPEC_SUFFIX = ".hansa"
INDEX_FORMAT = 1


def listing(names, limit: int = 12) -> str:
    """Names for a message: sorted, comma-separated, at most `limit` of them."""
    names = sorted(names)
    if not names:
        return "none"
    text = ", ".join(names[:limit])
    return text + (f", … ({len(names) - limit} more)" if len(names) > limit else "")


# ---------------------------------------------------------------------------- the spec folder


def spec_files(folder: Path) -> list[Path]:
    """The folder's spec files, as `hansa check` finds them (hidden folders left out)."""
    found = []
    for root, dirs, files in os.walk(folder):
        dirs[:] = sorted(d for d in dirs if not d.startswith(".") and d != "__pycache__")
        for name in sorted(files):
            if name.endswith(SPEC_SUFFIX) and not name.startswith("."):
                found.append(Path(root) / name)
    return found


def _compiler_fingerprint() -> str:
    """A hash of the compiler's code, grammar, templates and prelude: a new compiler means a new
    cache."""
    import hansa.compiler

    digest = hashlib.sha256()
    base = Path(hansa.compiler.__file__).parent
    for path in sorted(base.rglob("*")):
        if path.suffix in (".py", ".lark", ".j2", ".hansa") and "__pycache__" not in path.parts:
            digest.update(str(path.relative_to(base)).encode() + b"\0" + path.read_bytes() + b"\0")
    return digest.hexdigest()


def spec_digest(folder: Path) -> str:
    """The hash a spec folder's compiled games are cached under (its files and the compiler)."""
    digest = hashlib.sha256(f"hansa-spec-cache {INDEX_FORMAT}\n".encode())
    digest.update(_compiler_fingerprint().encode())
    for where in (
        str(folder.resolve()),
        str(folder),
        os.getcwd(),
    ):  # paths in messages are as given
        digest.update(where.encode("utf-8", "surrogateescape") + b"\0")
    from hansa.compiler import LIBRARY_DIR

    built_in = [(p, p.relative_to(LIBRARY_DIR)) for p in spec_files(LIBRARY_DIR)]
    own = [(path, path.relative_to(folder)) for path in spec_files(folder)]
    for path, relative in [*own, *((p, Path("<built-in>") / r) for p, r in built_in)]:
        try:
            data = path.read_bytes()
        except OSError:
            data = b"<unreadable>"
        rel = str(relative).encode("utf-8", "surrogateescape")
        digest.update(rel + b"\0" + hashlib.sha256(data).digest())
    return digest.hexdigest()


def cache_root() -> Path:
    if os.environ.get("HANSA_CACHE"):
        return Path(os.environ["HANSA_CACHE"])
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return Path(base) / "hansa"


@dataclass
class SpecIndex:
    """What a spec folder declares, and where each game's compiled module is (or why it is not)."""

    folder: Path
    digest: str
    games: dict[str, dict] = field(default_factory=dict)
    boards: dict[str, dict] = field(default_factory=dict)
    rulesets: dict[str, dict] = field(default_factory=dict)
    broken: list[dict] = field(default_factory=list)  # declarations that failed to parse or lower
    errors: int = 0
    texts: dict[str, str] = field(default_factory=dict)  # module texts when the cache is unwritable

    def to_json(self) -> dict:
        return {
            "format": INDEX_FORMAT,
            "games": self.games,
            "boards": self.boards,
            "rulesets": self.rulesets,
            "broken": self.broken,
            "errors": self.errors,
        }


_INDEXES: dict[str, SpecIndex] = {}
_MODULES: dict[tuple[str, str], types.ModuleType] = {}


def diagnostic_json(d: Diagnostic) -> dict:
    """A diagnostic as data (`hansa check --json`, the cache index): file, line, column, …"""
    span = d.span
    return {
        "message": d.message,
        "severity": d.severity,
        "file": span.file if span else None,
        "line": span.line if span else 0,
        "column": span.column if span else 0,
        "end_line": span.end_line if span else 0,
        "end_column": span.end_column if span else 0,
    }


def _diagnostic(data: dict) -> Diagnostic:
    span = None
    if data.get("file") is not None:
        span = Span(
            data["file"], data["line"], data["column"], data["end_line"], data["end_column"]
        )
    return Diagnostic(data["message"], span, data.get("severity", "error"))


def spec_index(folder: str | Path) -> SpecIndex:
    """The folder's index: from this process, from the disk cache, or by compiling the folder."""
    folder = Path(folder)
    digest = spec_digest(folder)
    if digest in _INDEXES:
        return _INDEXES[digest]
    cached = cache_root() / digest / "index.json"
    index = None
    try:
        data = json.loads(cached.read_text(encoding="utf-8"))
        if data.get("format") == INDEX_FORMAT:
            index = SpecIndex(
                folder,
                digest,
                data["games"],
                data["boards"],
                data["rulesets"],
                data["broken"],
                data["errors"],
            )
            games = index.games.values()
            if any(g["module"] and not _module_path(index, g) for g in games):
                index = None
    except (OSError, ValueError, KeyError, TypeError):
        index = None
    if index is None:
        index = _compile_folder(folder, digest)
    _INDEXES[digest] = index
    return index


def _module_path(index: SpecIndex, game: dict) -> Path | None:
    path = cache_root() / index.digest / f"{game['module']}.py"
    return path if path.is_file() else None


def _compile_folder(folder: Path, digest: str) -> SpecIndex:
    """Load the whole folder with the compiler and compile every game that has no error."""
    from hansa.compiler.nodes.rules import mangle_module_name
    from hansa.compiler.project import load_project
    from hansa.compiler.rules.resolve import resolve
    from hansa.compiler.targets.python.codegen import build_game_module

    project = load_project([folder])
    index = SpecIndex(folder, digest, errors=len(project.errors))
    for name, board in project.own("boards").items():
        index.boards[name] = {
            "title": board.title,
            "players": list(board.players),
            "file": board.span.file if board.span else None,
        }
    for name, rules in project.own("rulesets").items():
        index.rulesets[name] = {
            "title": rules.title,
            "extends": rules.extends,
            "file": rules.span.file if getattr(rules, "span", None) else None,
        }
    index.broken = [
        {"kind": kind, "name": name, "file": file}
        for kind, name, file in getattr(project, "broken", ())
    ]
    root = folder.resolve().parent
    target = cache_root() / digest
    for name, decl in sorted(project.games.items()):
        entry = {
            "players": list(decl.players),
            "rules": decl.rules,
            "board": decl.board,
            "file": decl.span.file,
            "module": None,
            "errors": [],
        }
        index.games[name] = entry
        files = _files_of(project, decl)
        board = project.boards.get(decl.board)
        try:
            problems = [d for d in project.errors if d.span is None or d.span.file in files]
            if problems:  # the errors of what it is built from (not an echo "unknown board")
                raise HansaError(problems)
            rules = resolve(decl.rules, project.rulesets, decl.rules_span)
            files.update(rules.sources)
            problems = [d for d in project.errors if d.span is None or d.span.file in files]
            if problems:
                raise HansaError(problems)
            if board is None:
                raise HansaError(f"unknown board '{decl.board}'", decl.board_span)
            text = build_game_module(decl, rules, board, project.sources, root)
        except HansaError as exc:
            entry["errors"] = [diagnostic_json(d) for d in exc.diagnostics]
            continue
        module = mangle_module_name(name)
        entry["module"] = module
        index.texts[module] = text
        try:
            write_atomically(target / f"{module}.py", text) if _ensure(target) else None
        except HansaError:
            pass  # an unwritable cache: the module is kept in memory instead
    if _ensure(target):
        try:
            write_atomically(target / "index.json", json.dumps(index.to_json(), indent=1) + "\n")
        except HansaError:
            pass
        _prune(cache_root(), keep=target)
    return index


KEEP_CACHED = 24  # compiled spec folders kept in the cache (the most recently compiled)


def _prune(root: Path, keep: Path) -> None:
    """Remove the oldest cached spec folders beyond KEEP_CACHED (only folders this module wrote:
    a 64-hex-digit name holding an index.json), so editing a spec does not fill the disk."""

    try:
        found = [
            p
            for p in root.iterdir()
            if p.is_dir()
            and not p.is_symlink()
            and len(p.name) == 64
            and all(c in "0123456789abcdef" for c in p.name)
            and (p / "index.json").is_file()
            and p != keep
        ]
        found.sort(key=lambda p: (p / "index.json").stat().st_mtime, reverse=True)
    except OSError:
        return
    for old in found[KEEP_CACHED - 1 :]:
        shutil.rmtree(old, ignore_errors=True)


def _files_of(project, decl) -> set[str]:
    """The files a game is built from: its own, its board's, its rule sets' (`extends` chain),
    including declarations that failed to parse or lower (`project.broken`)."""
    broken = {(kind, name): file for kind, name, file in project.broken}
    files = {decl.span.file}
    board = project.boards.get(decl.board)
    if board is not None:
        files.add(board.span.file)
    elif ("board", decl.board) in broken:
        files.add(broken[("board", decl.board)])
    name, seen = decl.rules, set()
    while name and name not in seen:
        seen.add(name)
        rules = project.rulesets.get(name)
        if rules is None:
            if ("rules", name) in broken:
                files.add(broken[("rules", name)])
            break
        files.add(rules.span.file)
        name = rules.extends
    return files


def _ensure(folder: Path) -> bool:
    try:
        folder.mkdir(parents=True, exist_ok=True)
        return True
    except OSError:
        return False


def _load_module(index: SpecIndex, game: dict) -> types.ModuleType:
    key = (index.digest, game["module"])
    if key in _MODULES:
        return _MODULES[key]
    module_name = f"hansa._spec_{index.digest[:12]}_{game['module']}"
    path = _module_path(index, game)
    module = None
    if path is not None:
        spec = importlib.util.spec_from_file_location(module_name, path)
        module = importlib.util.module_from_spec(spec)
        sys.modules[module_name] = module
        try:
            spec.loader.exec_module(module)
        except Exception:  # a damaged cache file: compile again, in memory
            sys.modules.pop(module_name, None)
            path.unlink(missing_ok=True)
            module = None
            index.texts.pop(game["module"], None)
    if module is None:
        text = index.texts.get(game["module"])
        if text is None:  # cache emptied meanwhile: compile again
            _INDEXES.pop(index.digest, None)
            fresh = _compile_folder(index.folder, index.digest)
            _INDEXES[index.digest] = fresh
            text = fresh.texts[game["module"]]
        from hansa.compiler.targets.python.codegen import module_from_text

        module = module_from_text(text, module_name, game["module"])
        sys.modules[module_name] = module
    _MODULES[key] = module
    return module


# ---------------------------------------------------------------------------- games by name


def spec_folder(spec: str | Path | None) -> Path | None:
    """The folder to look in: `spec` as given (it must exist), else ./spec when it has files."""
    if spec is not None:
        folder = Path(spec)
        if not folder.is_dir():
            raise HansaError(f"no spec folder {shown(str(spec))} (--spec names a folder)")
        return folder
    folder = Path(DEFAULT_SPEC)
    if folder.is_dir() and spec_files(folder):
        return folder
    return None


def load_game(
    name: str, players: int | None = None, spec: str | Path | None = None, paths: bool = True
) -> Game:
    """The game `name`: declared in the spec folder (compiled, cached) or built into the package.

    With `paths` (a name the user typed on the command line), a path to a `.hansa` file declaring
    one game compiles that file (with the spec folder's boards and rule sets). A name read from a
    file or a request (a state's or a log's `game`, the web app's requests) passes `paths=False`:
    it is only ever looked up among the games, never opened. Errors of the files the game is built
    from are raised, with their locations.
    """
    if not isinstance(name, str):
        raise HansaError(f"a game name must be text, not {type(name).__name__}")
    folder = spec_folder(spec)
    if paths and name.endswith(SPEC_SUFFIX) and Path(name).is_file():
        return hansa.compile_game(name, players, spec_dir=str(folder or DEFAULT_SPEC))
    index = spec_index(folder) if folder is not None else None
    if index is not None and name in index.games:
        entry = index.games[name]
        if entry["module"] is None:
            raise HansaError([_diagnostic(d) for d in entry["errors"]])
        return Game(_load_module(index, entry), players)
    builtin = available_games()
    if name in builtin:
        module = importlib.import_module(f"hansa.generated.{builtin[name]}")
        return Game(module, players)
    raise unknown("game", name, folder, index, builtin)


def load_native_game(
    name: str, players: int | None = None, spec: str | Path | None = None, paths: bool = True
) -> Game:
    """`load_game` on the native backend (docs/native.md): the same lookup (and its errors), then
    the game's C rule module built from the same spec. A game the native target refuses, or a
    machine without a C compiler, gives one HansaError saying so."""
    game = load_game(name, players, spec, paths)  # an unknown or broken game: its own error
    folder = spec_folder(spec)
    if paths and name.endswith(SPEC_SUFFIX) and Path(name).is_file():
        return hansa.compile_game(
            name, players, spec_dir=str(folder or DEFAULT_SPEC), backend="native"
        )
    index = spec_index(folder) if folder is not None else None
    if index is not None and name in index.games:
        return hansa._native(game.name, players, str(folder))
    return hansa._native(game.name, players, None)


def unknown(
    kind: str, name: str, folder: Path | None, index: SpecIndex | None, builtin
) -> HansaError:
    """One error for an unknown name: the best guess, what exists, and where it looked."""
    declared = dict(index.games) if index is not None else {}
    known = set(declared) | set(builtin)
    parts = [f"unknown {kind} {shown(name)}{did_you_mean(name, known)}"]
    if index is not None:
        hint = ""
        if name in index.boards:
            hint = f"; {shown(name)} is a board there"
        elif name in index.rulesets:
            hint = f"; {shown(name)} is a rule set there"
        broken = [b for b in index.broken if b["name"] == name]
        if broken:
            hint = f"; {shown(name)} is declared in {broken[0]['file']} but has errors"
        parts.append(f"looked in {folder} ({folder.resolve()}): games {listing(declared)}{hint}")
    else:
        parts.append(f"no {DEFAULT_SPEC}/ folder here (--spec DIR names one)")
    extra = sorted(set(builtin) - set(declared))
    if extra or index is None:
        parts.append(f"built-in games: {listing(extra)}")
    return HansaError("; ".join(parts))


def catalogue(spec: str | Path | None = None) -> dict:
    """Every game, rule set and board a command can name (for `hansa list`)."""
    folder = spec_folder(spec)
    index = spec_index(folder) if folder is not None else None
    games = []
    if index is not None:
        for name, entry in sorted(index.games.items()):
            games.append(
                {
                    "name": name,
                    "players": entry["players"],
                    "rules": entry["rules"],
                    "board": entry["board"],
                    "source": entry["file"],
                    "ok": entry["module"] is not None,
                }
            )
    declared = {g["name"] for g in games}
    for name, module_name in sorted(available_games().items()):
        if name in declared:
            continue
        module = importlib.import_module(f"hansa.generated.{module_name}")
        info = module.INFO
        games.append(
            {
                "name": name,
                "players": list(info.player_counts),
                "rules": info.rules,
                "board": info.board,
                "source": "built-in",
                "ok": True,
            }
        )
    listed = {}
    for kind, constant in (("rulesets", "RULESETS"), ("boards", "BOARDS")):
        own = dict(getattr(index, kind)) if index else {}
        built_in = {
            n: {**v, "file": "built-in"} for n, v in built_names(constant).items() if n not in own
        }
        listed[kind] = [
            {"name": n, **v} for n, v in [*sorted(own.items()), *sorted(built_in.items())]
        ]
    return {
        "spec": str(folder) if folder is not None else None,
        "games": games,
        **listed,
        "errors": index.errors if index else 0,
    }
