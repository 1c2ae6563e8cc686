"""Which rules fired: `simulate` counts, per game, each action kind, bonus marker, permanent marker,
scoring category, end trigger and rule in words (by source location); `diff --simulate` compares
them and says so when an element only one side has never applied."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from hansa.play.simulate import make_agents, play_game, simulate, usage_elements
from play_support import run_cli, without_cost

import hansa

ROOT = Path(__file__).resolve().parents[2]
USAGE_KEYS = {"group", "label", "total", "per_game", "games"}


def test_a_words_marker_and_its_rule_count_the_games_uses_not_the_agents_tries():
    """The greedy agent tries each Guild charter use on copies of the game (RULE_FIRED counts
    there too); the record counts only the uses the game applied."""
    game = hansa.load_game("guild-charter-hanseatic-45p", players=4)
    base = vars(game.module)["A_USE_MARKER"]
    charter = list(vars(game.module)["MARKER_LABELS"]).index("Guild charter")
    for seed in range(2):
        record, _state = play_game(game, make_agents(["greedy"] * 4, seed), seed, record_moves=True)
        uses = sum(1 for _p, a in record.moves if a == base + charter)
        assert uses >= 1
        assert record.usage["marker:Guild charter"] == uses
        assert record.usage["rule:spec/house/guild_charter.hansa:4"] == uses
        assert record.usage["action:USE_MARKER"] == sum(
            1 for _p, a in record.moves if base <= a < base + len(vars(game.module)["MARKER_KEYS"])
        )
        assert sum(v for k, v in record.usage.items() if k.startswith("action:")) == len(
            record.moves
        )


def test_a_setup_hook_a_category_and_an_end_rule_count_where_they_applied():
    last_seat = hansa.load_game("last-seat-book-hanseatic-45p", players=4)
    record, _ = play_game(last_seat, make_agents(["greedy"] * 4, 1), 1)
    assert record.usage["rule:spec/house/last_seat_book.hansa:3"] == 1  # the last seat only
    harbour = hansa.load_game("harbour-master-hanseatic-45p", players=4)
    record, _ = play_game(harbour, make_agents(["greedy"] * 4, 1), 1)
    scoring = sum(1 for row in record.breakdown if row["G"])
    assert scoring and record.usage["category:G"] == scoring
    assert record.usage["rule:spec/house/harbour_master.hansa:5"] == scoring
    short = hansa.load_game("short-hanseatic-45p", players=4)
    record, _ = play_game(short, make_agents(["greedy"] * 4, 2), 2)
    for name in record.end_trigger.split("+"):
        assert record.usage["end:" + name] == 1


def test_a_forbid_counts_the_actions_it_refused():
    game = hansa.load_game("no-bullying-hanseatic-45p", players=4)
    record, _ = play_game(game, make_agents(["greedy"] * 4, 0), 0)
    assert record.usage["rule:spec/house/no_bullying.hansa:3"] > 0
    plain = hansa.load_game("bigbox-hanseatic-45p", players=4)
    assert not any(k.startswith("rule:") for k in usage_elements(plain))


def test_the_usage_table_lists_every_element_with_intervals():
    result = simulate("guild-charter-hanseatic-45p", 3, players=4, jobs=1)
    usage = result.to_json()["usage"]
    assert {"marker:Guild charter", "marker:move_tradesmen", "category:E", "action:PLACE"} <= set(
        usage
    )
    for row in usage.values():
        assert set(row) == USAGE_KEYS
        assert row["per_game"]["min"] <= row["per_game"]["mean"] <= row["per_game"]["max"]
        assert row["games"]["low"] <= row["games"]["share"] <= row["games"]["high"]
    assert usage["marker:Guild charter"]["games"]["count"] >= 1
    assert usage["rule:spec/house/guild_charter.hansa:4"]["label"].startswith(
        "spec/house/guild_charter.hansa:4 bonus"
    )
    two = simulate("guild-charter-hanseatic-45p", 3, players=4, jobs=2).to_json()
    assert without_cost(result.to_json()) == without_cost(two)  # CPU and wall seconds vary


def test_simulate_prints_the_usage(capsys):
    code, out, err = run_cli(
        capsys, "simulate", "guild-charter-hanseatic-45p", "-n", "2", "--players", "4", "-j", "1"
    )
    assert code == 0, err
    assert "bonus markers (used), per game and games used in:" in out
    assert "rules in words (applied)" in out and "spec/house/guild_charter.hansa:4" in out
    code, out, err = run_cli(
        capsys, "simulate", "guild-charter-hanseatic-45p", "-n", "2", "--players", "4", "--json"
    )
    assert code == 0 and "marker:Guild charter" in json.loads(out)["usage"]


@pytest.fixture()
def never(tmp_path: Path) -> Path:
    path = tmp_path / "never.hansa"
    path.write_text(
        'rules never_bully "Big Box, no displacing far behind" extends bigbox_2021 {\n'
        "    forbid displace when track PP of the victim > 100\n"
        "}\n"
        "game never-bully-45p = never_bully on hanseatic_45p players 4..5\n",
        encoding="utf-8",
    )
    return path


def test_diff_says_plainly_when_a_rule_only_one_side_has_never_applied(capsys, never, monkeypatch):
    monkeypatch.chdir(ROOT)
    args = ["diff", "bigbox-hanseatic-45p", str(never), "--simulate", "2", "-j", "1"]
    code, out, err = run_cli(capsys, *args)
    assert code == 3, err
    assert (
        f"warning: side B: '{never}:2 forbid displace when track pp of victim > 100' (only side "
        "B has it) was never applied in any of the 2 games: these results say nothing about it"
    ) in out
    assert "no compared figure differs clearly" not in out  # never applied is not "no effect"
    code, out, _ = run_cli(capsys, *args, "--format", "json")
    assert code == 3
    sim = json.loads(out)["simulation"]
    assert sim["differing_elements"] == [f"rule:{never}:2"]
    assert [item["side"] for item in sim["never_applied"]] == ["B"]
    assert sim["applied_no_clear_difference"] == []
    assert set(sim["usage"]["a"]) < set(sim["usage"]["b"])
    code, out, _ = run_cli(capsys, *args, "--format", "markdown")
    assert code == 3 and "**Which elements applied**" in out and "**Warning:** side B:" in out


def test_diff_shows_a_words_marker_that_applied(capsys, monkeypatch):
    monkeypatch.chdir(ROOT)
    args = ["diff", "bigbox-hanseatic-45p", "guild-charter-hanseatic-45p", "--simulate", "2"]
    code, out, err = run_cli(capsys, *args, "-j", "1", "--format", "json")
    assert code == 1, err  # a semantic difference, and the marker was used
    sim = json.loads(out)["simulation"]
    assert "marker:Guild charter" in sim["differing_elements"] and not sim["never_applied"]
    assert sim["usage"]["b"]["marker:Guild charter"]["total"] >= 1
    assert sim["clear_differences"] == 0  # two games a side show no clear difference
    (item,) = [i for i in sim["applied_no_clear_difference"] if i["key"] == "marker:Guild charter"]
    assert item["side"] == "B" and 1 <= item["games_applied"] <= 2
    assert "was used in" in item["text"] and "no compared figure differs clearly" in item["text"]
    assert "say nothing" not in item["text"]
    code, out, _ = run_cli(capsys, *args, "-j", "1")
    assert code == 1
    assert "note: side B: 'Guild charter' (only side B has it) was used in" in out
    assert "warning:" not in out
