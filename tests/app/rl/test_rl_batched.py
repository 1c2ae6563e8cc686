"""The batched native environment (hansa/rl/batched.py, issue #37 item 1): every row against the
position it shows, autoreset and truncation, rewards, opponents in C and in Python, seeding,
bad actions, Gymnasium's check_env on the single-env form, hidden information."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

pytest.importorskip("gymnasium")

import hansa  # noqa: E402
from hansa.rl.rewards import outcome  # noqa: E402

# Builds a native game in every process (about 1 s of compiler time each): not in the quick
# subset, as tests/conftest.py's SLOW_MODULES marks the other native modules.
pytestmark = pytest.mark.slow

GAME = "bigbox-hanseatic-45p"
MISSIONS = "bigbox-hanseatic-3p-missions"


def batched(**options):
    from hansa.rl.batched import HansaBatchedEnv

    options.setdefault("players", 4)
    return HansaBatchedEnv(options.pop("game", GAME), options.pop("num_envs", 3), **options)


def draw(masks: np.ndarray, rng) -> np.ndarray:
    from hansa.rl.bench import masked_draw

    return masked_draw(masks, rng)


def legal_ids(infos: dict, i: int) -> list[int]:
    """Game i's legal actions as the id lists give them (and past them, nothing: -1)."""
    count = infos["legal_counts"][i]
    assert (infos["legal_ids"][i, count:] == -1).all()
    return infos["legal_ids"][i, :count].tolist()


def test_make_vec_native_returns_the_batched_env_and_rows_show_the_positions():
    import gymnasium

    import hansa.rl.gymnasium  # noqa: F401
    from hansa.rl.batched import HansaBatchedEnv

    envs = gymnasium.make_vec(
        f"hansa/{GAME}-v0", num_envs=3, players=4, seat=None, backend="native", max_decisions=40
    )
    assert isinstance(envs, HansaBatchedEnv)
    observations, infos = envs.reset(seed=3)
    rng = np.random.default_rng(0)
    cut = 0
    for _ in range(100):
        assert envs.observation_space.contains(observations)
        for i, state in enumerate(envs.states):
            player = int(infos["player"][i])
            assert state.current_player() == player
            assert np.flatnonzero(observations["action_mask"][i]).tolist() == state.legal_actions()
            assert legal_ids(infos, i) == state.legal_actions()
            assert np.array_equal(observations["observation"][i], state.observation_tensor(player))
        before = envs.states
        actions = draw(observations["action_mask"], rng)
        observations, rewards, terminated, truncated, infos = envs.step(actions)
        assert not terminated.any() and (rewards == 0).all()
        for i in np.flatnonzero(truncated):
            cut += 1
            final = envs.final_state(i)
            assert final.to_json() != before[i].to_json()
            mover = final.current_player()
            assert np.array_equal(
                infos["final_obs"][i]["observation"], final.observation_tensor(mover)
            )
            assert not infos["final_obs"][i]["action_mask"].any() and infos["final_info"][i] == {}
            assert envs.decisions(i) == 0  # a new game started in the same step
    assert cut == 6  # 100 decisions each, cut at 40: twice per game


def test_rows_and_legal_ids_follow_whole_games_and_copies_are_fresh():
    """Row patching (the board place by place, the rest where it differs, the observer turning
    in self-play) and the id lists stay equal to the position through whole games and the next
    game's opening, drawn with `legal_draw` as the benchmark draws."""
    from hansa.rl.bench import legal_draw

    for options in ({"seat": None}, {"seat": 2, "opponents": "random"}):
        envs = batched(num_envs=2, copy=True, **options)
        observations, infos = envs.reset(seed=21)
        rng = np.random.default_rng(4)
        ended = 0
        while ended < 2:
            for i, state in enumerate(envs.states):
                player = int(infos["player"][i])
                assert legal_ids(infos, i) == state.legal_actions()
                assert np.flatnonzero(observations["action_mask"][i]).tolist() == (
                    state.legal_actions()
                )
                assert np.array_equal(
                    observations["observation"][i], state.observation_tensor(player)
                )
            actions = legal_draw(infos["legal_ids"], infos["legal_counts"], rng)
            observations, _rewards, terminated, _truncated, infos = envs.step(actions)
            ended += int(terminated.sum())
        # copy=True: what a step returned is not written by the next one
        returned = infos["legal_ids"], observations["observation"]
        snapshot = [array.copy() for array in returned]
        observations, *_rest, infos = envs.step(
            legal_draw(infos["legal_ids"], infos["legal_counts"], rng)
        )
        assert all(np.array_equal(a, b) for a, b in zip(returned, snapshot, strict=True))
        assert not np.array_equal(observations["observation"], snapshot[1])


@pytest.mark.parametrize(
    ("game", "players"),
    [
        ("bigbox-hanseatic-3p-missions-favour", 3),
        ("bigbox-britannia-45p", 5),
        ("original-hanseatic-2p", 2),
        ("marker-market-hanseatic-45p", 4),
    ],
)
def test_rows_are_the_tensor_in_games_with_other_blocks(game, players):
    """Favour tiles, missions, Britannia's board, the 2-player pawn, the marker display: each row
    and id list is the position's, in self-play (the observer turning) and for a seat against
    random opponents."""
    from hansa.rl.bench import legal_draw

    for options in ({"seat": None}, {"seat": players - 1, "opponents": "random"}):
        envs = batched(game=game, players=players, num_envs=2, **options)
        observations, infos = envs.reset(seed=5)
        rng = np.random.default_rng(5)
        for _ in range(150):
            for i, state in enumerate(envs.states):
                player = int(infos["player"][i])
                assert legal_ids(infos, i) == state.legal_actions()
                assert np.array_equal(
                    observations["observation"][i], state.observation_tensor(player)
                )
            actions = legal_draw(infos["legal_ids"], infos["legal_counts"], rng)
            observations, *_rest, infos = envs.step(actions)


def with_special_prestige(game, state, rng):
    """A copy of `state` where a player who has a merchant off the board holds a special prestige
    space with it (random play almost never takes one; the row's patching must show it)."""
    import json

    data = json.loads(state.to_json())
    for p in rng.sample(range(len(data["player_state"])), len(data["player_state"])):
        pieces = data["player_state"][p]
        where = next((k for k in ("supply", "stock") if pieces[k]["merchants"]), None)
        if where is not None:
            pieces[where]["merchants"] -= 1
            data["special_prestige"][rng.randrange(len(data["special_prestige"]))] = f"m{p}"
            return game.state_from_json(json.dumps(data))
    return state


def test_rows_follow_loaded_positions_with_every_place_block_changed():
    """Self-play rows (the observer turns) over positions loaded one after another: special
    prestige spaces taken and given back, as well as everything random play changes."""
    import random

    game = hansa.load_game(GAME, 4, backend="native")
    rng = random.Random(3)
    envs = batched(num_envs=1, seat=None)
    _observations, infos = envs.reset(seed=1)
    state = game.new_initial_state(seed=8)
    shown = 0
    for decision in range(600):
        if state.is_terminal() or decision % 50 == 0:  # early positions: merchants off the board
            state = game.new_initial_state(seed=decision)
        position = with_special_prestige(game, state, rng) if decision % 3 else state
        envs.load(0, position)
        row, infos = envs._observations()["observation"][0], envs._infos()
        player = position.current_player()
        assert int(infos["player"][0]) == player
        assert np.array_equal(row, position.observation_tensor(player))
        assert legal_ids(infos, 0) == position.legal_actions()
        shown += position is not state
        state.apply_action(rng.choice(state.legal_actions()))
    assert shown > 100


def test_legal_draw_is_uniform_over_each_rows_legal_ids():
    from hansa.rl.bench import legal_draw

    ids = np.array([[7, 3, 9, -1, -1], [4, 0, 0, 0, 0], [1, 2, 5, 6, 8]], np.int16)
    counts = np.array([3, 1, 5], np.int32)
    rng = np.random.default_rng(0)
    draws = np.stack([legal_draw(ids, counts, rng) for _ in range(6000)])
    for i, count in enumerate(counts):
        values, seen = np.unique(draws[:, i], return_counts=True)
        assert sorted(values.tolist()) == sorted(ids[i, :count].tolist())
        assert np.all(np.abs(seen / 6000 - 1 / count) < 0.03)


def test_seat_against_opponents_in_c_sees_only_its_own_decisions_and_ends_games():
    for opponents in ("random", "greedy"):
        envs = batched(num_envs=4, seat=1, opponents=opponents, reward="win")
        observations, infos = envs.reset(seed=11)
        ended = 0
        for _ in range(400):
            assert (infos["player"] == 1).all()
            for i, state in enumerate(envs.states):
                assert state.current_player() == 1
                assert np.array_equal(observations["observation"][i], state.observation_tensor(1))
            # the first legal action (usually the end of the turn): games against greedy end
            observations, rewards, terminated, _truncated, infos = envs.step(
                observations["action_mask"].argmax(1)
            )
            for i in np.flatnonzero(terminated):
                ended += 1
                final = envs.final_state(i)
                assert final.is_terminal()
                assert rewards[i] == outcome(final, "win")[1]
                assert infos["final_info"][i]["returns"] == list(final.returns())
        if opponents == "greedy":
            assert ended >= 4


def test_the_same_seed_plays_the_same_games():
    for opponents in ("random", "greedy"):
        runs = []
        for _ in range(2):
            envs = batched(num_envs=3, seat=0, opponents=opponents, max_decisions=300)
            observations, _ = envs.reset(seed=5)
            rng = np.random.default_rng(1)
            seen = []
            for _ in range(150):
                observations, rewards, terminated, truncated, _ = envs.step(
                    draw(observations["action_mask"], rng)
                )
                seen.append((observations["observation"].sum(), terminated.sum(), truncated.sum()))
            runs.append((seen, [s.to_json() for s in envs.states]))
        assert runs[0] == runs[1]
    other = batched(num_envs=3, seat=0, opponents="random")
    first = other.reset(seed=5)[0]["observation"]
    assert not np.array_equal(first, other.reset(seed=6)[0]["observation"])


def test_shaped_rewards_are_the_track_gains_and_pp_sums_to_the_final_pp():
    envs = batched(num_envs=2, seat=0, opponents="greedy", shaped=0.5)
    observations, _ = envs.reset(seed=2)
    track = [list(s.track_pp()) for s in envs.states]
    paid = np.zeros(2)
    checked = 0
    for _ in range(2000):
        observations, rewards, terminated, truncated, infos = envs.step(
            observations["action_mask"].argmax(1)
        )
        everyone = infos["rewards"]
        assert np.array_equal(everyone[:, 0], rewards)
        for i in range(2):
            if terminated[i]:
                final = envs.final_state(i)
                paid[i] += rewards[i]
                assert paid[i] == pytest.approx(final.returns()[0])
                checked += 1
                paid[i] = 0.0
                track[i] = list(envs.states[i].track_pp())
                continue
            now = list(envs.states[i].track_pp())
            gained = [0.5 * (b - a) for a, b in zip(track[i], now, strict=True)]
            assert everyone[i].tolist() == pytest.approx(gained)
            paid[i] += rewards[i]
            track[i] = now
        if checked >= 3:
            break
    assert checked >= 3


def test_a_python_callable_decides_for_the_other_seats_with_their_own_view():
    from gymnasium.error import ResetNeeded

    asked = []

    def first_legal(observations, masks, players):
        for row in range(len(players)):
            asked.append((observations[row].copy(), masks[row].copy(), int(players[row])))
        return masks.argmax(1)

    envs = batched(num_envs=3, seat=2, opponents=first_legal)
    observations, _ = envs.reset(seed=4)
    rng = np.random.default_rng(3)
    for _ in range(30):
        asked.clear()
        states = envs.states
        actions = draw(observations["action_mask"], rng)
        observations, _rewards, terminated, _truncated, _infos = envs.step(actions)
        assert not terminated.any()  # 30 steps: no game ends
        # replay the step on copies, round by round (the waiting games in slot order): the
        # callable saw each deciding opponent's own tensor and legal actions
        for state, action in zip(states, actions, strict=True):
            state.apply_action(int(action))
        asked_rows = iter(asked)
        while True:
            waiting = [s for s in states if s.current_player() != 2]
            if not waiting:
                break
            for state in waiting:
                tensor, mask, player = next(asked_rows)
                assert player == state.current_player()
                assert np.array_equal(tensor, state.observation_tensor(player))
                assert np.flatnonzero(mask).tolist() == state.legal_actions()
                state.apply_action(int(mask.argmax()))
        assert next(asked_rows, None) is None
        assert [s.to_json() for s in states] == [s.to_json() for s in envs.states]

    def wrong(observations, masks, players):
        return np.full(len(players), -1)

    bad = batched(num_envs=2, seat=0, opponents=wrong)
    observations, _ = bad.reset(seed=1)
    with pytest.raises(hansa.HansaError, match="opponents' policy"):
        bad.step(observations["action_mask"].argmax(1))
    with pytest.raises(ResetNeeded):  # the games wait on the opponents: a reset is needed
        bad.step(observations["action_mask"].argmax(1))

    def failing(observations, masks, players):
        raise RuntimeError("the opponents' network is down")

    broken = batched(num_envs=2, seat=1, opponents=failing)  # seat 0 decides first
    with pytest.raises(RuntimeError, match="network is down"):
        broken.reset(seed=1)
    with pytest.raises(ResetNeeded):
        broken.step([0, 0])
    broken.opponents = broken._policy = first_legal
    observations, _ = broken.reset(seed=1)  # a reset starts again
    assert (observations["action_mask"].sum(axis=1) > 0).all()


def test_bad_and_illegal_actions_change_nothing():
    from gymnasium.error import InvalidAction

    envs = batched(num_envs=3, seat=None)
    observations, _ = envs.reset(seed=7)
    before = [s.to_json() for s in envs.states]
    legal = observations["action_mask"].argmax(1)
    for wrong in (
        [0, 0],
        np.zeros((3, 1), np.int64),
        [1.5, 0, 0],
        [True, 0, 0],
        [-1, 0, 0],
        np.array([legal[0], legal[1], 30000], np.int16),  # int16 goes to C as it is
        np.array([legal[0], legal[1], -5], np.int32),
        np.array([legal[0], legal[1], 2**40], np.int64),
        np.array([0, 0, 0], np.float32),
    ):
        with pytest.raises(InvalidAction):
            envs.step(wrong)
    assert [s.to_json() for s in envs.states] == before  # refused before any game moved
    illegal = int(np.flatnonzero(observations["action_mask"][2] == 0)[0])
    observations, rewards, *_rest, infos = envs.step([legal[0], legal[1], illegal])
    assert infos["illegal_action"].tolist() == [False, False, True] and rewards[2] == -1.0
    after = [s.to_json() for s in envs.states]
    assert after[2] == before[2] and after[0] != before[0]
    twin = batched(num_envs=3, seat=None)  # the same step with int16 actions: the same games
    twin.reset(seed=7)
    twin.step(np.array([legal[0], legal[1], illegal], np.int16))
    assert [s.to_json() for s in twin.states] == after
    strict = batched(num_envs=3, seat=None, illegal_action="raise")
    observations, _ = strict.reset(seed=7)
    before = [s.to_json() for s in strict.states]
    with pytest.raises(hansa.HansaError, match="illegal action"):
        strict.step([legal[0], legal[1], illegal])
    assert [s.to_json() for s in strict.states] == before
    for options, words in (
        ({"opponents": "mcts"}, "opponents"),
        ({"seat": 4}, "seat"),
        ({"reward": "gold"}, "reward"),
        ({"max_decisions": 0}, "max_decisions"),
        ({"backend": "python"}, "natively"),
        ({"num_envs": 0}, "num_envs"),
    ):
        with pytest.raises(hansa.HansaError, match=words):
            batched(**options)


def test_check_env_passes_on_the_single_env_form():
    from gymnasium.utils.env_checker import check_env

    from hansa.rl.batched import HansaBatchedSingleEnv

    with warnings.catch_warnings():
        warnings.simplefilter("error")
        for options in (
            {"seat": 0, "opponents": "random"},
            {"seat": None},
            {"seat": 3, "opponents": "greedy", "max_decisions": 30},
        ):
            check_env(HansaBatchedSingleEnv(GAME, 4, **options), skip_render_check=True)


def test_no_row_reveals_what_the_seat_may_not_see():
    """Positions that differ only in what a seat cannot see (the face-down order, the others'
    mission cards) give that seat the same observation row and mask in the batched env, and
    nothing it returns holds a game's seed."""
    import random

    game = hansa.load_game(MISSIONS, 3, backend="native")
    rng = random.Random(0)
    for seat in range(3):
        envs = batched(game=MISSIONS, players=3, num_envs=2, seat=seat, opponents="random")
        observations, infos = envs.reset(seed=9)
        state = game.new_initial_state(seed=rng.getrandbits(63))
        compared = 0
        for _ in range(400):
            if state.is_terminal():
                break
            if state.current_player() == seat:
                other = state.clone()
                other.resample_hidden(random.Random(rng.getrandbits(32)), seat)
                assert other.to_json() != state.to_json()
                envs.load(0, state)
                envs.load(1, other)
                rows, ids = envs._observations(), envs._infos()
                assert np.array_equal(rows["observation"][0], rows["observation"][1])
                assert np.array_equal(rows["action_mask"][0], rows["action_mask"][1])
                assert legal_ids(ids, 0) == legal_ids(ids, 1)
                compared += 1
            state.apply_action(rng.choice(state.legal_actions()))
        assert compared > 20
        shown = repr(infos) + repr(envs.step(observations["action_mask"].argmax(1))[4])
        assert "seed" not in shown


def test_the_multi_agent_form_pays_every_agent():
    from hansa.rl.batched import HansaBatchedAgents

    agents = HansaBatchedAgents(GAME, 2, players=4, reward="margin", shaped=1.0)
    observations, infos = agents.reset(seed=1)
    assert agents.possible_agents == [f"player_{p}" for p in range(4)]
    rng = np.random.default_rng(0)
    paid = 0.0
    for _ in range(3000):
        observations, rewards, terminations, truncations, infos = agents.step(
            draw(observations["action_mask"], rng)
        )
        assert set(rewards) == set(agents.agents) and rewards["player_0"].shape == (2,)
        assert np.array_equal(agents.agent_selection, infos["player"])
        paid += sum(float(np.abs(r).sum()) for r in rewards.values())
        if paid:
            break
    assert paid > 0
    with pytest.raises(hansa.HansaError, match="every seat"):
        HansaBatchedAgents(GAME, 2, players=4, seat=0)


def test_hansa_bench_batched_reports_ratios_to_native_playouts(capsys):
    import json

    from hansa.cli import main

    arguments = ["bench", GAME, "--players", "4", "--batched", "--seconds", "0.6", "--envs", "8"]
    assert main([*arguments, "--json"]) == 0
    figures = json.loads(capsys.readouterr().out)[0]
    assert figures["envs"] == 8 and figures["players"] == 4
    rates, ratios = figures["per_second_cpu"], figures["ratio_to_playouts"]
    assert ratios["native playouts (decisions)"] == 1.0
    assert len(rates) == 5 and all(rate > 0 for rate in rates.values())
    assert main([*arguments[:-1], "0"]) == 1
    assert "--envs must be at least 1" in capsys.readouterr().err


def test_the_greedy_advice_does_not_depend_on_what_the_seat_may_not_see():
    """The advice (a learner's feature) at a position and at a copy whose hidden part was drawn
    again for the deciding seat is the same action: two batches of one game, reset alike (so
    their advisors draw the same numbers), one loaded with each position."""
    import random

    game = hansa.load_game(MISSIONS, 3, backend="native")
    rng = random.Random(1)
    compared = 0
    for start in range(3):
        state = game.new_initial_state(seed=start)
        for _ in range(300):
            if state.is_terminal():
                break
            seat = state.current_player()
            other = state.clone()
            other.resample_hidden(random.Random(rng.getrandbits(32)), seat)
            advice = []
            for position in (state, other):
                envs = batched(game=MISSIONS, players=3, num_envs=1, seat=None)
                envs.reset(seed=4)
                envs.load(0, position)
                advice.append(int(envs.greedy_advice()[0]))
            assert advice[0] == advice[1] and advice[0] in state.legal_actions()
            compared += 1
            state.apply_action(rng.choice(state.legal_actions()))
    assert compared > 300
