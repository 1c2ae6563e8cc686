"""Behavioural diff: play the same seeded games under two sides and say, with tests, what moves.

`hansa diff A B --simulate N` answers "does this change play differently?". Each side is compiled
in memory from its IR (so an uncommitted house rule, or a spec newer than `generated/`, is played as
written), then N games are played under each side by `hansa.play.simulate.simulate` with the same
agents and the same per-game seeds. Every measure is compared side by side with 95% intervals:

- means (game length, PP per player by scoring category, total and winner's PP): the unit is one
  game (a category's PP averaged over the game's players, since players of one game are not
  independent); interval mean ± t·s/√n; difference tested with Welch's t (unequal variances), whose
  95% interval is reported for B − A;
- shares (end triggers, win rate by seat): Wilson intervals per side; difference tested with the
  pooled two-proportion z-test, with Newcombe's hybrid score interval for B − A.

A difference is *clear* when its Holm-adjusted p-value is below `ALPHA` (0.05): Holm's step-down
correction over all comparisons of the run keeps the chance of flagging any difference that is not
there at 5% (family-wise), however many measures are compared.
"""

from __future__ import annotations

import math
import multiprocessing
import textwrap
import time
import types
import warnings
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from statistics import NormalDist
from typing import Any

from hansa.compiler.errors import HansaError
from hansa.compiler.nodes.board import Board
from hansa.compiler.nodes.rules import Game, RuleSet, mangle_module_name
from hansa.compiler.targets.python.codegen import build_game_module, module_from_text
from hansa.play.simulate import (
    USAGE_GROUPS,
    make_agent,
    parse_agents,
    simulate,
    study_cost,
    usage_table,
)

ALPHA = 0.05
CONFIDENCE = 0.95
WELCH = "welch_t"
TWO_PROPORTION = "two_proportion_z"
GROUPS = {
    "length": "game length",
    "end": "end of game (share of games each trigger ended)",
    "points": "PP per player",
    "wins": "win rate by seat (a shared win counts 1/k)",
}


# --------------------------------------------------------------------------------------------------
# What is played on each side


@dataclass(frozen=True)
class Playable:
    """One side made playable: a game declaration with its resolved rule set and its board.

    `label` says what it is in reports ("game 'bigbox-hanseatic-45p'", "rules 'short_game' on
    board 'hanseatic_45p'"); `sources` (file → text) only feeds the module's header hash.
    """

    label: str
    decl: Game
    rules: RuleSet
    board: Board
    sources: dict[str, str] = field(default_factory=dict, compare=False)


def compile_playable(playable: Playable, side: str, root: Path | None = None) -> types.ModuleType:
    """The rule module of one side, generated and executed in memory (nothing is written).

    The module gets a name of its own (`hansa.generated._diff_a_…`), never that of a committed
    module: code that finds a module by its name must not pick up `generated/`'s copy instead.
    """
    text = build_game_module(playable.decl, playable.rules, playable.board, playable.sources, root)
    name = f"hansa.generated._diff_{side}_{mangle_module_name(playable.decl.name)}"
    return module_from_text(text, name, f"{playable.decl.name} (side {side.upper()})")


def choose_players(
    a: tuple[int, ...], b: tuple[int, ...], wanted: int | None, names: tuple[str, str]
) -> tuple[int, int]:
    """The player count of each side: `wanted` on both, else the smallest count both allow, else
    (sides without a common count, e.g. a 3-player and a 4–5-player board) each its smallest."""
    if wanted is not None:
        for counts, name in ((a, names[0]), (b, names[1])):
            if wanted not in counts:
                allowed = ", ".join(str(n) for n in counts)
                raise HansaError(f"--players {wanted}: {name} is played by {allowed} players")
        return wanted, wanted
    common = sorted(set(a) & set(b))
    if common:
        return common[0], common[0]
    return min(a), min(b)


# --------------------------------------------------------------------------------------------------
# Statistics


def _t_quantile(df: float) -> float:
    from scipy import stats

    return float(stats.t.ppf(0.5 + CONFIDENCE / 2, df))


def mean_summary(values: Sequence[float]) -> dict[str, float]:
    """n, mean, sample standard deviation and the 95% t interval of the mean."""
    n = len(values)
    mean = math.fsum(values) / n
    sd = math.sqrt(math.fsum((v - mean) ** 2 for v in values) / (n - 1)) if n > 1 else 0.0
    half = _t_quantile(n - 1) * sd / math.sqrt(n) if n > 1 else 0.0
    return {"n": n, "mean": mean, "sd": sd, "low": mean - half, "high": mean + half}


def welch(a: Sequence[float], b: Sequence[float]) -> tuple[dict[str, float], float | None]:
    """B − A with its 95% Welch interval, and the two-sided p-value of Welch's t-test.

    Samples without spread on both sides have no t statistic: different constants are certain
    (p = 0); the same constant on both sides (a category nobody scores) says nothing and is not
    tested (None), so it does not dilute the correction. One game a side cannot be tested (None).
    """
    diff = math.fsum(b) / len(b) - math.fsum(a) / len(a)
    if len(a) < 2 or len(b) < 2:
        return {"value": diff, "low": diff, "high": diff}, None
    if _constant(a) and _constant(b):
        return {"value": diff, "low": diff, "high": diff}, None if diff == 0 else 0.0

    from scipy import stats

    with warnings.catch_warnings():  # nearly constant samples: scipy warns, the result stands
        warnings.simplefilter("ignore", RuntimeWarning)
        result = stats.ttest_ind(b, a, equal_var=False)
        ci = result.confidence_interval(CONFIDENCE)
    return {"value": diff, "low": float(ci.low), "high": float(ci.high)}, float(result.pvalue)


def _constant(values: Sequence[float]) -> bool:
    return all(v == values[0] for v in values)


def wilson(count: float, n: int) -> dict[str, float]:
    """A share with its Wilson 95% interval (`hansa.play.simulate.share`, unrounded here)."""
    z = NormalDist().inv_cdf(0.5 + CONFIDENCE / 2)
    p = count / n
    centre = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / (1 + z * z / n)
    return {
        "n": n,
        "count": count,
        "share": p,
        "low": max(0.0, centre - half),
        "high": min(1.0, centre + half),
    }


def two_proportion(
    a: dict[str, float], b: dict[str, float]
) -> tuple[dict[str, float], float | None]:
    """B − A for two Wilson shares: Newcombe's hybrid score interval and the pooled z-test p
    (None when both sides are 0% or both 100%: nothing to test)."""
    diff = b["share"] - a["share"]
    low = diff - math.sqrt((b["share"] - b["low"]) ** 2 + (a["high"] - a["share"]) ** 2)
    high = diff + math.sqrt((b["high"] - b["share"]) ** 2 + (a["share"] - a["low"]) ** 2)
    pooled = (a["count"] + b["count"]) / (a["n"] + b["n"])
    se = math.sqrt(pooled * (1 - pooled) * (1 / a["n"] + 1 / b["n"]))
    if se == 0:
        p = None
    else:
        p = 2 * (1 - NormalDist().cdf(abs(diff) / se))
    return {"value": diff, "low": max(-1.0, low), "high": min(1.0, high)}, p


POWER = 0.8


def _z_sum() -> float:
    """z(1 − α/2) + z(power): 1.96 + 0.84 for a two-sided 5% test with 80% power."""
    normal = NormalDist()
    return normal.inv_cdf(1 - ALPHA / 2) + normal.inv_cdf(POWER)


def detectable_mean(a: dict[str, float], b: dict[str, float]) -> tuple[float | None, int | None]:
    """The smallest B − A in a mean that n₁ and n₂ games detect at ALPHA with POWER,
    (z + z)·√(s₁²/n₁ + s₂²/n₂), and the games per side that would detect half of it
    (n = (z + z)²·(s₁² + s₂²)/(d/2)²). None without spread: nothing to scale."""
    var = a["sd"] ** 2 / a["n"] + b["sd"] ** 2 / b["n"]
    if var == 0:
        return None, None
    d = _z_sum() * math.sqrt(var)
    return d, _whole(_z_sum() ** 2 * (a["sd"] ** 2 + b["sd"] ** 2) / (d / 2) ** 2)


def detectable_share(a: dict[str, float], b: dict[str, float]) -> tuple[float | None, int | None]:
    """The same for a share, by the two-proportion normal approximation with the pooled share
    p̄: (z + z)·√(p̄(1 − p̄)(1/n₁ + 1/n₂)); half of it needs (z + z)²·2p̄(1 − p̄)/(d/2)² games
    per side."""
    pooled = (a["count"] + b["count"]) / (a["n"] + b["n"])
    var = pooled * (1 - pooled)
    if var == 0:
        return None, None
    d = _z_sum() * math.sqrt(var * (1 / a["n"] + 1 / b["n"]))
    return d, _whole(_z_sum() ** 2 * 2 * var / (d / 2) ** 2)


def _whole(games: float) -> int:
    """Games rounded up, but not for a rounding error (4 × 20 games is 80, not 81)."""
    return math.ceil(games - 1e-9)


def holm(p_values: Sequence[float]) -> list[float]:
    """Holm's step-down adjusted p-values (same order as given): reject where adjusted < α."""
    m = len(p_values)
    order = sorted(range(m), key=lambda i: p_values[i])
    adjusted = [1.0] * m
    running = 0.0
    for rank, i in enumerate(order):
        running = max(running, min(1.0, (m - rank) * p_values[i]))
        adjusted[i] = running
    return adjusted


# --------------------------------------------------------------------------------------------------
# Runs and comparisons


@dataclass
class SideRun:
    """The games played under one side and what its module calls its scoring categories."""

    playable: Playable
    players: int
    agents: list[str]
    records: list[dict]
    categories: list[tuple[str, str]]  # (key, kind) in module order: ("A", "track"), …
    seconds: float
    elements: dict[str, str] = field(default_factory=dict)  # play/simulate.py usage_elements
    seats: str = "fixed"  # "rotate": agents that differ rotated over the seats game by game
    by_agent: dict[str, dict] = field(default_factory=dict)  # SimulationResult.by_agent()

    def usage(self) -> dict[str, dict]:

        return usage_table(self.records, self.elements)

    @property
    def games(self) -> int:
        return len(self.records)

    def cost(self) -> dict[str, float | int]:
        """CPU seconds of this side's games (summed over workers) and its wall time."""

        return study_cost(self.records, self.seconds)


@dataclass
class Comparison:
    """One measure on both sides. `kind` is "mean" or "share"; `a`/`b` are None on a side that
    lacks the measure (a scoring category or seat only one side has); then nothing is tested."""

    group: str
    measure: str
    label: str
    kind: str
    a: dict[str, float] | None
    b: dict[str, float] | None
    difference: dict[str, float] | None = None
    test: str | None = None
    p: float | None = None
    p_holm: float | None = None
    clear: bool = False
    # the smallest B − A these games would detect (5% two-sided, 80% power) and the games per
    # side that would detect half of it; None where nothing is tested or nothing varies
    detectable: float | None = None
    games_for_half: int | None = None

    def to_json(self) -> dict:
        return {
            "group": self.group,
            "measure": self.measure,
            "label": self.label,
            "kind": self.kind,
            "a": _rounded(self.a),
            "b": _rounded(self.b),
            "difference": _rounded(self.difference),
            "test": self.test,
            "p": _round(self.p, 6),
            "p_holm": _round(self.p_holm, 6),
            "clear": self.clear,
            "detectable_difference": _round(self.detectable),
            "games_for_half": self.games_for_half,
        }


def _round(value: float | None, digits: int = 4) -> float | None:
    return None if value is None else round(float(value), digits)


def _rounded(stat: dict[str, float] | None) -> dict[str, float] | None:
    if stat is None:
        return None
    return {k: (v if k in ("n",) else _round(v)) for k, v in stat.items()}


@dataclass
class BehaviourDiff:
    """Both runs and every comparison, in report order."""

    a: SideRun
    b: SideRun
    seed: int
    comparisons: list[Comparison]

    def differing(self) -> list[str]:
        """The usage keys of the elements only one side has (a bonus marker, a rule in words, a
        scoring category, an end trigger, …), in report order; action kinds are left out."""
        a, b = self.a.elements, self.b.elements
        keys = [k for k in a if k not in b] + [k for k in b if k not in a]
        return [k for k in dict.fromkeys(keys) if not k.startswith("action:")]

    def unexercised(self) -> list[dict]:
        """The differing elements that never applied in the games of the side that has them:
        the comparison says nothing about them."""
        out = []
        for key in self.differing():
            for letter, run in (("A", self.a), ("B", self.b)):
                if key in run.elements:
                    row = run.usage()[key]
                    if row["total"] == 0:
                        out.append(
                            {
                                "key": key,
                                "side": letter,
                                "label": row["label"],
                                "games": run.games,
                                "text": never_text(row, run.games, letter),
                            }
                        )
        return out

    def applied_unclear(self) -> list[dict]:
        """The differing elements that did apply in their side's games while no compared figure
        differs clearly: they were exercised, but their effect is not shown by these games
        (unlike `unexercised`, about which the games say nothing at all)."""
        if self.clear:
            return []
        out = []
        for key in self.differing():
            for letter, run in (("A", self.a), ("B", self.b)):
                if key in run.elements:
                    row = run.usage()[key]
                    if row["total"] > 0:
                        out.append(
                            {
                                "key": key,
                                "side": letter,
                                "label": row["label"],
                                "games": run.games,
                                "games_applied": row["games"]["count"],
                                "text": unclear_text(row, run.games, letter),
                            }
                        )
        return out

    def divergence(self) -> dict[str, float | int | None]:
        """Game i of A and game i of B start alike (same seed, same seats): how many of these
        pairs differ at all, and from which decision (1-based: the first whose player or action
        differs, or the first one only the longer game has), on average over the pairs that
        differ. None for the counts when a side's records carry no moves."""
        pairs = list(zip(self.a.records, self.b.records, strict=False))
        if any("moves" not in r for pair in pairs for r in pair):
            return {
                "paired_games": len(pairs),
                "diverged_games": None,
                "mean_divergence_decision": None,
            }
        firsts = [first_difference(ra["moves"], rb["moves"]) for ra, rb in pairs]
        diverged = [f for f in firsts if f is not None]
        return {
            "paired_games": len(pairs),
            "diverged_games": len(diverged),
            "mean_divergence_decision": _round(_mean(diverged), 2) if diverged else None,
        }

    @property
    def clear(self) -> list[Comparison]:
        return [c for c in self.comparisons if c.clear]

    @property
    def tested(self) -> int:
        return sum(1 for c in self.comparisons if c.p is not None)

    def to_json(self) -> dict:
        """The `simulation` object of `hansa diff --simulate --format json` (docs/diff.md)."""
        return {
            "games": self.a.games,
            "seed": self.seed,
            "confidence": CONFIDENCE,
            "alpha": ALPHA,
            "correction": "holm",
            "tests": {"mean": WELCH, "share": TWO_PROPORTION},
            "a": _side_json(self.a),
            "b": _side_json(self.b),
            "comparisons": [c.to_json() for c in self.comparisons],
            "tested": self.tested,
            "clear_differences": len(self.clear),
            "usage": {"a": self.a.usage(), "b": self.b.usage()},
            "differing_elements": self.differing(),
            "never_applied": self.unexercised(),
            "applied_no_clear_difference": self.applied_unclear(),
            **self.divergence(),
            "cost": {"a": self.a.cost(), "b": self.b.cost()},
        }


USAGE_VERBS = {
    "marker": "used",
    "permanent": "used",
    "category": "scored",
    "end": "fired",
    "rule": "applied",
    "action": "taken",
}


def never_text(row: dict, games: int, side: str = "B") -> str:
    """ "'Guild charter' (only side B has it) was never used in any of the 1,000 games: these
    results say nothing about it"."""
    verb = USAGE_VERBS.get(row["group"], "used")
    games_text = "the one game" if games == 1 else f"any of the {games:,} games"
    return (
        f"'{row['label']}' (only side {side} has it) was never {verb} in {games_text}: "
        "these results say nothing about it"
    )


def unclear_text(row: dict, games: int, side: str = "B") -> str:
    """ "'Guild charter' (only side B has it) was used in 812 of 1,000 games, but no compared
    figure differs clearly: any effect it has is too small for these games to show"."""
    verb = USAGE_VERBS.get(row["group"], "used")
    return (
        f"'{row['label']}' (only side {side} has it) was {verb} in {row['games']['count']:,} of "
        f"{games:,} games, but no compared figure differs clearly: any effect it has is too "
        "small for these games to show (which is not evidence of no effect)"
    )


def first_difference(a: Sequence, b: Sequence) -> int | None:
    """The 1-based index of the first decision where two games' (player, action) differ, or
    the first one only the longer game has; None for the very same game."""
    for i, (x, y) in enumerate(zip(a, b, strict=False)):
        if list(x) != list(y):
            return i + 1
    return None if len(a) == len(b) else min(len(a), len(b)) + 1


def _side_json(run: SideRun) -> dict:
    return {
        "label": run.playable.label,
        "game": run.playable.decl.name,
        "rules": run.playable.rules.name,
        "board": run.playable.board.id,
        "players": run.players,
        "agents": run.agents,
        "seats": run.seats,
        "by_agent": run.by_agent,
    }


def play_side(
    playable: Playable,
    game: Any,
    games: int,
    agents: str,
    seed: int,
    jobs: int | None,
    max_decisions: int,
    progress: Callable[[int, int], None] | None = None,
    seats: str = "rotate",
    executor: str = "local",
    address: str | None = None,
) -> SideRun:
    """Play `games` seeded games of one side's compiled `game` (a `hansa.Game`).

    The module exists only in this process: local worker processes must be forked to inherit it
    (a spawned worker would load the committed module of the same name, or none), so without
    fork the games are played here; Ray workers are sent the module's text.
    """

    if executor == "local" and "fork" not in multiprocessing.get_all_start_methods():
        jobs = 1
    started = time.perf_counter()
    result = simulate(
        game,
        games,
        agents=agents,
        seed=seed,
        jobs=jobs,
        max_decisions=max_decisions,
        progress=progress,
        seats=seats,
        executor=executor,
        address=address,
        record_moves=True,  # to pair game i of A with game i of B (`BehaviourDiff.divergence`)
    )
    seconds = time.perf_counter() - started
    ns = vars(game.module)
    categories = list(zip(ns["SCORE_KEYS"], ns["SCORE_KINDS"], strict=True))
    players = game.num_players()
    return SideRun(
        playable,
        players,
        list(result.agents),
        result.records,
        categories,
        seconds,
        result.elements,
        result.seats,
        result.by_agent(),
    )


def check_agents(agents: str, players: tuple[int, int]) -> None:
    """Fail before any game is played: unknown agent, or one per seat for the wrong seat count."""

    for count in players:
        for name in set(parse_agents(agents, count)):
            make_agent(name, 0)


def compare_runs(a: SideRun, b: SideRun, seed: int = 0) -> BehaviourDiff:
    """Every measure side by side, tested, with Holm's correction over the tested ones."""
    comparisons = [
        _means("length", "turns", "turns", a, b, lambda r: r["turns"]),
        _means("length", "rounds", "rounds (turns per player)", a, b, _rounds),
        _means("length", "decisions", "decisions", a, b, lambda r: r["decisions"]),
    ]
    triggers = sorted({t for run in (a, b) for r in run.records for t in _triggers(r)})
    for trigger in triggers:
        comparisons.append(
            _shares("end", f"end:{trigger}", trigger, a, b, lambda r, t=trigger: t in _triggers(r))
        )
    categories = list(dict.fromkeys(a.categories + b.categories))
    categories.sort(key=lambda kc: (kc[0], kc[1]))
    for key, kind in categories:
        comparisons.append(
            _means(
                "points",
                f"points:{key}:{kind}",
                f"{key} {kind}",
                a if (key, kind) in a.categories else None,
                b if (key, kind) in b.categories else None,
                lambda r, k=key: _per_player(r, k),
            )
        )
    comparisons.append(
        _means("points", "points:total", "total", a, b, lambda r: _mean(r["returns"]))
    )
    comparisons.append(
        _means("points", "points:winner", "winner's PP", a, b, lambda r: max(r["returns"]))
    )
    for seat in range(max(a.players, b.players)):
        comparisons.append(
            _shares(
                "wins",
                f"wins:seat{seat}",
                f"seat {seat}",
                a if seat < a.players else None,
                b if seat < b.players else None,
                lambda r, s=seat: _win_value(r, s),
                tested=a.players == b.players,  # else the even shares (1/P) differ already
            )
        )
    tested = [c for c in comparisons if c.p is not None]
    for c, adjusted in zip(tested, holm([c.p for c in tested]), strict=True):
        c.p_holm = adjusted
        c.clear = adjusted < ALPHA
    return BehaviourDiff(a, b, seed, comparisons)


def _triggers(record: dict) -> list[str]:
    return record["end_trigger"].split("+")


def _rounds(record: dict) -> float:
    return record["turns"] / record["players"]


def _mean(values: Sequence[float]) -> float:
    return math.fsum(values) / len(values)


def _per_player(record: dict, key: str) -> float:
    return _mean([scores[key] for scores in record["breakdown"]])


def _win_value(record: dict, seat: int) -> float:
    winners = record["winners"]
    return 1.0 / len(winners) if seat in winners else 0.0


def _means(
    group: str,
    measure: str,
    label: str,
    a: SideRun | None,
    b: SideRun | None,
    value: Callable[[dict], float],
) -> Comparison:
    va = [value(r) for r in a.records] if a else None
    vb = [value(r) for r in b.records] if b else None
    c = Comparison(
        group,
        measure,
        label,
        "mean",
        mean_summary(va) if va else None,
        mean_summary(vb) if vb else None,
    )
    if va and vb:
        c.difference, c.p = welch(va, vb)
        c.test = WELCH if c.p is not None else None
    if c.test is not None:
        c.detectable, c.games_for_half = detectable_mean(c.a, c.b)
    return c


def _shares(
    group: str,
    measure: str,
    label: str,
    a: SideRun | None,
    b: SideRun | None,
    value: Callable[[dict], float],
    tested: bool = True,
) -> Comparison:
    sa = wilson(math.fsum(value(r) for r in a.records), a.games) if a else None
    sb = wilson(math.fsum(value(r) for r in b.records), b.games) if b else None
    c = Comparison(group, measure, label, "share", sa, sb)
    if sa and sb:
        c.difference = two_proportion(sa, sb)[0]
    if sa and sb and tested:
        c.difference, c.p = two_proportion(sa, sb)
        c.test = TWO_PROPORTION if c.p is not None else None
    if c.test is not None:
        c.detectable, c.games_for_half = detectable_share(c.a, c.b)
    return c


# --------------------------------------------------------------------------------------------------
# Reports


def _digits(c: Comparison) -> int:
    """Turns and decisions read in tenths; PP per player in hundredths."""
    return 1 if c.group == "length" else 2


def _number(value: float, kind: str, signed: bool = False, digits: int = 2) -> str:
    if kind == "share":
        text = f"{100 * value:+.1f}%" if signed else f"{100 * value:.1f}%"
    else:
        text = f"{value:+.{digits}f}" if signed else f"{value:.{digits}f}"
    return text.replace("-", "−")


def stat_text(stat: dict[str, float] | None, kind: str, digits: int = 2) -> str:
    """`12.40 [11.85, 12.95]` or `41.0% [35.2%, 47.1%]`; `—` for a side without the measure."""
    if stat is None:
        return "—"
    centre = stat["share"] if kind == "share" else stat["mean"]
    low, high = (_number(stat[k], kind, digits=digits) for k in ("low", "high"))
    return f"{_number(centre, kind, digits=digits)} [{low}, {high}]"


def difference_text(c: Comparison) -> str:
    if c.difference is None:
        return "—"
    d = c.difference
    value, low, high = (_number(d[k], c.kind, True, _digits(c)) for k in ("value", "low", "high"))
    return f"{value} [{low}, {high}]"


def p_text(p: float | None) -> str:
    if p is None:
        return "—"
    return "<0.001" if p < 0.001 else f"{p:.3f}"


def method_text(result: BehaviourDiff) -> str:
    """What the numbers are and what "clear" means, for every report format."""
    return (
        "mean or share per side and B − A, each with its 95% interval; B − A tested with "
        "Welch's t (means) and a two-proportion z-test (shares); "
        f"* clear = Holm-adjusted p < {ALPHA} over the {result.tested} comparisons "
        f"(family-wise error rate {ALPHA})"
    )


def _side_line(letter: str, run: SideRun) -> str:
    line = (
        f"  {letter}: {run.playable.label}, {run.players} players, "
        f"agents {agents_text(run.agents)}\n     {cost_text(run.cost())}"
    )
    if len(run.by_agent) > 1:
        rotated = "seats rotating" if run.seats == "rotate" else "seats fixed"
        wins = ", ".join(
            f"{name} {100 * row['win_rate']['mean']:.1f}% ± {100 * row['win_rate']['ci95']:.1f}"
            for name, row in run.by_agent.items()
        )
        line += f"\n     {rotated}; win rate per seat held: {wins}"
    return line


def cost_text(cost: dict) -> str:
    """ "cost: 20.1 CPU s (0.0503 CPU s per game, 0.14 CPU ms per decision), 12.5 s wall"."""
    return (
        f"cost: {cost['cpu_seconds']:.1f} CPU s ({cost['cpu_seconds_per_game']:.3g} CPU s per "
        f"game, {1000 * cost['cpu_seconds_per_decision']:.3g} CPU ms per decision), "
        f"{cost['wall_seconds']:.1f} s wall"
    )


def divergence_text(result: BehaviourDiff) -> str:
    """ "paired games (same seed and seats on both sides): 412 of 500 diverged, from decision
    37 on average"."""
    d = result.divergence()
    head = "paired games (same seed and seats on both sides): "
    if d["diverged_games"] is None:
        return head + f"{d['paired_games']}, moves not recorded"
    text = head + f"{d['diverged_games']} of {d['paired_games']} diverged"
    if d["mean_divergence_decision"] is not None:
        text += f", from decision {d['mean_divergence_decision']:.0f} on average"
    return text


def detectable_text(c: Comparison) -> str:
    """The detectable difference of one comparison in its own units: "4.1" or "6.3%"."""
    if c.detectable is None:
        return "—"
    return _number(c.detectable, c.kind, digits=_digits(c))


def detectable_lines(comparisons: Sequence[Comparison], games: int) -> list[str]:
    """One wrapped line per figure group: the smallest difference these games would detect
    (5% two-sided, 80% power) per figure, and the games per side for half of it."""

    rows = [c for c in comparisons if c.detectable is not None]
    if not rows:
        return []
    halves = sorted({c.games_for_half for c in rows})
    half = f"{halves[0]:,}" if len(halves) == 1 else f"{halves[0]:,}–{halves[-1]:,}"
    items = ", ".join(f"{c.label} {detectable_text(c)}" for c in rows)
    text = (
        f"detectable with {games:,} games (5%, 80% power): {items}; "
        f"half of that: ~{half} games per side"
    )
    return textwrap.wrap(text, 106, initial_indent="    ", subsequent_indent="      ")


def agents_text(agents: Sequence[str]) -> str:
    return agents[0] + " in every seat" if len(set(agents)) == 1 else ", ".join(agents)


def format_behaviour_text(result: BehaviourDiff, color: bool = False) -> str:
    """The side-by-side table under the semantic diff's text report."""

    def paint(text: str, code: str) -> str:
        return f"\033[{code}m{text}\033[0m" if color else text

    a, b = result.a, result.b
    lines = [
        "",
        paint(f"behaviour: {a.games} games per side, seed {result.seed}", "1"),
        _side_line("A", a),
        _side_line("B", b),
        "  " + divergence_text(result),
        *textwrap.wrap(method_text(result), 98, initial_indent="  ", subsequent_indent="  "),
    ]
    rows = [
        (
            c,
            c.label,
            stat_text(c.a, c.kind, _digits(c)),
            stat_text(c.b, c.kind, _digits(c)),
            difference_text(c),
        )
        for c in result.comparisons
    ]
    widths = [max([len(r[i]) for r in rows] + [5]) for i in range(1, 5)]
    lines.append("")
    lines.append(
        paint(
            f"  {'':<{widths[0]}}  {'A':<{widths[1]}}  {'B':<{widths[2]}}  "
            f"{'B − A':<{widths[3]}}  Holm p",
            "1",
        )
    )
    group = None
    for c, label, sa, sb, diff in rows:
        if c.group != group:
            if group is not None:
                lines += detectable_lines(
                    [x for x in result.comparisons if x.group == group], a.games
                )
            group = c.group
            lines.append(paint(GROUPS[group], "1"))
        line = (
            f"  {label:<{widths[0]}}  {sa:<{widths[1]}}  {sb:<{widths[2]}}  "
            f"{diff:<{widths[3]}}  {p_text(c.p_holm)}"
        )
        lines.append(paint(line + "  *", "33") if c.clear else line.rstrip())
    if group is not None:
        lines += detectable_lines([x for x in result.comparisons if x.group == group], a.games)
    lines.append("")
    lines.extend(paint(line, "1") if i == 0 else line for i, line in enumerate(usage_lines(result)))
    for item in result.unexercised():
        lines.append(paint(f"warning: side {item['side']}: {item['text']}", "33"))
    for item in result.applied_unclear():
        lines += textwrap.wrap(
            f"note: side {item['side']}: {item['text']}", 108, subsequent_indent="  "
        )
    lines.append("")
    lines.append(summary_text(result))
    return "\n".join(lines) + "\n"


def usage_rows(result: BehaviourDiff) -> list[tuple[str, str, str, str, bool]]:
    """(group, label, A, B, differs) per element other than action kinds, both sides' union:
    uses per game and the games it was used in, "—" on a side without it."""
    ua, ub = result.a.usage(), result.b.usage()
    differing = set(result.differing())
    rows = []

    order = list(USAGE_GROUPS)
    keys = sorted(set(ua) | set(ub), key=lambda k: (order.index(k.split(":", 1)[0]), k))
    for key in keys:
        group = key.split(":", 1)[0]
        if group == "action":
            continue
        row = ua.get(key) or ub[key]
        cells = []
        for usage, run in ((ua, result.a), (ub, result.b)):
            item = usage.get(key)
            if item is None or (key not in run.elements and not item["total"]):
                cells.append("—")
            else:
                stat, used = item["per_game"], item["games"]["count"]
                cells.append(f"{stat['mean']:.2f} ± {stat['ci95']:.2f} ({used}/{run.games})")
        rows.append((group, row["label"], cells[0], cells[1], key in differing))
    return rows


def usage_lines(result: BehaviourDiff) -> list[str]:

    rows = usage_rows(result)
    if not rows:
        return []
    width = min(max(len(r[1]) for r in rows), 60)
    wa = max(len(r[2]) for r in rows)
    lines = ["which elements applied (per game ± 95% CI, games used in; * only one side has it)"]
    group = None
    for g, label, a, b, differs in rows:
        if g != group:
            group = g
            lines.append(f" {USAGE_GROUPS[g]}")
        label = label if len(label) <= width else label[: width - 1] + "…"
        lines.append(f"  {label:<{width}}  {a:<{wa}}  {b}{'  *' if differs else ''}")
    return lines


def summary_text(result: BehaviourDiff) -> str:
    clear = result.clear
    if not clear:
        return f"no clear behavioural difference ({result.tested} comparisons)"
    names = ", ".join(f"{GROUPS[c.group].split(' (')[0]}: {c.label}" for c in clear)
    word = "difference" if len(clear) == 1 else "differences"
    return f"{len(clear)} clear behavioural {word}: {names}"


def format_behaviour_markdown(result: BehaviourDiff) -> str:
    """A table to paste below the semantic diff's markdown table."""
    a, b = result.a, result.b
    lines = [
        "",
        f"**Behaviour:** {a.games} games per side, seed {result.seed}  ",
        f"**A:** {a.playable.label}, {a.players} players, agents {agents_text(a.agents)}  ",
        f"**B:** {b.playable.label}, {b.players} players, agents {agents_text(b.agents)}  ",
        f"**Cost:** A {cost_text(a.cost()).removeprefix('cost: ')}; "
        f"B {cost_text(b.cost()).removeprefix('cost: ')}  ",
        f"**Paired games** {divergence_text(result).removeprefix('paired games ')}  ",
        method_text(result),
        "",
        "| group | measure | A | B | B − A | Holm p | clear | detectable | games for half |",
        "|---|---|---|---|---|---|---|---|---|",
    ]
    for c in result.comparisons:
        cells = [
            GROUPS[c.group].split(" (")[0],
            c.label,
            stat_text(c.a, c.kind, _digits(c)),
            stat_text(c.b, c.kind, _digits(c)),
            difference_text(c),
            p_text(c.p_holm),
            "**yes**" if c.clear else "",
            detectable_text(c),
            f"{c.games_for_half:,}" if c.games_for_half is not None else "—",
        ]
        lines.append("| " + " | ".join(x.replace("|", "\\|") for x in cells) + " |")
    rows = usage_rows(result)
    if rows:
        lines += [
            "",
            "**Which elements applied** (per game ± 95% CI, games used in):",
            "",
            "| group | element | A | B | only one side |",
            "|---|---|---|---|---|",
        ]

        for g, label, a, b, differs in rows:
            cells = [USAGE_GROUPS[g], label, a, b, "yes" if differs else ""]
            lines.append("| " + " | ".join(x.replace("|", "\\|") for x in cells) + " |")
    unexercised = result.unexercised()
    if unexercised:
        lines.append("")
        lines += [f"**Warning:** side {item['side']}: {item['text']}  " for item in unexercised]
    unclear = result.applied_unclear()
    if unclear:
        lines.append("")
        lines += [f"**Note:** side {item['side']}: {item['text']}  " for item in unclear]
    lines.append("")
    lines.append(summary_text(result))
    return "\n".join(lines) + "\n"


def lengths(run: SideRun, key: str = "turns") -> list[float]:
    """One value per game, for the plot's distributions."""
    return [float(r[key]) for r in run.records]
