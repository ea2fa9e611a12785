"""`lint PATH...`: check SKILL.md files against the v2.0/v3.0 hand-off rules and the Agent Skills spec.

Hand-off rule violations and unreadable frontmatter are errors (the skill would be skipped); the
Agent Skills spec's constraints (name format, name equal to the folder, description length) are
warnings, because discovery does not depend on them but other agents' loaders do.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from pathlib import Path
from typing import Any, ClassVar

import attrs

from swarm_handoff.errors import Problem, Severity
from swarm_handoff.metadata import record_from_frontmatter
from swarm_handoff.records import Scope, SkillRecord
from swarm_handoff.skillmd import load_skill_md

LINT_NOT_A_SKILL = "LINT_NOT_A_SKILL"
SPEC_NAME_MISSING = "SPEC_NAME_MISSING"
SPEC_NAME_FORMAT = "SPEC_NAME_FORMAT"
SPEC_NAME_MISMATCH = "SPEC_NAME_MISMATCH"
SPEC_DESCRIPTION_MISSING = "SPEC_DESCRIPTION_MISSING"
SPEC_DESCRIPTION_LENGTH = "SPEC_DESCRIPTION_LENGTH"

MAX_NAME = 64
MAX_DESCRIPTION = 1024
# Lowercase letters, digits and single hyphens, neither first nor last (the Agent Skills name rule).
_NAME = re.compile(r"^[a-z0-9]+(-[a-z0-9]+)*\Z")


@attrs.frozen
class LintReport:
    """The `lint` document: one entry per file with its problems, and the totals."""

    kind: ClassVar[str] = "lint"
    files: tuple[SkillRecord, ...]

    @property
    def errors(self) -> int:
        """How many problems would make a skill be skipped (the command then exits 1)."""
        return sum(p.severity is Severity.ERROR for r in self.files for p in r.problems)

    @property
    def warnings(self) -> int:
        """How many problems are only advice (spec conformance, ignored fields)."""
        return sum(p.severity is Severity.WARNING for r in self.files for p in r.problems)

    def to_data(self) -> dict[str, Any]:
        """Give the JSON-ready form."""
        files = [
            {
                "path": r.path,
                "skill": r.name,
                "eligible": r.eligible,
                "legacy": r.legacy,
                "problems": [p.to_data() for p in r.problems],
            }
            for r in self.files
        ]
        return {"files": files, "errors": self.errors, "warnings": self.warnings}

    def to_text(self) -> str:
        """Render problems per file and a summary line."""
        from swarm_handoff.textviews import lint_text

        return lint_text(self.to_data())


def spec_problems(data: dict[str, Any], folder: str, path: str) -> list[Problem]:
    """Agent Skills spec conformance of a frontmatter, as warnings."""
    out: list[Problem] = []

    def warn(code: str, message: str, hint: str) -> None:
        out.append(Problem(code, message, path=path, hint=hint, severity=Severity.WARNING))

    name = data.get("name")
    if not isinstance(name, str) or not name:
        warn(SPEC_NAME_MISSING, "no 'name' field", f"add name: {folder}")
    else:
        if len(name) > MAX_NAME or not _NAME.match(name):
            warn(
                SPEC_NAME_FORMAT,
                f"name {name!r} is not 1-{MAX_NAME} lowercase letters, digits and single hyphens",
                "use kebab-case, e.g. my-skill",
            )
        if name != folder:
            warn(SPEC_NAME_MISMATCH, f"name {name!r} differs from its folder {folder!r}", "rename one to match")
    description = data.get("description")
    if not isinstance(description, str) or not description.strip():
        warn(SPEC_DESCRIPTION_MISSING, "no 'description' field", "say what the skill does and when to use it")
    elif len(description) > MAX_DESCRIPTION:
        warn(
            SPEC_DESCRIPTION_LENGTH,
            f"description is {len(description)} characters (at most {MAX_DESCRIPTION})",
            "shorten it; move details into the body",
        )
    return out


def lint_path(path: Path) -> SkillRecord:
    """Lint one SKILL.md file or skill folder into a record whose problems are the findings."""
    target = path / "SKILL.md" if path.is_dir() else path
    if path.is_dir() and not target.exists():
        problem = Problem(LINT_NOT_A_SKILL, "no SKILL.md in this folder", path=str(path), hint="lint a skill folder")
        return SkillRecord(name=path.name, scope=Scope.PROJECT, source="lint", path=str(path), eligible=False,
                           problems=(problem,))  # fmt: skip
    folder = target.resolve().parent.name if target.exists() else target.parent.name
    front = load_skill_md(str(target))
    record = record_from_frontmatter(
        front.data, name=folder, scope=Scope.PROJECT, source="lint", path=str(target), problems=front.problems
    )
    if front.data is not None:
        record = attrs.evolve(
            record, problems=(*record.problems, *spec_problems(dict(front.data), folder, str(target)))
        )
    return record


def lint(paths: Iterable[Path | str]) -> LintReport:
    """Lint every path given; one unreadable path never stops the others."""
    return LintReport(files=tuple(lint_path(Path(p)) for p in paths))
