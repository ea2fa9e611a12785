"""`safefs`: exclusive creation, atomic replacement, the folder lock and the clean-up of dead temporaries."""

from __future__ import annotations

import json
import os
import signal
import stat
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

from swarm_handoff import filecache, safefs

pytestmark = pytest.mark.skipif(sys.platform == "win32", reason="POSIX file semantics (flock, link, kill)")


def _dead_pid() -> int:
    """The pid of a process that has certainly ended (and been reaped)."""
    done = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"], capture_output=True, text=True)
    return int(done.stdout)


def _age(path: Path, seconds: float) -> None:
    then = time.time() - seconds
    os.utime(path, (then, then), follow_symlinks=False)


def test_create_new_never_replaces_a_file_a_folder_or_a_symlink(tmp_path):
    outside = tmp_path / "outside.txt"
    (tmp_path / "file").write_text("mine")
    (tmp_path / "folder").mkdir()
    (tmp_path / "dangling").symlink_to(outside)
    (tmp_path / "link").symlink_to(tmp_path / "file")
    for name in ("file", "folder", "dangling", "link"):
        assert safefs.create_new(tmp_path / name, b"new") is False
    assert (tmp_path / "file").read_text() == "mine"
    assert not outside.exists()  # the dangling link was not followed
    assert os.readlink(tmp_path / "dangling") == str(outside)
    assert safefs.create_new(tmp_path / "fresh", b"new", mode=0o640) is True
    assert (tmp_path / "fresh").read_bytes() == b"new"
    assert stat.S_IMODE((tmp_path / "fresh").stat().st_mode) == 0o640
    assert sorted(p.name for p in tmp_path.iterdir()) == ["dangling", "file", "folder", "fresh", "link"]  # no temp


def test_create_first_takes_the_first_free_name(tmp_path):
    (tmp_path / "a").write_text("taken")
    got = safefs.create_first([tmp_path / "a", tmp_path / "b", tmp_path / "c"], b"x")
    assert got == str(tmp_path / "b")
    assert safefs.create_first([tmp_path / "a", tmp_path / "b"], b"y") is None


def test_atomic_write_replaces_a_symlink_instead_of_writing_through_it(tmp_path):
    victim = tmp_path / "victim.txt"
    victim.write_text("precious")
    link = tmp_path / "cache.bin"
    link.symlink_to(victim)
    safefs.atomic_write(link, b"cache")
    assert victim.read_text() == "precious"
    assert not link.is_symlink()
    assert link.read_bytes() == b"cache"
    assert stat.S_IMODE(link.stat().st_mode) == 0o644  # not the symlink's 0777


def test_atomic_write_keeps_the_permissions_of_the_file_it_replaces(tmp_path):
    path = tmp_path / "state.json"
    path.write_text("{}")
    path.chmod(0o600)
    filecache.atomic_write(path, b"[]")
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    assert path.read_bytes() == b"[]"


def test_temporaries_say_which_process_wrote_them():
    name = safefs.temp_name("handoff-payload.yaml")
    assert name.startswith(".handoff-payload.yaml.")
    assert safefs.temp_writer(name) == (os.getpid(), safefs.machine_identity())
    assert len(safefs.temp_name("x" * 250)) < 255  # a long name still makes a valid temporary name
    for other in (".x.tmp", ".x.123.tmp", ".x.12.abcdefabcdeg.tmp", "x.12.abcdefabcdef.tmp", "..12.abcdefabcdef.tmp"):
        assert safefs.temp_writer(other) is None


def test_a_dead_writers_temporary_is_removed_by_the_next_writer_and_nothing_else(tmp_path):
    dead = _dead_pid()
    stale = tmp_path / f".payload.yaml.{dead}.0123456789ab.tmp"
    fresh_dead = tmp_path / f".payload.yaml.{dead}.ba9876543210.tmp"  # might be another pid namespace's
    alive = tmp_path / f".payload.yaml.{os.getpid()}.aaaaaaaaaaaa.tmp"
    ancient = tmp_path / f".payload.yaml.{os.getpid()}.bbbbbbbbbbbb.tmp"
    unrelated = [tmp_path / n for n in (".payload.yaml.abc_123.tmp", "notes.tmp", f".x.{dead}.tmp", "keep.yaml")]
    for path in (stale, fresh_dead, alive, ancient, *unrelated):
        path.write_text("x")
        _age(path, 10 * 3600 if path in (ancient, *unrelated) else 0)
    _age(stale, safefs.DEAD_GRACE_S + 5)
    safefs.atomic_write(tmp_path / "payload.yaml", b"new")
    left = {p.name for p in tmp_path.iterdir()}
    assert stale.name not in left
    assert ancient.name not in left  # past MAX_TEMP_AGE_S, whoever wrote it (pids are reused)
    assert {fresh_dead.name, alive.name, *(p.name for p in unrelated), "payload.yaml"} == left


def test_a_temporary_names_its_writers_machine_and_pid_namespace():
    """A pid means one process only on one boot of one machine, in one pid namespace: the name says which."""
    name = safefs.temp_name("payload.yaml")
    assert safefs.temp_writer(name) == (os.getpid(), safefs.machine_identity())
    assert len(safefs.machine_identity()) == 8
    assert safefs.temp_writer(".payload.yaml.123.0123456789ab.tmp") == (123, None)  # before identities
    assert safefs.temp_writer(f".payload.yaml.123-{'e' * 8}.0123456789ab.tmp") == (123, "e" * 8)
    for other in (".x.123-abc.0123456789ab.tmp", ".x.123-ABCDEF12.0123456789ab.tmp", ".x.-abcdef12.0123456789ab.tmp"):
        assert safefs.temp_writer(other) is None


def test_another_machines_temporary_is_removed_only_by_age(tmp_path):
    """A writer in another container sharing the folder looks dead from here: its pid proves nothing."""
    dead = _dead_pid()
    other = "0" * 8 if safefs.machine_identity() != "0" * 8 else "1" * 8
    theirs = tmp_path / f".payload.yaml.{dead}-{other}.0123456789ab.tmp"
    theirs_old = tmp_path / f".payload.yaml.{dead}-{other}.ba9876543210.tmp"
    ours = tmp_path / f".payload.yaml.{dead}-{safefs.machine_identity()}.aaaaaaaaaaaa.tmp"
    for path in (theirs, theirs_old, ours):
        path.write_text("x")
        _age(path, 3600)
    _age(theirs_old, safefs.MAX_TEMP_AGE_S + 60)
    assert sorted(safefs.clean_stale_temps(tmp_path)) == sorted([theirs_old.name, ours.name])
    assert theirs.exists()


def test_a_temporary_naming_a_pid_no_system_has_breaks_no_write(tmp_path):
    """`.x.99999999999.HEX.tmp` (planted, or from another system): not probed, left to age; the write goes on.

    `os.kill` raises OverflowError for a pid past a C int: unhandled, one such name in a folder failed
    every write there, and `clear_leftovers` stopped a receiver's start.
    """
    from swarm_handoff.payload.leftovers import INBOX, clear_leftovers

    dead = _dead_pid()
    huge = [
        tmp_path / f".payload.yaml.{'9' * 11}.0123456789ab.tmp",
        tmp_path / f".payload.yaml.{'9' * 20}-{safefs.machine_identity()}.ba9876543210.tmp",
    ]
    stale = tmp_path / f".payload.yaml.{dead}.aaaaaaaaaaaa.tmp"
    for path in (*huge, stale):
        path.write_text("x")
        _age(path, safefs.DEAD_GRACE_S + 5)
    safefs.atomic_write(tmp_path / "payload.yaml", b"new")
    assert (tmp_path / "payload.yaml").read_bytes() == b"new"
    assert not stale.exists()
    assert all(p.exists() for p in huge)  # no process to ask about: only MAX_TEMP_AGE_S removes them
    inbox = tmp_path / "root" / INBOX
    inbox.mkdir(parents=True)
    planted = inbox / f"{'9' * 10}-{'a' * 16}-{'b' * 8}.json"
    planted.write_text("{}")
    _age(planted, 3600)
    assert clear_leftovers(tmp_path / "root", started=time.time()) == ()


KILLED_WRITER = """
import sys, time
from swarm_handoff import safefs
tmp = safefs.write_temp(sys.argv[1], "payload.yaml", b"half", mode=0o600, durable=False)
print(tmp, flush=True)
time.sleep(60)
"""


def test_a_writer_killed_mid_write_leaves_a_temporary_the_next_writer_removes(tmp_path):
    writer = subprocess.Popen([sys.executable, "-c", KILLED_WRITER, str(tmp_path)], stdout=subprocess.PIPE, text=True)
    assert writer.stdout is not None
    left = Path(writer.stdout.readline().strip())
    writer.send_signal(signal.SIGKILL)
    writer.wait()
    assert safefs.temp_writer(left.name) == (writer.pid, safefs.machine_identity())
    _age(left, safefs.DEAD_GRACE_S + 1)
    safefs.atomic_write(tmp_path / "other.bin", b"x")  # any write in the folder cleans up
    assert not left.exists()


def test_the_folder_lock_keeps_a_second_holder_out_until_the_first_is_done(tmp_path):
    order: list[str] = []
    first_in = threading.Event()

    def second() -> None:
        first_in.wait()
        with safefs.locked(tmp_path):
            order.append("second")

    thread = threading.Thread(target=second)
    thread.start()
    with safefs.locked(tmp_path):
        first_in.set()
        time.sleep(0.05)  # give the second holder the chance to (wrongly) get in; not a pass/fail timer
        order.append("first")
    thread.join(timeout=30)
    assert order == ["first", "second"]


def test_safefs_stays_cheap_to_import():
    code = (
        "import sys, json, typing; before = set(sys.modules); import swarm_handoff.safefs;"
        " print(json.dumps(sorted(set(sys.modules) - before)))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    added = set(json.loads(out))
    # `typing` is imported first: every command that reaches safefs has imported it already (attrs, pluggy, typer).
    assert added & {"pathlib", "tempfile", "re", "contextlib", "hashlib"} == set()


def test_create_first_makes_names_only_as_far_as_it_tries_them(tmp_path):
    (tmp_path / "a").write_text("taken")
    made: list[str] = []

    def names():
        for name in ("a", "b", "c", "d"):
            made.append(name)
            yield str(tmp_path / name)

    assert safefs.create_first(names(), b"data") == str(tmp_path / "b")
    assert made == ["a", "b"]  # "c" and "d" were never built
    assert (tmp_path / "b").read_bytes() == b"data"
