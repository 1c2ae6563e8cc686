"""The observation tensor's cost per decision before and after it moved beside the runtime, in one
run: the generated module of an earlier commit (its own tensor code) against today's, each as
random play with the deciding player's tensor after every decision, as a ratio to the raw API.

    .venv/bin/python scripts/tensor_before_after.py --before 16aa5af --seconds 6

`--before` names a commit whose generated module still encoded the tensor itself (16aa5af is the
last one). The measurements take turns in rounds; CPU time of this process.
"""

from __future__ import annotations

import argparse
import random
import subprocess
import time
from pathlib import Path

import numpy as np
from hansa.compiler.targets.python.codegen import module_from_text
from hansa.runtime.game import Game

import hansa

ROOT = Path(__file__).resolve().parent.parent


def play(game, seconds: float, tensor) -> tuple[int, float]:
    rng = random.Random(0)
    state = game.new_initial_state(0)
    decisions = 0
    start = time.process_time()
    while time.process_time() - start < seconds:
        for _ in range(500):
            if state.is_terminal():
                state = game.new_initial_state(decisions)
            legal = state.legal_actions()
            state.apply_action(legal[int(rng.random() * len(legal))])
            if tensor is not None and not state.is_terminal():
                tensor(state, state.current_player())
        decisions += 500
    return decisions, time.process_time() - start


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--before", default="16aa5af")
    parser.add_argument("--game", default="bigbox-hanseatic-45p")
    parser.add_argument("--players", type=int, default=4)
    parser.add_argument("--seconds", type=float, default=6.0)
    args = parser.parse_args()
    module_file = f"generated/{hansa.available_games()[args.game]}.py"
    text = subprocess.run(
        ["git", "show", f"{args.before}:{module_file}"],
        cwd=ROOT,
        check=True,
        capture_output=True,
        text=True,
    ).stdout
    before = Game(module_from_text(text, "before", args.before), args.players)
    now = hansa.load_game(args.game, args.players)
    out = np.zeros(now.observation_tensor_shape(), np.float32)
    writer = now.observation_tensor_writer()

    def before_tensor(state, player):
        return state.observation_tensor(player)

    ways = {
        "raw API": (now, None),
        f"raw API + tensor, module of {args.before}": (before, before_tensor),
        "raw API + tensor from nothing, now": (now, lambda s, p: s.observation_tensor(p, out)),
        "raw API + TensorWriter, now": (now, lambda s, p: writer.write(s, p, out)),
    }
    totals = {label: [0, 0.0] for label in ways}
    for _ in range(3):
        for label, (game, tensor) in ways.items():
            decisions, cpu = play(game, args.seconds / 3, tensor)
            totals[label][0] += decisions
            totals[label][1] += cpu
    raw = totals["raw API"][0] / totals["raw API"][1]
    print(f"{args.game}, {args.players} players, decisions per CPU second:")
    for label, (decisions, cpu) in totals.items():
        rate = decisions / cpu
        print(f"  {label:<44} {rate:>9,.0f}  {rate / raw:.3f}×")


if __name__ == "__main__":
    main()
