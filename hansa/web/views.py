"""What a viewer is shown of a session: built on the server from what that viewer may see.

While a game hides anything (the order of the face-down markers, other players' mission cards),
a seat is shown `state.observation(seat)` and a host or spectator the public observation (the
same without anyone's own secrets); the Scores leave out the categories that read another
player's secret (the module's SECRET_SCORE_KEYS), and so the totals and the leader that would
follow from them; the seed, which decides every draw, is not sent, nor the log. Once the game is
over, for a game that hides nothing, or for a log the user opened, everything is shown: the full
state JSON, the seed, the log.

Everything in a view is a function of what the viewer may see (tests/app/web/test_serve_hidden.py
checks that two sessions differing only in hidden information give byte-identical responses).
"""

from __future__ import annotations

from hansa.compiler.errors import HansaError

from .access import SEAT, Viewer
from .redact import redact
from .sessions import HUMAN, Session, action_kind, action_target


def has_hidden(state) -> bool:
    """Whether `state` hides anything from anyone: markers of more than one kind face down (their
    order), or a player's own secret (the observation's `own` part)."""
    seen = state.observation(0)
    if len(seen["marker_supply_counts"]) > 1:
        return True
    return any(state.observation(p)["own"] for p in range(state.num_players))


def revealed(session: Session) -> bool:
    """Whether everything about the session may be shown to anyone who can see it: a log the user
    opened, a game that is over, or a game that never hid anything (its first position hides
    nothing). A game whose last hidden marker was drawn keeps its seed until the end."""
    if session.mode == "replay" or session.state.is_terminal():
        return True
    if session.open_at[0] is None:
        session.open_at = (True, not has_hidden(session.initial))
    return session.open_at[1]


def seen_state(state, viewer: Viewer) -> dict:
    """The position as `viewer` may see it during play: its seat's observation, or the public
    one (no one's own secrets) for a host or spectator."""
    if viewer.role == SEAT:
        return state.observation(viewer.seat)
    seen = state.observation(0)
    seen["observer"] = None
    seen["own"] = {}
    return seen


def secret_keys(session: Session) -> tuple[str, ...]:
    ns = vars(session.game.module)
    return tuple(ns.get("SECRET_SCORE_KEYS", ns["SCORE_KEYS"]))


def scoring(session: Session, state, at: int) -> tuple[list[dict], list[int]]:
    """The position's score breakdown and winners, worked out once per position however many
    pages ask (scoring a position is the costliest part of a view)."""
    key = (session.version, len(session.moves), at)
    found = session.scores_at.get(key)
    if found is None:
        if len(session.scores_at) >= 16:
            session.scores_at.clear()
        found = session.scores_at[key] = (state.score_breakdown(), state.winners())
    return found


def seen_scores(session: Session, state, viewer: Viewer, everything: bool, at: int) -> dict:
    """The scoring as if the game ended now, without what the viewer may not know: another
    player's secret categories are null, and so are their total and the leader."""
    breakdown, winners = scoring(session, state, at)
    terminal = state.is_terminal()
    hidden = [] if everything else list(secret_keys(session))
    if not hidden:
        return {
            "breakdown": breakdown,
            "totals": [sum(b.values()) for b in breakdown],
            "known": [sum(b.values()) for b in breakdown],
            "winners": winners,
            "hidden": [],
            "final": terminal,
        }
    mine = viewer.seat if viewer.role == SEAT else None
    shown, totals, known = [], [], []
    for p, row in enumerate(breakdown):
        if p == mine:
            shown.append(row)
            totals.append(sum(row.values()))
            known.append(totals[-1])
            continue
        shown.append({k: (None if k in hidden else v) for k, v in row.items()})
        totals.append(None)
        known.append(sum(v for k, v in row.items() if k not in hidden))
    return {
        "breakdown": shown,
        "totals": totals,
        "known": known,
        "winners": None,
        "hidden": hidden,
        "final": terminal,
    }


def session_view(session: Session, viewer: Viewer, at: object = None, since: object = 0) -> dict:
    """The page's picture of the game at decision `at` (default: now), as `viewer` may see it.
    Called with the session's lock held."""

    length = len(session.moves)
    at = length if at is None else at
    if isinstance(at, bool) or not isinstance(at, int) or not 0 <= at <= length:
        raise HansaError(f"at: expected a decision number from 0 to {length}, got {at!r}")
    if isinstance(since, bool) or not isinstance(since, int) or not 0 <= since <= length:
        raise HansaError(f"since: expected a decision number from 0 to {length}, got {since!r}")
    everything = revealed(session)
    state = session.state_at(at)
    terminal = state.is_terminal()
    player = state.current_player()
    live = at == length and session.mode != "replay" and not terminal
    yours = live and viewer.role == SEAT and viewer.seat == player
    module = session.game.module
    legal = []
    if yours:
        legal = [
            {
                "id": a,
                "name": state.action_to_string(a),
                "kind": action_kind(module, a),
                "target": action_target(module, a),
            }
            for a in state.legal_actions()
        ]
    game = session.game
    job = session.job
    undo_size = session.undo_size(viewer) if at == length else 0
    return {
        "id": session.id,
        "game": game.name,
        "players": game.num_players(),
        "mode": session.mode,
        "viewer": viewer.public(),
        "version": session.version,
        "revealed": everything,
        "seed": session.seed if everything else None,
        "seats": session.seats,
        "source": session.source_name,
        "at": at,
        "length": length,
        "state": state.to_dict() if everything else seen_state(state, viewer),
        "current_player": None if terminal else player,
        "terminal": terminal,
        "decision": state._decision_name(),
        "waiting_for": None if not live else (HUMAN if session.seats[player] == HUMAN else "agent"),
        "your_decision": yours,
        "can_undo": undo_size > 0,
        "undo_size": undo_size,
        "legal": legal,
        "scores": seen_scores(session, state, viewer, everything, at),
        "history": [
            {
                "n": n,
                "player": p,
                "action": a,
                "name": game.action_to_string(a),
                "target": action_target(module, a),
            }
            for n, (p, a) in enumerate(session.moves[since:], start=since + 1)
        ],
        "end_trigger": session.tracker.end_trigger(session.state) if at == length else None,
        "turns": session.tracker.turns if at == length else None,
        "agents": _agents(job),
        "can_download_log": session.seed is not None and everything,
        "since_mine": since_mine(session, viewer) if at == length else None,
        **session.talk.public(),
    }


def since_mine(session: Session, viewer: Viewer) -> dict | None:
    """What changed since the viewing seat last decided, as that seat may see it: the others'
    decisions since, the routes created, the posts established, this seat's pieces that left the
    board (displaced or moved away), the bonus markers put on or taken off routes, and the PP on
    the track. Worked out from the seat's own observations before and now, and the public list of
    decisions, so it tells nothing the seat cannot see. None for a host or spectator, or when the
    seat made the latest decision."""
    if viewer.role != SEAT or session.mode == "replay":
        return None
    key = (session.version, len(session.moves), viewer.seat)
    if key not in session.summaries:
        if len(session.summaries) >= 16:
            session.summaries.clear()
        session.summaries[key] = _since_mine(session, viewer)
    return session.summaries[key]


def _since_mine(session: Session, viewer: Viewer) -> dict | None:
    seat, moves = viewer.seat, session.moves
    mine = [n for n, (player, _action) in enumerate(moves) if player == seat]
    start = mine[-1] + 1 if mine else 0
    if start >= len(moves):
        return None
    before = seen_state(session.state_at(start), viewer)
    now = seen_state(session.state, viewer)
    module = session.game.module
    created, posts = [], []
    for player, action in moves[start:]:
        kind, target = action_kind(module, action), action_target(module, action)
        if kind == "create" and target is not None:
            created.append({"player": player, "route": target["index"]})
        if kind in ("establish", "additional", "green_post") and target is not None:
            posts.append({"player": player, "city": target["index"]})
    return {
        "from": start,
        "decisions": [
            {"player": p, "count": sum(1 for q, _a in moves[start:] if q == p)}
            for p in sorted({q for q, _a in moves[start:]})
        ],
        "created": created,
        "posts": posts,
        "lost": _lost_pieces(before, now, seat),
        "markers": _route_markers(before, now),
        "track": [
            {"player": p, "before": b["track"], "now": a["track"]}
            for p, (b, a) in enumerate(
                zip(before["player_state"], now["player_state"], strict=True)
            )
            if b["track"] != a["track"]
        ],
    }


def _route_key(route: dict) -> tuple[str, ...]:
    return tuple(sorted(route["cities"]))


def _lost_pieces(before: dict, now: dict, seat: int) -> list[dict]:
    """The seat's pieces on routes before that are gone from their point now: `{cities, piece,
    by}` where `by` is the piece standing there now (a displacer) or None (moved or removed)."""
    own = {f"t{seat}", f"m{seat}"}
    routes_now = {_route_key(r): r for r in now["routes"]}
    lost = []
    for route in before["routes"]:
        after = routes_now.get(_route_key(route))
        if after is None:
            continue
        points = after["points"] if after["cities"] == route["cities"] else after["points"][::-1]
        for was, is_now in zip(route["points"], points, strict=False):
            if was in own and is_now != was:
                lost.append({"cities": route["cities"], "piece": was, "by": is_now})
    return lost


def _route_markers(before: dict, now: dict) -> list[dict]:
    """Bonus markers put on a route (`placed`) or taken from one (`taken`) between two views."""
    was = {_route_key(r): r.get("marker") for r in before["routes"]}
    changes = []
    for route in now["routes"]:
        old, new = was.get(_route_key(route)), route.get("marker")
        if old != new:
            if old is not None:
                changes.append({"cities": route["cities"], "marker": old, "change": "taken"})
            if new is not None:
                changes.append({"cities": route["cities"], "marker": new, "change": "placed"})
    return changes


def change_notice(session: Session) -> dict:
    """What an update event says (the same for every viewer): enough to decide to fetch."""
    job = session.job
    return {
        "version": session.version,
        "length": len(session.moves),
        "terminal": session.state.is_terminal(),
        "agents_running": job is not None and not job.finished,
    }


def _agents(job) -> dict | None:
    """The agents' job as the page sees it; a failure's message names no path of the server."""
    if job is None:
        return None
    public = job.public()
    if public.get("error"):
        public["error"] = redact(public["error"])
    return public
