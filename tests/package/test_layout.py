"""The code shows its layers: every module of the package belongs to a layer and imports only its
own layer or a lower one; no import circle anywhere, imports inside functions included; an import
inside a function only where `LATE_IMPORTS` names why; the compiler's stages are folders whose
imports only point back to earlier stages, and the runtime a generated module imports stands alone
(docs/architecture.md, "Layers")."""

from __future__ import annotations

import ast
import functools
import sys
from pathlib import Path

import networkx as nx
import pytest

# one worker runs this module: each test reads every module of the package, parsed once (`_parsed`)
pytestmark = pytest.mark.xdist_group("layout")

ROOT = Path(__file__).resolve().parents[2]
# import name -> folder (pyproject.toml's package-dir)
FOLDERS = {
    "hansa": ROOT / "hansa",
    "hansa.runtime": ROOT / "runtime",
    "hansa.generated": ROOT / "generated",
    "hansa.compiler": ROOT / "compiler",
    "hansa.play": ROOT / "play",
    "hansa.analysis": ROOT / "analysis",
}

# The layers, lowest first: a module imports only modules of its own layer or a lower one. A
# module belongs to the layer of the longest prefix that names it ("hansa" alone: the package's
# own `__init__`, the public API).
LAYERS = [
    ("runtime", ["hansa.runtime"]),  # what a generated module imports: stdlib only
    ("files", ["hansa.atomic"]),  # writing files atomically
    ("generated", ["hansa.generated"]),  # one rule module per game, written by `hansa build`
    ("compiler", ["hansa.compiler"]),  # spec → IR → checks → rule modules (STAGES below)
    # loading games by name: the public API (`hansa.load_game`), spec folders, the native backend
    ("games", ["hansa", "hansa.resolve", "hansa.native"]),
    ("play", ["hansa.play"]),  # agents, simulation and Ray studies, logs and replay, positions
    ("analysis", ["hansa.analysis"]),  # built on play: the behavioural diff
    # the application: the command line, the web app, the RL adapters, the editor's server
    (
        "application",
        ["hansa.cli", "hansa.__main__", "hansa.commands", "hansa.web", "hansa.rl", "hansa.lsp"],
    ),
]

# An import inside a function, (importing module prefix, imported module prefix): why it is not
# at the top. Any other import inside a function fails `test_imports_inside_functions_say_why`.
PLAY_WITHOUT_COMPILER = (
    "loading and playing a game never imports the compiler (lark, jinja2, networkx): the CLI "
    "loads every command's module to build its parser, and `hansa play`, `score`, `replay`, "
    "`simulate`, `list`, the web app and `hansa.load_game` import it only when they compile "
    "(tests/app/cli/test_own_spec.py checks in a fresh process)"
)
EXTRA = "an optional extra (rl: numpy, pyspiel, choix; cluster: ray; web: starlette, uvicorn)"
LATE_IMPORTS = {
    ("hansa.commands", "hansa.compiler"): PLAY_WITHOUT_COMPILER,
    ("hansa.commands", "hansa.native"): PLAY_WITHOUT_COMPILER + "; the native backend's module "
    "loads the compiler's tables",
    ("hansa.commands", "hansa.analysis"): PLAY_WITHOUT_COMPILER + " (the behavioural diff "
    "compiles both sides)",
    ("hansa.commands.check", "hansa.play.endless"): PLAY_WITHOUT_COMPILER + " (the playouts "
    "that look for a game that cannot end compile each game in memory)",
    ("hansa.commands.serve", "hansa.web"): "the web app needs the `web` extra (starlette): "
    "`hansa serve` without it is one clear error",
    ("hansa.commands.bench", "hansa.rl"): "the RL adapters need the `rl` extra",
    ("hansa.commands.lsp", "hansa.lsp"): "the language server needs the `editor` extra (pygls): "
    "`hansa lsp` without it is one clear error",
    ("hansa.lsp.server", "hansa.cli"): "the CLI loads the command that starts this server: the "
    "server reads the CLI's version only when an editor asks",
    ("hansa.rl.render", "hansa.compiler"): "a picture of the board (rgb_array) draws the board "
    "with the compiler's renderer, only when a picture is asked for; the adapters play without it",
    ("hansa.rl.render", "hansa.web.board"): "the board's layout (matplotlib), only when a picture "
    "is asked for",
    ("hansa.web.sessions", "hansa.compiler"): PLAY_WITHOUT_COMPILER,
    ("hansa.web.rules_help", "hansa.compiler"): PLAY_WITHOUT_COMPILER + " (a game's rules help "
    "reads its spec and diffs it against its edition when a page first asks)",
    ("hansa.web.rules_help", "hansa.commands.diff"): PLAY_WITHOUT_COMPILER + " (as the compiler)",
    ("hansa.web.sessions", "hansa.web.board"): "the board's layout reads the compiler's board "
    "drawing (matplotlib), only when a page asks for a board",
    ("hansa.web.sessions", "hansa.resolve"): "a spec folder's games load when the catalogue is "
    "first asked (hansa.resolve compiles them)",
    ("hansa.resolve", "hansa.compiler"): PLAY_WITHOUT_COMPILER,
    ("hansa", "hansa.compiler.targets"): PLAY_WITHOUT_COMPILER,
    ("hansa", "hansa.native"): PLAY_WITHOUT_COMPILER,
    ("hansa.play.cluster", "hansa.compiler"): PLAY_WITHOUT_COMPILER + " (a Ray study sends the "
    "module's text)",
    ("hansa.play.cluster", "hansa.native"): PLAY_WITHOUT_COMPILER,
    ("hansa.play.cluster", "importlib"): "the Ray task's body, sent by value, imports on the "
    "worker after taking the driver's folder off its path (play/cluster.py, `_task`)",
    ("hansa.play.cluster", "os"): "the Ray task's body (as importlib)",
    ("hansa.play.cluster", "sys"): "the Ray task's body (as importlib)",
    ("hansa.play.cluster", "ray"): EXTRA,
    ("hansa.commands", "numpy"): EXTRA,
    ("hansa.commands.serve", "starlette"): EXTRA,
    ("hansa.commands.serve", "uvicorn"): EXTRA,
    ("hansa.generated", "numpy"): EXTRA + ": the observation tensor as a numpy array",
    ("hansa.rl.bench", "numpy"): EXTRA,
    ("hansa.rl.bench", "pyspiel"): EXTRA + " (OpenSpiel, measured only where installed)",
    ("hansa.rl.bench", "hansa.rl"): "each adapter measured only where its library is installed",
    ("hansa.compiler.targets", "jinja2"): "rendering only: a warm native load reads "
    "`targets/native/fields.py` and must not import jinja2 (compiler/targets/__init__.py)",
    ("hansa.analysis.ladder", "choix"): EXTRA + ": `hansa ladder` without it is one clear error",
    ("hansa.analysis.ladder", "numpy"): EXTRA,
    ("hansa.analysis.behaviour", "scipy"): "scipy.stats takes about a second to import, for the "
    "p-values of a comparison only",
    ("hansa.cli", "importlib.metadata"): "slow to import; only for `--version`",
    ("hansa.play.logs", "importlib.metadata"): "slow to import; only for a log's header",
    ("hansa.native", "hansa.compiler"): PLAY_WITHOUT_COMPILER + "; a warm native load reads the "
    "game record and the cached extension, never the renderers (compiled only on a cold load)",
    ("hansa.native", "numpy"): EXTRA + ": the batched games' arrays",
    ("hansa.play.mcts", "hansa.compiler"): PLAY_WITHOUT_COMPILER + " (the text of the module a "
    "search goes native for, read only when it does)",
}

# Compiler stages in pipeline order; a module may import its own stage or an earlier one.
STAGES = [
    "errors",
    "syntax",
    "nodes",
    "board",
    "expr",
    "rules",
    "project",
    "model",
    "targets",
    "build",
    "diff",
]


def _modules(package: str) -> dict[str, Path]:
    folder = FOLDERS[package]
    out = {}
    for path in folder.rglob("*.py"):
        parts = list(path.relative_to(folder).with_suffix("").parts)
        if parts[-1] == "__init__":
            parts = parts[:-1]
        out[".".join([package, *parts])] = path
    return out


def _package_modules() -> dict[str, Path]:
    out = {}
    for package in FOLDERS:
        out.update(_modules(package))
    return out


def _parsed(path: Path) -> ast.Module:
    """The syntax tree of `path`, parsed once per test run (the generated modules are large and
    every test here reads every module) and again only if the file changed."""
    stat = path.stat()
    return _parsed_as_of(path, stat.st_mtime_ns, stat.st_size)


@functools.cache
def _parsed_as_of(path: Path, _mtime_ns: int, _size: int) -> ast.Module:
    return ast.parse(path.read_text(encoding="utf-8"))


def _import_nodes(name: str, path: Path) -> list[tuple[ast.stmt, set[str], bool]]:
    """Every import statement of `name`: (node, the modules it may name, inside a function?),
    relative names resolved."""
    is_package = path.name == "__init__.py"
    here = name.split(".") if is_package else name.split(".")[:-1]
    found = []

    def visit(node: ast.AST, inside: bool) -> None:
        for child in ast.iter_child_nodes(node):
            late = inside or isinstance(child, ast.FunctionDef | ast.AsyncFunctionDef)
            if isinstance(child, ast.Import):
                found.append((child, {alias.name for alias in child.names}, inside))
            elif isinstance(child, ast.ImportFrom):
                base = here[: len(here) - child.level + 1] if child.level else []
                module = ".".join([*base, *(child.module.split(".") if child.module else [])])
                names = {module} | {f"{module}.{alias.name}" for alias in child.names}
                found.append((child, names, inside))
            visit(child, late)

    visit(_parsed(path), False)
    return found


def _imports(name: str, path: Path) -> set[str]:
    """Every module `name` imports, at the top or inside a function (relative names resolved)."""
    return {target for _node, names, _late in _import_nodes(name, path) for target in names}


def _graph(package: str | None = None, ancestors: bool = False) -> nx.DiGraph:
    """The import graph of one package folder, or of the whole package (None). A module's import
    of a package it is inside (`import hansa` in `hansa.play.simulate`, for `hansa.load_game`)
    is an edge only with `ancestors`: the layers count it (the package's own code is used), the
    circles do not (Python has loaded the package before any module inside it, whatever either
    imports, so it fixes no order)."""
    modules = _modules(package) if package else _package_modules()
    graph = nx.DiGraph()
    graph.add_nodes_from(modules)
    for name, path in modules.items():
        for target in _imports(name, path):
            inside = name.startswith(target + ".")
            if target in modules and target != name and (ancestors or not inside):
                graph.add_edge(name, target)
    return graph


def _within(module: str, prefix: str) -> bool:
    return module == prefix or module.startswith(prefix + ".") or prefix == ""


def _layer(module: str) -> int | None:
    """The index of `module`'s layer (the longest matching prefix), None if it has none."""
    best = None
    for index, (_name, prefixes) in enumerate(LAYERS):
        for prefix in prefixes:
            if _within(module, prefix) and (best is None or len(prefix) > len(best[1])):
                best = (index, prefix)
    return None if best is None else best[0]


def _circles(graph: nx.DiGraph) -> list[str]:
    return [" → ".join(c + c[:1]) for c in nx.simple_cycles(graph)]


def test_every_module_of_the_package_is_in_a_layer():
    loose = sorted(m for m in _package_modules() if _layer(m) is None)
    assert not loose, loose


def test_no_module_imports_from_a_higher_layer():
    upward = []
    for source, target in _graph(ancestors=True).edges:
        if _layer(target) > _layer(source):
            upward.append(
                f"{source} ({LAYERS[_layer(source)][0]}) → {target} ({LAYERS[_layer(target)][0]})"
            )
    assert not upward, "upward imports:\n" + "\n".join(sorted(upward))


def test_no_import_circle_anywhere_in_the_package():
    circles = _circles(_graph())
    assert not circles, "import circles:\n" + "\n".join(circles[:10])


def test_imports_inside_functions_say_why():
    """An import inside a function hides a dependency from the reader of the module's head: it
    is allowed only where `LATE_IMPORTS` names the reason."""
    unexplained = []
    for name, path in sorted(_package_modules().items()):
        for node, targets, late in _import_nodes(name, path):
            if not late:
                continue
            target = min(targets, key=len)  # the module itself, not the names taken from it
            if not any(_within(name, who) and _within(target, what) for who, what in LATE_IMPORTS):
                where = path.relative_to(ROOT) if path.is_relative_to(ROOT) else path
                unexplained.append(f"{where}:{node.lineno}: {target}")
    assert not unexplained, (
        "import these at the top, or say in LATE_IMPORTS why not:\n" + "\n".join(unexplained)
    )


def test_every_reason_for_a_late_import_is_still_used():
    """`LATE_IMPORTS` does not outlive the imports it explains."""
    used = set()
    for name, path in _package_modules().items():
        for _node, targets, late in _import_nodes(name, path):
            target = min(targets, key=len)
            if late:
                used.update(
                    key for key in LATE_IMPORTS if _within(name, key[0]) and _within(target, key[1])
                )
    lsp = {key for key in LATE_IMPORTS if key[0].startswith("hansa.lsp")}
    assert set(LATE_IMPORTS) - used - lsp == set()


def test_the_layer_test_can_fail(tmp_path, monkeypatch):
    """An upward import is found, even inside a function."""
    folder = tmp_path / "analysis"
    folder.mkdir()
    (folder / "__init__.py").write_text("")
    (folder / "a.py").write_text("def f():\n    from hansa.cli import main\n")
    monkeypatch.setitem(FOLDERS, "hansa.analysis", folder)
    with pytest.raises(AssertionError, match="hansa.analysis.a"):
        test_no_module_imports_from_a_higher_layer()
    with pytest.raises(AssertionError, match="a.py:2: hansa.cli"):
        test_imports_inside_functions_say_why()


def test_no_import_circle_between_compiler_modules():
    circles = _circles(_graph("hansa.compiler"))
    assert not circles, "import circles: " + "; ".join(circles[:5])


def _stage(module: str) -> int | None:
    parts = module.split(".")
    return STAGES.index(parts[2]) if len(parts) > 2 and parts[2] in STAGES else None


def test_compiler_stages_import_only_earlier_stages():
    backwards = []
    for source, target in _graph("hansa.compiler").edges:
        a, b = _stage(source), _stage(target)
        if a is not None and b is not None and b > a:
            backwards.append(f"{source} → {target}")
    assert not backwards, backwards


def test_every_compiler_module_is_in_a_stage():
    loose = [m for m in _modules("hansa.compiler") if m != "hansa.compiler" and _stage(m) is None]
    assert not loose, loose


def test_the_runtime_imports_only_the_standard_library_and_itself():
    stdlib = set(sys.stdlib_module_names)
    foreign = []
    for name, path in _modules("hansa.runtime").items():
        for target in _imports(name, path):
            top = target.split(".")[0]
            if top == "__future__" or top in stdlib or target.startswith("hansa.runtime"):
                continue
            foreign.append(f"{name} → {target}")
    assert not foreign, foreign


def test_a_detected_circle_fails(tmp_path, monkeypatch):
    """The circle test can fail: two modules importing each other inside functions are found."""
    folder = tmp_path / "pkg"
    folder.mkdir()
    (folder / "__init__.py").write_text("")
    (folder / "a.py").write_text("def f():\n    from .b import g\n")
    (folder / "b.py").write_text("from . import a\n\ndef g():\n    pass\n")
    monkeypatch.setitem(FOLDERS, "pkg", folder)
    assert list(nx.simple_cycles(_graph("pkg")))


# ---- generated modules hold only their game (docs/architecture.md, "A generated module")
GENERATED = ROOT / "generated"
# The Big Box module's size budget, the aim once the shared code moved into the runtime
# (2,594 lines before, 1,497 after the first move, 1,177 now; 2026-12-02): it keeps shared code
# and tables the module could derive from growing back into the templates.
BIG_BOX_MODULE_LINES = 1_200
# What every game shares and only reads tables for: defined once, in the runtime, never in a module
SHARED_NAMES = {
    "state_to_dict",
    "state_from_dict",
    "action_text",
    "action_name",
    "_read_frame",
    "_check_invariants",
    "_check_stack_shape",
    "_frame_problem",
    "observation",
    "information_state_string",
    "resample_hidden",
    "controller_if_post",
    "controller_if_exchange",
    "networks",
    "tensor_codec",
    "_copy_into",
}


def _defined_functions(path: Path) -> set[str]:
    tree = _parsed(path)
    return {
        node.name
        for node in ast.walk(tree)
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef))
    }


def test_the_big_box_module_stays_within_its_budget():
    lines = (GENERATED / "bigbox_hanseatic_45p.py").read_text(encoding="utf-8").count("\n")
    assert lines <= BIG_BOX_MODULE_LINES, f"the Big Box module has {lines} lines"


def test_no_generated_module_defines_what_the_runtime_shares():
    modules = sorted(p for p in GENERATED.glob("*.py") if not p.name.startswith("_"))
    assert len(modules) >= 20
    for path in modules:
        shared = _defined_functions(path) & SHARED_NAMES
        # a game with optional state fields copies them after TableState's own (super call)
        shared.discard("_copy_into")
        assert not shared, f"{path.name} defines {sorted(shared)}"


def _code_words(path: Path) -> str:
    """The string literals and names of a module's code (docstrings and comments left out: they
    may give an example)."""
    tree = _parsed(path)
    docstrings = set()
    for node in ast.walk(tree):
        if isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)):
            body = node.body
            if body and isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant):
                docstrings.add(id(body[0].value))
    words = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Constant) and isinstance(node.value, str):
            if id(node) not in docstrings:
                words.append(node.value)
        elif isinstance(node, ast.Name):
            words.append(node.id)
        elif isinstance(node, ast.Attribute):
            words.append(node.attr)
    return "\n".join(words)


def test_the_runtime_names_no_city_edition_or_rule_set():
    from hansa.compiler import LIBRARY_DIR
    from hansa.compiler.project import load_project

    project = load_project([LIBRARY_DIR])
    names = {c.name for b in project.boards.values() for c in b.cities}
    names |= set(project.rulesets) | set(project.games) | set(project.boards)
    names = {n for n in names if len(n) > 3}  # short ids would match ordinary words
    assert "Lübeck" in names and "bigbox_2021" in names
    for path in sorted((ROOT / "runtime").glob("*.py")):
        words = _code_words(path)
        found = sorted(n for n in names if n in words)
        assert not found, f"{path.name} names {found}"


# ---- functions a reader can hold: none written by hand is over MAX_FUNCTION_LINES lines
MAX_FUNCTION_LINES = 120
HAND_WRITTEN = ("compiler", "runtime", "play", "analysis", "hansa", "scripts", "tests")


def test_no_hand_written_function_is_longer_than_a_reader_can_hold():
    long = []
    for folder in HAND_WRITTEN:
        for path in sorted((ROOT / folder).rglob("*.py")):
            for node in ast.walk(_parsed(path)):
                if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
                    lines = node.end_lineno - node.lineno + 1
                    if lines > MAX_FUNCTION_LINES:
                        long.append(f"{path.relative_to(ROOT)}: {node.name} ({lines} lines)")
    assert not long, "split these along what they do:\n" + "\n".join(long)
