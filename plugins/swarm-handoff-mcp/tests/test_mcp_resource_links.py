"""`handoff://` resources are opened relative to the session folder, never through a link (issue 25, 8).

The old read checked `is_symlink()` and then opened the path following links: a peer that swapped
the payload for a link between the two got a file outside the session served. Both the check and
the swap are simulated here without timing: the check is made to pass, then the link is there.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

import pytest

from swarm_handoff.api import SwarmError
from swarm_handoff_mcp import resources
from swarm_handoff_mcp.resources import SessionIndex

pytestmark = pytest.mark.skipif(sys.platform == "win32", reason="POSIX links and O_NOFOLLOW")


@pytest.fixture
def world(tmp_path):
    session = tmp_path / "session"
    session.mkdir()
    (session / "handoff-payload.yaml").write_text("handoff: {version: '2.0'}\n")
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "secret.yaml").write_text("secret: the outside file\n")
    sessions = SessionIndex()
    key = sessions.add(session)
    return {"session": session, "outside": outside, "sessions": sessions, "key": key}


def _read(world, name):
    return resources.read(f"handoff://{world['key']}/{name}", None, world["sessions"])  # type: ignore[arg-type]


def test_a_payload_of_the_session_is_served(world):
    assert "version" in _read(world, "handoff-payload.yaml").text


def test_a_link_swapped_in_after_the_check_is_not_followed(world, monkeypatch):
    (world["session"] / "swapped.yaml").symlink_to(world["outside"] / "secret.yaml")
    monkeypatch.setattr(Path, "is_symlink", lambda self: False)  # the peer swapped it right after the check
    with pytest.raises(SwarmError) as caught:
        _read(world, "swapped.yaml")
    assert caught.value.code == "RESOURCE_OUTSIDE_SESSION"
    assert "secret" not in str(caught.value)


def test_a_session_folder_swapped_for_a_link_is_not_followed(world):
    session = world["session"]
    session.rename(session.with_name("moved"))
    (world["outside"] / "handoff-payload.yaml").write_text("secret: the outside folder\n")
    session.symlink_to(world["outside"], target_is_directory=True)
    with pytest.raises(SwarmError) as caught:
        _read(world, "handoff-payload.yaml")
    assert caught.value.code == "RESOURCE_OUTSIDE_SESSION"


def test_a_fifo_in_the_session_is_refused_without_blocking(world):
    os.mkfifo(world["session"] / "pipe.yaml")
    with pytest.raises(SwarmError) as caught:
        _read(world, "pipe.yaml")
    assert caught.value.code == "RESOURCE_NOT_FOUND"
    assert "not a regular file" in str(caught.value)
