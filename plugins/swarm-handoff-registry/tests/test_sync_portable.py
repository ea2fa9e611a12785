"""`registry sync` writes a registry that YAML 1.1 readers (PyYAML) read as it was meant."""

from __future__ import annotations

import yaml as pyyaml

from swarm_handoff.api import Scope, SkillRecord
from swarm_handoff_registry.sync import sync


def test_sync_quotes_what_yaml_11_would_misread(tmp_path):
    path = tmp_path / "handoff-registry.yaml"
    path.write_text("version: '1.0'\nworkflows:\n  - name: remote\n    description: yes\n")
    record = SkillRecord(
        name="on", scope=Scope.PROJECT, source="t", description="no", categories=("off", "1:20"), path="/x/SKILL.md"
    )
    sync(path, (record,))
    data = pyyaml.safe_load(path.read_text())
    entries = {e["name"]: e for e in data["workflows"]}
    assert entries["remote"]["description"] == "yes"  # the user's plain `yes` was text (YAML 1.2); it stays text
    assert entries["on"]["description"] == "no"
    assert entries["on"]["categories"] == ["off", "1:20"]


def test_a_hand_written_date_equal_to_the_skills_is_left_as_written(tmp_path):
    path = tmp_path / "handoff-registry.yaml"
    record = SkillRecord(
        name="dated", scope=Scope.PROJECT, source="t", path="/x/SKILL.md", meta={"version": "2024-01-01"}
    )
    sync(path, (record,))
    written = path.read_text()
    assert "version: '2024-01-01'" in written
    path.write_text(written.replace("version: '2024-01-01'", "version: 2024-01-01"))  # the user's own spelling
    report = sync(path, (record,))
    assert report.updated == ()  # the same date: nothing to update, the user's formatting kept
    assert "version: 2024-01-01\n" in path.read_text()
