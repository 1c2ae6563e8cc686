"""Measure one search agent against three greedy agents, its seat rotating (issue 11).

    nice -n 10 .venv/bin/python scripts/mcts_strength.py -n 200 --jobs 2 \
        --agent mcts --out mcts_strength.jsonl

Game i (i = first, first+1, …) is played with seed `game_seed(seed, i)` and the measured agent in
seat i mod players; the other seats are greedy with the usual per-seat seeds. Each finished game is
appended to --out as one JSON line (so a long run can be watched, and summarised again with
--summarise), then the summary is printed: wins (a shared victory counts 1/k for each of k
winners; outright wins are shown too) with the Wilson 95% interval, the mean PP margin (the agent's
PP minus the best other player's) with its 95% interval, and the CPU seconds per searched decision
(a decision with more than one legal action; forced ones cost nothing).
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from concurrent.futures import ProcessPoolExecutor

from hansa.play.simulate import agent_seed, game_seed, make_agent, play_game, share, spread
from hansa.runtime.game import Game

import hansa


class _Timed:
    """Wraps an agent: counts its searched decisions and the CPU time they take."""

    def __init__(self, agent) -> None:
        self.agent = agent
        self.decisions = 0
        self.cpu = 0.0

    def step(self, state, legal: list[int]) -> int:
        if len(legal) == 1:
            return legal[0]
        started = time.process_time()
        action = self.agent.step(state, legal)
        self.cpu += time.process_time() - started
        self.decisions += 1
        return action


def play_one(game_name: str | Game, players: int, agent: str, run_seed: int, index: int) -> dict:
    """Game `index` with the measured agent in seat index mod players (a game's name, or the
    game itself)."""
    game = game_name if isinstance(game_name, Game) else hansa.load_game(game_name, players=players)
    seed = game_seed(run_seed, index)
    seat = index % players
    names = ["greedy"] * players
    names[seat] = agent
    agents = [make_agent(name, agent_seed(seed, s)) for s, name in enumerate(names)]
    timed = agents[seat] = _Timed(agents[seat])
    record, _state = play_game(game, agents, seed)
    others = [r for p, r in enumerate(record.returns) if p != seat]
    return {
        "index": index,
        "seed": seed,
        "seat": seat,
        "returns": record.returns,
        "winners": record.winners,
        "win": (1 / len(record.winners)) if seat in record.winners else 0.0,
        "outright": record.winners == [seat],
        "margin": record.returns[seat] - max(others),
        "decisions": timed.decisions,
        "cpu": round(timed.cpu, 3),
    }


def summarise(rows: list[dict], players: int) -> dict:
    n = len(rows)
    wins = sum(r["win"] for r in rows)
    cpu = sum(r["cpu"] for r in rows)
    decisions = sum(r["decisions"] for r in rows)
    return {
        "games": n,
        "per_seat": [sum(1 for r in rows if r["seat"] == s) for s in range(players)],
        "wins": round(wins, 2),
        "win_rate": share(wins, n),
        "outright_wins": share(sum(1 for r in rows if r["outright"]), n),
        "wins_per_seat": [
            round(sum(r["win"] for r in rows if r["seat"] == s), 2) for s in range(players)
        ],
        "margin": spread([r["margin"] for r in rows]),
        "decisions_per_game": round(decisions / n, 1) if n else 0.0,
        "cpu_per_decision": round(cpu / decisions, 4) if decisions else 0.0,
        "cpu_per_game": round(cpu / n, 2) if n else 0.0,
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("-n", "--games", type=int, default=200)
    parser.add_argument("--first", type=int, default=0, help="index of the first game")
    parser.add_argument("--agent", default="mcts")
    parser.add_argument("--game", default="bigbox-hanseatic-45p")
    parser.add_argument("--players", type=int, default=4)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--jobs", type=int, default=1)
    parser.add_argument("--out", help="append one JSON line per finished game here")
    parser.add_argument("--summarise", help="only summarise the games of this JSONL file")
    args = parser.parse_args(argv)
    if args.summarise:
        with open(args.summarise, encoding="utf-8") as lines:
            rows = [json.loads(line) for line in lines if line.strip()]
        print(json.dumps(summarise(rows, args.players), indent=1))
        return 0
    indices = range(args.first, args.first + args.games)
    rows = []
    out = open(args.out, "a", encoding="utf-8") if args.out else None  # noqa: SIM115
    with ProcessPoolExecutor(args.jobs) as pool:
        futures = [
            pool.submit(play_one, args.game, args.players, args.agent, args.seed, i)
            for i in indices
        ]
        for future in futures:
            row = future.result()
            rows.append(row)
            if out:
                out.write(json.dumps(row) + "\n")
                out.flush()
            print(
                f"game {row['index']} seat {row['seat']} win {row['win']:.2f} "
                f"margin {row['margin']:+d} "
                f"cpu/decision {row['cpu'] / max(1, row['decisions']):.3f}",
                file=sys.stderr,
            )
    if out:
        out.close()
    print(json.dumps({"agent": args.agent, **summarise(rows, args.players)}, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
