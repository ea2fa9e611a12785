"""The time bound on each discovery source: the setting, and running one call in a worker thread.

A source that never returns must not hang every discovery command (issue 25). No signal is used:
nothing a source does can cancel or swallow the bound, and a host's own timers are never touched.
`discovery.run_sources` calls `bounded` for each source and reports `SourceLate` as SOURCE_TIMEOUT.
"""

from __future__ import annotations

import threading
from collections.abc import Mapping
from typing import Any

from swarm_handoff import parallel
from swarm_handoff.errors import ErrorCode, Problem, Severity

SOURCE_TIMEOUT = ErrorCode.SOURCE_TIMEOUT.value
# Seconds one source may take before discovery goes on without it (0: no bound). A cold scan of
# 10,000 skills takes a few seconds; a source that takes a minute is stuck, not slow.
ENV_SOURCE_TIMEOUT = "SWARM_HANDOFF_SOURCE_TIMEOUT"
DEFAULT_SOURCE_TIMEOUT = 60.0


class SourceLate(Exception):
    """A source did not answer within its bound (or its previous call is still running)."""


# The largest bound taken as given (about 11 days); a larger one is this, with a warning. Timers and
# waits of the system refuse values far beyond it (a bound of 1e300 s once failed every source).
MAX_SOURCE_TIMEOUT = 1e6


def source_timeout(env: Mapping[str, str]) -> tuple[float | None, Problem | None]:
    """The bound on each source from SWARM_HANDOFF_SOURCE_TIMEOUT (None: unbounded), and a problem for a bad value."""
    raw = env.get(ENV_SOURCE_TIMEOUT, "").strip()
    if not raw:
        return DEFAULT_SOURCE_TIMEOUT, None
    try:
        value = float(raw)
        if value != value or value == float("inf"):  # NaN or infinity: no number of seconds
            raise ValueError(raw)
    except ValueError:
        problem = Problem(
            SOURCE_TIMEOUT,
            f"{ENV_SOURCE_TIMEOUT}={raw!r} is not a number of seconds; using {DEFAULT_SOURCE_TIMEOUT:g}",
            hint=f"set {ENV_SOURCE_TIMEOUT} to seconds (e.g. 30), or 0 for no bound",
            severity=Severity.WARNING,
        )
        return DEFAULT_SOURCE_TIMEOUT, problem
    if value > MAX_SOURCE_TIMEOUT:
        problem = Problem(
            SOURCE_TIMEOUT,
            f"{ENV_SOURCE_TIMEOUT}={raw!r} is more than {MAX_SOURCE_TIMEOUT:g} seconds; using {MAX_SOURCE_TIMEOUT:g}",
            hint=f"set {ENV_SOURCE_TIMEOUT} to at most {MAX_SOURCE_TIMEOUT:g} seconds, or 0 for no bound",
            severity=Severity.WARNING,
        )
        return MAX_SOURCE_TIMEOUT, problem
    return (value if value > 0 else None), None


_running: dict[str, Any] = {}  # key -> the worker thread of a late call that has not ended yet
_running_lock = threading.Lock()


def bounded(call: Any, seconds: float | None, *, key: str | None = None) -> Any:
    """Run `call()` in a worker thread and wait at most `seconds` for it (None: as long as it takes).

    A late call is abandoned, not interrupted (no signal is used: nothing a source does can cancel
    or swallow the bound, and a host's own timers are never touched); `SourceLate` is raised here.
    With a `key` (the source's name), at most one abandoned call per key runs at a time: while it
    has not ended, the next call with that key is late at once, without starting another thread.
    The waiting thread counts as parked for `parallel.can_fork`, so the scan's forked parsing still
    runs inside the worker.
    """
    import contextvars

    if seconds is None:
        return call()
    if key is not None:
        with _running_lock:
            previous = _running.get(key)
            if previous is not None and previous.is_alive():
                raise SourceLate()
            _running.pop(key, None)
    box: list[Any] = []
    context = contextvars.copy_context()  # the cache layer's recording scope goes with the call

    def run() -> None:
        try:
            box.append((True, context.run(call)))
        except BaseException as exc:  # handed back to the caller's thread below
            box.append((False, exc))

    worker = threading.Thread(target=run, name=f"swarm-handoff-source-{key or 'call'}", daemon=True)
    with parallel.parked():
        worker.start()
        worker.join(seconds)
    if not box:
        if key is not None:
            with _running_lock:
                _running[key] = worker
        raise SourceLate()
    ok, value = box[0]
    if not ok:
        raise value
    return value
