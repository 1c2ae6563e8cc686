"""Code generation: deterministic, ruff-clean modules; safe with hostile names; unsupported boards
and options refused; `hansa build --check` catches stale and hand-edited modules."""

from __future__ import annotations

import ast
import io
import re
import shutil
import subprocess
import sys
import tokenize
from dataclasses import replace
from pathlib import Path

import pytest
from engine_support import bigbox_rules, compile_source, fixture_board
from hansa.compiler.errors import HansaError
from hansa.compiler.nodes.rules import Game, Option, mangle_module_name
from hansa.compiler.targets.python.codegen import build_game_module, generate_modules

from hansa.cli import main

ROOT = Path(__file__).resolve().parents[2]
GENERATED = ROOT / "generated"
HOSTILE = 'Bre"men\\ {{ x }} """ \n class Ωμέγα'
# The most hostile city name the language accepts (it refuses line breaks and controls in names).
HOSTILE_WRITABLE = HOSTILE.replace("\n", "#")


def test_generation_is_deterministic_and_matches_the_committed_modules():
    first = generate_modules(ROOT / "spec")
    second = generate_modules(ROOT / "spec")
    assert first == second
    for module, text in first.values():
        assert (GENERATED / f"{module}.py").read_text(encoding="utf-8") == text


def test_header_names_the_spec_files_and_a_hash_and_code_maps_to_spec_lines():
    module, text = generate_modules(ROOT / "spec")["original-hanseatic-45p"]
    assert module == "original_hanseatic_45p"
    head = text[:1200]
    assert "# source: 'spec/bigbox_2021.hansa'" in head
    assert "# source: 'spec/original_2009.hansa'" in head
    assert "# source: 'spec/boards/hanseatic_45p.hansa'" in head
    assert re.search(r"# hansa-generated: spec-sha256=[0-9a-f]{64}", head)
    # components carry the file:line of the spec text that produced them
    lines = (ROOT / "spec/original_2009.hansa").read_text(encoding="utf-8").splitlines()
    refs = re.findall(r"# (?:.*: )?(spec/original_2009\.hansa):(\d+)", text)
    assert refs
    for _file, line in refs:
        assert lines[int(line) - 1].strip()
    assert re.search(r"# ---- action: displace\n# spec/bigbox_2021\.hansa:\d+", text)


def test_generated_modules_parse_and_pass_ruff():
    for path in sorted(GENERATED.glob("*.py")):
        ast.parse(path.read_text(encoding="utf-8"))
    ruff = shutil.which("ruff") or str(Path(sys.executable).parent / "ruff")
    if not Path(ruff).exists():
        pytest.skip("ruff not installed")
    result = subprocess.run(
        [ruff, "check", "--no-cache", str(GENERATED)], capture_output=True, text=True
    )
    assert result.returncode == 0, result.stdout + result.stderr
    # the templates emit formatted code (the constant tables are kept compact under `fmt: off`)
    result = subprocess.run(
        [ruff, "format", "--check", "--no-cache", str(GENERATED)], capture_output=True, text=True
    )
    assert result.returncode == 0, result.stdout + result.stderr


def test_the_module_leaves_out_components_the_game_does_not_use():
    bigbox = generate_modules(ROOT / "spec")["bigbox-hanseatic-45p"][1]
    original = generate_modules(ROOT / "spec")["original-hanseatic-45p"][1]
    assert "_effect_move_tradesmen" in bigbox and "_effect_remove_tradesmen" not in bigbox
    assert "_effect_remove_tradesmen" in original and "_effect_move_tradesmen" not in original
    assert "A_REMOVE = " in original and "A_REMOVE = " in bigbox  # the layout names every range
    assert "'REMOVE'" not in bigbox.split("ACTION_RANGES")[1].split("\n\n")[0]


def _module_tokens(text: str):
    return list(tokenize.generate_tokens(io.StringIO(text).readline))


def test_hostile_city_and_game_names_compile_to_a_safe_module():
    board = fixture_board("hanseatic_45p")
    cities = tuple(replace(c, name=HOSTILE) if c.name == "Bremen" else c for c in board.cities)
    routes = tuple(
        replace(r, cities=tuple(HOSTILE if n == "Bremen" else n for n in r.cities))
        for r in board.routes
    )
    board = replace(board, cities=cities, routes=routes, id='b"\\oard\n{{ }}')
    rules = replace(bigbox_rules(), name="r\"'''\\")
    name = 'evil"""\n{{ game }}\\ class import ñ'
    game = Game(name, rules.name, board.id, (4,))
    text = build_game_module(game, rules, board)
    ast.parse(text)
    for token in _module_tokens(text):
        if token.type == tokenize.NAME:
            assert token.string.isascii(), token
        if token.type == tokenize.COMMENT:
            assert "\n" not in token.string
    module = compile_source(text, "hostile")
    assert HOSTILE in module.CITY_NAMES
    assert module.GAME_NAME == name
    from hansa.runtime.game import Game as RuntimeGame

    state = RuntimeGame(module, 4).new_initial_state(0)
    assert any(HOSTILE in state.action_to_string(a) for a in state.legal_actions())
    text2 = state.to_json()
    assert RuntimeGame(module, 4).state_from_json(text2).to_json() == text2
    assert mangle_module_name(name).isidentifier()


@pytest.mark.parametrize(
    "name,expected",
    [
        ("bigbox-hanseatic-45p", "bigbox_hanseatic_45p"),
        ("class", "game_class"),
        ("3p", "game_3p"),
    ],
)
def test_mangled_module_names(name, expected):
    assert mangle_module_name(name) == expected


def test_lossy_mangled_names_get_a_hash_and_stay_distinct():
    a, b = mangle_module_name("ö-x"), mangle_module_name("ü-x")
    assert a != b and a.isidentifier() and b.isidentifier()


@pytest.mark.parametrize(
    "board_id,message",
    [
        ("eastern", "green"),
        ("britannia_3p", "countr|permanent"),
        ("britannia_45p", "countr|permanent"),
    ],
)
def test_boards_with_unsupported_features_are_refused(board_id, message):
    board = fixture_board(board_id)
    rules = bigbox_rules()
    with pytest.raises(HansaError, match=message):
        build_game_module(Game("x", rules.name, board_id, (4,)), rules, board)


def test_an_option_value_the_templates_do_not_implement_is_refused():
    rules = bigbox_rules()
    options = tuple(
        Option("unplaceable_marker", "into_the_sea") if o.name == "unplaceable_marker" else o
        for o in rules.options
    )
    rules = replace(rules, options=options)
    with pytest.raises(HansaError, match="unplaceable_marker = 'into_the_sea' is not implemented"):
        build_game_module(
            Game("x", rules.name, "hanseatic_45p", (4,)), rules, fixture_board("hanseatic_45p")
        )


def test_the_hostile_spec_through_the_dsl(tmp_path, monkeypatch):
    import hansa

    spec = tmp_path / "spec"
    (spec / "boards").mkdir(parents=True)
    shutil.copy(ROOT / "spec/bigbox_2021.hansa", spec)
    quoted = '"' + HOSTILE_WRITABLE.replace("\\", "\\\\").replace('"', '\\"') + '"'
    text = (ROOT / "spec/boards/hanseatic_45p.hansa").read_text(encoding="utf-8")
    (spec / "boards/hanseatic_45p.hansa").write_text(
        re.sub(r"\bBremen\b", lambda _m: quoted, text), encoding="utf-8"
    )
    (spec / "evil.hansa").write_text(
        "rules evil extends bigbox_2021 { }\ngame evil-game = evil on hanseatic_45p players 4\n",
        encoding="utf-8",
    )
    monkeypatch.chdir(tmp_path)
    game = hansa.compile_game("spec/evil.hansa", players=4)
    assert HOSTILE_WRITABLE in game.module.CITY_NAMES


def _copy_project(tmp_path: Path) -> tuple[Path, Path]:
    spec = tmp_path / "spec"
    shutil.copytree(ROOT / "spec", spec)
    out = tmp_path / "generated"
    out.mkdir()
    return spec, out


def test_build_check_catches_missing_stale_and_edited_modules(tmp_path, capsys):
    spec, out = _copy_project(tmp_path)
    args = ["build", "--spec", str(spec), "--out", str(out)]
    assert main(args + ["--check"]) == 1  # nothing built yet
    assert main(args) == 0
    assert main(args + ["--check"]) == 0
    first = {p.name: p.read_text(encoding="utf-8") for p in out.glob("*.py")}
    assert main(args) == 0  # a rebuild is byte-identical
    assert {p.name: p.read_text(encoding="utf-8") for p in out.glob("*.py")} == first
    # hand edit
    target = out / "bigbox_hanseatic_45p.py"
    target.write_text(target.read_text(encoding="utf-8") + "# edited\n", encoding="utf-8")
    capsys.readouterr()
    assert main(args + ["--check"]) == 1
    assert "bigbox_hanseatic_45p.py: stale or edited by hand" in capsys.readouterr().err
    assert main(args) == 0 and main(args + ["--check"]) == 0
    # stale: the spec changed
    short = spec / "house/short_game.hansa"
    short.write_text(short.read_text(encoding="utf-8").replace("15", "16"), encoding="utf-8")
    assert main(args + ["--check"]) == 1
    assert main(args) == 0 and main(args + ["--check"]) == 0


def test_a_failing_build_writes_nothing(tmp_path, capsys):
    spec, out = _copy_project(tmp_path)
    args = ["build", "--spec", str(spec), "--out", str(out)]
    assert main(args) == 0
    before = {p.name: p.read_text(encoding="utf-8") for p in out.iterdir()}
    games = spec / "games.hansa"
    games.write_text(
        games.read_text(encoding="utf-8") + "\ngame broken = nowhere on hanseatic_45p players 4\n"
    )
    capsys.readouterr()
    assert main(args) == 1
    assert "nowhere" in capsys.readouterr().err
    assert {p.name: p.read_text(encoding="utf-8") for p in out.iterdir()} == before


def test_end_triggers_come_from_the_prelude_and_only_the_declared_ones():
    """track_pp is defined in words in the prelude (no template): only its condition is tested."""
    from hansa.compiler.nodes.rules import EndTrigger
    from hansa.play.agents import RandomAgent, play
    from hansa.runtime.game import Game as RuntimeGame

    rules = replace(bigbox_rules(), end_triggers=(EndTrigger("track_pp", 12),))
    board = fixture_board("hanseatic_45p")
    text = build_game_module(Game("x", rules.name, board.id, (4,)), rules, board)
    assert "def _x_end(s: State, p: int) -> bool:\n    return (max(s.track) >= 12)\n" in text
    assert "_end_marker_supply_empty" not in text and "s.completed >=" not in text
    game = RuntimeGame(compile_source(text, "only_track"), 4)
    state = game.new_initial_state(3)
    play(state, RandomAgent(3), max_decisions=400_000)
    assert state.is_terminal()
    assert max(b["A"] for b in state.score_breakdown()) >= 12


@pytest.mark.parametrize(
    "markers",
    [
        (("extra_actions", (("count", 3),), 6, 3),),
        (("additional_trading_post", (), 4, 3), ("develop_ability", (("ability", "book"),), 2, 0)),
        (
            ("remove_tradesmen", (("count", 2), ("whose", "any"), ("to", "stock")), 3, 2),
            ("exchange_trading_posts", (("must_own_one", False),), 3, 1),
            ("move_tradesmen", (("count", 1), ("whose", "any")), 2, 0),
        ),
    ],
)
def test_any_subset_of_marker_components_compiles_and_plays(markers):
    from hansa.compiler.nodes.rules import BonusMarker
    from hansa.play.agents import RandomAgent, play
    from hansa.runtime.game import Game as RuntimeGame

    rules = replace(
        bigbox_rules(),
        bonus_markers=tuple(BonusMarker(k, p, c, s) for k, p, c, s in markers),
    )
    board = fixture_board("hanseatic_3p")
    text = build_game_module(Game("subset", rules.name, board.id, (3,)), rules, board)
    for kind in ("exchange_trading_posts", "remove_tradesmen", "move_tradesmen", "develop_ability"):
        assert (f"def _effect_{kind}" in text) == any(m[0] == kind for m in markers)
    game = RuntimeGame(compile_source(text, "subset"), 3)
    for seed in range(2):
        state = game.new_initial_state(seed)
        play(state, RandomAgent(seed), max_decisions=300_000)
        assert state.is_terminal()
        text_state = state.to_json()
        assert game.state_from_json(text_state).to_json() == text_state


@pytest.mark.parametrize(
    "change,message",
    [
        (
            lambda r: replace(
                r,
                actions=tuple(
                    replace(a, control_tie="leftmost") if type(a).__name__ == "CreateRoute" else a
                    for a in r.actions
                ),
            ),
            "control tie rule 'leftmost'",
        ),
        (lambda r: replace(r, actions=()), "has no actions"),
    ],
)
def test_rule_variants_the_templates_do_not_implement_are_refused(change, message):
    rules = change(bigbox_rules())
    board = fixture_board("hanseatic_45p")
    with pytest.raises(HansaError, match=message):
        build_game_module(Game("x", rules.name, board.id, (4,)), rules, board)


def test_tables_a_module_derives_at_import_are_the_models_and_its_switches_too():
    """The Python target leaves FREE_POINTS/FREE_HOUSE_POINTS to runtime/tables.py and lists the
    switches the generic code reads in SWITCHES: both agree with the model, for every game."""
    from hansa.compiler.model.build import build_model
    from hansa.compiler.project import load_project
    from hansa.compiler.rules.resolve import resolve
    from hansa.compiler.targets.python.codegen import DERIVED_AT_IMPORT
    from hansa.runtime.state_json import SWITCH_NAMES

    import hansa

    project = load_project([ROOT / "spec"])
    switched_on = set()
    for name, decl in sorted(project.games.items()):
        model = build_model(decl, resolve(decl.rules, project.rulesets), project.boards[decl.board])
        module = hansa.load_game(name).module
        for table in DERIVED_AT_IMPORT:
            assert getattr(module, table) == model.constants[table], (name, table)
        on = tuple(s for s in SWITCH_NAMES if model.components[s])
        assert module.SWITCHES == on, name
        switched_on.update(on)
    # the built-in games use every optional part but two rules-in-words ones (tested elsewhere
    # with games of their own: tests/games/test_rules_words_effects.py)
    assert set(SWITCH_NAMES) - switched_on == {"x_chosen_develop", "x_turns"}


def test_constants_render_compactly_and_read_back_as_the_same_values():
    """A long tuple of one repeated value is `(v,) * n`; a table that wraps continues under its
    first item (or, when that takes fewer lines, sits indented below the name); every form reads
    back as the value, and values that merely compare equal (0 and False) are not merged."""
    from hansa.compiler.targets.python.codegen import render_constant

    assert render_constant("ROUTE_SHIPS", (0,) * 40) == "ROUTE_SHIPS = (0,) * 40"
    assert render_constant("CITY_GREEN", (False,) * 30) == "CITY_GREEN = (False,) * 30"
    assert render_constant("SHORT", (0, 0, 0)) == "SHORT = (0, 0, 0)"
    mixed = (0, False) * 30
    wide = tuple((i, i + 1, i * 7) for i in range(40))
    names = tuple(f"city number {i}" for i in range(30))
    for value in (mixed, wide, names, (0,) * 40, (False,) * 30):
        text = render_constant("TABLE", value)
        namespace: dict = {}
        exec(text, namespace)
        assert namespace["TABLE"] == value and repr(namespace["TABLE"]) == repr(value)
        assert all(len(line) <= 100 for line in text.splitlines()), text
    assert " * " not in render_constant("TABLE", mixed)
    hanging = render_constant("TABLE", wide).splitlines()
    assert hanging[1].startswith(" " * len("TABLE = ("))


def _expr_helpers() -> set[str]:
    template = ROOT / "compiler/targets/python/templates/core/expr.py.j2"
    return set(re.findall(r"^def (_x_\w+)\(", template.read_text(encoding="utf-8"), re.M))


def test_a_module_holds_only_the_helpers_and_word_tables_its_rules_read():
    """The helpers of the rules in words (core/expr.py.j2) and the board facts only they read are
    written into a module when its compiled rules call them, and every one written is called."""
    helpers = _expr_helpers()
    assert {"_x_posts_in", "_x_largest_network", "_x_take"} <= helpers
    held = set()
    for path in sorted(GENERATED.glob("*.py")):
        text = path.read_text(encoding="utf-8")
        for name in helpers:
            if f"def {name}(" in text:
                held.add(name)
                assert text.count(f"{name}(") > 1, f"{path.name} defines {name} but never calls it"
    assert "_x_largest_network" in held and "_x_posts_in" in held
    bigbox = (GENERATED / "bigbox_hanseatic_45p.py").read_text(encoding="utf-8")
    assert "def _x_posts_in(" not in bigbox and "CITY_COINS" not in bigbox
    harbour = (GENERATED / "harbour_master_hanseatic_45p.py").read_text(encoding="utf-8")
    assert "CITY_COINS = " in harbour and "ROUTE_SHIPS" not in harbour


def test_tables_the_runtime_derives_are_not_written_into_modules():
    from hansa.compiler.targets.python.codegen import DERIVED_AT_IMPORT

    for path in sorted(GENERATED.glob("*.py")):
        if path.name.startswith("_"):
            continue
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for node in tree.body:
            if not isinstance(node, ast.Assign):
                continue
            targets = [
                t.id
                for target in node.targets
                for t in (target.elts if isinstance(target, ast.Tuple) else [target])
                if isinstance(t, ast.Name)
            ]
            for name in set(targets) & set(DERIVED_AT_IMPORT):
                assert isinstance(node.value, ast.Call), f"{path.name} writes {name} out"


def test_coinciding_action_id_bases_share_lines_that_fit():
    from hansa.compiler.targets.python.codegen import _render_constants

    bases = [(f"A_SOME_LONG_DECISION_KIND_{i}", 1259) for i in range(12)]
    text = _render_constants([("A_PLACE", 141), *bases, ("NUM_ACTIONS", 1259), ("N_X", 1259)])
    namespace: dict = {}
    exec(text, namespace)
    assert namespace["A_PLACE"] == 141 and namespace["NUM_ACTIONS"] == 1259
    assert all(namespace[name] == 1259 for name, _ in bases)
    lines = text.splitlines()
    assert lines[0] == "A_PLACE = 141" and lines[-1] == "N_X = 1259"  # only the layout chains
    assert 2 < len(lines) < 2 + len(bases) and all(len(line) <= 99 for line in lines)
