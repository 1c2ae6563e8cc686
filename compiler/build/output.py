"""Writing a build into its output folder so that no interruption leaves it inconsistent.

`hansa build` owns only what its own index recorded: a module is removed only when the `_index.py`
a previous build wrote names it (a user's `notes.py` or a copied module that happens to carry the
generated marker is never touched). The order of writes keeps one invariant at every instant,
even under `kill -9`: the index on disk names only modules that exist.

1. every module is written (each one atomically: a hidden temporary file renamed into place);
2. when modules are to be removed, an index naming the new games *and* the modules being removed
   is written first, so a build killed while removing them still knows they are its own;
3. the stale modules are removed;
4. the final index is written, last.

A file in the folder that is a symbolic link is replaced by a regular file, never written through
(the link could point anywhere). Hidden temporary files that an interrupted build left behind
(`.NAME.py.XXXX.tmp` for a module or index this build owns) are removed.
"""

from __future__ import annotations

import ast
import os
import re
from pathlib import Path

from hansa.atomic import write_atomically

from ..errors import HansaError

INDEX = "_index.py"
_TEMPORARY = re.compile(r"^\.(?P<name>[^/]+\.py)\.[^.]+\.tmp$")


def _literal_assignments(text: str) -> dict[str, object]:
    """`NAME = literal` statements of a module, read without executing it (malformed: {})."""
    try:
        tree = ast.parse(text)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return {}
    found: dict[str, object] = {}
    for node in tree.body:
        if isinstance(node, ast.Assign) and len(node.targets) == 1:
            target = node.targets[0]
            if isinstance(target, ast.Name):
                try:
                    found[target.id] = ast.literal_eval(node.value)
                except (ValueError, TypeError, SyntaxError, RecursionError, MemoryError):
                    continue
    return found


def _module_file(module: object) -> str | None:
    """`module.py` for a recorded module name, or None when it is not a plain identifier (an index
    edited by hand must not make the build delete `../x` or `__init__`)."""
    if isinstance(module, str) and module.isidentifier() and not module.startswith("__"):
        return f"{module}.py"
    return None


def recorded_modules(out: Path) -> set[str]:
    """Module files the index in `out` records as a build's own (games and pending removals)."""
    path = out / INDEX
    if path.is_symlink() or not path.is_file():
        return set()
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError):
        return set()
    values = _literal_assignments(text)
    names: list[object] = []
    games = values.get("GAMES")
    if isinstance(games, dict):
        names += list(games.values())
    removing = values.get("REMOVING")
    if isinstance(removing, (tuple, list)):
        names += list(removing)
    return {f for f in map(_module_file, names) if f is not None and f != INDEX}


def stale_modules(out: Path, files: dict[str, str]) -> list[str]:
    """Modules an earlier build recorded that this build does not write (to be removed)."""
    return sorted(recorded_modules(out) - set(files))


def _current_text(path: Path) -> str | None:
    if path.is_symlink():
        return None  # a link is always replaced by a regular file
    try:
        return path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError):
        return None


def _write(path: Path, text: str) -> None:
    """Atomically, replacing a symbolic link itself rather than the file it points to."""
    write_atomically(path, text, follow_links=False)


def _remove_leftover_temporaries(out: Path, owned: set[str]) -> int:
    removed = 0
    try:
        entries = list(os.scandir(out))
    except OSError:
        return 0
    for entry in entries:
        match = _TEMPORARY.match(entry.name)
        if match and match["name"] in owned and not entry.is_dir(follow_symlinks=False):
            try:
                os.unlink(entry.path)
                removed += 1
            except OSError:
                pass
    return removed


def pending_index(index_text: str, removing: list[str]) -> str:
    """The index of step 2: the new games plus the modules about to be removed."""
    modules = tuple(name[: -len(".py")] for name in removing)
    return index_text + f"REMOVING = {modules!r}\n"


def write_build(out: Path, files: dict[str, str]) -> tuple[int, list[str]]:
    """Write `files` (file name → text, `_index.py` among them) into `out` in the safe order;
    returns (files written, modules removed)."""
    index_text = files[INDEX]
    stale = stale_modules(out, files)
    _remove_leftover_temporaries(out, set(files) | set(stale) | recorded_modules(out))
    written = 0
    for name, text in sorted(files.items()):
        if name == INDEX:
            continue
        path = out / name
        if _current_text(path) == text:
            continue
        _write(path, text)
        written += 1
    if stale:
        _write(out / INDEX, pending_index(index_text, stale))
        for name in stale:
            path = out / name
            try:
                path.unlink(missing_ok=True)
            except OSError as exc:
                raise HansaError(f"{path}: cannot remove: {exc.strerror or exc}") from None
    if _current_text(out / INDEX) != index_text:
        _write(out / INDEX, index_text)
        written += 1
    return written, stale
