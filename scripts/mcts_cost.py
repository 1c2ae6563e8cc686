"""CPU cost per searched decision of search agents, measured in one run on the same games.

    nice -n 10 .venv/bin/python scripts/mcts_cost.py --agents mcts,strong -n 4 \
        --baseline before.py --baseline-graph before-graph.py --out mcts-cost.jsonl

Game i (i = first, first+1, …) is played once by each agent in turn, with the same seed and the
agent in the same seat (i mod players) against greedy players, so every agent meets the same
start positions and the machine's load falls on all of them alike. `--baseline FILE` adds the
default `mcts` playing on another build of the game's rule module (a generated module file, e.g.
`git show main:generated/bigbox_hanseatic_45p.py > before.py`; `--baseline-graph` that build's
runtime/graph.py): today's default as it was, beside the agents on the current build. Each
game appends one JSON line to --out; the summary gives, per agent, the searched decisions, the
CPU seconds per searched decision and the ratio to the first agent (`--summarise FILE`
summarises a file again).
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import sys
from pathlib import Path

from hansa.play.greedy import GreedyAgent
from hansa.play.mcts import MCTSAgent
from hansa.play.simulate import STRONG_SETTINGS
from hansa.runtime.game import Game
from mcts_strength import play_one

import hansa

BASELINE = "baseline-mcts"  # the name of the default mcts on the --baseline module


class PythonPolicyGreedy(GreedyAgent):
    """The greedy agent as it ran before its policy ran in C: the Python policy on every state
    (on a native state it reads the position through the state's reads in C)."""

    in_c = False


class StrongBefore(MCTSAgent):
    """`strong` whose rollouts and ranking are played by the Python greedy policy, as before the
    C policy (`--agents mcts_cost:StrongBefore,strong`). The rest of the search is today's (its
    completions and winners read in C), so the ratio to it understates the saving."""

    greedy_class = PythonPolicyGreedy

    def __init__(self, seed: int | None = 0, **settings) -> None:
        super().__init__(seed=seed, **(STRONG_SETTINGS | settings))


def _load(name: str, path: str):
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


def baseline_game(path: str, players: int, graph: str | None = None) -> Game:
    """The game of a generated module file (another build of the same rules), its searches of
    the board's city groups from `graph` (that build's runtime/graph.py) when given."""
    module = _load("hansa.generated._baseline", path)
    if graph:
        module.graph = _load("hansa.runtime._baseline_graph", graph)
    return Game(module, players)


def summarise(rows: list[dict]) -> dict:
    agents = list(dict.fromkeys(r["agent"] for r in rows))
    per_agent = {}
    for agent in agents:
        mine = [r for r in rows if r["agent"] == agent]
        decisions = sum(r["decisions"] for r in mine)
        cpu = sum(r["cpu"] for r in mine)
        per_agent[agent] = {
            "games": len(mine),
            "wins": sum(r["win"] for r in mine),
            "decisions": decisions,
            "cpu": round(cpu, 2),
            "cpu_per_decision": round(cpu / decisions, 4) if decisions else 0.0,
        }
    first = per_agent[agents[0]]["cpu_per_decision"] if agents else 0.0
    for agent in agents:
        own = per_agent[agent]["cpu_per_decision"]
        per_agent[agent]["cheaper_than_first"] = round(first / own, 2) if own else 0.0
    return per_agent


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--agents", default="mcts,strong", help="comma-separated agent names")
    parser.add_argument("-n", "--games", type=int, default=4)
    parser.add_argument("--first", type=int, default=0)
    parser.add_argument("--game", default="bigbox-hanseatic-45p")
    parser.add_argument("--players", type=int, default=4)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--baseline", help="a generated module file: its default mcts first")
    parser.add_argument("--baseline-graph", help="the runtime/graph.py of the --baseline build")
    parser.add_argument("--out", help="append one JSON line per game and agent here")
    parser.add_argument("--summarise", help="only summarise the games of this JSONL file")
    args = parser.parse_args(argv)
    if args.summarise:
        with open(args.summarise, encoding="utf-8") as lines:
            rows = [json.loads(line) for line in lines if line.strip()]
        print(json.dumps(summarise(rows), indent=1))
        return 0
    game = hansa.load_game(args.game, players=args.players)
    agents = [(name, "mcts" if name == BASELINE else name) for name in args.agents.split(",")]
    games = {name: game for name, _ in agents}
    if args.baseline:
        agents.insert(0, (BASELINE, "mcts"))
        games[BASELINE] = baseline_game(str(Path(args.baseline)), args.players, args.baseline_graph)
    rows = []
    out = open(args.out, "a", encoding="utf-8") if args.out else None  # noqa: SIM115
    for index in range(args.first, args.first + args.games):
        for name, agent in agents:
            row = play_one(games[name], args.players, agent, args.seed, index)
            row["agent"] = name
            row["game"] = args.game
            rows.append(row)
            if out:
                out.write(json.dumps(row) + "\n")
                out.flush()
            print(
                f"game {index} {name}: {row['decisions']} decisions, "
                f"cpu/decision {row['cpu'] / max(1, row['decisions']):.3f}",
                file=sys.stderr,
            )
    if out:
        out.close()
    print(json.dumps(summarise(rows), indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
