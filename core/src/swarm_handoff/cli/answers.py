"""Replay a repeated `discover` from the user cache before importing typer, pluggy, attrs or YAML.

Start-up, not scanning, is what a small `discover` costs: the interpreter, typer, pluggy, attrs,
ruamel.yaml and every plugin's module take ~300 ms before the first SKILL.md is read. So when the
console script runs `discover` (without `--session` or `--refresh`), the printed answer is stored
under `$XDG_CACHE_HOME/swarm-handoff/answers/` together with everything it rests on, and the next
identical run prints it again if, and only if, all of that is unchanged:

* the *key*: the command line (the program's name as typed included), the working directory,
  the whole environment except shell bookkeeping (`_VOLATILE`), the interpreter, its version and
  `sys.path`, whether stdout/stderr are terminals, and the swarm-handoff version. Only its
  BLAKE2b digest is stored, so no environment value (tokens, passwords) is ever written to disk;
* the *inputs*, each by a fresh `stat` (mtime in ns and size, or still absent): every file and
  folder discovery read or looked for (the same list the result cache keeps), every `sys.path`
  entry (installing or removing a distribution changes its folder), and the source file of every
  module the answer's run imported from outside the standard library and site-packages (an
  editable install's code can change without a reinstall);
* every path that was resolved through symlinks (`--cwd`), which must still resolve the same way.

Anything else (a miss, a corrupt or foreign file, an unreadable cache) falls through to the normal
command, which then stores a fresh answer. `SWARM_HANDOFF_NO_CACHE=1` turns this off with the
other caches. Only the console script (`main()` with no arguments) replays and records: the
testing kit and `main([...])` callers always run the real command.
"""

from __future__ import annotations

import os
import sys

from swarm_handoff import filecache
from swarm_handoff._version import __version__

TYPE_CHECKING = False  # not `typing.TYPE_CHECKING`: importing typing costs ~10 ms of start-up
if TYPE_CHECKING:
    from collections.abc import Sequence
    from typing import Any

KIND = "answer"
MAX_ANSWERS = 64  # the oldest stored answers beyond this many are removed when a new one is written
MAX_ANSWER_BYTES = 16 * 1024 * 1024  # ...and beyond this many bytes (a 10,000-skill answer is ~5 MB)
# Set by shells on every command or `cd`: they differ between runs that must give the same answer.
_VOLATILE = frozenset({"_", "OLDPWD", "PWD", "SHLVL"})
# Options whose command has effects beyond printing (a session file) or must recompute.
_NEVER = ("--session", "--refresh", "--help", "-h")
_STDOUT, _STDERR = 1, 2


class Replayable:
    """A printed run stored under its key, shared by answers and help pages: one way to trust, print and store it.

    A stored entry is `(key, inputs, *fields)`; what the fields are, how they are checked and how
    they are printed is the subclass's (`_trusted`, `_print`, `_stored`), and the rest is here:
    the key must match, every input must stat the same, and nothing is printed until the whole
    entry passed its checks (a damaged entry is a miss, never half an answer followed by the real one).
    """

    KIND = ""
    # What a damaged or foreign entry raises while it is checked: a miss, then the command runs for real.
    DAMAGED: tuple[type[Exception], ...] = (TypeError, ValueError, KeyError, AttributeError)

    def __init__(self, folder: str, key: str) -> None:
        self.folder = folder
        self.key = filecache.digest(key)
        self.path = os.path.join(folder, f"{self.key}.bin")
        self.started = filecache.now_ns()  # before the command looks at any file

    def replay(self) -> int | None:
        """Print the stored run and give its exit status, or None when it cannot be trusted."""
        data = filecache.load(self.path, self.KIND)
        if not (isinstance(data, tuple) and len(data) == 5 and data[0] == self.key):
            return None
        fields = data[2:]
        try:
            status = self._trusted(fields)
            if status is None or not filecache.inputs_unchanged(data[1]):
                return None
        except self.DAMAGED:
            return None
        self._print(fields)
        self._replayed()
        return status

    def _store(self, inputs: Sequence[tuple[str, int, int]], *fields: object) -> None:
        """Write the entry unless an input changed too recently for its stat to vouch for it, then prune."""
        inputs = list(dict.fromkeys(inputs))
        if filecache.racy(inputs, self.started):
            return  # something changed just before the run: its metadata cannot vouch for what it printed
        filecache.dump(self.path, self.KIND, (self.key, tuple(inputs), *fields))
        self._prune()

    def _trusted(self, fields: tuple[Any, ...]) -> int | None:
        """The stored exit status when the entry's own fields pass their checks, else None."""
        raise NotImplementedError

    def _print(self, fields: tuple[Any, ...]) -> None:
        """Write what the run printed, as it printed it."""
        raise NotImplementedError

    def _replayed(self) -> None:
        """After a replay: nothing unless the kind keeps a use order."""

    def _prune(self) -> None:
        """Keep the kind's folder within its bounds (read when called: tests lower them)."""
        raise NotImplementedError


class Answer(Replayable):
    """One command run that may be replayed next time, and what it printed while it ran."""

    KIND = KIND

    def __init__(self, folder: str, key: str) -> None:
        super().__init__(folder, key)
        self.chunks: list[tuple[int, str]] = []
        self.inputs: list[tuple[str, int, int]] | None = None
        self.resolved: list[tuple[str, str]] = []

    def _trusted(self, fields: tuple[Any, ...]) -> int | None:
        """The status, if every `--cwd` resolves as it did and the chunks can be printed as stored."""
        resolved, chunks, status = fields
        if not all(os.path.realpath(given) == real for given, real in resolved):
            return None
        if sys.stdout is None or sys.stderr is None:  # no stream to print on (pythonw): run for real
            return None
        if not all(stream in (_STDOUT, _STDERR) and isinstance(text, str) for stream, text in chunks):
            return None
        return int(status)

    def _print(self, fields: tuple[Any, ...]) -> None:
        """Write each chunk to the stream it went to."""
        streams = {_STDOUT: sys.stdout, _STDERR: sys.stderr}
        for stream, text in fields[1]:
            streams[stream].write(text)
        sys.stdout.flush()
        sys.stderr.flush()

    def save(self, status: int) -> None:
        """Store what was printed, keyed and validated as the module docstring says."""
        if self.inputs is None or not self.chunks:
            return  # the command never said what its answer rests on: nothing may be replayed
        path_folders = (filecache.observe(p) for p in filecache.path_folders())
        inputs = [*self.inputs, *path_folders, *code_inputs()]  # packs stat sys.path too
        self._store(inputs, tuple(self.resolved), tuple(self.chunks), status)

    def _prune(self) -> None:
        _prune(self.folder)


_active: Answer | None = None


def start(args: Sequence[str]) -> Answer | None:
    """The answer slot for this command line, or None when it must always run for real."""
    if not args or args[0] != "discover":
        return None
    if any(a in _NEVER or a.startswith(("--session=", "--refresh=")) for a in args[1:]):
        return None
    cached = cache_and_cwd()
    if cached is None:
        return None
    folder, cwd = cached
    ttys = f"{isatty(sys.stdout)}{isatty(sys.stderr)}"
    # sys.argv[0] too: the set-aside note names the program as it was typed (`.venv/bin/swarm-handoff`).
    program = sys.argv[0] if sys.argv else ""
    key = "\0".join(
        (__version__, sys.version, sys.executable, program, *sys.path, "", cwd, ttys, *args, "", *environment())
    )
    return Answer(os.path.join(folder, "answers"), key)


def record(answer: Answer | None) -> None:
    """Make `answer` the one that `printed` and `rest_on` report to, for the rest of this process."""
    global _active
    _active = answer


def printed(text: str, *, err: bool = False) -> None:
    """Note text the command wrote (the output module calls this for everything it prints)."""
    if _active is not None:
        _active.chunks.append((_STDERR if err else _STDOUT, text))


def rest_on(inputs: Sequence[tuple[str, int, int]] | None, resolved: Sequence[tuple[str, str]] = ()) -> None:
    """Say what the printed answer depends on; None means it must not be replayed."""
    if _active is not None:
        _active.inputs = list(inputs) if inputs is not None else None
        _active.resolved = list(resolved)


def cache_and_cwd() -> tuple[str, str] | None:
    """The user cache folder and the working directory a stored run is keyed on, or None: then run for real.

    None when caching is off, or when the working directory was removed (the command then says so).
    """
    folder = filecache.cache_folder(os.environ)
    if folder is None:
        return None
    try:
        return folder, os.getcwd()
    except OSError:
        return None


def environment() -> list[str]:
    """The environment as sorted `K=V` lines, without the shell's bookkeeping: any variable may change output."""
    return sorted(f"{k}={v}" for k, v in os.environ.items() if k not in _VOLATILE)


def isatty(stream: object) -> bool:
    """Whether a stream is a terminal, False for one that cannot say (output differs on a terminal)."""
    try:
        return bool(stream.isatty())  # type: ignore[attr-defined]
    except (AttributeError, ValueError, OSError):
        return False


def code_inputs() -> list[tuple[str, int, int]]:
    """The modules this run imported that can change without a (re)install: editable and local code."""
    stdlib = os.path.join(os.path.dirname(os.__file__), "")
    sites = tuple(os.path.join(p, "") for p in filecache.site_dirs())
    out = []
    for module in list(sys.modules.values()):
        path = getattr(module, "__file__", None)
        if not isinstance(path, str) or path.startswith(stdlib) or path.startswith(sites):
            continue
        out.append(filecache.observe(path))
    return sorted(set(out))


def _prune(folder: str) -> None:
    """Keep the newest answers within `MAX_ANSWERS` and `MAX_ANSWER_BYTES`: each command line and folder stores one."""
    filecache.prune(folder, max_files=MAX_ANSWERS, max_bytes=MAX_ANSWER_BYTES)
