"""docs/rules-language.md stays true: its catalogue table is the code's, its examples parse."""

from __future__ import annotations

import re
from pathlib import Path

from hansa.compiler.expr.catalogue import EFFECTS, HOOK_DOCS, QUANTITIES, words_markdown
from hansa.compiler.rules.catalogue import catalogue_markdown
from test_rules_lower import lower_all

DOC = Path(__file__).resolve().parents[2] / "docs" / "rules-language.md"
SPEC = Path(__file__).resolve().parents[2] / "spec"


def test_catalogue_table_is_generated_from_the_code():
    text = DOC.read_text(encoding="utf-8")
    table = text.split("<!-- catalogue:start -->\n")[1].split("<!-- catalogue:end -->")[0]
    assert table == catalogue_markdown()


def test_examples_are_the_spec_files_and_lower():
    text = DOC.read_text(encoding="utf-8")
    blocks = re.findall(r"```hansa\n(.*?)```", text, re.S)
    specs = [
        SPEC / "bigbox_2021.hansa",
        SPEC / "original_2009.hansa",
        SPEC / "original_2009_2p.hansa",
        SPEC / "house" / "short_game.hansa",
        SPEC / "house" / "no_compensation.hansa",
        SPEC / "games.hansa",
        SPEC / "house" / "last_round.hansa",
        SPEC / "modules" / "missions.hansa",
        *(
            SPEC / "house" / f"{name}.hansa"
            for name in (
                "guild_charter",
                "harbour_master",
                "three_full_abilities",
                "last_seat_book",
                "no_bullying",
                "stock_tiebreak",
                "draw_three",
                "city_bonus",
                "full_income",
                "protected_merchants",
                "catch_up",
                "shared_control",
                "first_link",  # places and networks, per-player state (#33)
                "hinterland",
                "merchant_once",
                "catch_up_order",
                "marker_market",  # the marker display (#33)
            )
        ),
    ]
    assert blocks == [p.read_text(encoding="utf-8") for p in specs]
    for block in blocks:
        lower_all(block, "doc.hansa")  # raises on any error


def test_words_reference_is_generated_from_the_code():
    text = DOC.read_text(encoding="utf-8")
    table = text.split("<!-- words:start -->\n")[1].split("<!-- words:end -->")[0]
    assert table == words_markdown()


def _use(quantity) -> str:
    """A statement that uses `quantity` where it makes sense (its focus, its type)."""
    args = {
        "ability": " of book",
        "category": " of E",
        "country": " wales",
        "city": " Lübeck",
        "pair": " Hamburg-Lübeck",
    }
    name = quantity.name + args.get(quantity.arg, "")
    test = {
        "number": f"{name} >= 0",
        "bool": name,
        "player": f"{name} is you",
        "piece kind": f"{name} is a merchant",
        "bonus marker": f"{name} is plus_3_actions",
    }[quantity.type]
    hook = {  # where the action's facts are known
        "post": "after create_route",
        "income": "after income",
        "displaced": "after displace",
        "marker": "after use marker",
    }
    if quantity.needs == "city post":
        return f"after create_route: gain 1 PP per city where {test}"
    if quantity.needs in hook:
        return f"{hook[quantity.needs]}: gain 1 PP if {test}"
    if quantity.needs == "city":
        return f"at turn start: gain 1 PP per city where {test}"
    if quantity.needs == "route":
        return f"at turn start: gain 1 PP per route where {test}"
    if quantity.needs == "ability":
        return f"at turn start: gain 1 PP per ability where {test}"
    if quantity.needs == "victim":  # one forbid per action: the second in `after displace`
        if quantity.name != "victim":
            return f"after displace: gain 1 PP if {test}"
        return f"forbid displace when {test}"
    if quantity.needs in ("created", "route created"):
        return f"after create_route: gain 1 PP if {test}"
    if quantity.name == "them":
        return f"at turn start: gain 1 PP if some opponent has {test}"
    return f"at turn start: gain 1 PP if {test}"


def test_every_quantity_hook_and_effect_compiles_and_plays():
    """Each quantity in a rule, and each hook's and effect's example, in one house rule that
    builds and plays (so the reference documents only what works)."""
    from variant_support import play_checked, variant

    lines = [_use(q) for q in QUANTITIES.values() if q.arg != "country"]
    lines += [  # (forbid displace is used by `victim` already)
        example
        for example, _doc in HOOK_DOCS.values()
        if not example.startswith(("tiebreak", "forbid"))
    ]
    lines.append("tiebreak fewest ability actions, fewest pieces in stock, shared")
    for example, hooks, _doc in EFFECTS.values():
        if "after_create_route" not in hooks:
            continue  # an effect of one moment only (`draw 3 keep 1`): its hook's example has it
        for one in example.split(" / "):
            lines.append(f"after create_route: {one}")
    lines.append("at turn start: gain 1 PP * coins per city where your posts here > 0")
    # the facts in forbid conditions, effects on other players (docs: "Effects on other players")
    lines += [
        "forbid income when pieces taken now < 2 and traders taken now < merchants taken now",
        "after displace: gain 1 PP if displaced piece is a merchant and the victim is not you",
        "forbid use marker when marker used is plus_4_actions and turn number < 2",
        "after displace: the displaced player gains 1 PP, each other player loses 1 PP",
        "at turn end: the player with the fewest track PP takes 1 trader from the stock",
        "after use marker: each player where track PP > your track PP receives marker"
        " plus_3_actions, the last seat develops book",
    ]
    game = variant("\n".join(lines))
    for seed in range(3):
        play_checked(game, seed, 300)
    # Country names are the board's: these quantities play on a board with countries.
    countries = [_use(q) for q in QUANTITIES.values() if q.arg == "country"]
    countries.append("at turn start: gain 1 PP per city in wales where your posts here > 0")
    countries.append("at turn start: gain 1 PP per route in scotland where pieces here > 0")
    game = variant("\n".join(countries), board="britannia_45p")
    for seed in range(2):
        play_checked(game, seed, 300)
