"""Generated rule modules, one per game: written by `hansa build`, never edited by hand.

`_index.GAMES` maps each game name to its module name (also written by `hansa build`); the
functions here are the one place that reads the index.
"""

from __future__ import annotations

import importlib
from types import ModuleType


def _the_index() -> ModuleType | None:
    """The index `hansa build` writes; None in a checkout before its first build. (Not named
    `_index`: importing the submodule sets that attribute of this package.)"""
    try:
        return importlib.import_module("hansa.generated._index")
    except ModuleNotFoundError:
        return None


def available_games() -> dict[str, str]:
    """Game name → generated module name, for every game `hansa build` has written."""
    return dict(getattr(_the_index(), "GAMES", {}))


def built_names(constant: str) -> dict[str, dict]:
    """The built-in spec's rule sets (`RULESETS`) or boards (`BOARDS`), as `hansa build` indexed
    them: name → title and extends, or title and player counts."""
    return dict(getattr(_the_index(), constant, {}))
