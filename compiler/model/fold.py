"""What every builder of the model shares: the `GameModel` it fills, the `Fold` it reads and writes
(one game's inputs, the model so far, and the few indices several builders need), and the helpers
for errors and source locations."""

from __future__ import annotations

from dataclasses import dataclass, field

from ..errors import HansaError, Span
from ..nodes.board import Board
from ..nodes.rules import Game, RuleSet, mangle_module_name


@dataclass
class GameModel:
    """The tables and the component selection one generated module is rendered from: the contract
    between the compiler and every code-generation target (docs/architecture.md, "The model").

    `constants` are named tables of plain values (ints, strings, booleans, tuples of those), in
    the order a target writes them; `components` are the switches and choices that select code
    (booleans, strings, tuples, and `scoring`/`expr_functions`, see the docs); `origins` give the
    spec location ("file:line") of each component; `layout` is the action-id layout as
    (kind, first id, count)."""

    game: str
    module_name: str
    rules: str
    board: str
    players: tuple[int, ...]
    sources: tuple[str, ...]
    constants: dict[str, object] = field(default_factory=dict)
    components: dict[str, object] = field(default_factory=dict)
    origins: dict[str, str] = field(default_factory=dict)  # component → "file:line"
    layout: list[tuple[str, int, int]] = field(default_factory=list)  # (kind, base, size)


@dataclass
class Fold:
    """One game being folded into its model. Builders run in the order `build.BUILDERS` gives;
    each reads the inputs and what earlier builders wrote, and adds its own tables."""

    game: Game
    rules: RuleSet
    board: Board
    model: GameModel
    # city name or alias → city index (written by the board builder)
    city_index: dict[str, int] = field(default_factory=dict)
    # rules in words the prelude's kinds expand to (end triggers, scoring), compiled with the
    # rule set's own rules in words
    prelude_rules: list = field(default_factory=list)
    # per-player parameters a prelude kind's parameter starts (`pp as city PP`)
    settable_defaults: dict[str, int] = field(default_factory=dict)
    # scoring categories as (key, kind, params), and tie-break quantities written in words
    categories: list[tuple[str, str, dict]] = field(default_factory=list)
    tie_exprs: list = field(default_factory=list)
    # the first marker type written in words (`when a marker is used`)
    first_rule_marker: int = 0

    @classmethod
    def start(cls, game: Game, rules: RuleSet, board: Board) -> Fold:
        model = GameModel(
            game=game.name,
            module_name=mangle_module_name(game.name),
            rules=rules.name,
            board=board.id,
            players=tuple(game.players),
            sources=tuple(rules.sources),
        )
        return cls(game, rules, board, model)

    @property
    def k(self) -> dict[str, object]:
        """The model's constants (named tables)."""
        return self.model.constants

    @property
    def comp(self) -> dict[str, object]:
        """The model's components (switches and choices)."""
        return self.model.components

    @property
    def origins(self) -> dict[str, str]:
        return self.model.origins


def where(span: Span) -> str:
    """`file:line` of a component for the comments in generated code (a validated literal)."""
    if span is None or span.line <= 0:
        return ""
    text = f"{span.file}:{span.line}"
    # Only characters that cannot end a comment line or confuse a reader reach the module.
    return "".join(ch if ch.isprintable() and ch not in "\r\n" else "?" for ch in text)


def error(message: str, span: Span | None) -> HansaError:
    """The model's one error: located at the spec text when there is a real location."""
    return HansaError(message, span if span is not None and span.line > 0 else None)
