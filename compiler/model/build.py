"""Fold a board and a resolved rule set into plain tables for code generation.

Everything the generated module needs is computed here, once, at compile time: cities, routes,
connection points, post spaces and special-prestige spaces become small ints; adjacency,
route→points, city→routes, ability and scoring tables, the bonus-marker mix and the action-id
layout become tuples. The templates only arrange code around these values, so a game never pays
at run time for what the compiler already knew.

One builder per rule feature (the modules beside this one) adds its tables; `build_model` runs
them in order. Every component value the rules catalogue accepts has a template choice
(docs/rules-language.md, "What the variants mean"); what the templates cannot play is refused
with a `HansaError` pointing at the spec text, rather than being silently mis-played.
"""

from __future__ import annotations

from ..nodes.board import Board
from ..nodes.rules import Game, RuleSet
from .abilities import fold_abilities, fold_supply
from .actions import fold_actions
from .board import fold_board, fold_point_masks, fold_special_prestige
from .ending import END_KINDS, fold_end_triggers
from .features import fold_countries, fold_green_cities, fold_permanent_markers
from .fold import Fold, GameModel
from .frames import fold_frames
from .layout import fold_action_layout, fold_names
from .markers import MARKER_KINDS, fold_bonus_markers, fold_marker_placement
from .modules import fold_favour, fold_pawn
from .options import check_game, fold_options, fold_pieces
from .scoring import SCORE_KINDS, fold_scoring, fold_tiebreak
from .state import fold_state_layout
from .words import fold_rules_in_words

__all__ = ["BUILDERS", "END_KINDS", "MARKER_KINDS", "SCORE_KINDS", "GameModel", "build_model"]

# In order: each builder reads what those before it wrote, and the constants keep this order in
# the generated module.
BUILDERS = (
    check_game,
    fold_options,
    fold_pieces,
    fold_abilities,
    fold_supply,
    fold_board,
    fold_green_cities,
    fold_countries,
    fold_permanent_markers,
    fold_point_masks,
    fold_special_prestige,
    fold_actions,
    fold_bonus_markers,
    fold_marker_placement,
    fold_end_triggers,
    fold_scoring,
    fold_tiebreak,
    fold_pawn,
    fold_rules_in_words,
    fold_favour,
    fold_action_layout,
    fold_frames,
    fold_state_layout,
    fold_names,
)


def build_model(game: Game, rules: RuleSet, board: Board) -> GameModel:
    """Fold the board and resolved rules of `game` into a GameModel; refuse what is unsupported."""
    fold = Fold.start(game, rules, board)
    for builder in BUILDERS:
        builder(fold)
    return fold.model
