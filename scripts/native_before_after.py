"""Native random playouts of an earlier commit's native target against today's, in one run:
decisions per CPU second of `game.playouts` (whole games played in C), as a ratio today / before.

    .venv/bin/python scripts/native_before_after.py --before 86f74df --rounds 6 --games 200

`--before` names the commit whose native target renders the C source of the game (its compiler,
run from a copy of that commit's tree in a subprocess); both extensions are built with today's
`hansa build --native` settings and loaded side by side. The rounds alternate which build plays
first; each plays the same `--games` start positions per round (its random choices differ where
the two builds draw differently). CPU time of this process.
"""

from __future__ import annotations

import argparse
import io
import subprocess
import sys
import tarfile
import tempfile
import time
from pathlib import Path

from hansa.compiler.targets.native.build import load_extension

import hansa

ROOT = Path(__file__).resolve().parent.parent
# The package layout of an installed hansa (pyproject's package-dir): hansa.X is the folder X.
SUBPACKAGES = ("compiler", "runtime", "play", "generated", "spec")
RENDER = (
    "import sys; sys.path.insert(0, sys.argv[1]);"
    "from hansa.native import model_of;"
    "from hansa.compiler.targets.native.codegen import render_native;"
    "sys.stdout.write(render_native(model_of(sys.argv[2])))"
)


def source_at(commit: str, game: str) -> str:
    """The C source `commit`'s native target renders for `game` (from that commit's own spec)."""
    archive = subprocess.run(
        ["git", "archive", commit], cwd=ROOT, check=True, capture_output=True
    ).stdout
    with tempfile.TemporaryDirectory() as tmp:
        tree = Path(tmp) / "tree"
        with tarfile.open(fileobj=io.BytesIO(archive)) as tar:
            tar.extractall(tree, filter="data")
        package = Path(tmp) / "packages"
        package.mkdir()
        (package / "hansa").symlink_to(tree / "hansa")
        for name in SUBPACKAGES:
            (tree / "hansa" / name).symlink_to(tree / name)
        rendered = subprocess.run(
            [sys.executable, "-c", RENDER, str(package), game],
            cwd=tmp,
            capture_output=True,
            text=True,
        )
    if rendered.returncode != 0:
        sys.exit(f"the native target of {commit} could not render {game}:\n{rendered.stderr}")
    return rendered.stdout


def compare(game: str, players: int, before: str, rounds: int, games: int) -> dict:
    today = hansa.load_game(game, players, backend="native").ext
    earlier = load_extension(source_at(before, game))
    if earlier.__name__ == today.__name__:
        sys.exit(f"{before} renders the same C source as today: nothing to compare")
    builds = {"before": earlier, "today": today}
    totals = {label: [0, 0.0] for label in builds}
    for r in range(rounds):
        order = list(builds) if r % 2 == 0 else list(builds)[::-1]
        for label in order:
            started = time.process_time()
            results = builds[label].playouts(players, games, 1000 * r, 1000 * r, 10**7)
            totals[label][1] += time.process_time() - started
            totals[label][0] += sum(length for _returns, length, _met, _empty in results)
    rates = {label: decisions / seconds for label, (decisions, seconds) in totals.items()}
    return {"game": game, "players": players, "before": before, **rates}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("game", nargs="?", default="bigbox-hanseatic-45p")
    parser.add_argument("--players", type=int, default=4)
    parser.add_argument("--before", required=True, help="the earlier commit")
    parser.add_argument("--rounds", type=int, default=6)
    parser.add_argument("--games", type=int, default=200, help="playouts per build and round")
    args = parser.parse_args()
    row = compare(args.game, args.players, args.before, args.rounds, args.games)
    print(
        f"{row['game']}, {row['players']} players, native random playouts per CPU second: "
        f"{args.before} {row['before']:,.0f}, today {row['today']:,.0f} "
        f"({row['today'] / row['before']:.2f}x)"
    )


if __name__ == "__main__":
    main()
