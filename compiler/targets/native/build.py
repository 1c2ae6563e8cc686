"""Build a native rule module's C source into an extension with the system C compiler, cached
outside the checkout (`$HANSA_CACHE/native`, else `~/.cache/hansa/native`).

The extension uses CPython's C API directly (no cffi): a state is a C object whose methods the
interpreter calls without a foreign-function layer, so a per-decision call costs what a call to
a built-in method costs, and the backend needs no extra package.

Loading a shared library runs its code, so nothing is loaded from the cache unverified
(docs/native.md, "Building and the cache"):
- the cache folder and its `native` subfolder are created mode 0700 and refused (one HansaError)
  when another user owns either or either is group- or world-writable;
- each extension `NAME.so` has a record `NAME.json` beside it, written (atomically) after the
  build by this user: the SHA-256 of the extension and of its C source. The extension is loaded
  only when it and its record are regular files (not links) owned by this user and the file's
  hash is the recorded one; anything else (no record, another hash, a truncated or foreign file,
  a link) is rebuilt, the new file renamed over the old one, and only then loaded.
- game records (`game-KEY.json`, `write_game_record`) name the extension a game's key was built
  into, so a warm load reads a record instead of rendering the C (hansa/native.py, `load_native`).
"""

from __future__ import annotations

import hashlib
import importlib.machinery
import importlib.util
import json
import os
import shutil
import stat
import subprocess
import sysconfig
import tempfile
from pathlib import Path

from hansa.atomic import write_atomically

from ...errors import HansaError

_LOADED: dict[str, object] = {}
RECORD_FORMAT = 1
SUFFIX = importlib.machinery.EXTENSION_SUFFIXES[0]


def cache_dir() -> Path:
    """Where the extensions are kept (the path only: `private_cache_dir` creates and checks it)."""
    root = os.environ.get("HANSA_CACHE")
    base = Path(root) if root else Path.home() / ".cache" / "hansa"
    return base / "native"


def _refuse(folder: Path, why: str) -> HansaError:
    return HansaError(
        f"the native build cache {folder} is not safe to use: {why}; an extension loaded from it"
        " runs as you, so nothing is loaded from there. Set HANSA_CACHE to a private folder"
        " (yours, not writable by group or others), or fix this one (chown/chmod go-w)"
    )


def private_cache_dir(create: bool = True) -> Path | None:
    """`cache_dir()`, checked: it and its parent (the cache root) must be folders owned by this
    user and not writable by group or others. `create` makes the missing ones, mode 0700;
    without it a missing folder gives None (nothing cached to read)."""
    folder = cache_dir()
    me = os.geteuid()
    for path in (folder.parent, folder):
        try:
            if create:
                path.mkdir(mode=0o700, parents=True, exist_ok=True)
            info = path.stat()
        except FileNotFoundError:
            if not create:
                return None
            raise _cannot_create(path, "no such folder") from None
        except OSError as exc:
            raise _cannot_create(path, exc.strerror or str(exc)) from None
        if not stat.S_ISDIR(info.st_mode):
            raise _refuse(path, "it is not a folder")
        if info.st_uid != me:
            raise _refuse(path, f"it is owned by uid {info.st_uid}, not by you (uid {me})")
        if info.st_mode & 0o022:
            mode = stat.S_IMODE(info.st_mode)
            raise _refuse(path, f"it is writable by group or others (mode {mode:04o})")
    return folder


def _cannot_create(path: Path, why: str) -> HansaError:
    return HansaError(
        f"cannot use the native build cache {path}: {why};"
        " set HANSA_CACHE to a private folder you can write"
    )


def _read_own(path: Path) -> bytes | None:
    """The bytes of `path` when it is a regular file owned by this user (never through a link);
    None otherwise (missing, a link, a folder, another owner, unreadable)."""
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_CLOEXEC | os.O_NONBLOCK)
    except OSError:
        return None
    try:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode) or info.st_uid != os.geteuid():
            return None
        with os.fdopen(fd, "rb", closefd=False) as stream:
            return stream.read()
    except OSError:
        return None
    finally:
        os.close(fd)


def _read_record(path: Path) -> dict | None:
    data = _read_own(path)
    if data is None:
        return None
    try:
        record = json.loads(data)
    except ValueError:
        return None
    if not isinstance(record, dict) or record.get("format") != RECORD_FORMAT:
        return None
    return record


def verified_extension(name: str, folder: Path | None = None) -> Path | None:
    """The path of extension `name` when its record verifies it (see the module's docstring),
    else None: it must then be rebuilt, never loaded."""
    folder = folder or private_cache_dir(create=False)
    if folder is None:
        return None
    record = _read_record(folder / f"{name}.json")
    if record is None or record.get("module") != name or record.get("uid") != os.geteuid():
        return None
    target = folder / f"{name}{SUFFIX}"
    data = _read_own(target)
    if data is None or hashlib.sha256(data).hexdigest() != record.get("sha256"):
        return None
    return target


def _remove(path: Path) -> None:
    try:
        path.unlink()
    except FileNotFoundError:
        pass
    except OSError as exc:
        raise HansaError(f"cannot replace {path} in the native build cache: {exc}") from None


def native_module_name(c_source: str) -> str:
    """The extension's module name, as written in its PyInit_ function (the name of its file in
    the cache)."""
    start = c_source.index("PyMODINIT_FUNC PyInit_") + len("PyMODINIT_FUNC PyInit_")
    return c_source[start : c_source.index("(", start)]


def build_extension(c_source: str) -> Path:
    """The path of the built extension for `c_source`: taken from the cache when its record
    verifies it, compiled (and the cached file atomically replaced) otherwise."""
    name = native_module_name(c_source)
    found = verified_extension(name)
    if found is not None:
        return found
    compiler = find_compiler()  # before the cache is made: no compiler, nothing written
    include = sysconfig.get_paths()["include"]
    if not (Path(include) / "Python.h").exists():
        raise HansaError(
            f"the native backend needs the Python headers (Python.h, not found in {include});"
            " install the Python development package or use the Python backend"
        )
    out_dir = private_cache_dir()
    source_hash = hashlib.sha256(c_source.encode("utf-8")).hexdigest()
    target = out_dir / f"{name}{SUFFIX}"
    record_path = out_dir / f"{name}.json"
    try:
        with tempfile.TemporaryDirectory(dir=out_dir) as tmp:
            src = Path(tmp) / f"{name}.c"
            src.write_text(c_source, encoding="utf-8")
            built = Path(tmp) / f"{name}{SUFFIX}"
            command = [compiler, "-O2", "-shared", "-fPIC", "-std=gnu11", f"-I{include}"]
            # the greedy policy's doubles computed as Python computes them: no fused multiply-add
            command += ["-ffp-contract=off"]
            # a pointer to a state field of another width than its kind's type is an error
            command += ["-Werror=incompatible-pointer-types"]
            command += ["-o", str(built), str(src), "-lm"]
            result = subprocess.run(command, capture_output=True, text=True)
            if result.returncode != 0:
                raise HansaError(
                    f"the C compiler failed on the native module {name}:\n{result.stderr[-4000:]}"
                )
            digest = hashlib.sha256(built.read_bytes()).hexdigest()
            _remove(record_path)  # no record vouches for the file while it is being replaced
            os.replace(built, target)  # atomic; a link or foreign file there is replaced, not used
            os.replace(src, out_dir / f"{name}.c")  # kept for reading; never compiled from
    except OSError as exc:  # e.g. a folder planted where the extension goes
        raise HansaError(
            f"cannot write {target} into the native build cache: {exc.strerror or exc};"
            " remove it, or set HANSA_CACHE to another private folder"
        ) from None
    record = {
        "format": RECORD_FORMAT,
        "module": name,
        "uid": os.geteuid(),
        "sha256": digest,
        "source_sha256": source_hash,
    }
    write_atomically(record_path, json.dumps(record, indent=1) + "\n", follow_links=False)
    return target


def find_compiler() -> str:
    """The C compiler: $CC, else cc, gcc or clang on PATH; a clear error when there is none."""
    candidates = [os.environ["CC"]] if os.environ.get("CC") else ["cc", "gcc", "clang"]
    for name in candidates:
        found = shutil.which(name.split()[0]) if name else None
        if found:
            return found
    raise HansaError(
        "the native backend needs a C compiler and none was found (looked for "
        + (f"$CC={os.environ['CC']!r}" if os.environ.get("CC") else "cc, gcc, clang")
        + "); install one (e.g. apt-get install gcc) or use the Python backend"
    )


def _import(name: str, path: Path):
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    try:
        spec.loader.exec_module(module)
    except ImportError as exc:
        raise HansaError(f"the native module {name} cannot be loaded ({exc})") from None
    _LOADED[name] = module
    return module


def load_extension(c_source: str):
    """The built extension module of `c_source`, imported once per process (verified first)."""
    name = native_module_name(c_source)
    module = _LOADED.get(name)
    if module is None:
        module = _import(name, build_extension(c_source))
    return module


def load_cached(name: str):
    """Extension `name` when this process has it or the cache holds it verified; None when it
    must be built (from its C source, `load_extension`)."""
    module = _LOADED.get(name)
    if module is None:
        path = verified_extension(name)
        if path is not None:
            module = _import(name, path)
    return module


def read_game_record(key: str) -> dict | None:
    """The game record of `key` (`write_game_record`), None when there is none to trust."""
    folder = private_cache_dir(create=False)
    return None if folder is None else _read_record(folder / f"game-{key}.json")


def write_game_record(key: str, record: dict) -> None:
    """Remember what a game's key was built into (atomically; a link there is replaced)."""
    data = {"format": RECORD_FORMAT, **record}
    write_atomically(private_cache_dir() / f"game-{key}.json", json.dumps(data), follow_links=False)
