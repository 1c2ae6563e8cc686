"""Compile every game declared in spec/ into generated/<game>.py (and generated/_index.py).

The output is deterministic; each module is written atomically (a temporary file renamed into
place), and nothing is written unless every game compiles. `--check` writes nothing and exits 1 when
generated/ is stale (the spec changed), hand-edited, missing a module or holding one for no game.
The index is written last and only modules an earlier build's index recorded are ever removed, so
an interrupted build never leaves an index naming a missing module (hansa.compiler.build.output).
"""

from __future__ import annotations

import sys
import time
from pathlib import Path

from hansa.compiler.errors import HansaError
from hansa.runtime.errors import printable

NAME = "build"
HELP = "compile every game in spec/ into generated/ (--check: fail if generated/ is stale)"


def add_arguments(parser) -> None:
    parser.add_argument("--check", action="store_true", help="write nothing; exit 1 if stale")
    parser.add_argument("--spec", default="spec", help="spec folder (default: spec)")
    parser.add_argument(
        "--out", default=None, help="output folder (default: generated/ next to the spec folder)"
    )
    parser.add_argument(
        "--native",
        nargs="*",
        metavar="GAME",
        default=None,
        help="also build the native (C) rule modules of these games (none named: every game the"
        " native target supports), into the cache (docs/native.md)",
    )


def expected_files(spec: Path) -> dict[str, str]:
    from hansa.compiler.targets.python.codegen import generate_modules, index_source, spec_names

    modules = generate_modules(spec)
    files = {f"{module}.py": text for module, text in modules.values()}
    files["_index.py"] = index_source(modules, spec_names(spec))
    return files


def run(args) -> int:
    from hansa.compiler.build.output import current_text, stale_modules, write_build

    spec = Path(args.spec)
    if not spec.is_dir():
        raise HansaError(f"{spec}: no spec folder")
    out = Path(args.out) if args.out else spec.resolve().parent / "generated"
    if out.exists() and not out.is_dir():
        raise HansaError(f"{out}: the output folder is a file, not a folder")
    if args.check and not out.is_dir():
        raise HansaError(f"{out}: the output folder does not exist")
    started = time.perf_counter()
    files = expected_files(spec)
    elapsed = time.perf_counter() - started
    stale_extra = stale_modules(out, files)  # only what an earlier build's index recorded
    if args.check:
        problems = []
        for name, text in sorted(files.items()):
            path = out / name
            if not path.exists() and not path.is_symlink():
                problems.append(f"{path}: missing")
            elif path.is_symlink():
                problems.append(f"{path}: a link, not a module the build wrote")
            elif current_text(path) != text:
                problems.append(f"{path}: stale or edited by hand")
        problems += [f"{out / name}: no game declares it any more" for name in stale_extra]
        for line in problems:
            print(printable(line), file=sys.stderr)
        if problems:
            print(
                "hansa build --check: generated/ is out of date; run `hansa build`", file=sys.stderr
            )
            return 1
        print(f"generated/ is up to date ({len(files) - 1} games)")
        return 0
    try:  # only now that every game compiled: nothing is written otherwise
        out.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise HansaError(f"{out}: cannot create the output folder: {exc.strerror or exc}") from None
    written, stale_extra = write_build(out, files)
    print(
        f"built {len(files) - 1} games in {elapsed:.2f} s: {written} files written, "
        f"{len(stale_extra)} removed"
    )
    if args.native is not None:
        return build_native(spec, args.native)
    return 0


def build_native(spec: Path, games: list[str]) -> int:
    """Build the native extensions (cached by source hash); a named game the native target
    cannot play is an error naming the construct, an unnamed one is listed."""
    from hansa.compiler.project import load_project
    from hansa.compiler.targets.native.build import build_extension, private_cache_dir
    from hansa.compiler.targets.native.codegen import render_native
    from hansa.native import model_of

    cache = private_cache_dir()  # an unsafe cache folder: one error, not one per game
    project = load_project([spec])
    names = games or sorted(project.games)
    started = time.perf_counter()
    built = []
    for name in names:
        try:
            build_extension(render_native(model_of(name, str(spec))))
        except HansaError as exc:
            if games:
                raise
            print(printable(f"native: {name} not built: {exc.message}"), file=sys.stderr)
            continue
        built.append(name)
    print(
        f"built {len(built)} native games in {time.perf_counter() - started:.1f} s (cache: {cache})"
    )
    return 0
