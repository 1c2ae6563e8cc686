"""Emperor's Favour on the native backend (docs/native.md): the games play them from the start
(tests/games/test_native.py, NATIVE_GAMES); here, from positions that reach what random and greedy
play seldom reach, both backends agree after every decision — each tile taken (a real choice of the
two markers to flip), each parameter at work (displaced pieces going anywhere, two pieces of
compensation, the city and full-track PP in the score, an action more every turn), the stock
tile's decision inside another player's turn, and triggered tiles of a house rule (several
holders deciding clockwise from the actor, the holder's own action, anyone's)."""

from __future__ import annotations

from pathlib import Path

import pytest
from hansa.play.differential import Tensors, _compare, compare_from
from play_support import needs_c_compiler
from scenario_support import Position
from test_favour import HOUSE_TILES, STOCK_TILE, TAKE, TRADER, with_favour
from test_favour_marker_trigger import TILES as MARKER_TILES
from variant_support import house_rule_text, variant

import hansa
from hansa.native import model_of, native_game

pytestmark = needs_c_compiler

UNUSED = ["plus_3_actions", "move_tradesmen", "develop_ability"]  # three kinds: a flip choice
RANDOM_SEEDS = 6  # random games by action kind from each position
RANDOM_CAP = 1500  # decisions of each


@pytest.fixture(scope="module")
def native():
    return hansa.load_game("bigbox-hanseatic-45p-favour", 4, backend="native")


@pytest.fixture(scope="module")
def python(native):
    return hansa.Game(native.module, 4)


class Twins:
    """A position on both backends, stepped together by action text and compared after each
    decision (legal actions, every field, JSON, scores, every observer's tensor)."""

    def __init__(self, python_game, native_game_, start) -> None:
        self.py = start.clone()
        self.nat = native_game_.from_python(start.clone())
        self.n_types = python_game.module.N_MARKER_TYPES
        self.tensors = Tensors(python_game)
        self.check()

    def check(self) -> None:
        problem = _compare(self.py, self.nat, self.n_types)
        if problem is None:
            problem = self.tensors.compare(self.py, self.nat, every_observer=True)
        assert problem is None, problem

    def legal(self) -> list[str]:
        return [self.py.action_to_string(a) for a in self.py.legal_actions()]

    def act(self, *texts: str) -> None:
        for text in texts:
            options = {self.py.action_to_string(a): a for a in self.py.legal_actions()}
            assert text in options, (text, sorted(options))
            self.py.apply_action(options[text])
            self.nat.apply_action(options[text])
            self.check()

    def doc(self) -> dict:
        return self.nat.to_dict()


def _random_games_agree(python_game, native_game_, start) -> None:
    for seed in range(RANDOM_SEEDS):
        _decisions, divergence = compare_from(
            python_game, native_game_, start, seed, cap=RANDOM_CAP, policy="kinds"
        )
        assert divergence is None, divergence.report()


def test_every_tile_taken_with_each_pair_of_markers_flipped(python, native):
    """Each face-up tile taken at the start of the turn, then each pair of the three unused
    markers flipped (a decision of the taker); random play from every outcome agrees."""
    start = with_favour(Position(python).player(0, unused=UNUSED).to_move(0))
    for tile in native.module.FAVOUR_NAMES:
        twins = Twins(python, native, start)
        twins.act(TAKE.format(tile))
        flips = twins.legal()
        assert len(flips) == 3 and twins.nat.current_player() == 0
        for flip in flips:
            after = Twins(python, native, twins.py)
            after.act(flip)
            assert after.doc()["favour"]["held"][0] == [tile]
            assert after.doc()["turn"]["player"] == 1  # the tile used up the turn
            _random_games_agree(python, native, after.py)


def test_more_actions_counts_in_every_later_turn(python, native):
    twins = Twins(python, native, with_favour(Position(python).player(0, unused=UNUSED[:2])))
    twins.act(TAKE.format("More actions"))
    while twins.doc()["turn"]["player"] != 0:
        twins.act("end the turn")
    assert twins.doc()["turn"]["actions_left"] == 3  # Actions 2 + 1


def test_displaced_pieces_of_the_holder_go_anywhere(python, native):
    """The holder's displaced piece and extra pieces may go to any free point (its parameter),
    and the holder's displaced trader brings 2 pieces with Trader compensation."""
    for tile, extras in (("Displace anywhere", 1), ("Trader compensation", 2)):
        pos = Position(python).route("Dortmund", "Paderborn", None, "t1", None)
        pos.player(0, supply=(5, 0)).player(1, unused=UNUSED[:2])
        twins = Twins(python, native, with_favour(pos.to_move(1)))
        twins.act(TAKE.format(tile))
        while twins.doc()["turn"]["player"] != 0:
            twins.act("end the turn")
        twins.act("displace trader on Dortmund–Paderborn #2")
        far = "place the displaced piece on Emden–Groningen #1"
        assert (far in twins.legal()) == (tile == "Displace anywhere")
        twins.act(far if tile == "Displace anywhere" else twins.legal()[0])
        assert twins.py.stack[-1][4] == extras  # the extra pieces the holder may still take
        twins.act("take an extra trader")
        _random_games_agree(python, native, twins.py)


def test_city_and_full_track_pp_score_for_the_holder(python, native):
    """City PP: 4 per controlled city; Full ability PP: 7 per full track that scores (a full
    Keys track still scores nothing) — in the score breakdown of both backends."""
    pos = Position(python).player(0, unused=UNUSED[:2], keys=4, book=3).city("Hamburg", "t0")
    for tile in ("City PP", "Full ability PP"):
        twins = Twins(python, native, with_favour(pos.to_move(0)))
        before = twins.nat.score_breakdown()[0]
        twins.act(TAKE.format(tile))
        after = twins.nat.score_breakdown()[0]
        assert (before["E"], after["E"]) == ((2, 4) if tile == "City PP" else (2, 2))
        assert (before["B"], after["B"]) == ((4, 7) if tile != "City PP" else (4, 4))


def test_the_stock_tile_holder_decides_inside_the_income_takers_turn(python, native):
    """Whenever another player takes Income, the holder may take a piece from the stock (or
    decline); only kinds its stock holds are offered, and play returns to the income taker."""
    held = [[], [], [STOCK_TILE], []]
    face_up = [t for t in native.module.FAVOUR_NAMES if t != STOCK_TILE]
    for stock, answer in (((5, 1), "merchant"), ((5, 0), "trader"), ((3, 1), None)):
        pos = Position(python).player(2, stock=stock).to_move(0, actions_left=3)
        twins = Twins(python, native, with_favour(pos, face_up=face_up, held=held))
        twins.act("income: 1 traders, 0 merchants")
        assert twins.nat.current_player() == 2
        if answer is None:
            twins.act("take no (further) piece from the general stock")
        else:
            twins.act(f"take a {answer} from the general stock to the personal supply")
        assert twins.nat.current_player() == 0
        twins.act("income: 1 traders, 0 merchants")
        _random_games_agree(python, native, twins.py)
    empty = Position(python).player(2, stock=(0, 0)).to_move(0, actions_left=3)
    twins = Twins(python, native, with_favour(empty, face_up=face_up, held=held))
    twins.act("income: 1 traders, 0 merchants")  # nothing in the stock: no decision
    assert twins.nat.current_player() == 0


def _house_game(tmp_path, text: str, name: str, players: int):
    """The Python and native games of a spec folder: the Big Box, the favour module, both
    Hanseatic boards and `text`."""
    spec = Path(__file__).resolve().parents[2] / "spec"
    folder = tmp_path / "spec"
    folder.mkdir()
    for part in (
        "bigbox_2021.hansa",
        "modules/emperors_favour.hansa",
        "boards/hanseatic_45p.hansa",
        "boards/hanseatic_3p.hansa",
    ):
        (folder / Path(part).name).write_text((spec / part).read_text("utf-8"), "utf-8")
    (folder / "house.hansa").write_text(text, "utf-8")
    python_game = hansa.compile_game(name, players, spec_dir=str(folder))
    return python_game, native_game(model_of(name, str(folder)), python_game.module, players)


def test_holders_of_triggered_tiles_decide_clockwise_from_the_actor(tmp_path):
    """Two tiles react to another player's Income and one to Place: the holders' decisions come
    after the action, the first holder clockwise from the actor on top."""
    python_game, native_game_ = _house_game(tmp_path, HOUSE_TILES, "two-stock-favour", 4)
    names = python_game.module.FAVOUR_NAMES
    held = [[], ["Second stock", "Toll"], [], [STOCK_TILE]]
    face_up = [t for t in names if t not in ("Second stock", "Toll", STOCK_TILE)]
    start = with_favour(Position(python_game).to_move(2, actions_left=3), face_up, held)
    twins = Twins(python_game, native_game_, start)
    twins.act("income: 1 traders, 0 merchants")
    assert [f["player"] for f in twins.doc()["stack"]] == [1, 3]
    trader = "take a trader from the general stock to the personal supply"
    twins.act(trader, trader, trader)
    assert twins.nat.current_player() == 2
    twins.act(next(a for a in twins.legal() if a.startswith("place trader")))  # Toll: 1 PP
    _random_games_agree(python_game, native_game_, twins.py)
    for seed in range(4):  # and from the start, tiles taken by random play
        _decisions, divergence = compare_from(
            python_game, native_game_, None, seed, cap=4000, policy="kinds"
        )
        assert divergence is None, divergence.report()


def _variant_games(body: str, tmp_path):
    """The Python and native games of a house rule whose body is `body` (test_variants)."""
    path = tmp_path / "house.hansa"
    path.write_text(house_rule_text(body, 4, "hanseatic_45p"), encoding="utf-8")
    python_game = variant(body)
    model = model_of("variant-game", "spec", extra=[str(path)])
    return python_game, native_game(model, python_game.module)


def test_tiles_for_the_holders_own_action_or_anyones(tmp_path):
    """`when you take income` reacts to the holder's own Income only, `when any player takes
    income` to everyone's."""
    python_game, native_game_ = _variant_games(
        'favour "Own purse" when you take income: gain 1 PP\n'
        'favour "Any purse" when any player takes income: gain 2 PP',
        tmp_path,
    )
    held = [["Own purse"], ["Any purse"], [], []]
    for mover, gains in ((0, [1, 2, 0, 0]), (1, [0, 2, 0, 0]), (2, [0, 2, 0, 0])):
        start = with_favour(Position(python_game).to_move(mover, actions_left=2), [], held)
        twins = Twins(python_game, native_game_, start)
        before = list(twins.nat.to_python().track)
        twins.act("income: 1 traders, 0 merchants")
        after = twins.nat.to_python().track
        assert [a - b for a, b in zip(after, before, strict=True)] == gains


def test_tiles_triggered_by_a_bonus_markers_use(tmp_path):
    """Tiles reacting to another player's, the holder's own or anyone's use of a bonus marker
    (test_favour_marker_trigger.py): the holders' effects once the marker is used, a choice
    they leave below the marker's own decision."""
    python_game, native_game_ = _variant_games(MARKER_TILES, tmp_path)
    for held, unused, texts, gains in (
        ([[], ["Marker toll"], ["Any marker"], []], "plus_3_actions", (), [0, 1, 2, 0]),
        (
            [["Marker toll", "Own marker", "Any marker"], [], [], []],
            "plus_3_actions",
            (TRADER,),
            [2, 0, 0, 0],
        ),
        ([["Own marker"], [], [], []], "develop_ability", (), [0, 0, 0, 0]),
    ):
        pos = Position(python_game).player(0, unused=[unused]).to_move(0, actions_left=2)
        twins = Twins(python_game, native_game_, with_favour(pos, [], held))
        before = list(twins.nat.to_python().track)
        twins.act(f"use bonus marker {unused}", *texts)
        if unused == "develop_ability":
            frames = [f["frame"] for f in twins.doc()["stack"]]
            assert frames == ["take_from_stock", "develop"]
            twins.act(next(a for a in twins.legal() if a.startswith("develop")), TRADER)
        after = twins.nat.to_python().track
        assert [a - b for a, b in zip(after, before, strict=True)] == gains
        _random_games_agree(python_game, native_game_, twins.py)


def test_develop_an_ability_of_the_players_choice(tmp_path):
    """`develop an ability` (a decision of any ability that can still be developed) at setup, at
    a turn's start and as a tile's effect: games from the start agree on both backends."""
    python_game, native_game_ = _variant_games(
        "at setup: develop an ability if you are the last seat\n"
        "at turn start: develop an ability if seat = 2 and unused bonuses > 0\n"
        'favour "Scholar": develop an ability\n'
        'favour "More actions": your extra actions becomes 1',
        tmp_path,
    )
    start = python_game.new_initial_state(0)
    assert start.to_dict()["stack"][0]["frame"] == "develop"
    for seed in range(12):
        policy = ("greedy", "kinds", "uniform")[seed % 3]
        _decisions, divergence = compare_from(
            python_game, native_game_, None, seed, cap=3000, policy=policy
        )
        assert divergence is None, divergence.report()
