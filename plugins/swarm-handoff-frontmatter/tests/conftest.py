"""The scan's cache tests write SKILL.md files and discover at once: let the caches trust them."""

from __future__ import annotations

import pytest


@pytest.fixture(autouse=True)
def _fresh_files_are_trusted(trust_fresh_files: None) -> None:
    """See the testing kit's `trust_fresh_files`."""
