"""`simulate` and `hansa simulate`: seeds per game, identical results for any --jobs, statistics."""

from __future__ import annotations

import json
import math

import pytest
from hansa.compiler.errors import HansaError
from hansa.play.simulate import (
    SimulationResult,
    game_seed,
    make_agents,
    play_game,
    seated,
    share,
    simulate,
    spread,
)
from play_support import GAME, assert_clean_error, run_cli, without_cost


def test_one_and_two_jobs_give_identical_json(capsys, games) -> None:
    args = ["simulate", GAME, "-n", "6", "--players", "4", "--seed", "11", "--json"]
    code, one, err = run_cli(capsys, *args, "--jobs", "1")
    assert (code, err) == (0, "")
    code, two, err = run_cli(capsys, *args, "--jobs", "2")
    assert (code, err) == (0, "")  # no progress bar with --json (or when not a terminal)
    assert without_cost(one) == without_cost(two)  # the CPU and wall seconds vary by run
    data = json.loads(one)
    assert data["format"] == "hansa-simulation" and data["games"] == 6
    assert data["agents"] == ["greedy"] * 4 and data["seed"] == 11


def test_simulate_matches_single_games(games) -> None:
    """Game i of a run is exactly `play_game` with `game_seed(seed, i)` and the agents seated
    for game i (rotated by i seats when they differ)."""
    game = games(GAME, 4)
    result = simulate(game, 3, agents="greedy,random,greedy,greedy", seed=5, jobs=1)
    for i, summary in enumerate(result.records):
        seed = game_seed(5, i)
        names = seated(["greedy", "random", "greedy", "greedy"], i)
        record, _ = play_game(game, make_agents(names, seed), seed)
        assert summary["cpu_seconds"] > 0  # the process time this game took
        assert summary == record.summary() | {
            "agents": names,
            "cpu_seconds": summary["cpu_seconds"],
        }
        assert names.index("random") == (1 + i) % 4
    assert game_seed(5, 0) != game_seed(5, 1) != game_seed(6, 1)


def test_statistics_of_a_run(capsys, games) -> None:
    code, out, _ = run_cli(
        capsys, "simulate", GAME, "-n", "8", "--players", "5", "--jobs", "2", "--json"
    )
    assert code == 0
    data = json.loads(out)
    wins = data["win_rate_by_seat"]
    assert len(wins) == 5
    assert math.isclose(sum(w["mean"] for w in wins), 1.0, abs_tol=1e-3)
    assert set(data["points_by_category"]) == {"A", "B", "C", "D", "E", "F"}
    shares = data["end_triggers"]
    assert sum(s["count"] for s in shares.values()) == 8
    for s in shares.values():
        assert s["low"] <= s["share"] <= s["high"]
    assert 100 < data["decisions"]["mean"] < 1000
    assert data["decisions"]["min"] <= data["decisions"]["mean"] <= data["decisions"]["max"]
    assert data["rounds"]["mean"] == pytest.approx(data["turns"]["mean"] / 5, abs=1e-3)
    assert 25 <= data["winner_points"]["mean"] <= 75
    for stat in data["total_points_by_seat"]:
        assert stat["std"] >= 0 and stat["ci95"] >= 0


def test_text_report(capsys, games) -> None:
    code, out, err = run_cli(capsys, "simulate", GAME, "-n", "3", "--players", "4", "-j", "1")
    assert code == 0 and err == ""
    lines = out.splitlines()
    assert lines[0].startswith(f"{GAME}: 3 games, 4 players, agents greedy")
    assert "win rate by seat (shared wins split):" in lines
    assert any(line.startswith("  seat 3:") for line in lines)
    assert any(line.strip().startswith("F network") for line in lines)
    for heading in ("winners' PP:", "end triggers (", "turns:", "rounds:", "decisions:"):
        assert any(line.startswith(heading) for line in lines), heading
    assert "95% CI" in out


def test_statistics_helpers() -> None:
    stat = spread([1, 2, 3, 4])
    assert stat["mean"] == 2.5
    assert stat["std"] == pytest.approx(math.sqrt(5 / 3), abs=1e-4)
    assert stat["ci95"] == pytest.approx(1.96 * math.sqrt(5 / 3) / 2, abs=1e-4)
    assert (stat["min"], stat["max"]) == (1, 4)
    assert spread([7])["std"] == 0.0
    half = share(50, 100)
    assert half["share"] == 0.5 and half["low"] == pytest.approx(0.4038, abs=1e-3)
    assert half["high"] == pytest.approx(0.5962, abs=1e-3)
    none = share(0, 20)
    assert none["low"] == 0.0 and 0.1 < none["high"] < 0.2


def test_shared_victories_split_the_win() -> None:
    record = {
        "seed": 0,
        "players": 3,
        "returns": [10, 10, 3],
        "breakdown": [{"A": 10}, {"A": 10}, {"A": 3}],
        "winners": [0, 1],
        "end_trigger": "track_pp",
        "turns": 30,
        "decisions": 100,
    }
    other = dict(record, winners=[2], returns=[1, 2, 9], end_trigger="marker_supply_empty")
    result = SimulationResult("g", 3, ["greedy"] * 3, 0, 2, [record, other])
    rates = [w["mean"] for w in result.win_rate()]
    assert rates == [0.25, 0.25, 0.5]
    triggers = result.to_json()["end_triggers"]
    assert triggers["track_pp"]["count"] == 1 and triggers["marker_supply_empty"]["share"] == 0.5
    assert result.to_json()["winner_points"]["mean"] == 9.5


@pytest.mark.parametrize(
    ("args", "fragments"),
    [
        (["-n", "0"], ["-n must be at least 1"]),
        (["-n", "2", "--jobs", "0"], ["--jobs must be at least 1"]),
        (["-n", "2", "--players", "2"], ["not 2"]),
        (["-n", "2", "--agents", "greedy,gredy,greedy,greedy"], ["unknown agent 'gredy'"]),
    ],
)
def test_simulate_errors(capsys, games, args, fragments) -> None:
    code, out, err = run_cli(capsys, "simulate", GAME, *args)
    assert_clean_error(code, out, err, *fragments)


def test_unknown_game(capsys, games) -> None:
    code, out, err = run_cli(capsys, "simulate", "bigbox-hanseatic-5p", "-n", "1")
    assert_clean_error(code, out, err, "unknown game", "did you mean")


def test_simulate_api_errors(games) -> None:
    game = games(GAME, 4)
    with pytest.raises(HansaError, match="at least 1"):
        simulate(game, 0)
    with pytest.raises(HansaError, match="--jobs"):
        simulate(game, 1, jobs=0)


def test_a_failing_agent_in_a_worker_is_a_clean_error(capsys, games, tmp_path, monkeypatch) -> None:
    (tmp_path / "crashing_agent.py").write_text(
        "class Crash:\n    def step(self, state, legal_actions):\n        return 1 / 0\n",
        encoding="utf-8",
    )
    monkeypatch.syspath_prepend(str(tmp_path))
    code, out, err = run_cli(
        capsys, "simulate", GAME, "-n", "2", "--jobs", "2", "--agents", "crashing_agent:Crash"
    )
    assert_clean_error(code, out, err, "agent Crash (player 0) failed", "ZeroDivisionError")


def test_progress_bar_only_on_a_terminal(capsys, games, monkeypatch) -> None:
    monkeypatch.setattr("sys.stderr.isatty", lambda: True, raising=False)
    code, _, err = run_cli(capsys, "simulate", GAME, "-n", "2", "--jobs", "1")
    assert code == 0 and "/2 [" in err and "game" in err  # tqdm's bar, e.g. 0/2 [00:00<?, ?game/s]
    monkeypatch.setattr("sys.stderr.isatty", lambda: True, raising=False)
    code, out, err = run_cli(capsys, "simulate", GAME, "-n", "2", "--jobs", "1", "--json")
    assert code == 0 and err == "" and json.loads(out)["games"] == 2


@pytest.mark.parametrize("command", ["simulate", "replay"])
def test_help(capsys, command) -> None:
    with pytest.raises(SystemExit) as exc:
        run_cli(capsys, command, "--help")
    assert exc.value.code == 0
    assert "--json" in capsys.readouterr().out
