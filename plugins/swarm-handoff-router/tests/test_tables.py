"""The phrase and synonym tables are data in the package, each entry with the request that justifies it."""

from __future__ import annotations

import json
from importlib import resources
from pathlib import Path

import pytest

from swarm_handoff_router import phrases, tables, text


def shipped() -> dict[str, object]:
    return json.loads(resources.files("swarm_handoff_router").joinpath(tables.FILE).read_text(encoding="utf-8"))


def test_the_tables_come_from_the_data_file() -> None:
    data = shipped()
    assert tuple((e["pattern"], e["stands_for"]) for e in data["phrases"]) == phrases.IDIOMS  # type: ignore[attr-defined]
    assert tuple(tuple(e["words"]) for e in data["synonyms"]) == text.SYNONYM_GROUPS  # type: ignore[attr-defined]
    assert len(phrases.IDIOM_PATTERNS) == len(phrases.IDIOMS)


def test_every_entry_carries_its_justification_and_measurement() -> None:
    data = shipped()
    for entry in [*data["phrases"], *data["synonyms"]]:  # type: ignore[misc]
        assert "justified_by" in entry
        assert {"tuned", "held_out", "held_out_requests"} <= set(entry["measured"])
    justified = [e for e in [*data["phrases"], *data["synonyms"]] if e["justified_by"]]  # type: ignore[misc]
    assert len(justified) >= len(data["phrases"]) + len(data["synonyms"]) - 5  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("content", "message"),
    [
        ("not json", "reinstall"),
        ('{"phrases": []}', "'phrases' and 'synonyms'"),
        ('{"phrases": [{"pattern": "(", "stands_for": "x"}], "synonyms": []}', "does not compile"),
        ('{"phrases": [{"pattern": "a"}], "synonyms": []}', "'stands_for'"),
        ('{"phrases": [], "synonyms": [{"words": ["one"]}]}', "2 to"),
        ('{"phrases": [], "synonyms": [{"words": "a b"}]}', "2 to"),
    ],
)
def test_a_broken_data_file_is_a_clear_error(
    content: str, message: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (tmp_path / tables.FILE).write_text(content, encoding="utf-8")
    monkeypatch.setattr(tables.pkgutil, "get_data", lambda package, name: (tmp_path / name).read_bytes())
    tables._data.cache_clear()
    try:
        with pytest.raises(tables.BrokenTables, match=message) as caught:
            (tables.phrases(), tables.synonym_groups())
        assert tables.FILE in str(caught.value)
    finally:
        tables._data.cache_clear()


def test_an_oversized_data_file_is_refused(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    (tmp_path / tables.FILE).write_text(" " * (tables.MAX_BYTES + 1), encoding="utf-8")
    monkeypatch.setattr(tables.pkgutil, "get_data", lambda package, name: (tmp_path / name).read_bytes())
    tables._data.cache_clear()
    try:
        with pytest.raises(tables.BrokenTables, match="over"):
            tables.phrases()
    finally:
        tables._data.cache_clear()


def test_reading_the_tables_leaves_importlib_resources_unloaded() -> None:
    """Every warm `route` reads the tables: through the package's loader (`pkgutil.get_data`, which
    reads from a zip as well), not `importlib.resources`, whose import is ~15 M instructions there."""
    import subprocess
    import sys

    program = (
        "import sys\n"
        "from swarm_handoff_router import tables\n"
        "assert tables.phrases() and tables.synonym_groups()\n"
        "print('importlib.resources' in sys.modules)\n"
    )
    done = subprocess.run([sys.executable, "-c", program], capture_output=True, text=True, check=True)
    assert done.stdout.strip() == "False"


def test_a_loader_that_cannot_read_the_data_file_is_a_clear_error(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(tables.pkgutil, "get_data", lambda package, name: None)
    tables._data.cache_clear()
    try:
        with pytest.raises(tables.BrokenTables, match="cannot be read by its loader; reinstall"):
            tables.phrases()
    finally:
        tables._data.cache_clear()
