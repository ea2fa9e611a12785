"""Issue 26, point 9: `registry sync` validates what it wrote (the seed's step 5); remote entries are targets."""

from __future__ import annotations

import attrs
import pytest
from ruamel.yaml import YAML

from swarm_handoff.api import HandoffOptions, Scope, SkillRecord, SwarmError, discover, hand_off, make_context
from swarm_handoff_registry import sync as sync_module
from swarm_handoff_registry.registry import REGISTRY_FILE, entry_problem, remote_host, show, this_host
from swarm_handoff_registry.sync import REGISTRY_SYNC_FAILED, sync

REMOTE = """\
version: "1.0"
workflows:
  - name: remote-review   # on the build server
    description: Review by the platform team
    host: build-server.example.org
    skill_path: /srv/skills/remote-review/SKILL.md
    handoff: {accepts_from: ["*"]}
    categories: [verification]
  - name: here-but-gone
    description: Said to be on this machine
    host: HOSTNAME
    skill_path: /nowhere/here-but-gone/SKILL.md
    handoff: {accepts_from: ["*"]}
"""


@pytest.fixture
def world(registry_world, monkeypatch):
    config = registry_world["config"]
    config.mkdir()
    monkeypatch.chdir(registry_world["tmp"])
    (config / REGISTRY_FILE).write_text(REMOTE.replace("HOSTNAME", this_host().upper()))
    return registry_world


def entries(config):
    return {e["name"]: e for e in YAML(typ="safe").load((config / REGISTRY_FILE).read_text())["workflows"]}


def mine(name, folder):
    return SkillRecord(name=name, scope=Scope.GLOBAL, source="fm", path=str(folder / name / "SKILL.md"))


# ---- remote entries ------------------------------------------------------------------------------


def test_an_entry_is_remote_when_its_host_is_another_machine():
    assert remote_host({"host": "build-server"}, here="laptop") == "build-server"
    assert remote_host({"host": "LAPTOP.example.org"}, here="laptop") is None  # this machine, named fully
    assert remote_host({"host": "laptop"}, here="laptop.example.org") is None
    assert remote_host({"skill_path": "/x/SKILL.md"}, here="laptop") is None  # no host: this machine's


def test_sync_keeps_a_remote_entry_as_remote_and_marks_only_a_local_one_stale(world):
    report = sync(world["config"] / REGISTRY_FILE, ())
    assert report.remote == ("remote-review",)
    assert report.stale == ("here-but-gone",)
    written = entries(world["config"])
    assert "stale" not in written["remote-review"]
    assert written["here-but-gone"]["stale"] is True
    assert "remote (on another machine: kept, never stale): remote-review" in report.to_text()


def test_sync_clears_a_stale_mark_once_the_entry_says_its_host(world):
    path = world["config"] / REGISTRY_FILE
    text = REMOTE.replace("HOSTNAME", this_host())
    path.write_text(text.replace("    host: build-server.example.org\n", "    stale: true\n    stale_reason: gone\n"))
    assert sync(path, ()).stale[:1] == ("remote-review",)
    path.write_text(path.read_text().replace("  - name: remote-review", "  - name: remote-review\n    host: far-away"))
    report = sync(path, ())
    assert "remote-review" not in report.stale
    assert report.remote == ("remote-review",)
    assert "stale" not in entries(world["config"])["remote-review"]


def test_discovery_lists_a_remote_entry_as_a_target_without_reading_its_path(world):
    result = discover(make_context(world["tmp"]))
    remote = result.named("remote-review")
    assert remote is not None
    assert remote.eligible
    assert remote.meta["remote_host"] == "build-server.example.org"
    assert remote.meta["remote_skill_path"] == "/srv/skills/remote-review/SKILL.md"
    assert remote.path == str(world["config"] / REGISTRY_FILE)  # nothing here reads the other machine's path
    # this machine's entry whose skill is gone is stale at once, before any sync: never offered as a target
    assert result.named("here-but-gone") is None
    stale = [r for r in result.ineligible if r.name == "here-but-gone"]
    assert stale
    assert stale[0].problems[-1].code == "REGISTRY_ENTRY_STALE"
    shown = show(world["config"] / REGISTRY_FILE).to_text()
    assert "remote-review  (verification)  Review by the platform team  [remote: on build-server.example.org]" in shown


def test_handoff_to_a_remote_entry_writes_the_payload_and_says_where_it_goes(world):
    options = HandoffOptions(
        target="remote-review", synthesis=world["tmp"] / "synthesis.yaml", session=world["tmp"] / "session"
    )
    data = hand_off(options, confirm=lambda _m: True).to_data()
    assert any("remote workflow on build-server.example.org" in note for note in data["notes"]), data["notes"]
    with pytest.raises(SwarmError) as caught:
        hand_off(attrs.evolve(options, health_check=True), confirm=lambda _m: True)
    assert caught.value.code == "USAGE"
    assert "runs there" in str(caught.value)


def test_handoff_to_this_machines_entry_whose_skill_is_gone_is_still_refused(world):
    options = HandoffOptions(
        target="here-but-gone", synthesis=world["tmp"] / "synthesis.yaml", session=world["tmp"] / "session"
    )
    with pytest.raises(SwarmError) as caught:
        hand_off(options, confirm=lambda _m: True)
    assert caught.value.code == "TARGET_NOT_FOUND"
    assert "SKILL.md is gone" in str(caught.value)


def test_a_url_skill_path_is_refused_with_the_way_to_say_remote():
    entry = {"name": "far", "skill_path": "https://example.org/skills/far/SKILL.md", "handoff": {"accepts_from": ["*"]}}
    why = entry_problem(entry)
    assert why is not None
    assert "host: MACHINE" in why
    assert "not a machine name" in (entry_problem({"name": "x", "host": "a b/c"}) or "")


# ---- step 5: validate what was written -----------------------------------------------------------


def test_sync_refuses_to_write_text_that_does_not_read_back_and_leaves_the_file(world, monkeypatch, tmp_path):
    path = world["config"] / REGISTRY_FILE
    before = path.read_bytes()
    monkeypatch.setattr(sync_module, "_dump", lambda yaml, document: "workflows: [unclosed\n")
    with pytest.raises(SwarmError) as caught:
        sync(path, (mine("mine", tmp_path),))
    assert caught.value.code == REGISTRY_SYNC_FAILED
    assert "does not read back" in str(caught.value)
    assert path.read_bytes() == before
    assert not (path.parent / (REGISTRY_FILE + ".bak")).exists()


def test_sync_refuses_text_that_lost_a_synced_workflow(world, monkeypatch, tmp_path):
    path = world["config"] / REGISTRY_FILE
    before = path.read_bytes()
    monkeypatch.setattr(sync_module, "_dump", lambda yaml, document: before.decode())
    with pytest.raises(SwarmError) as caught:
        sync(path, (mine("mine", tmp_path),))
    assert "no usable entry for mine" in str(caught.value)
    assert path.read_bytes() == before


def test_sync_rereads_the_file_on_disk_and_puts_the_previous_one_back_when_it_differs(world, monkeypatch, tmp_path):
    path = world["config"] / REGISTRY_FILE
    before = path.read_bytes()
    real = sync_module.atomic_write

    def torn(target, data, **kwargs):
        real(target, data[: len(data) // 2] if target == path and data != before else data, **kwargs)

    monkeypatch.setattr(sync_module, "atomic_write", torn)
    with pytest.raises(SwarmError) as caught:
        sync(path, (mine("mine", tmp_path),))
    assert "not what was written" in str(caught.value)
    assert path.read_bytes() == before


def test_sync_reports_a_hand_written_entry_it_kept_but_discovery_skips(world):
    path = world["config"] / REGISTRY_FILE
    path.write_text(REMOTE + "  - name: ../escape\n    description: not a name\n")
    report = sync(path, ())
    assert [p.code for p in report.problems] == ["REGISTRY_ENTRY_INVALID"]
    assert "../escape" in entries(world["config"])  # kept as written
    assert report.to_data()["problems"][0]["code"] == "REGISTRY_ENTRY_INVALID"


# ---- what an entry cannot override -----------------------------------------------------------------


def test_an_entry_cannot_change_a_skills_priority_or_its_own(world):
    skills = world["config"] / "skills" / "mine"
    skills.mkdir(parents=True)
    (skills / "SKILL.md").write_text("---\nname: mine\ndescription: Local\nhandoff: {accepts_from: ['*']}\n---\n")
    path = world["config"] / REGISTRY_FILE
    path.write_text(
        path.read_text()
        + "  - name: mine\n    priority: 0\n    description: Registry text\n    output_types: [report]\n"
        + "    handoff: {accepts_from: ['*']}\n"
        + "  - name: first-please\n    priority: 0\n    handoff: {accepts_from: ['*']}\n    host: far-away\n"
    )
    result = discover(make_context(world["tmp"]))
    mine = result.named("mine")
    assert mine is not None
    assert mine.scope == Scope.GLOBAL
    assert mine.priority == Scope.GLOBAL.priority
    assert mine.description == "Local"
    assert mine.output_types == ("report",)  # an empty field is all the entry fills in
    first = result.named("first-please")
    assert first is not None
    assert first.priority == Scope.REGISTRY.priority


def test_this_host_is_the_name_the_system_gives_without_a_dns_lookup():
    import socket

    assert this_host() == socket.gethostname()


def test_discovery_watches_local_skill_paths_but_never_a_remote_entrys(world, monkeypatch):
    from swarm_handoff_registry import registry

    watched = []
    monkeypatch.setattr(registry, "watch", lambda p: watched.append(str(p)))
    registry.RegistrySource().discover(make_context(world["tmp"]))
    assert "/nowhere/here-but-gone/SKILL.md" in watched  # this machine's: its removal must be noticed
    assert "/srv/skills/remote-review/SKILL.md" not in watched  # a path on the build server, not here
