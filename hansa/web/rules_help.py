"""The rules explained in the page: what each bonus marker, favour tile, mission card, ability and
scoring category does, and what a game's rules change against the edition they extend.

The texts below are the ones docs/serve.md ("Rules help in the page") lists, word for word
(tests/app/web/test_serve_talk.py checks it): one text, shown in the docs and on hover or tap in
the page. What a house rule adds in words (a bonus marker or favour tile written as a rule in
words) explains itself with its own words from the spec, and the "this game's rules" panel is
`hansa diff EDITION RULES` (its edits, in words), worked out from the spec the game comes from.
"""

from __future__ import annotations

import threading
from pathlib import Path

from hansa.compiler.errors import HansaError

MARKER_HELP = {
    "additional_trading_post": (
        "While establishing a trading post, put it left of every post of the city (the city's "
        "first space must be taken already): a post worth less than every space to its right."
    ),
    "exchange_trading_posts": (
        "Swap the pieces on two neighbouring spaces of one city; shapes and colours do not matter."
    ),
    "develop_ability": "Develop one ability of your choice, as if you had used a city's ability.",
    "extra_actions": "Take as many more actions this turn as the marker says (+3, +4).",
    "move_tradesmen": (
        "Move up to three opponents' pieces from routes to free points anywhere (no displacing)."
    ),
    "remove_tradesmen": (
        "Take up to three other players' pieces off routes (never off cities), back to their "
        "owners' personal supplies."
    ),
}
MARKER_COMMON = (
    "A bonus marker is used once, in this turn or a later one but never in the action that took "
    "it; used or not, it counts in the final scoring (category C)."
)
ABILITY_HELP = {
    "keys": "Keys: multiplies your largest network of posts in the final scoring (category F).",
    "actions": "Actions: how many actions you take each turn.",
    "privilege": (
        "Privilege: the colours of trading-post spaces you may establish a post on (white, then "
        "orange, pink, black)."
    ),
    "book": "Book (Liber Sophiae): how many pieces one Move action moves.",
    "bank": "Bank (Moneybag): how many pieces one Income action takes from your stock.",
}
ABILITY_COMMON = (
    "Developed instead of a post when a route you create reaches a city showing it, or with a "
    "Develop marker; a full track scores in category B (Keys excepted)."
)
EXCHANGE_OWN = "One of the two must be yours."
SCORE_HELP = {
    "track": "The PP on the score track.",
    "full_abilities": "PP for each fully developed ability (Keys excepted).",
    "bonus_markers": "PP by the number of bonus markers collected, used or not.",
    "special_prestige": "The special prestige spaces held.",
    "controlled_cities": "PP for each city you control (most posts; ties: the rightmost post).",
    "network": "Your posts in your largest connected group of cities, times your Keys value.",
    "missions": (
        "Your mission card: 1 PP per city on it where you hold a post, 5 PP more if you control "
        "all three."
    ),
    "country_majority": (
        "Each country pays 7, 4 and 2 PP to the players controlling most, second-most and "
        "third-most of its cities."
    ),
}
FAVOUR_HELP = (
    "Emperor's Favour: at the start of a turn, a player with two unused bonus markers may give up "
    "the turn's actions to take one tile from the display, flipping two markers (they still score)."
)
MISSION_HELP = (
    "Mission card: a secret card naming three cities; at the end, 1 PP per city on it where you "
    "hold a post and 5 PP more if you control all three. Only you see your own card; the others' "
    "mission points stay secret until the game is over."
)
EDITION_NOTE = "This game plays the edition's rules as published: nothing is changed."


def help_texts() -> list[str]:
    """Every fixed text the page may show (the docs list each of them)."""
    return [
        *MARKER_HELP.values(),
        MARKER_COMMON,
        EXCHANGE_OWN,
        *ABILITY_HELP.values(),
        ABILITY_COMMON,
        *SCORE_HELP.values(),
        FAVOUR_HELP,
        MISSION_HELP,
        EDITION_NOTE,
    ]


class RulesHelp:
    """The help of each game of a catalogue, worked out once per game from its spec."""

    def __init__(self, folder_of) -> None:
        self.folder_of = folder_of  # game name → the spec folder it comes from (or None)
        self.cache: dict[str, dict] = {}
        self.lock = threading.Lock()

    def of(self, name: str, module) -> dict:
        with self.lock:
            found = self.cache.get(name)
        if found is None:
            found = game_help(module, self.folder_of(name))
            with self.lock:
                self.cache[name] = found
        return found


def game_help(module, folder: Path | None) -> dict:
    """The help texts of one game's module, and its changes against its edition in words."""
    ns = vars(module)
    markers = {key: MARKER_COMMON for key in ns["MARKER_KEYS"]}
    favour = dict.fromkeys(ns.get("FAVOUR_NAMES", ()), FAVOUR_HELP)
    changes = {"rules": ns["RULES_NAME"], "edition": None, "changes": [], "note": None}
    if folder is not None:
        try:
            _from_spec(ns["RULES_NAME"], folder, markers, favour, changes)
        except (HansaError, KeyError, OSError) as exc:
            changes["note"] = f"the rules' spec could not be read: {getattr(exc, 'message', exc)}"
    return {
        "markers": markers,
        "favour": favour,
        "mission": MISSION_HELP if "missions" in ns["SCORE_KINDS"] else None,
        "abilities": {
            name: f"{ABILITY_HELP.get(name, name)} {ABILITY_COMMON}" for name in ns["ABILITY_NAMES"]
        },
        "scoring": {
            key: SCORE_HELP.get(kind, f"{kind}: a category of these rules.")
            for key, kind in zip(ns["SCORE_KEYS"], ns["SCORE_KINDS"], strict=True)
        },
        **changes,
    }


def _from_spec(rules: str, folder: Path, markers: dict, favour: dict, changes: dict) -> None:
    """Fill in the texts the spec gives (markers by kind, rules in words) and the edits against
    the edition (the root of the rule set's `extends` chain)."""
    from hansa.commands.diff import SpecLoader, compare, load_pair
    from hansa.compiler.diff.edits import hook_body, hook_name

    loader = SpecLoader(str(folder))
    project = loader.spec()
    resolved = project.resolved_rulesets[rules]
    for marker in resolved.bonus_markers:
        if marker.name in markers:
            own = " " + EXCHANGE_OWN if dict(marker.params).get("must_own_one") else ""
            text = f"{MARKER_HELP.get(marker.kind, '')}{own} {MARKER_COMMON}"
            markers[marker.name] = text.strip()
    for hook in resolved.hook_rules:
        subject = hook_name(hook)
        for key in markers:
            if _same(subject, f"bonus marker '{key}'"):
                markers[key] = f"{hook_body(hook)}. {MARKER_COMMON}"
        for tile in favour:
            if subject == f"favour tile '{tile}'":
                favour[tile] = f"This tile: {hook_body(hook)}. {FAVOUR_HELP}"
    edition = rules
    while project.rulesets[edition].extends:
        edition = project.rulesets[edition].extends
    changes["edition"] = edition
    if edition == rules:
        changes["note"] = EDITION_NOTE
        return
    a, b = load_pair(edition, rules, str(folder), loader)
    changes["changes"] = [{"area": edit.area, "text": edit.describe()} for edit in compare(a, b)]


def _same(a: str, b: str) -> bool:
    """Two names alike but for case and spaces (`Guild charter` is keyed `guild_charter`)."""
    return a.lower().replace(" ", "_") == b.lower().replace(" ", "_")
