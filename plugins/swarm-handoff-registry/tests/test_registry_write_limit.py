"""`registry sync` never writes a registry its own reader would refuse (issue 25, a low finding).

A registry just under the read limit (4 MiB) grew past it with one more synced skill: the file was
written, and from then on every read (discovery, `registry show`, the next sync) refused it.
"""

from __future__ import annotations

import pytest

from swarm_handoff.api import Scope, SkillRecord, SwarmError, discover, make_context
from swarm_handoff.textfile import MAX_BYTES
from swarm_handoff_registry.registry import REGISTRY_FILE
from swarm_handoff_registry.sync import prune, sync


def _record(name, folder):
    return SkillRecord(
        name=name, scope=Scope.GLOBAL, source="frontmatter", path=str(folder / name / "SKILL.md"),
        description=f"{name} skill", categories=("research",),
    )  # fmt: skip


def _almost_full(path, room: int) -> bytes:
    head = "version: '1.0'\nworkflows:\n- name: remote\n  description: '"
    tail = "'\n  skill_path: https://example.invalid/remote\n"
    text = head + "x" * (MAX_BYTES - room - len(head) - len(tail)) + tail
    path.write_text(text)
    return text.encode()


def test_a_sync_that_would_pass_the_read_limit_is_refused_and_writes_nothing(tmp_path):
    path = tmp_path / REGISTRY_FILE
    before = _almost_full(path, room=200)
    with pytest.raises(SwarmError) as caught:
        sync(path, tuple(_record(f"skill-{n}", tmp_path) for n in range(5)))
    assert caught.value.code == "REGISTRY_TOO_LARGE"
    assert str(path) in str(caught.value)
    assert str(MAX_BYTES) in str(caught.value)
    assert "prune" in (caught.value.hint or "")
    assert path.read_bytes() == before
    assert not (tmp_path / (REGISTRY_FILE + ".bak")).exists()


def test_a_sync_that_fits_is_written_and_read_back(tmp_path):
    path = tmp_path / REGISTRY_FILE
    _almost_full(path, room=4000)
    sync(path, (_record("one", tmp_path),))
    assert len(path.read_bytes()) <= MAX_BYTES
    assert "one" in path.read_text()


def test_prune_checks_the_limit_too(tmp_path):
    path = tmp_path / REGISTRY_FILE
    path.write_text("version: '1.0'\nworkflows: []\n")
    assert prune(path).removed == ()  # nothing stale: nothing written, no error


def test_discovery_still_reads_what_sync_wrote(tmp_path, make_swarm_host):
    make_swarm_host(["registry"])
    path = tmp_path / "config" / REGISTRY_FILE
    path.parent.mkdir()
    _almost_full(path, room=4000)
    sync(path, (_record("one", tmp_path),))
    context = make_context(tmp_path, env={"CLAUDE_CONFIG_DIR": str(tmp_path / "config"), "HOME": str(tmp_path)})
    result = discover(context, show_all=True)
    assert not [p for p in result.problems if p.code == "YAML_TOO_LARGE"]


def test_the_write_limit_is_the_read_limit():
    from swarm_handoff_registry.sync import REGISTRY_MAX_BYTES

    assert REGISTRY_MAX_BYTES == MAX_BYTES  # discovery reads the registry with the core's limit
