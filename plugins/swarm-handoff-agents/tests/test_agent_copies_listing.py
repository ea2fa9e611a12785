"""`discover` says which agent loads which copy (issue 26, point 4), with the real sources.

Claude Code loads `.claude/skills`, Codex and the Agent Skills clients `.agents/skills`. Here the
`.claude` copy of `review` declares no hand-off metadata and the `.agents` copy does: swarm-handoff
hands off to the `.agents` copy, and the listing says that Claude Code loads the other one.
"""

from __future__ import annotations

from swarm_handoff.api import discover, make_context


def test_discover_says_claude_code_loads_the_claude_copy_when_the_agents_copy_is_chosen(world, skill, swarm_cli):
    repo = world["repo"]
    plain = repo / ".claude" / "skills" / "review"
    plain.mkdir(parents=True)
    (plain / "SKILL.md").write_text("---\nname: review\ndescription: The team's review, no hand-off\n---\n")
    chosen = skill(repo / ".agents" / "skills", "review", "A validated review")
    result = discover(make_context(repo, world["env"]), world["host"], show_all=True, cache=False)
    [review] = [w for w in result.to_data()["workflows"] if w["skill"] == "review"]
    assert review["path"] == str(chosen)
    assert review["agents"] == ["codex", "agent-skills"]
    assert review["agents_load_other"] == [
        {"agent": "claude-code", "scope": "project", "path": str(plain / "SKILL.md"), "eligible": False}
    ]
    text = swarm_cli("discover", "--all", "--cwd", str(repo), env=world["env"]).stdout
    assert "[agents: Codex, Agent Skills clients]" in text
    assert f"Claude Code loads another copy: [project] {plain / 'SKILL.md'} (not a hand-off target)" in text


def test_a_project_skill_is_loaded_by_claude_code(world, skill):
    repo = world["repo"]
    skill(repo / ".claude" / "skills", "mine")
    result = discover(make_context(repo, world["env"]), world["host"], cache=False)
    [mine] = [w for w in result.to_data()["workflows"] if w["skill"] == "mine"]
    assert mine["agents"] == ["claude-code"]
