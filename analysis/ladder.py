"""A rated ladder of agents (`hansa ladder`): games between agents, pairwise results, ratings.

The games are `simulate`'s with `seats="ladder"` (`hansa.play.simulate.ladder_lineups`: every agent
sits every seat equally often over a cycle), so they run on its executors (processes or Ray) and
on the native backend when the game is loaded natively. Each game of P players becomes P(P-1)/2
pairwise results between the seats held by different agents (`pairwise_results`): the game's
winners (after its tie-break chain, `state.winners()`) beat everyone else, the others are ordered
by final PP, and equal standing is a draw — the places of the RL adapters' `"rank"` reward.

The ratings are a Bradley–Terry model fitted to those results by `choix` (`ilsr_pairwise_dense`,
a draw counting half a win to each side, a weak prior `PRIOR` keeping an unbeaten agent's rating
finite), on the Elo scale (400 points: ten-to-one odds), centred on the agents' mean or on an
anchor agent. Pairs inside one game are not independent, so the 95% intervals come from a
bootstrap over whole games (percentiles of `bootstrap` refits, seeded by the run's seed): the
whole report is the same for the same seed, but for what the games cost.
"""

from __future__ import annotations

import csv
import io
import itertools
import math
import random
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

from hansa.play.simulate import (
    DEFAULT_MAX_DECISIONS,
    default_loader,
    derived_seed,
    ladder_agents,
    ladder_lineups,
    make_agent,
    share,
    simulate,
    spread,
    study_cost,
)
from hansa.runtime.errors import HansaError
from hansa.runtime.game import Game

INSTALL_HINT = (
    "hansa ladder fits its ratings with choix, which the core install leaves out: "
    "pip install 'hansa[rl]' (in a checkout: pip install -e '.[rl]')"
)
# Elo points per unit of Bradley–Terry log-strength: 400 points are odds of ten to one.
ELO = 400 / math.log(10)
# choix's regularisation (`alpha`): a prior of this weight pulls the strengths together, enough
# that an agent that never lost keeps a finite rating and too little to move a rating fitted
# from hundreds of results by a point.
PRIOR = 0.01
DEFAULT_BOOTSTRAP = 1000
LEVEL = 0.95


def import_choix():
    """The `choix` module, or one clear error naming the extra to install."""
    try:
        import choix
        import numpy
    except ImportError:
        raise HansaError(INSTALL_HINT) from None
    return choix, numpy


# ---- a game's pairwise results
def places(returns: Sequence[int], winners: Sequence[int]) -> list[int]:
    """Each player's place, 0 first: the winners (after the game's tie-break chain) first, then
    the others by final PP; players with equal standing share a place."""
    standing = [(p in winners, total) for p, total in enumerate(returns)]
    return [sum(1 for other in standing if other > mine) for mine in standing]


def pairwise_results(record: dict) -> list[tuple[str, str, float]]:
    """(agent a, agent b, a's score: 1 won, ½ drew, 0 lost) for every pair of seats a < b of a
    game held by different agents (two seats of one agent are not compared)."""
    names = record["agents"]
    place = places(record["returns"], record["winners"])
    out = []
    for a in range(len(names)):
        for b in range(a + 1, len(names)):
            if names[a] != names[b]:
                score = 1.0 if place[a] < place[b] else 0.0 if place[a] > place[b] else 0.5
                out.append((names[a], names[b], score))
    return out


def score_matrix(agents: Sequence[str], games: Sequence[list[tuple[str, str, float]]]):
    """wins[i][j]: the results agent i scored against agent j (a draw gives each side ½)."""
    index = {name: i for i, name in enumerate(agents)}
    wins = [[0.0] * len(agents) for _ in agents]
    for results in games:
        for a, b, score in results:
            wins[index[a]][index[b]] += score
            wins[index[b]][index[a]] += 1.0 - score
    return wins


def fit_ratings(wins, anchor: int | None = None) -> list[float]:
    """Bradley–Terry ratings on the Elo scale from a square matrix of wins (`score_matrix`, or
    its numpy array), centred on the mean, or on agent `anchor` (its rating 0)."""
    choix, numpy = import_choix()
    matrix = numpy.array(wins, dtype=float)
    try:
        strengths = choix.ilsr_pairwise_dense(matrix, alpha=PRIOR, max_iter=10_000, tol=1e-10)
    except RuntimeError as exc:  # choix's "did not converge": not reached with the prior
        raise HansaError(f"the ratings could not be fitted: {exc}") from None
    ratings = [ELO * float(x) for x in strengths]
    centre = ratings[anchor] if anchor is not None else math.fsum(ratings) / len(ratings)
    return [r - centre for r in ratings]


def expected_score(rating_a: float, rating_b: float) -> float:
    """The share of results a rating difference predicts (the logistic curve on the Elo scale)."""
    return 1 / (1 + 10 ** ((rating_b - rating_a) / 400))


# ---- the ladder
@dataclass
class Ladder:
    """A ladder's games and its fitted ratings; `to_json()` is `hansa ladder --json`."""

    game: str
    players: int
    agents: list[str]
    seed: int
    games: int
    records: list[dict] = field(repr=False)
    bootstrap: int = DEFAULT_BOOTSTRAP
    anchor: str | None = None
    wall_seconds: float = 0.0
    ratings: list[float] = field(default_factory=list)
    low: list[float] = field(default_factory=list)
    high: list[float] = field(default_factory=list)
    above_next: list[float | None] = field(default_factory=list)

    @property
    def cycle(self) -> int:
        """Games in one cycle of lineups; a multiple of it seats every agent evenly."""
        return len(ladder_lineups(self.agents, self.players))

    def fit(self) -> Ladder:
        """The ratings, their bootstrap intervals and how often each beat the next one down."""
        _choix, numpy = import_choix()
        anchor = self.agents.index(self.anchor) if self.anchor is not None else None
        per_game = numpy.array(
            [score_matrix(self.agents, [pairwise_results(r)]) for r in self.records], dtype=float
        ).reshape(len(self.records), len(self.agents), len(self.agents))
        self.ratings = fit_ratings(per_game.sum(axis=0), anchor)
        rng = random.Random(derived_seed("hansa-ladder-bootstrap", self.seed))
        games = len(self.records)
        draws = []
        for _ in range(self.bootstrap if games else 0):
            picked = numpy.bincount([rng.randrange(games) for _ in range(games)], minlength=games)
            draws.append(fit_ratings(numpy.tensordot(picked, per_game, axes=1), anchor))
        tail = (1 - LEVEL) / 2
        columns = [sorted(d[i] for d in draws) for i in range(len(self.agents))]
        self.low = [_quantile(c, tail, r) for c, r in zip(columns, self.ratings, strict=True)]
        self.high = [_quantile(c, 1 - tail, r) for c, r in zip(columns, self.ratings, strict=True)]
        order = self.order()
        self.above_next = [None] * len(self.agents)
        for upper, lower in zip(order, order[1:], strict=False):
            above = sum(1 for d in draws if d[upper] > d[lower])
            self.above_next[upper] = round(above / len(draws), 4) if draws else None
        return self

    def order(self) -> list[int]:
        """Agent indices, best rating first (ties in the order given)."""
        return sorted(range(len(self.agents)), key=lambda i: -self.ratings[i])

    def pairs(self) -> list[dict]:
        """Per pair of agents (in the order given): how many results, the first's wins, draws
        and losses, its score share, and the share the ratings predict."""
        index = {name: i for i, name in enumerate(self.agents)}
        counts: dict[tuple[int, int], list[int]] = {}
        for a, b, score in (x for r in self.records for x in pairwise_results(r)):
            i, j = index[a], index[b]
            if i > j:
                i, j, score = j, i, 1.0 - score
            counts.setdefault((i, j), [0, 0, 0])[{1.0: 0, 0.5: 1, 0.0: 2}[score]] += 1
        out = []
        for i, j in itertools.combinations(range(len(self.agents)), 2):
            won, drew, lost = counts.get((i, j), [0, 0, 0])
            n = won + drew + lost
            out.append(
                {
                    "a": self.agents[i],
                    "b": self.agents[j],
                    "results": n,
                    "a_won": won,
                    "drawn": drew,
                    "a_lost": lost,
                    "a_score": round((won + drew / 2) / n, 4) if n else None,
                    "a_expected": round(expected_score(self.ratings[i], self.ratings[j]), 4),
                }
            )
        return out

    def by_agent(self) -> list[dict]:
        """Per agent, best first: its rating with interval, the seats it held, its first places
        (a shared victory counts 1/k) with a Wilson interval, its mean PP, its pairwise record."""
        results = [pairwise_results(r) for r in self.records]
        wins = score_matrix(self.agents, results)
        rows = []
        for rank, i in enumerate(self.order(), start=1):
            name = self.agents[i]
            seats = [(r, p) for r in self.records for p, a in enumerate(r["agents"]) if a == name]
            first = math.fsum(1 / len(r["winners"]) for r, p in seats if p in r["winners"])
            played = sum(wins[i][j] + wins[j][i] for j in range(len(self.agents)))
            rows.append(
                {
                    "rank": rank,
                    "agent": name,
                    "rating": round(self.ratings[i], 1),
                    "low": round(self.low[i], 1),
                    "high": round(self.high[i], 1),
                    "above_next": self.above_next[i],
                    "games": len({id(r) for r, _p in seats}),
                    "seats": len(seats),
                    "first_places": share(round(first), len(seats)) | {"wins": round(first, 4)},
                    "points": spread([r["returns"][p] for r, p in seats]),
                    "pair_results": round(played),
                    "pair_score": round(sum(wins[i]) / played, 4) if played else None,
                }
            )
        return rows

    def seats_held(self) -> dict[str, list[int]]:
        """Per agent, how many games it sat in each seat (even over whole cycles)."""
        held = {name: [0] * self.players for name in self.agents}
        for r in self.records:
            for seat, name in enumerate(r["agents"]):
                held[name][seat] += 1
        return held

    def cost(self) -> dict[str, float | int]:
        return study_cost(self.records, self.wall_seconds)

    def to_json(self) -> dict:
        return {
            "format": "hansa-ladder",
            "version": 1,
            "game": self.game,
            "players": self.players,
            "agents": self.agents,
            "seed": self.seed,
            "games": self.games,
            "cycle": self.cycle,
            "whole_cycles": self.games % self.cycle == 0,
            "game_seeds": "game i: hansa.play.simulate.game_seed(seed, i)",
            "model": "bradley-terry (choix.ilsr_pairwise_dense), elo scale",
            "prior": PRIOR,
            "centre": self.anchor if self.anchor is not None else "mean",
            "interval": {"level": LEVEL, "method": "bootstrap over games", "draws": self.bootstrap},
            "ratings": self.by_agent(),
            "pairs": self.pairs(),
            "seats_held": self.seats_held(),
            "cost": self.cost(),
        }


def _quantile(values: Sequence[float], q: float, fallback: float) -> float:
    """The q-quantile of sorted `values` (linear between order statistics)."""
    if not values:
        return fallback
    position = q * (len(values) - 1)
    low = math.floor(position)
    high = min(low + 1, len(values) - 1)
    return values[low] + (values[high] - values[low]) * (position - low)


def run_ladder(
    game: str | Game,
    n: int,
    agents: str | Sequence[str],
    players: int | None = None,
    seed: int = 0,
    jobs: int | None = None,
    max_decisions: int | None = DEFAULT_MAX_DECISIONS,
    progress: Callable[[int, int], None] | None = None,
    loader: Callable[[str, int], Game] = default_loader,
    executor: str = "local",
    address: str | None = None,
    bootstrap: int = DEFAULT_BOOTSTRAP,
    anchor: str | None = None,
) -> Ladder:
    """Play `n` ladder games between `agents` (game i: lineup i of `ladder_lineups`, seed
    `game_seed(seed, i)`) on `simulate`'s executor and fit the ratings."""
    names = ladder_agents(agents)
    if anchor is not None and anchor not in names:
        raise HansaError(f"--anchor {anchor!r} is not one of the agents: {', '.join(names)}")
    if isinstance(bootstrap, bool) or not isinstance(bootstrap, int) or bootstrap < 0:
        raise HansaError(f"--bootstrap must be 0 or more, got {bootstrap!r}")
    for name in names:
        make_agent(name, 0)  # a bad agent fails here, before choix is asked for or a game runs
    import_choix()  # the missing extra fails before the games, not after
    study = simulate(
        game,
        n,
        players=players,
        agents=names,
        seed=seed,
        jobs=jobs,
        max_decisions=max_decisions,
        progress=progress,
        loader=loader,
        seats="ladder",
        executor=executor,
        address=address,
    )
    return Ladder(
        game=study.game,
        players=study.players,
        agents=names,
        seed=seed,
        games=n,
        records=study.records,
        bootstrap=bootstrap,
        anchor=anchor,
        wall_seconds=study.wall_seconds,
    ).fit()


# ---- the report as text and CSV
CSV_COLUMNS = (
    "rank",
    "agent",
    "rating",
    "low",
    "high",
    "above_next",
    "games",
    "seats",
    "first_place_share",
    "mean_pp",
    "pair_results",
    "pair_score",
)


def csv_text(report: dict) -> str:
    """One row per agent, best first (`CSV_COLUMNS`); the run's facts are in --json."""
    buffer = io.StringIO()
    writer = csv.writer(buffer, lineterminator="\n")
    writer.writerow(CSV_COLUMNS)
    for row in report["ratings"]:
        writer.writerow(
            [
                row["rank"],
                row["agent"],
                row["rating"],
                row["low"],
                row["high"],
                "" if row["above_next"] is None else row["above_next"],
                row["games"],
                row["seats"],
                row["first_places"]["share"],
                row["points"]["mean"],
                row["pair_results"],
                "" if row["pair_score"] is None else row["pair_score"],
            ]
        )
    return buffer.getvalue()


def report_text(report: dict) -> str:
    """The table a person reads: the ratings with intervals, then the pairs, seats and cost."""
    lines = [
        f"{report['game']}: ladder of {len(report['agents'])} agents, {report['games']} games, "
        f"{report['players']} players, seed {report['seed']} (game i: game_seed(seed, i))",
        f"lineups: a cycle of {report['cycle']} games"
        + (
            ""
            if report["whole_cycles"]
            else " (the games are not a whole number of cycles: the seats are not exactly even)"
        ),
        f"ratings: Bradley–Terry on the Elo scale, 0 = {report['centre']}; "
        f"{round(100 * report['interval']['level'])}% bootstrap intervals over games "
        f"({report['interval']['draws']} draws)",
    ]
    width = max(len("agent"), *(len(r["agent"]) for r in report["ratings"]))
    lines.append(
        f"  {'#':>2}  {'agent':<{width}}  {'rating':>7}  {'95% interval':<17}  {'P(>next)':>8}"
        f"  {'seats':>6}  {'1st places':>17}  {'mean PP':>7}  {'pair score':>10}"
    )
    for row in report["ratings"]:
        first = row["first_places"]
        above = "" if row["above_next"] is None else f"{row['above_next']:.3f}"
        pair = "" if row["pair_score"] is None else f"{100 * row['pair_score']:.1f}%"
        lines.append(
            f"  {row['rank']:>2}  {row['agent']:<{width}}  {row['rating']:>7.1f}  "
            f"{_interval(row):<17}  {above:>8}  {row['seats']:>6}  "
            f"{100 * first['share']:5.1f}% [{100 * first['low']:4.1f}–{100 * first['high']:5.1f}]"
            f"  {row['points']['mean']:>7.1f}  {pair:>10}"
        )
    lines.append("pairs (results: won–drawn–lost of the first; score against the ratings' odds):")
    for pair in report["pairs"]:
        if pair["results"]:
            lines.append(
                f"  {pair['a']} vs {pair['b']}: {pair['a_won']}–{pair['drawn']}–{pair['a_lost']}"
                f" of {pair['results']}, {100 * pair['a_score']:.1f}%"
                f" (predicted {100 * pair['a_expected']:.1f}%)"
            )
        else:
            lines.append(f"  {pair['a']} vs {pair['b']}: never met")
    for pair in report["pairs"]:
        if pair["results"] and pair["drawn"] == 0 and 0 in (pair["a_won"], pair["a_lost"]):
            best, worst = (pair["a"], pair["b"]) if pair["a_won"] else (pair["b"], pair["a"])
            lines.append(
                f"  note: {best} won every result against {worst}: the gap between their"
                " ratings is held finite by the fit's weak prior and is a lower bound"
            )
    lines.append("seats held (games per seat):")
    for name, held in report["seats_held"].items():
        lines.append(f"  {name}: {' '.join(str(n) for n in held)}")
    cost = report["cost"]
    lines.append(
        f"cost: {cost['cpu_seconds']:.1f} CPU s ({cost['cpu_seconds_per_game']:.3g} CPU s per "
        f"game), {cost['wall_seconds']:.1f} s wall"
    )
    return "\n".join(lines) + "\n"


def _interval(row: dict) -> str:
    return f"[{row['low']:.1f}, {row['high']:.1f}]"
