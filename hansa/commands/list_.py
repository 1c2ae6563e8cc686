"""List what the other commands can name: games (with player counts), rule sets and boards.

Rule sets and boards are the spec folder's and the built-in ones (which any spec folder may use).
Games come from the spec folder (--spec DIR, default ./spec when it exists; compiled on demand and
cached) and from the games built into the package; a name in the spec folder hides a built-in game
of the same name, exactly as `play`, `simulate`, `score` and `replay` resolve it. A game whose
files have errors is listed and marked; `hansa check` reports the errors.
"""

from __future__ import annotations

import argparse
import json

from hansa.resolve import catalogue

from .play import add_spec_option

NAME = "list"
HELP = "list the games (with player counts), rule sets and boards commands can name"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    add_spec_option(parser)
    parser.add_argument("--json", action="store_true", help="print the lists as JSON")


def _players(counts: list[int]) -> str:
    if len(counts) > 1 and counts == list(range(counts[0], counts[-1] + 1)):
        return f"{counts[0]}-{counts[-1]}"
    return ",".join(str(c) for c in counts)


def _table(rows: list[list[str]]) -> list[str]:
    widths = [max(len(r[i]) for r in rows) for i in range(len(rows[0]))]
    return [
        "  " + "  ".join(c.ljust(w) for c, w in zip(r, widths, strict=True)).rstrip() for r in rows
    ]


def run(args: argparse.Namespace) -> int:

    found = catalogue(args.spec)
    if args.json:
        print(json.dumps(found, indent=1, ensure_ascii=False))
        return 0
    where = found["spec"] or "no spec folder (built-in games only)"
    print(f"spec folder: {where}")
    print(f"games ({len(found['games'])}):")
    rows = [
        [
            g["name"],
            f"{_players(g['players'])} players",
            f"{g['rules']} on {g['board']}",
            g["source"] if g["ok"] else f"{g['source']} (has errors: hansa check)",
        ]
        for g in found["games"]
    ]
    for line in _table(rows) if rows else ["  none"]:
        print(line)
    print(f"rule sets ({len(found['rulesets'])}):")
    rows = [
        [
            r["name"],
            r["title"],
            f"extends {r['extends']}" if r["extends"] else "",
            "built-in" if r.get("file") == "built-in" else "",
        ]
        for r in found["rulesets"]
    ]
    for line in _table(rows) if rows else ["  none"]:
        print(line)
    print(f"boards ({len(found['boards'])}):")
    rows = [
        [
            b["name"],
            f"{_players(b['players'])} players",
            b["title"],
            "built-in" if b.get("file") == "built-in" else "",
        ]
        for b in found["boards"]
    ]
    for line in _table(rows) if rows else ["  none"]:
        print(line)
    if found["errors"]:
        print(f"{found['errors']} errors in the spec folder: run `hansa check {found['spec']}`")
    return 0
