"""A hand-off against a locked or full disk: a bounded wait naming the holder, a payload never lost unsaid.

Issue 25, low findings: a hand-off waited forever on another process's lock on the session folder,
and when the session folder and the config folder were both full the payload was lost and the
error did not say where it went.
"""

from __future__ import annotations

import errno
import os
import sys
from pathlib import Path

import pytest

from swarm_handoff import safefs
from swarm_handoff.errors import folder_busy
from swarm_handoff.payload.io import parse_payload_text
from swarm_handoff.records import SkillRecord

pytestmark = pytest.mark.skipif(sys.platform == "win32", reason="flock is POSIX")

SYNTHESIS = "original_prompt: Should we expand?\nproblem_type: strategic\nsynthesis_summary: Maybe.\n"


@pytest.fixture
def world(handoff_world):
    record = SkillRecord(name="lit-pm", scope="global", source="test", categories=("research",))
    return handoff_world([record], SYNTHESIS)


def _handoff(swarm_cli, world, *extra):
    args = ["handoff", "lit-pm", "--synthesis", str(world["synthesis"]), "--session", str(world["session"])]
    return swarm_cli(*args, *extra, "--format", "json")


# -- a lock held by someone else --------------------------------------------------------------------


def test_a_folder_held_by_another_writer_is_waited_for_only_as_long_as_configured(tmp_path, monkeypatch, in_thread):
    monkeypatch.setenv(safefs.LOCK_TIMEOUT_ENV, "0")

    def take_it():
        try:
            with safefs.locked(tmp_path):
                return None
        except safefs.FolderBusy as busy:
            return busy

    with safefs.locked(tmp_path):  # another writer (another open file description) holds it
        busy = in_thread(take_it)
    assert isinstance(busy, safefs.FolderBusy)
    assert busy.folder == str(tmp_path)
    if sys.platform.startswith("linux"):  # /proc/locks names the holder
        assert busy.holders == (os.getpid(),)
        assert f"process {os.getpid()}" in str(busy)
    with safefs.locked(tmp_path):  # released: the next writer gets it at once
        pass


@pytest.mark.parametrize(("raw", "seconds"), [("", 30.0), ("2.5", 2.5), ("0", 0.0), ("soon", 30.0), ("-1", 30.0)])
def test_the_wait_comes_from_the_environment_with_a_default(raw, seconds):
    assert safefs.lock_timeout({safefs.LOCK_TIMEOUT_ENV: raw}) == seconds


def test_a_handoff_into_a_session_another_process_holds_is_session_busy(swarm_cli, world, monkeypatch, in_thread):
    monkeypatch.setenv(safefs.LOCK_TIMEOUT_ENV, "0")
    with safefs.locked(world["session"]):
        result = in_thread(lambda: _handoff(swarm_cli, world))
    assert result.exit_code == 1
    error = result.json()["error"]
    assert error["code"] == "SESSION_BUSY"
    assert str(world["session"]) in error["message"]
    assert safefs.LOCK_TIMEOUT_ENV in error["hint"]
    if sys.platform.startswith("linux"):
        assert error["details"]["holder_pids"] == [os.getpid()]
    kept = error["payload_preserved"]  # the session was busy: the payload went to the config folder
    assert kept
    assert kept.startswith(str(world["config"]))
    assert parse_payload_text(Path(kept).read_text())["handoff"]["target"]["skill"] == "lit-pm"
    assert error["hint"] == folder_busy(safefs.FolderBusy("/any", [1], 0.0)).hint  # one wording for both codes


def test_folder_busy_says_who_holds_the_folder_and_how_long_it_waited():
    error = folder_busy(safefs.FolderBusy("/srv/skills", [4242], 30.0))
    assert error.code == "FOLDER_BUSY"
    assert (
        error.message
        == "the folder /srv/skills is locked by process 4242 for more than 30 s; nothing was written there"
    )
    assert error.hint == (
        "let that process finish (or stop it if it hangs), then retry; $SWARM_HANDOFF_LOCK_TIMEOUT sets the wait "
        "in seconds (30 by default)"
    )


# -- both folders full ------------------------------------------------------------------------------


def test_when_the_session_and_the_config_folder_are_full_the_error_carries_the_payload(swarm_cli, world, monkeypatch):
    def full(folder, name, data, *, mode, durable):
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC), os.path.join(folder, name))

    monkeypatch.setattr(safefs, "write_temp", full)
    result = _handoff(swarm_cli, world)
    assert result.exit_code == 1
    error = result.json()["error"]
    assert error["payload_preserved"] is None
    assert "could not be kept on disk" in error["message"]
    assert "No space left on device" in error["message"]
    assert str(world["session"]) in error["message"]
    assert str(world["config"]) in error["message"]
    assert "details.payload_text" in error["message"]
    payload = parse_payload_text(error["details"]["payload_text"])
    assert payload["handoff"]["target"]["skill"] == "lit-pm"
    assert len(error["details"]["preserve_failures"]) == 2


# -- one bounded wait, one preservation (review of issue 25's fixes) -------------------------------


def _count_busy_waits(monkeypatch):
    """Count the lock waits that ended in FolderBusy, folder by folder (no clock involved)."""
    waits: list[str] = []
    real = safefs.lock_descriptor

    def counting(fd, folder):
        try:
            return real(fd, folder)
        except safefs.FolderBusy:
            waits.append(folder)
            raise

    monkeypatch.setattr(safefs, "lock_descriptor", counting)
    return waits


def test_a_busy_session_is_waited_for_once_and_the_payload_goes_to_the_config_folder(
    swarm_cli, world, monkeypatch, in_thread
):
    monkeypatch.setenv(safefs.LOCK_TIMEOUT_ENV, "0.01")
    waits = _count_busy_waits(monkeypatch)
    with safefs.locked(world["session"]):
        result = in_thread(lambda: _handoff(swarm_cli, world))
    error = result.json()["error"]
    assert error["code"] == "SESSION_BUSY"
    assert waits == [str(world["session"])]  # preservation does not wait for the same lock again
    assert error["payload_preserved"].startswith(str(world["config"]))
    assert error["message"].count("payload preserved at") == 1


def test_a_busy_session_with_nowhere_to_keep_the_payload_is_preserved_once(swarm_cli, world, monkeypatch, in_thread):
    monkeypatch.setenv(safefs.LOCK_TIMEOUT_ENV, "0.01")
    (world["config"] / "swarm-handoff").mkdir(parents=True)
    (world["config"] / "swarm-handoff" / "preserved").write_text("a file where the folder would be\n")
    waits = _count_busy_waits(monkeypatch)
    with safefs.locked(world["session"]):
        result = in_thread(lambda: _handoff(swarm_cli, world))
    error = result.json()["error"]
    assert error["code"] == "SESSION_BUSY"
    assert waits == [str(world["session"])]  # one wait, not one per preservation attempt
    assert error["payload_preserved"] is None
    assert error["message"].count("could not be kept on disk") == 1
    assert len(error["details"]["preserve_failures"]) == 2
    assert "locked" in error["details"]["preserve_failures"][0]
    assert parse_payload_text(error["details"]["payload_text"])["handoff"]["target"]["skill"] == "lit-pm"


def _full_disk(monkeypatch):
    def full(folder, name, data, *, mode, durable):
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC), os.path.join(folder, name))

    monkeypatch.setattr(safefs, "write_temp", full)


def test_in_text_output_a_payload_kept_nowhere_is_printed_on_stderr_between_markers(swarm_cli, world, monkeypatch):
    _full_disk(monkeypatch)
    args = ["handoff", "lit-pm", "--synthesis", str(world["synthesis"]), "--session", str(world["session"])]
    result = swarm_cli(*args)
    assert result.exit_code == 1
    assert result.stdout == ""
    err = result.stderr
    start, end = "----- BEGIN UNSAVED PAYLOAD", "----- END UNSAVED PAYLOAD -----"
    assert err.count(start) == 1
    assert err.count(end) == 1
    body = err.split(start, 1)[1].split("\n", 1)[1].split(end, 1)[0]
    assert parse_payload_text(body)["handoff"]["target"]["skill"] == "lit-pm"
    assert "printed below" in err.split(start, 1)[0]


def test_in_json_output_a_payload_kept_nowhere_is_in_the_details_only(swarm_cli, world, monkeypatch):
    _full_disk(monkeypatch)
    result = _handoff(swarm_cli, world)
    error = result.json()["error"]
    assert "BEGIN UNSAVED PAYLOAD" not in result.stdout + result.stderr
    assert "details.payload_text" in error["message"]
    assert parse_payload_text(error["details"]["payload_text"])["handoff"]["target"]["skill"] == "lit-pm"
