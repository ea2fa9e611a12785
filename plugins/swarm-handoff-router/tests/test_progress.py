"""Progress while analysing many skills: a bar on a terminal's stderr, nothing anywhere else."""

from __future__ import annotations

import io
import sys
import threading

import pytest

from swarm_handoff.api import SkillRecord
from swarm_handoff_router import progress as progress_module
from swarm_handoff_router.document import analyse
from swarm_handoff_router.progress import MIN_ITEMS, progress


class Terminal(io.StringIO):
    """A stream that says it is a terminal."""

    def isatty(self) -> bool:
        return True


def records(count: int) -> list[SkillRecord]:
    return [
        SkillRecord(name=f"s{i}", scope="global", source="t", description=f"skill {i} of many") for i in range(count)
    ]


def test_a_terminal_sees_a_bar_with_the_count() -> None:
    stream = Terminal()
    with progress(MIN_ITEMS, "analysing skills", stream) as advance:
        for _ in range(MIN_ITEMS):
            advance(1)
    text = stream.getvalue()
    assert "analysing skills" in text
    assert f"{MIN_ITEMS}/{MIN_ITEMS}" in text


@pytest.mark.parametrize("stream", [io.StringIO(), None])
def test_not_a_terminal_gets_nothing(stream: io.StringIO | None, capsys: pytest.CaptureFixture[str]) -> None:
    with progress(MIN_ITEMS * 2, "analysing skills", stream) as advance:
        advance(5)
    assert (stream.getvalue() if stream is not None else "") == ""
    assert capsys.readouterr().err == ""


def test_a_few_items_get_no_bar_even_on_a_terminal() -> None:
    stream = Terminal()
    with progress(MIN_ITEMS - 1, "analysing skills", stream) as advance:
        advance(1)
    assert stream.getvalue() == ""


def test_a_closed_stream_is_not_a_terminal() -> None:
    stream = io.StringIO()
    stream.close()
    with progress(MIN_ITEMS, "x", stream) as advance:
        advance(1)  # no error, nothing drawn


def test_analysing_many_skills_shows_progress_on_a_terminal_stderr(monkeypatch: pytest.MonkeyPatch) -> None:
    terminal = Terminal()
    monkeypatch.setattr(sys, "stderr", terminal)
    monkeypatch.setenv("SWARM_HANDOFF_NO_CACHE", "1")
    documents = analyse(records(MIN_ITEMS))
    assert len(documents) == MIN_ITEMS
    assert "analysing skills" in terminal.getvalue()


def test_without_rich_there_is_no_bar_and_no_error(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "rich.progress", None)
    stream = Terminal()
    with progress(MIN_ITEMS, "x", stream) as advance:
        advance(1)
    assert stream.getvalue() == ""
    assert progress_module.MIN_ITEMS == MIN_ITEMS


def test_the_bar_runs_no_thread_so_the_analysis_may_fork() -> None:
    stream = Terminal()
    with progress(MIN_ITEMS, "analysing skills", stream) as advance:
        advance(1)
        assert threading.active_count() == 1  # a refresh thread would keep `map_chunks` serial
    assert "analysing skills" in stream.getvalue()
