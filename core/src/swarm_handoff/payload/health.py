"""Run a skill's `health_check` before handing off: no shell, a time-out, output captured.

The command is split with `shlex` into an argument list and run directly, so a SKILL.md can never
smuggle `; rm -rf ~` through a shell. It runs in the skill's folder (so `./scripts/check` works),
with no standard input, for at most five seconds.
"""

from __future__ import annotations

import shlex
import subprocess
from pathlib import Path
from typing import Any

import attrs

from swarm_handoff.errors import ErrorCode, SwarmError

TIMEOUT_SECONDS = 5.0
OUTPUT_LIMIT = 4000


@attrs.frozen(kw_only=True)
class HealthResult:
    """What the health check did: the command, exit status, captured output, and whether it passed."""

    command: str
    ok: bool
    returncode: int | None
    output: str
    reason: str = ""

    def to_data(self) -> dict[str, Any]:
        """Give the JSON-ready form."""
        return attrs.asdict(self)


def _text(value: Any) -> str:
    if isinstance(value, bytes):
        return value.decode("utf-8", "replace")
    return value or ""


def _clip(text: str) -> str:
    return text if len(text) <= OUTPUT_LIMIT else text[: OUTPUT_LIMIT - 1] + "…"


def run_health_check(command: str, *, cwd: Path | None = None, timeout: float = TIMEOUT_SECONDS) -> HealthResult:
    """Run `command` as an argument list (no shell) and report, never raise, how it went."""
    try:
        argv = shlex.split(command)
    except ValueError as exc:
        return HealthResult(command=command, ok=False, returncode=None, output="", reason=f"cannot split: {exc}")
    if not argv:
        return HealthResult(command=command, ok=False, returncode=None, output="", reason="the command is empty")
    workdir = cwd if cwd is not None and cwd.is_dir() else None
    try:
        done = subprocess.run(
            argv, cwd=workdir, capture_output=True, stdin=subprocess.DEVNULL, timeout=timeout, check=False
        )
    except subprocess.TimeoutExpired as exc:
        output = _clip(_text(exc.stdout) + _text(exc.stderr))
        return HealthResult(
            command=command, ok=False, returncode=None, output=output, reason=f"timed out after {timeout:g} s"
        )
    except OSError as exc:
        return HealthResult(command=command, ok=False, returncode=None, output="", reason=f"cannot run: {exc}")
    output = _clip(_text(done.stdout) + _text(done.stderr))
    ok = done.returncode == 0
    reason = "" if ok else f"exited with status {done.returncode}"
    return HealthResult(command=command, ok=ok, returncode=done.returncode, output=output, reason=reason)


def health_error(skill: str, result: HealthResult, preserved: str | None) -> SwarmError:
    """The seed's HEALTH_CHECK_FAILED error, carrying the command's output."""
    where = f"; payload preserved at {preserved}" if preserved else ""
    return SwarmError(
        ErrorCode.HEALTH_CHECK_FAILED,
        f"health check of {skill} failed: {result.reason}{where}",
        details={"target_skill": skill, "command": result.command, "output": result.output},
        hint="fix the skill (see the output), or hand off without --health-check",
        recoverable=True,
        payload_preserved=preserved,
    )
