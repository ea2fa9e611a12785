"""The hand-off history: created on first use, safe with concurrent writers, corruption set aside."""

from __future__ import annotations

import sqlite3
import subprocess
import sys
from unittest.mock import ANY

import pytest

from swarm_handoff.errors import SwarmError
from swarm_handoff.history import db_path, open_history, success_counts


def payload(target, hash_="sha256:" + "0" * 64, source="perspective-swarm"):
    return {
        "handoff": {
            "version": "2.0",
            "source": {"skill": source, "workflow_id": "w", "session_path": "/s"},
            "target": {"skill": target},
            "meta": {"payload_hash": hash_},
        }
    }


def test_created_on_first_use_and_records_handoffs(tmp_path):
    assert success_counts(tmp_path) == {}
    assert not db_path(tmp_path).exists()  # reading never creates it
    with open_history(tmp_path) as history:
        first = history.record("/s/a.yaml", payload("lit-pm"))
        history.record("/s/b.yaml", payload("statistician", "sha256:" + "1" * 64))
        rows = history.list()
        assert [r.target for r in rows] == ["statistician", "lit-pm"]
        assert rows[1].id == first
        assert rows[1].status == "written"
        assert [r.target for r in history.list(skill="lit-pm")] == ["lit-pm"]
        assert len(history.list(skill="perspective-swarm")) == 2
    assert db_path(tmp_path).is_file()


def test_acknowledgments_update_the_status_and_feed_success_counts(tmp_path):
    with open_history(tmp_path) as history:
        history.record("/s/a.yaml", payload("lit-pm", "sha256:" + "a" * 64))
        history.record("/s/b.yaml", payload("lit-pm", "sha256:" + "b" * 64))
        history.record("/s/c.yaml", payload("statistician", "sha256:" + "c" * 64))
        history.acknowledge("/elsewhere/a.yaml", payload("lit-pm", "sha256:" + "a" * 64), "received")
        row = history.acknowledge("/elsewhere/a.yaml", payload("lit-pm", "sha256:" + "a" * 64), "success")
        assert row.payload_path == "/s/a.yaml"  # found by hash, not path
        history.acknowledge("/s/b.yaml", payload("lit-pm", "sha256:" + "b" * 64), "failure")
        history.acknowledge("/s/c.yaml", payload("statistician", "sha256:" + "c" * 64), "success")
        # a payload the history never saw is recorded when acknowledged
        history.acknowledge("/x/d.yaml", payload("lit-pm", "sha256:" + "d" * 64), "success")
        with pytest.raises(SwarmError, match="unknown status"):
            history.acknowledge("/s/a.yaml", payload("lit-pm"), "done")
        assert history.success_counts() == {"lit-pm": 2, "statistician": 1}
    assert success_counts(tmp_path) == {"lit-pm": 2, "statistician": 1}


WRITER = """
import sys
from pathlib import Path
from swarm_handoff.history import open_history

config, worker = Path(sys.argv[1]), sys.argv[2]
with open_history(config) as history:
    for i in range(25):
        history.record(f"/s/{worker}-{i}.yaml", {"handoff": {"target": {"skill": f"skill-{worker}"}}})
"""


def test_concurrent_writers_lose_nothing(tmp_path):
    # separate processes, as several agents handing off at once would be
    workers = [subprocess.Popen([sys.executable, "-c", WRITER, str(tmp_path), str(w)]) for w in range(4)]
    assert [p.wait() for p in workers] == [0, 0, 0, 0]
    with open_history(tmp_path) as history:
        assert len(history.list(limit=1000)) == 100
        mode = history.connection.execute("PRAGMA journal_mode").fetchone()[0]
    assert mode == "wal"


def test_a_corrupt_database_is_set_aside_and_reported_never_emptied(tmp_path):
    path = db_path(tmp_path)
    path.parent.mkdir(parents=True)
    garbage = b"this is not sqlite" * 100
    path.write_bytes(garbage)
    assert success_counts(tmp_path) == {}  # the reader survives it
    with open_history(tmp_path) as history:
        [problem] = history.problems
        assert problem.code == "HISTORY_CORRUPT"
        kept = [p for p in path.parent.iterdir() if ".corrupt-" in p.name]
        assert len(kept) == 1
        assert kept[0].read_bytes() == garbage
        assert problem.path == str(kept[0])
        history.record("/s/a.yaml", payload("lit-pm"))
    with open_history(tmp_path) as history:
        assert not history.problems
        assert len(history.list()) == 1
    with sqlite3.connect(path) as db:
        assert db.execute("PRAGMA integrity_check").fetchone()[0] == "ok"


LOCKER = """
import sqlite3, sys
db = sqlite3.connect(sys.argv[1], isolation_level=None)
db.execute("PRAGMA locking_mode = EXCLUSIVE")  # hold the file itself, readers and writers alike
db.execute("BEGIN EXCLUSIVE")
db.execute("SELECT COUNT(*) FROM handoffs").fetchall()
print("locked", flush=True)
sys.stdin.readline()
db.execute("COMMIT")
"""


@pytest.fixture
def locked_history(tmp_path):
    """A history with 200 rows that another process holds locked until the test ends."""
    with open_history(tmp_path) as history:
        for i in range(200):
            history.record(f"/s/{i}.yaml", payload("lit-pm", "sha256:" + f"{i:064x}"))
    locker = subprocess.Popen(
        [sys.executable, "-c", LOCKER, str(db_path(tmp_path))], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True
    )
    try:
        assert locker.stdout.readline().strip() == "locked"
        yield tmp_path
    finally:
        locker.stdin.write("\n")
        locker.stdin.close()
        locker.wait(timeout=60)


def _kept_files(config):
    # the set-aside database itself (its -wal/-shm files travel with it)
    return [p.name for p in db_path(config).parent.iterdir() if ".corrupt-" in p.name and p.name.endswith("Z")]


def test_a_busy_database_waits_then_reports_history_busy_and_is_left_alone(locked_history):
    before = db_path(locked_history).read_bytes()
    with pytest.raises(SwarmError) as caught:
        open_history(locked_history, timeout_ms=200)
    assert caught.value.code == "HISTORY_BUSY"
    assert str(db_path(locked_history)) in caught.value.message
    assert caught.value.details["path"] == str(db_path(locked_history))
    assert _kept_files(locked_history) == []
    assert db_path(locked_history).read_bytes() == before


def test_the_history_command_reports_busy_and_keeps_every_row(locked_history, swarm_host, swarm_cli, monkeypatch):
    monkeypatch.setenv("CLAUDE_CONFIG_DIR", str(locked_history))
    monkeypatch.setenv("SWARM_HANDOFF_HISTORY_TIMEOUT", "0.2")
    result = swarm_cli("history", "--format", "json")
    assert result.exit_code == 1
    assert result.json()["error"]["code"] == "HISTORY_BUSY"
    assert _kept_files(locked_history) == []


def test_rows_survive_a_lock_held_longer_than_the_time_out(tmp_path):
    with open_history(tmp_path) as history:
        for i in range(200):
            history.record(f"/s/{i}.yaml", payload("lit-pm"))
    locker = subprocess.Popen(
        [sys.executable, "-c", LOCKER, str(db_path(tmp_path))], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True
    )
    assert locker.stdout.readline().strip() == "locked"
    for _ in range(3):  # every attempt gives up the same way and moves nothing
        with pytest.raises(SwarmError, match="stayed locked"):
            open_history(tmp_path, timeout_ms=100)
    locker.stdin.write("\n")
    locker.stdin.close()
    assert locker.wait(timeout=60) == 0
    with open_history(tmp_path) as history:
        assert not history.problems
        assert len(history.list(limit=1000)) == 200
    assert _kept_files(tmp_path) == []


def test_a_write_that_meets_a_lock_is_history_busy_not_a_traceback(tmp_path):
    with open_history(tmp_path, timeout_ms=100) as history:
        other = sqlite3.connect(db_path(tmp_path), isolation_level=None)
        other.execute("BEGIN IMMEDIATE")  # a second writer mid-transaction
        try:
            with pytest.raises(SwarmError) as caught:
                history.record("/s/a.yaml", payload("lit-pm"))
            assert caught.value.code == "HISTORY_BUSY"
        finally:
            other.execute("ROLLBACK")
            other.close()
        history.record("/s/a.yaml", payload("lit-pm"))
        assert len(history.list()) == 1


def test_the_busy_time_out_comes_from_the_environment_when_sane():
    from swarm_handoff.history import BUSY_TIMEOUT_MS, busy_timeout_ms

    assert busy_timeout_ms({}) == BUSY_TIMEOUT_MS
    assert busy_timeout_ms({"SWARM_HANDOFF_HISTORY_TIMEOUT": "2.5"}) == 2500
    for bad in ("soon", "-1", "nan", "1e30"):
        assert busy_timeout_ms({"SWARM_HANDOFF_HISTORY_TIMEOUT": bad}) == BUSY_TIMEOUT_MS


def test_a_malformed_database_is_set_aside_with_its_path_in_the_warning(tmp_path):
    with open_history(tmp_path) as history:
        for i in range(50):
            history.record(f"/s/{i}.yaml", payload("lit-pm", "sha256:" + f"{i:064x}"))
    path = db_path(tmp_path)
    with sqlite3.connect(path) as db:
        db.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    data = bytearray(path.read_bytes())
    page = 4096
    data[page * 2 : page * 3] = b"\xff" * page  # smash a b-tree page: SQLite calls the image malformed
    path.write_bytes(bytes(data))
    with open_history(tmp_path) as history:
        [problem] = history.problems
        assert problem.code == "HISTORY_CORRUPT"
        assert str(path) in problem.message
        [kept] = _kept_files(tmp_path)
        assert problem.path == str(path.parent / kept)
        assert (path.parent / kept).read_bytes() == bytes(data)
        assert history.list() == []


RECORD_ONE = """
import sys
from pathlib import Path
from swarm_handoff.history import open_history

with open_history(Path(sys.argv[1])) as history:
    history.record(f"/s/{sys.argv[2]}.yaml", {"handoff": {"target": {"skill": "skill-" + sys.argv[2]}}})
"""


@pytest.mark.slow
def test_fifty_concurrent_processes_each_get_their_row(tmp_path):
    # a fresh config folder: creating the database and its schema races as well
    workers = [subprocess.Popen([sys.executable, "-c", RECORD_ONE, str(tmp_path), str(w)]) for w in range(50)]
    assert [p.wait(timeout=120) for p in workers] == [0] * 50
    with open_history(tmp_path) as history:
        rows = history.list(limit=1000)
    assert sorted(r.payload_path for r in rows) == sorted(f"/s/{w}.yaml" for w in range(50))
    assert _kept_files(tmp_path) == []


ACK_ONE = """
import sys
from pathlib import Path
from swarm_handoff.history import open_history

payload = {"handoff": {"target": {"skill": "lit-pm"}, "meta": {"payload_hash": "sha256:" + "e" * 64}}}
with open_history(Path(sys.argv[1])) as history:
    history.acknowledge("/s/never-seen.yaml", payload, "received")
"""


def test_concurrent_acks_of_an_unseen_payload_add_it_once(tmp_path):
    with open_history(tmp_path):
        pass  # the schema exists, so the race is only the acknowledgment's
    workers = [subprocess.Popen([sys.executable, "-c", ACK_ONE, str(tmp_path)]) for _ in range(12)]
    assert [p.wait(timeout=120) for p in workers] == [0] * 12
    with open_history(tmp_path) as history:
        [row] = history.list()
        acks = history.connection.execute("SELECT COUNT(*) FROM acks WHERE handoff_id = ?", (row.id,)).fetchone()[0]
    assert (row.status, acks) == ("received", 12)


def test_payload_paths_are_stored_absolute_so_history_resolves_from_anywhere(tmp_path, monkeypatch):
    """A hand-off recorded with a relative path (as `handoff --session examples/session` gives it) is stored
    absolute; a row an older version stored relative is still listed as it was written."""
    work = tmp_path / "project"
    (work / "session").mkdir(parents=True)
    monkeypatch.chdir(work)
    with open_history(tmp_path / "config") as history:
        history.record("session/handoff-payload.yaml", payload("lit-pm"))
        history.connection.execute(
            "INSERT INTO handoffs (created_at, payload_path, status, updated_at)"
            " VALUES ('t', 'old/rel.yaml', 'written', 't')"
        )
        history.connection.commit()
    monkeypatch.chdir(tmp_path)
    with open_history(tmp_path / "config") as history:
        new, old = history.list()[1], history.list()[0]
    assert new.payload_path == str((work / "session" / "handoff-payload.yaml").resolve())
    assert old.payload_path == "old/rel.yaml"


def test_session_close_finds_a_handoff_recorded_with_a_relative_path(tmp_path, monkeypatch):
    """The session's unacknowledged hand-offs are found by where their payload lies, however the session was named."""
    monkeypatch.chdir(tmp_path)
    (tmp_path / "s").mkdir()
    unsourced = payload("lit-pm")
    unsourced["handoff"]["source"]["session_path"] = "elsewhere"
    with open_history(tmp_path / "config") as history:
        history.record("s/handoff-payload.yaml", unsourced)
        assert [r.target for r in history.from_session(str((tmp_path / "s").resolve()))] == ["lit-pm"]


def test_the_history_command_shows_where_a_handoff_was_sent_and_its_remote_state(
    tmp_path, swarm_host, swarm_cli, monkeypatch
):
    """Issue 29: `history` shows the remote task of a hand-off sent over the network; others are as before."""
    sent, kept = "sha256:" + "5" * 64, "sha256:" + "6" * 64
    with open_history(tmp_path) as history:
        history.record("/s/a.yaml", payload("reviewer", sent))
        history.record("/s/b.yaml", payload("planner", kept))
        history.set_remote(sent, "http://build-host:8470/", "working", task_id="task-1")
        history.set_remote(sent, "http://build-host:8470/", "completed", task_id=None)  # the id stays
    monkeypatch.setenv("CLAUDE_CONFIG_DIR", str(tmp_path))
    data = swarm_cli("history", "--format", "json").json()
    by_hash = {row["payload_hash"]: row for row in data["handoffs"]}
    assert by_hash[sent]["remote"] == [
        {"url": "http://build-host:8470/", "task_id": "task-1", "state": "completed", "detail": "", "updated_at": ANY}
    ]
    assert "remote" not in by_hash[kept]  # a local hand-off's row is what it always was
    text = swarm_cli("history").stdout
    assert "  sent to http://build-host:8470/: completed (task task-1)" in text
    assert text.count("sent to") == 1
