"""`route()`: a request in words ranks every discovered skill, marks hand-off targets, and can abstain."""

from __future__ import annotations

import json
import os
import time
from pathlib import Path

import attrs
import pytest

import swarm_handoff_router
from swarm_handoff.api import Problem, Severity, SkillRecord, UsageError
from swarm_handoff_router import answer
from swarm_handoff_router.answer import NotRanked, RouteDocument, route


def test_a_request_in_words_ranks_every_discovered_skill_declared_or_not(project: Path) -> None:
    found = route("fill in this PDF form from my spreadsheet", cwd=project)
    names = [entry.record.name for entry in found.ranked]
    assert names[0] == "pdf-filler"
    assert set(names) >= {"pdf-filler", "regex-helper", "decision-helper"}
    assert not found.abstain
    marks = {entry.record.name: entry.accepts_handoff for entry in found.ranked}
    assert marks["decision-helper"] is True
    assert marks["pdf-filler"] is False
    assert any(c.factor.startswith("term:") for c in found.ranked[0].contributions)  # the --explain reasons


def test_the_document_is_json_with_abstain_as_a_field(project: Path) -> None:
    data = json.loads(json.dumps(route("test a regex for my log lines", cwd=project).to_data()))
    assert data["kind"] == "route"
    assert data["abstain"] is False
    assert data["candidates"][0]["skill"] == "regex-helper"
    assert data["candidates"][0]["reasons"]
    assert {"evidence", "threshold", "abstain_reason", "accepts_handoff"} <= set(data) | set(data["candidates"][0])


def test_no_skill_fits_lists_nothing_unless_show_all(project: Path) -> None:
    found = route("book a table for two at an italian restaurant", cwd=project)
    assert found.abstain
    assert found.to_data()["candidates"] == []
    assert "below the threshold" in str(found.to_data()["abstain_reason"])
    shown = route("book a table for two at an italian restaurant", cwd=project, show_all=True)
    assert shown.abstain
    assert len(shown.to_data()["candidates"]) == len(shown.ranked) >= 3  # type: ignore[arg-type]


def test_top_limits_the_candidates_listed(project: Path) -> None:
    found = route("fill in a PDF form", cwd=project, top=1)
    assert [c["skill"] for c in found.to_data()["candidates"]] == ["pdf-filler"]  # type: ignore[union-attr]
    assert found.to_data()["ranked"] == len(found.ranked) >= 3


def test_scope_keeps_one_scope_and_an_unknown_one_is_a_clear_error(project: Path) -> None:
    found = route("fill in a PDF form", cwd=project, scope="project")
    assert found.ranked
    assert {str(e.record.scope) for e in found.ranked} == {"project"}
    with pytest.raises(UsageError, match="scope 'galaxy'") as caught:
        route("fill in a PDF form", cwd=project, scope="galaxy")
    assert "project" in str(caught.value.hint)


@pytest.mark.parametrize(
    ("request_text", "kwargs", "message"),
    [
        ("", {}, "empty"),
        ("   ", {}, "empty"),
        ("x" * (answer.MAX_REQUEST_CHARS + 1), {}, "at most"),
        ("fill a form", {"top": 0}, "at least 1"),
        ("fill a form", {"top": True}, "at least 1"),
        ("fill a form", {"problem_type": "x" * 100}, "problem_type"),
    ],
)
def test_bad_input_is_a_usage_error_saying_what_to_do(
    request_text: str, kwargs: dict[str, object], message: str
) -> None:
    with pytest.raises(UsageError, match=message) as caught:
        route(request_text, records=[], **kwargs)  # type: ignore[arg-type]
    assert caught.value.hint


def test_a_request_that_is_not_text_is_refused() -> None:
    with pytest.raises(UsageError, match="must be text"):
        route(b"bytes", records=[])  # type: ignore[arg-type]


def test_given_records_replace_discovery_and_nothing_discovered_abstains() -> None:
    empty = route("anything at all", records=[])
    assert empty.abstain
    assert empty.ranked == ()
    record = SkillRecord(name="pdf-filler", scope="global", source="t", description="Fill in PDF forms")
    found = route("fill in PDF forms", records=[record], problem_type="decision")
    assert found.ranked[0].record.name == "pdf-filler"
    assert found.to_data()["problem_type"] == "decision"


def test_the_package_exports_route_lazily() -> None:
    assert swarm_handoff_router.route is route
    assert swarm_handoff_router.RouteDocument is RouteDocument
    with pytest.raises(AttributeError):
        _ = swarm_handoff_router.nothing_here


def test_a_cwd_that_is_not_a_folder_is_a_usage_error_naming_it(project: Path, tmp_path: Path) -> None:
    # a mistyped --cwd (or the MCP tool's cwd) must not quietly rank only the installed packs
    for where in (tmp_path / "no-such-project", project / ".claude" / "skills" / "pdf-filler" / "SKILL.md"):
        with pytest.raises(UsageError, match="not a folder") as caught:
            route("fill in a PDF form", cwd=where)
        assert str(where) in str(caught.value)
        assert caught.value.hint


def test_discovered_skills_that_cannot_be_ranked_are_said_not_dropped(project: Path) -> None:
    # a broken frontmatter or a skill that declines hand-offs is not a candidate: the answer says so
    for name, frontmatter in [
        ("camping", "description: Use when: the user wants a packing list for a camping trip\n"),
        ("dentist", "description: Book a dentist appointment\nhandoff:\n  accepts_handoff: false\n"),
    ]:
        path = project / ".claude" / "skills" / name / "SKILL.md"
        path.parent.mkdir()
        path.write_text(f"---\nname: {name}\n{frontmatter}---\n# {name}\n", encoding="utf-8")
        os.utime(path, (time.time() - 3600,) * 2)  # settled, as the conftest's skills
    found = route("a packing list for a camping trip", cwd=project, scope="project")
    assert {e.record.name for e in found.ranked} == {"pdf-filler", "regex-helper", "decision-helper"}
    data = found.to_data()
    left = {entry["skill"]: entry["code"] for entry in data["not_ranked"]}  # type: ignore[union-attr]
    assert left == {"camping": "SKILL_UNQUOTED_COLON", "dentist": "HANDOFF_NOT_ACCEPTED"}
    text = found.to_text()
    assert "2 discovered skills not ranked" in text
    assert "camping (SKILL_UNQUOTED_COLON)" in text
    assert "discover --all" in text
    assert route("fill in a PDF form", records=[]).to_data()["not_ranked"] == []


def test_no_word_in_common_is_said_in_words_not_as_evidence_for_no_skill() -> None:
    record = SkillRecord(name="pdf-filler", scope="global", source="t", description="Fill in PDF forms")
    found = route("tune my guitar", records=[record])
    assert found.abstain
    reason = str(found.to_data()["abstain_reason"])
    assert reason.startswith("no skill shares a word with the request"), reason
    assert "for no skill" not in reason
    assert "threshold" in reason  # the numbers are still there for whoever reads them


def test_what_discovery_could_not_read_is_in_the_answer(project: Path) -> None:
    # a skills folder others may write is not read (SKILLS_OWNER_UNTRUSTED): route must say so, as
    # discover and rank do, not answer "no skill fits" as if the project had no skills
    skills = project / ".claude" / "skills"
    skills.chmod(0o777)
    try:
        found = route("fill in this PDF form from my spreadsheet", cwd=project)
    finally:
        skills.chmod(0o755)
    codes = [p["code"] for p in found.to_data()["problems"]]  # type: ignore[union-attr]
    assert "SKILLS_OWNER_UNTRUSTED" in codes
    text = found.to_text()
    assert "SKILLS_OWNER_UNTRUSTED" in text
    assert str(skills) in text
    assert route("fill in a PDF form", records=[]).to_data()["problems"] == []


def test_a_scope_whose_skills_all_cannot_be_ranked_abstains_naming_them(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # "no discovered skill has the scope 'project'" was false: it had one, with a broken frontmatter;
    # and "no skill was discovered" beside "(1 discovered skill not ranked: camping ...)" contradicted itself
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    monkeypatch.setenv("CLAUDE_CONFIG_DIR", str(tmp_path / "config"))
    path = tmp_path / "project" / ".claude" / "skills" / "camping" / "SKILL.md"
    path.parent.mkdir(parents=True)
    path.write_text("---\nname: camping\ndescription: Use when: a camping trip\n---\n# camping\n", encoding="utf-8")
    os.utime(path, (time.time() - 3600,) * 2)
    found = route("a packing list for a camping trip", cwd=tmp_path / "project", scope="project")
    assert found.abstain
    assert found.ranked == ()
    assert [entry["skill"] for entry in found.to_data()["not_ranked"]] == ["camping"]  # type: ignore[union-attr]
    reason = str(found.to_data()["abstain_reason"])
    assert "no skill was discovered" not in reason
    assert reason.startswith("1 skill was discovered, and it cannot be ranked"), reason
    assert "nothing to rank" in reason
    assert route("fill in a PDF form", records=[]).reason == "no skill was discovered: there is nothing to rank"


def test_a_name_or_message_with_a_line_break_cannot_forge_a_line_of_the_answer() -> None:
    # a skill folder may be named "nl\nforged": discover shows it as nl\nforged, route printed two lines
    record = SkillRecord(name="nl\nforged", scope="global", source="t", description="Fill in PDF forms")
    found = route("fill in this PDF form", records=[record]).explained()
    found = attrs.evolve(
        found,
        show_all=True,
        not_ranked=(NotRanked("odd\n2. fake", "SKILL_UNQUOTED_COLON", None),),
        problems=(Problem("X", "gone\nwarning: fake", path="/p\nq", hint="h\ni", severity=Severity.WARNING),),
    )
    text = found.to_text()
    lines = text.splitlines()
    assert not [line for line in lines if line.startswith(("forged", "2. fake", "warning: fake", "q", "i"))], text
    assert "nl\\nforged" in text
    assert "odd\\n2. fake (SKILL_UNQUOTED_COLON)" in text
    assert "gone\\nwarning: fake" in text
