"""A test run never writes the user's cache: every suite runs with a cache folder of its own (conftest.py)."""

from __future__ import annotations

import os
import tempfile
from pathlib import Path

from swarm_handoff import filecache


def test_the_cache_folder_of_a_test_run_is_a_temporary_one() -> None:
    folder = Path(filecache.cache_folder(os.environ) or "").resolve()
    assert folder.is_relative_to(Path(tempfile.gettempdir()).resolve())
    assert not folder.is_relative_to(Path(os.path.expanduser("~"), ".cache").resolve())
