"""`lint`'s spec verdict agrees with `skills-ref validate` on every SKILL.md of the shared corpus."""

from __future__ import annotations

from pathlib import Path

import pytest

from swarm_handoff.lint import lint

# ../shared beside the checkout (CI lays it there), found by walking up from this file.
CORPUS = (
    next(
        (p / "shared" for p in Path(__file__).resolve().parents if (p / "shared" / "seeds").is_dir()),
        Path("shared-not-found"),
    )
    / "corpus"
)
# Findings that make skills-ref reject a file: the spec's rules and the frontmatter being unreadable.
_UNREADABLE = {
    "SKILL_NO_FRONTMATTER",
    "SKILL_FRONTMATTER_AFTER_COMMENT",
    "SKILL_UNCLOSED_FRONTMATTER",
    "SKILL_UNQUOTED_COLON",
    "SKILL_TAB_INDENT",
    "SKILL_NOT_MAPPING",
    "YAML_SYNTAX",
    "NOT_UTF8",
}


def test_lint_rejects_exactly_what_skills_ref_rejects() -> None:
    validator = pytest.importorskip(
        "skills_ref.validator",
        reason="needs skills-ref, the Agent Skills reference validator, which needs Python 3.11 or newer "
        "(the core's test extra installs it there)",
    )
    if not CORPUS.is_dir():
        pytest.skip(
            "needs ../shared/corpus/ (the SKILL.md corpus), which is not in this repository: "
            "CI lays the project's spec bundle "
            'beside the checkout; see docs/development.md, "Conformance tests"'
        )
    disagreements = []
    folders = sorted({p.parent for p in CORPUS.rglob("SKILL.md")})
    for folder in folders:
        theirs = bool(validator.validate(folder))
        found = lint([folder]).files[0].problems
        ours = any(p.code.startswith("SPEC_") or p.code in _UNREADABLE for p in found)
        if theirs != ours:
            disagreements.append((str(folder), validator.validate(folder), [p.code for p in found]))
    assert folders
    assert disagreements == []
