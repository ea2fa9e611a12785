"""Which example packs pass `agentskills validate`, and why the one that does not is kept that way.

The implementation and research packs declare their hand-offs in the spec-conformant `metadata:`
form, in a folder named like the skill, so the Agent Skills reference validator accepts them. The
think example keeps the seeds' v2.0 `handoff:` block on purpose (docs/seed-deviations.md): it is
the shipped example of the form the seeds' agents write, and discovery's legacy path.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from swarm_handoff.lint import lint

ROOT = Path(__file__).resolve().parents[1]
PACKS = ROOT / "skills-examples"
SKILLS = {
    "implement-change": PACKS / "swarm-pack-implementation/src/swarm_pack_implementation/skills/implement-change",
    "evidence-review": PACKS / "swarm-pack-research/src/swarm_pack_research/skills/evidence-review",
    "think-through": PACKS / "swarm-handoff-example-think/src/swarm_handoff_example_think",
}
CONFORMANT = {"implement-change", "evidence-review"}
# Why think-through is outside the spec, each reason with the line lint gives it.
THINK_REASONS = {("SPEC_EXTENSION_FIELD", 7), ("SPEC_STRICT_YAML", 9), ("SPEC_NAME_MISMATCH", 2)}


@pytest.mark.parametrize("skill", sorted(SKILLS))
def test_lint_strict_spec_passes_exactly_the_conformant_packs(skill: str) -> None:
    report = lint([SKILLS[skill]], strict_spec=True)
    found = {(p.code, p.line) for p in report.files[0].problems if p.severity.value == "error"}
    assert report.files[0].eligible  # every example pack is a hand-off target, whatever its form
    assert found == (set() if skill in CONFORMANT else THINK_REASONS)


@pytest.mark.parametrize("skill", sorted(SKILLS))
def test_agentskills_validate_passes_exactly_the_conformant_packs(skill: str) -> None:
    validator = pytest.importorskip(
        "skills_ref.validator",
        reason="needs skills-ref (`agentskills validate`), the Agent Skills reference validator, which needs "
        "Python 3.11 or newer (the core's test extra installs it there)",
    )
    errors = validator.validate(SKILLS[skill])
    if skill in CONFORMANT:
        assert errors == []
    else:
        assert errors, "think-through passes agentskills validate now: move it to CONFORMANT and the docs"
