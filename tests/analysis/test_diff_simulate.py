"""`hansa diff A B --simulate N`: the behavioural diff (few greedy games, so the suite stays fast).

The command is run in-process on the real spec; the statistics helpers are checked against values
worked out by hand; plots are parsed (SVG) or checked by signature (PNG).
"""

from __future__ import annotations

import itertools
import json
import math
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest
from hansa.analysis.behaviour import (
    ALPHA,
    Playable,
    SideRun,
    compare_runs,
    holm,
    mean_summary,
    two_proportion,
    welch,
    wilson,
)
from hansa.analysis.plot import write_plot
from hansa.compiler.nodes.board import Board
from hansa.compiler.nodes.rules import Game, RuleSet
from hansa.play.simulate import share
from hypothesis import given, settings
from hypothesis import strategies as st
from play_support import needs_c_compiler, without_cost

from hansa.cli import main

ROOT = Path(__file__).resolve().parents[2]
SHORT = "short-hanseatic-45p"  # house rule: the game ends at 15 PP on the track instead of 20
BIGBOX = "bigbox-hanseatic-45p"
PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"


@pytest.fixture(autouse=True)
def at_repo_root(monkeypatch):
    monkeypatch.chdir(ROOT)


def run_diff(capsys, *args: str) -> tuple[int, str, str]:
    code = main(["diff", *args])
    out = capsys.readouterr()
    return code, out.out, out.err


def json_diff(capsys, *args: str) -> tuple[int, dict]:
    code, out, err = run_diff(capsys, *args, "--format", "json")
    assert err == ""  # no progress bar when standard error is not a terminal
    return code, json.loads(out)


@pytest.fixture(scope="module")
def short_vs_bigbox() -> dict[str, tuple[int, str]]:
    """The house rule against its edition, 20 games a side, with one and with two processes."""
    import contextlib
    import io
    import os

    out: dict[str, tuple[int, str]] = {}
    here = os.getcwd()
    os.chdir(ROOT)
    try:
        for jobs in ("1", "2"):
            buffer = io.StringIO()
            with contextlib.redirect_stdout(buffer):
                code = main(
                    ["diff", SHORT, BIGBOX, "--simulate", "20", "--jobs", jobs, "--format", "json"]
                )
            out[jobs] = (code, buffer.getvalue())
    finally:
        os.chdir(here)
    return out


# ---- statistics, against hand-worked values


def test_holm_adjusts_step_down_and_keeps_order() -> None:
    # sorted 0.01, 0.02, 0.04, 0.3 → ×4, ×3, ×2, ×1 → 0.04, 0.06, 0.08, 0.3 (monotone)
    assert holm([0.04, 0.01, 0.3, 0.02]) == pytest.approx([0.08, 0.04, 0.3, 0.06])
    assert holm([0.5, 0.5]) == [1.0, 1.0]  # capped at 1
    assert holm([]) == []


def test_two_proportion_z_test_and_newcombe_interval() -> None:
    a, b = wilson(30, 100), wilson(50, 100)
    diff, p = two_proportion(a, b)
    # pooled 0.4, se = sqrt(0.4·0.6·(2/100)) = 0.069282, z = 0.2/se = 2.88675
    assert p == pytest.approx(2 * (1 - 0.998054), abs=1e-5)
    assert diff["value"] == pytest.approx(0.2)
    assert diff["low"] < 0.2 < diff["high"] and diff["low"] > 0  # clearly positive
    assert two_proportion(wilson(0, 10), wilson(0, 10))[1] is None  # nothing to test


def test_wilson_agrees_with_the_runtime_share() -> None:
    for count, n in ((0, 7), (3, 10), (10, 10), (412, 1000)):
        mine, theirs = wilson(count, n), share(count, n)
        for key in ("share", "low", "high"):
            assert round(mine[key], 4) == theirs[key]


def test_welch_on_known_samples() -> None:
    a, b = [1.0, 2.0, 3.0, 4.0], [2.0, 3.0, 4.0, 5.5]
    diff, p = welch(a, b)
    # t = (3.625 − 2.5) / sqrt(1.6667/4 + 2.2292/4) = 1.13994, Welch df = 5.877
    assert diff["value"] == pytest.approx(1.125)
    assert p == pytest.approx(0.298625, abs=1e-5)
    assert diff["low"] < 0 < diff["high"]
    assert welch([2.0, 2.0], [2.0, 2.0])[1] is None  # the same constant: not tested
    assert welch([2.0, 2.0], [3.0, 3.0])[1] == 0.0  # different constants: certain
    assert welch([2.0], [3.0])[1] is None  # one game a side
    summary = mean_summary([1.0, 2.0, 3.0, 4.0])
    # mean 2.5, sd 1.29099, t(0.975, 3) = 3.18245 → half-width 2.0543
    assert summary["low"] == pytest.approx(2.5 - 2.05426, abs=1e-4)


# ---- the command


def test_json_shape(short_vs_bigbox) -> None:
    code, text = short_vs_bigbox["1"]
    doc = json.loads(text)
    assert code == 1
    assert doc["schema_version"] == 1 and doc["edits"]  # the semantic diff is still there
    sim = doc["simulation"]
    assert sim["games"] == 20 and sim["seed"] == 0
    assert sim["alpha"] == ALPHA and sim["correction"] == "holm"
    assert sim["tests"] == {"mean": "welch_t", "share": "two_proportion_z"}
    for side, game in (("a", SHORT), ("b", BIGBOX)):
        assert sim[side]["game"] == game and sim[side]["players"] == 4
        assert sim[side]["agents"] == ["greedy"] * 4
        assert sim[side]["board"] == "hanseatic_45p"
    groups = [c["group"] for c in sim["comparisons"]]
    assert groups == sorted(groups, key=["length", "end", "points", "wins"].index)
    measures = {c["measure"] for c in sim["comparisons"]}
    assert {"turns", "rounds", "decisions", "end:track_pp", "points:A:track", "points:total"} <= (
        measures
    )
    assert {f"wins:seat{s}" for s in range(4)} <= measures
    keys = {"group", "measure", "label", "kind", "a", "b", "difference", "test", "p", "p_holm"}
    for c in sim["comparisons"]:
        assert keys | {"clear", "detectable_difference", "games_for_half"} == set(c)
        centre = "share" if c["kind"] == "share" else "mean"
        for side in ("a", "b"):
            assert c[side]["low"] <= c[side][centre] <= c[side]["high"]
            assert c[side]["n"] == 20
        if c["p"] is not None:
            assert c["p"] <= c["p_holm"] <= 1
            assert c["clear"] == (c["p_holm"] < ALPHA)
            assert c["test"] == ("welch_t" if c["kind"] == "mean" else "two_proportion_z")
        if c["detectable_difference"] is not None:
            assert c["p"] is not None and c["detectable_difference"] > 0
            assert c["games_for_half"] == 80  # four times 20 games, for equal sides
    assert sim["tested"] == sum(c["p"] is not None for c in sim["comparisons"])
    assert sim["clear_differences"] == sum(c["clear"] for c in sim["comparisons"])
    wins = [c["a"]["share"] for c in sim["comparisons"] if c["group"] == "wins"]
    assert math.isclose(sum(wins), 1.0, abs_tol=1e-3)  # every game has its winner(s)


def test_cost_and_paired_games_in_the_json(short_vs_bigbox) -> None:
    sim = json.loads(short_vs_bigbox["1"][1])["simulation"]
    for side in ("a", "b"):
        cost = sim["cost"][side]
        assert cost["games"] == 20 and cost["cpu_seconds"] > 0 and cost["wall_seconds"] > 0
        assert cost["cpu_seconds_per_game"] == pytest.approx(cost["cpu_seconds"] / 20, rel=1e-2)
        assert cost["cpu_seconds_per_decision"] * cost["decisions"] == pytest.approx(
            cost["cpu_seconds"], rel=1e-2
        )
    # the track threshold differs, so the games part once a player reaches 15 PP
    assert sim["paired_games"] == 20 and sim["diverged_games"] == 20
    assert sim["mean_divergence_decision"] > 1


def test_one_and_two_jobs_give_identical_results(short_vs_bigbox) -> None:
    (code_one, one), (code_two, two) = short_vs_bigbox["1"], short_vs_bigbox["2"]
    assert code_one == code_two
    assert without_cost(one) == without_cost(two)  # the CPU and wall seconds vary by run


def test_a_shorter_game_is_flagged(short_vs_bigbox) -> None:
    """Ending at 15 track PP instead of 20: B (the edition) plays longer and scores more track
    PP; the tests must see it even in 20 games, and nothing may be flagged the other way."""
    sim = json.loads(short_vs_bigbox["1"][1])["simulation"]
    by = {c["measure"]: c for c in sim["comparisons"]}
    clear = {m for m, c in by.items() if c["clear"]}
    assert clear & {"turns", "decisions", "points:A:track"}
    for measure in ("turns", "rounds", "decisions", "points:A:track"):
        assert by[measure]["difference"]["value"] > 0
        if by[measure]["clear"]:
            assert by[measure]["difference"]["low"] > 0


def test_a_game_against_itself_flags_nothing(capsys) -> None:
    code, doc = json_diff(
        capsys, BIGBOX, f"spec/games.hansa:{BIGBOX}", "--simulate", "6", "--jobs", "1"
    )
    assert code == 0 and doc["equal"]
    sim = doc["simulation"]
    assert sim["clear_differences"] == 0
    for c in sim["comparisons"]:
        assert c["a"] == c["b"]  # same seeds, same rules: the very same games
        assert c["p"] in (None, 1.0) and not c["clear"]
    assert (sim["paired_games"], sim["diverged_games"]) == (6, 0)  # no pair ever parts
    assert sim["mean_divergence_decision"] is None


def test_text_report_prints_the_semantic_diff_first(capsys) -> None:
    code, out, err = run_diff(
        capsys, "spec/house/short_game.hansa", "bigbox_2021", "--simulate", "4", "--jobs", "1"
    )
    assert code == 1 and err == ""
    assert out.index("end trigger 'track_pp': threshold 15 → 20") < out.index("behaviour:")
    assert "A: rules 'short_game' on board 'hanseatic_45p', 4 players" in out
    assert "Welch's t" in out and "Holm" in out
    assert "turns" in out and "seat 3" in out and "A track" in out
    assert (
        "paired games (same seed and seats on both sides): 4 of 4 diverged, from decision " in out
    )
    assert "detectable with 4 games (5%, 80% power): turns " in out
    assert "half of that: ~16 games per side" in out
    assert out.count("CPU ms per decision") == 2  # the cost of each side
    assert max(len(line) for line in out.splitlines()) <= 112


def test_markdown_report(capsys) -> None:
    code, out, _err = run_diff(
        capsys, SHORT, BIGBOX, "--simulate", "3", "--jobs", "1", "--format", "markdown"
    )
    assert "| area | change |" in out
    head = "| group | measure | A | B | B − A | Holm p | clear | detectable | games for half |"
    assert head in out
    assert "**Cost:** A " in out and "**Paired games** (same seed" in out
    assert out.index("| area |") < out.index("| group |")
    assert "| game length | turns |" in out


def test_uncommitted_house_rule_is_compiled_in_memory(capsys, tmp_path) -> None:
    """A rule set in a file outside spec/ with no game: it is played where its edition is."""
    house = tmp_path / "tiny.hansa"
    house.write_text(
        'rules tiny "ends at 8 PP" extends bigbox_2021 {\n    end when track_pp >= 8\n}\n',
        encoding="utf-8",
    )
    # bigbox_2021 is played on every board side: the command asks which one
    code, out, err = run_diff(capsys, str(house), "bigbox_2021", "--simulate", "3")
    assert code == 2 and out == ""
    assert "hanseatic_3p, hanseatic_45p" in err and "--board" in err
    code, doc = json_diff(
        capsys, str(house), "bigbox_2021", "--simulate", "4", "--board", "hanseatic_45p", "-j", "1"
    )
    assert code == 1
    sim = doc["simulation"]
    assert sim["a"]["label"] == "rules 'tiny' on board 'hanseatic_45p'"
    assert sim["a"]["game"] == "tiny-on-hanseatic_45p" and sim["b"]["game"] == BIGBOX
    turns = next(c for c in sim["comparisons"] if c["measure"] == "turns")
    assert turns["a"]["mean"] < turns["b"]["mean"]
    # --players narrows the boards, but three sides are played by 4: still ask
    code, out, err = run_diff(
        capsys, str(house), "bigbox_2021", "--simulate", "2", "--players", "4"
    )
    assert code == 2 and "britannia_45p, eastern, hanseatic_45p" in err


def test_two_boards_with_different_player_counts(capsys) -> None:
    code, out, err = run_diff(capsys, "hanseatic_3p", "hanseatic_45p", "--simulate", "2")
    assert code == 2 and "--rules" in err
    code, doc = json_diff(
        capsys,
        "hanseatic_3p",
        "hanseatic_45p",
        "--simulate",
        "3",
        "--rules",
        "bigbox_2021",
        "-j",
        "1",
    )
    assert code == 1
    sim = doc["simulation"]
    assert (sim["a"]["players"], sim["b"]["players"]) == (3, 4)
    assert (sim["a"]["game"], sim["b"]["game"]) == ("bigbox-hanseatic-3p", BIGBOX)
    seat3 = next(c for c in sim["comparisons"] if c["measure"] == "wins:seat3")
    assert seat3["a"] is None and seat3["b"] is not None and seat3["p"] is None
    seat0 = next(c for c in sim["comparisons"] if c["measure"] == "wins:seat0")
    assert seat0["difference"] is not None and seat0["p"] is None  # 1/3 against 1/4


def test_plot_svg_is_written(capsys, tmp_path) -> None:
    target = tmp_path / "diff.svg"
    code, _out, _err = run_diff(
        capsys, SHORT, BIGBOX, "--simulate", "3", "-j", "1", "--plot", str(target)
    )
    assert code == 1
    root = ET.parse(target).getroot()
    assert root.tag.endswith("svg")
    text = target.read_text(encoding="utf-8")
    assert "short-hanseatic-45p" in text and "win rate by seat" in text
    assert sorted(p.name for p in tmp_path.iterdir()) == ["diff.svg"]  # no temporary left


def _fake_run(label: str, players: int, turns: list[int], track: list[int]) -> SideRun:
    game = Game(name=label, rules="r", board="b", players=(players,))
    playable = Playable(f"game '{label}'", game, RuleSet(name="r"), Board(id="b", title="b"))
    records = []
    for i, (t, a) in enumerate(zip(turns, track, strict=True)):
        breakdown = [{"A": a + p, "B": 0} for p in range(players)]
        records.append(
            {
                "seed": i,
                "players": players,
                "returns": [sum(b.values()) for b in breakdown],
                "breakdown": breakdown,
                "winners": [i % players],
                "end_trigger": "track_pp" if t < 90 else "track_pp+completed_cities",
                "turns": t,
                "decisions": 4 * t,
            }
        )
    return SideRun(
        playable, players, ["greedy"] * players, records, [("A", "track"), ("B", "x")], 0
    )


def test_plot_png_from_runs_with_different_player_counts(tmp_path) -> None:
    a = _fake_run("three", 3, [60 + i for i in range(20)], [10] * 10 + [11] * 10)
    b = _fake_run("four", 4, [95 + i for i in range(20)], [14] * 10 + [15] * 10)
    result = compare_runs(a, b, seed=5)
    assert {c.measure for c in result.clear} >= {"turns", "points:A:track"}
    target = tmp_path / "diff.png"
    write_plot(result, target)
    assert target.read_bytes()[:8] == PNG_SIGNATURE
    assert target.stat().st_size > 20_000  # a real figure, not an empty canvas


def test_failed_plot_leaves_nothing_behind(tmp_path) -> None:
    from hansa.compiler.errors import HansaError

    a = _fake_run("a", 4, list(range(80, 90)), [10] * 10)
    result = compare_runs(a, a)
    (tmp_path / "taken.png").mkdir()  # a folder where the picture should go
    with pytest.raises(HansaError, match="cannot write"):
        write_plot(result, tmp_path / "taken.png")
    assert [p.name for p in tmp_path.iterdir()] == ["taken.png"]


@pytest.mark.parametrize(
    ("args", "fragment"),
    [
        ((SHORT, BIGBOX, "--simulate", "0"), "at least 1"),
        ((SHORT, BIGBOX, "--simulate", "-4"), "at least 1"),
        ((SHORT, BIGBOX, "--simulate", "2", "--agents", "nobody"), "unknown agent"),
        ((SHORT, BIGBOX, "--simulate", "2", "--agents", "greedy,greedy"), "2 agents"),
        ((SHORT, "hanseatic_45p", "--simulate", "2"), "cannot compare a game"),
        ((SHORT, BIGBOX, "--simulate", "2", "--players", "3"), "played by 4, 5 players"),
        ((SHORT, BIGBOX, "--simulate", "2", "--jobs", "0"), "--jobs must be at least 1"),
        ((SHORT, BIGBOX, "--simulate", "2", "--plot", "out.pdf"), ".png or .svg"),
        ((SHORT, BIGBOX, "--simulate", "2", "--plot", "no/such/dir/x.png"), "no folder"),
        ((SHORT, BIGBOX, "--simulate", "2", "--board", "hanseatic_45p"), "not rule sets"),
        (("original_2009", "bigbox_2021", "--simulate", "2"), "choose one with --board"),
        (("original_2009", "bigbox_2021", "--simulate", "2", "--board", "nowhere"), "nowhere"),
        ((SHORT, BIGBOX, "--players", "4"), "only apply with --simulate"),
        ((SHORT, BIGBOX, "--backend", "native"), "only apply with --simulate"),
        ((SHORT, BIGBOX, "--simulate", "2", "--backend", "native", "--executor", "ray"), "Ray"),
    ],
)
def test_errors_exit_2(capsys, args, fragment) -> None:
    code, out, err = run_diff(capsys, *args)
    assert code == 2, err
    assert fragment in err
    assert "Traceback" not in err and "behaviour:" not in out


def test_non_number_of_games_is_a_usage_error(capsys) -> None:
    with pytest.raises(SystemExit) as exc:
        main(["diff", SHORT, BIGBOX, "--simulate", "many"])
    assert exc.value.code == 2


class _Terminal:
    """A standard error that says it is a terminal (tqdm only needs write/flush)."""

    def __init__(self) -> None:
        self.parts: list[str] = []

    def isatty(self) -> bool:
        return True

    def write(self, text: str) -> int:
        self.parts.append(text)
        return len(text)

    def flush(self) -> None:
        pass


def test_progress_bar_only_on_a_terminal(monkeypatch, capsys) -> None:
    terminal = _Terminal()
    monkeypatch.setattr("sys.stderr", terminal)
    code = main(["diff", SHORT, BIGBOX, "--simulate", "2", "-j", "1", "--format", "json"])
    assert code == 1
    shown = "".join(terminal.parts)
    # set_description redraws at once (the counts between are throttled by tqdm's clock)
    assert "side A" in shown and "side B" in shown and "2/4" in shown
    assert json.loads(capsys.readouterr().out)["simulation"]["games"] == 2  # stdout stays clean


def test_modified_copy_of_an_edition_keeps_its_own_rules(capsys, tmp_path) -> None:
    """A copy of bigbox_2021 with a later end: both sides are named bigbox_2021 and play the
    spec's game bigbox-hanseatic-45p, yet each side must play its own rules."""
    text = (ROOT / "spec" / "bigbox_2021.hansa").read_text(encoding="utf-8")
    assert "track_pp >= 20" in text
    copy = tmp_path / "bigbox_2021.hansa"
    copy.write_text(text.replace("track_pp >= 20", "track_pp >= 26"), encoding="utf-8")
    code, doc = json_diff(
        capsys,
        str(copy),
        "bigbox_2021",
        "--simulate",
        "4",
        "--players",
        "4",
        "--board",
        "hanseatic_45p",
        "-j",
        "1",
    )
    assert code == 1 and len(doc["edits"]) == 1
    sim = doc["simulation"]
    assert sim["a"]["game"] == sim["b"]["game"] == BIGBOX
    turns = next(c for c in sim["comparisons"] if c["measure"] == "turns")
    assert turns["a"]["mean"] > turns["b"]["mean"]  # the copy's games run longer


def test_json_comparisons_have_exactly_the_documented_keys(short_vs_bigbox) -> None:
    from docs_support import documented_keys

    documented = documented_keys("### JSON")
    documented |= {"a", "b", "p", "p_holm"}  # documented two to a row
    sim = json.loads(short_vs_bigbox["1"][1])["simulation"]
    assert all(set(c) == documented for c in sim["comparisons"])


@settings(max_examples=60, deadline=None)
@given(st.lists(st.floats(min_value=0.0, max_value=1.0), max_size=25))
def test_holm_is_monotone_and_never_below_the_raw_p(p_values) -> None:
    adjusted = holm(p_values)
    for p, q in zip(p_values, adjusted, strict=True):
        assert p <= q <= 1.0
    for i, j in itertools.combinations(range(len(p_values)), 2):
        if p_values[i] <= p_values[j]:
            assert adjusted[i] <= adjusted[j]


@settings(max_examples=60, deadline=None)
@given(st.integers(1, 200), st.integers(1, 200), st.data())
def test_swapping_sides_negates_the_difference(n_a, n_b, data) -> None:
    a = wilson(data.draw(st.integers(0, n_a)), n_a)
    b = wilson(data.draw(st.integers(0, n_b)), n_b)
    forward, p_forward = two_proportion(a, b)
    backward, p_backward = two_proportion(b, a)
    assert forward["value"] == pytest.approx(-backward["value"])
    assert forward["low"] == pytest.approx(-backward["high"])
    assert p_forward == p_backward
    assert forward["low"] <= forward["value"] <= forward["high"]


def test_in_memory_module_plays_like_the_committed_one(capsys) -> None:
    """The side compiled in memory plays the very games `hansa simulate` plays with generated/."""
    from hansa.play.simulate import simulate

    import hansa

    committed = simulate(hansa.load_game(BIGBOX, players=4), 4, seed=3, jobs=1).to_json()
    code, doc = json_diff(capsys, BIGBOX, BIGBOX, "--simulate", "4", "--seed", "3", "-j", "1")
    assert code == 0
    by = {c["measure"]: c for c in doc["simulation"]["comparisons"]}
    assert by["turns"]["a"]["mean"] == pytest.approx(committed["turns"]["mean"], abs=1e-4)
    assert by["decisions"]["a"]["mean"] == pytest.approx(committed["decisions"]["mean"], abs=1e-4)
    track = committed["points_by_category"]["A"]["mean"]
    assert by["points:A:track"]["a"]["mean"] == pytest.approx(track, abs=1e-4)


@needs_c_compiler
def test_the_native_backend_plays_both_sides_as_the_python_one(
    short_vs_bigbox, capsys, monkeypatch
) -> None:
    """Both sides compiled in memory and bound to C rule modules built from the same IR: the
    very same games, so the very same report."""
    import hansa.native

    built = []
    real = hansa.native.native_game
    monkeypatch.setattr(
        hansa.native, "native_game", lambda *a, **k: built.append(a[1].GAME_NAME) or real(*a, **k)
    )
    code, out, err = run_diff(
        capsys,
        SHORT,
        BIGBOX,
        "--simulate",
        "20",
        "--jobs",
        "2",
        "--format",
        "json",
        "--backend",
        "native",
    )
    assert err == ""
    assert built == [SHORT, BIGBOX]
    assert code == short_vs_bigbox["1"][0]
    assert without_cost(out) == without_cost(short_vs_bigbox["1"][1])  # CPU seconds vary


@needs_c_compiler
def test_a_side_the_native_target_refuses_is_one_error(capsys, tmp_path) -> None:
    house = tmp_path / "no_op.hansa"
    house.write_text(
        'rules no_op "no-op actions legal" extends bigbox_2021 {\n'
        "    option no_op_actions = legal\n}\n"
        "game no-op-hanseatic-45p = no_op on hanseatic_45p players 4..5\n",
        encoding="utf-8",
    )
    args = [f"{house}:no-op-hanseatic-45p", BIGBOX, "--simulate", "2", "--backend", "native"]
    code, out, err = run_diff(capsys, *args)
    assert code == 2
    assert "cannot be built natively" in err and "no_op_actions" in err
    assert err.count("\n") == 1 and "Traceback" not in err
    assert "behaviour:" not in out  # no game was played


def test_detectable_differences_by_hand() -> None:
    """(1.95996 + 0.84162)·√(10²/20 + 10²/20) = 8.8594; half of it takes four times the games."""
    from hansa.analysis.behaviour import detectable_mean, detectable_share

    side = {"n": 20, "mean": 50.0, "sd": 10.0}
    d, half = detectable_mean(side, side)
    assert d == pytest.approx(2.80158 * math.sqrt(10.0), abs=1e-3) and half == 80
    assert detectable_mean(side | {"sd": 0.0}, side | {"sd": 0.0}) == (None, None)
    # pooled share 0.5 over 100 + 100 games: 2.80158·√(0.25·0.02) = 0.1981
    d, half = detectable_share({"n": 100, "count": 40}, {"n": 100, "count": 60})
    assert d == pytest.approx(0.19810, abs=1e-4) and half == 400
    assert detectable_share({"n": 10, "count": 0}, {"n": 10, "count": 0}) == (None, None)
