"""Run a balance study (a house rule against its edition) and write it into docs/balance-study.md.

    nice -n 10 .venv/bin/python scripts/balance_study.py bigbox-hanseatic-45p \
        guild-charter-hanseatic-45p --games 20 --agents strong --jobs 2

It runs `hansa diff A B --simulate N --agents … --format markdown --plot …` once (the games, the
report and the plot), and replaces the part of the doc between `<!-- study:start -->` and
`<!-- study:end -->` with the command, the CPU time the games took (user + system of this
process's children: the worker processes of `--jobs`), the wall time, and the report.
"""

from __future__ import annotations

import argparse
import datetime
import resource
import shlex
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
HANSA = Path(sys.executable).with_name("hansa")
START, END = "<!-- study:start -->", "<!-- study:end -->"


def children_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def _shown(path: Path) -> str:
    """A path as the doc's command shows it: from the checkout's root when it is inside."""
    path = path.resolve()
    return str(path.relative_to(ROOT)) if path.is_relative_to(ROOT) else str(path)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("a")
    parser.add_argument("b")
    parser.add_argument("--games", type=int, default=20)
    parser.add_argument("--agents", default="strong")
    parser.add_argument("--players", type=int, default=4)
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--doc", type=Path, default=ROOT / "docs" / "balance-study.md")
    parser.add_argument("--plot", type=Path, default=ROOT / "docs" / "balance-study.png")
    args = parser.parse_args()

    command = [
        "hansa", "diff", args.a, args.b, "--simulate", str(args.games),
        "--players", str(args.players), "--agents", args.agents, "--seed", str(args.seed),
        "--jobs", str(args.jobs), "--format", "markdown",
        "--plot", _shown(args.plot),
    ]  # fmt: skip
    try:  # the doc is checked before the games are played, not after an hour of them
        text = args.doc.read_text(encoding="utf-8")
    except OSError as exc:
        sys.stderr.write(f"error: {_shown(args.doc)}: {exc.strerror}\n")
        return 1
    if START not in text or END not in text:
        sys.stderr.write(f"error: {_shown(args.doc)}: no {START} … {END} section to replace\n")
        return 1
    cpu, wall = children_cpu(), time.monotonic()
    run = subprocess.run(
        [str(HANSA), *command[1:]], cwd=ROOT, capture_output=True, text=True, check=False
    )
    cpu, wall = children_cpu() - cpu, time.monotonic() - wall
    if run.returncode not in (0, 1, 3):  # 1: they differ, 3: an element never applied
        sys.stderr.write(run.stderr)
        return run.returncode
    games = 2 * args.games
    section = "\n".join(
        [
            START,
            f"Run on {datetime.date.today().isoformat()} (exit status {run.returncode}):",
            "",
            "    " + shlex.join(command),
            "",
            f"**Cost:** {games} games, {cpu / 60:.1f} CPU minutes ({cpu / games:.1f} CPU s per "
            f"game), {wall / 60:.1f} minutes of wall time with `--jobs {args.jobs}`.",
            "",
            run.stdout.strip(),
            "",
            f"![the study's plot]({args.plot.name})",
            END,
        ]
    )
    before, _, rest = text.partition(START)
    _, _, after = rest.partition(END)
    args.doc.write_text(before + section + after, encoding="utf-8")
    print(f"{_shown(args.doc)}: {games} games, {cpu:.0f} CPU s, {wall:.0f} s wall")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
