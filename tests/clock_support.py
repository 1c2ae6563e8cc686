"""The suite's clocks. Nothing the suite checks is bounded by the wall clock unless it is itself
about time, so a test gives the same answer on an idle machine and on a shared one under load:

- work whose cost a test bounds (a parse, a build, a rule's check, a fuzz case) is measured in
  CPU seconds of this process (`cpu_seconds`, `cpu_bounded`), which other processes do not add to;
- what waits on another process or thread (a server starting, a subprocess, a browser) waits at
  most `HANG_GUARD` seconds: not a limit on the work, only so that a hang fails its test instead of
  stalling the run. It is generous on purpose (measured: the slowest such wait, a local Ray
  starting beside a loaded suite, takes about a minute); `HANSA_TEST_HANG_GUARD` changes it.
"""

from __future__ import annotations

import functools
import os
import time

HANG_GUARD = float(os.environ.get("HANSA_TEST_HANG_GUARD", "600"))


def deadline() -> float:
    """`time.monotonic()` value after which a wait for another process has hung."""
    return time.monotonic() + HANG_GUARD


def cpu_seconds() -> float:
    """CPU seconds this process has used (all its threads), for bounding the cost of work."""
    return time.process_time()


def cpu_bounded(seconds: float):
    """Each call of the decorated test (each Hypothesis example) uses less than `seconds` of CPU."""

    def decorate(test):
        @functools.wraps(test)
        def bounded(*args, **kwargs):
            started = cpu_seconds()
            result = test(*args, **kwargs)
            used = cpu_seconds() - started
            assert used < seconds, f"{used:.2f} CPU seconds, more than {seconds}"
            return result

        return bounded

    return decorate
