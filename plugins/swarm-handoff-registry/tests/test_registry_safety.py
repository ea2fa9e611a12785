"""The registry under a swarm: syncs at once keep each other's entries, nothing blocks or escapes."""

from __future__ import annotations

import os
import subprocess
import sys
import threading

import pytest

from swarm_handoff.api import NOT_A_REGULAR_FILE, Scope, SkillRecord, discover, make_context
from swarm_handoff_registry import registry_file
from swarm_handoff_registry import sync as sync_module
from swarm_handoff_registry.registry import REGISTRY_ENTRY_INVALID, REGISTRY_FILE
from swarm_handoff_registry.sync import sync

posix_only = pytest.mark.skipif(os.name != "posix", reason="flock and FIFOs are POSIX")


def in_thread(function, *args, **kwargs):
    """What `function` returns, run in a thread with a safety-net timeout so that a hang fails the test."""
    out: list = []
    worker = threading.Thread(target=lambda: out.append(function(*args, **kwargs)), daemon=True)
    worker.start()
    worker.join(60)  # without the fix, opening the FIFO never returns
    assert out, f"{function.__name__} blocked"
    return out[0]


def record(name, folder):
    return SkillRecord(
        name=name, scope=Scope.GLOBAL, source="frontmatter", path=str(folder / name / "SKILL.md"),
        description=f"{name} skill", categories=("research",),
    )  # fmt: skip


def names(path):
    from ruamel.yaml import YAML

    return {e["name"] for e in YAML(typ="safe").load(path.read_text())["workflows"]}


@posix_only
def test_a_second_sync_waits_for_the_first_instead_of_losing_its_entries(tmp_path, monkeypatch):
    from swarm_handoff.api import locked

    path = tmp_path / REGISTRY_FILE
    sync(path, (record("first", tmp_path),))
    reading = threading.Event()
    real_read = registry_file.read_registry

    def read(p):
        reading.set()
        return real_read(p)

    monkeypatch.setattr(registry_file, "read_registry", read)
    with locked(tmp_path):  # another sync is half-way through its read-change-write
        worker = threading.Thread(target=sync, args=(path, (record("second", tmp_path),)))
        worker.start()
        assert not reading.wait(0.5)  # it waits: it has not even read the registry yet
        sync_module._sync_locked(path, (record("holder", tmp_path),), None)  # the holder's write
    worker.join()
    assert reading.is_set()
    assert names(path) == {"first", "holder", "second"}


SYNC_ONE = """
import sys
from pathlib import Path
from swarm_handoff.records import Scope, SkillRecord
from swarm_handoff_registry.sync import sync
name, path = sys.argv[1], Path(sys.argv[2])
sync(path, (SkillRecord(name=name, scope=Scope.GLOBAL, source="frontmatter", path=f"/skills/{name}/SKILL.md"),))
"""


@posix_only
def test_ten_concurrent_syncs_lose_nothing(tmp_path):
    path = tmp_path / REGISTRY_FILE
    runs = [
        subprocess.Popen([sys.executable, "-c", SYNC_ONE, f"skill-{n}", str(path)], stderr=subprocess.PIPE)
        for n in range(10)
    ]
    for run in runs:
        _, err = run.communicate(timeout=120)  # a safety net, not a limit on speed
        assert run.returncode == 0, err.decode()
    assert names(path) == {f"skill-{n}" for n in range(10)}
    assert not [p for p in tmp_path.iterdir() if p.name.endswith(".tmp")]


@posix_only
def test_the_backup_is_never_written_through_a_link(tmp_path):
    path = tmp_path / REGISTRY_FILE
    path.write_text("workflows: []\n")
    target = tmp_path / "elsewhere.txt"
    target.write_text("not yours")
    backup = tmp_path / (REGISTRY_FILE + ".bak")
    os.symlink(target, backup)
    report = sync(path, (record("one", tmp_path),))
    assert target.read_text() == "not yours"
    assert not backup.is_symlink()
    assert backup.read_text() == "workflows: []\n"
    assert report.backup == str(backup)


@posix_only
def test_the_backup_keeps_the_registry_s_permissions(tmp_path):
    path = tmp_path / REGISTRY_FILE
    path.write_text("workflows: []\n")
    path.chmod(0o600)
    sync(path, (record("one", tmp_path),))
    assert (tmp_path / (REGISTRY_FILE + ".bak")).stat().st_mode & 0o777 == 0o600


@posix_only
def test_a_fifo_at_the_registry_path_blocks_nothing(tmp_path, make_swarm_host, swarm_cli):
    config = tmp_path / "config"
    config.mkdir()
    os.mkfifo(config / REGISTRY_FILE)
    host = make_swarm_host(["registry"])
    env = {"CLAUDE_CONFIG_DIR": str(config), "HOME": str(tmp_path)}
    found = in_thread(discover, make_context(tmp_path, env), host, cache=False)
    assert [p.code for p in found.problems] == [NOT_A_REGULAR_FILE]
    synced = in_thread(swarm_cli, "registry", "sync", "-f", "json", env={**env, "SWARM_HANDOFF_NO_CACHE": "1"})
    assert synced.exit_code == 1
    assert synced.json()["error"]["code"] == "REGISTRY_SYNC_FAILED"


def test_entries_whose_names_or_paths_escape_are_skipped_and_the_rest_kept(tmp_path, make_swarm_host, monkeypatch):
    config = tmp_path / "config"
    config.mkdir()
    monkeypatch.setenv("HOME", str(tmp_path))  # `~` of the one good entry; its skill must exist to be a target
    (tmp_path / "skills" / "fine").mkdir(parents=True)
    (tmp_path / "skills" / "fine" / "SKILL.md").write_text("---\nname: fine\n---\n")
    (config / REGISTRY_FILE).write_text(
        "workflows:\n"
        "  - {name: '../../escape', description: d, handoff: {accepts_from: ['*']}}\n"
        "  - {name: '/abs', description: d, handoff: {accepts_from: ['*']}}\n"
        "  - {name: \"bell\\a\", description: d, handoff: {accepts_from: ['*']}}\n"
        "  - {name: rel, skill_path: 'skills/rel/SKILL.md', description: d, handoff: {accepts_from: ['*']}}\n"
        "  - {name: up, skill_path: '/a/../../etc/SKILL.md', description: d, handoff: {accepts_from: ['*']}}\n"
        "  - {name: fine, skill_path: '~/skills/fine/SKILL.md', description: d, handoff: {accepts_from: ['*']}}\n"
    )
    host = make_swarm_host(["registry"])
    result = discover(make_context(tmp_path, {"CLAUDE_CONFIG_DIR": str(config), "HOME": str(tmp_path)}), host)
    assert [r.name for r in result.workflows] == ["fine"]
    assert [p.code for p in result.problems] == [REGISTRY_ENTRY_INVALID] * 5
    assert all(p.path == str(config / REGISTRY_FILE) for p in result.problems)
