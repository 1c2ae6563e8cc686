"""Compare two boards, rule sets or games by meaning, not by text.

A and B are spec files (`.hansa`; `FILE:NAME` picks one declaration from a file holding several),
reference board files (`.json`), or names declared under the spec folder (board, rule set, game).
Rule sets are compared after `extends` is resolved. Formatting, comments, order of declarations and
file names are never differences.

With --simulate N both sides are also compiled in memory and played N times each, with the same
agents and per-game seeds; game length, end-trigger shares, PP per scoring category and win rate by
seat are reported side by side with 95% intervals, and differences that are statistically clear
(Welch's t / two-proportion z, Holm-corrected at family-wise 0.05) are flagged; so is how often
each bonus marker, permanent marker, scoring category, end trigger and rule in words applied, with
a warning for an element only one side has that never applied in its games (a note, worded apart,
for one that applied while nothing differs clearly). Each side's cost (CPU seconds per game and
per decision, wall time), the smallest difference the games could detect per figure (5%, 80%
power) and how many paired games (same seed, same seats) diverged are reported too. Two rule sets
are played on the board their games in the spec share (or --board); two boards with the rule set
their games share (or --rules). --plot FILE.png|svg draws the comparison.

Exit status: 0 equal (and, with --simulate, no clear behavioural difference), 1 different, 2 on
error (like diff(1)), 3 with --simulate when an element only one side has never applied in the
games played (the comparison says nothing about it). See docs/diff.md.
"""

from __future__ import annotations

import argparse
import contextlib
import os
import sys
from dataclasses import dataclass, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

from tqdm import tqdm

from hansa.compiler.errors import HansaError, Span, did_you_mean
from hansa.compiler.nodes.board import Board
from hansa.compiler.nodes.rules import Game, RuleSet
from hansa.play.cluster import import_ray, study
from hansa.play.simulate import search_backend_note
from hansa.resolve import listing
from hansa.runtime.game import Game as LoadedGame
from hansa.runtime.names import shown

from .play import add_backend_option, max_decisions
from .simulate import add_executor_options, add_seats_option

if TYPE_CHECKING:  # imported where used: `hansa` starts without loading the compiler
    from hansa.compiler.diff.edits import Edit, Side
    from hansa.compiler.nodes.board import Board
    from hansa.compiler.nodes.rules import Game, RuleSet

NAME = "diff"
HELP = (
    "semantic diff of two boards, rule sets or games "
    "(exit 0 equal, 1 different, 2 error, 3 a difference never exercised by --simulate)"
)

KIND_WORDS = {"Board": "board", "RuleSet": "rules", "Game": "game"}  # by class name


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "a", metavar="A", help="spec file, FILE:NAME, board .json, or a declared name"
    )
    parser.add_argument("b", metavar="B", help="the other side, of the same kind as A")
    parser.add_argument(
        "-f",
        "--format",
        choices=("text", "json", "markdown"),
        default="text",
        help="text report grouped by area (default), stable JSON list of edits, or markdown table",
    )
    parser.add_argument(
        "--color",
        choices=("auto", "always", "never"),
        default="auto",
        help="colour the text report (auto: only on a terminal, and not when NO_COLOR is set)",
    )
    parser.add_argument(
        "--spec",
        metavar="DIR",
        default="spec",
        help="folder of spec files that names are looked up in (default: ./spec)",
    )
    sim = parser.add_argument_group("behavioural diff (--simulate)")

    add_seats_option(sim, default=None)
    add_executor_options(sim, default=None)
    sim.add_argument(
        "--simulate",
        type=int,
        metavar="N",
        default=None,
        help="also play N seeded games under each side and compare how they play",
    )
    sim.add_argument(
        "--players",
        type=int,
        metavar="P",
        default=None,
        help="player count on both sides (default: the smallest both allow)",
    )
    sim.add_argument(
        "--agents",
        default=None,
        metavar="A[,B…]",
        help="agent for every seat, or one per seat: greedy, random, mcts, strong or "
        "module:Class (your own class with a step method), optionally with :key=value,… "
        "arguments, e.g. mcts:iterations=200 (default greedy)",
    )
    sim.add_argument(
        "--seed", type=int, default=None, help="seed of the run; game i gets its own (default 0)"
    )
    sim.add_argument(
        "--jobs",
        "-j",
        type=int,
        default=None,
        metavar="J",
        help="processes to spread the games over (default: all cores)",
    )
    sim.add_argument(
        "--max-decisions",
        type=int,
        default=None,
        metavar="N",
        help="stop a game after N decisions (default 200000); stopped games end 'unfinished'",
    )
    add_backend_option(sim, default=None)
    sim.add_argument(
        "--plot", metavar="FILE", default=None, help="draw the comparison to FILE.png or FILE.svg"
    )
    sim.add_argument(
        "--board",
        metavar="BOARD",
        default=None,
        help="for two rule sets: the board to play both on (name, .hansa FILE[:NAME] or .json)",
    )
    sim.add_argument(
        "--rules",
        metavar="RULES",
        default=None,
        help="for two boards: the rule set to play on both (a name declared in the spec)",
    )


@dataclass
class Loaded:
    """One side of the diff: the declaration and, for a game, its resolved rule set and board."""

    side: Side
    node: Board | RuleSet | Game
    rules: RuleSet | None = None
    board: Board | None = None
    catalogue: Any = None  # the project its names resolve in; None for a reference JSON board


class SpecLoader:
    """Loads projects for both arguments, reading the spec folder at most once."""

    def __init__(self, spec_dir: str) -> None:
        self.spec_dir = spec_dir
        self._spec: Any = None

    def spec(self) -> Any:
        """Every declaration under the spec folder (errors are checked per declaration used)."""
        if self._spec is None:
            if Path(self.spec_dir).is_dir():
                self._spec = _load([self.spec_dir])
            else:  # the built-in boards, rule sets and games only
                from hansa.compiler.project import Project

                self._spec = Project()
        return self._spec

    def file(self, file: str) -> Any:
        """A spec file's project; with the spec folder's files when it names things declared there.

        The file's own declarations win: spec files redeclaring one of its names are left out, so
        a modified copy of an edition can be compared with the original.
        """
        own = _load([file])
        if not _needs_spec(own):
            _require_clean(own, file)
            return own
        spec = self.spec()
        mine = set(own.declared_at)
        here = Path(file).resolve()
        clashing = {str(span.file) for key, span in spec.declared_at.items() if key in mine}
        others = [p for p in spec.files if str(p) not in clashing and p.resolve() != here]
        combined = _load([file, *others])
        _require_clean(combined, file)
        return combined


def _needs_spec(project: Any) -> bool:
    """A file's declarations can stand alone unless they name something declared elsewhere."""
    for ruleset in project.rulesets.values():
        if ruleset.extends and ruleset.extends not in project.rulesets:
            return True
    for game in project.games.values():
        if game.rules not in project.rulesets or game.board not in project.boards:
            return True
    return False


def _load(paths: list[str]) -> Any:
    """Load spec files into a project (its diagnostics are checked per file by `_require_clean`)."""
    from hansa.compiler.project import load_project

    return load_project(paths)


def _require_clean(project: Any, file: str) -> None:
    """A side must come from a file without errors; problems elsewhere in spec/ do not matter."""
    errors = [
        d
        for d in project.diagnostics
        if d.severity == "error" and (d.span is None or _same_file(d.span.file, file))
    ]
    if errors:
        raise HansaError(errors)


def _resolve(name: str, catalogue: Any, where: Span | None = None) -> RuleSet:
    from hansa.compiler.rules.resolve import resolve

    rulesets = catalogue.rulesets
    if name not in rulesets:
        raise HansaError(f"no rule set named '{name}'{did_you_mean(name, rulesets)}", where)
    return resolve(name, rulesets)


@dataclass
class Candidate:
    """A declaration an argument may mean, before the other side settles which kind is wanted."""

    cls: type
    name: str
    node: Any
    file: str
    catalogue: Any  # the project its names are resolved in; None for a reference JSON board


def _declarations(project: Any) -> list[tuple[type, str, Any]]:

    return [
        (cls, name, node)
        for cls, attr in ((Board, "boards"), (RuleSet, "rulesets"), (Game, "games"))
        for name, node in getattr(project, attr).items()
    ]


def _split_file_arg(arg: str) -> tuple[str, str | None] | None:
    """'FILE' or 'FILE:NAME' when FILE exists; None for a plain name."""
    if Path(arg).is_file():
        return arg, None
    if Path(arg).is_dir():
        raise HansaError("is a directory; give a spec file or a declared name", Span(arg, 0, 0))
    head, sep, tail = arg.rpartition(":")
    if sep and head and tail and Path(head).is_file():
        return head, tail
    if arg.endswith((".hansa", ".json")) or os.sep in arg:
        raise HansaError("no such file", Span(arg, 0, 0))
    return None


def candidates(arg: str, loader: SpecLoader) -> list[Candidate]:
    """Everything one command-line argument can mean (usually exactly one declaration)."""

    split = _split_file_arg(arg)
    if split is not None and split[0].endswith(".json"):
        from hansa.compiler.board.json_io import load_board_json

        if split[1] is not None:
            raise HansaError("a board .json holds one board; drop ':NAME'", Span(split[0], 0, 0))
        board = load_board_json(split[0])
        return [Candidate(Board, board.id, board, split[0], None)]
    if split is not None:
        file, wanted = split
        project = loader.file(file)
        found = [f for f in _declarations(project) if _same_file(_file_of(f[2]), file)]
        if not found:
            raise HansaError("declares no board, rule set or game", Span(file, 0, 0))
        if wanted is not None:
            hits = [f for f in found if f[1] == wanted]
            if not hits:
                known = [f[1] for f in found]
                raise HansaError(
                    f"'{wanted}' is not declared in this file{did_you_mean(wanted, known)}",
                    Span(file, 0, 0),
                )
            found = hits
        return [Candidate(cls, name, node, file, project) for cls, name, node in found]
    spec_dir = loader.spec_dir
    project = loader.spec()
    found = [f for f in _declarations(project) if f[1] == arg]
    if not found:
        from hansa.compiler.project import take_from_library

        if take_from_library(project, arg):
            found = [f for f in _declarations(project) if f[1] == arg]
    if not found:
        from hansa.compiler.project import library_project

        library = library_project()
        known = [f[1] for f in _declarations(project)]
        known += [f[1] for f in _declarations(library)] if library else []
        hint = did_you_mean(arg, known)
        if not hint and project.errors:
            hint = f" ({len(project.errors)} errors there; see `hansa check {spec_dir}`)"

        kinds = (("boards", "boards"), ("rulesets", "rule sets"), ("games", "games"))
        there = "; ".join(f"{word}: {listing(project.own(a))}" for a, word in kinds)
        where = f"{spec_dir}/" if Path(spec_dir).is_dir() else f"{spec_dir}/ (no such folder)"
        raise HansaError(
            f"no board, rule set or game named {shown(arg)} in {where} nor built in{hint}"
            f" ({there}; `hansa list` shows the built-in ones)"
        )
    out = []
    for cls, name, node in found:
        file = _file_of(node)
        _require_clean(project, file)
        out.append(Candidate(cls, name, node, file, project))
    return out


def _same_file(a: str, b: str) -> bool:
    return a == b or (bool(a) and bool(b) and Path(a).resolve() == Path(b).resolve())


def _file_of(node: Any) -> str:
    return node.span.file if node.span.line > 0 else ""


def choose(arg: str, options: list[Candidate], other: list[Candidate]) -> Candidate:
    """One declaration for `arg`: if it can mean several, the other side's kind decides."""
    if len(options) > 1:
        kinds = {c.cls for c in other}
        fitting = [c for c in options if c.cls in kinds]
        if len(fitting) == 1:
            return fitting[0]
        names = ", ".join(f"{KIND_WORDS[c.cls.__name__]} {c.name}" for c in options)
        raise HansaError(
            f"'{arg}' can mean several declarations ({names}); write FILE:NAME to pick one"
        )
    return options[0]


def load(candidate: Candidate) -> Loaded:
    """The IR to compare for one declaration: a board, a resolved rule set, or a game with both."""
    cls, name, node, catalogue = candidate.cls, candidate.name, candidate.node, candidate.catalogue
    from hansa.compiler.diff.edits import Side

    side = Side(KIND_WORDS[cls.__name__], name, candidate.file)
    if cls is Board:
        return Loaded(side, node, catalogue=catalogue)
    if cls is RuleSet:
        return Loaded(side, _resolve(name, catalogue, node.span), catalogue=catalogue)
    boards = catalogue.boards
    if node.board not in boards:
        raise HansaError(
            f"game '{name}' is on board '{node.board}', which is not declared"
            f"{did_you_mean(node.board, boards)}",
            node.span,
        )
    rules = _resolve(node.rules, catalogue, node.span)
    return Loaded(side, node, rules, boards[node.board], catalogue)


def load_pair(
    arg_a: str, arg_b: str, spec_dir: str = "spec", loader: SpecLoader | None = None
) -> tuple[Loaded, Loaded]:
    """Both sides of a diff, each argument read in the light of the other."""
    loader = loader or SpecLoader(spec_dir)
    options_a = candidates(arg_a, loader)
    options_b = candidates(arg_b, loader)
    a = choose(arg_a, options_a, options_b)
    b = choose(arg_b, options_b, [a])
    return load(a), load(b)


def compare(a: Loaded, b: Loaded) -> list[Edit]:
    """The edits from A to B; both sides must be the same kind of declaration."""
    from hansa.compiler.diff.edits import diff_boards, diff_games, diff_rulesets

    if a.side.kind != b.side.kind:
        raise HansaError(
            f"cannot compare a {a.side.kind} ('{a.side.name}') with a {b.side.kind} "
            f"('{b.side.name}'): give two boards, two rule sets or two games"
        )
    if isinstance(a.node, Board):
        return diff_boards(a.node, b.node)
    if isinstance(a.node, RuleSet):
        return diff_rulesets(a.node, b.node)
    return diff_games(a.node, b.node, a.rules, b.rules, a.board, b.board)


def _use_color(choice: str) -> bool:
    if choice == "always":
        return True
    if choice == "never":
        return False
    return sys.stdout.isatty() and not os.environ.get("NO_COLOR")


# --------------------------------------------------------------------------------------------------
# --simulate: what is played on each side


SIMULATION_OPTIONS = (
    "players",
    "agents",
    "seed",
    "jobs",
    "max_decisions",
    "plot",
    "board",
    "rules",
    "seats",
    "executor",
    "address",
    "backend",
)
PLOT_SUFFIXES = (".png", ".svg")


def _played_on(catalogue: Any, rules_name: str) -> dict[str, tuple[int, ...]]:
    """Board → player counts of the games that play a rule set; a rule set without games of its
    own (a house rule that only `extends`) is played where the nearest rule set it extends is."""
    name: str | None = rules_name
    seen: set[str] = set()
    while name and name not in seen:
        seen.add(name)
        found: dict[str, set[int]] = {}
        for game in catalogue.games.values():
            if game.rules == name:
                found.setdefault(game.board, set()).update(game.players)
        if found:
            return {board: tuple(sorted(counts)) for board, counts in found.items()}
        ruleset = catalogue.rulesets.get(name)
        name = ruleset.extends if ruleset is not None else None
    return {}


def _rules_on(catalogue: Any, board_name: str) -> dict[str, tuple[int, ...]]:
    """Rule set → player counts of the games played on a board."""
    found: dict[str, set[int]] = {}
    for game in catalogue.games.values():
        if game.board == board_name:
            found.setdefault(game.rules, set()).update(game.players)
    return {rules: tuple(sorted(counts)) for rules, counts in found.items()}


def _shared(
    what: str,
    on_a: dict[str, tuple[int, ...]],
    on_b: dict[str, tuple[int, ...]],
    a: Loaded,
    b: Loaded,
    players: int | None,
    option: str,
) -> str:
    """The one board (or rule set) both sides are played with in the spec, else a clear error."""
    common = sorted(set(on_a) & set(on_b))
    if players is not None:
        common = [x for x in common if players in on_a[x] and players in on_b[x]]
    if len(common) == 1:
        return common[0]
    sides = f"{a.side.kind} '{a.side.name}' and '{b.side.name}'"
    if not common:
        known = ", ".join(sorted(set(on_a) | set(on_b))) or "none"
        for_players = f" for {players} players" if players is not None else ""
        raise HansaError(
            f"--simulate: {sides} share no {what} in the spec's games{for_players} "
            f"(played with: {known}); choose one with {option}"
        )
    raise HansaError(
        f"--simulate: {sides} are both played with {what}s {', '.join(common)}; "
        f"choose one with {option}" + ("" if players is not None else " (or --players)")
    )


def _game_decl(
    catalogue: Any, rules: str, board: Board, fallback: tuple[int, ...], wanted: int | None
) -> Game:
    """The spec's game that plays `rules` on `board`, else one made up for the simulation (for
    the player counts it was found through, else the board's, else --players)."""

    games = sorted(
        (g for g in catalogue.games.values() if g.rules == rules and g.board == board.id),
        key=lambda g: g.name,
    )
    if games:
        return games[0]
    players = fallback or tuple(board.players) or ((wanted,) if wanted else ())
    if not players:
        raise HansaError(f"--simulate: board '{board.id}' names no player counts; give --players")
    return Game(name=f"{rules}-on-{board.id}", rules=rules, board=board.id, players=players)


@dataclass
class _View:
    """What one side's names mean for --simulate: its own declarations over the spec folder's
    (a file that stands alone, such as a modified copy of an edition, is still played on the
    spec's games and boards that name it)."""

    games: dict[str, Game]
    boards: dict[str, Board]
    rulesets: dict[str, RuleSet]
    sources: dict[str, str]


def _view(catalogue: Any, loader: SpecLoader) -> _View:
    layers = []
    if Path(loader.spec_dir).is_dir():
        layers.append(loader.spec())
    if catalogue is not None:
        layers.append(catalogue)
    merged = _View({}, {}, {}, {})
    for layer in layers:
        merged.games.update(layer.games)
        merged.boards.update(layer.boards)
        merged.rulesets.update(layer.rulesets)
        merged.sources.update(layer.sources)
    return merged


def _board_option(arg: str, loader: SpecLoader) -> Board:

    found = [c for c in candidates(arg, loader) if c.cls is Board]
    if not found:
        raise HansaError(f"--board: '{arg}' is not a board")
    if len(found) > 1:
        raise HansaError(f"--board: '{arg}' declares several boards; write FILE:NAME")
    return found[0].node


def playables(a: Loaded, b: Loaded, args: argparse.Namespace, loader: SpecLoader) -> tuple:
    """Both sides as games to play: games as they are; two rule sets on one board; two boards
    with one rule set. Each side's names resolve in its own catalogue (its file, then spec/)."""
    from hansa.analysis.behaviour import Playable

    kind = a.side.kind
    if kind != "rules" and args.board is not None:
        raise HansaError("--board pairs two rule sets with a board; A and B are not rule sets")
    if kind != "board" and args.rules is not None:
        raise HansaError("--rules pairs two boards with a rule set; A and B are not boards")
    catalogues = [_view(x.catalogue, loader) for x in (a, b)]
    sources = [c.sources for c in catalogues]
    if kind == "game":
        return tuple(
            Playable(f"game '{x.side.name}'", x.node, x.rules, x.board, src)
            for x, src in zip((a, b), sources, strict=True)
        )
    if kind == "rules":
        on = [_played_on(c, x.node.name) for c, x in zip(catalogues, (a, b), strict=True)]
        if args.board is not None:
            chosen = _board_option(args.board, loader)
            boards = [chosen, chosen]
        else:
            name = _shared("board", on[0], on[1], a, b, args.players, "--board")
            boards = [c.boards[name] for c in catalogues]
        out = []
        for x, cat, board, counts, src in zip((a, b), catalogues, boards, on, sources, strict=True):
            decl = _game_decl(cat, x.node.name, board, counts.get(board.id, ()), args.players)
            label = f"rules '{x.node.name}' on board '{board.id}'"
            out.append(Playable(label, decl, x.node, board, src))
        return tuple(out)
    on = [_rules_on(c, x.node.id) for c, x in zip(catalogues, (a, b), strict=True)]
    if args.rules is not None:
        names = [args.rules, args.rules]
    else:
        shared = _shared("rule set", on[0], on[1], a, b, args.players, "--rules")
        names = [shared, shared]
    out = []
    for x, cat, name, counts, src in zip((a, b), catalogues, names, on, sources, strict=True):
        rules = _resolve(name, cat)
        decl = _game_decl(cat, name, x.node, counts.get(name, ()), args.players)
        label = f"board '{x.node.id}' with rules '{name}'"
        out.append(Playable(label, decl, rules, x.node, src))
    return tuple(out)


class _Progress:
    """One tqdm bar on standard error over both sides' games, only when that is a terminal."""

    def __init__(self, total: int, enabled: bool) -> None:
        self.bar = None
        self.offset = 0
        self.done = 0
        if enabled:
            tqdm.monitor_interval = 0  # no monitor thread: worker processes are forked
            self.bar = tqdm(total=total, unit="game", file=sys.stderr, leave=False)

    def side(self, letter: str, offset: int) -> None:
        self.offset = offset
        if self.bar is not None:
            self.bar.set_description(f"side {letter}")

    def __call__(self, done: int, total: int) -> None:
        if self.bar is not None:
            self.bar.update(self.offset + done - self.done)
        self.done = self.offset + done

    def close(self) -> None:
        if self.bar is not None:
            self.bar.close()


def _check_simulation_args(args: argparse.Namespace) -> None:
    """Every option checked before anything is compiled or played."""
    if args.simulate is None:
        given = [o for o in SIMULATION_OPTIONS if getattr(args, o) is not None]
        if given:
            names = ", ".join("--" + o.replace("_", "-") for o in given)
            raise HansaError(f"{names} only apply with --simulate N")
        return
    if args.simulate < 1:
        raise HansaError(f"--simulate: the number of games must be at least 1, got {args.simulate}")
    for option in ("jobs", "max_decisions"):
        value = getattr(args, option)
        if value is not None and value < 1:
            raise HansaError(f"--{option.replace('_', '-')} must be at least 1, got {value}")
    if args.address is not None and args.executor != "ray":
        raise HansaError("--address names a Ray cluster: it applies with --executor ray")
    if args.backend == "native" and args.executor == "ray":
        raise HansaError(
            "--backend native plays in this machine's processes: Ray workers are sent the "
            "Python backend's rule modules (leave out one of --backend native, --executor ray)"
        )
    if args.executor == "ray":
        import_ray()
    if args.players is not None and args.players < 1:
        raise HansaError(f"--players must be at least 1, got {args.players}")
    if args.plot is not None:
        plot = Path(args.plot)
        if plot.suffix.lower() not in PLOT_SUFFIXES:
            raise HansaError(f"--plot: give a .png or .svg file name, not '{args.plot}'")
        if not plot.parent.is_dir():
            raise HansaError(f"--plot: no folder '{plot.parent}' to write into")


def run(args: argparse.Namespace) -> int:
    args._error_exit = 2
    _check_simulation_args(args)
    loader = SpecLoader(args.spec)
    a, b = load_pair(args.a, args.b, args.spec, loader)
    edits = in_authors_words(compare(a, b), a, b)
    a, b = as_shown(a, args.spec), as_shown(b, args.spec)
    edits = [_edit_as_shown(e, args.spec) for e in edits]
    if args.simulate is None:
        _print(_semantic_report(args, edits, a, b))
        return 1 if edits else 0
    return _run_simulation(args, edits, a, b, loader)


def shown_file(file: str, spec_dir: str) -> str:
    """A file as a report shows it: one under the spec folder by its path from there as the user
    named the folder (`spec/bigbox_2021.hansa`, `mine/house.hansa`), a built-in spec file by its
    place in the built-in spec (`built-in:boards/hanseatic_45p.hansa`), others relative to the
    current folder when under it, else as given; never an installation's absolute path."""
    from hansa.compiler import LIBRARY_DIR

    if not file:
        return file
    path = Path(file)
    resolved = path.resolve()
    spec_root = Path(spec_dir).resolve()
    if resolved.is_relative_to(spec_root):
        return (Path(spec_dir) / resolved.relative_to(spec_root)).as_posix()
    if resolved.is_relative_to(LIBRARY_DIR):
        return "built-in:" + resolved.relative_to(LIBRARY_DIR).as_posix()
    if path.is_absolute() and resolved.is_relative_to(Path.cwd()):
        return resolved.relative_to(Path.cwd()).as_posix()
    return file


def _span_as_shown(span: Span | None, spec_dir: str) -> Span | None:
    if span is None or not span.file:
        return span
    return replace(span, file=shown_file(span.file, spec_dir))


def _edit_as_shown(edit: Edit, spec_dir: str) -> Edit:
    return replace(
        edit,
        old_at=_span_as_shown(edit.old_at, spec_dir),
        new_at=_span_as_shown(edit.new_at, spec_dir),
    )


def as_shown(side: Loaded, spec_dir: str) -> Loaded:
    """The side with its file named as `shown_file` names it."""
    return replace(side, side=replace(side.side, file=shown_file(side.side.file, spec_dir)))


def _authors_text(span: Span | None, catalogue: Any) -> str | None:
    """The source text at `span` on one line (its lines joined, runs of blanks made one), or None
    when the source is not at hand."""
    sources = getattr(catalogue, "sources", None) or {}
    text = sources.get(span.file) if span is not None and span.line > 0 else None
    if text is None or not span.end_line:
        return None
    lines = text.split("\n")[span.line - 1 : span.end_line]
    if not lines:
        return None
    lines[-1] = lines[-1][: span.end_column - 1]
    lines[0] = lines[0][span.column - 1 :]
    return " ".join(" ".join(lines).split()) or None


def _as_whole_rule(authored: str | None, normalised: str) -> str | None:
    """An end trigger's own words are one alternative of its `end when … | …` line: given back
    whole, with `end when` and its timing as the normalised text has them."""
    if authored is None or not normalised.startswith("end when ") or authored.startswith("end "):
        return authored
    timing = normalised.rpartition(" after ")[2] if " after " in normalised else ""
    suffix = f" after {timing}" if timing in ("turn", "round") else ""
    return f"end when {authored}" + ("" if authored.endswith(suffix) else suffix)


def in_authors_words(edits: list[Edit], a: Loaded, b: Loaded) -> list[Edit]:
    """Rules in words echoed as their authors wrote them (`is a merchant`, not the normalised
    `= merchant`): each side's summary taken from its own source where the rule is defined."""
    out = []
    for edit in edits:
        if edit.area == "rules in words" and not edit.field:
            old = _authors_text(edit.old_at, a.catalogue) if edit.old_summary else None
            new = _authors_text(edit.new_at, b.catalogue) if edit.new_summary else None
            old = _as_whole_rule(old, edit.old_summary)
            new = _as_whole_rule(new, edit.new_summary)
            edit = replace(
                edit, old_summary=old or edit.old_summary, new_summary=new or edit.new_summary
            )
        out.append(edit)
    return out


def _semantic_report(args: argparse.Namespace, edits: list[Edit], a: Loaded, b: Loaded) -> str:
    from hansa.compiler.diff.edits import format_json, format_markdown, format_text

    if args.format == "json":
        return format_json(edits, a.side, b.side)
    if args.format == "markdown":
        return format_markdown(edits, a.side, b.side)
    return format_text(edits, a.side, b.side, color=_use_color(args.color))


def _print(text: str) -> None:
    sys.stdout.write(text)
    sys.stdout.flush()


def _side_game(module: Any, playable: Any, players: int, backend: str | None) -> Any:
    """One side's compiled module as a game to play: on the Python backend, or bound to its C
    rule module built from the same IR (a side the native target refuses is one error)."""
    if backend != "native":
        return LoadedGame(module, players)
    from hansa.compiler.model.build import build_model
    from hansa.native import native_game

    return native_game(build_model(playable.decl, playable.rules, playable.board), module, players)


def _executor_session(args: argparse.Namespace):
    """With --executor ray, one Ray for both sides (starting a local one costs seconds)."""
    if args.executor != "ray":
        return contextlib.nullcontext()

    return study(args.address, args.jobs)


def _run_simulation(
    args: argparse.Namespace, edits: list[Edit], a: Loaded, b: Loaded, loader: SpecLoader
) -> int:
    """Prepare both sides (every check before the first game), print the semantic diff, play,
    then print the behavioural comparison and draw the plot."""
    from hansa.analysis import behaviour
    from hansa.compiler.diff.edits import format_json

    play_a, play_b = playables(a, b, args, loader)
    counts = behaviour.choose_players(
        play_a.decl.players, play_b.decl.players, args.players, (play_a.label, play_b.label)
    )
    agents = args.agents if args.agents is not None else "greedy"
    behaviour.check_agents(agents, counts)
    root = Path(args.spec).resolve().parent
    games = [
        _side_game(behaviour.compile_playable(p, side, root), p, players, args.backend)
        for p, side, players in zip((play_a, play_b), "ab", counts, strict=True)
    ]
    seed = args.seed if args.seed is not None else 0
    limit = max_decisions(args)
    notes = dict.fromkeys(search_backend_note(game, agents) for game in games)
    for note in filter(None, notes):
        print(note, file=sys.stderr)
    if args.format != "json":
        _print(_semantic_report(args, edits, a, b))
    n = args.simulate
    seats = args.seats or "rotate"
    progress = _Progress(2 * n, enabled=sys.stderr.isatty())
    runs = []
    try:
        with _executor_session(args):
            for offset, letter, playable, game in (
                (0, "A", play_a, games[0]),
                (n, "B", play_b, games[1]),
            ):
                progress.side(letter, offset)
                runs.append(
                    behaviour.play_side(
                        playable,
                        game,
                        n,
                        agents,
                        seed,
                        args.jobs,
                        limit,
                        progress,
                        seats,
                        executor=args.executor or "local",
                        address=args.address,
                    )
                )
    finally:
        progress.close()
    result = behaviour.compare_runs(runs[0], runs[1], seed)
    if args.plot is not None:
        from hansa.analysis.plot import write_plot

        write_plot(result, args.plot)
    if args.format == "json":
        _print(format_json(edits, a.side, b.side, {"simulation": result.to_json()}))
    elif args.format == "markdown":
        _print(behaviour.format_behaviour_markdown(result))
    else:
        _print(behaviour.format_behaviour_text(result, color=_use_color(args.color)))
    if result.unexercised():
        return 3  # they differ, but in something these games never exercised
    return 1 if edits or result.clear else 0
