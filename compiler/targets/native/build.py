"""Build a native rule module's C source into an extension with the system C compiler, cached by
the source's hash outside the checkout (`$HANSA_CACHE`, else `~/.cache/hansa/native`).

The extension uses CPython's C API directly (no cffi): a state is a C object whose methods the
interpreter calls without a foreign-function layer, so a per-decision call costs what a call to
a built-in method costs, and the backend needs no extra package.
"""

from __future__ import annotations

import importlib.machinery
import importlib.util
import os
import shutil
import subprocess
import sysconfig
import tempfile
from pathlib import Path

from ...errors import HansaError
from .codegen import native_module_name

_LOADED: dict[str, object] = {}


def cache_dir() -> Path:
    root = os.environ.get("HANSA_CACHE")
    base = Path(root) if root else Path.home() / ".cache" / "hansa"
    return base / "native"


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


def build_extension(c_source: str) -> Path:
    """The path of the built extension for `c_source` (compiled once, then taken from the cache)."""
    name = native_module_name(c_source)
    suffix = importlib.machinery.EXTENSION_SUFFIXES[0]
    out_dir = cache_dir()
    target = out_dir / f"{name}{suffix}"
    if target.exists():
        return target
    compiler = find_compiler()
    include = sysconfig.get_paths()["include"]
    if not (Path(include) / "Python.h").exists():
        raise HansaError(
            f"the native backend needs the Python headers (Python.h, not found in {include});"
            " install the Python development package or use the Python backend"
        )
    out_dir.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(dir=out_dir) as tmp:
        src = Path(tmp) / f"{name}.c"
        src.write_text(c_source, encoding="utf-8")
        built = Path(tmp) / f"{name}{suffix}"
        command = [compiler, "-O2", "-shared", "-fPIC", "-std=gnu11", f"-I{include}"]
        command += ["-o", str(built), str(src)]
        result = subprocess.run(command, capture_output=True, text=True)
        if result.returncode != 0:
            raise HansaError(
                f"the C compiler failed on the native module {name}:\n{result.stderr[-4000:]}"
            )
        (out_dir / f"{name}.c").write_text(c_source, encoding="utf-8")
        os.replace(built, target)  # atomic: a reader sees the whole extension or none
    return target


def load_extension(c_source: str):
    """The built extension module of `c_source`, imported once per process."""
    name = native_module_name(c_source)
    module = _LOADED.get(name)
    if module is None:
        path = build_extension(c_source)
        spec = importlib.util.spec_from_file_location(name, path)
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
        _LOADED[name] = module
    return module
