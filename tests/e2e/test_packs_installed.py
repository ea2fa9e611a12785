"""Skill packs as users get them: `pip install` a pack and its skill is discovered, ranked, handed off to,
run, linked for folder-reading agents, and gone again after `pip uninstall`. All through the executable.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

RESEARCH_PACK = "skills-examples/swarm-pack-research"  # as in conftest.py

# Written for these tests: an analytical question with open questions, which the research pack's
# evidence-review skill (categories research and analysis) should win.
SYNTHESIS = """\
original_prompt: Do the nightly batch retries lose messages when the broker is under load?
problem_type: analytical
synthesis_summary: >-
  Three perspectives disagree on whether the retry path can drop messages; the evidence each cites is thin.
key_uncertainties: [retry semantics under load, broker durability settings, how loss was measured]
research_seeds:
  open_questions: [Which brokers guarantee at-least-once delivery with client retries?]
  suggested_terms:
    - {term: at-least-once delivery}
"""


@pytest.fixture
def synthesis(tmp_path: Path) -> Path:
    path = tmp_path / "synthesis.yaml"
    path.write_text(SYNTHESIS, encoding="utf-8")
    return path


def installed_skills(env, *args: str, cwd: Path | None = None) -> dict[str, dict]:
    """The installed-scope skills `discover` lists, by name."""
    data = env.json("discover", "--scope", "installed", *args, cwd=cwd)
    return {w["skill"]: w for w in data["workflows"]}


def test_the_pack_skill_is_discovered_in_scope_installed(e2e_env):
    skills = installed_skills(e2e_env)
    skill = skills["evidence-review"]
    assert skill["scope"] == "installed"
    assert skill["categories"] == ["research", "analysis"]
    assert skill["meta"]["distribution"] == "swarm-pack-research"
    assert skill["path"].endswith(os.path.join("swarm_pack_research", "skills", "evidence-review", "SKILL.md"))
    assert "site-packages" in skill["path"]  # a regular install, not the repository's file
    assert "implement-change" in skills


def test_the_pack_skill_ranks_first_for_an_analytical_synthesis(e2e_env, synthesis):
    data = e2e_env.json("rank", "--synthesis", str(synthesis))
    ranked = [w["skill"] for w in data["workflows"]]
    assert ranked[0] == "evidence-review"
    assert data["workflows"][0]["score"] > 0


def test_handoff_writes_a_payload_that_verify_accepts(e2e_env, synthesis, tmp_path):
    session = tmp_path / "session"
    session.mkdir()
    data = e2e_env.json("handoff", "evidence-review", "--synthesis", str(synthesis), "--session", str(session))
    payload = Path(data["payload_path"])
    if not payload.is_absolute():
        payload = e2e_env.home / payload
    assert payload.is_file()
    assert data["invocation"].startswith("/evidence-review --handoff ")
    verified = e2e_env.run("verify", str(payload), "--format", "json")
    assert verified.returncode == 0, verified.stdout + verified.stderr
    # ... and a changed payload is refused.
    payload.write_text(payload.read_text(encoding="utf-8").replace("nightly", "weekly"), encoding="utf-8")
    assert e2e_env.run("verify", str(payload)).returncode == 1


def test_workflow_step_runs_the_implementation_packs_first_step(e2e_env, tmp_path):
    listed = e2e_env.json("workflow", "list")
    assert "implement-change" in json.dumps(listed)
    step = e2e_env.json("workflow", "step", "implement-change", "plan", "--project", str(tmp_path))
    assert step["step"] == "plan"
    [after] = step["next"]
    assert after["step"] == "implement"
    assert after["command"].startswith("swarm-handoff workflow step implement-change implement")


def test_skills_link_then_unlink_in_a_project(e2e_env, tmp_path):
    project = tmp_path / "project"
    (project / ".claude" / "skills" / "mine").mkdir(parents=True)
    linked = e2e_env.json("skills", "link", "--cwd", str(project))
    names = {e["name"] for e in linked["linked"] + linked["copied"]}
    assert {"evidence-review", "implement-change"} <= names
    skill_md = project / ".claude" / "skills" / "evidence-review" / "SKILL.md"
    assert "name: evidence-review" in skill_md.read_text(encoding="utf-8")
    # A folder-reading agent now sees it; so does discovery, in scope project (which shadows installed).
    found = e2e_env.json("discover", "--cwd", str(project))
    [skill] = [w for w in found["workflows"] if w["skill"] == "evidence-review"]
    assert skill["scope"] == "project"
    unlinked = e2e_env.json("skills", "unlink", "--cwd", str(project))
    assert {e["name"] for e in unlinked["unlinked"] + unlinked["removed"]} == names
    assert sorted(p.name for p in (project / ".claude" / "skills").iterdir()) == ["mine"]


def test_a_pack_whose_entry_point_names_a_missing_module_is_reported_and_the_others_listed(e2e_env, tmp_path):
    installed_skills(e2e_env)  # warm the cache first: installing a pack must be noticed without --refresh
    e2e_env.install_throwaway(
        tmp_path / "ghost-pack",
        "ghost-pack",
        "swarm_handoff.skills",
        'ghost = "ghost_pack.no_such_module"',
        '"""Ships no skill module."""\n',
    )
    try:
        data = e2e_env.json("discover", "--scope", "installed")
        assert {"evidence-review", "implement-change"} <= {w["skill"] for w in data["workflows"]}
        [problem] = [p for p in data["problems"] if "ghost" in p["message"]]
        assert problem["code"] == "PACK_LOAD_FAILED"
        assert "ghost-pack" in problem["message"]
        assert "no_such_module" in problem["message"]
    finally:
        e2e_env.pip("uninstall", "--yes", "--quiet", "ghost-pack")
    assert not [p for p in e2e_env.json("discover")["problems"] if "ghost" in p["message"]]


def test_after_pip_uninstall_the_skill_is_gone_even_from_the_cache(e2e_env, tmp_path):
    assert "evidence-review" in installed_skills(e2e_env)  # cached now
    e2e_env.json("skills", "link", "evidence-review", "--cwd", str(tmp_path))
    e2e_env.pip("uninstall", "--yes", "--quiet", "swarm-pack-research")
    try:
        assert "evidence-review" not in installed_skills(e2e_env)  # the cache noticed, no --refresh
        assert "evidence-review" not in installed_skills(e2e_env, "--refresh")
        assert "implement-change" in installed_skills(e2e_env)
        # The folder link made now dangles: link says so, and unlink removes it.
        relinked = e2e_env.json("skills", "link", "--cwd", str(tmp_path))
        assert [p["code"] for p in relinked["problems"] if "evidence-review" in p["message"]] == ["LINK_STALE"]
        e2e_env.json("skills", "unlink", "evidence-review", "--cwd", str(tmp_path))
        assert not os.path.lexists(tmp_path / ".claude" / "skills" / "evidence-review")
    finally:
        e2e_env.install(RESEARCH_PACK)
    assert "evidence-review" in installed_skills(e2e_env)  # and back after reinstalling, cache or not
