"""The mcts agent: deterministic for a seed, reads the position only through public methods,
never changes the state it is asked about; agent names with key=value parameters in play,
simulate and diff --simulate."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest
from hansa.play.greedy import GreedyAgent
from hansa.play.mcts import MCTSAgent, rewards_of
from hansa.play.simulate import make_agent, parse_agents, play_game
from hansa.runtime.errors import HansaError
from play_support import NO_C_COMPILER, needs_c_compiler, run_cli

import hansa

CHEAP = "mcts:iterations=4,depth=2"


def short_game(spec: str, seed: int):
    game = hansa.load_game("bigbox-hanseatic-45p", players=4)
    agents = [make_agent(spec, seed)] + [GreedyAgent(p) for p in (1, 2, 3)]
    return play_game(game, agents, seed, 200, record_moves=True)


def test_same_seed_same_game_and_another_seed_another():
    first, _ = short_game(CHEAP, 1)
    again, _ = short_game(CHEAP, 1)
    other, _ = short_game(CHEAP + ",seed=99", 1)
    assert first.moves == again.moves
    assert first.moves != other.moves


def test_step_leaves_the_state_unchanged_and_returns_a_legal_action():
    game = hansa.load_game("bigbox-hanseatic-45p", players=4)
    state = game.new_initial_state(2)
    before = state.to_json()
    for rollout in ("greedy", "random"):
        agent = MCTSAgent(seed=3, iterations=12, depth=3, rollout=rollout)
        action = agent.step(state, state.legal_actions())
        assert action in state.legal_actions()
        assert state.to_json() == before
    timed = MCTSAgent(seed=3, seconds=0.05, depth=2)
    assert timed.step(state, state.legal_actions()) in state.legal_actions()
    assert timed.decisions == 1 and timed.search_seconds >= 0.05


def test_rewards_favour_the_leader_and_the_winner():
    game = hansa.load_game("bigbox-hanseatic-45p", players=4)
    state = game.new_initial_state(2)
    assert rewards_of(state) == [0.0] * 4  # nobody leads at the start
    agents = [GreedyAgent(p) for p in range(4)]
    while not state.is_terminal():
        state.apply_action(agents[state.current_player()].step(state, state.legal_actions()))
    rewards = rewards_of(state)
    for winner in state.winners():
        assert rewards[winner] == max(rewards) > 1.0


def test_mcts_reads_only_public_methods_of_the_state():
    source = Path(hansa.play.mcts.__file__).read_text(encoding="utf-8")
    state_class = type(hansa.load_game("bigbox-hanseatic-45p", players=4).new_initial_state(0))
    used = {
        node.attr
        for node in ast.walk(ast.parse(source))
        if isinstance(node, ast.Attribute)
        and isinstance(node.value, ast.Name)
        and node.value.id in ("state", "root_state")
    }
    assert "resample_hidden" in used and "clone" in used
    for name in used:
        assert not name.startswith("_") and callable(getattr(state_class, name, None)), name


def test_agent_parameters_are_parsed_generically():
    agent = make_agent("mcts:iterations=7,rollout=random,turns=2,depth=0,c=1.5", 5)
    assert (agent.iterations, agent.rollout, agent.depth, agent.c) == (7, "random", 0, 1.5)
    assert agent.turns == 2
    assert parse_agents("mcts:iterations=7,depth=3,greedy,random,greedy", 4) == [
        "mcts:iterations=7,depth=3",
        "greedy",
        "random",
        "greedy",
    ]
    assert parse_agents("mcts:iterations=7,depth=3", 3) == ["mcts:iterations=7,depth=3"] * 3
    with pytest.raises(HansaError, match="unknown parameter 'iteration'"):
        make_agent("mcts:iteration=7", 0)
    with pytest.raises(HansaError, match="rollout must be greedy or random"):
        make_agent("mcts:rollout=smart", 0)
    with pytest.raises(HansaError, match="expected key=value"):
        make_agent("mcts:iterations=3,=4", 0)
    with pytest.raises(HansaError, match="unknown parameter 'depth'"):
        make_agent("greedy:depth=3", 0)


def test_play_simulate_and_diff_accept_mcts(capsys):
    agents = f"{CHEAP},greedy,greedy,greedy"
    code, out, _err = run_cli(
        capsys, "play", "bigbox-hanseatic-45p", "--players", "4", "--agents", agents
    )
    assert code == 0 and "mcts:iterations=4,depth=2" in out
    code, out, _err = run_cli(
        capsys, "simulate", "bigbox-hanseatic-45p", "-n", "2", "--players", "4", "--agents",
        agents, "--jobs", "1",
    )  # fmt: skip
    assert code == 0 and "agents mcts:iterations=4,depth=2, greedy" in out
    code, _out, _err = run_cli(
        capsys, "diff", "bigbox_2021", "spec/house/short_game.hansa", "--simulate", "1",
        "--players", "4", "--agents", CHEAP, "--jobs", "1",
    )  # fmt: skip
    assert code in (0, 1)


def test_a_parameter_of_the_wrong_type_is_one_clear_error():
    """`--agents mcts:iterations=x` names the parameter and what it must be (no TypeError)."""
    import pytest
    from hansa.play.simulate import make_agent
    from hansa.runtime.errors import HansaError

    with pytest.raises(HansaError, match="iterations must be a whole number, not 'x'"):
        make_agent("mcts:iterations=x", 1)
    with pytest.raises(HansaError, match="depth must be a whole number, not 1.5"):
        make_agent("mcts:depth=1.5", 1)
    with pytest.raises(HansaError, match="turns must be a whole number, not 1.5"):
        make_agent("mcts:turns=1.5", 1)
    with pytest.raises(HansaError, match="not negative"):
        make_agent("mcts:turns=-1", 1)


# ---- the search itself
def last_action_position():
    """Player 0 creates Halle–Quedlinburg, which lifts its track to 20 PP: the game ends with this
    action. Player 0's network (Quedlinburg, Goslar, Hildesheim, Paderborn, Göttingen, Warburg:
    9 posts) scores posts x Keys. A post in Halle (the greedy agent's choice: a coin space, control
    of an empty city next to its network) brings 6 PP, developing Keys from 3 to 4 brings 9 PP, and
    player 1 ends on 67 PP: the post loses the game (65), Keys wins it (68)."""
    from scenario_support import Position, act, load

    game = load("bigbox-hanseatic-45p", 4)
    pos = Position(game).player(0, keys=3, track=19)
    pos.player(1, track=15, keys=4, actions=5, privilege=3, book=3, bank=3)
    pos.route("Halle", "Quedlinburg", "t0", "t0", "t0", "t0")
    pos.city("Quedlinburg", "m0").city("Goslar", "t0", "t0").city("Hildesheim", "t0", "t0")
    pos.city("Paderborn", "t0").city("Göttingen", "t0").city("Warburg", "t0", "t0")
    pos.city("Hamburg", "t1", "t1", "t1").city("Lübeck", "t1", "t1").city("Lüneburg", "m1")
    pos.city("Hannover", "t1")
    state = pos.state()
    act(state, "create route Halle–Quedlinburg")
    return state


def test_mcts_finds_the_winning_choice_the_greedy_agent_misses():
    state = last_action_position()
    named = {state.action_to_string(a): a for a in state.legal_actions()}
    outcome = {}
    for text, action in named.items():
        after = state.clone()
        after.apply_action(action)
        assert after.is_terminal()
        outcome[text] = (after.returns()[:2], after.winners())
    assert outcome["develop keys"] == ([68, 67], [0])
    assert outcome["establish a trading post in Halle with a trader"] == ([65, 67], [1])
    greedy = GreedyAgent(0).step(state, state.legal_actions())
    assert state.action_to_string(greedy) == "establish a trading post in Halle with a trader"
    for seed in range(4):
        chosen = MCTSAgent(seed=seed, iterations=12).step(state, state.legal_actions())
        assert state.action_to_string(chosen) == "develop keys"


def test_same_seed_same_choice_at_a_position():
    game = hansa.load_game("bigbox-hanseatic-45p", players=4)
    state = game.new_initial_state(5)
    greedy = [GreedyAgent(p) for p in range(4)]
    for _ in range(40):  # into the game, where choices differ
        state.apply_action(greedy[state.current_player()].step(state, state.legal_actions()))
    legal = state.legal_actions()
    choices = [MCTSAgent(seed=s % 3, iterations=10).step(state, legal) for s in range(6)]
    assert choices[:3] == choices[3:]


def test_a_time_budget_is_respected():
    game = hansa.load_game("bigbox-hanseatic-45p", players=4)
    state = game.new_initial_state(4)
    agent = MCTSAgent(seed=1, seconds=0.3)
    for _ in range(2):
        agent.step(state, state.legal_actions())
    # one iteration (about a round of play) costs a few milliseconds: the budget overruns by
    # at most one iteration, with a wide margin for a busy machine
    assert 0.6 <= agent.search_seconds < 0.6 + 2 * 0.5


def test_iterations_end_after_the_searchers_next_turn(monkeypatch):
    """Every iteration from player 0's first decision is scored at the start of player 1's
    second turn (turns=1), or at the end of the game when neither turns nor depth limit it."""
    import hansa.play.mcts as mcts

    game = hansa.load_game("bigbox-hanseatic-45p", players=4)
    state = game.new_initial_state(3)
    scored = []
    real = mcts.reward_of

    def recording(position, player):
        scored.append(position.clone())
        return real(position, player)

    monkeypatch.setattr(mcts, "reward_of", recording)
    MCTSAgent(seed=2, iterations=6, turns=1).step(state, state.legal_actions())
    assert scored  # (the search may stop early once the rest could not change its choice)
    first_turn = state.actions_remaining()
    for position in scored:
        assert position.current_player() == 1 and not position.is_terminal()
        assert position.observation(0)["turn"]["player"] == 1
        assert position.actions_remaining() == first_turn  # a fresh turn
        # player 1 has played a turn already (placed pieces), so this is its second turn
        assert sum(position.personal_supply(1)) < sum(state.personal_supply(1))
    scored.clear()
    MCTSAgent(seed=2, iterations=2, turns=0, depth=0).step(state, state.legal_actions())
    assert scored and all(position.is_terminal() for position in scored)


def _greedy_choices(agent: GreedyAgent, game, seed: int, decisions: int) -> list[int]:
    """The agent decides every seat's decisions of game `seed` for `decisions` steps."""
    state = game.new_initial_state(seed)
    chosen = []
    for _ in range(decisions):
        if state.is_terminal():
            break
        action = agent.step(state, state.legal_actions())
        chosen.append(action)
        state.apply_action(action)
    return chosen


def test_greedy_that_forgot_chooses_as_a_fresh_agent():
    """The search restarts the same rollout agents from another position every iteration; after
    `forget()` their choices depend on the position and their generator only, not on the game
    they played before (their caches name posts by count, valid within one game only)."""
    game = hansa.load_game("bigbox-hanseatic-45p", players=4)
    fresh = GreedyAgent(5)
    used = GreedyAgent(5)
    _greedy_choices(used, game, 11, 300)  # another game: caches and the route it builds
    used.forget()
    used.rng.setstate(fresh.rng.getstate())
    assert _greedy_choices(used, game, 12, 300) == _greedy_choices(fresh, game, 12, 300)


@pytest.mark.parametrize("name", sorted(hansa.available_games()))
def test_mcts_searches_every_built_game_to_the_end(name: str) -> None:
    """Nothing in the search is tied to one board or edition: at a mid-game position of every
    built game (pawn, countries, tiles, missions, house rules) its default search — iterations
    played out to the end of the game — returns a legal action and leaves the position as it was."""
    game = hansa.load_game(name)
    state = game.new_initial_state(4)
    greedy = [GreedyAgent(p) for p in range(game.num_players())]
    searched = 0
    for decision in range(600):
        if state.is_terminal():
            break
        legal = state.legal_actions()
        mid_game = decision >= 100 and searched < 2
        if mid_game and len(legal) > 1 and state.current_player() == 0:
            before = state.to_json()
            agent = MCTSAgent(seed=1, iterations=3)
            action = agent.step(state, legal)
            assert action in legal and state.to_json() == before
            assert agent.decisions == 1
            searched += 1
        else:
            action = greedy[state.current_player()].step(state, legal)
        state.apply_action(action)
    assert searched == 2


# ---- the savings `strong` uses, and the native backend
def _mid_game(seed: int, decisions: int = 60):
    game = hansa.load_game("bigbox-hanseatic-45p", players=4)
    state = game.new_initial_state(seed)
    greedy = [GreedyAgent(p) for p in range(4)]
    for _ in range(decisions):
        state.apply_action(greedy[state.current_player()].step(state, state.legal_actions()))
    return state


def test_a_search_stopped_once_decided_chooses_as_the_whole_budget():
    """`stop` ends a search when the most visited action can no longer be overtaken: the choice
    is the one the whole budget makes from the same generator, and fewer iterations ran."""
    import hansa.play.mcts as mcts

    ran = {False: 0, True: 0}
    choices = {}
    for seed in range(4):
        state = _mid_game(seed)
        while len(state.legal_actions()) == 1:
            state.apply_action(state.legal_actions()[0])
        legal = state.legal_actions()
        for stop in (False, True):
            agent = MCTSAgent(seed=seed, iterations=16, turns=1, stop=stop)
            real = agent._iterate

            def counted(*args, stop=stop, real=real):
                ran[stop] += 1
                return real(*args)

            agent._iterate = counted
            choices[stop] = agent.step(state, legal)
        assert choices[True] == choices[False]
    assert ran[False] == 4 * 16 and ran[True] < ran[False]
    assert not mcts._decided(mcts._Node(), [1, 2], 0)


def test_reuse_continues_the_chosen_subtree_within_a_turn():
    """With `reuse`, the searcher's next decision of the same turn starts from the subtree of the
    action it chose (its visits count towards the budget); after other players' decisions the
    search starts anew. Same seed, same game."""
    first, _ = short_game("mcts:iterations=8,turns=1,reuse=true", 3)
    again, _ = short_game("mcts:iterations=8,turns=1,reuse=true", 3)
    assert first.moves == again.moves
    state = _mid_game(2, 41)
    agent = MCTSAgent(seed=1, iterations=8, turns=1, reuse=True)
    kept_visits = []
    for _ in range(200):
        legal = state.legal_actions()
        if state.current_player() == 0 and len(legal) > 1:
            kept = agent._kept
            same_turn = kept is not None and kept[1] == state.observation(0)
            kept_visits.append(kept[0].visits if same_turn else 0)
            action = agent.step(state, legal)
        else:
            action = GreedyAgent(state.current_player()).step(state, legal)
        state.apply_action(action)
    assert any(kept_visits) and 0 in kept_visits  # kept within a turn, new at a turn's start


def test_reuse_and_stop_are_switches():
    assert make_agent("mcts:reuse=true,stop=false", 1).reuse is True
    with pytest.raises(HansaError, match="stop must be true or false, not 'yes'"):
        make_agent("mcts:stop=yes", 1)
    with pytest.raises(HansaError, match="backend must be python, native or auto"):
        make_agent("mcts:backend=c", 1)
    strong = make_agent("strong", 1)
    assert strong.reuse and strong.stop and strong.turns == 0


@needs_c_compiler
def test_the_search_on_the_native_backend_chooses_as_on_the_python_one():
    """`backend=native` plays the iterations on the native copy of a Python position; the same
    seed makes the same choices, whether the game itself runs on the Python or the native
    backend."""
    spec = "mcts:iterations=6,turns=1,reuse=true,stop=true"
    python, _ = short_game(spec, 4)
    native, _ = short_game(spec + ",backend=native", 4)
    assert python.moves == native.moves
    game = hansa.load_game("bigbox-hanseatic-45p", players=4, backend="native")
    agents = [make_agent(spec, 4)] + [GreedyAgent(p) for p in (1, 2, 3)]
    on_native, _ = play_game(game, agents, 4, 200, record_moves=True)
    assert on_native.moves == python.moves


@needs_c_compiler
def test_greedy_rollouts_of_a_native_search_read_the_position_in_c(monkeypatch):
    """A native search never makes a Python copy of a position: the greedy rollouts run in C
    (templates/greedy.c.j2), and so do resampling the hidden order and the winners of a
    finished rollout."""
    import hansa.native as native_module

    converted = []
    python_state = native_module.python_state
    monkeypatch.setattr(
        native_module,
        "python_state",
        lambda *args: converted.append(1) or python_state(*args),
    )
    iterations = 4
    agent = make_agent(f"mcts:iterations={iterations},backend=native", 5)
    state = hansa.load_game("bigbox-hanseatic-45p", players=4).new_initial_state(5)
    decided = agent.step(state, state.legal_actions())
    assert decided in state.legal_actions()
    assert converted == []


@needs_c_compiler
def test_strong_searches_natively_where_the_game_builds_and_chooses_alike():
    """`strong` (backend auto) searches a Python position on its native copy when the game
    builds natively: the choices of the Python search, in less time."""
    game = hansa.load_game("bigbox-hanseatic-45p", players=4)
    state = game.new_initial_state(3)
    auto = make_agent("strong:iterations=4", 2)
    on_python = make_agent("strong:iterations=4,backend=python", 2)
    for _ in range(3):
        legal = state.legal_actions()
        chosen = auto.step(state, legal)
        assert on_python.step(state, legal) == chosen
        state.apply_action(chosen)
    assert auto._native_game is not None and on_python._native_game is None


def test_auto_searches_the_python_position_of_rules_the_native_build_is_not_of():
    """A game compiled in memory from other rules than the installed game of its name (or of a
    name not installed) is searched as given with backend auto; backend native refuses it with
    one message instead of searching the installed rules."""
    from hansa.compiler.targets.python.codegen import module_from_text
    from hansa.runtime.game import Game
    from variant_support import variant

    installed = hansa.load_game("bigbox-hanseatic-45p", players=4).module
    with open(installed.__file__, encoding="utf-8") as module_file:
        text = module_file.read()
    other_rules = module_from_text(text + "\n# another build\n", "hansa.generated.x", "other")
    for game in (Game(other_rules, 4), variant("score Z track")):
        state = game.new_initial_state(1)
        agent = make_agent("strong:iterations=2", 1)
        assert agent.step(state, state.legal_actions()) in state.legal_actions()
        assert agent._native_game is None
    if not NO_C_COMPILER:
        state = Game(other_rules, 4).new_initial_state(1)
        with pytest.raises(HansaError, match="other rules of that name"):
            make_agent("mcts:iterations=2,backend=native", 1).step(state, state.legal_actions())


def test_strong_searches_the_python_position_where_no_c_compiler_is(monkeypatch, tmp_path):
    """`strong` (backend auto) on a machine without a C compiler: no message, no build, the
    Python position searched, the choices of `strong:backend=python`."""
    from hansa.compiler.targets.native import build

    monkeypatch.setenv("HANSA_CACHE", str(tmp_path))
    monkeypatch.setenv("PATH", str(tmp_path))
    monkeypatch.delenv("CC", raising=False)
    monkeypatch.setattr(build, "_LOADED", {})
    game = hansa.load_game("bigbox-hanseatic-3p", players=3)
    state = game.new_initial_state(2)
    auto = make_agent("strong:iterations=3", 4)
    chosen = auto.step(state, state.legal_actions())
    assert chosen == make_agent("strong:iterations=3,backend=python", 4).step(
        state, state.legal_actions()
    )
    assert auto._native_game is None and not list(tmp_path.iterdir())


# ---- belief: the completions of what the searcher cannot see, weighed by what the others built
def _missions_mid_game(seed: int, decisions: int = 220):
    """A greedy game of the missions module played on to player 0's first decision after
    `decisions`: the others have posts, some in the cities of their cards."""
    game = hansa.load_game("bigbox-hanseatic-45p-missions", players=4)
    state = game.new_initial_state(seed)
    greedy = [GreedyAgent(p) for p in range(4)]
    played = 0
    while played < decisions or state.current_player() != 0:
        state.apply_action(greedy[state.current_player()].step(state, state.legal_actions()))
        played += 1
    return state


def _weights(cumulative: list[float]) -> list[float]:
    return [b - a for a, b in zip([0.0, *cumulative], cumulative, strict=False)]


def test_belief_makes_the_others_real_cards_likelier_than_a_blind_redraw():
    """With mission cards, the search plays each other player's real card (the one its greedy
    play has built towards) far more often than a uniform redraw of the unseen cards does
    (1 in 8), and gives the searcher its own card always."""
    shares = []
    for seed in (2, 3):
        state = _missions_mid_game(seed)
        drawn = MCTSAgent(seed=1)._weighed_completions(state, 0, 4)
        assert drawn is not None
        completions, cumulative = drawn
        weights = _weights(cumulative)
        assert all(c.mission_cities(0) == state.mission_cities(0) for c in completions)
        for other in (1, 2, 3):
            real = state.mission_cities(other)
            drawn_cards = [c.mission_cities(other) for c in completions]
            hits = [w for c, w in zip(drawn_cards, weights, strict=True) if c == real]
            shares.append(sum(hits) / cumulative[-1])
    assert sum(shares) / len(shares) > 2 / 8, shares


def test_belief_reads_nothing_the_searcher_cannot_see():
    """Two positions the searcher cannot tell apart (the others' cards and the marker order
    redrawn) get the same weighed completions: the weights come from what is on the board."""
    import random

    state = _missions_mid_game(2)
    twin = state.clone()
    twin.resample_hidden(random.Random(7), 0)
    assert twin.information_state_string(0) == state.information_state_string(0)
    others = (1, 2, 3)
    assert [twin.mission_cities(p) for p in others] != [state.mission_cities(p) for p in others]
    drawn = MCTSAgent(seed=1)._weighed_completions(state, 0, 4)
    twin_drawn = MCTSAgent(seed=1)._weighed_completions(twin, 0, 4)
    assert drawn[1] == twin_drawn[1]
    for completion, twin_completion in zip(drawn[0], twin_drawn[0], strict=True):
        cards = [completion.mission_cities(p) for p in range(4)]
        assert cards == [twin_completion.mission_cities(p) for p in range(4)]


def test_belief_changes_nothing_where_no_secret_scores():
    """On a game without secret cards every completion scores alike: no weighing, and the search
    makes the choices it makes with belief off (the same draws from its generator)."""
    state = _mid_game(5, 120)
    assert MCTSAgent(seed=1)._weighed_completions(state, state.current_player(), 4) is None
    on = make_agent("mcts:iterations=4,depth=3", 2)
    off = make_agent("mcts:iterations=4,depth=3,belief=false", 2)
    for _ in range(4):
        legal = state.legal_actions()
        chosen = on.step(state, legal)
        assert off.step(state, legal) == chosen
        state.apply_action(chosen)
    with pytest.raises(HansaError, match="belief must be true or false, not 'perhaps'"):
        make_agent("mcts:belief=perhaps", 1)
