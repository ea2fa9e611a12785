"""The hand-off history: created on first use, safe with concurrent writers, corruption set aside."""

from __future__ import annotations

import sqlite3
import subprocess
import sys

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
