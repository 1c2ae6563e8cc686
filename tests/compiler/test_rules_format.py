"""`hansa fmt` indents rule sets canonically: statements one level in, continuation lines moved
with their statement (hand alignment kept, at least two levels), comments kept where they are,
nothing else changed; idempotent."""

from __future__ import annotations

import re
from pathlib import Path

from hansa.compiler.board.format import format_source
from hansa.compiler.syntax.parser import parse_text
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from hansa.cli import main

ROOT = Path(__file__).resolve().parents[2]
RULE_FILES = sorted(
    p for p in (ROOT / "spec").rglob("*.hansa") if re.search(r"^rules ", p.read_text(), re.M)
)

MESSY = """\
# a house rule
  rules messy "Messy" extends bigbox_2021 {  # beside the header
# about displace
  action displace cost { trader: 1, merchant: 2 }
                  fallback stock, supply, board
\ttiebreak fewest ability actions,
  most score network, shared   # trailing
  \t
      score M missions cards {
    1: Osnabrück Stendal Paderborn,
  # inside a statement
            2: Dortmund Minden Lüneburg,
  } post_pp 1 all_pp 5
      end when turn number >= 40
        # before the brace
    }   # after
game messy-45p = messy on hanseatic_45p players 4..5
"""

FORMATTED = """\
# a house rule
rules messy "Messy" extends bigbox_2021 {  # beside the header
    # about displace
    action displace cost { trader: 1, merchant: 2 }
                    fallback stock, supply, board
    tiebreak fewest ability actions,
        most score network, shared   # trailing

    score M missions cards {
        1: Osnabrück Stendal Paderborn,
        # inside a statement
          2: Dortmund Minden Lüneburg,
    } post_pp 1 all_pp 5
    end when turn number >= 40
    # before the brace
}   # after
game messy-45p = messy on hanseatic_45p players 4..5
"""


def test_a_badly_indented_rule_set_is_indented_canonically() -> None:
    assert format_source(MESSY, "messy.hansa").text == FORMATTED
    assert format_source(FORMATTED, "messy.hansa").text == FORMATTED
    assert parse_text(FORMATTED) == parse_text(MESSY)  # the same statements, only moved


def test_a_one_line_rule_set_and_an_extending_one_are_kept_or_indented() -> None:
    text = 'rules a "A" extends bigbox_2021 { end when turn number >= 40 }\n'
    assert format_source(text, "a.hansa").text == text
    text = 'rules a "A" extends bigbox_2021 {\nend when turn number >= 40 }\n'
    assert format_source(text, "a.hansa").text == (
        'rules a "A" extends bigbox_2021 {\n    end when turn number >= 40 }\n'
    )


def test_fmt_check_flags_a_badly_indented_rule_set(tmp_path: Path, capsys) -> None:
    path = tmp_path / "messy.hansa"
    path.write_text(MESSY, encoding="utf-8")
    assert main(["fmt", "--check", str(path)]) == 1
    assert f"would reformat {path}" in capsys.readouterr().out
    assert path.read_text(encoding="utf-8") == MESSY
    assert main(["fmt", str(path)]) == 0
    assert path.read_text(encoding="utf-8") == FORMATTED
    assert main(["fmt", "--check", str(path)]) == 0


def test_the_shipped_spec_is_formatted(capsys) -> None:
    assert main(["fmt", "--check", str(ROOT / "spec")]) == 0
    assert RULE_FILES  # the property below has files to work on


def _groups(text: str) -> list[list[int]]:
    """Line numbers of the shipped rule sets' statements and comments (a statement at four spaces
    with its deeper continuation lines and a `}` under it), and the header and closing lines."""
    lines = text.split("\n")
    groups: list[list[int]] = []
    inside = False
    for i, line in enumerate(lines):
        if line.startswith("rules "):
            inside = True
            groups.append([i])
        elif inside and line.startswith("}"):
            inside = False
            groups.append([i])
        elif inside and line.strip():
            width = len(line) - len(line.lstrip(" "))
            continues = width > 4 or line.lstrip().startswith("}")
            if continues and groups:
                groups[-1].append(i)
            else:
                groups.append([i])
    return groups


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.sampled_from(RULE_FILES), st.data())
def test_moving_statements_sideways_formats_back_to_the_shipped_text(path: Path, data) -> None:
    """Shift each statement (all its lines together), comment and brace of a shipped rule set
    sideways, with spaces or tabs: fmt gives the shipped text back, and a fixed point."""
    text = path.read_text(encoding="utf-8")
    lines = text.split("\n")
    for group in _groups(text):
        least = min(len(lines[i]) - len(lines[i].lstrip(" ")) for i in group)
        shift = data.draw(st.integers(-least, 9), label=f"shift line {group[0] + 1}")
        for i in group:
            lines[i] = " " * (len(lines[i]) - len(lines[i].lstrip(" ")) + shift) + lines[i].lstrip()
        if data.draw(st.booleans(), label="a tab for four spaces"):
            i = group[0]
            lines[i] = lines[i].replace("    ", "\t", 1) if shift == 0 else lines[i]
    messy = "\n".join(lines)
    once = format_source(messy, str(path)).text
    assert once == text
    assert format_source(once, str(path)).text == once
