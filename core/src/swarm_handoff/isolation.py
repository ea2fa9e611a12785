"""Run code someone else wrote without letting it corrupt the output: its prints go to stderr.

`quiet()` sends anything plugin or pack code prints to stderr, so a machine format on stdout stays
exactly one document. Every place plugin code runs (importing an entry point, calling a hook,
building or calling a component) is wrapped in it; the CLI's own output is written outside.
`short_error` is the one line every failure of such code is reported with. The loader imports a
plugin under these and nothing else of the host, so this module imports nothing of the product.
"""

from __future__ import annotations

import contextlib
import os
import sys
import threading
from collections.abc import Iterator
from typing import Any

# fd 1 is the process's, shared by every thread: the first `quiet()` to enter points it at stderr,
# the last to leave points it back (plugin hooks run in worker threads, side by side).
_fd_lock = threading.Lock()
_fd_users = 0
_fd_saved: int | None = None


def _flush(stream: Any) -> None:
    with contextlib.suppress(Exception):  # a closed or replaced stream: nothing to flush
        stream.flush()


@contextlib.contextmanager
def stdout_descriptor_to_stderr() -> Iterator[None]:
    """Point file descriptor 1 at stderr while plugin code runs, and back after (nested and threaded calls share it).

    `redirect_stdout` only catches Python's `print`; `os.write(1, ...)`, C code and child processes
    write to the descriptor itself, which is the document's (`--format json`). Over MCP's stdio the
    SDK already points fd 1 away from the protocol; this keeps it so and restores it the same way.
    """
    global _fd_users, _fd_saved
    with _fd_lock:
        if _fd_users == 0:
            _flush(sys.stdout)
            _flush(sys.__stdout__)
            try:
                saved = os.dup(1)
            except OSError:  # no fd 1 at all: nothing to protect
                saved = None
            if saved is not None:
                try:
                    os.dup2(2, 1)
                except OSError:
                    os.close(saved)
                    saved = None
            _fd_saved = saved
        _fd_users += 1
    try:
        yield
    finally:
        with _fd_lock:
            _fd_users -= 1
            if _fd_users == 0 and _fd_saved is not None:
                _flush(sys.__stdout__)  # what the plugin buffered goes where fd 1 pointed while it ran
                with contextlib.suppress(OSError):
                    os.dup2(_fd_saved, 1)
                os.close(_fd_saved)
                _fd_saved = None


@contextlib.contextmanager
def quiet() -> Iterator[None]:
    """Run plugin code with stdout pointing at stderr, so its prints never corrupt a document.

    Both levels: Python's `sys.stdout` and file descriptor 1 (`stdout_descriptor_to_stderr`).
    """
    with stdout_descriptor_to_stderr(), contextlib.redirect_stdout(sys.stderr):
        yield


def short_error(exc: BaseException) -> str:
    """The exception's type, message and the line that raised it, on one line."""
    import traceback  # deferred: only a failing plugin pays for it

    last = traceback.extract_tb(exc.__traceback__)[-1:] if exc.__traceback__ else []
    where = f" ({last[0].filename}:{last[0].lineno})" if last else ""
    return f"{type(exc).__name__}: {exc}{where}"
