"""A receiver killed mid-write leaves temporaries and quarantine copies; the next start clears them (issue 29.3).

Only files it can prove are a killed run's own: its temporaries (`.NAME.PID.HEX12.tmp`) in its
session folders and its quarantine copies (`.incoming/PID-HASH16-RAND8.json`), older than the start,
whose writer is gone (or is this process, from before it loaded the receiving code). A user's file,
a live writer's file and a file newer than the start are left alone.
"""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path
from typing import Any


def dead_pid() -> int:
    """The pid of a process that has exited (and been reaped)."""
    child = subprocess.Popen([sys.executable, "-c", "pass"])
    child.wait()
    return child.pid


def put(path: Path, age: float) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("{}", encoding="utf-8")
    then = time.time() - age
    os.utime(path, (then, then))
    return path


def test_a_start_clears_what_a_killed_receiver_left_and_nothing_else(hosts, receiver):
    root = hosts["inbox"]
    gone, alive = dead_pid(), os.getppid()
    hour = 3600.0
    leftovers = [
        put(root / ".incoming" / f"{gone}-{'a' * 16}-{'b' * 8}.json", hour),
        put(root / "a2a-0123456789abcdef" / "handoffs" / f".alpha-to-beta-0123.json.{gone}.{'c' * 12}.tmp", hour),
        put(root / "a2a-0123456789abcdef" / f".x.json.{gone}.{'d' * 12}.tmp", hour),
        put(root / ".incoming" / f"{os.getpid()}-{'e' * 16}-{'f' * 8}.json", hour),  # this pid, before this run
    ]
    kept = [
        put(root / ".incoming" / "notes.json", hour),  # a user's file: not our pattern
        put(root / "a2a-0123456789abcdef" / "handoffs" / "mine.tmp", hour),
        put(root / "a2a-0123456789abcdef" / "handoffs" / "alpha-to-beta-0123.json", hour),  # an accepted payload
        put(root / ".incoming" / f"{alive}-{'a' * 16}-{'b' * 8}.json", hour),  # its writer is alive
        put(root / ".incoming" / f"{gone}-{'1' * 16}-{'2' * 8}.json", -60.0),  # newer than the start
        put(root / "elsewhere" / f".x.json.{gone}.{'d' * 12}.tmp", hour),  # not a session folder of the receiver
    ]
    running = receiver()
    assert sorted(running.cleared) == sorted(leftovers)
    assert [p for p in leftovers if p.exists()] == []
    assert [p for p in kept if not p.exists()] == []


def test_a_start_on_a_session_root_that_is_not_there_yet_clears_nothing(hosts, receiver):
    running = receiver()
    assert running.cleared == ()
    assert not hosts["inbox"].exists() or list(hosts["inbox"].rglob("*")) == []


def test_serve_says_what_it_cleared(hosts: dict[str, Any], swarm_cli: Any, monkeypatch: Any) -> None:
    from swarm_handoff_a2a import receiver as receiving

    root = hosts["root"] / "served"
    stale = put(root / ".incoming" / f"{dead_pid()}-{'a' * 16}-{'b' * 8}.json", 3600.0)
    monkeypatch.setattr(receiving.Receiver, "run", lambda self: None)  # built (and cleared), then "interrupted"
    result = swarm_cli("a2a", "serve", "--port", "0", "--session-root", str(root))
    assert result.exit_code == 0, result.stderr
    assert not stale.exists()
    assert f"cleared 1 file(s) a stopped receiver left in {root}" in result.stderr


def test_a_file_another_user_owns_in_a_shared_root_is_never_cleared(hosts, receiver):
    """A shared (group-writable) root, or a receiver run as root: the pattern and a dead pid are not proof enough."""
    import pytest

    root = hosts["inbox"]
    theirs = [
        put(root / ".incoming" / f"{dead_pid()}-{'a' * 16}-{'b' * 8}.json", 3600.0),
        put(root / "a2a-0123456789abcdef" / "handoffs" / f".x.json.{dead_pid()}.{'c' * 12}.tmp", 3600.0),
    ]
    other = os.getuid() + 4242
    try:
        for path in theirs:
            os.chown(path, other, -1)
    except PermissionError:
        pytest.skip("giving a file to another user needs root: run as root to check this")
    running = receiver()
    assert running.cleared == ()
    assert [p for p in theirs if not p.exists()] == []


def test_serve_refuses_a_session_root_others_may_write_at_start(
    hosts: dict[str, Any], swarm_cli: Any, monkeypatch: Any
):
    """Refused once, at start, with the fix: not a receiver that starts and then rejects every payload."""
    from swarm_handoff_a2a import receiver as receiving

    root = hosts["root"] / "shared"
    root.mkdir()
    root.chmod(0o777)
    monkeypatch.setattr(receiving.Receiver, "run", lambda self: None)
    result = swarm_cli("a2a", "serve", "--port", "0", "--session-root", str(root))
    assert result.exit_code != 0, result.stdout
    assert "USAGE" in result.stderr
    assert "may be written by group or others" in result.stderr
    assert f"chmod 700 {root}" in result.stderr
    assert list(root.iterdir()) == []
