"""hansa: a compiler for the rules of Hansa Teutonica.

Import names live under this namespace: `hansa.compiler` (DSL → IR → checks → generated modules),
`hansa.runtime` (what every generated game shares) and `hansa.generated` (one module per game).

    import hansa
    game = hansa.load_game("bigbox-hanseatic-45p", players=4)
    state = game.new_initial_state(seed=7)
    state.apply_action(state.legal_actions()[0])
"""

import importlib

from hansa.compiler.errors import HansaError, did_you_mean
from hansa.generated import available_games
from hansa.runtime.game import Game
from hansa.runtime.state import TERMINAL

__all__ = ["TERMINAL", "Game", "HansaError", "available_games", "compile_game", "load_game"]


def load_game(name: str, players: int | None = None, backend: str = "python") -> Game:
    """The committed generated module of game `name` (see `hansa build`), for `players` players.

    `backend="native"` plays the rule step in C (built with the system C compiler from the
    installed spec, cached; docs/native.md), with the same API, action ids and texts."""

    if backend == "native":
        return _native(name, players, None)
    if backend != "python":
        raise HansaError(f"unknown backend {backend!r}: 'python' or 'native'")

    games = available_games()
    if not isinstance(name, str) or name not in games:
        hint = did_you_mean(str(name), games) if games else " (run `hansa build` first)"
        raise HansaError(f"unknown game {name!r}{hint}")
    try:
        module = importlib.import_module(f"hansa.generated.{games[name]}")
    except (ImportError, SyntaxError, RecursionError, MemoryError) as exc:
        # a module written by another version, edited or truncated: say which, never a traceback
        raise HansaError(
            f"the generated module of game {name!r} cannot be loaded"
            f" ({type(exc).__name__}: {exc}); rebuild it with `hansa build`"
        ) from None
    return Game(module, players)


def compile_game(
    source: str,
    players: int | None = None,
    *,
    game: str | None = None,
    spec_dir: str = "spec",
    backend: str = "python",
) -> Game:
    """Compile a game in memory from the spec: `source` is a game name declared under `spec_dir`,
    or a .hansa file (or folder) declaring it (with `spec_dir`'s boards and rule sets).
    `backend="native"` also builds its C rule module (docs/native.md)."""
    from hansa.compiler.targets.python.codegen import compile_module

    if backend not in ("python", "native"):
        raise HansaError(f"unknown backend {backend!r}: 'python' or 'native'")
    module = compile_module(source, game=game, spec_dir=spec_dir)
    if backend == "native":
        from hansa.native import model_of, native_game

        paths = [source] if source.endswith(".hansa") else []
        model = model_of(module.GAME_NAME, spec_dir, extra=paths)
        return native_game(model, module, players)
    return Game(module, players)


def _native(name: str, players: int | None, spec_dir: str | None) -> Game:
    """The native game `name` of the spec folder (the installed spec by default), bound to the
    Python rule module compiled from the same spec (so both backends read one set of rules). A
    game loaded before, by this user, comes from the verified cache without compiling anything
    (hansa.native.load_native)."""
    from hansa.native import NativeGame, load_native

    if spec_dir is None:
        from hansa.native import installed_spec

        spec_dir = str(installed_spec())
    if not isinstance(name, str):
        raise HansaError(f"unknown game {name!r}")
    ext, module, end_names = load_native(name, spec_dir)
    return NativeGame(module, ext, end_names, players)
