"""Print a repeated `--help` from the user cache before importing typer, pluggy, attrs or YAML.

The root help lists every command, plugins' included (the `swarm_handoff_cli` hook), so printing
it for real builds the plugin host and typer's app: ~200 ms of imports for a page that only changes
when the installation does. So the console script keeps each help page it printed under
`$XDG_CACHE_HOME/swarm-handoff/help/`, as the bytes written to stdout and stderr and the exit
status, and prints them again if, and only if, everything the page rests on is unchanged:

* the *key*: the command line, the working directory, the whole environment except shell
  bookkeeping (locale, `COLUMNS`, `TERM`, `NO_COLOR`, the plugin allow and block lists included),
  the terminal's size, whether stdout/stderr are terminals and their encodings, the interpreter,
  its version, flags (`-X`, `-W`) and `sys.path`, and the swarm-handoff version. Only its BLAKE2b
  digest is stored;
* the *inputs*, each by a fresh `stat`: every `sys.path` folder (installing or removing a
  distribution changes its folder), the metadata folder and `entry_points.txt` of every plugin
  and skill pack that was found (the fingerprint the entry-point cache uses), and the source file
  of every module the printing run imported from outside the standard library and site-packages
  (an editable install's help text can change without a reinstall).

Covered: `swarm-handoff` alone, `--help`/`-h`, and `COMMAND [SUBCOMMAND] --help`/`-h`. A page is
stored only when the run succeeded without a plugin failure (a broken plugin is retried every
time), and a stored page is printed only when it passes every check, its own digest included, and
holds no terminal control character but tab and newline; anything else (a miss, a corrupt or
foreign file) falls through to the real command, which stores the page again. Never under shell
completion (`_SWARM_HANDOFF_COMPLETE`, whose answers read the file system) or
`SWARM_HANDOFF_STRICT_PLUGINS`; `SWARM_HANDOFF_NO_CACHE=1` turns it off with the other caches.
"""

from __future__ import annotations

import io  # already imported by the interpreter for sys.stdout: free
import os
import sys

from swarm_handoff import filecache
from swarm_handoff._version import __version__
from swarm_handoff.cli import COMPLETE_VAR as COMPLETE_VAR  # one name for typer's variable; cli/__init__ is loaded
from swarm_handoff.cli.answers import Replayable, cache_and_cwd, code_inputs, environment, isatty

TYPE_CHECKING = False  # not `typing.TYPE_CHECKING`: importing typing costs ~10 ms of start-up
if TYPE_CHECKING:
    from collections.abc import Sequence
    from typing import Any, TextIO

KIND = "help-page"
MAX_PAGES = 64  # the least recently used pages beyond this many are removed when one is written
MAX_PAGE_BYTES = 2 * 1024 * 1024  # ...and beyond this many bytes (the root page is ~2 KB)
HELP = ("--help", "-h")
MAX_WORDS = 3  # `workflow step --help` is as deep as the commands go; deeper lines run for real
_STDOUT, _STDERR = 1, 2
# Bytes a help page never holds: C0 controls but tab and newline (ESC starts a terminal sequence), DEL.
_CONTROL = bytes(b for b in range(32) if b not in (9, 10)) + b"\x7f"


def covers(args: Sequence[str]) -> bool:
    """True for a command line that only prints help: nothing, `--help`/`-h`, or plain words then one of them."""
    if not args:
        return True
    *words, last = args
    return last in HELP and len(words) <= MAX_WORDS and all(_plain(w) for w in words)


def _plain(word: str) -> bool:
    """A command name as the CLI spells them (`discover`, `session`, `step`), never an option or a path."""
    return word.isascii() and word[:1].isalpha() and all(c.isalnum() or c in "-_" for c in word)


class Page(Replayable):
    """One help page that may be printed again next time, and what the printing run wrote."""

    KIND = KIND

    def __init__(self, folder: str, key: str, *, bare: bool) -> None:
        super().__init__(folder, key)
        self.bare = bare  # `swarm-handoff` alone: click >= 8.2 prints the help on stderr and exits 2
        self.chunks: list[tuple[int, bytes]] = []

    def _trusted(self, fields: tuple[Any, ...]) -> int | None:
        """The status, if the chunks are a page's bytes and match the page's own digest."""
        chunks, status, check = fields
        if not (isinstance(status, int) and _valid(chunks) and check == _digest(chunks)):
            return None
        return status

    def _print(self, fields: tuple[Any, ...]) -> None:
        """Write the page's bytes to the streams' buffers."""
        _write(fields[0], sys.stdout, sys.stderr)

    def _replayed(self) -> None:
        """Mark the page recently used, so that it is pruned last (`filecache.touch` would import contextlib)."""
        try:
            os.utime(self.path)
        except OSError:  # a read-only cache: only the page's rank is lost
            return

    def recording(self) -> _Recording:
        """Capture what the real command writes (to print it and maybe store it): `with page.recording(): ...`."""
        return _Recording(self)

    def save(self, status: int) -> None:
        """Store the page as printed, keyed and validated as the module docstring says."""
        if not self.chunks or not _valid(tuple(self.chunks)):
            return
        if status != 0 and not (self.bare and status == 2):
            return  # an error (an unknown command, a missing plugin) is not a help page
        if _plugin_failures():
            return  # a plugin that failed to load may load next time: always run for real then
        inputs = [filecache.observe(p) for p in filecache.path_folders()]
        inputs += _entry_point_inputs()
        inputs += code_inputs()
        chunks = tuple(self.chunks)
        self._store(inputs, chunks, status, _digest(chunks))

    def _prune(self) -> None:
        filecache.prune(self.folder, max_files=MAX_PAGES, max_bytes=MAX_PAGE_BYTES)


class _Recorder(io.BufferedIOBase):
    """The byte stream under a captured text stream: keeps each write, in order across both streams."""

    def __init__(self, stream: int, chunks: list[tuple[int, bytes]]) -> None:
        super().__init__()
        self.stream = stream
        self.chunks = chunks
        self.name = "<stdout>" if stream == _STDOUT else "<stderr>"  # as the real streams are named

    def writable(self) -> bool:
        """A sink."""
        return True

    def write(self, data: Any) -> int:
        """Keep `data` (what the text layer encoded), merged with the previous write to the same stream."""
        data = bytes(data)
        if data:
            chunks = self.chunks
            if chunks and chunks[-1][0] == self.stream:
                chunks[-1] = (self.stream, chunks[-1][1] + data)
            else:
                chunks.append((self.stream, data))
        return len(data)


class _Recording:
    """Swap stdout and stderr for recording copies (same encoding, errors and tty-ness) while the command runs.

    The command writes through click exactly as it would to the real streams; afterwards the bytes
    go to the real streams' buffers, so what a replay prints is byte for byte what this run printed.
    """

    def __init__(self, page: Page) -> None:
        self.page = page
        self.real: tuple[TextIO, TextIO] = (sys.stdout, sys.stderr)

    def __enter__(self) -> None:
        self.real = (sys.stdout, sys.stderr)
        sys.stdout = _captured(self.real[0], _STDOUT, self.page.chunks)
        sys.stderr = _captured(self.real[1], _STDERR, self.page.chunks)

    def __exit__(self, kind: type[BaseException] | None, exc: BaseException | None, tb: object) -> None:
        for captured in (sys.stdout, sys.stderr):
            captured.flush()  # write_through: nothing is held back, but the encoder may keep state
        sys.stdout, sys.stderr = self.real
        _write(self.page.chunks, *self.real)
        if isinstance(exc, SystemExit) and isinstance(exc.code, (int, type(None))):
            self.page.save(exc.code or 0)


def _write(chunks: Sequence[tuple[int, bytes]], stdout: TextIO, stderr: TextIO) -> None:
    """Write recorded bytes to the streams' buffers, in the order they were written."""
    for stream, data in chunks:
        out = stdout if stream == _STDOUT else stderr
        out.flush()
        out.buffer.write(data)
        out.buffer.flush()


def _captured(real: TextIO, stream: int, chunks: list[tuple[int, bytes]]) -> TextIO:
    """A text stream like `real` (encoding, errors, newline handling, tty-ness) whose bytes are recorded."""
    tty = isatty(real)

    class _Captured(io.TextIOWrapper):
        def isatty(self) -> bool:
            return tty

    return _Captured(_Recorder(stream, chunks), encoding=real.encoding, errors=real.errors, write_through=True)


def start(args: Sequence[str]) -> Page | None:
    """The help page slot for this command line, or None when it must run for real."""
    if not covers(args) or COMPLETE_VAR in os.environ:
        return None
    if os.environ.get("SWARM_HANDOFF_STRICT_PLUGINS", "").strip().lower() in {"1", "true", "yes", "on"}:
        return None  # strict: plugins are loaded and checked first, as for any command
    if os.name == "nt" and (isatty(sys.stdout) or isatty(sys.stderr)):
        return None  # click writes to a Windows console through its own stream: not byte-comparable
    if not all(hasattr(s, "buffer") and hasattr(s, "encoding") for s in (sys.stdout, sys.stderr)):
        return None
    cached = cache_and_cwd()
    if cached is None:
        return None
    folder, cwd = cached
    streams = "|".join(f"{isatty(s)},{s.encoding},{s.errors}" for s in (sys.stdout, sys.stderr))
    flags = f"{sys.flags}{sys.warnoptions}{sys._xoptions}"  # -X utf8, -W error, -O: other bytes or warnings
    where = (sys.version, sys.executable, *sys.path, "", cwd, flags, streams, _terminal())
    key = "\0".join((KIND, __version__, *where, *args, "", *environment()))
    return Page(os.path.join(folder, "help"), key, bare=not args)


def _terminal() -> str:
    """The terminal's size as `shutil.get_terminal_size` reads it (without importing shutil): help wraps to it."""
    try:
        size = os.get_terminal_size(sys.__stdout__.fileno())  # type: ignore[union-attr]
    except (AttributeError, ValueError, OSError):
        return "no terminal"
    return f"{size.columns}x{size.lines}"


def _valid(chunks: object) -> bool:
    """True for stored chunks of the right shape whose bytes hold no terminal control character."""
    if not isinstance(chunks, tuple):
        return False
    for chunk in chunks:
        if not (isinstance(chunk, tuple) and len(chunk) == 2 and chunk[0] in (_STDOUT, _STDERR)):
            return False
        data = chunk[1]
        if not isinstance(data, bytes) or data.translate(None, _CONTROL) != data:
            return False
    return True


def _digest(chunks: Sequence[tuple[int, bytes]]) -> str:
    """The page's own checksum: a damaged or edited file is a miss, never printed."""
    return filecache.digest("\0".join(f"{stream}:{data.hex()}" for stream, data in chunks))


def _plugin_failures() -> bool:
    """True when the plugin host this run built recorded a failure (a plugin that did not load or register)."""
    plugins = sys.modules.get("swarm_handoff.plugins")
    host = getattr(plugins, "_HOST", None)  # only a host this run built: never build one here
    return bool(getattr(host, "failures", None))


def _entry_point_inputs() -> list[tuple[str, int, int]]:
    """Each found plugin's and pack's metadata folder and `entry_points.txt`, as the entry-point cache watches them."""
    from swarm_handoff import entrypoints

    out = []
    for group in entrypoints.GROUPS:
        for entry_point in entrypoints.entry_points(group):
            path = getattr(getattr(entry_point, "dist", None), "_path", None)
            if path is not None:
                out += [filecache.observe(os.fspath(path)), filecache.observe(os.path.join(path, "entry_points.txt"))]
    return out
