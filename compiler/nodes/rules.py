"""The rules IR: a rule set (edition or house rule) and a game declaration, as frozen dataclasses.

A `RuleSet` as written may `extends` another and override parts of it; `resolve` (in the rules
lowering stage) folds the chain into one complete `RuleSet` whose `extends` is None. Every node
keeps the span of the spec text that defined it (excluded from equality, so formatting is never a
difference), and the resolved rule set remembers, per part, which file defined it — `diff` reports
both sides' locations.

Each component class corresponds to one template fragment in `compiler/targets/python/templates/`.
Parameters are plain values (int, str, bool, tuples of those), so the IR is JSON-serialisable.
Names are the words of RULES.md: `establish_trading_post`, `move_tradesmen`, …

This module is the contract between the rules language (parse → lower → resolve → check) and code
generation; extend it by adding fields with defaults, never by renaming.
"""

from __future__ import annotations

import hashlib
import keyword
import re
from dataclasses import dataclass, field

from ..errors import NO_SPAN, Span

PIECE_KINDS = ("trader", "merchant")

# What an ability track drives in the rules (the generated module looks abilities up by this role).
ABILITY_ROLES = ("network_factor", "actions_per_turn", "post_privilege", "move_count", "income")


class _Params:
    """A component whose parameters are `params`, (name, value) pairs as written."""

    params: tuple[tuple[str, object], ...]

    def param(self, name: str, default=None):
        for k, v in self.params:
            if k == name:
                return v
        return default


@dataclass(frozen=True)
class Pieces:
    """Pieces per player; one `score_marker` piece of that kind never enters play."""

    traders: int = 27
    merchants: int = 4
    score_marker: str | None = "trader"
    span: Span = field(default=NO_SPAN, compare=False, repr=False)


@dataclass(frozen=True)
class Setup:
    """Seat-dependent split of the pieces left after the tracks: personal supply vs general stock.

    Seat `s` (1-based) takes `personal_traders + per_seat_traders * s` traders and
    `personal_merchants`
    merchants into its personal supply; the rest goes to the general stock.
    """

    personal_traders: int = 4
    per_seat_traders: int = 1
    personal_merchants: int = 1
    span: Span = field(default=NO_SPAN, compare=False, repr=False)


@dataclass(frozen=True)
class Ability:
    """An ability track: `values[0]` is the starting value; each development uncovers the next one.

    `len(values) - 1` pieces of kind `covered_by` start on the track. Privilege values are colour
    names; the Bank's last value may be the string "all". `full_pp` is scored (category B) when the
    track is fully developed.
    """

    name: str  # keys | actions | privilege | book | bank
    values: tuple[int | str, ...]
    covered_by: str  # trader | merchant
    full_pp: int
    role: str  # one of ABILITY_ROLES
    span: Span = field(default=NO_SPAN, compare=False, repr=False)


@dataclass(frozen=True)
class Income:
    """Action A: move up to the `income` ability's value of pieces from general stock to supply."""

    span: Span = field(default=NO_SPAN, compare=False, repr=False)


@dataclass(frozen=True)
class Place:
    """Action B: one piece from personal supply onto any free connection point it may occupy."""

    span: Span = field(default=NO_SPAN, compare=False, repr=False)


@dataclass(frozen=True)
class Displace:
    """Action C. `cost`/`compensation` map piece kind → count; `fallback` is where the displaced
    owner
    takes replacement pieces from, in order (stock, supply, board)."""

    cost: tuple[tuple[str, int], ...] = (("trader", 1), ("merchant", 2))
    compensation: tuple[tuple[str, int], ...] = (("trader", 1), ("merchant", 2))
    fallback: tuple[str, ...] = ("stock", "supply", "board")
    extras_declinable: bool = True
    span: Span = field(default=NO_SPAN, compare=False, repr=False)


@dataclass(frozen=True)
class Move:
    """Action D: pick up to `move_count` (an ability value) own pieces; put them on free points."""

    swaps: bool = True
    span: Span = field(default=NO_SPAN, compare=False, repr=False)


@dataclass(frozen=True)
class CreateRoute:
    """Action E: control prestige, bonus marker, then establish/develop/special prestige."""

    control_pp: int = 1
    control_tie: str = "rightmost_post"  # tie for control goes to the holder of the rightmost post
    coin_pp: bool = True
    establish_trading_post: bool = True
    develop_ability: bool = True
    special_prestige: bool = True
    east_west_awards: tuple[int, ...] = (7, 4, 2)
    # "strict": square spaces take only traders, round only merchants; "merchant_anywhere": a
    # merchant may also take a square space (a house rule; round spaces stay merchant-only).
    space_shapes: str = "strict"
    span: Span = field(default=NO_SPAN, compare=False, repr=False)


Action = Income | Place | Displace | Move | CreateRoute


@dataclass(frozen=True)
class BonusMarker(_Params):
    """A bonus marker type: `kind` names the effect component, `params` its parameters.

    Kinds: additional_trading_post; exchange_trading_posts(must_own_one: bool);
    develop_ability(ability: "any" | name); extra_actions(count: int);
    move_tradesmen(count: int, whose: "opponents" | "any");
    remove_tradesmen(count: int, whose: "opponents" | "any", to: "personal" | "stock").
    `count` markers of this type exist, `start` of them lie face up on the tavern routes at setup.
    """

    kind: str
    params: tuple[tuple[str, int | str | bool], ...] = ()
    count: int = 1
    start: int = 0
    name: str = ""  # the author's label, e.g. "+3 actions"; defaults to kind and params
    span: Span = field(default=NO_SPAN, compare=False, repr=False)


@dataclass(frozen=True)
class MarkerRules:
    """When taken markers may be used and where drawn markers may be placed at the end of a turn."""

    usable_in_taking_action: bool = False
    # Conditions a route must meet to receive a drawn marker at the end of the turn.
    placement: tuple[str, ...] = ("no_marker", "no_pieces", "vacant_space_in_a_city")
    span: Span = field(default=NO_SPAN, compare=False, repr=False)


@dataclass(frozen=True)
class Pawn:
    """The 2-player variant's neutral pawn: Place, Displace and Create Route only on routes
    bordering its region; the regions are the board's faces cut by the routes and the soldiers
    (border segments between two cities no route joins). `free_borders`: how many borders the
    turn player may move it for free before the first action or after the last."""

    soldiers: tuple[tuple[str, str], ...] = ()
    free_borders: int = 2
    span: Span = field(default=NO_SPAN, compare=False, repr=False)


@dataclass(frozen=True)
class EndTrigger:
    """kind: track_pp (threshold PP), marker_supply_empty, completed_cities (threshold None = the
    board's number)."""

    kind: str
    threshold: int | None = None
    timing: str = "now"  # "now" (after the action), "turn" or "round" (after the current one)
    span: Span = field(default=NO_SPAN, compare=False, repr=False)


@dataclass(frozen=True)
class ScoreCategory(_Params):
    """A final-scoring category, `key` 'A'…'F'.

    kinds: track; full_abilities (uses each ability's full_pp); bonus_markers(table: ((min, pp), …)
    where the last row applies to any larger count); special_prestige; controlled_cities(pp: int);
    network (posts in the best connected group × the network_factor ability).
    """

    key: str
    kind: str
    params: tuple[tuple[str, object], ...] = ()
    span: Span = field(default=NO_SPAN, compare=False, repr=False)


@dataclass(frozen=True)
class TieBreakStep:
    """One step of the tie-break chain: ('fewest'|'most', 'ability'|'score', name), or 'shared'."""

    rule: str  # fewest | most | shared
    what: str = ""  # ability | score | expr
    name: str = ""  # an ability name or a scoring category kind (expr: the quantity's text)
    span: Span = field(default=NO_SPAN, compare=False, repr=False)
    expr: object = None  # what == "expr": the quantity (an expr_ir expression)


@dataclass(frozen=True)
class Option:
    """A named Decision of RULES.md (where the books are silent), with its value."""

    name: str
    value: int | str | bool
    span: Span = field(default=NO_SPAN, compare=False, repr=False)


@dataclass(frozen=True)
class BoardRule(_Params):
    """The rules of play for one board feature (`board_rules KIND PARAMS`): green_cities,
    countries, permissions. A board without the feature compiles it to nothing."""

    kind: str
    params: tuple[tuple[str, object], ...] = ()
    span: Span = field(default=NO_SPAN, compare=False, repr=False)


@dataclass(frozen=True)
class PermanentMarker(_Params):
    """What a board's permanent bonus marker does (`permanent_marker NAME = KIND(PARAMS)`): `name`
    is the word a board route names after `permanent`; `kind` the effect component."""

    name: str
    kind: str
    params: tuple[tuple[str, object], ...] = ()
    span: Span = field(default=NO_SPAN, compare=False, repr=False)


@dataclass(frozen=True)
class RuleSet:
    name: str
    title: str = ""
    extends: str | None = None
    pieces: Pieces | None = None
    setup: Setup | None = None
    abilities: tuple[Ability, ...] = ()
    actions: tuple[Action, ...] = ()
    bonus_markers: tuple[BonusMarker, ...] = ()
    marker_rules: MarkerRules | None = None
    end_triggers: tuple[EndTrigger, ...] = ()
    scoring: tuple[ScoreCategory, ...] = ()
    tiebreak: tuple[TieBreakStep, ...] = ()
    options: tuple[Option, ...] = ()
    pawn: Pawn | None = None  # the 2-player variant's neutral pawn, when the rule set uses it
    span: Span = field(default=NO_SPAN, compare=False, repr=False)
    # Rules in words (expr_ir.HookRule): new markers, categories, triggers, hooks, forbids, control.
    hook_rules: tuple = ()
    # Files that contributed to this resolved rule set, root edition first (for build headers).
    sources: tuple[str, ...] = field(default=(), compare=False)
    # Rules-language bookkeeping (set by rules_lower): the statements as written, which `resolve`
    # applies onto the parent's components, and the `extends` clause's span. Empty once resolved.
    statements: tuple = field(default=(), compare=False, repr=False)
    extends_span: Span = field(default=NO_SPAN, compare=False, repr=False)
    # Rules of play for board features and the permanent markers' effects (§9-10 of the rules).
    board_rules: tuple[BoardRule, ...] = ()
    permanent_markers: tuple[PermanentMarker, ...] = ()

    def board_rule(self, kind: str) -> BoardRule | None:
        for rule in self.board_rules:
            if rule.kind == kind:
                return rule
        return None

    def option(self, name: str, default=None):
        for o in self.options:
            if o.name == name:
                return o.value
        return default


@dataclass(frozen=True)
class Game:
    """A game declaration: a rule set bound to a board side and its allowed player counts."""

    name: str
    rules: str
    board: str
    players: tuple[int, ...]
    span: Span = field(default=NO_SPAN, compare=False, repr=False)
    # Where the rule set, board and player counts are named (set by rules_lower, for checks).
    rules_span: Span = field(default=NO_SPAN, compare=False, repr=False)
    board_span: Span = field(default=NO_SPAN, compare=False, repr=False)
    players_span: Span = field(default=NO_SPAN, compare=False, repr=False)


def mangle_module_name(game_name: str) -> str:
    """A Python module name for a game name; lossy names get a hash suffix so none collide."""
    plain = game_name.replace("-", "_").lower()
    ascii_name = re.sub(r"[^a-z0-9_]", "_", plain)
    if ascii_name != plain or not ascii_name:
        digest = hashlib.sha256(game_name.encode("utf-8")).hexdigest()[:8]
        ascii_name = f"{ascii_name}_{digest}"
    if ascii_name[0].isdigit() or ascii_name[0] == "_" or keyword.iskeyword(ascii_name):
        # a leading underscore would reach the package's own files (`__init__`, `_index`)
        ascii_name = f"game_{ascii_name}"
    return ascii_name
