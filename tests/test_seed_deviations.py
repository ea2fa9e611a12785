"""docs/seed-deviations.md: every row is complete and names tests that exist."""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PAGE = ROOT / "docs" / "seed-deviations.md"
HEADER = ["seed", "section", "what we do", "why", "test that pins it"]
TEST_ID = re.compile(r"`([\w./-]+\.py)::(\w+)`")


def _rows() -> list[list[str]]:
    lines = [line for line in PAGE.read_text(encoding="utf-8").splitlines() if line.startswith("|")]
    cells = [[cell.strip() for cell in line.strip("|").split(" | ")] for line in lines]
    assert cells[0] == HEADER
    return cells[2:]  # after the header and its |---| line


def test_every_row_has_every_column_and_a_seed_that_exists():
    rows = _rows()
    assert rows
    seeds = {"workflow-discovery.md", "handoff-schema-v2.md", "handoff-registry.md", "skills-system.md"}
    seeds |= {"workflow-framework.md", "handoff-payload-v2.0.schema.json", "handoff-payload-v3.0.schema.json"}
    for row in rows:
        assert len(row) == len(HEADER), row
        assert all(row), row
        assert row[0] in seeds, row[0]


def test_every_pinning_test_exists():
    for row in _rows():
        found = TEST_ID.findall(row[-1])
        assert found, f"no test named in: {row[-1]}"
        for path, name in found:
            source = ROOT / path
            assert source.is_file(), path
            assert re.search(rf"^(async )?def {name}\(", source.read_text(encoding="utf-8"), re.M), f"{path}::{name}"
