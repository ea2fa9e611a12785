"""Issue 25 (LOW): a source that never returns hung every discovery command.

Each source now has a bound (SWARM_HANDOFF_SOURCE_TIMEOUT, 60 s by default); a late source is
SOURCE_TIMEOUT and the other sources' skills are still listed. The tests use a tiny bound and a
source that waits on an Event nobody sets (a bound of 1 s: the other source, its imports done,
answers in microseconds), and assert the outcome, not how long it took.
"""

from __future__ import annotations

import threading

import pytest

from swarm_handoff.api import Scope, SkillsPlace, SourceResult, hookimpl, walk_skills
from swarm_handoff.discovery import ENV_SOURCE_TIMEOUT, SOURCE_TIMEOUT, discover, make_context, source_timeout
from swarm_handoff.testing import write_skill


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


def _env(tmp_path, bound="1"):
    return {"HOME": str(tmp_path / "home"), "GIT_CEILING_DIRECTORIES": str(tmp_path), ENV_SOURCE_TIMEOUT: bound}


def _check(result):
    assert [r.name for r in result.workflows] == ["mine"]  # the other sources' skills are listed
    late = [p for p in result.problems if p.code == SOURCE_TIMEOUT]
    assert len(late) == 1
    assert "'stuck'" in late[0].message


def test_a_source_that_never_returns_is_a_coded_problem(stuck, tmp_path):
    project = tmp_path / "project"
    write_skill(project / ".claude" / "skills", "mine")
    _check(discover(make_context(project, _env(tmp_path)), stuck, cache=False))


def test_off_the_main_thread_the_bound_holds_too(stuck, tmp_path):
    project = tmp_path / "project"
    write_skill(project / ".claude" / "skills", "mine")
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


def test_a_timer_someone_else_set_still_fires(stuck, tmp_path):
    import signal

    if not hasattr(signal, "setitimer"):
        pytest.skip("no interval timers here")
    fired: list[int] = []
    previous = signal.signal(signal.SIGALRM, lambda *args: fired.append(1))
    try:
        signal.setitimer(signal.ITIMER_REAL, 3600)  # an hour: it must still be armed afterwards
        project = tmp_path / "project"
        write_skill(project / ".claude" / "skills", "mine")
        _check(discover(make_context(project, _env(tmp_path)), stuck, cache=False))
        remaining, _ = signal.getitimer(signal.ITIMER_REAL)
        assert remaining > 0
        assert signal.getsignal(signal.SIGALRM) is not None
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)
    assert fired == []
