"""Studies past one machine: the games of `simulate` played as Ray tasks (`--executor ray`).

Ray (the `cluster` extra, `pip install 'hansa[cluster]'`) is imported only here and only when
asked for. Without an address a local Ray is started for the run (and stopped after it); with
`address` the games go to an existing cluster (`ray start --head` on one machine, `ray start
--address HEAD:6379` on the others). The workers are sent the generated module's text, not its
name, so a game compiled in memory (a spec folder's, `hansa diff --simulate`'s sides) plays there
as it does here, and hansa needs to be installed on the workers but not the spec.

Each task plays a batch of games by index, with the seeds of `game_seed`, so the records do not
depend on where or in which order they ran: a task whose worker dies (a killed process, a lost
machine) is run again by Ray, up to `RETRIES` times, and a study never ends with a game missing —
it either has every game or fails with an error that says which games could not be played.

Workers import the installed hansa, whatever folder the study was started from: Ray puts the
driver's working folder first on every worker's `sys.path`, so a folder holding a `hansa/` (a
parent of a checkout, say) used to shadow the installed package on the workers ("module 'hansa'
has no attribute 'load_game'"). The task Ray runs is sent by value, not by name (importing it by
name would import hansa from that folder before any of our code runs), and it takes the driver's
folder off `sys.path` before it imports hansa, unless the driver imports from that folder itself.
"""

from __future__ import annotations

import hashlib
import logging
import os
import socket
import sys
from collections.abc import Callable, Sequence
from contextlib import contextmanager, redirect_stdout

from hansa.runtime.errors import HansaError
from hansa.runtime.game import Game

# Reruns of a batch whose worker died before it is given up (and the study fails).
RETRIES = 4
INSTALL_HINT = (
    "--executor ray needs Ray, which the core install leaves out: "
    "pip install 'hansa[cluster]' (in a checkout: pip install -e '.[cluster]')"
)

# Worker side: the games rebuilt from module text, by the text's digest (a worker plays many
# batches of one study; rebuilding the module for each would cost more than a game).
_GAMES: dict[tuple[str, int], Game] = {}

# Driver side: game index -> id of the Ray node that played it, for the last study of this
# process (not part of any report; the tests check that a study spread over a cluster's nodes).
last_study_nodes: dict[int, str] = {}


def import_ray():
    """The `ray` module, or one clear error naming the extra to install."""
    try:
        import ray
    except ImportError:
        raise HansaError(INSTALL_HINT) from None
    return ray


def module_text(game: Game) -> tuple[str, str]:
    """(module name, source text) of a game's generated rule module, for a worker to rebuild."""
    from hansa.native import NativeGame

    if isinstance(game, NativeGame):
        raise HansaError("--executor ray plays the Python backend's rule modules only")
    from hansa.compiler.targets.python.codegen import generated_text

    module = game.module
    text = generated_text(vars(module))
    if text is None:
        raise HansaError(f"game {game.name!r}: its rule module has no text to send to workers")
    return module.__name__, text


def game_from_text(module_name: str, text: str, players: int) -> Game:
    from hansa.compiler.targets.python.codegen import module_from_text

    key = (hashlib.sha256(text.encode("utf-8")).hexdigest(), players)
    game = _GAMES.get(key)
    if game is None:
        game = _GAMES[key] = Game(module_from_text(text, module_name, module_name), players)
    return game


def _task():
    """The function Ray runs for a batch. It is defined here, inside a function, so that Ray's
    cloudpickle sends its code (a module-level function is sent by name, and the worker would
    import its module to find it, from whatever `hansa` comes first on its path). It takes the
    driver's working folder (`foreign`) off `sys.path` first, then imports the batch's function
    (`module:name`, `simulate.play_batch`: this module names no caller, so the caller may import
    it) from the installed hansa and plays the batch; (id of the node it ran on, records)."""

    def play_batch_on_node(foreign: list[str], play_batch: str, *args):
        import importlib
        import os
        import sys

        sys.path[:] = [p for p in sys.path if os.path.abspath(p or os.curdir) not in foreign]
        import ray

        module, _, name = play_batch.partition(":")
        function = getattr(importlib.import_module(module), name)
        return ray.get_runtime_context().get_node_id(), function(*args)

    play_batch_on_node.__name__ = "play_batch"  # the workers' process title: ray::play_batch
    return play_batch_on_node


def driver_folder_to_hide() -> list[str]:
    """The driver's working folder, which Ray adds to the workers' `sys.path`, unless the driver
    imports from it too (`python -m` run there, an interactive session): then the workers see
    what the driver sees."""
    here = os.path.abspath(os.curdir)
    seen = {os.path.abspath(p or os.curdir) for p in sys.path}
    return [] if here in seen else [here]


def run_on_ray(
    play_batch: Callable[..., list[tuple[int, dict]]],
    game: Game,
    agents: list[str],
    seed: int,
    batches: Sequence[list[int]],
    max_decisions: int | None,
    seating: str,
    progress: Callable[[int], None],
    address: str | None = None,
    cpus: int | None = None,
    record_moves: bool = False,
) -> dict[int, dict]:
    """Play every batch as a Ray task, `play_batch(module name, module text, players, agents,
    seed, indices, max_decisions, seating, record_moves)` on a worker (a module-level function,
    imported there by name); game index -> record. `progress(done)` after each batch.

    A local Ray (no `address`) is started with `cpus` CPUs (default: all) and shut down after
    the run, also on Ctrl-C or an error, so no Ray process outlives the study; a cluster that
    was already running (`address`, or `ray.init` called by the caller) is left running, with
    this study's tasks cancelled."""
    ray = import_ray()
    with study(address, cpus):
        by_name = f"{play_batch.__module__}:{play_batch.__qualname__}"
        return _run(
            ray,
            by_name,
            game,
            agents,
            seed,
            batches,
            max_decisions,
            seating,
            progress,
            record_moves,
        )


@contextmanager
def study(address: str | None = None, cpus: int | None = None):
    """`session` for a command that reports on stdout: Ray prints its own notes there ("a
    worker died … the task will be retried"), from a thread, whenever they arrive. For the
    block, and Ray's shutdown at its end, they go to stderr, so a `--json` report stays one
    JSON document whatever happens to the workers."""
    with redirect_stdout(sys.stderr), session(address, cpus) as ray:
        yield ray


@contextmanager
def session(address: str | None = None, cpus: int | None = None):
    """Ray for the block: connected to the cluster at `address`, or a local Ray started (and shut
    down at the end, whatever ends the block) with `cpus` CPUs; a Ray this process already
    runs is used as it is and left running."""
    ray = import_ray()
    if address is not None:
        _check_reachable(address)
    if ray.is_initialized():
        yield ray
        return
    _init(ray, address, cpus)
    try:
        yield ray
    finally:
        ray.shutdown()


def _run(
    ray,
    play_batch,
    game,
    agents,
    seed,
    batches,
    max_decisions,
    seating,
    progress,
    record_moves=False,
) -> dict[int, dict]:
    module_name, text = module_text(game)
    # SPREAD: the batches go to every node of the cluster from the start, not first to the
    # driver's node until it is busy (short batches would then never leave it)
    task = ray.remote(max_retries=RETRIES, retry_exceptions=False, scheduling_strategy="SPREAD")(
        _task()
    )
    text_ref = ray.put(text)  # once into the object store, not once per task
    players = game.num_players()
    foreign = driver_folder_to_hide()
    pending = {
        task.remote(
            foreign,
            play_batch,
            module_name,
            text_ref,
            players,
            agents,
            seed,
            batch,
            max_decisions,
            seating,
            record_moves,
        ): batch
        for batch in batches
    }
    results: dict[int, dict] = {}
    last_study_nodes.clear()
    try:
        while pending:
            ready, _ = ray.wait(list(pending), num_returns=1, timeout=0.5)
            for ref in ready:
                batch = pending.pop(ref)
                node, records = _result(ray, ref, batch)
                for i, summary in records:
                    results[i] = summary
                    last_study_nodes[i] = node
                progress(len(results))
    except BaseException:
        for ref in pending:  # Ctrl-C, SIGTERM or a failed batch: stop the rest now
            ray.cancel(ref, force=True)
        raise
    return results


def _init(ray, address: str | None, cpus: int | None) -> None:
    """Connect to the cluster at `address`, or start a local Ray for this run only: no
    dashboard, no usage report, workers' output kept out of the report."""
    os.environ.setdefault("RAY_USAGE_STATS_ENABLED", "0")
    # the raylet waits this long for its agents (Python processes, slow to start on a loaded
    # machine) instead of 30 s, after which it stops with an "unexpected system state"
    os.environ.setdefault("RAY_agent_register_timeout_ms", "120000")
    options = {"logging_level": logging.ERROR, "log_to_driver": False}
    if address is None:
        options |= {"num_cpus": cpus or os.cpu_count() or 1, "include_dashboard": False}
    # Ray gives a local node 30 s (fixed) to register; on a loaded machine it may miss that, and
    # a second start usually succeeds, so a local Ray is tried twice before the error
    attempts = 2 if address is None else 1
    for attempt in range(1, attempts + 1):
        try:
            # "local": a new Ray, never one found on this machine (RAY_ADDRESS, the address file
            # of the last `ray start`, a running GCS), which `ray.init()` would join instead
            ray.init(address=address or "local", **options)
            return
        except Exception as exc:  # Ray raises bare Exceptions too (a raylet slow to start, say)
            ray.shutdown()  # whatever it started
            if attempt < attempts:
                continue
            where = f"the Ray cluster at {address!r}" if address else "a local Ray"
            first = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
            raise HansaError(f"--executor ray: cannot start or reach {where}: {first}") from None


def _check_reachable(address: str) -> None:
    """An address that names a host and port is tried first: Ray itself retries an unreachable
    one for minutes, printing a warning every few seconds, before it gives up."""
    host, sep, port = address.removeprefix("ray://").rpartition(":")
    if not sep or not port.isdigit():
        return  # "auto", or an address Ray resolves its own way
    try:
        socket.create_connection((host.strip("[]") or "127.0.0.1", int(port)), timeout=5).close()
    except OSError as exc:
        reason = exc.strerror or type(exc).__name__
        raise HansaError(f"--address {address}: no Ray cluster answers there ({reason})") from None


def _result(ray, ref, batch: list[int]) -> tuple[str, list[tuple[int, dict]]]:
    """A batch's node and records; a game's own error (a failing agent) as it was raised, and a
    batch whose worker kept dying as one error naming its games (never a silently missing
    game)."""
    from ray import exceptions

    try:
        return ray.get(ref)
    except exceptions.RayTaskError as exc:
        cause = exc.cause if isinstance(getattr(exc, "cause", None), BaseException) else None
        if isinstance(cause, HansaError):
            raise HansaError(str(cause)) from None
        raise HansaError(f"games {_span(batch)} failed on a Ray worker: {exc}") from None
    except (exceptions.WorkerCrashedError, exceptions.NodeDiedError, exceptions.RayError) as exc:
        kind = type(exc).__name__
        raise HansaError(
            f"games {_span(batch)}: the Ray worker playing them died {RETRIES + 1} times "
            f"({kind}); the study is stopped rather than reported without them"
        ) from None


def _span(batch: list[int]) -> str:
    return str(batch[0]) if len(batch) == 1 else f"{batch[0]}–{batch[-1]}"
