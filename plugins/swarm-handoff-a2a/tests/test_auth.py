"""The receiver's token file: its mode is judged on the very file whose first line is the token."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import pytest

from swarm_handoff import api
from swarm_handoff.api import SwarmError
from swarm_handoff_a2a.auth import Auth


def test_a_token_file_swapped_for_a_private_one_after_it_was_read_is_still_refused(tmp_path: Path, monkeypatch):
    """Checked on the file read, not on a second look at the name: a swap in between cannot pass a readable token."""
    path = tmp_path / "a2a.token"
    path.write_text("seen-by-everyone\n", encoding="utf-8")
    path.chmod(0o644)
    private = tmp_path / "private.token"
    private.write_text("seen-by-everyone\n", encoding="utf-8")
    private.chmod(0o600)
    reading = api.read_text

    def read_then_swap(*args: Any, **kwargs: Any) -> str:
        try:
            return reading(*args, **kwargs)
        finally:
            os.replace(private, path)  # what was read was readable by others; the name now is not

    monkeypatch.setattr(api, "read_text", read_then_swap)
    with pytest.raises(SwarmError) as caught:
        Auth.from_file("bearer", path)
    assert caught.value.code == "A2A_AUTH_SECRET"
    assert "can be read by others (mode 644)" in caught.value.message


def test_a_private_token_file_gives_its_first_line(tmp_path: Path):
    path = tmp_path / "a2a.token"
    path.write_text("  s3cret  \nignored\n", encoding="utf-8")
    path.chmod(0o600)
    assert Auth.from_file("bearer", path).secret == "s3cret"
    path.chmod(0o640)
    with pytest.raises(SwarmError, match="mode 640"):
        Auth.from_file("bearer", path)
