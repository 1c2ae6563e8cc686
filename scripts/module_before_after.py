"""A generated module of an earlier commit against today's, in one run: random decisions per
second through the public API (what `hansa bench` measures), clone and JSON times, and the
module's lines, as ratios today / before.

    .venv/bin/python scripts/module_before_after.py --before d883d21 --rounds 6 --seconds 2

`--before` names the commit whose `generated/` is compared (d883d21: the last one whose modules
held their own state JSON, observations and state reads). Both modules run on today's runtime; the
measurements (random play, then clone and JSON of sampled states) take turns in rounds, the order
flipping every round; CPU time of this process.
"""

from __future__ import annotations

import argparse
import subprocess
from pathlib import Path

from hansa.compiler.targets.python.codegen import module_from_text
from hansa.runtime.game import Game

import hansa
from hansa.commands.bench import per_call, random_play, sample_states

ROOT = Path(__file__).resolve().parent.parent


def module_at(commit: str, module_name: str, label: str):
    path = f"generated/{module_name}.py"
    text = subprocess.run(
        ["git", "show", f"{commit}:{path}"], cwd=ROOT, check=True, capture_output=True, text=True
    ).stdout
    return text, module_from_text(text, f"hansa.generated.{module_name}", label)


def compare(name: str, before: str, rounds: int, seconds: float) -> dict:
    today = hansa.load_game(name)
    module_name = today.module.__name__.rsplit(".", 1)[-1]
    old_text, old_module = module_at(before, module_name, f"{name} at {before}")
    games = {"before": Game(old_module, today.players), "after": today}
    lines = {
        "before": old_text.count("\n"),
        "after": Path(today.module.__file__).read_text(encoding="utf-8").count("\n"),
    }
    samples = {}
    for key, game in games.items():
        states = sample_states(game, 0)
        samples[key] = (states, [s.to_json() for s in states])
    totals = {key: [0, 0.0] for key in games}
    best = {key: 0 for key in games}  # the fastest round: what a busy machine disturbs least
    times = {key: {"clone_us": 0.0, "to_json_us": 0.0, "from_json_us": 0.0} for key in games}
    for i in range(rounds):
        order = ("before", "after") if i % 2 == 0 else ("after", "before")
        for key in order:
            figures = random_play(games[key], seconds, seed=i)
            totals[key][0] += figures["decisions"]
            totals[key][1] += figures["decisions"] / figures["decisions_per_second_cpu"]
            best[key] = max(best[key], figures["decisions_per_second_cpu"])
            states, texts = samples[key]
            times[key]["clone_us"] += per_call(lambda s: s.clone(), states, 50) / rounds
            times[key]["to_json_us"] += per_call(lambda s: s.to_json(), states, 3) / rounds
            times[key]["from_json_us"] += per_call(games[key].state_from_json, texts, 3) / rounds
    out: dict = {"game": name, "players": today.players}
    for key in games:
        out[key] = {
            "lines": lines[key],
            "decisions_per_second": round(totals[key][0] / totals[key][1]),
            "best_round_decisions_per_second": best[key],
            "clone_us": round(times[key]["clone_us"], 2),
            "to_json_us": round(times[key]["to_json_us"], 1),
            "from_json_us": round(times[key]["from_json_us"], 1),
        }
    out["ratio"] = {
        key: round(out["after"][key] / out["before"][key], 3)
        for key in (
            "lines",
            "decisions_per_second",
            "best_round_decisions_per_second",
            "clone_us",
            "to_json_us",
            "from_json_us",
        )
    }
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("games", nargs="*", default=["bigbox-hanseatic-45p"])
    parser.add_argument("--before", required=True, help="commit whose generated/ is compared")
    parser.add_argument("--rounds", type=int, default=6)
    parser.add_argument("--seconds", type=float, default=2.0, help="CPU seconds per turn")
    args = parser.parse_args()
    for name in args.games:
        result = compare(name, args.before, args.rounds, args.seconds)
        b, a, r = result["before"], result["after"], result["ratio"]
        print(
            f"{name} {result['players']}p: lines {b['lines']} -> {a['lines']}; "
            f"decisions/s {b['decisions_per_second']:,} -> {a['decisions_per_second']:,} "
            f"(x{r['decisions_per_second']}; best round "
            f"x{r['best_round_decisions_per_second']}); "
            f"clone {b['clone_us']} -> {a['clone_us']} us; "
            f"to_json {b['to_json_us']} -> {a['to_json_us']} us; "
            f"from_json {b['from_json_us']} -> {a['from_json_us']} us"
        )


if __name__ == "__main__":
    main()
