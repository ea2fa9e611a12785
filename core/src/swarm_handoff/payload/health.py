"""Run a skill's `health_check` before handing off: contained, bounded, and never raising.

A SKILL.md may come from a repository a stranger wrote, so its health check is treated as
untrusted code that we agreed to run, and no more:

* no shell: the command is split with `shlex` and run as an argument list, so `; rm -rf ~` is just
  an argument; a NUL byte, an empty or unsplittable command, a program that is not found or not
  executable is refused before anything runs;
* a minimal environment: only `BASE_ENV` and the names the skill lists in `handoff.health_check_env`
  are passed on, so tokens and keys in the user's environment stay with the user;
* its own session (process group), killed as a whole on time-out and again once the check exits,
  so a background child it started never outlives it;
* output read incrementally into a bounded buffer: the first `HEAD_BYTES` and last `TAIL_BYTES`
  are kept, and how many bytes were dropped in between is said, so `yes` cannot fill memory.

It runs in the skill's folder (so `./scripts/check` works), with no standard input, for at most
`TIMEOUT_SECONDS`.
"""

from __future__ import annotations

import contextlib
import os
import re
import shlex
import shutil
import signal
import subprocess
import threading
import time
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import IO, Any

import attrs

from swarm_handoff.errors import ErrorCode, SwarmError

TIMEOUT_SECONDS = 5.0
HEAD_BYTES = 4 * 1024
TAIL_BYTES = 4 * 1024
# Variables every check gets (when set): enough to find programs, a home, a locale and a temp folder.
BASE_ENV = ("PATH", "HOME", "LANG", "LC_ALL", "TMPDIR")
ENV_FIELD = "health_check_env"  # handoff.health_check_env: extra variable names a skill needs
MAX_DECLARED_ENV = 32
MAX_COMMAND_CHARS = 4096
# After the check exits (or is killed), how long to keep reading what is left in the pipe.
DRAIN_SECONDS = 1.0
_POLL_SECONDS = 0.01
_CHUNK = 64 * 1024
_ENV_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]{0,127}\Z")


@attrs.frozen(kw_only=True)
class HealthResult:
    """What the health check did: the command, exit status, captured output, and whether it passed."""

    command: str
    ok: bool
    returncode: int | None
    output: str
    reason: str = ""
    output_bytes: int = 0
    dropped_bytes: int = 0
    env: tuple[str, ...] = ()

    def to_data(self) -> dict[str, Any]:
        """Give the JSON-ready form."""
        data = attrs.asdict(self)
        data["env"] = list(self.env)
        return data


class CappedOutput:
    """Keep the head and the tail of a stream of any length in bounded memory, counting the rest."""

    def __init__(self, head: int = HEAD_BYTES, tail: int = TAIL_BYTES) -> None:
        self.head_limit, self.tail_limit = head, tail
        self.head = bytearray()
        self.tail = bytearray()
        self.total = 0

    def add(self, chunk: bytes) -> None:
        """Take one chunk: fill the head, then keep only the newest `tail` bytes."""
        self.total += len(chunk)
        room = self.head_limit - len(self.head)
        if room > 0:
            self.head += chunk[:room]
            chunk = chunk[room:]
        if chunk:
            self.tail += chunk[-self.tail_limit :] if self.tail_limit else b""
            del self.tail[: max(0, len(self.tail) - self.tail_limit)]

    @property
    def dropped(self) -> int:
        """How many bytes were neither in the head nor in the tail."""
        return self.total - len(self.head) - len(self.tail)

    def text(self) -> str:
        """The kept output as text, with a marker saying how much was dropped in the middle."""
        head = bytes(self.head).decode("utf-8", "replace")
        tail = bytes(self.tail).decode("utf-8", "replace")
        if not self.dropped:
            return head + tail
        return f"{head}\n[... {self.dropped} bytes dropped ...]\n{tail}"


def _refused(command: str, reason: str) -> HealthResult:
    return HealthResult(command=command, ok=False, returncode=None, output="", reason=reason)


def check_env_names(names: Iterable[Any]) -> tuple[tuple[str, ...], str | None]:
    """The declared variable names, or the reason they cannot be used (a skill's bug, reported)."""
    found = list(names)
    if len(found) > MAX_DECLARED_ENV:
        return (), f"{ENV_FIELD} lists {len(found)} names, at most {MAX_DECLARED_ENV} allowed"
    for name in found:
        if not isinstance(name, str) or not _ENV_NAME.match(name):
            return (), f"{ENV_FIELD}: {name!r} is not an environment variable name"
    return tuple(dict.fromkeys(found)), None


def declared_env(meta: Mapping[str, Any]) -> Sequence[Any]:
    """The names a skill declared in `handoff.health_check_env` (kept in the record's meta)."""
    value = meta.get(ENV_FIELD)
    if value is None:
        return ()
    return [value] if isinstance(value, str) else list(value) if isinstance(value, (list, tuple)) else [value]


def minimal_env(names: Sequence[str], source: Mapping[str, str] | None = None) -> dict[str, str]:
    """The environment a check gets: `BASE_ENV` plus the declared names, those that are set."""
    source = os.environ if source is None else source
    return {name: source[name] for name in (*BASE_ENV, *names) if name in source}


def _program(argv0: str, workdir: Path | None, path: str | None) -> tuple[str | None, str]:
    """Find the program the way exec would, or say why it cannot run (no exec attempted yet)."""
    if os.sep in argv0 or (os.altsep and os.altsep in argv0):
        candidate = Path(argv0)
        if not candidate.is_absolute() and workdir is not None:
            candidate = workdir / candidate
        if not candidate.exists():
            return None, f"program not found: {argv0}"
        if not candidate.is_file() or not os.access(candidate, os.X_OK):
            return None, f"not an executable file: {argv0}"
        return argv0, ""
    found = shutil.which(argv0, path=path if path is not None else os.defpath)
    if found is None:
        return None, f"program not found on PATH: {argv0}"
    return found, ""


def _exited(process: subprocess.Popen[bytes]) -> bool:
    """Whether the check has exited, without reaping it: while it is a zombie its group id cannot be reused."""
    waitid = getattr(os, "waitid", None)
    if waitid is None:
        return process.poll() is not None
    try:
        return waitid(os.P_PID, process.pid, os.WEXITED | os.WNOHANG | os.WNOWAIT) is not None
    except ChildProcessError:  # already reaped
        return True


def _kill_group(process: subprocess.Popen[bytes]) -> None:
    """Kill the check and everything still in its process group (background children included)."""
    killpg = getattr(os, "killpg", None)
    if killpg is None:  # no process groups here: the direct child is all we can reach
        if process.poll() is None:
            process.kill()
        return
    with contextlib.suppress(ProcessLookupError, PermissionError):  # the group is already empty
        killpg(process.pid, signal.SIGKILL)


def _pump(stream: IO[bytes], sink: CappedOutput) -> None:
    """Read the check's output as it comes, into bounded memory, until every writer has closed it."""
    fd = stream.fileno()
    while True:
        try:
            chunk = os.read(fd, _CHUNK)
        except OSError:
            return
        if not chunk:
            return
        sink.add(chunk)


def run_health_check(
    command: str,
    *,
    cwd: Path | None = None,
    timeout: float | None = None,
    env_names: Iterable[Any] = (),
    environ: Mapping[str, str] | None = None,
) -> HealthResult:
    """Run `command` as an argument list (no shell), contained, and report, never raise, how it went."""
    if not isinstance(command, str) or not command.strip():
        return _refused(str(command or ""), "the command is empty")
    if "\x00" in command:
        return _refused(command, "the command contains a NUL byte")
    if len(command) > MAX_COMMAND_CHARS:
        return _refused(command[:200] + "…", f"the command is longer than {MAX_COMMAND_CHARS} characters")
    names, bad = check_env_names(env_names)
    if bad is not None:
        return _refused(command, bad)
    try:
        argv = shlex.split(command)
    except ValueError as exc:
        return _refused(command, f"cannot split: {exc}")
    if not argv:
        return _refused(command, "the command is empty")
    timeout = TIMEOUT_SECONDS if timeout is None else timeout
    env = minimal_env(names, environ)
    workdir = cwd if cwd is not None and cwd.is_dir() else None
    program, why = _program(argv[0], workdir, env.get("PATH"))
    if program is None:
        return _refused(command, f"cannot run: {why}")
    sink = CappedOutput()
    try:
        process = subprocess.Popen(
            argv,
            executable=program,
            cwd=workdir,
            env=env,
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            start_new_session=True,  # its own process group, so the whole group can be killed
        )
    except (OSError, ValueError) as exc:
        return _refused(command, f"cannot run: {exc}")
    assert process.stdout is not None
    reader = threading.Thread(target=_pump, args=(process.stdout, sink), daemon=True)
    reader.start()
    timed_out = False
    try:
        deadline = time.monotonic() + timeout
        while not _exited(process):
            if time.monotonic() >= deadline:
                timed_out = True
                break
            time.sleep(_POLL_SECONDS)
    finally:
        _kill_group(process)  # on time-out, and after a normal exit: no grandchild survives
        returncode = process.wait()
        reader.join(DRAIN_SECONDS)
        if not reader.is_alive():
            process.stdout.close()
        # else: a process that left the group still holds the pipe; the daemon reader ends with it
    output = sink.text()
    common: dict[str, Any] = {
        "command": command,
        "output": output,
        "output_bytes": sink.total,
        "dropped_bytes": sink.dropped,
        "env": tuple(sorted(env)),
    }
    if timed_out:
        return HealthResult(ok=False, returncode=None, reason=f"timed out after {timeout:g} s", **common)
    ok = returncode == 0
    reason = "" if ok else f"exited with status {returncode}"
    return HealthResult(ok=ok, returncode=returncode, reason=reason, **common)


def health_error(skill: str, result: HealthResult, preserved: str | None, option: str = "--health-check") -> SwarmError:
    """The seed's HEALTH_CHECK_FAILED error with the command's output (`option`: the check as the caller spells it)."""
    where = f"; payload preserved at {preserved}" if preserved else ""
    return SwarmError(
        ErrorCode.HEALTH_CHECK_FAILED,
        f"health check of {skill} failed: {result.reason}{where}",
        details={
            "target_skill": skill,
            "command": result.command,
            "output": result.output,
            "output_bytes": result.output_bytes,
            "dropped_bytes": result.dropped_bytes,
        },
        hint=f"fix the skill (see the output), or hand off without {option}",
        recoverable=True,
        payload_preserved=preserved,
    )
