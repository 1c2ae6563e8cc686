"""`hansa diff` on the real spec files, against golden reports in tests/golden/diff/.

Regenerate after an intended change with
`HANSA_REGEN_GOLDEN=1 .venv/bin/pytest tests/compiler/test_diff_golden.py`; review `git diff
tests/golden`.
"""

from __future__ import annotations

import json
import os
import re
from pathlib import Path

import pytest
from docs_support import documented_keys

from hansa.cli import main

ROOT = Path(__file__).resolve().parents[2]
GOLDEN = ROOT / "tests" / "golden" / "diff"
REGENERATE = os.environ.get("HANSA_REGEN_GOLDEN") == "1"
EXTENSIONS = {"text": "txt", "json": "json", "markdown": "md"}


@pytest.fixture(autouse=True)
def at_repo_root(monkeypatch):
    """Spec names are looked up in ./spec and reports show paths relative to the repository."""
    monkeypatch.chdir(ROOT)


def run_diff(capsys, *args: str) -> tuple[int, str, str]:
    code = main(["diff", *args])
    out = capsys.readouterr()
    return code, out.out, out.err


def check_golden(name: str, text: str) -> None:
    path = GOLDEN / name
    if REGENERATE:
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
        return
    assert path.exists(), f"no golden file {path}; run with HANSA_REGEN_GOLDEN=1 to write it"
    assert text == path.read_text(encoding="utf-8"), f"{name} differs from its golden file"


def house_rules() -> list[tuple[str, str, str]]:
    """(file, rule set, edition it extends) for every house rule under spec/house/."""
    found = []
    for path in sorted((ROOT / "spec" / "house").glob("*.hansa")):
        text = path.read_text(encoding="utf-8")
        for m in re.finditer(r"^\s*rules\s+(\S+)(?:\s+\"[^\"]*\")?\s+extends\s+(\S+)", text, re.M):
            found.append((str(path.relative_to(ROOT)), m.group(1), m.group(2)))
    return found


CASES = [
    ("editions", "original_2009", "bigbox_2021"),
    ("hanseatic_sides", "hanseatic_3p", "hanseatic_45p"),
    ("britannia_sides", "britannia_3p", "britannia_45p"),
    ("games", "original-hanseatic-23p", "bigbox-hanseatic-45p"),
]


@pytest.mark.parametrize("fmt", ["text", "json", "markdown"])
@pytest.mark.parametrize(("name", "a", "b"), CASES, ids=[c[0] for c in CASES])
def test_golden_reports(capsys, name, a, b, fmt):
    code, out, err = run_diff(capsys, a, b, "--format", fmt)
    assert err == "" and code == 1
    check_golden(f"{name}.{EXTENSIONS[fmt]}", out)


@pytest.mark.parametrize(
    ("file", "rules", "edition"), house_rules(), ids=[h[1] for h in house_rules()]
)
@pytest.mark.parametrize("fmt", ["text", "json"])
def test_house_rule_against_its_edition(capsys, file, rules, edition, fmt):
    code, out, err = run_diff(capsys, edition, file, "--format", fmt)
    assert err == "" and code == 1
    check_golden(f"house_{rules}.{EXTENSIONS[fmt]}", out)
    if fmt == "text":  # naming the rule set gives the same report as naming its file
        code, by_name, _ = run_diff(capsys, edition, rules)
        assert code == 1 and by_name == out


def test_there_are_house_rules():
    assert house_rules(), "spec/house/ holds no house rule to diff"


def test_editions_differ_exactly_as_rules_md_section_11(capsys):
    """§11's rule differences that the rules language covers, and nothing else."""
    code, out, _ = run_diff(capsys, "original_2009", "bigbox_2021", "--format", "json")
    edits = json.loads(out)["edits"]
    assert code == 1
    found = {
        (e["op"], e["subject"], e["field"], json.dumps(e["old"]), json.dumps(e["new"]))
        for e in edits
    }
    assert {e["area"] for e in edits} == {"bonus markers", "tie-break"}
    # 5 → 4 Additional, 2 → 3 Exchange (and its ownership rule), 3 → 2 Develop, Remove 3 → Move 3
    assert ("changed", "bonus marker 'additional trading post'", "count", "5", "4") in found
    assert ("changed", "bonus marker 'exchange trading posts'", "count", "2", "3") in found
    assert (
        "changed",
        "bonus marker 'exchange trading posts'",
        "must_own_one",
        "false",
        "true",
    ) in found
    assert ("changed", "bonus marker 'develop ability'", "count", "3", "2") in found
    replaced = [e for e in edits if e["op"] == "replaced"]
    assert [(e["subject"], e["new_subject"]) for e in replaced] == [
        ("bonus marker 'remove 3 tradesmen'", "bonus marker 'move 3 tradesmen'")
    ]
    # Shared ties (2009) against the Big Box chain: two steps before "shared".
    steps = [e for e in edits if e["area"] == "tie-break"]
    assert [(e["op"], e["new"]["rule"]) for e in steps] == [("added", "fewest"), ("added", "most")]
    assert len(edits) == 7
    # Both sides' definitions are named.
    for e in edits:
        if e["op"] in ("changed", "replaced"):
            assert e["old_at"]["file"] == "spec/original_2009.hansa"
            assert e["new_at"]["file"] == "spec/bigbox_2021.hansa"


def reformat_board(text: str) -> str:
    """Same board, other text: comments, indentation, and cities and routes in reverse order."""
    lines = text.splitlines()
    cities = [ln for ln in lines if ln.strip().startswith("city ")]
    routes = [ln for ln in lines if ln.strip().startswith("route ")]
    rest = [ln for ln in lines if ln not in cities and ln not in routes]
    close = max(i for i, ln in enumerate(rest) if ln.strip() == "}")
    body = []
    for ln in reversed(routes + cities):
        body.append("  # a comment that changes nothing")
        body.append("\t" + re.sub(r"\s+", "  ", ln.strip()))
    return "\n".join(["# reformatted copy", *rest[:close], *body, *rest[close:]]) + "\n"


def reformat_rules(text: str) -> str:
    """Same rules, other text: comments between lines, other indentation, abilities reversed.
    A statement's continuation lines stay indented under it (a line break ends a statement)."""
    lines = text.splitlines()
    abilities = [ln for ln in lines if ln.strip().startswith("ability ")]
    order = iter(reversed(abilities))
    out = []
    for ln in lines:
        if ln.strip().startswith("ability "):
            ln = next(order)
        indent = "            " if ln.startswith("        ") else "        "
        out.append(indent + re.sub(r"[ \t]+", " ", ln.strip()))
        out.append("   # ---")
    return "\n".join(out) + "\n"


@pytest.mark.parametrize(
    ("original", "name", "reformat"),
    [
        ("spec/boards/hanseatic_45p.hansa", "hanseatic_45p", reformat_board),
        ("spec/boards/eastern.hansa", "eastern", reformat_board),
        ("spec/bigbox_2021.hansa", "bigbox_2021", reformat_rules),
        ("spec/original_2009.hansa", "original_2009", reformat_rules),
    ],
)
def test_reformatted_copy_has_no_differences(capsys, tmp_path, original, name, reformat):
    source = (ROOT / original).read_text(encoding="utf-8")
    copy = tmp_path / "renamed_copy.hansa"
    copy.write_text(reformat(source), encoding="utf-8")
    assert copy.read_text(encoding="utf-8") != source
    code, out, err = run_diff(capsys, str(copy), name)
    assert (code, err) == (0, ""), out + err
    check_golden(f"reformatted_{name}.txt", out.replace(str(copy), "<copy>"))


def test_board_json_against_its_spec_board(capsys):
    code, out, err = run_diff(capsys, "tests/fixtures/boards/hanseatic_3p.json", "hanseatic_3p")
    assert (code, err) == (0, "")
    assert "no differences" in out


# ------------------------------------------------------------------------------------ command line


def test_equal_exits_zero_and_different_one(capsys):
    assert run_diff(capsys, "bigbox_2021", "bigbox_2021")[0] == 0
    assert run_diff(capsys, "bigbox_2021", "original_2009")[0] == 1


def test_colour_only_when_asked_or_on_a_terminal(capsys):
    _, plain, _ = run_diff(capsys, "original_2009", "bigbox_2021")
    _, auto, _ = run_diff(capsys, "original_2009", "bigbox_2021", "--color", "auto")
    _, always, _ = run_diff(capsys, "original_2009", "bigbox_2021", "--color", "always")
    assert "\033[" not in plain and auto == plain
    assert "\033[" in always and re.sub(r"\033\[[0-9;]*m", "", always) == plain


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["hanseatic_3p", "bigbox_2021"], "cannot compare a board ('hanseatic_3p') with a rules"),
        (["bigbox_2012", "original_2009"], "did you mean 'bigbox_2021'?"),
        (["missing.hansa", "bigbox_2021"], "missing.hansa: error: no such file"),
        (["spec/games.hansa", "spec/games.hansa"], "can mean several declarations"),
        (["spec/games.hansa:nope", "bigbox_2021"], "'nope' is not declared in this file"),
    ],
)
def test_errors_exit_two_with_one_clear_message(capsys, args, message):
    code, out, err = run_diff(capsys, *args)
    assert code == 2 and out == ""
    assert message in err and "Traceback" not in err


def test_syntax_error_in_a_side_exits_two(capsys, tmp_path):
    bad = tmp_path / "bad.hansa"
    bad.write_text("rules broken extends bigbox_2021 {\n    pieces traders\n", encoding="utf-8")
    code, out, err = run_diff(capsys, str(bad), "bigbox_2021")
    assert code == 2 and out == ""
    assert f"{bad}:" in err


def test_file_colon_name_picks_one_declaration(capsys):
    code, out, _ = run_diff(
        capsys, "spec/games.hansa:bigbox-hanseatic-45p", "spec/games.hansa:original-hanseatic-45p"
    )
    assert code == 1 and "game: rules bigbox_2021 → original_2009" in out


def test_a_house_rule_file_is_narrowed_by_the_other_side(capsys):
    house = house_rules()[0]
    code, out, _ = run_diff(capsys, house[0], house[2])
    assert code == 1 and f"rules '{house[1]}'" in out


def test_modified_copy_of_an_edition_shows_one_edit(capsys, tmp_path):
    source = (ROOT / "spec/bigbox_2021.hansa").read_text(encoding="utf-8")
    changed = source.replace("pieces traders 27", "pieces traders 25")
    assert changed != source
    copy = tmp_path / "bigbox_copy.hansa"
    copy.write_text(changed, encoding="utf-8")
    code, out, _ = run_diff(capsys, "bigbox_2021", str(copy), "--format", "json")
    edits = json.loads(out)["edits"]
    assert code == 1 and [e["message"] for e in edits] == ["pieces: traders 27 → 25"]
    assert edits[0]["new_at"]["file"] == str(copy) and edits[0]["new_at"]["line"] == 6


def test_json_edits_have_exactly_the_documented_keys(capsys):
    documented = documented_keys("## JSON (`--format json`) — schema version 1")
    documented |= {"old_at", "new_at"}  # documented together in one row
    _, out, _ = run_diff(capsys, "original-hanseatic-23p", "bigbox-hanseatic-45p", "-f", "json")
    doc = json.loads(out)
    assert set(doc) == {"schema_version", "a", "b", "equal", "edits"}
    assert doc["edits"] and all(set(e) == documented for e in doc["edits"])
    assert {e["op"] for e in doc["edits"]} <= {"added", "removed", "changed", "replaced"}


def test_docs_example_is_real_output(capsys):
    text = (ROOT / "docs" / "diff.md").read_text(encoding="utf-8")
    block = text.split("## Text report (default)\n```\n", 1)[1].split("```", 1)[0]
    _, out, _ = run_diff(capsys, "original_2009", "bigbox_2021")
    for line in block.splitlines():
        if line.strip() != "…":
            assert line in out.splitlines(), line


def test_report_order_does_not_follow_declaration_order(capsys, tmp_path):
    copy = tmp_path / "hanseatic_3p_reordered.hansa"
    source = (ROOT / "spec/boards/hanseatic_3p.hansa").read_text(encoding="utf-8")
    copy.write_text(reformat_board(source), encoding="utf-8")
    _, original, _ = run_diff(capsys, "hanseatic_3p", "hanseatic_45p", "--format", "json")
    _, reordered, _ = run_diff(capsys, str(copy), "hanseatic_45p", "--format", "json")
    messages = [e["message"] for e in json.loads(original)["edits"]]
    assert messages and messages == [e["message"] for e in json.loads(reordered)["edits"]]
