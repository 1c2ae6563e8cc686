"""hansa: a compiler for the rules of Hansa Teutonica.

Import names live under this namespace: `hansa.compiler` (DSL → IR → checks → generated modules),
`hansa.runtime` (what every generated game shares) and `hansa.generated` (one module per game).

    import hansa
    game = hansa.load_game("bigbox-hanseatic-45p", players=4)
    state = game.new_initial_state(seed=7)
    state.apply_action(state.legal_actions()[0])
"""

from hansa.compiler.errors import HansaError
from hansa.runtime.game import Game
from hansa.runtime.state import TERMINAL

__all__ = ["TERMINAL", "Game", "HansaError", "available_games", "compile_game", "load_game"]


def available_games() -> dict[str, str]:
    """Game name → generated module name, for every game `hansa build` has written."""
    try:
        from hansa.generated._index import GAMES
    except ModuleNotFoundError:
        return {}
    return dict(GAMES)


def load_game(name: str, players: int | None = None) -> Game:
    """The committed generated module of game `name` (see `hansa build`), for `players` players."""
    import importlib

    from hansa.compiler.errors import did_you_mean

    games = available_games()
    if not isinstance(name, str) or name not in games:
        hint = did_you_mean(str(name), games) if games else " (run `hansa build` first)"
        raise HansaError(f"unknown game {name!r}{hint}")
    module = importlib.import_module(f"hansa.generated.{games[name]}")
    return Game(module, players)


def compile_game(
    source: str, players: int | None = None, *, game: str | None = None, spec_dir: str = "spec"
) -> Game:
    """Compile a game in memory from the spec: `source` is a game name declared under `spec_dir`,
    or a .hansa file (or folder) declaring it (with `spec_dir`'s boards and rule sets)."""
    from hansa.compiler.targets.python.codegen import compile_module

    return Game(compile_module(source, game=game, spec_dir=spec_dir), players)
