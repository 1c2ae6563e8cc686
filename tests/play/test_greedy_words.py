"""The greedy agent plays every rule the spec can state: each construct of the rules language in a
small house rule compiled in memory, played by greedy agents that know of it only what the compiled
game exposes (the score as the game computes it, actions left, abilities, what a tried use does).
"""

from __future__ import annotations

import statistics

import pytest
from hansa.play.greedy import GreedyAgent, tables_for
from hansa.play.simulate import make_agents, play_game
from scenario_support import Position, act
from variant_support import variant

import hansa

SEEDS = range(3)


def _marker_counts(game, seeds=SEEDS) -> tuple[dict[str, int], dict[str, int]]:
    """Per marker label: how often greedy agents used it, and how many were held at the end."""
    ns = vars(game.module)
    base, labels = ns["A_USE_MARKER"], ns["MARKER_LABELS"]
    used: dict[str, int] = {}
    held: dict[str, int] = {}
    for seed in seeds:
        record, state = play_game(
            game, make_agents(["greedy"] * game.num_players(), seed), seed, record_moves=True
        )
        assert record.end_trigger != "unfinished"
        for _player, action in record.moves:
            if base <= action < base + ns["N_MARKER_TYPES"]:
                used[labels[action - base]] = used.get(labels[action - base], 0) + 1
        for p in range(game.num_players()):
            for m in state.unused_markers(p):
                held[labels[m]] = held.get(labels[m], 0) + 1
    return used, held


def test_a_bonus_marker_written_in_words_is_used_like_the_catalogues():
    """The shipped `guild-charter-hanseatic-45p` (the report: 5 held, 0 used over 3 games): the
    greedy agents now use the Guild charters they take, before the game ends."""
    game = hansa.load_game("guild-charter-hanseatic-45p", players=4)
    used, held = _marker_counts(game)
    assert used.get("Guild charter", 0) >= 2, used
    assert held.get("Guild charter", 0) == 0, held


def test_a_words_marker_that_gives_actions_is_used_once_the_turns_actions_are_spent():
    """`bonus "Courier" … when used: gain 2 actions`: used at the end of a turn, when nothing of
    the turn is left, like the catalogue's +3 actions."""
    game = variant('bonus "Courier" count 6 start 0 when used: gain 2 actions')
    used, held = _marker_counts(game)
    assert used.get("Courier", 0) >= 2, used
    state = Position(game).player(0, supply=(6, 1), unused=["courier"]).to_move(0, 0).state()
    agent = GreedyAgent(0)
    choice = agent.step(state, state.legal_actions())
    assert state.action_to_string(choice) == "use bonus marker Courier"
    state = Position(game).player(0, supply=(6, 1), unused=["courier"]).to_move(0, 2).state()
    choice = agent.step(state, state.legal_actions())
    assert state.action_to_string(choice) != "use bonus marker Courier"  # actions still to play


def test_a_words_marker_is_kept_while_its_use_gains_nothing_and_used_once_it_does():
    """`… when used: gain 1 PP per city you control`: worth nothing with no city, used near the
    end of the game once it pays."""
    game = hansa.load_game("guild-charter-hanseatic-45p", players=4)
    agent = GreedyAgent(0)
    empty = Position(game).player(0, unused=["guild_charter"]).to_move(0).state()
    assert "use bonus marker Guild charter" not in _text(empty, agent)
    late = (
        Position(game)
        .city("Hamburg", "t0")
        .city("Lübeck", "t0")
        .city("Bremen", "t0")
        .player(0, track=18, unused=["guild_charter"])
        .to_move(0)
        .state()
    )
    assert _text(late, agent) == "use bonus marker Guild charter"


def _text(state, agent) -> str:
    return state.action_to_string(agent.step(state, state.legal_actions()))


def _coin_city_posts(game, seeds) -> float:
    """Mean over games of the (player, city with a coin space) pairs holding a post at the end."""
    ns = vars(game.module)
    counts = []
    for seed in seeds:
        _record, state = play_game(game, make_agents(["greedy"] * 4, seed), seed)
        counts.append(
            sum(
                len({code >> 1 for code in state.city_posts(c)})
                for c in range(ns["N_CITIES"])
                if any(ns["SPACE_COIN"][x] for x in ns["CITY_SPACES"][c])
            )
        )
    return statistics.mean(counts)


def test_a_scoring_category_in_words_draws_the_agents_to_what_it_scores():
    """`score H "Harbour": 6 PP per city where coins > 0 and your posts here > 0`: the agents read
    the category through the game's score, so they hold posts in more coin cities than under the
    Big Box (same seeds)."""
    seeds = range(4)
    base = hansa.load_game("bigbox-hanseatic-45p", players=4)
    house = variant('score H "Harbour": 6 PP per city where coins > 0 and your posts here > 0')
    assert _coin_city_posts(house, seeds) > _coin_city_posts(base, seeds)


def test_an_after_hook_changes_the_step_3_choice_it_rewards():
    """`after create_route: gain 20 PP if level of bank >= 1`: at step 3 of a route whose city
    offers Bank, the agent develops Bank (the hook's PP, read on a copy), where under the Big Box
    it takes the post."""
    choices = []
    for game in (
        hansa.load_game("bigbox-hanseatic-45p", players=4),
        variant("after create_route: gain 20 PP if level of bank >= 1"),
    ):
        state = Position(game).route("Hamburg", "Lübeck", "t0", "t0", "t0").state()
        act(state, "create route Hamburg–Lübeck")
        assert "develop bank" in [state.action_to_string(a) for a in state.legal_actions()]
        choices.append(_text(state, GreedyAgent(0)))
    assert choices[0].startswith("establish") and choices[1] == "develop bank"


def test_an_at_hook_that_gives_actions_is_played():
    """`at turn start: gain 1 action`: the agents play the extra action (more decisions per
    turn) rather than ending their turns early."""
    seeds = range(2)

    def per_turn(game) -> float:
        rates = []
        for seed in seeds:
            record, _state = play_game(game, make_agents(["greedy"] * 4, seed), seed)
            rates.append(record.decisions / record.turns)
        return statistics.mean(rates)

    base = hansa.load_game("bigbox-hanseatic-45p", players=4)
    assert per_turn(variant("at turn start: gain 1 action")) > per_turn(base) + 0.7


def test_a_forbid_rule_is_respected_and_the_games_still_end():
    """`forbid place when pieces in supply < 3`: the agents never place from a short supply (the
    action is not offered), take income instead, and the games end by a trigger."""
    game = variant("forbid place when pieces in supply < 3")
    tables = None
    for seed in SEEDS:
        state = game.new_initial_state(seed)
        agents = make_agents(["greedy"] * 4, seed)
        tables = tables or tables_for(state)
        decisions = 0
        while not state.is_terminal():
            me = state.current_player()
            action = agents[me].step(state, state.legal_actions())
            if tables.kind_of[action] == "PLACE":
                assert sum(state.personal_supply(me)) >= 3
            state.apply_action(action)
            decisions += 1
            assert decisions < 3000
        assert state.end_conditions_met() or state.is_terminal()


@pytest.mark.parametrize("name", sorted(hansa.available_games()))
def test_no_marker_whose_use_gains_pp_or_actions_is_left_unused(name):
    """On every built game: at each player's last turn decision of a greedy game, no marker they
    still hold (and that is still unused at the end) would have gained PP when used there."""
    game = hansa.load_game(name)
    players = game.num_players()
    state = game.new_initial_state(5)
    agents = make_agents(["greedy"] * players, 5)
    tables = tables_for(state)
    last_gain: dict[tuple[int, int], int] = {}
    while not state.is_terminal():
        me = state.current_player()
        legal = state.legal_actions()
        if tables.kind_of[legal[0]] == "END_TURN":
            for a in legal:
                if tables.kind_of[a] == "USE_MARKER":
                    probe = state.clone()
                    probe.apply_action(a)
                    gain = probe.score_total(me) - state.score_total(me)
                    last_gain[(me, a - tables.base["USE_MARKER"])] = gain
            for p, m in list(last_gain):
                if p == me and m not in state.unused_markers(me):
                    del last_gain[(p, m)]
        state.apply_action(agents[me].step(state, legal))
    left = {
        key: gain
        for key, gain in last_gain.items()
        if gain > 0 and key[1] in state.unused_markers(key[0])
    }
    assert not left, left
