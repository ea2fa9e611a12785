"""Sessions that end: `session new/close/gc/resume`, the checkpoint rule and verify's default expiry."""

from __future__ import annotations

import datetime as dt
import json
import os
import threading
from pathlib import Path

import pytest

from swarm_handoff import safefs
from swarm_handoff.discovery import config_dir, make_context
from swarm_handoff.errors import SwarmError
from swarm_handoff.history import open_history
from swarm_handoff.payload.canonical import seal
from swarm_handoff.payload.io import dump_payload
from swarm_handoff.payload.v2 import build_v2
from swarm_handoff.plugins import get_host
from swarm_handoff.records import SkillRecord
from swarm_handoff.session import STATE_FILE, discover_with_session, read_session
from swarm_handoff.session_gc import collect
from swarm_handoff.session_life import (
    CHECKPOINT,
    CLOSED,
    MARKER,
    SESSION_UNACKNOWLEDGED,
    close_session,
    new_session,
    parse_duration,
    write_checkpoint,
)
from swarm_handoff.synthesis import parse_synthesis

TARGET = SkillRecord(name="lit-pm", scope="global", source="test", categories=("research",))
SYNTHESIS = parse_synthesis({"original_prompt": "Why?", "problem_type": "analytical", "synthesis_summary": "Because."})
DAY = dt.timedelta(hours=24)


@pytest.fixture
def root(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    folder = tmp_path / "tmp"
    folder.mkdir()
    monkeypatch.setenv("TMPDIR", str(folder))
    return folder


def _handed_off(session: Path) -> Path:
    """A payload written from `session` and recorded in the history as not yet acknowledged."""
    (session / "perspectives").mkdir(exist_ok=True)
    payload = build_v2(SYNTHESIS, TARGET, session)
    path = session / "handoff-payload.yaml"
    path.write_text(dump_payload(payload, path))
    with open_history(config_dir()) as history:
        history.record(path, payload)
    return path


# --- close ---------------------------------------------------------------------------------------


def test_close_refuses_while_a_handoff_is_unacknowledged_then_closes_after_ack(root: Path, swarm_cli, swarm_host):
    session = new_session(root)
    payload = _handed_off(session)
    refused = swarm_cli("session", "close", str(session), "--format", "json")
    assert refused.exit_code != 0
    error = refused.json()["error"]
    assert error["code"] == SESSION_UNACKNOWLEDGED
    assert str(payload) in error["message"]
    assert "ack" in error["hint"]
    assert not (session / CLOSED).exists()
    assert swarm_cli("ack", str(payload), "--status", "received").exit_code == 0
    closed = swarm_cli("session", "close", str(session), "--format", "json")
    assert closed.exit_code == 0, closed.stdout
    assert closed.json()["forced"] is False
    assert (session / CLOSED).is_file()


def test_close_with_force_records_what_was_unacknowledged(root: Path):
    session = new_session(root)
    payload = _handed_off(session)
    report = close_session(session, config_dir(), force=True)
    assert report.forced
    assert report.unacknowledged == (str(payload),)
    assert json.loads((session / CLOSED).read_text())["unacknowledged"] == [str(payload)]


def test_close_refuses_a_symlink_and_a_missing_folder(root: Path, tmp_path: Path):
    real = new_session(root)
    link = tmp_path / "link"
    link.symlink_to(real)
    for folder in (link, tmp_path / "nope"):
        with pytest.raises(SwarmError) as caught:
            close_session(folder, config_dir())
        assert caught.value.code == "SESSION_NOT_FOUND"
    assert not (real / CLOSED).exists()


# --- gc ------------------------------------------------------------------------------------------


def test_gc_removes_closed_and_expired_tool_sessions_only(root: Path, tmp_path: Path):
    now = dt.datetime.now(dt.timezone.utc)
    closed = new_session(root)
    close_session(closed, config_dir())
    expired = new_session(root, now=now - DAY - dt.timedelta(minutes=1))
    fresh = new_session(root)
    hand_made = root / "swarm-session-20260101-000000-aaaaaaaa"  # the user's own: no marker
    hand_made.mkdir()
    (hand_made / "notes.txt").write_text("mine")
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / MARKER).write_text((closed / MARKER).read_text())
    (outside / CLOSED).write_text("{}")
    (root / "swarm-session-link").symlink_to(outside)  # a link to a folder that looks removable
    other = root / "not-a-session"
    other.mkdir()
    (other / MARKER).write_text((closed / MARKER).read_text())
    (other / CLOSED).write_text(json.dumps({"closed_at": "2020-01-01T00:00:00Z"}))

    report = collect(root, now=now)

    assert set(report.removed) == {str(closed), str(expired)}
    assert not closed.exists()
    assert not expired.exists()
    for kept in (fresh, hand_made, outside, other, root / "swarm-session-link"):
        assert kept.exists() or kept.is_symlink()
    assert (outside / MARKER).exists()
    assert (hand_made / "notes.txt").read_text() == "mine"
    reasons = {k.path: k.reason for k in report.kept}
    assert "no swarm-handoff creation marker" in reasons[str(hand_made)]
    assert "symbolic link" in reasons[str(root / "swarm-session-link")]
    assert "open" in reasons[str(fresh)]


def test_gc_honours_older_than_and_dry_run(root: Path, swarm_cli, swarm_host):
    now = dt.datetime.now(dt.timezone.utc)
    hour_old = new_session(root, now=now - dt.timedelta(hours=2))
    dry = swarm_cli("session", "gc", "--older-than", "1h", "--dry-run", "--format", "json")
    assert dry.json()["removed"] == [str(hour_old)]
    assert hour_old.exists()
    assert swarm_cli("session", "gc", "--format", "json").json()["removed"] == []  # 24 h by default
    assert swarm_cli("session", "gc", "--older-than", "1h", "--format", "json").json()["removed"] == [str(hour_old)]
    assert not hour_old.exists()


def test_gc_leaves_a_session_a_writer_holds_locked(root: Path):
    session = new_session(root)
    close_session(session, config_dir())
    with safefs.locked(session):  # what a payload writer holds while it writes
        report = collect(root)
    assert report.removed == ()
    assert session.exists()
    assert "in use" in report.kept[0].reason
    assert collect(root).removed == (str(session),)


def test_gc_and_a_concurrent_writer_never_leave_a_half_written_payload(root: Path):
    session = new_session(root)
    close_session(session, config_dir())
    seen: list[str] = []

    def writer() -> None:
        try:
            with safefs.locked(session):
                safefs.create_new(session / "late.yaml", b"x: 1\n")
                seen.append("wrote")
        except OSError:
            seen.append("gone")

    thread = threading.Thread(target=writer)
    thread.start()
    report = collect(root)
    thread.join()
    # either gc saw the lock and kept the folder whole, or the writer found it gone: never a partial file
    assert seen in (["wrote"], ["gone"])
    if session.exists():
        assert (session / "late.yaml").read_bytes() == b"x: 1\n" or report.removed == ()


def test_gc_skips_a_folder_of_another_owner(root: Path, monkeypatch: pytest.MonkeyPatch):
    session = new_session(root)
    close_session(session, config_dir())
    monkeypatch.setattr("swarm_handoff.session_gc._uid", lambda: os.getuid() + 1)
    report = collect(root)
    assert report.removed == ()
    assert "another user" in report.kept[0].reason


def test_older_than_parses_units_and_rejects_garbage():
    assert parse_duration("24h") == DAY
    assert parse_duration("30m") == dt.timedelta(minutes=30)
    assert parse_duration("90") == dt.timedelta(seconds=90)
    for bad in ("", "soon", "-1h", "1y"):
        with pytest.raises(SwarmError) as caught:
            parse_duration(bad)
        assert caught.value.code == "USAGE"


def test_demo_session_carries_the_marker(tmp_path: Path):
    from swarm_handoff.demo import prepare_session
    from swarm_handoff.session_life import read_marker

    made = prepare_session(None, tmp_path)
    assert read_marker(made) is not None
    given = prepare_session(tmp_path / "mine")
    assert read_marker(given) is None  # a folder the user named is never the tool's to remove


# --- resume --------------------------------------------------------------------------------------


def test_resume_from_a_checkpoint_invalidates_the_session_cache(tmp_path: Path):
    session = tmp_path / "s"
    session.mkdir()
    context, host = make_context(tmp_path), get_host()
    discover_with_session(context, host, session)
    assert read_session(session, context, host) is not None
    write_checkpoint(session)
    assert read_session(session, context, host) is None  # the seed's third invalidation rule
    discover_with_session(context, host, session)
    assert read_session(session, context, host) is not None  # rebuilt under this checkpoint
    (session / CHECKPOINT).write_text('{"written by": "another harness"}')
    assert read_session(session, context, host) is None


def test_discover_resume_option_rebuilds_the_cache(tmp_path: Path, swarm_cli, swarm_host):
    session = tmp_path / "s"
    session.mkdir()
    assert swarm_cli("discover", "--session", str(session)).exit_code == 0
    before = (session / STATE_FILE).stat().st_mtime_ns
    assert swarm_cli("discover", "--session", str(session)).exit_code == 0
    assert (session / STATE_FILE).stat().st_mtime_ns == before  # a plain rerun reuses it
    assert swarm_cli("discover", "--session", str(session), "--resume").exit_code == 0
    assert (session / CHECKPOINT).is_file()
    assert (session / STATE_FILE).stat().st_mtime_ns != before
    refused = swarm_cli("discover", "--resume")
    assert refused.exit_code != 0
    assert "--session" in refused.stderr


def test_session_resume_command_writes_the_checkpoint(tmp_path: Path, swarm_cli, swarm_host):
    result = swarm_cli("session", "resume", str(tmp_path), "--format", "json")
    assert result.json()["checkpoint"] == str(tmp_path / CHECKPOINT)


# --- verify's default expiry ---------------------------------------------------------------------


def _without_expiry(session: Path, moment: dt.datetime) -> Path:
    (session / "perspectives").mkdir(exist_ok=True)
    payload = build_v2(SYNTHESIS, TARGET, session, now=moment)
    del payload["handoff"]["expires_at"]
    payload = seal(payload)
    path = session / "no-expiry.yaml"
    path.write_text(dump_payload(payload, path))
    return path


def test_verify_applies_timestamp_plus_one_hour_when_expires_at_is_absent(tmp_path: Path, swarm_cli, swarm_host):
    old = _without_expiry(tmp_path, dt.datetime(2020, 1, 1, tzinfo=dt.timezone.utc))
    result = swarm_cli("verify", str(old), "--format", "json")
    assert result.exit_code == 1
    error = result.json()["error"]
    assert error["code"] == "PAYLOAD_EXPIRED"
    assert "2020-01-01T01:00:00Z" in error["message"]
    assert "default" in error["message"]
    assert error["details"]["verification"]["expires_at_default"] is True


def test_verify_passes_a_recent_payload_without_expires_at(tmp_path: Path, swarm_cli, swarm_host):
    recent = _without_expiry(tmp_path, dt.datetime.now(dt.timezone.utc) - dt.timedelta(minutes=5))
    data = swarm_cli("verify", str(recent), "--format", "json").json()
    assert data["ok"] is True
    assert data["expires_at_default"] is True


def test_a_session_that_cannot_be_made_is_a_coded_error(tmp_path: Path):
    not_a_folder = tmp_path / "file"
    not_a_folder.write_text("")
    with pytest.raises(SwarmError) as caught:
        new_session(not_a_folder)
    assert caught.value.code == "SESSION_WRITE_FAILED"
    assert str(not_a_folder) in caught.value.message
