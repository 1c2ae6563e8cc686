"""Render one Python rule module per game from the model (compiler/model/build.py) and jinja2
templates.

Each rule component has its own template fragment under `compiler/targets/python/templates/`;
`module.py.j2` composes the fragments the game uses. Spec text reaches the module only as `repr`
literals of checked values (the constants block) or in comments passed through
`model.fold.where`, never as code. The output is deterministic: the same spec gives
byte-identical modules.
"""

from __future__ import annotations

import hashlib
import os
import pprint
import re
import types
from pathlib import Path

import jinja2

from ....runtime.state_json import SWITCH_NAMES
from ...errors import HansaError, did_you_mean
from ...model.build import END_KINDS, MARKER_KINDS, GameModel, build_model
from ...model.frames import frame_kinds
from ...nodes.board import Board
from ...nodes.rules import Game, RuleSet, mangle_module_name
from ...project import _declarations_in_text, load_project
from ...rules.resolve import resolve
from .. import template_context, template_environment

TEMPLATES = Path(__file__).parent / "templates"
GENERATOR_VERSION = "1"
# Model tables the module derives at import (runtime/tables.py) instead of writing them out
DERIVED_AT_IMPORT = (
    "SPACE_CITY",
    "CITY_ROUTES",
    "CITY_NEIGHBORS",
    "POINT_ROUTE",
    "POINT_BIT",
    "FULL_MASK",
    "FREE_POINTS",
    "FREE_HOUSE_POINTS",
)
LINE_WIDTH = 99
# Each frame kind's rules in the templates (legal, apply, settle), by the model's constant
# (compiler/model/frames.py numbers the kinds); a kind whose rules the game lacks (no marker of
# that kind) has none.
FRAME_FUNCTIONS = {
    "F_PAY": ("_legal_pay", "_apply_pay", "_settle_never"),
    "F_DISPLACED": ("_legal_displaced", "_apply_displaced", "_settle_displaced"),
    "F_MOVE": ("_legal_move_frame", "_apply_move_frame", "_settle_move"),
    "F_REMOVE": ("_legal_remove", "_apply_remove", "_settle_remove"),
    "F_ROUTE": ("_legal_route", "_apply_route", "_settle_never"),
    "F_EXCHANGE": ("_legal_exchange", "_apply_exchange", "_settle_never"),
    "F_DEVELOP": ("_legal_develop", "_apply_develop", "_settle_develop"),
    "F_MARKERS": ("_legal_markers", "_apply_markers", "_settle_markers"),
    "F_PERMANENT": ("_legal_permanent", "_apply_permanent", "_settle_permanent"),
    "F_PAWN": ("_legal_pawn_frame", "_apply_pawn_frame", "_settle_never"),
    "F_FLIP": ("_legal_flip", "_apply_flip", "_settle_flip"),
    "F_TAKE_STOCK": ("_legal_take_stock", "_apply_take_stock", "_settle_take_stock"),
    "F_KEEP": ("_legal_keep", "_apply_keep", "_settle_keep"),
    "F_DISPLAY": ("_legal_display", "_apply_display", "_settle_display"),
}
NO_FRAME_RULES = ("_legal_none", "_apply_none", "_settle_never")
FRAME_RULES_WHEN = {
    "F_REMOVE": ("marker_remove_tradesmen",),
    "F_EXCHANGE": ("marker_exchange_trading_posts",),
    "F_DEVELOP": ("marker_develop_ability", "permanent_develop_ability"),
}
# Model tables only the compiled rules in words read: a module holds those its rules read
WORDS_ONLY = ("CITY_COINS", "CITY_COLOUR_SPACES", "ROUTE_SHIPS", "ROUTE_TAVERN")


def _environment() -> jinja2.Environment:
    return template_environment(TEMPLATES)


_ENV: jinja2.Environment | None = None


def environment() -> jinja2.Environment:
    global _ENV
    if _ENV is None:
        _ENV = _environment()
    return _ENV


def ensure_safe_literal(value: object) -> None:
    """Only plain data whose `repr` is a Python literal may enter a module (no objects)."""
    if value is None or isinstance(value, (bool, int, str)):
        return
    if isinstance(value, (tuple, list)):
        for item in value:
            ensure_safe_literal(item)
        return
    if isinstance(value, dict):
        for key, item in value.items():
            ensure_safe_literal(key)
            ensure_safe_literal(item)
        return
    raise HansaError(f"internal error: {type(value).__name__} value cannot be a module constant")


# Constants whose repr is longer than this (tables of very large boards) skip pprint, which is
# superlinear on them, for a one-item-per-line layout written in one pass.
FAST_LAYOUT_CHARS = 8_000


def _layout(value: object, indent: int) -> str:
    """A literal of `value` whose lines fit the width where items allow: containers that do not
    fit on the rest of the line get one item per line, recursively."""
    text = repr(value)
    if indent + len(text) < LINE_WIDTH or not isinstance(value, (tuple, list, dict)) or not value:
        return text
    pad = " " * (indent + 4)
    lines = []
    if isinstance(value, dict):
        try:
            items = sorted(value.items())
        except TypeError:
            items = list(value.items())
        for key, item in items:
            head = f"{key!r}: "
            lines.append(f"{pad}{head}{_layout(item, indent + 4 + len(head))},")
        brackets = "{}"
    elif all(isinstance(item, (int, str, bool)) or item is None for item in value):
        line = pad  # scalars: as many per line as fit
        for item in value:
            word = f"{item!r},"
            if len(line) + len(word) + 1 > LINE_WIDTH and line.strip():
                lines.append(line.rstrip())
                line = pad
            line += word + " "
        lines.append(line.rstrip())
        brackets = "()" if isinstance(value, tuple) else "[]"
    else:
        lines = [f"{pad}{_layout(item, indent + 4)}," for item in value]
        brackets = "()" if isinstance(value, tuple) else "[]"
    return brackets[0] + "\n" + "\n".join(lines) + "\n" + " " * indent + brackets[1]


def render_constant(name: str, value: object) -> str:
    """`NAME = literal`, wrapped to the line width; the literal is `repr`-based, so always safe.
    A long tuple of one repeated value is written `(value,) * n`."""
    ensure_safe_literal(value)
    prefix = f"{name} = "
    if len(repr(value)) > FAST_LAYOUT_CHARS:
        return prefix + _layout(value, 0)
    text = pprint.pformat(value, width=LINE_WIDTH - len(prefix), compact=True, sort_dicts=True)
    if "\n" not in text and len(prefix) + len(text) <= LINE_WIDTH:
        return prefix + text
    if isinstance(value, tuple) and _one_repeated_scalar(value):
        return f"{prefix}({value[0]!r},) * {len(value)}"
    inner = pprint.pformat(value, width=LINE_WIDTH - 4, compact=True, sort_dicts=True)
    if isinstance(value, (tuple, list, dict)) and inner[:1] in "([{" and "\n" in inner:
        if inner[0] != "(":
            return prefix + text
        # the continuation lines under the first item, or the whole literal indented below
        # the name: whichever takes fewer lines
        hanging = text.replace("\n", "\n" + " " * len(prefix))
        if text.count("\n") <= inner.count("\n") + 2:
            return prefix + hanging
        indented = "\n".join("    " + line for line in inner.splitlines())
        return f"{prefix}(\n{indented}\n)"
    return prefix + text


def _one_repeated_scalar(value: tuple) -> bool:
    first = value[0] if value else None
    return (
        len(value) > 1
        and isinstance(first, (bool, int, str))
        and all(type(item) is type(first) and item == first for item in value)
    )


def _relative(path: str, root: Path | None) -> str:
    if root is None:
        return path
    try:
        rel = os.path.relpath(path, root)
    except ValueError:
        return path
    return path if rel.startswith("..") else rel.replace(os.sep, "/")


def _comment_safe(text: str, width: int = 80) -> str:
    """Text for a comment line: printable characters only (so it cannot end the comment), short."""
    text = "".join(ch if ch.isprintable() else "?" for ch in text)
    return text if len(text) <= width else text[: width - 1] + "…"


def build_game_module(
    game: Game,
    rules: RuleSet,
    board: Board,
    sources: dict[str, str] | None = None,
    root: Path | str | None = None,
) -> str:
    """The Python source of the rule module for `game` (rules resolved, board checked)."""
    model = build_model(game, rules, board)
    return render_model(model, sources or {}, Path(root) if root is not None else None)


def render_model(model: GameModel, sources: dict[str, str], root: Path | None) -> str:
    files = list(model.sources)
    board_file = model.origins.get("board", "").rsplit(":", 1)[0]
    if board_file and board_file not in files:
        files.append(board_file)
    shown = sorted({_relative(f, root) for f in files if f})
    digest = hashlib.sha256()
    digest.update(f"generator {GENERATOR_VERSION}\n".encode())
    for f in sorted(files):
        rel = _relative(f, root)
        digest.update(rel.encode("utf-8") + b"\0")
        digest.update(sources.get(f, "").encode("utf-8") + b"\0")
    origins = {k: _comment_safe(_relative_origin(v, root)) for k, v in model.origins.items()}
    tables = dict(model.constants)
    if "RULE_SOURCES" in tables:  # file:line as in the comments, relative to the spec's root
        tables["RULE_SOURCES"] = tuple(
            (hook, name, _relative_origin(origin, root), text)
            for hook, name, origin, text in tables["RULE_SOURCES"]
        )
    functions = "\n".join(model.components.get("expr_functions", ()))
    constants = _render_constants(
        [
            (name, value)
            for name, value in tables.items()
            if name not in DERIVED_AT_IMPORT
            and (name not in WORDS_ONLY or re.search(rf"\b{name}\b", functions))
        ]
    )
    comp = model.components
    context = template_context(model)
    context.update(
        game_literal=_comment_safe(repr(model.game)),
        rules_literal=_comment_safe(repr(model.rules)),
        board_literal=_comment_safe(repr(model.board)),
        header_hash="spec-sha256=" + digest.hexdigest(),
        sources=[_comment_safe(repr(s)) for s in shown],
        constants=constants,
        origins=origins,
        marker_kinds_used=[
            k
            for k in MARKER_KINDS
            if comp.get("marker_" + k)
            or (k == "develop_ability" and comp.get("permanent_develop_ability"))
        ],
        permanent_names=list(model.constants.get("PERMANENT_NAMES", ())),
        ability_max=[int(m) for m in model.constants["ABILITY_MAX"]],
        end_kinds_used=[k for k in END_KINDS if comp.get("end_" + k)],
        marker_type_kinds=_marker_type_kinds(model),
        marker_types=list(
            zip(model.constants["MARKER_KEYS"], _marker_type_kinds(model), strict=True)
        ),
        scoring=comp["scoring"],
        uses_income=True,
        x_helpers=_called_helpers(comp.get("expr_functions", ())),
        scorers=_names_tuple("SCORERS", [f"_score_{key}" for key, _kind, _p in comp["scoring"]]),
        frame_rows=_frame_rows(model),
    )
    context["switches"] = render_constant(
        "SWITCHES", tuple(name for name in SWITCH_NAMES if context[name])
    )
    try:
        text = environment().get_template("module.py.j2").render(**context)
    except jinja2.TemplateError as exc:  # a broken template is a bug of ours, not of the spec
        raise HansaError(f"code generation failed for game {model.game!r}: {exc}") from exc
    return _tidy(text)


def _frame_rows(model: GameModel) -> list[tuple[str, tuple[str, str, str]]]:
    """(constant, its rules) of each frame kind after the turn, in the model's numbering."""
    comp = model.components
    rows = []
    for _name, constant in frame_kinds(comp)[1:]:
        when = FRAME_RULES_WHEN.get(constant)
        has = when is None or any(comp.get(switch) for switch in when)
        rows.append((constant, FRAME_FUNCTIONS[constant] if has else NO_FRAME_RULES))
    return rows


def _render_constants(tables: list[tuple[str, object]]) -> str:
    """The constants block; action-id bases that coincide (kinds of decision this game does not
    have hold no ids) share a line while it fits: `A_REMOVE = A_DONE_REMOVING = 828`."""
    lines: list[str] = []
    chained: list[str] = []
    numbered: list[tuple[str, int]] = []  # frame kinds F_* numbered one after another
    for i, (name, value) in enumerate(tables):
        following = tables[i + 1] if i + 1 < len(tables) else None
        if name.startswith("F_") and type(value) is int:
            if numbered and value != numbered[-1][1] + 1:
                lines.extend(_numbered_lines(numbered))
                numbered = []
            numbered.append((name, value))
            if following is None or not following[0].startswith("F_"):
                lines.extend(_numbered_lines(numbered))
                numbered = []
            continue
        joined = " = ".join([*chained, name])
        if (
            following is not None
            and name.startswith("A_")
            and (following[0].startswith("A_") or following[0] == "NUM_ACTIONS")
            and type(value) is int
            and following[1] == value
            and type(following[1]) is int
            and len(f"{joined} = {following[0]} = {value}") <= LINE_WIDTH
        ):
            chained.append(name)
            continue
        lines.append(render_constant(joined, value))
        chained = []
    return "\n".join(lines)


def _numbered_lines(numbered: list[tuple[str, int]]) -> list[str]:
    """Names numbered one after another, as few lines as fit: `F_PAY, F_MOVE = range(1, 3)`."""
    lines: list[str] = []
    start = 0
    for end in range(1, len(numbered) + 1):
        names = ", ".join(name for name, _v in numbered[start:end])
        line = f"{names} = range({numbered[start][1]}, {numbered[end - 1][1] + 1})"
        if len(line) > LINE_WIDTH and end - start > 1:
            lines.append(_range_line(numbered[start : end - 1]))
            start = end - 1
    lines.append(_range_line(numbered[start:]))
    return lines


def _range_line(numbered: list[tuple[str, int]]) -> str:
    if len(numbered) == 1:
        return f"{numbered[0][0]} = {numbered[0][1]}"
    names = ", ".join(name for name, _v in numbered)
    return f"{names} = range({numbered[0][1]}, {numbered[-1][1] + 1})"


def _names_tuple(name: str, names: list[str]) -> str:
    """`NAME = (a, b, c)` for names of the module: on one line when it fits, else one name per
    line (as ruff formats it)."""
    one = f"{name} = ({', '.join(names)}{',' if len(names) == 1 else ''})"
    if len(one) <= LINE_WIDTH + 1:
        return one
    return f"{name} = (\n" + "".join(f"    {n},\n" for n in names) + ")"


def _called_helpers(functions: list[str]) -> set[str]:
    """The `_x_…` helpers (core/expr.py.j2) the compiled rules in words call: a module holds only
    those."""
    return {match for source in functions for match in _HELPER_CALL.findall(source)}


_HELPER_CALL = re.compile(r"\b(_x_\w+)\(")


def _relative_origin(origin: str, root: Path | None) -> str:
    if not origin:
        return ""
    file, _, line = origin.rpartition(":")
    return f"{_relative(file, root)}:{line}"


def _marker_type_kinds(model: GameModel) -> list[str]:
    """The kind of each marker type, in type order (the module's MARKER_USABLE/EFFECT tables)."""
    kinds: list[str] = []
    keyed = {}
    for m, _flag in model.constants["EXCHANGE_MARKERS"]:
        keyed[m] = "exchange_trading_posts"
    for m in model.constants["ADDITIONAL_MARKERS"]:
        keyed[m] = "additional_trading_post"
    for m, _a in model.constants["DEVELOP_MARKERS"]:
        keyed[m] = "develop_ability"
    for m, _c in model.constants["EXTRA_ACTION_MARKERS"]:
        keyed[m] = "extra_actions"
    for m, *_rest in model.constants["MOVE_MARKERS"]:
        keyed[m] = "move_tradesmen"
    for m, *_rest in model.constants["REMOVE_MARKERS"]:
        keyed[m] = "remove_tradesmen"
    for m in model.constants.get("RULE_MARKERS", ()):
        keyed[m] = f"rule_{int(m)}"  # a marker kind written in words (compiler/expr/codegen.py)
    for m in range(model.constants["N_MARKER_TYPES"]):
        kinds.append(keyed[m])
    return kinds


def _tidy(text: str) -> str:
    """Collapse runs of blank lines (at most two) and end with one newline."""
    out: list[str] = []
    blank = 0
    for line in text.splitlines():
        line = line.rstrip()
        if not line:
            blank += 1
            if blank > 2:
                continue
        else:
            blank = 0
        out.append(line)
    while out and not out[-1]:
        out.pop()
    return "\n".join(out) + "\n"


# ---- whole projects: every game of a spec folder (hansa build), or one game in memory


def _spec_root(spec_dir: Path) -> Path:
    return spec_dir.resolve().parent


def generate_modules(spec_dir: str | Path = "spec", paths=None) -> dict[str, tuple[str, str]]:
    """Every game declared under `spec_dir` (or `paths`): game name → (module name, source text).

    Raises one HansaError listing every spec error; nothing is generated unless all games compile.
    """

    spec_dir = Path(spec_dir)
    project = load_project(list(paths) if paths else [spec_dir])
    project.raise_for_errors()
    root = _spec_root(spec_dir)
    out: dict[str, tuple[str, str]] = {}
    modules: dict[str, str] = {}
    folded: dict = {}  # each link of an `extends` chain folded once for all games
    for name in sorted(project.games):
        game = project.games[name]
        rules = resolve(game.rules, project.rulesets, cache=folded)
        board = project.boards[game.board]
        source = build_game_module(game, rules, board, project.sources, root)
        module_name = mangle_module_name(name)
        if module_name in modules:
            raise HansaError(
                f"games {modules[module_name]!r} and {name!r} would share module {module_name}",
                game.span if game.span.line > 0 else None,
            )
        modules[module_name] = name
        out[name] = (module_name, source)
    return out


def index_source(modules: dict[str, tuple[str, str]], names: dict[str, dict] | None = None) -> str:
    """`generated/_index.py`: game name → module name (for `hansa.load_game`), and the rule sets
    and boards the spec declares (`spec_names`, for `hansa list` without the compiler)."""
    lines = [
        '"""Index of the generated game modules (written by `hansa build`; do not edit)."""',
        "",
        "# fmt: off",
        render_constant("GAMES", {name: module for name, (module, _src) in modules.items()}),
    ]
    for constant, table in sorted((names or {}).items()):
        lines.append(render_constant(constant, table))
    lines += ["# fmt: on", ""]
    return "\n".join(lines)


def spec_names(spec_dir: str | Path = "spec") -> dict[str, dict]:
    """The rule sets (title, extends) and boards (title, player counts) declared under spec_dir."""

    project = load_project([Path(spec_dir)])
    return {
        "RULESETS": {
            name: {"title": r.title, "extends": r.extends}
            for name, r in sorted(project.own("rulesets").items())
        },
        "BOARDS": {
            name: {"title": b.title, "players": list(b.players)}
            for name, b in sorted(project.own("boards").items())
        },
    }


def _boards_beside(path: Path, spec_dir: Path) -> list[Path]:
    """The board files beside a spec file (in its folder and its `boards/` folder, as in a spec
    folder): files that declare boards and nothing else, so `compile_game("myspec/rule.hansa")`
    finds `myspec/boards/mine.hansa`, while a broken or unrelated file beside it is not read. A
    folder that holds the spec folder itself adds nothing (its boards are the spec folder's)."""

    folder = path.resolve().parent
    if spec_dir.exists() and spec_dir.resolve().is_relative_to(folder):
        return []
    found = []
    candidates = sorted(folder.glob("*.hansa")) + sorted((folder / "boards").rglob("*.hansa"))
    for other in candidates:
        if other.resolve() == path.resolve():
            continue
        try:
            text = other.read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError):
            continue
        kinds = {kind for kind, _name in _declarations_in_text(text)}
        if kinds == {"board"}:
            found.append(other)
    return found


def compile_module(source: str, game: str | None = None, spec_dir: str | Path = "spec"):
    """Compile one game in memory and return the executed module (nothing is written)."""

    spec_dir = Path(spec_dir)
    path = Path(source)
    paths: list[Path] = []
    wanted = game
    if source.endswith(".hansa") or path.is_dir():
        if not path.exists():
            raise HansaError(f"{source}: no such file or folder")
        inside = spec_dir.exists() and path.resolve().is_relative_to(spec_dir.resolve())
        if not inside:
            paths.append(path)
            if not path.is_dir():
                paths.extend(_boards_beside(path, spec_dir))
        if spec_dir.exists():
            paths.append(spec_dir)  # the boards and rule sets the file builds on
    else:
        wanted = wanted or source
        paths.append(spec_dir)
    project = load_project(paths)
    project.raise_for_errors()
    if wanted is None:
        own = [  # the games declared in the given file itself
            name
            for name, g in project.games.items()
            if g.span.file and Path(g.span.file).resolve() == path.resolve()
        ]
        if len(own) != 1:
            found = ", ".join(sorted(own)) or "none"
            raise HansaError(f"{source}: declares {len(own)} games ({found}); pass game=NAME")
        wanted = own[0]
    if wanted not in project.games:
        raise HansaError(f"unknown game {wanted!r}{did_you_mean(wanted, project.games)}")
    decl = project.games[wanted]
    rules = resolve(decl.rules, project.rulesets)
    text = build_game_module(
        decl, rules, project.boards[decl.board], project.sources, _spec_root(spec_dir)
    )
    return module_from_text(text, f"hansa.generated.{mangle_module_name(decl.name)}", wanted)


def generated_text(namespace: dict) -> str | None:
    """The text of a generated rule module, from its namespace: the one `module_from_text` kept,
    else its file's (None for a module that has neither)."""
    text = namespace.get("__generated_text__")
    if text is None and namespace.get("__file__"):
        with open(namespace["__file__"], encoding="utf-8") as module_file:
            text = module_file.read()
    return text


def module_from_text(text: str, module_name: str, label: str):
    """A generated module's text run as a module in memory (not registered in sys.modules).

    The module keeps its text as `__generated_text__`, so it can be rebuilt in another process
    (the workers of `hansa simulate --executor ray`) that has no file of it."""

    module = types.ModuleType(module_name)
    module.__dict__["__generated_text__"] = text
    exec(compile(text, f"<generated {label}>", "exec"), module.__dict__)
    return module
