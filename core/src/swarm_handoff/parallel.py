"""Both cores for a cold scan: work split into ordered chunks, all but the first done by forked children.

Parsing YAML holds the GIL (the C parser builds Python objects for every event), so threads do
not help; a forked child starts with every module already imported, while a spawned one would
import the whole stack again (docs/performance.md has both costs). Children send their results back `marshal`ed through
a pipe; the parent does the first chunk itself, then reads the others in order, so the result is
the same list a serial run gives. A child that fails (killed, out of memory, an exception) costs
only time: the parent does its chunk again itself, and any error it raises is the serial run's.

Forking is used only where it is safe and cheap: POSIX systems other than macOS (whose system
libraries are not fork-safe), and only while no other thread runs (forking a threaded process
can deadlock the child on a lock another thread held). A thread that only waits for the forking
one (`parked`: discovery's caller, while its source runs in a worker thread) holds no such lock and
does not count. Elsewhere the work runs
serially, with the same results. `SWARM_HANDOFF_JOBS=N` sets the number of processes (1 turns
this off; at most `MAX_SET_JOBS`, 64). By default it is the number of usable CPUs that are idle,
at most `MAX_JOBS`: on a machine whose other cores are already busy (load average at or above the
CPU count) a second process only competes with the first, so the scan stays serial (measured:
docs/performance.md).
"""

from __future__ import annotations

import contextlib
import os
import sys
import threading
from collections.abc import Callable, Iterator, Mapping
from typing import Any, TypeVar

T = TypeVar("T")

ENV_JOBS = "SWARM_HANDOFF_JOBS"
MAX_JOBS = 8
# The most `SWARM_HANDOFF_JOBS` may ask for. Each process is a fork of the whole parent and a pipe
# held open until it is read (a thousand would meet the usual limit of 1,024 open files), and past
# the CPUs a process only waits for a core; 64 is above the CPUs of the machines this runs on.
MAX_SET_JOBS = 64
# Below this many files to parse, one process is faster. A fork, the transfer and the reaping cost
# ~3-5 ms (measured on 2 CPUs, docs/performance.md "Both cores"); half of 200 SKILL.md files at
# ~0.15 ms each over the C parser (0.6 ms over the pure one) pays that back with a margin of 3.
MIN_PARALLEL = 200


def usable_cpus() -> int:
    """CPUs this process may run on (its affinity mask where the system has one), at least 1."""
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except (AttributeError, OSError):
        return max(1, os.cpu_count() or 1)


def idle_cpus() -> int:
    """Usable CPUs not already busy by the 1-minute load average (this process not counted yet), at least 1."""
    cpus = usable_cpus()
    try:
        load = os.getloadavg()[0]
    except (AttributeError, OSError):  # no load average (Windows): assume the cores are ours
        return cpus
    return max(1, min(cpus, int(cpus - load + 1)))


def jobs_from(env: Mapping[str, str]) -> int:
    """Processes to use, from `SWARM_HANDOFF_JOBS`; anything but a positive integer means 1 (serial is always right).

    A number above `MAX_SET_JOBS` is taken as that many, with one warning per process on stderr.
    """
    value = env.get(ENV_JOBS, "").strip()
    if not value:
        return min(idle_cpus(), MAX_JOBS)
    if value.isascii() and value.isdigit() and len(value.lstrip("0")) > 6:
        number, shown = MAX_SET_JOBS + 1, value[:20] + ("..." if len(value) > 20 else "")  # no int() of a huge text
    else:
        try:
            number = int(value)
        except ValueError:
            return 1
        shown = str(number)
    if number > MAX_SET_JOBS:
        _warn_jobs(shown)
        return MAX_SET_JOBS
    return max(1, number)


_warned_jobs: set[str] = set()


def _warn_jobs(shown: str) -> None:
    """One line on stderr per process: the variable asks for more processes than are ever started."""
    if _warned_jobs or sys.stderr is None:
        return
    _warned_jobs.add(shown)
    sys.stderr.write(
        f"warning: {ENV_JOBS}={shown} is more than {MAX_SET_JOBS}: {MAX_SET_JOBS} processes are used at most;"
        f" fix: set it to a number from 1 to {MAX_SET_JOBS}\n"
    )
    sys.stderr.flush()


# Threads that only wait for another thread of this process to finish (`parked`): they hold no lock
# a forked child could need, so a fork from the thread they wait for is as safe as from a lone one.
_parked: set[int] = set()
_fork_lock = threading.Lock()  # held across each fork, and by a parked thread before it goes on


def _after_fork_in_child() -> None:
    global _fork_lock
    _fork_lock = threading.Lock()  # the child's copy was taken mid-fork
    _parked.clear()


if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=_after_fork_in_child)


@contextlib.contextmanager
def parked() -> Iterator[None]:
    """While the calling thread only waits (`Thread.join`) for a worker, let that worker fork.

    Leaving takes the fork lock first, so a waiter that gives up never runs on while a fork of
    its worker is under way.
    """
    ident = threading.get_ident()
    with _fork_lock:
        _parked.add(ident)
    try:
        yield
    finally:
        with _fork_lock:
            _parked.discard(ident)


def can_fork() -> bool:
    """True where forking this process is safe: POSIX but not macOS, and no other thread running.

    Threads `parked` waiting for this one do not count: the discovery sources run in a worker
    thread while the caller waits for it.
    """
    if not hasattr(os, "fork") or sys.platform == "darwin":
        return False
    others = {t.ident for t in threading.enumerate()} - {threading.get_ident()}
    return others <= _parked


def map_chunks(work: Callable[[list[T]], list[Any]], tasks: list[T], jobs: int) -> list[Any]:
    """`work(tasks)`, computed in up to `jobs` processes; the same list, in the same order, as one call.

    `work` must return one marshal-able item per task, and must not depend on being in the parent.
    """
    if jobs <= 1 or len(tasks) < 2 or not can_fork():
        return work(tasks)
    count = min(jobs, len(tasks))
    size = -(-len(tasks) // count)
    chunks = [tasks[i : i + size] for i in range(0, len(tasks), size)]
    children: list[tuple[int | None, int, list[T]]] = []
    results: list[Any] = []
    try:
        for chunk in chunks[1:]:
            children.append(_fork(work, chunk))
        results = work(chunks[0])
    finally:
        parts = [_collect(pid, fd) for pid, fd, _ in children]  # reaped even when the parent's own chunk fails
    for part, (_, _, chunk) in zip(parts, children, strict=True):
        if not isinstance(part, list) or len(part) != len(chunk):
            part = work(chunk)  # the child failed: its chunk costs time here, never a different result
        results.extend(part)
    return results


def _fork(work: Callable[[list[T]], list[Any]], chunk: list[T]) -> tuple[int | None, int, list[T]]:
    """Start a child computing `work(chunk)` into a pipe; (None, -1, chunk) when no child could start."""
    import marshal
    import warnings

    try:
        read_fd, write_fd = os.pipe()
    except OSError:
        return None, -1, chunk
    with _fork_lock:  # no parked thread goes on while the child is being made
        try:
            if not can_fork():
                raise OSError("another thread runs now")
            with warnings.catch_warnings():  # Python 3.12+ warns of any other thread, parked or not
                warnings.simplefilter("ignore", DeprecationWarning)
                pid = os.fork()
        except OSError:
            os.close(read_fd)
            os.close(write_fd)
            return None, -1, chunk
    if pid == 0:  # pragma: no cover - the child: coverage does not follow a fork
        status = 1
        try:
            os.close(read_fd)
            data = marshal.dumps(work(chunk))
            view = memoryview(data)
            while view:
                view = view[os.write(write_fd, view) :]
            status = 0
        except BaseException:  # whatever happens, the parent redoes the chunk
            pass
        finally:
            os._exit(status)  # no atexit handlers, no flushing of the parent's buffered output
    os.close(write_fd)
    return pid, read_fd, chunk


def _collect(pid: int | None, fd: int) -> Any:
    """A child's result, or None when it failed; the pipe is read before waiting, so a full pipe never blocks."""
    import marshal

    if pid is None:
        return None
    chunks = []
    try:
        while block := os.read(fd, 1 << 20):
            chunks.append(block)
    except OSError:
        chunks = []
    finally:
        os.close(fd)
    try:
        _, status = os.waitpid(pid, 0)
    except OSError:
        return None
    if status != 0 or not chunks:
        return None
    try:
        return marshal.loads(b"".join(chunks))
    except (ValueError, EOFError, TypeError):
        return None
