"""Names, chat, the "since your last decision" summary and the rules help of `hansa serve`
(issue #36, items 2–4) through the API: names and messages cleaned, length- and rate-limited,
refused to a spectator, kept in the store across a restart, shown to every page of the game; the
summary built from the seat's own view only; the rules help's texts the ones docs/serve.md
lists; and the new endpoints answering any request with 4xx and no change.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

pytest.importorskip("starlette")
pytest.importorskip("httpx2")

from starlette.testclient import TestClient  # noqa: E402

from hansa.web.app import create_app  # noqa: E402
from hansa.web.rules_help import help_texts  # noqa: E402
from hansa.web.sessions import Catalogue  # noqa: E402
from hansa.web.store import Store  # noqa: E402
from hansa.web.talk import MESSAGE_LENGTH, NAME_LENGTH, RATE_COUNT, BadText, Talk, clean  # noqa: E402

ROOT = Path(__file__).resolve().parents[3]
GAME, MISSIONS = "bigbox-hanseatic-3p", "bigbox-hanseatic-3p-missions"


@pytest.fixture(scope="module")
def catalogue() -> Catalogue:
    return Catalogue(ROOT / "spec")


def client(catalogue, store=None) -> TestClient:
    return TestClient(create_app(catalogue, store=store), base_url="http://127.0.0.1")


def new_game(c: TestClient, game=GAME, seats=("human", "human", "greedy")) -> tuple[str, dict]:
    answer = c.post("/api/sessions", json={"game": game, "players": 3, "seats": list(seats)})
    assert answer.status_code == 201
    return answer.json()["id"], answer.json()["tokens"]


def as_(token: str) -> dict:
    return {"x-hansa-token": token}


def test_a_seat_names_itself_and_every_page_sees_it(catalogue):
    c = client(catalogue)
    sid, tokens = new_game(c)
    answer = c.post(
        f"/api/sessions/{sid}/name",
        json={"name": " Ann\x00\n <b> "},
        headers=as_(tokens["seats"]["1"]),
    )
    assert answer.status_code == 200 and answer.json()["names"] == {"1": "Ann <b>"}
    for token in (tokens["spectator"], tokens["host"], tokens["seats"]["0"]):
        assert c.get(f"/api/sessions/{sid}", headers=as_(token)).json()["names"] == {"1": "Ann <b>"}
    refused = c.post(
        f"/api/sessions/{sid}/name", json={"name": "Eve"}, headers=as_(tokens["spectator"])
    )
    assert refused.status_code == 403
    for bad in ("", "   ", "x" * (NAME_LENGTH + 1), 5, None, ["a"]):
        answer = c.post(
            f"/api/sessions/{sid}/name", json={"name": bad}, headers=as_(tokens["seats"]["0"])
        )
        assert answer.status_code == 400, bad
    assert c.get(f"/api/sessions/{sid}").json()["names"] == {"1": "Ann <b>"}


def test_the_chat_is_kept_as_text_limited_and_refused_to_spectators(catalogue):
    c = client(catalogue)
    sid, tokens = new_game(c)
    hostile = "<script>alert(1)</script>"
    answer = c.post(
        f"/api/sessions/{sid}/chat", json={"text": hostile}, headers=as_(tokens["host"])
    )
    assert answer.json()["chat"] == [{"n": 1, "role": "host", "seat": None, "text": hostile}]
    assert (
        c.post(
            f"/api/sessions/{sid}/chat", json={"text": "hi"}, headers=as_(tokens["spectator"])
        ).status_code
        == 403
    )
    too_long = c.post(
        f"/api/sessions/{sid}/chat",
        json={"text": "x" * (MESSAGE_LENGTH + 1)},
        headers=as_(tokens["host"]),
    )
    assert too_long.status_code == 400 and "at most" in too_long.json()["error"]
    session = c.app.state.sessions.get(sid)
    session.talk.clock = lambda: 100.0  # the same moment: the rate is exceeded
    session.talk.sent.clear()
    seat = as_(tokens["seats"]["0"])
    codes = [
        c.post(f"/api/sessions/{sid}/chat", json={"text": f"m{k}"}, headers=seat).status_code
        for k in range(RATE_COUNT + 1)
    ]
    assert codes == [200] * RATE_COUNT + [429]
    assert [m["text"] for m in c.get(f"/api/sessions/{sid}").json()["chat"]][
        -1
    ] == f"m{RATE_COUNT - 1}"


def test_the_rate_is_per_link_and_recovers():
    now = [0.0]
    talk = Talk(clock=lambda: now[0])
    from hansa.web.access import HOST, Viewer

    host = Viewer(HOST)
    for _ in range(RATE_COUNT):
        talk.say(host, "a", "x")
    with pytest.raises(Exception, match="too many"):
        talk.say(host, "a", "x")
    talk.say(host, "b", "another link")
    now[0] = 11.0
    talk.say(host, "a", "later")
    assert [m["n"] for m in talk.public()["chat"]] == list(range(1, RATE_COUNT + 3))


@given(st.text(max_size=400))
def test_clean_keeps_no_control_character_and_never_grows(text):
    try:
        kept = clean(text, MESSAGE_LENGTH, "message")
    except BadText:
        return
    assert kept and kept == kept.strip() and len(kept) <= MESSAGE_LENGTH
    assert not any(ord(ch) < 32 or ord(ch) == 127 for ch in kept)


def test_names_and_chat_are_stored_with_the_game(catalogue, tmp_path):
    folder = tmp_path / "store"
    folder.mkdir(mode=0o700)
    os.chmod(folder, 0o700)
    c = client(catalogue, Store(folder / "s.sqlite"))
    sid, tokens = new_game(c)
    c.post(f"/api/sessions/{sid}/name", json={"name": "Bo"}, headers=as_(tokens["seats"]["0"]))
    c.post(
        f"/api/sessions/{sid}/chat", json={"text": "good luck"}, headers=as_(tokens["seats"]["1"])
    )
    again = client(catalogue, Store(folder / "s.sqlite"))  # a restarted server
    view = again.get(f"/api/sessions/{sid}", headers=as_(tokens["seats"]["1"])).json()
    assert view["names"] == {"0": "Bo"}
    assert view["chat"] == [{"n": 1, "role": "seat", "seat": 1, "text": "good luck"}]


def _play(c, sid, tokens, seat, rounds):
    """Seat `seat` (human) plays against the agents: `rounds` of its decisions."""
    me = as_(tokens["seats"][str(seat)])
    for _ in range(rounds):
        view = c.post(f"/api/sessions/{sid}/agent", json={"until_human": True}, headers=me).json()
        if view["terminal"]:
            return view
        legal = [a for a in view["legal"] if a["kind"] in ("place", "displace", "create")] or view[
            "legal"
        ]
        c.post(f"/api/sessions/{sid}/action", json={"action": legal[0]["id"]}, headers=me)
    return c.post(f"/api/sessions/{sid}/agent", json={"until_human": True}, headers=me).json()


def test_the_summary_says_what_the_others_did_since_my_last_decision(catalogue):
    c = client(catalogue)
    sid, tokens = new_game(c, MISSIONS, ("human", "greedy", "greedy"))
    view = _play(c, sid, tokens, 0, 14)
    since = view["since_mine"]
    assert since is not None and since["from"] <= view["length"]
    session = c.app.state.sessions.get(sid)
    others = [p for p, _a in session.moves[since["from"] :]]
    assert others and 0 not in others
    assert {d["player"]: d["count"] for d in since["decisions"]} == {
        p: others.count(p) for p in set(others)
    }
    for t in since["track"]:
        assert t["now"] == view["state"]["player_state"][t["player"]]["track"]
    text = json.dumps(since)
    # nothing of the others' mission cards: no card, no mission entry (a city on another's card
    # may still be named, by a public event: a route's marker taken, a post lost there)
    cards = [str(session.state.to_dict()["player_state"][p]["mission"]) for p in (1, 2)]
    assert "mission" not in text and "seed" not in text and "own" not in since
    assert all(f'"card": {card}' not in text for card in cards)
    spectator = c.get(f"/api/sessions/{sid}", headers=as_(tokens["spectator"])).json()
    assert spectator["since_mine"] is None


def test_rules_help_texts_are_the_docs_and_the_house_rule_changes_are_listed(catalogue):
    docs = " ".join((ROOT / "docs" / "serve.md").read_text(encoding="utf-8").split())
    for text in help_texts():
        assert text in docs, text
    c = client(catalogue)
    house = c.get("/api/games/guild-charter-hanseatic-45p/rules").json()
    assert house["edition"] == "bigbox_2021" and house["rules"] == "guild_charter"
    assert any("Guild charter" in e["text"] for e in house["changes"])
    assert house["markers"]["guild_charter"].startswith("gain 1 PP per city you control")
    edition = c.get(f"/api/games/{GAME}/rules").json()
    assert edition["changes"] == [] and edition["note"] in help_texts()
    favour = c.get("/api/games/bigbox-hanseatic-3p-favour/rules").json()
    assert "your city pp becomes 4" in favour["favour"]["City PP"]
    assert c.get("/api/games/no-such-game/rules").status_code == 400
    for bad in ("x.hansa", "/etc/passwd", "%00", "a" * 5000, "../spec/games.hansa"):
        answer = c.get(f"/api/games/{bad}/rules")
        assert answer.status_code in (400, 404) and str(ROOT) not in answer.text
    assert c.get("/api/games/..%2f..%2fetc%2fpasswd/rules").status_code in (400, 404)


@settings(
    max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(
    path=st.sampled_from(["name", "chat"]),
    body=st.one_of(
        st.dictionaries(
            st.sampled_from(["name", "text", "since"]),
            st.one_of(st.none(), st.integers(), st.text(), st.lists(st.integers()), st.booleans()),
        )
    ),
    who=st.sampled_from(["seat", "host", "spectator", "none", "wrong"]),
)
def test_the_new_endpoints_survive_any_request(catalogue, path, body, who):
    c = fuzz_client(catalogue)
    sid, tokens = FUZZ["game"]
    token = {
        "seat": tokens["seats"]["0"],
        "host": tokens["host"],
        "spectator": tokens["spectator"],
        "none": "",
        "wrong": "x" * 32,
    }[who]
    session = c.app.state.sessions.get(sid)
    session.talk.sent.clear()
    before = session.talk.public()
    answer = c.post(f"/api/sessions/{sid}/{path}", json=body, headers=as_(token) if token else {})
    assert answer.status_code in (200, 400, 403, 429), answer.text
    assert "error" in answer.json() or answer.status_code == 200
    if answer.status_code != 200:
        assert session.talk.public() == before
    garbage = c.post(
        f"/api/sessions/{sid}/{path}",
        content=b"\xff{",
        headers={"content-type": "application/json", **as_(tokens["host"])},
    )
    assert garbage.status_code == 400


FUZZ: dict = {}


def fuzz_client(catalogue) -> TestClient:
    if "client" not in FUZZ:
        FUZZ["client"] = client(catalogue)
        FUZZ["game"] = new_game(FUZZ["client"])
    return FUZZ["client"]


def test_the_summary_finds_my_displaced_pieces_and_the_markers():
    from hansa.web.views import _lost_pieces, _route_markers

    before = {
        "routes": [
            {"cities": ["A", "B"], "points": ["t1", None, "m1"], "marker": None},
            {"cities": ["B", "C"], "points": ["t1", "t2"], "marker": "plus_3_actions"},
        ]
    }
    now = {
        "routes": [  # the same routes, one listed the other way round
            {"cities": ["B", "A"], "points": ["m1", "t0", "t2"], "marker": "develop_ability"},
            {"cities": ["B", "C"], "points": [None, "t2"], "marker": None},
        ]
    }
    assert _lost_pieces(before, now, 1) == [
        {"cities": ["A", "B"], "piece": "t1", "by": "t2"},
        {"cities": ["B", "C"], "piece": "t1", "by": None},
    ]
    assert _lost_pieces(before, now, 2) == []
    assert _route_markers(before, now) == [
        {"cities": ["B", "A"], "marker": "develop_ability", "change": "placed"},
        {"cities": ["B", "C"], "marker": "plus_3_actions", "change": "taken"},
    ]


def test_spectators_read_the_chat(catalogue):
    c = client(catalogue)
    sid, tokens = new_game(c)
    c.post(f"/api/sessions/{sid}/chat", json={"text": "hello"}, headers=as_(tokens["seats"]["0"]))
    seen = c.get(f"/api/sessions/{sid}", headers=as_(tokens["spectator"])).json()["chat"]
    assert [m["text"] for m in seen] == ["hello"]
