"""A task store whose path holds `?`, `#` or `%` is the file it names, for the receiver, `ack` and the transport."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest
import sqlalchemy
from sqlalchemy.engine import URL, make_url

from swarm_handoff.api import SwarmError
from swarm_handoff_a2a.claims import claims_folder
from swarm_handoff_a2a.ids import TASK_STORE_ENV, store_file
from swarm_handoff_a2a.receiver import default_store_url
from swarm_handoff_a2a.transport import _has_task, _sqlite_file

ODD = "conf?ig#1%41"  # a query, a fragment and an escape, if the path went into a URL as it is


@pytest.fixture
def config(tmp_path: Path) -> Path:
    return tmp_path / ODD


# SQLAlchemy 2.1 escapes `?` and `#` in a URL's database part; 2.0 (Python 3.10's here) writes them as they are.
ESCAPES = make_url(URL.create("sqlite", database="/a?b#c").render_as_string()).database == "/a?b#c"


@pytest.mark.skipif(not ESCAPES, reason=f"SQLAlchemy {sqlalchemy.__version__} cannot name such a path in a URL")
def test_the_default_store_url_names_the_file_under_the_config_folder(config: Path) -> None:
    url = default_store_url(config)
    assert make_url(url).database == str(store_file(config))  # as the SDK's engine reads it
    assert _sqlite_file(url) == store_file(config)  # as the transport reads it for `ack`
    assert claims_folder(url, config) == store_file(config).with_name("a2a-tasks.sqlite3.claims")


@pytest.mark.skipif(ESCAPES, reason=f"SQLAlchemy {sqlalchemy.__version__} escapes the path: nothing to refuse")
def test_a_store_path_this_sqlalchemy_cannot_name_is_refused_never_another_file(config: Path) -> None:
    with pytest.raises(SwarmError) as refused:
        default_store_url(config)
    assert refused.value.code == "USAGE"
    assert TASK_STORE_ENV in (refused.value.hint or "")
    assert not store_file(config).parent.exists()  # nothing made for a store that would not be used


def test_the_transport_finds_a_task_in_a_store_whose_path_needs_escaping(config: Path) -> None:
    database = store_file(config)
    database.parent.mkdir(parents=True)
    with sqlite3.connect(database) as db:
        db.execute("CREATE TABLE tasks (id TEXT PRIMARY KEY)")
        db.execute("INSERT INTO tasks VALUES ('the-task')")
    assert _has_task(database, "the-task")
    assert not _has_task(database, "another")
