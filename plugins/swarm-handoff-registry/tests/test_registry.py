"""The registry file: optional, merged under local skills, listed when remote; sync keeps user edits."""

from __future__ import annotations

import pytest

from swarm_handoff.api import Scope, discover, make_context
from swarm_handoff_registry.registry import REGISTRY_FILE

REGISTRY = """\
# My registry: hand-written notes stay.
version: "1.0"
updated_at: "2026-02-07T18:30:00Z"

workflows:
  - name: "remote-review"   # lives on another machine
    description: "Review by the platform team"
    handoff:
      accepts_from: ["*"]
      schema_version: "3.0"
      schema_type: "universal"
    categories:
      - "verification"
    meta:
      estimated_duration: "hours"
    owner: platform-team
  - name: "local"
    description: "Registry text for local"
    handoff:
      accepts_from: ["*"]
    categories: ["from-registry"]
    output_types: ["report"]
    tags: [custom]
"""


@pytest.fixture
def world(tmp_path, make_swarm_host):
    host = make_swarm_host(["frontmatter", "registry"])
    config = tmp_path / "config"
    config.mkdir()
    (config / REGISTRY_FILE).write_text(REGISTRY)
    env = {"CLAUDE_CONFIG_DIR": str(config), "HOME": str(tmp_path / "home"), "GIT_CEILING_DIRECTORIES": str(tmp_path)}
    return host, config, env


def add_global(config, name, **frontmatter):
    folder = config / "skills" / name
    folder.mkdir(parents=True)
    block = "\n".join(f"{k}: {v}" for k, v in frontmatter.items())
    (folder / "SKILL.md").write_text(f"---\nname: {name}\ndescription: Local text\n{block}\n---\n")
    return folder / "SKILL.md"


def test_absent_registry_is_silent(tmp_path, make_swarm_host):
    host = make_swarm_host(["registry"])
    result = discover(make_context(tmp_path, {"CLAUDE_CONFIG_DIR": str(tmp_path / "none")}), host)
    assert result.workflows == ()
    assert result.problems == ()


def test_remote_entries_are_listed_with_scope_registry_and_local_fields_win(world, tmp_path):
    host, config, env = world
    add_global(config, "local", handoff="{accepts_from: ['*']}", categories="[from-skill]")
    result = discover(make_context(tmp_path, env), host)
    remote = result.named("remote-review")
    assert remote.scope is Scope.REGISTRY
    assert remote.categories == ("verification",)
    local = result.named("local")
    assert local.scope is Scope.GLOBAL
    assert local.description == "Local text"
    assert local.categories == ("from-skill",)
    assert local.output_types == ("report",)  # only the registry says it
    assert result.shadowed == ()


def test_a_broken_registry_is_a_warning_and_discovery_goes_on(world, tmp_path):
    host, config, env = world
    (config / REGISTRY_FILE).write_text("workflows: [oops\n")
    add_global(config, "local", handoff="{accepts_from: ['*']}")
    result = discover(make_context(tmp_path, env), host)
    assert [r.name for r in result.workflows] == ["local"]
    assert [p.severity.value for p in result.problems] == ["warning"]


def test_an_edited_registry_is_seen_by_the_cache(world, tmp_path):
    host, config, env = world
    assert discover(make_context(tmp_path, env), host).named("remote-review") is not None
    (config / REGISTRY_FILE).write_text(REGISTRY.replace("remote-review", "renamed-review"))
    result = discover(make_context(tmp_path, env), host)
    assert result.named("renamed-review") is not None
    assert result.named("remote-review") is None


def test_sync_keeps_comments_custom_keys_order_and_remote_entries(world, tmp_path, swarm_cli):
    _host, config, env = world
    add_global(config, "local", handoff="{accepts_from: ['*']}", categories="[from-skill]")
    add_global(config, "newcomer", handoff="{accepts_handoff: true, handoff_categories: [research]}")
    out = swarm_cli("registry", "sync", "-f", "json", env={**env, "SWARM_HANDOFF_NO_CACHE": "1"})
    assert out.exit_code == 0, out.stdout + out.stderr
    report = out.json()
    assert report["added"] == ["newcomer"]
    assert report["updated"] == ["local"]
    assert report["kept"] == ["remote-review"]
    text = (config / REGISTRY_FILE).read_text()
    assert text.startswith("# My registry: hand-written notes stay.\n")
    assert "# lives on another machine" in text
    assert "owner: platform-team" in text
    assert "tags: [custom]" in text
    assert f"skill_path: {config / 'skills' / 'newcomer' / 'SKILL.md'}\n" in text
    assert text.index("remote-review") < text.index('name: "local"') < text.index("newcomer")
    assert (config / (REGISTRY_FILE + ".bak")).read_text() == REGISTRY
    from ruamel.yaml import YAML

    data = YAML(typ="safe").load(text)
    local = next(e for e in data["workflows"] if e["name"] == "local")
    assert local["categories"] == ["from-skill"]
    assert local["description"] == "Local text"
    assert data["meta"]["total_workflows"] == 3


def test_sync_twice_changes_nothing_but_timestamps(world, tmp_path, swarm_cli):
    _host, config, env = world
    add_global(config, "local", handoff="{accepts_from: ['*']}")
    env = {**env, "SWARM_HANDOFF_NO_CACHE": "1"}
    swarm_cli("registry", "sync", env=env)
    second = swarm_cli("registry", "sync", "-f", "json", env=env).json()
    assert second["added"] == []
    assert second["updated"] == []


def test_sync_refuses_to_touch_an_unreadable_registry(world, swarm_cli):
    _host, config, env = world
    (config / REGISTRY_FILE).write_text("workflows: [oops\n")
    out = swarm_cli("registry", "sync", "-f", "json", env=env)
    assert out.exit_code == 1
    assert out.json()["error"]["code"] == "REGISTRY_SYNC_FAILED"
    assert (config / REGISTRY_FILE).read_text() == "workflows: [oops\n"


def test_show_and_path(world, swarm_cli):
    _host, config, env = world
    assert swarm_cli("registry", "path", env=env).stdout == f"{config / REGISTRY_FILE}\n"
    shown = swarm_cli("registry", "show", "-f", "json", env=env).json()
    assert [w["skill"] for w in shown["workflows"]] == ["remote-review", "local"]
    assert shown["exists"] is True


def test_why_mentions_the_registry(world, tmp_path, swarm_cli):
    _host, _config, env = world
    data = swarm_cli("why", "remote-review", "--cwd", str(tmp_path), "-f", "json", env=env).json()
    assert data["looked"][-1]["scope"] == "registry"
    assert data["looked"][-1]["status"] == "chosen"


@pytest.mark.parametrize("command", ["path", "show", "sync", "prune"])
def test_every_registry_help_page_shows_examples_and_the_docs_page(world, swarm_cli, command):
    page = swarm_cli("registry", command, "-h").stdout
    assert f"Examples:\n    swarm-handoff registry {command}" in page, page
    assert "More: docs/registry.md" in page
