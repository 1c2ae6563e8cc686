"""`hansa simulate`'s balance flags and cost: seat win rates against an even share (Wilson
intervals, exact binomial tests, Holm-corrected), and the end triggers, cities, routes and bonus
markers a run never saw end, completed, created or used (docs/play.md, "Balance flags")."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from hansa.play.simulate import balance_report, binomial_p, holm
from play_support import run_cli

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture
def early_end(tmp_path: Path, monkeypatch) -> Path:
    """A spec folder with a house rule ending the game at 3 track PP: no city is ever complete,
    most routes are never created and the other end triggers never end a game."""
    spec = tmp_path / "myspec"
    spec.mkdir()
    (spec / "early.hansa").write_text(
        'rules early_end "Big Box, ending at 3 PP" extends bigbox_2021 {\n'
        "    end when track_pp >= 3\n"
        "}\n"
        "game early-end-45p = early_end on hanseatic_45p players 4..5\n",
        encoding="utf-8",
    )
    monkeypatch.chdir(tmp_path)
    return spec


def test_a_game_ending_at_3_pp_flags_what_never_happened(capsys, early_end) -> None:
    args = ["simulate", "early-end-45p", "--spec", "myspec", "-n", "3", "--players", "4", "-j", "1"]
    code, out, err = run_cli(capsys, *args, "--json")
    assert code == 0, err
    report = json.loads(out)
    balance = report["balance"]
    never = balance["never"]
    assert set(never["end_triggers"]) == {"completed_cities", "marker_supply_empty"}
    assert len(never["cities_completed"]) > 20 and "Hamburg" in never["cities_completed"]
    assert never["routes_created"] and all("–" in name for name in never["routes_created"])
    flags = balance["flags"]
    assert any(f.startswith("end triggers that never ended a game in 3 games") for f in flags)
    assert any(f.startswith("cities never completed in 3 games") for f in flags)
    assert any(f.startswith("routes never created in 3 games") for f in flags)
    # three games cannot show a seat off an even share, whatever they show
    assert not any(f.startswith("seat ") for f in flags)
    assert [row["clear"] for row in balance["seats"]] == [False] * 4
    assert balance["even_share"] == 0.25
    for row in balance["seats"]:
        assert row["low"] <= row["share"] <= row["high"] and row["p"] <= row["p_holm"] <= 1
    cost = report["cost"]
    assert cost["games"] == 3 and cost["cpu_seconds"] > 0 and cost["wall_seconds"] > 0
    code, out, err = run_cli(capsys, *args)
    assert code == 0, err
    assert "Balance flags:\n  - end triggers that never ended a game in 3 games (2 of 3)" in out
    assert "seat win rates against an even share of 25.0%" in out
    assert "CPU ms per decision" in out and out.splitlines()[-1].startswith("cost: ")


def test_no_flags_reads_none(capsys, monkeypatch) -> None:
    """Records where every seat wins its share and everything happened: "none"."""
    from hansa.commands.simulate import print_balance

    records = [
        {
            "winners": [i % 4],
            "end_trigger": "track_pp",
            "cities_completed": ["X"],
            "routes_created": [0],
            "decisions": 10,
        }
        for i in range(8)
    ]
    usage = {"marker:m": {"total": 3}}
    balance = balance_report(records, 4, ["track_pp"], ["X"], ["X–Y"], ["m"], usage)
    assert balance["flags"] == []
    import io

    out = io.StringIO()
    print_balance(balance, out)
    assert out.getvalue().splitlines()[-1] == "Balance flags: none"


def test_a_seat_that_wins_every_game_is_flagged() -> None:
    records = [
        {"winners": [0], "end_trigger": "track_pp", "cities_completed": [], "routes_created": []}
        for _ in range(40)
    ]
    balance = balance_report(records, 4, ["track_pp"], [], [], [], {})
    seats = balance["seats"]
    assert seats[0]["clear"] and seats[0]["share"] == 1.0
    assert seats[1]["clear"]  # never winning in 40 games is off an even share too (0.75^40)
    assert balance["flags"][0].startswith("seat 0 won 100.0% of 40 games")
    assert "more than an even share of 25.0%" in balance["flags"][0]
    assert "less than an even share" in balance["flags"][1]


def test_the_exact_binomial_test_and_holm() -> None:
    assert binomial_p(4, 4, 0.25) == pytest.approx(0.25**4)  # nothing is as unlikely
    assert binomial_p(1, 4, 0.25) == pytest.approx(1.0)  # the likeliest outcome
    assert binomial_p(5, 10, 0.5) == pytest.approx(1.0)
    assert binomial_p(9, 10, 0.5) == pytest.approx(22 / 1024)  # 0, 1, 9, 10 of 10
    assert holm([0.01, 0.04, 0.03]) == pytest.approx([0.03, 0.06, 0.06])
