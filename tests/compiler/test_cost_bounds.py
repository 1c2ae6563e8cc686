"""Whatever `hansa check` accepts plays at a bounded cost: a rule in words whose estimated work
per evaluation is too large, a game with too many action ids, a player with more pieces than the
rules can count are each one located error, with the estimate, found quickly; and what a game
names (action texts, log keys) is made when it is needed, in time linear in the names."""

from __future__ import annotations

import shutil
from dataclasses import replace
from pathlib import Path

import pytest
from clock_support import cpu_seconds
from engine_support import bigbox_rules, fixture_board
from hansa.compiler.expr.cost import MAX_RULE_COST, CostEstimator, Sizes
from hansa.compiler.model.sizes import MAX_ACTIONS
from hansa.compiler.nodes.rules import Game
from hansa.compiler.project import load_project
from hansa.compiler.targets.python.codegen import build_game_module, module_from_text
from hansa.play.logs import action_keys
from hansa.runtime.game import Game as RuntimeGame

import hansa
from hansa.cli import main

ROOT = Path(__file__).resolve().parents[2]
FIXTURE = ROOT / "tests" / "fixtures" / "own_spec"


def run(capsys, *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


@pytest.fixture
def spec(tmp_path: Path) -> Path:
    folder = tmp_path / "spec"
    shutil.copytree(FIXTURE, folder)
    return folder


def house(spec: Path, body: str) -> Path:
    path = spec / "costly.hansa"
    path.write_text(
        f"rules costly extends bigbox_2021 {{\n    {body}\n}}\n"
        "game costly-game = costly on ring players 3\n",
        encoding="utf-8",
    )
    return path


def only_error(err: str) -> str:
    (line,) = [line for line in err.splitlines() if ": error: " in line]
    return line


def nested_counts(depth: int, inner: str = "turn number > 1000") -> str:
    condition = inner
    for _ in range(depth):
        condition = f"count cities where {condition} > 0"
    return condition


# ---------------------------------------------------------------- rules in words
@pytest.mark.parametrize(
    "body",
    [
        "end when " + nested_counts(6),  # used to run for minutes inside `check`
        'score H "deep": 1 PP per city where ' + nested_counts(5, "your posts here > 0"),
        "forbid income when " + nested_counts(5),
    ],
    ids=["end condition", "score rule", "forbid rule"],
)
def test_a_rule_too_costly_to_evaluate_is_refused_with_the_estimate(body, spec, capsys):
    path = house(spec, body)
    started = cpu_seconds()
    code, _out, err = run(capsys, "check", str(spec))
    assert cpu_seconds() - started < 30  # not evaluated: estimated
    assert code == 1
    line = only_error(err)
    assert line.startswith(f"{path}:2:")
    assert "steps each time the game evaluates it" in line and f"at most {MAX_RULE_COST:,}" in line


def test_a_nested_rule_within_the_budget_checks_and_plays(spec, capsys):
    house(spec, 'score H "deep": 1 PP per city where ' + nested_counts(2, "coins > 0"))
    code, _out, err = run(capsys, "check", str(spec))
    assert code == 0, err
    assert run(capsys, "play", "costly-game", "--spec", str(spec))[0] == 0


def test_every_built_in_rule_is_far_below_the_budget(monkeypatch):
    """The editions, house rules and modules cost a small fraction of the bound."""
    from hansa.compiler.model import build, words

    project = load_project([ROOT / "spec"])
    seen = []
    real = words.costly_rules

    def spy(hook_rules, tie_exprs, names, sizes, categories):
        estimator = CostEstimator(names, sizes, {})
        seen.extend(estimator.rule(r) for r in hook_rules)
        return real(hook_rules, tie_exprs, names, sizes, categories)

    monkeypatch.setattr(words, "costly_rules", spy)
    for game in project.games.values():
        rules, board = project.resolved_rulesets[game.rules], project.boards[game.board]
        build.build_model(game, rules, board)
    assert seen and max(seen) < MAX_RULE_COST // 20


def test_the_estimate_multiplies_nested_sets():
    sizes = Sizes(city=27, route=40, player=5, ability=5, board=200, local=8)
    from hansa.compiler.expr.check import Names
    from hansa.compiler.expr.lower import lower_expr
    from hansa.compiler.syntax.parser import parse_text

    def cost(expr: str) -> int:
        tree = parse_text(f"rules r {{ end when {expr} }}", "t.hansa")
        node = next(tree.find_data("r_end")).children[0]
        return CostEstimator(Names((), (), ()), sizes, {}).expr(lower_expr(node, "t.hansa"))

    one, two = cost(nested_counts(1)), cost(nested_counts(2))
    assert 27 <= one < 27 * 10 and 27 * one <= two < 27 * 27 * 10


# ---------------------------------------------------------------- action ids and pieces
@pytest.mark.parametrize(
    "body, fragment",
    [
        ("pieces traders 500 merchants 400", "the income choices"),
        ("action displace cost { trader: 1, merchant: 200000 }", "the displacement payments"),
    ],
)
def test_a_game_with_too_many_action_ids_is_refused_at_the_statement(body, fragment, spec, capsys):
    path = house(spec, body)
    code, _out, err = run(capsys, "check", str(spec))
    assert code == 1
    line = only_error(err)
    assert line.startswith(f"{path}:2:5:") and "would have" in line and fragment in line
    assert f"(at most {MAX_ACTIONS:,})" in line


@pytest.mark.parametrize(
    "body, fragment",
    [
        # a 3 MB module (one tuple entry per count up to the last threshold) and 3.7 s of codegen
        ("score C bonus_markers table { 1: 1, 2..999999: 3, 1000000+: 21 }", "at most at 1,000"),
        # a million markers in every state: play --log took 22 s and wrote 54 MB
        ("bonus additional_trading_post count 1000000 start 1", "1,000,011 bonus markers"),
    ],
    ids=["table threshold", "marker count"],
)
def test_sizes_that_every_state_or_module_carries_are_bounded(body, fragment, spec, capsys):
    path = house(spec, body)
    code, _out, err = run(capsys, "check", str(spec))
    assert code == 1
    line = only_error(err)
    assert line.startswith(f"{path}:2:") and fragment in line


def test_a_player_with_a_million_merchants_is_refused_for_its_action_ids(spec, capsys):
    """28 million action ids once: `play --log` took 3 GB, a web session never answered."""
    path = house(spec, "pieces merchants 1000000")
    code, _out, err = run(capsys, "check", str(spec))
    assert code == 1
    line = only_error(err)
    assert line.startswith(f"{path}:2:5:") and "would have 28,00" in line
    assert "the income choices" in line and "make 28,000,028 of them" in line


def test_a_player_owns_at_most_999_pieces(spec, capsys):
    """The bank's `all` is 999 pieces: more would make `all` mean fewer than the player owns."""
    path = house(spec, "pieces traders 1200 merchants 4")
    code, _out, err = run(capsys, "check", str(spec))
    assert code == 1
    assert only_error(err).startswith(f"{path}:2:5:") and "at most 999 pieces" in err


def test_action_names_are_made_when_first_asked_for():
    game = hansa.load_game("bigbox-hanseatic-45p", players=4)
    module = game.module
    module._action_names.clear()
    assert game.action_to_string(5).startswith("income")
    assert list(module._action_names) == [5]
    assert game.action_to_string(game.num_distinct_actions()) == "<no action 1259>"


# ---------------------------------------------------------------- names linear in their length
def _game_with_city_name(length: int) -> RuntimeGame:
    long = "B" * length
    board = fixture_board("hanseatic_45p")
    board = replace(
        board,
        cities=tuple(replace(c, name=long) if c.name == "Bremen" else c for c in board.cities),
        routes=tuple(
            replace(r, cities=tuple(long if n == "Bremen" else n for n in r.cities))
            for r in board.routes
        ),
    )
    game = Game(f"long-{length}", "bigbox_2021", board.id, (4,))
    text = build_game_module(game, bigbox_rules(), board)
    return RuntimeGame(module_from_text(text, f"hansa.generated._long_{length}", "long"), 4)


def test_log_keys_take_time_linear_in_the_length_of_names():
    """Keys used to be made by editing every action text with one regular expression of every
    route label: a 100,000-character city name made `play --log` take 18.7 s (0.56 s without the
    log). The language bounds names now, but the keys are made from the labels directly."""
    timings = {}
    for length in (2_000, 40_000):
        game = _game_with_city_name(length)
        started = cpu_seconds()
        keys = action_keys(game)
        timings[length] = cpu_seconds() - started
        assert len(set(keys)) == len(keys)
    assert timings[40_000] < 0.5 + 60 * timings[2_000]  # 20 times the text, not 400
