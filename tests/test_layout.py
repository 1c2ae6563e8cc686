"""The code shows its pipeline: compiler stages are folders whose imports only point back to earlier
stages (no import circle anywhere, imports inside functions included), and the runtime a generated
module imports stands alone (docs/architecture.md, "Layout")."""

from __future__ import annotations

import ast
import sys
from pathlib import Path

import networkx as nx

ROOT = Path(__file__).resolve().parent.parent
FOLDERS = {"hansa.compiler": ROOT / "compiler", "hansa.runtime": ROOT / "runtime"}

# The compiler's stages in pipeline order; a module may import its own stage or an earlier one.
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


def _imports(name: str, path: Path) -> set[str]:
    """Every module `name` imports, at the top or inside a function (relative names resolved)."""
    is_package = path.name == "__init__.py"
    here = name.split(".") if is_package else name.split(".")[:-1]
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = here[: len(here) - node.level + 1] if node.level else []
            module = ".".join([*base, *(node.module.split(".") if node.module else [])])
            found.add(module)
            found.update(f"{module}.{alias.name}" for alias in node.names)
    return found


def _graph(package: str) -> nx.DiGraph:
    modules = _modules(package)
    graph = nx.DiGraph()
    graph.add_nodes_from(modules)
    for name, path in modules.items():
        for target in _imports(name, path):
            if target in modules and target != name and not name.startswith(target + "."):
                graph.add_edge(name, target)
    return graph


def test_no_import_circle_between_compiler_modules():
    graph = _graph("hansa.compiler")
    cycles = list(nx.simple_cycles(graph))
    assert not cycles, "import circles: " + "; ".join(" → ".join(c + c[:1]) for c in cycles[:5])


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
