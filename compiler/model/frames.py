"""The kinds of decision frame a game's decision stack holds, numbered once for every target.

An empty stack is the active player's turn decision (kind 0, `turn`); every other decision waits
in a frame whose kind is its index in `FRAME_NAMES` (the state JSON's name). The first kinds are
in every game; a game's optional parts add theirs after them, in this order, so two games with
the same parts number their frames alike. The Python templates, the C templates, the native
backend's conversions (hansa/native.py) and the state JSON all read the numbers written here
(`F_PAY`, …, `F_KEEP`) and never number a frame themselves.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:  # read by hansa/native.py at a warm load: no compiler imported with it
    from .fold import Fold

# (name in the state JSON, its constant, the component that adds it: "" in every game)
FRAME_KINDS = (
    ("turn", "", ""),
    ("pay_displacement_cost", "F_PAY", ""),
    ("displaced", "F_DISPLACED", ""),
    ("move", "F_MOVE", ""),
    ("remove", "F_REMOVE", ""),
    ("create_route", "F_ROUTE", ""),
    ("exchange", "F_EXCHANGE", ""),
    ("develop", "F_DEVELOP", ""),
    ("place_markers", "F_MARKERS", ""),
    ("permanent_marker", "F_PERMANENT", "permanent"),
    ("move_pawn", "F_PAWN", "pawn"),
    ("flip_markers", "F_FLIP", "favour"),
    ("take_from_stock", "F_TAKE_STOCK", "x_may_take"),
    ("keep_marker", "F_KEEP", "x_draw_keep"),
    ("choose_from_display", "F_DISPLAY", "x_display"),
)
# The kinds every game has, by constant: the same number in every game.
COMMON_FRAMES = {
    constant: kind for kind, (_name, constant, switch) in enumerate(FRAME_KINDS) if not switch
}
COMMON_FRAMES.pop("")


def frame_kinds(comp: dict) -> list[tuple[str, str]]:
    """(name, constant) of each frame kind a game with components `comp` has, by number."""
    return [(name, const) for name, const, switch in FRAME_KINDS if not switch or comp.get(switch)]


def fold_frames(f: Fold) -> None:
    """FRAME_NAMES (by kind number) and F_<KIND>, the number of each kind the game has."""
    kinds = frame_kinds(f.comp)
    for number, (_name, constant) in enumerate(kinds):
        if constant:
            f.k[constant] = number
    f.k["FRAME_NAMES"] = tuple(name for name, _constant in kinds)
