"""Agents think off the request path: a small pool of worker threads shared by every session.

A request asks a session's agents for some decisions (a `Job`: a number of steps, or until a
human's decision, with a delay between decisions and a thinking budget). The pool makes one
decision of one job at a time and then puts the job back in line, so many sessions share the
workers fairly and a long search never holds a request, a lock or the event loop: the agent thinks
on a copy of the position, and its choice is applied only if the game has not moved on meanwhile.
A job can be cancelled at any time (a new request, a dropped session, the server stopping); a
decision already being thought about then finishes in the background and is thrown away.

The number of workers bounds the CPU agents take from the server (the event loop shares the
interpreter with them), whatever the number of sessions asking. Of the jobs due, the one whose
session has thought least so far goes first: quick agents are not kept behind long searches.
"""

from __future__ import annotations

import heapq
import itertools
import threading
import time
from dataclasses import dataclass, field

WORKERS = 2  # decisions thought about at once, over all sessions
BUDGET_SECONDS = 60.0  # thinking time one request may give the agents
RETRY_BUSY = 0.01  # seconds before a job whose session is still thinking is tried again


@dataclass
class Job:
    """Agent decisions one request asked for."""

    steps: int  # at most this many decisions
    until_human: bool  # stop at a human's decision (else: stop there only before the first step)
    delay: float = 0.0  # seconds between two decisions (watching agents play)
    budget: float = BUDGET_SECONDS  # thinking time (wall clock of the agent's step calls)
    done: int = 0
    spent: float = 0.0
    cancelled: bool = False
    finished: bool = False
    reason: str | None = None  # why it stopped: steps, human, over, budget, cancelled, error
    error: str | None = None
    finished_event: threading.Event = field(default_factory=threading.Event)

    def finish(self, reason: str, error: str | None = None) -> None:
        if not self.finished:
            self.finished, self.reason, self.error = True, reason, error
            self.finished_event.set()

    def public(self) -> dict:
        return {
            "running": not self.finished,
            "done": self.done,
            "stopped": self.reason,
            "error": self.error,
        }


class AgentPool:
    """Worker threads making one agent decision at a time for whichever job is due first."""

    def __init__(self, workers: int = WORKERS) -> None:
        self.workers = workers
        self._due: list[tuple[float, int, object, Job]] = []  # (time, order, session, job)
        self._order = itertools.count()
        self._cond = threading.Condition()
        self._threads: list[threading.Thread] = []
        self.stopped = False

    def submit(self, session, job: Job, delay: float = 0.0) -> None:
        with self._cond:
            if self.stopped:
                job.finish("cancelled", "the server is stopping")
                return
            heapq.heappush(self._due, (time.monotonic() + delay, next(self._order), session, job))
            if len(self._threads) < self.workers:
                thread = threading.Thread(target=self._work, name="hansa agent", daemon=True)
                self._threads.append(thread)
                thread.start()
            self._cond.notify()

    def stop(self) -> None:
        """Cancel every queued job and let the workers end (a decision being thought about ends
        in the background; the threads are daemons, so they never hold the process)."""
        with self._cond:
            self.stopped = True
            for _when, _order, _session, job in self._due:
                job.cancelled = True
                job.finish("cancelled", "the server is stopping")
            self._due.clear()
            self._cond.notify_all()

    def _next(self):
        """The next job to think for: of those due, the one whose session has thought least so
        far (so a game of quick agents is not kept waiting behind long searches)."""
        with self._cond:
            while True:
                if self.stopped:
                    return None
                now = time.monotonic()
                due = [i for i, item in enumerate(self._due) if item[0] <= now]
                if due:
                    pick = min(due, key=lambda i: (self._due[i][2].thought, self._due[i][1]))
                    _when, _order, session, job = self._due[pick]
                    self._due[pick] = self._due[-1]
                    self._due.pop()
                    heapq.heapify(self._due)
                    return session, job
                if self._due:
                    self._cond.wait(self._due[0][0] - now)
                else:
                    self._cond.wait()

    def _work(self) -> None:
        while True:
            item = self._next()
            if item is None:
                return
            session, job = item
            try:
                again = session.agent_turn(job)
            except Exception as exc:  # noqa: BLE001 — a worker must outlive any one game
                job.finish("error", f"{type(exc).__name__}: {exc}")
                session.changed()
                continue
            if again is not None:
                self.submit(session, job, again)
