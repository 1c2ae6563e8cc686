"""Measure the engine: uniformly random decisions per second through the public API
(legal_actions + apply_action), state clone and JSON round-trip times, and compile time.

Times are CPU times of this process (`time.process_time`), i.e. the speed of one core even when the
machine is busy; wall-clock decisions per second are shown too.
"""

from __future__ import annotations

import array
import json
import math
import random
import time

import hansa
from hansa.compiler.errors import HansaError
from hansa.play.greedy import GreedyAgent, native_playout
from hansa.resolve import catalogue, spec_folder

from .play import add_spec_option, load_game

NAME = "bench"
HELP = "benchmark random play, clone, JSON round trip and compile time per game"


def add_arguments(parser) -> None:
    parser.add_argument(
        "games", nargs="*", metavar="GAME", help="games (default: every built game)"
    )
    parser.add_argument("--players", type=int, default=None, help="player count (default: fewest)")
    parser.add_argument(
        "--seconds", type=float, default=3.0, help="CPU seconds of random play per game (default 3)"
    )
    parser.add_argument("--seed", type=int, default=0, help="first game seed (default 0)")
    parser.add_argument("--json", action="store_true", help="print the figures as JSON")
    parser.add_argument(
        "--rl",
        action="store_true",
        help="instead: decisions/s through the observation tensor and the RL adapters (extra rl)",
    )
    parser.add_argument(
        "--batched",
        action="store_true",
        help="instead: steps/s of the batched native environment, as ratios to native playouts",
    )
    parser.add_argument(
        "--envs",
        type=int,
        default=None,
        help="games of the vector environment: with --rl (default 16), with --batched (256)",
    )
    parser.add_argument(
        "--backend",
        default=None,
        help="instead: compare backends in one run, e.g. python,native (docs/native.md)",
    )
    add_spec_option(parser)


def random_play(game, seconds: float, seed: int) -> dict:
    """Uniform random legal actions through the public API for `seconds` of CPU time."""
    rng = random.Random(seed)
    decisions = games = 0
    state = game.new_initial_state(seed)
    start_cpu, start_wall = time.process_time(), time.perf_counter()
    deadline = start_cpu + seconds
    while True:
        for _ in range(1000):
            if state.is_terminal():
                games += 1
                state = game.new_initial_state(seed + games)
            legal = state.legal_actions()
            state.apply_action(legal[int(rng.random() * len(legal))])
        decisions += 1000
        if time.process_time() >= deadline:
            break
    cpu = time.process_time() - start_cpu
    wall = time.perf_counter() - start_wall
    return {
        "decisions": decisions,
        "games_finished": games,
        "decisions_per_second_cpu": round(decisions / cpu),
        "decisions_per_second_wall": round(decisions / wall),
    }


def sample_states(game, seed: int, count: int = 20) -> list:
    """States from the middle of a random game (a few hundred decisions apart)."""
    rng = random.Random(seed)
    state = game.new_initial_state(seed)
    states = []
    while len(states) < count:
        for _ in range(rng.randrange(50, 400)):
            if state.is_terminal():
                state = game.new_initial_state(seed + len(states) + 1)
            legal = state.legal_actions()
            state.apply_action(legal[int(rng.random() * len(legal))])
        states.append(state.clone())
    return states


def per_call(fn, items: list, repeat: int) -> float:
    """Mean CPU microseconds of fn(item)."""
    start = time.process_time()
    for _ in range(repeat):
        for item in items:
            fn(item)
    return (time.process_time() - start) / (repeat * len(items)) * 1e6


def compile_seconds(name: str, spec: str | None = None) -> float:
    """CPU seconds to compile the game in memory from the loaded spec (model, templates, exec)."""
    from hansa.compiler.project import load_project
    from hansa.compiler.rules.resolve import resolve
    from hansa.compiler.targets.python.codegen import build_game_module

    folder = spec_folder(spec)
    if folder is None:
        raise HansaError("no spec folder")
    project = load_project([folder])
    project.raise_for_errors()
    decl = project.games[name]
    rules = resolve(decl.rules, project.rulesets)
    start = time.process_time()
    source = build_game_module(decl, rules, project.boards[decl.board], project.sources)
    exec(compile(source, name, "exec"), {})
    return time.process_time() - start


def bench_game(
    name: str, players: int | None, seconds: float, seed: int, spec: str | None = None
) -> dict:
    game = load_game(name, players, spec)
    figures: dict = {"game": name, "players": game.num_players()}
    figures.update(random_play(game, seconds, seed))
    states = sample_states(game, seed)
    figures["clone_us"] = round(per_call(lambda s: s.clone(), states, 50), 1)
    texts = [s.to_json() for s in states]
    figures["to_json_us"] = round(per_call(lambda s: s.to_json(), states, 5), 1)
    figures["from_json_us"] = round(per_call(game.state_from_json, texts, 5), 1)
    for text in texts:
        if game.state_from_json(text).to_json() != text:
            raise HansaError(f"{name}: JSON round trip is not exact")
    try:
        figures["compile_s"] = round(compile_seconds(name, spec), 3)
    except (HansaError, OSError, KeyError):
        figures["compile_s"] = None  # no spec/ here: only the committed module is measured
    return figures


def bench_rl(name: str, players: int | None, args) -> dict:
    """The figures of hansa.rl.bench for one built game (printed as a table unless --json)."""
    if args.spec is not None:
        raise HansaError("--rl measures built games only (no --spec)")
    envs = 16 if args.envs is None else args.envs
    if envs < 1:
        raise HansaError(f"--envs must be at least 1, not {envs}")
    try:
        from hansa.rl.bench import measure
    except ImportError as error:
        raise HansaError(f"--rl needs the rl extra (pip install -e '.[rl]'): {error}") from None
    figures = measure(name, players, args.seconds, envs)
    if not args.json:
        print(f"{figures['game']}, {figures['players']} players (decisions per CPU second):")
        for label, rate in figures["decisions_per_second_cpu"].items():
            print(f"  {label:<48} {rate:>9,}  {figures['ratio_to_raw'][label]:.3f}×", flush=True)
    return figures


def bench_batched(name: str, players: int | None, args) -> dict:
    """The batched native environment against native playouts (hansa.rl.bench.measure_batched),
    printed as a table unless --json."""
    if args.spec is not None:
        raise HansaError("--batched measures built games only (no --spec)")
    envs = 256 if args.envs is None else args.envs
    if envs < 1:
        raise HansaError(f"--envs must be at least 1, not {envs}")
    try:
        from hansa.rl.bench import measure_batched
    except ImportError as error:
        needs = "--batched needs the rl extra (pip install -e '.[rl]')"
        raise HansaError(f"{needs}: {error}") from None
    figures = measure_batched(name, players, args.seconds, envs)
    if not args.json:
        print(f"{figures['game']}, {figures['players']} players (steps per CPU second):")
        for label, rate in figures["per_second_cpu"].items():
            ratio = figures["ratio_to_playouts"][label]
            print(f"  {label:<66} {rate:>11,}  {ratio:.4f}×", flush=True)
    return figures


def native_playouts(game, seconds: float, seed: int) -> dict:
    """Whole random games played inside the native module, for `seconds` of CPU time."""
    decisions = games = 0
    start = time.process_time()
    while time.process_time() - start < seconds:
        for result in game.playouts(4, seed=seed + games):
            decisions += result["length"] or 0
        games += 4
    cpu = time.process_time() - start
    return {"playout_games": games, "playout_decisions_per_second_cpu": round(decisions / cpu)}


def greedy_play(game, seconds: float, seed: int) -> dict:
    """Greedy decisions per CPU second: the agents deciding one by one through the API (on a
    native state their C twins decide: play/greedy.py), and on a native state whole games in one
    call each (`native_playout`), for about `seconds` of CPU time each."""

    players = game.num_players()
    row = {}
    for label, whole in (("greedy_decisions_per_second_cpu", False), ("greedy_playout", True)):
        decisions = games = 0
        start = time.process_time()
        while time.process_time() - start < seconds:
            state = game.new_initial_state(seed + games)
            agents = [GreedyAgent(seed + games * 8 + p) for p in range(players)]
            if whole:
                made = native_playout(state, agents, 1_000_000)
                if made is None:
                    return row  # a Python state: no whole games in one call
                decisions += made
            else:
                while not state.is_terminal():
                    legal = state.legal_actions()
                    state.apply_action(agents[state.current_player()].step(state, legal))
                    decisions += 1
            games += 1
        key = label if not whole else "greedy_playout_decisions_per_second_cpu"
        row[key] = round(decisions / (time.process_time() - start))
    return row


def tensor_rate(game, states: list) -> dict:
    """Observation tensors per CPU second: `state.observation_tensor(player, out)` into one numpy
    buffer (an array.array without numpy), for the deciding player of sample states."""
    try:
        import numpy as np

        out = np.zeros(game.observation_tensor_shape(), np.float32)
    except ImportError:
        out = array.array("f", bytes(4 * game.observation_tensor_shape()[0]))
    live = [s for s in states if not s.is_terminal()] or states
    jobs = [(s, max(s.current_player(), 0)) for s in live]
    repeat = 1
    while True:
        start = time.process_time()
        for _ in range(repeat):
            for s, player in jobs:
                s.observation_tensor(player, out)
        cpu = time.process_time() - start
        if cpu >= 0.5:
            return {"tensors_per_second_cpu": round(repeat * len(jobs) / cpu)}
        repeat *= 4


def bench_backends(name: str, players: int | None, args) -> dict:
    """Per backend: decisions/s through the per-decision API and clone µs; native playouts."""
    backends = [b.strip() for b in args.backend.split(",") if b.strip()]
    for backend in backends:
        if backend not in ("python", "native"):
            raise HansaError(f"unknown backend {backend!r}: python or native")
    if args.spec is not None:
        raise HansaError("--backend measures the installed games only (no --spec)")
    figures: dict = {"game": name, "backends": {}}
    for backend in backends:
        game = hansa.load_game(name, players, backend=backend)
        figures["players"] = game.num_players()
        row = random_play(game, args.seconds, args.seed)
        states = sample_states(game, args.seed)
        row["clone_us"] = round(per_call(lambda s: s.clone(), states, 200), 3)
        row.update(tensor_rate(game, states))
        row.update(greedy_play(game, args.seconds, args.seed))
        if backend == "native":
            row.update(native_playouts(game, args.seconds, args.seed))
        figures["backends"][backend] = row
    rows = figures["backends"]
    if "python" in rows and "native" in rows:
        figures["api_ratio"] = round(
            rows["native"]["decisions_per_second_cpu"] / rows["python"]["decisions_per_second_cpu"],
            2,
        )
        figures["tensor_ratio"] = round(
            rows["native"]["tensors_per_second_cpu"] / rows["python"]["tensors_per_second_cpu"], 2
        )
        python_greedy = rows["python"]["greedy_decisions_per_second_cpu"]
        figures["greedy_ratio"] = round(
            rows["native"]["greedy_decisions_per_second_cpu"] / python_greedy, 2
        )
        figures["greedy_playout_ratio"] = round(
            rows["native"]["greedy_playout_decisions_per_second_cpu"] / python_greedy, 2
        )
    if not args.json:
        print(f"{name}, {figures['players']} players (per CPU second):")
        for backend, row in rows.items():
            extra = ""
            if "playout_decisions_per_second_cpu" in row:
                extra = f"  native playouts {row['playout_decisions_per_second_cpu']:,} decisions/s"
            greedy = f"  greedy {row['greedy_decisions_per_second_cpu']:>8,}/s"
            if "greedy_playout_decisions_per_second_cpu" in row:
                greedy += f" (whole games {row['greedy_playout_decisions_per_second_cpu']:,}/s)"
            print(
                f"  {backend:<7} API {row['decisions_per_second_cpu']:>10,} decisions/s"
                f"  clone {row['clone_us']:.2f} µs"
                f"  tensor {row['tensors_per_second_cpu']:>10,}/s{greedy}{extra}",
                flush=True,
            )
        if "api_ratio" in figures:
            print(f"  native / python through the API: {figures['api_ratio']:.2f}×")
            print(f"  native / python observation tensor: {figures['tensor_ratio']:.2f}×")
            print(
                f"  native / python greedy decisions: {figures['greedy_ratio']:.2f}×"
                f" (whole games in one call: {figures['greedy_playout_ratio']:.2f}×)"
            )
    return figures


def run(args) -> int:
    if not (math.isfinite(args.seconds) and 0 < args.seconds <= 3600):
        raise HansaError(f"--seconds must be more than 0 and at most 3600, not {args.seconds}")

    games = args.games or [g["name"] for g in catalogue(args.spec)["games"] if g["ok"]]
    if not games:
        raise HansaError("no games built; run `hansa build`")
    results = []
    for name in games:
        players = args.players
        if players is not None:
            counts = load_game(name, None, args.spec).info.player_counts
            if players not in counts:
                if args.games:
                    shown = ", ".join(str(c) for c in counts)
                    raise HansaError(f"game {name!r} is for {shown} players, not {players}")
                continue
        if args.rl:
            results.append(bench_rl(name, players, args))
            continue
        if args.batched:
            results.append(bench_batched(name, players, args))
            continue
        if args.backend:
            results.append(bench_backends(name, players, args))
            continue
        results.append(bench_game(name, players, args.seconds, args.seed, args.spec))
        if not args.json:
            r = results[-1]
            compile_text = "-" if r["compile_s"] is None else f"{r['compile_s'] * 1000:.0f} ms"
            print(
                f"{r['game']:<32} {r['players']}p  {r['decisions_per_second_cpu']:>8,} decisions/s "
                f"(wall {r['decisions_per_second_wall']:,})  clone {r['clone_us']:.1f} µs  "
                f"JSON {r['to_json_us']:.0f}+{r['from_json_us']:.0f} µs  compile {compile_text}",
                flush=True,
            )
    if args.json:
        print(json.dumps(results, indent=1))
    return 0
