"""The rated ladder (`hansa.analysis.ladder`): its lineups, pairwise results, the Bradley–Terry
fit and its bootstrap intervals, a ladder of real games, and its picture."""

from __future__ import annotations

import itertools
import json
import math
import random

import pytest
from hansa.analysis.ladder import (
    ELO,
    Ladder,
    csv_text,
    expected_score,
    fit_ratings,
    pairwise_results,
    places,
    report_text,
    run_ladder,
)
from hansa.analysis.ladder_plot import write_ladder_plot
from hansa.play.simulate import ladder_agents, ladder_lineups, seat_names
from hansa.runtime.errors import HansaError
from hypothesis import given, settings
from hypothesis import strategies as st
from play_support import without_cost

pytest.importorskip("choix")

GAME = "bigbox-hanseatic-45p"


# ---- lineups
@settings(max_examples=60, deadline=None)
@given(st.integers(2, 7), st.integers(2, 5))
def test_every_agent_sits_every_seat_equally_and_every_pair_meets(agents, players):
    names = [f"a{i}" for i in range(agents)]
    cycle = ladder_lineups(names, players)
    assert all(len(lineup) == players for lineup in cycle)
    for name in names:
        held = [sum(1 for lineup in cycle if lineup[seat] == name) for seat in range(players)]
        assert len(set(held)) == 1 and held[0] > 0, (name, held)
    for a, b in itertools.combinations(names, 2):
        assert any(a in lineup and b in lineup for lineup in cycle), (a, b)
    if agents >= players:
        assert all(len(set(lineup)) == players for lineup in cycle)
    if players > 2:  # each has the other on its left as often as on its right
        for a, b in itertools.permutations(names, 2):
            left = sum(
                1
                for lineup in cycle
                for s in range(players)
                if lineup[s] == a and lineup[(s + 1) % players] == b
            )
            right = sum(
                1
                for lineup in cycle
                for s in range(players)
                if lineup[s] == b and lineup[(s + 1) % players] == a
            )
            assert left == right, (a, b)


def test_lineups_by_game_index_follow_the_cycle():
    cycle = ladder_lineups(["x", "y", "z", "w"], 4)
    assert len(cycle) == 8  # one table, four rotations each way
    assert cycle[0] == ("x", "y", "z", "w") and cycle[4] == ("w", "z", "y", "x")
    assert seat_names(["x", "y", "z", "w"], "ladder", 9, 4) == list(cycle[1])
    assert ladder_lineups(["x", "y"], 4)[0] == ("x", "y", "x", "y")
    assert len(ladder_lineups(list("abcde"), 4)) == 5 * 8  # every 4 of 5, both ways


def test_ladder_agents_are_distinct_and_at_least_two():
    assert ladder_agents("greedy,mcts:iterations=40,rollout=random") == [
        "greedy",
        "mcts:iterations=40,rollout=random",
    ]
    with pytest.raises(HansaError, match="at least two agents"):
        ladder_agents("greedy")
    with pytest.raises(HansaError, match="'greedy' twice"):
        ladder_agents("greedy,random,greedy")
    with pytest.raises(HansaError, match="empty agent name"):
        ladder_agents("greedy,,random")


# ---- a game's pairwise results
def test_places_put_the_winners_first_then_points():
    # player 1 won a tie on 50 PP by the tie-break chain; players 2 and 3 tie on 30 PP
    assert places([50, 50, 30, 30], [1]) == [1, 0, 2, 2]
    assert places([40, 40, 10, 5], [0, 1]) == [0, 0, 2, 3]  # a shared victory


def test_pairwise_results_compare_seats_of_different_agents():
    record = {"agents": ["a", "b", "a", "c"], "returns": [50, 50, 30, 30], "winners": [1]}
    results = pairwise_results(record)
    assert ("a", "b", 0.0) in results  # seat 0 lost the tie-break to seat 1
    assert ("a", "c", 0.5) in results  # seat 2 and seat 3 drew on PP
    assert ("a", "c", 1.0) in results  # seat 0 beat seat 3
    assert ("b", "a", 1.0) in results and ("b", "c", 1.0) in results
    assert len(results) == 5  # the two seats of `a` are not compared


# ---- the fit
def test_the_fit_recovers_known_odds_on_the_elo_scale():
    # a beats b three times in four: a gap of ELO * ln 3 ≈ 191 points
    ratings = fit_ratings([[0, 300], [100, 0]])
    assert ratings[0] == pytest.approx(-ratings[1])
    assert ratings[0] - ratings[1] == pytest.approx(ELO * math.log(3), abs=1.0)
    assert expected_score(ratings[0], ratings[1]) == pytest.approx(0.75, abs=0.002)
    anchored = fit_ratings([[0, 300], [100, 0]], anchor=1)
    assert anchored[1] == 0 and anchored[0] == pytest.approx(ratings[0] - ratings[1])


def synthetic_records(strengths: dict[str, float], games: int, seed: int) -> list[dict]:
    """Four-player games whose finishing order is drawn from a Plackett–Luce model of the given
    Elo ratings (its pairwise marginals are the Bradley–Terry odds), seated as a ladder seats."""
    rng = random.Random(seed)
    names = list(strengths)
    cycle = ladder_lineups(names, 4)
    records = []
    for i in range(games):
        lineup = list(cycle[i % len(cycle)])
        left, order = list(range(4)), []
        while left:
            weights = [10 ** (strengths[lineup[p]] / 400) for p in left]
            pick = rng.choices(left, weights)[0]
            order.append(pick)
            left.remove(pick)
        returns = [0] * 4
        for place, seat in enumerate(order):
            returns[seat] = 100 - 10 * place
        records.append(
            {"agents": lineup, "returns": returns, "winners": [order[0]], "decisions": 0}
        )
    return records


def test_ratings_and_intervals_recover_known_strengths():
    truth = {"w": -200.0, "x": 0.0, "y": 150.0, "z": 400.0}
    records = synthetic_records(truth, 800, seed=7)
    ladder = Ladder(GAME, 4, list(truth), 7, 800, records, bootstrap=300, anchor="x").fit()
    for i, name in enumerate(truth):
        assert ladder.low[i] <= ladder.ratings[i] <= ladder.high[i]
        assert abs(ladder.ratings[i] - truth[name]) < 60, (name, ladder.ratings[i])
        if name != "x":  # the anchor's rating is 0 in every draw
            assert ladder.high[i] - ladder.low[i] > 20
    assert [ladder.agents[i] for i in ladder.order()] == ["z", "y", "x", "w"]
    assert ladder.above_next[ladder.agents.index("z")] > 0.95


def test_the_bootstrap_is_deterministic_for_a_seed():
    records = synthetic_records({"a": 0.0, "b": 100.0, "c": 200.0, "d": 250.0}, 80, seed=1)
    first = Ladder(GAME, 4, list("abcd"), 5, 80, records, bootstrap=100).fit()
    again = Ladder(GAME, 4, list("abcd"), 5, 80, records, bootstrap=100).fit()
    other = Ladder(GAME, 4, list("abcd"), 6, 80, records, bootstrap=100).fit()
    assert (first.low, first.high) == (again.low, again.high)
    assert (first.low, first.high) != (other.low, other.high)
    assert first.ratings == other.ratings  # the seed draws the bootstrap only


# ---- a ladder of real games
def test_a_ladder_of_games_is_the_same_for_any_jobs_and_seats_evenly():
    agents = "random,greedy,greedy:seed=5"
    one = run_ladder(GAME, 8, agents, players=4, seed=3, jobs=1, bootstrap=50)
    two = run_ladder(GAME, 8, agents, players=4, seed=3, jobs=2, bootstrap=50)
    report = one.to_json()
    assert without_cost(report) == without_cost(two.to_json())
    assert report["cycle"] == 8 and report["whole_cycles"]
    assert report["seats_held"] == {
        "random": [4, 4, 4, 4],  # three agents in four seats: random holds two a game
        "greedy": [2, 2, 2, 2],
        "greedy:seed=5": [2, 2, 2, 2],
    }
    rows = {row["agent"]: row for row in report["ratings"]}
    assert rows["random"]["rank"] == 3 and rows["random"]["pair_score"] == 0.0
    assert sum(p["results"] for p in report["pairs"]) == 8 * 5  # 6 pairs less random–random
    other = run_ladder(GAME, 8, agents, players=4, seed=4, jobs=1, bootstrap=50).to_json()
    assert without_cost(other) != without_cost(report)
    text = report_text(report)
    assert "seed 3" in text and "95% bootstrap intervals" in text and "greedy:seed=5" in text
    assert "won every result against random" in text
    table = csv_text(report).splitlines()
    assert table[0].startswith("rank,agent,rating,low,high") and len(table) == 4
    json.dumps(report)  # plain data


def test_bad_ladders_are_clear_errors():
    with pytest.raises(HansaError, match="not one of the agents"):
        run_ladder(GAME, 2, "random,greedy", players=4, anchor="mcts")
    with pytest.raises(HansaError, match="unknown agent 'nobody'"):
        run_ladder(GAME, 2, "random,nobody", players=4)
    with pytest.raises(HansaError, match="at least 1"):
        run_ladder(GAME, 0, "random,greedy", players=4)
    with pytest.raises(HansaError, match="--bootstrap"):
        run_ladder(GAME, 2, "random,greedy", players=4, bootstrap=-1)


def test_the_picture_is_written_whole(tmp_path):
    records = synthetic_records({"a": 0.0, "b": 100.0, "c": 200.0, "d": 250.0}, 16, seed=2)
    report = Ladder(GAME, 4, list("abcd"), 0, 16, records, bootstrap=20).fit().to_json()
    for suffix, magic in ((".png", b"\x89PNG"), (".svg", b"<?xml")):
        path = tmp_path / f"ladder{suffix}"
        write_ladder_plot(report, path)
        assert path.read_bytes().startswith(magic)
    with pytest.raises(HansaError, match=r"\.png or \.svg"):
        write_ladder_plot(report, tmp_path / "ladder.jpg")
    with pytest.raises(HansaError, match="cannot write"):
        write_ladder_plot(report, tmp_path / "missing" / "ladder.png")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["ladder.png", "ladder.svg"]
