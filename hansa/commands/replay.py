"""Replay a game log and verify it.

The log (written by `hansa play --log`) is re-applied decision by decision to a fresh game from its
header's seed. Every decision must be by the player whose decision it is, legal, and named as the
module names it; the footer's final returns, score breakdown, winners, end trigger, turns and final
state must be exactly what the replay produces. The first line that disagrees is reported
(`FILE:LINE`), exit code 1. A log written by a different version of the rules module is replayed
anyway, with a warning.
"""

from __future__ import annotations

import argparse
import functools
import json
import sys

from hansa.play.logs import replay
from hansa.runtime.errors import printable

from .play import (
    add_spec_option,
    end_text,
    format_scores,
    load_game,
    outcome_fields,
    winners_text,
)

NAME = "replay"
HELP = "re-apply a game log (hansa play --log) and verify every decision and the final state"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.formatter_class = argparse.RawDescriptionHelpFormatter
    parser.add_argument("log", metavar="LOG", help="a game log (JSON lines)")
    parser.add_argument("--json", action="store_true", help="print the verified result as JSON")
    add_spec_option(parser)


def run(args: argparse.Namespace) -> int:

    # the header's `game` is a name, looked up among the games, never opened as a path
    result = replay(args.log, functools.partial(load_game, spec=args.spec, paths=False))
    for warning in result.warnings:
        print(printable(f"warning: {warning}"), file=sys.stderr)
    record, state = result.record, result.state
    if args.json:
        data = {
            "log": args.log,
            "verified": True,
            "game": result.game.name,
            "players": result.game.num_players(),
            "seed": record.seed,
            **outcome_fields(record, state),
            "warnings": result.warnings,
        }
        print(json.dumps(data, indent=1, ensure_ascii=False))
        return 0
    print(
        f"{args.log}: ok, {record.decisions} decisions replayed and verified "
        f"({result.game.name}, {result.game.num_players()} players, seed {record.seed})"
    )
    word = "winner" if state.is_terminal() else "leader"
    for line in format_scores(result.game, record.breakdown, record.winners, None, word):
        print(line)
    print(winners_text(record.winners, record.returns, word))
    print(f"end: {end_text(record.end_trigger)}")
    return 0
