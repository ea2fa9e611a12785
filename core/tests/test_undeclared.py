"""Issue 18, point 3: skills that declared no hand-off metadata, as candidates only on request."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import attrs
import pytest
import yaml

from swarm_handoff.errors import SwarmError
from swarm_handoff.history import open_history
from swarm_handoff.metadata import record_from_frontmatter
from swarm_handoff.payload.lifecycle import HandoffOptions, hand_off
from swarm_handoff.records import SkillRecord, evolved
from swarm_handoff.undeclared import is_undeclared, undeclared_candidates

SYNTHESIS = "original_prompt: Review the loader.\nproblem_type: analytical\nsynthesis_summary: Review it.\n"


def _record(name: str, data: dict[str, Any] | None, scope: str = "project") -> SkillRecord:
    return record_from_frontmatter(data, name=name, scope=scope, source="t", path=f"/s/{name}/SKILL.md")


RECORDS = (
    _record("declared", {"description": "A target.", "handoff": {"accepts_from": ["*"]}, "categories": ["review"]}),
    _record("plain", {"description": "Review code for bugs."}),
    _record("refuses", {"description": "No thanks.", "handoff": {"accepts_handoff": False}}),
    _record("broken", None),
    _record("declared", {"description": "Same name, declares nothing."}, scope="global"),
)


def test_only_skills_that_declared_nothing_become_candidates() -> None:
    workflows = [r for r in RECORDS if r.eligible]
    found = undeclared_candidates(workflows, [r for r in RECORDS if not r.eligible])
    assert [r.name for r in found] == ["plain"]
    assert is_undeclared(found[0])
    assert found[0].accepts_from == ("*",)


@pytest.fixture
def world(handoff_world: Callable[..., dict[str, Path]]) -> dict[str, Path]:
    return handoff_world(RECORDS, SYNTHESIS)


def test_rank_offers_undeclared_skills_only_when_asked(swarm_cli: Any, world: dict[str, Path]) -> None:
    base = ("rank", "--synthesis", str(world["synthesis"]), "-f", "json")
    default = swarm_cli(*base).json()
    assert [w["skill"] for w in default["workflows"]] == ["declared"]
    wide = swarm_cli(*base, "--include-undeclared").json()
    marks = {w["skill"]: w.get("undeclared", False) for w in wide["workflows"]}
    assert marks == {"declared": False, "plain": True}


def test_rank_include_undeclared_with_a_workflows_file_is_a_usage_error(swarm_cli: Any, world: dict[str, Path]) -> None:
    listing = world["session"] / "available-workflows.yaml"
    listing.write_text("workflows: []\n")
    result = swarm_cli(
        "rank",
        "--synthesis",
        str(world["synthesis"]),
        "--workflows",
        str(listing),
        "--include-undeclared",
        "-f",
        "json",
    )
    assert result.exit_code == 2


def test_handoff_to_an_undeclared_skill_needs_the_option_and_is_recorded(world: dict[str, Path]) -> None:
    options = HandoffOptions(target="plain", synthesis=world["synthesis"], session=world["session"])
    with pytest.raises(SwarmError) as caught:
        hand_off(options)
    assert caught.value.code == "TARGET_NOT_FOUND"
    assert "--allow-undeclared" in (caught.value.hint or "")
    result = hand_off(
        HandoffOptions(target="plain", synthesis=world["synthesis"], session=world["session"], allow_undeclared=True)
    )
    data = yaml.safe_load(Path(result.payload_path).read_text())  # JSON is YAML too
    assert data["handoff"]["meta"]["eligibility_override"]["option"] == "--allow-undeclared"
    assert any("--allow-undeclared" in note for note in result.notes)
    with open_history(world["config"]) as history:
        rows = history.list()
    assert "--allow-undeclared" in (rows[0].eligibility_override or "")


def test_the_option_never_reaches_a_skill_that_said_no(world: dict[str, Path]) -> None:
    options = HandoffOptions(
        target="refuses", synthesis=world["synthesis"], session=world["session"], allow_undeclared=True
    )
    with pytest.raises(SwarmError) as caught:
        hand_off(options)
    assert caught.value.code == "TARGET_NOT_FOUND"


@pytest.mark.parametrize(
    ("include", "in_words", "names"),
    [(False, False, ["declared"]), (True, False, ["declared", "plain"]), (False, True, ["declared", "plain"])],
)
def test_the_ranking_candidates_are_one_rule_for_every_surface(include: bool, in_words: bool, names: list[str]) -> None:
    """`rank` and the MCP `rank` tool take their candidates from here: a request in words ranks every skill."""
    from types import SimpleNamespace

    from swarm_handoff.api import rank_candidates

    found = SimpleNamespace(
        workflows=tuple(r for r in RECORDS if r.eligible), ineligible=tuple(r for r in RECORDS if not r.eligible)
    )
    chosen = rank_candidates(found, include_undeclared=include, in_words=in_words)
    assert [r.name for r in chosen] == names
    assert [is_undeclared(r) for r in chosen] == [name == "plain" for name in names]


def test_undeclared_candidates_are_what_evolve_made() -> None:
    """`evolved` (converters of the changed fields only) builds the very records `attrs.evolve` did."""
    found = undeclared_candidates([r for r in RECORDS if r.eligible], [r for r in RECORDS if not r.eligible])
    plain = next(r for r in RECORDS if r.name == "plain")
    expected = attrs.evolve(plain, eligible=True, accepts_from=("*",), meta={**plain.meta, "undeclared": True})
    assert [r.to_data() for r in found] == [expected.to_data()]
    assert found == [expected]
    assert type(found[0]) is SkillRecord


def test_evolved_converts_the_changed_fields_and_refuses_an_unknown_one() -> None:
    record = RECORDS[0]
    changed = evolved(record, scope="global", categories=["a", "b"], requires="x", meta=None, eligible=False)
    assert (
        changed.to_data()
        == attrs.evolve(
            record, scope="global", categories=["a", "b"], requires="x", meta=None, eligible=False
        ).to_data()
    )
    assert changed.categories == ("a", "b")
    assert changed.requires == ("x",)
    assert changed.meta == {}
    assert record.to_data() == RECORDS[0].to_data()  # the original is left as it was
    with pytest.raises(TypeError, match="no field 'nmae'"):
        evolved(record, nmae="x")


def test_evolved_has_no_validator_or_post_init_to_skip() -> None:
    # `evolved` copies slots and runs only converters: a validator or __attrs_post_init__ added to
    # SkillRecord would be skipped by it, silently. Add one, and `evolved` must run it too.
    assert [f.name for f in attrs.fields(SkillRecord) if f.validator is not None] == []
    assert not hasattr(SkillRecord, "__attrs_post_init__")
