"""Progress on stderr while the router analyses many skills (issue 28, point 5).

Analysing thousands of skills the first time (or after an upgrade) takes seconds; a person at a
terminal sees a progress bar on stderr (`rich`, which typer already brings), removed when done.
When stderr is not a terminal (a pipe, a file, an MCP server, a test) nothing is written at all,
so no output a program reads ever changes.
"""

from __future__ import annotations

import contextlib
import sys
import time
from collections.abc import Callable, Iterator
from typing import TextIO

# Fewer skills than this are analysed in well under a second: no bar.
MIN_ITEMS = 200
# How often the bar is drawn again, at most (seconds).
REFRESH = 0.1


def _terminal(stream: TextIO) -> bool:
    """True when `stream` is an interactive terminal."""
    try:
        return bool(stream.isatty())
    except (AttributeError, ValueError, OSError):  # closed, or not a real stream
        return False


@contextlib.contextmanager
def progress(total: int, what: str, stream: TextIO | None = None) -> Iterator[Callable[[int], None]]:
    """A function to call with the number of items done, drawing a bar on a terminal's stderr; a no-op elsewhere."""
    out = sys.stderr if stream is None else stream
    if total < MIN_ITEMS or not _terminal(out):
        yield _nothing
        return
    try:
        from rich.console import Console
        from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn
    except ImportError:  # rich comes with typer; without it, no bar rather than an error
        yield _nothing
        return
    console = Console(file=out, force_terminal=True)
    columns = (TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn())
    # Drawn from `advance`, at most every REFRESH seconds, not by rich's refresh thread: a running
    # thread keeps the analysis from forking its worker processes (`parallel.can_fork`).
    with Progress(*columns, console=console, transient=True, auto_refresh=False) as bar:
        task = bar.add_task(what, total=total)
        last = [0.0]

        def advance(done: int = 1) -> None:
            bar.advance(task, done)
            now = time.monotonic()
            if now - last[0] >= REFRESH or bar.tasks[0].completed >= total:
                last[0] = now
                bar.refresh()

        yield advance


def _nothing(done: int = 1) -> None:
    """Report nothing."""
