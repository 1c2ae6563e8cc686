"""`hansa bench`: figures for a game, and clean errors."""

from __future__ import annotations

import json

import pytest

from hansa.cli import main


def test_bench_reports_the_figures_as_json(capsys):
    assert main(["bench", "bigbox-hanseatic-3p", "--seconds", "0.2", "--json"]) == 0
    (figures,) = json.loads(capsys.readouterr().out)
    assert figures["game"] == "bigbox-hanseatic-3p" and figures["players"] == 3
    assert figures["decisions"] >= 1000 and figures["decisions_per_second_cpu"] > 0
    assert figures["clone_us"] > 0 and figures["to_json_us"] > 0 and figures["from_json_us"] > 0
    assert figures["compile_s"] is None or figures["compile_s"] > 0


def test_bench_table_and_errors(capsys):
    assert main(["bench", "original-hanseatic-45p", "--players", "5", "--seconds", "0.1"]) == 0
    assert "decisions/s" in capsys.readouterr().out
    assert main(["bench", "no-such-game", "--seconds", "0.1"]) == 1
    assert "unknown game 'no-such-game'" in capsys.readouterr().err
    assert main(["bench", "bigbox-hanseatic-3p", "--players", "4", "--seconds", "0.1"]) == 1
    assert "is for 3 players, not 4" in capsys.readouterr().err


def test_bench_rl_reports_every_adapter_as_a_ratio_to_the_raw_api(capsys):
    pytest.importorskip("pyspiel", reason="the rl extra is not installed")
    assert main(["bench", "bigbox-hanseatic-3p", "--rl", "--seconds", "0.3", "--json"]) == 0
    (figures,) = json.loads(capsys.readouterr().out)
    rates, ratios = figures["decisions_per_second_cpu"], figures["ratio_to_raw"]
    assert ratios["raw API"] == 1.0 and len(rates) == 7
    assert all(rate > 0 for rate in rates.values())
    assert main(["bench", "bigbox-hanseatic-3p", "--rl", "--envs", "0"]) == 1
    assert "--envs must be at least 1" in capsys.readouterr().err
