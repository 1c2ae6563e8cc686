"""Play seeded games on the Python and the native backend side by side and compare them after
every decision: the legal actions, how often each rule applied, and the whole state (fields, state
JSON, scores, returns, end triggers, observation tensors). The seeds cycle through greedy players
with random moves now and then, uniform random play and random play by action kind. The first
divergence is reported with the decision, the action before it, both sides and the spec line of
the rule involved (docs/native.md). Games the native target cannot build are named with the
construct missing."""

from __future__ import annotations

import sys
import time
from pathlib import Path

from hansa.compiler.errors import HansaError
from hansa.play.differential import verify
from hansa.resolve import spec_folder
from hansa.runtime.errors import printable
from hansa.runtime.game import Game

NAME = "verify"
HELP = "compare the native backend with the Python one over seeded random games"


def add_arguments(parser) -> None:
    parser.add_argument(
        "games", nargs="*", metavar="GAME", help="games (default: every game, as --all)"
    )
    parser.add_argument(
        "--all",
        action="store_true",
        help="every game of the spec folder: the built games and the house rules of spec/house/",
    )
    parser.add_argument(
        "--spec", help="spec folder (default: ./spec when present, else the built-in games)"
    )
    parser.add_argument("-n", type=int, default=200, help="games per game name (default 200)")
    parser.add_argument("--seed", type=int, default=0, help="first game seed (default 0)")


def run(args) -> int:
    from hansa.compiler.project import load_project
    from hansa.compiler.targets.python.codegen import compile_module
    from hansa.native import installed_spec, model_of, native_game

    spec = spec_folder(args.spec) or Path(installed_spec())  # as every command looks names up
    if args.n < 1:
        raise HansaError(f"-n must be at least 1, got {args.n}")
    project = load_project([spec])
    project.raise_for_errors()
    if args.all and args.games:
        raise HansaError("name games or give --all, not both")
    names = args.games or sorted(project.games)
    failed = refused = 0
    for name in names:
        model = model_of(name, str(spec))
        module = compile_module(name, spec_dir=str(spec))
        try:
            native = native_game(model, module)
        except HansaError as exc:
            if args.games:
                raise
            refused += 1
            print(printable(f"{name}: not verified: {exc.message}"))
            continue
        python = Game(module, native.players)
        started = time.process_time()
        result = verify(python, native, args.n, args.seed, model.origins)
        cpu = time.process_time() - started
        if result.divergence is not None:
            failed += 1
            print(printable(f"{name}: FAILED after {result.games} games"), file=sys.stderr)
            print(printable(result.divergence.report()), file=sys.stderr)
            continue
        print(
            f"{name}: {result.games} games, {result.decisions:,} decisions agree"
            f" ({native.players} players, seeds {args.seed}–{args.seed + args.n - 1},"
            f" {cpu:.1f} s CPU)"
        )
    if refused:
        print(f"{refused} games not built natively (the Python backend plays them)")
    return 1 if failed else 0
