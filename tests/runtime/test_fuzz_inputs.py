"""Hypothesis: state JSON and game logs from anywhere are read safely (spec text has its own
fuzz targets in tests/compiler/test_fuzz_spec.py; web requests are
tests/app/web/test_serve_api.py's).

Real states (mid-game, with pending decisions) and a real log are mutated at random: a value
anywhere replaced by another JSON value (huge and negative numbers, unknown names, wrong types,
deep nesting), a key dropped or added, a list entry repeated or dropped, the text cut or a
character changed. Reading either gives a state or a log that plays on, or one HansaError;
nothing else ever escapes, and no case runs long (each is bounded in CPU seconds, `cpu_bounded`).
CI runs a bounded number of cases; `HANSA_FUZZ_EXAMPLES=5000` runs more.
"""

from __future__ import annotations

import copy
import functools
import json
import os
from pathlib import Path

import pytest
from clock_support import cpu_bounded
from hansa.play.logs import header_for, replay, write_log
from hansa.play.simulate import make_agents, play_game
from hansa.runtime.errors import HansaError
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import hansa

GAME = "bigbox-hanseatic-3p"
EXAMPLES = int(os.environ.get("HANSA_FUZZ_EXAMPLES", "60"))
FUZZ = settings(
    max_examples=EXAMPLES,
    deadline=None,  # wall clock: see cpu_bounded
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture],
)


@functools.cache
def _states() -> list[dict]:
    """States of a random game at several points, some inside a decision (a move, a payment)."""
    game = hansa.load_game(GAME)
    found, state = [], game.new_initial_state(seed=3)
    agent = make_agents(["random"], 3)[0]
    for step in range(400):
        if state.is_terminal():
            break
        if step % 37 == 0 or len(found) < 12 and state.to_dict().get("stack"):
            found.append(json.loads(state.to_json()))
        state.apply_action(agent.step(state, state.legal_actions()))
    found.append(json.loads(state.to_json()))
    return found


CITY = ["Hamburg", "Lübeck", "Nowhere", "", "Hamburg\x00", "x" * 300]
VALUES = st.recursive(
    st.one_of(
        st.none(),
        st.booleans(),
        st.integers(-(2**70), 2**70),
        st.sampled_from([0, 1, -1, 2, 3, 4, 5, 20, 999, 10**6, 10**100]),
        st.floats(allow_nan=True, allow_infinity=True),
        st.sampled_from(CITY + ["t0", "m1", "t99", "pick", "move", "income", "frame"]),
        st.text(max_size=12),
    ),
    lambda inner: st.one_of(
        st.lists(inner, max_size=4), st.dictionaries(st.text(max_size=8), inner, max_size=3)
    ),
    max_leaves=8,
)


def _paths(value, prefix=()):
    """Every place in a JSON value: (path of keys and indices)."""
    yield prefix
    if isinstance(value, dict):
        for key, item in value.items():
            yield from _paths(item, (*prefix, key))
    elif isinstance(value, list):
        for index, item in enumerate(value):
            yield from _paths(item, (*prefix, index))


@st.composite
def mutated(draw, documents: list[dict]) -> dict:
    """A document with 1-3 edits at random places."""
    doc = copy.deepcopy(draw(st.sampled_from(documents)))
    for _ in range(draw(st.integers(1, 3))):
        paths = [p for p in _paths(doc) if p]
        if not paths:
            break
        path = draw(st.sampled_from(paths))
        parent = doc
        for key in path[:-1]:
            parent = parent[key]
        last = path[-1]
        action = draw(st.sampled_from(["replace", "drop", "add", "repeat"]))
        if action == "replace":
            parent[last] = draw(VALUES)
        elif action == "drop":
            del parent[last]
        elif action == "add" and isinstance(parent, dict):
            parent[draw(st.sampled_from(["extra", "stack", "phase", "left"]))] = draw(VALUES)
        elif action == "repeat" and isinstance(parent, list):
            parent.insert(last, copy.deepcopy(parent[last]))
    return doc


def _plays_on(state) -> None:
    """A state that loaded behaves: it writes JSON that reads back the same, and a legal action
    applies (or the game is over)."""
    text = state.to_json()
    game = hansa.load_game(GAME)
    assert game.state_from_json(text).to_json() == text
    if not state.is_terminal():
        legal = state.legal_actions()
        assert legal
        state.apply_action(legal[0])


@FUZZ
@given(st.deferred(lambda: mutated(_states())))
@cpu_bounded(2)  # seconds per case
def test_mutated_state_json_loads_or_is_one_clear_error(doc):
    game = hansa.load_game(GAME)
    try:
        state = game.state_from_json(json.dumps(doc))
    except HansaError as exc:
        assert exc.message and "Traceback" not in exc.message
        return
    _plays_on(state)


@FUZZ
@given(st.deferred(lambda: st.sampled_from([json.dumps(s) for s in _states()])), st.data())
@cpu_bounded(2)  # seconds per case
def test_state_json_cut_or_changed_anywhere_is_one_clear_error(text, data):
    i = data.draw(st.integers(0, len(text) - 1))
    edit = data.draw(st.sampled_from(["cut", "char", "nest"]))
    if edit == "cut":
        text = text[:i]
    elif edit == "char":
        text = text[:i] + data.draw(st.sampled_from(list('{}[]",:0-9e.\\x\x00é'))) + text[i + 1 :]
    else:
        text = text[:i] + "[" * 100_000 + text[i:]
    game = hansa.load_game(GAME)
    try:
        state = game.state_from_json(text)
    except HansaError:
        return
    _plays_on(state)


# ---------------------------------------------------------------- logs
@pytest.fixture(scope="module")
def log_lines(tmp_path_factory) -> list[dict]:
    game = hansa.load_game(GAME)
    agents = ["random"] * 3
    record, state = play_game(game, make_agents(agents, 4), 4, max_decisions=40, record_moves=True)
    path = tmp_path_factory.mktemp("log") / "game.jsonl"
    write_log(str(path), game, header_for(game, 4, agents), record, state)
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]


@st.composite
def mutated_log(draw, lines: list[dict]) -> str:
    lines = copy.deepcopy(lines)
    kind = draw(st.sampled_from(["field", "line", "text"]))
    if kind == "field":
        index = draw(st.integers(0, len(lines) - 1))
        lines[index] = draw(mutated([lines[index]]))
    elif kind == "line":
        i, j = draw(st.integers(0, len(lines) - 1)), draw(st.integers(0, len(lines) - 1))
        action = draw(st.sampled_from(["drop", "repeat", "swap"]))
        if action == "drop":
            del lines[i]
        elif action == "repeat":
            lines.insert(i, copy.deepcopy(lines[i]))
        else:
            lines[i], lines[j] = lines[j], lines[i]
    text = "\n".join(json.dumps(line, ensure_ascii=False) for line in lines) + "\n"
    if kind == "text":
        i = draw(st.integers(0, len(text) - 1))
        text = text[:i] + draw(st.sampled_from(["", "\n", "}", '"', "\u2028", "\x00"])) + text[i:]
    return text


@FUZZ
@given(data=st.data())
@cpu_bounded(2)  # seconds per case
def test_mutated_logs_replay_or_are_one_located_error(log_lines, data, tmp_path_factory):
    text = data.draw(mutated_log(log_lines))
    path = Path(tmp_path_factory.mktemp("fuzz")) / "fuzz.jsonl"
    path.write_text(text, encoding="utf-8", errors="surrogatepass")
    try:
        replay(str(path), lambda name, players: hansa.load_game(name, players))
    except HansaError as exc:
        assert exc.message
        assert str(path) in str(exc) or exc.span is not None
