"""Issue 25 (LOW): a source that never returns hung every discovery command.

Each source now has a bound (SWARM_HANDOFF_SOURCE_TIMEOUT, 60 s by default); a late source is
SOURCE_TIMEOUT and the other sources' skills are still listed. The tests use a tiny bound and a
source that waits on an Event nobody sets (a bound of 1 s: the other source, its imports done,
answers in microseconds), and assert the outcome, not how long it took.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import threading

import pytest

from swarm_handoff.api import Scope, SkillsPlace, SourceResult, hookimpl, walk_skills
from swarm_handoff.discovery import discover, make_context
from swarm_handoff.source_bound import ENV_SOURCE_TIMEOUT, SOURCE_TIMEOUT, source_timeout
from swarm_handoff.testing import write_skill

NEEDS_FORK = pytest.mark.skipif(not hasattr(os, "fork") or sys.platform == "darwin", reason="no fork")


class Stuck:
    priority = 7

    def __init__(self, gate: threading.Event) -> None:
        self.gate = gate

    def discover(self, context):
        self.gate.wait()  # never set while discovery runs
        return SourceResult()


class Fine:
    priority = 1

    def discover(self, context):
        place = SkillsPlace(context.cwd / ".claude" / "skills", Scope.PROJECT)
        found = walk_skills([place], source="fine", env=context.env)
        return SourceResult(records=found.records, problems=found.problems, scanned=found.scanned)


@pytest.fixture
def stuck(register_plugin, swarm_host, tmp_path):
    gate = threading.Event()

    class Plugin:
        @hookimpl
        def swarm_handoff_discovery_sources(self, register):
            register("stuck", lambda: Stuck(gate))
            register("fine", Fine)

    register_plugin(Plugin(), "stuck-plugin")
    Fine().discover(make_context(tmp_path))  # imports done: the bound is about the stuck source alone
    yield swarm_host
    gate.set()  # let an abandoned worker thread end


@pytest.fixture
def project(tmp_path):
    """A project whose one skill, `mine`, the `fine` source finds."""
    write_skill(tmp_path / "project" / ".claude" / "skills", "mine")
    return tmp_path / "project"


def _env(tmp_path, bound="1"):
    return {"HOME": str(tmp_path / "home"), "GIT_CEILING_DIRECTORIES": str(tmp_path), ENV_SOURCE_TIMEOUT: bound}


def _check(result):
    assert [r.name for r in result.workflows] == ["mine"]  # the other sources' skills are listed
    late = [p for p in result.problems if p.code == SOURCE_TIMEOUT]
    assert len(late) == 1
    assert "'stuck'" in late[0].message


def test_a_source_that_never_returns_is_a_coded_problem(stuck, tmp_path, project):
    _check(discover(make_context(project, _env(tmp_path)), stuck, cache=False))


def test_off_the_main_thread_the_bound_holds_too(stuck, tmp_path, project):
    out: list = []
    worker = threading.Thread(target=lambda: out.append(discover(make_context(project, _env(tmp_path)), stuck)))
    worker.start()
    worker.join()
    _check(out[0])


def test_the_bound_is_configurable_and_a_bad_value_says_so():
    assert source_timeout({}) == (60.0, None)
    assert source_timeout({ENV_SOURCE_TIMEOUT: "2.5"}) == (2.5, None)
    assert source_timeout({ENV_SOURCE_TIMEOUT: "0"}) == (None, None)
    bound, problem = source_timeout({ENV_SOURCE_TIMEOUT: "soon"})
    assert bound == 60.0
    assert problem is not None
    assert problem.code == SOURCE_TIMEOUT


def test_a_timer_someone_else_set_still_fires(stuck, tmp_path, project):
    if not hasattr(signal, "setitimer"):
        pytest.skip("no interval timers here")
    fired: list[int] = []
    previous = signal.signal(signal.SIGALRM, lambda *args: fired.append(1))
    try:
        signal.setitimer(signal.ITIMER_REAL, 3600)  # an hour: it must still be armed afterwards
        _check(discover(make_context(project, _env(tmp_path)), stuck, cache=False))
        remaining, _ = signal.getitimer(signal.ITIMER_REAL)
        assert remaining > 0
        assert signal.getsignal(signal.SIGALRM) is not None
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)
    assert fired == []


# -- review of issue 25: the bound holds whatever the source does, and its own failures are not kept ----------

SAFETY = 600  # a source's own give-up, in waits of 0.05 s: only reached when the bound did not hold


class Swallows:
    """A retry loop with a bare `except`: whatever is raised into it, it waits again."""

    priority = 7

    def __init__(self, gate: threading.Event) -> None:
        self.gate = gate

    def discover(self, context):
        for _ in range(SAFETY):
            try:
                if self.gate.wait(0.05):
                    break
            except BaseException:  # what the source under test does
                pass
        return SourceResult()


class OwnAlarm(Stuck):
    """A source that times itself with alarm() and cancels its alarm, then takes long."""

    def discover(self, context):
        import signal

        signal.alarm(0)  # cancels any process timer, as a source using alarm() for itself does
        self.gate.wait(SAFETY * 0.05)
        return SourceResult()


@pytest.fixture
def make_sources(register_plugin, swarm_host, tmp_path):
    gates: list[threading.Event] = []

    def make(kind):
        gate = threading.Event()
        gates.append(gate)

        class Plugin:
            @hookimpl
            def swarm_handoff_discovery_sources(self, register):
                register("stuck", lambda: kind(gate))
                register("fine", Fine)

        register_plugin(Plugin(), f"stuck-plugin-{len(gates)}")
        Fine().discover(make_context(tmp_path))
        return swarm_host

    yield make
    for gate in gates:
        gate.set()


@pytest.mark.parametrize("kind", [Swallows, OwnAlarm], ids=["swallows-BaseException", "cancels-alarm"])
def test_nothing_a_source_does_escapes_the_bound(make_sources, tmp_path, project, kind):
    host = make_sources(kind)
    _check(discover(make_context(project, _env(tmp_path)), host, cache=False))


def test_late_calls_leave_at_most_one_thread_per_source(stuck, tmp_path, project):
    # The MCP server runs each call in a worker thread; each late call used to leave one more thread.
    out: list = []

    def calls():
        for _ in range(5):
            out.append(discover(make_context(project, _env(tmp_path)), stuck, cache=False))

    worker = threading.Thread(target=calls)
    worker.start()
    worker.join()
    for result in out:
        _check(result)
    left = [t for t in threading.enumerate() if t.name.startswith("swarm-handoff-source")]
    assert len(left) == 1


def test_a_host_s_repeating_timer_is_left_as_it_was(stuck, tmp_path, project):
    if not hasattr(signal, "setitimer"):
        pytest.skip("no interval timers here")
    previous = signal.signal(signal.SIGALRM, lambda *args: None)
    try:
        signal.setitimer(signal.ITIMER_REAL, 3600, 1800)  # the host's: first in an hour, then every 30 min
        _check(discover(make_context(project, _env(tmp_path)), stuck, cache=False))
        assert signal.getitimer(signal.ITIMER_REAL)[1] == 1800
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)


class Quick(Stuck):
    def discover(self, context):
        return SourceResult()


def test_a_huge_bound_is_capped_with_a_warning_and_the_sources_still_answer(tmp_path, project, make_sources):
    from swarm_handoff.source_bound import MAX_SOURCE_TIMEOUT

    swarm_host = make_sources(Quick)

    bound, problem = source_timeout({ENV_SOURCE_TIMEOUT: "1e300"})
    assert bound == MAX_SOURCE_TIMEOUT
    assert problem is not None
    assert problem.code == SOURCE_TIMEOUT
    result = discover(make_context(project, _env(tmp_path, "1e300")), swarm_host, cache=False)
    assert [r.name for r in result.workflows] == ["mine"]
    assert [p.code for p in result.problems] == [SOURCE_TIMEOUT]


def test_a_failure_of_the_bound_itself_is_never_a_stored_answer(tmp_path, project, make_sources, monkeypatch):
    from swarm_handoff import discovery

    swarm_host = make_sources(Quick)

    def broken(call, seconds, **kwargs):
        raise RuntimeError("can't start new thread")

    monkeypatch.setattr(discovery, "bounded", broken)
    result, inputs = discovery.discover_detailed(make_context(project, _env(tmp_path)), swarm_host, cache=False)
    assert {p.code for p in result.problems} == {discovery.SOURCE_FAILED}
    assert inputs is None  # the empty answer is not kept: the next run asks the sources again


def run_python(code: str) -> list[str]:
    """Run `code` in a fresh interpreter (forks and leftover threads stay out of the test process); its words."""
    return subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout.split()


@NEEDS_FORK
def test_the_scan_still_forks_inside_a_bounded_source():
    # Sources run in a worker thread while the caller waits (parked): the parse may still fork.
    code = (
        "import os\n"
        "from swarm_handoff import parallel\n"
        "from swarm_handoff.source_bound import bounded\n"
        "pids = bounded(lambda: parallel.map_chunks(lambda c: [os.getpid() for _ in c], [1, 2], 2), 600, key='x')\n"
        "print(len(set(pids)))\n"
    )
    assert run_python(code) == ["2"]


@pytest.mark.skipif(not os.path.isdir("/proc/self/fd"), reason="counts descriptors in /proc/self/fd")
@NEEDS_FORK
def test_a_scan_late_while_its_children_run_reaps_them_and_closes_their_pipes():
    # The timer signal once interrupted the parent while it read its children: zombies, open pipes.
    code = (
        "import os\n"
        "from swarm_handoff import parallel, source_bound\n"
        "parent = os.getpid()\n"
        "r, w = os.pipe()\n"
        "def work(chunk):\n"
        "    if os.getpid() != parent:\n"
        "        os.read(r, 1)  # the child waits until the test lets it go\n"
        "    return list(chunk)\n"
        "fds = len(os.listdir('/proc/self/fd'))\n"
        "try:\n"
        "    source_bound.bounded(lambda: parallel.map_chunks(work, [1, 2], 2), 0.2, key='scan')\n"
        "except source_bound.SourceLate:\n"
        "    print('late')\n"
        "os.write(w, b'x')\n"
        "source_bound._running['scan'].join()\n"
        "try:\n"
        "    os.waitpid(-1, os.WNOHANG)\n"
        "    print('a child left')\n"
        "except ChildProcessError:\n"
        "    print('reaped')\n"
        "print(len(os.listdir('/proc/self/fd')) - fds)\n"
    )
    assert run_python(code) == ["late", "reaped", "0"]
