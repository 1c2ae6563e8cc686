"""Mission cards (Big Box rule book p. 11, "Cartas de Missão"), played through the public API.

The book: at setup the 9 cards are shuffled and each player is dealt one face down, kept secret
until the end; the rest go back to the box. At the end a player scores 1 PP per city of the card
where it has established at least 1 trading post (at most 3), and 5 PP more if it also has the most
posts in all 3 cities (on a tie, the rightmost post of highest value): at most 8 PP. The first two
cities of a card appear on 2 other cards, the third on this card alone.
Games: `bigbox-hanseatic-45p-missions` (4 players) and `bigbox-hanseatic-3p-missions`.
"""

from __future__ import annotations

import json
import shutil
from collections import Counter
from pathlib import Path

import pytest
from hansa.compiler.errors import HansaError
from play_support import assert_clean_error, run_cli
from scenario_support import Position, load

import hansa

GAME = "bigbox-hanseatic-45p-missions"
REFERENCE = [
    ["Osnabrück", "Stendal", "Paderborn"],
    ["Dortmund", "Minden", "Lüneburg"],
    ["Minden", "Perleberg", "Goslar"],
    ["Arnheim", "Perleberg", "Hannover"],
    ["Dortmund", "Stendal", "Kampen"],
    ["Arnheim", "Osnabrück", "Hildesheim"],
    ["Arnheim", "Perleberg", "Bremen"],
    ["Minden", "Osnabrück", "Magdeburg"],
    ["Dortmund", "Stendal", "Münster"],
]


def dealt(position: Position, cards: list[int]):
    """`position` with mission card cards[p] (numbered from 1) dealt to player p."""
    data = position.to_dict()
    for p, card in enumerate(cards):
        data["player_state"][p]["mission"] = card
    return position.game.state_from_json(data)


def mission_pp(state) -> list[int]:
    return [row["M"] for row in state.score_breakdown()]


@pytest.fixture
def game():
    return load(GAME, 4)


def test_the_nine_cards_are_the_books():
    """p. 11: 9 cards of 3 cities; the first two of each are on 2 other cards, the third alone."""
    game = hansa.load_game(GAME, 4)
    names = game.module.CITY_NAMES
    cards = [[names[c] for c in card] for card in game.module.MISSION_CARDS]
    assert cards == REFERENCE
    counts = Counter(city for card in cards for city in card)
    for card in cards:
        assert counts[card[0]] == counts[card[1]] == 3 and counts[card[2]] == 1


def test_one_post_per_listed_city_scores_1_pp(game):
    """p. 11: 1 PP per listed city with a post of the player: at most 3 without control."""
    pos = Position(game).city("Osnabrück", "t1", "t0").city("Stendal", "t0", "t2", "t2")
    state = dealt(pos, [1, 2, 3, 4])  # player 0: Osnabrück, Stendal, Paderborn
    assert mission_pp(state)[0] == 2
    state = dealt(pos.city("Paderborn", "t3", "t0"), [1, 2, 3, 4])
    assert mission_pp(state)[0] == 3  # a post in each, control of none: no bonus


def test_controlling_all_three_adds_5_pp_for_at_most_8(game):
    """p. 11: 5 PP more for the most posts in all 3 cities; in total at most 8 PP."""
    pos = (
        Position(game)
        .city("Osnabrück", "t0", "t0")
        .city("Stendal", "t1", "t0", "t0")
        .city("Paderborn", "t0")
    )
    state = dealt(pos, [1, 9, 3, 4])
    assert mission_pp(state) == [8, 1, 0, 0]  # player 1 (Dortmund, Stendal, Münster): Stendal


def test_a_tie_for_control_goes_to_the_rightmost_post(game):
    """p. 11: on a tie for the most posts the rightmost post (of highest value) decides."""
    pos = Position(game).city("Osnabrück", "t0").city("Paderborn", "t0")
    tied_left = pos.city("Stendal", "t0", "t1")  # 1-1: player 1 holds the rightmost
    assert mission_pp(dealt(tied_left, [1, 2, 3, 4]))[0] == 3
    tied_right = pos.city("Stendal", "t1", "t0")
    assert mission_pp(dealt(tied_right, [1, 2, 3, 4]))[0] == 8


def test_an_additional_post_is_a_post_in_the_city(game):
    pos = Position(game).city("Paderborn", "t1", "t2", additional=("t0",))
    assert mission_pp(dealt(pos, [1, 2, 3, 4]))[0] == 1


def test_the_deal_is_seeded_distinct_and_secret():
    """p. 11: one card each, face down, from the 9 shuffled; the seed fixes the deal."""
    for players, name in ((4, GAME), (5, GAME), (3, "bigbox-hanseatic-3p-missions")):
        game = hansa.load_game(name, players)
        deals = [tuple(game.new_initial_state(seed).deal()["missions"]) for seed in range(40)]
        assert all(len(set(d)) == players and set(d) <= set(range(1, 10)) for d in deals)
        assert len(set(deals)) > 20
        assert game.new_initial_state(3).deal() == game.new_initial_state(3).deal()
        state = game.new_initial_state(5)
        for p in range(players):
            seen = state.observation(p)
            assert seen["own"]["mission"] == state.deal()["missions"][p]
            assert seen["own"]["mission_cities"] == REFERENCE[seen["own"]["mission"] - 1]
            text = state.information_state_string(p)
            assert '"mission"' in text and text.count('"mission":') == 1


def test_the_breakdown_and_score_cli_show_the_category(capsys, game, tmp_path):
    pos = Position(game).city("Osnabrück", "t0", "t0").city("Stendal", "t0").city("Paderborn", "t0")
    state = dealt(pos, [1, 2, 3, 4])
    assert list(state.score_breakdown()[0]) == ["A", "B", "C", "D", "E", "F", "M"]
    path = tmp_path / "s.json"
    path.write_text(state.to_json(), encoding="utf-8")
    code, out, err = run_cli(capsys, "score", str(path), "--json")
    assert code == 0, err
    assert "M" in out and "8" in out


def test_state_json_refuses_a_card_dealt_twice_or_unknown(game):
    data = Position(game).to_dict()
    data["player_state"][1]["mission"] = 10
    with pytest.raises(HansaError, match=r"player_state\[1\]\.mission"):
        game.state_from_json(data)
    for p, card in enumerate([2, 2, 3, 4]):
        data["player_state"][p]["mission"] = card
    with pytest.raises(HansaError, match="different mission card"):
        game.state_from_json(data)


def test_the_log_records_the_deal_and_replay_checks_it(capsys, tmp_path):
    path = tmp_path / "g.jsonl"
    args = ("play", GAME, "--players", "4", "--seed", "11", "--agents", "greedy", "--log")
    code, _, err = run_cli(capsys, *args, str(path))
    assert code == 0, err
    lines = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]
    game = hansa.load_game(GAME, 4)
    assert lines[0]["deal"] == game.new_initial_state(11).deal()
    assert lines[-1]["final_state"]["player_state"][0]["mission"] == lines[0]["deal"]["missions"][0]
    code, _, err = run_cli(capsys, "replay", str(path))
    assert (code, err) == (0, "")
    swapped = lines[0]["deal"]["missions"][::-1]
    lines[0]["deal"]["missions"] = swapped
    bad = tmp_path / "bad.jsonl"
    bad.write_text("\n".join(json.dumps(x, ensure_ascii=False) for x in lines) + "\n", "utf-8")
    code, out, err = run_cli(capsys, "replay", str(bad))
    assert_clean_error(code, out, err, "deal")


def _check_with(capsys, tmp_path: Path, cards: str) -> tuple[int, str, str]:
    spec = tmp_path / "spec"
    shutil.copytree(Path(__file__).resolve().parents[2] / "spec", spec)
    (spec / "m.hansa").write_text(
        f"rules m extends bigbox_2021 {{\n    score M missions cards {cards}\n}}\n"
        "game m-45p = m on hanseatic_45p players 4..5\n",
        "utf-8",
    )
    return run_cli(capsys, "check", str(spec))


@pytest.mark.parametrize(
    "cards, fragments",
    [
        ("{ 1: Osnabrück Stendal, 3: Bremen }", ("m.hansa:2:", "expected 2")),
        ("{ 1: Osnabrück Stendal, 2: Bremen Bremen }", ("m.hansa:2:", "listed twice")),
        ("{ 1: Osnabrück Stendal, 2: Bremen 3 }", ("m.hansa:2:", "a city name")),
        ("3", ("m.hansa:2:", "cards {")),
        (
            "{ 1: Osnabrück Stendahl, 2: Bremen Kampen, 3: Bremen Minden, 4: Bremen Goslar,"
            " 5: Kampen Minden }",
            ("m.hansa:2:", "'Stendahl'", "did you mean 'Stendal'"),
        ),
        ("{ 1: Osnabrück Stendal, 2: Bremen Kampen }", ("m.hansa:2:", "cannot be dealt to 5")),
    ],
)
def test_spec_errors_are_located(capsys, tmp_path, cards, fragments):
    code, out, err = _check_with(capsys, tmp_path, cards)
    assert code == 1, (out, err)
    for fragment in fragments:
        assert fragment in err, err


def test_greedy_aims_at_its_mission(monkeypatch):
    """The greedy agent values posts in the cities of its own card (read via `mission_cities`):
    over the same seeds it scores clearly more mission PP than with that valuation switched off."""
    from hansa.play import greedy

    game = hansa.load_game(GAME, 4)

    def mission_total() -> int:
        total = 0
        for seed in range(12):
            state = game.new_initial_state(seed)
            agents = [greedy.GreedyAgent(seed * 7 + p) for p in range(4)]
            while not state.is_terminal():
                state.apply_action(
                    agents[state.current_player()].step(state, state.legal_actions())
                )
            total += sum(mission_pp(state))
        return total

    aiming = mission_total()
    monkeypatch.setattr(greedy, "MISSION_POST_BONUS", 0.0)
    monkeypatch.setattr(greedy, "MISSION_CONTROL_BONUS", 0.0)
    assert aiming > 1.5 * mission_total()


def test_diff_shows_the_module(capsys):
    code, out, err = run_cli(capsys, "diff", "bigbox-hanseatic-45p", GAME)
    assert code in (0, 1), err
    assert "score M 'missions' added (cards {1: Osnabrück Stendal Paderborn, 2:" in out
    assert "post_pp 1, all_pp 5" in out


def test_mcts_searches_with_its_own_card_and_leaves_the_state():
    """The mcts agent redraws, per iteration, what the searcher cannot see (others' cards)."""
    from hansa.play.mcts import MCTSAgent

    game = hansa.load_game("bigbox-hanseatic-3p-missions", 3)
    state = game.new_initial_state(4)
    before = state.to_json()
    action = MCTSAgent(seed=1, iterations=30, rollout="random").step(state, state.legal_actions())
    assert action in state.legal_actions() and state.to_json() == before
