"""The stress suite runs only when asked for (`-m stress`, or `nox -s stress`).

It starts a few hundred real CLI processes, so an everyday `pytest tests` (even `-m "not e2e"`)
skips it instead of doubling its run time.
"""

from __future__ import annotations

import pytest


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Skip stress tests unless the marker expression names them."""
    if "stress" in (config.option.markexpr or "") and "not stress" not in config.option.markexpr:
        return
    skip = pytest.mark.skip(reason="the stress suite runs with -m stress (nox -s stress)")
    for item in items:
        if item.get_closest_marker("stress") is not None:
            item.add_marker(skip)
