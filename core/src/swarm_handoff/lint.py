"""`lint PATH...`: check SKILL.md files against the hand-off rules and the Agent Skills spec.

Hand-off rule violations and unreadable frontmatter are errors (the skill would be skipped); the
Agent Skills spec's rules (lint_spec.py: fields, name, description, compatibility, metadata) are
warnings, because discovery does not depend on them but other agents' loaders do, and errors under
`--strict-spec`. A path may be a SKILL.md, a skill folder, or a folder of skill folders (each
skill inside is checked); a missing path or a glob the shell did not expand is named as such.
"""

from __future__ import annotations

import os
from collections.abc import Iterable
from pathlib import Path
from typing import Any, ClassVar

import attrs

from swarm_handoff.errors import Problem, Severity
from swarm_handoff.lint_spec import MAX_DESCRIPTION as MAX_DESCRIPTION
from swarm_handoff.lint_spec import MAX_NAME as MAX_NAME
from swarm_handoff.lint_spec import STRICT_OPTION, spec_problems
from swarm_handoff.metadata import record_from_frontmatter
from swarm_handoff.records import Scope, SkillRecord
from swarm_handoff.skillmd import Frontmatter, parse_frontmatter, read_frontmatter_bytes, stat_problem
from swarm_handoff.skillwalk import too_many
from swarm_handoff.termsafe import quoted
from swarm_handoff.textfile import open_regular
from swarm_handoff.yamlio import LoadError

LINT_NOT_A_SKILL = "LINT_NOT_A_SKILL"
LINT_PATH_MISSING = "LINT_PATH_MISSING"
LINT_GLOB_UNEXPANDED = "LINT_GLOB_UNEXPANDED"
SPEC_UTF8_BOM = "SPEC_UTF8_BOM"
_BOM = b"\xef\xbb\xbf"
# A folder of skills is listed, not walked: skills sit one level down (`skills/NAME/SKILL.md`).
MAX_SKILLS_PER_FOLDER = 10_000
_GLOB_CHARS = frozenset("*?[")


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


def _failed(path: Path, code: str, message: str, hint: str) -> SkillRecord:
    return _record(path, Problem(code, message, path=str(path), hint=hint))


def _read_once(path: str) -> tuple[Frontmatter, str]:
    """The parsed frontmatter and its raw text (for line numbers of keys; '' when it cannot be read).

    One read for both: reading the bytes again for the text cost a second open and scan per file.
    """
    try:
        raw = read_frontmatter_bytes(path)
    except LoadError as exc:
        return Frontmatter(None, (exc.problem,)), ""
    text = raw.replace(b"\r\n", b"\n").decode("utf-8", errors="replace")
    return parse_frontmatter(raw, path), text


def lint_file(target: Path, *, strict_spec: bool = False, strict_option: str = STRICT_OPTION) -> SkillRecord:
    """Lint one SKILL.md into a record whose problems are the findings."""
    folder = target.resolve().parent.name if target.exists() else target.parent.name
    front, text = _read_once(str(target))
    record = record_from_frontmatter(
        front.data, name=folder, scope=Scope.PROJECT, source="lint", path=str(target), problems=front.problems
    )
    if front.data is not None:
        found = spec_problems(dict(front.data), folder, str(target), text, strict=strict_spec, option=strict_option)
        found.extend(_bom(target, strict_spec))
        spec_codes = {p.code for p in found}  # discovery reports wrong types too; keep lint's, located by line
        kept = (p for p in record.problems if p.code not in spec_codes)
        record = attrs.evolve(record, problems=(*kept, *found))
    return record


def _bom(target: Path, strict: bool) -> list[Problem]:
    """A UTF-8 byte order mark: read by swarm-handoff, but agentskills validate wants '---' as the first bytes."""
    try:  # never a plain open(): a FIFO or /proc/kmsg named SKILL.md would block lint forever
        fd = open_regular(target)
    except LoadError:
        return []
    try:
        if os.read(fd, 3) != _BOM:
            return []
    except OSError:  # BlockingIOError included: the read was already reported as unreadable
        return []
    finally:
        os.close(fd)
    return [
        Problem(
            SPEC_UTF8_BOM,
            "the file starts with a UTF-8 byte order mark (agentskills validate then finds no frontmatter)",
            path=str(target),
            line=1,
            hint="save the file as UTF-8 without BOM (most editors: 'UTF-8', not 'UTF-8 with BOM')",
            severity=Severity.ERROR if strict else Severity.INFO,
        )
    ]


def lint_path(path: Path, *, strict_spec: bool = False, strict_option: str = STRICT_OPTION) -> list[SkillRecord]:
    """Lint a SKILL.md, a skill folder, or every skill of a skills folder."""
    if not os.path.lexists(path):
        if _GLOB_CHARS & set(str(path)):
            return [
                _failed(
                    path,
                    LINT_GLOB_UNEXPANDED,
                    f"no file matches the pattern {quoted(path)} (it reached lint unexpanded)",
                    "check the pattern; a shell leaves a pattern that matches nothing as it is "
                    "(or pass the skills folder itself: lint matches every skill inside)",
                )
            ]
        return [_failed(path, LINT_PATH_MISSING, "no such file or folder", "check the path (typo? wrong directory?)")]
    if not path.is_dir():
        return [lint_file(path, strict_spec=strict_spec, strict_option=strict_option)]
    if (path / "SKILL.md").exists() or os.path.lexists(path / "SKILL.md"):
        return [lint_file(path / "SKILL.md", strict_spec=strict_spec, strict_option=strict_option)]
    skills, findings = _skills_inside(path)
    if not skills and not findings:
        lower = (path / "skill.md").is_file()  # a case-sensitive file system: the name must be SKILL.md
        return [
            _failed(
                path,
                LINT_NOT_A_SKILL,
                "no SKILL.md in this folder or in its subfolders" + (" (there is a skill.md)" if lower else ""),
                "rename skill.md to SKILL.md: agents look for the name in capitals"
                if lower
                else "lint a skill folder (one with a SKILL.md) or a folder of skill folders",
            )
        ]
    linted = [lint_file(skill, strict_spec=strict_spec, strict_option=strict_option) for skill in skills]
    return [*linted, *findings]


def _skills_inside(folder: Path, limit: int = MAX_SKILLS_PER_FOLDER) -> tuple[list[Path], list[SkillRecord]]:
    """The SKILL.md of each immediate subfolder, sorted by name (a skills folder's layout), and what went wrong.

    One entry costs only itself: a looping, dangling or forbidden link is that entry's coded finding
    (as discovery's walker reports it). Past `limit` entries the rest are not checked, and a
    SKILLS_DIR_TOO_MANY finding says so instead of claiming there is no skill.
    """
    try:
        entries = sorted((e for e in os.scandir(folder) if not e.name.startswith(".")), key=lambda e: e.name)
    except OSError as exc:
        return [], [_record(folder, stat_problem(str(folder), exc))]
    findings: list[SkillRecord] = []
    if len(entries) > limit:
        findings.append(_record(folder, attrs.evolve(too_many(folder, limit), severity=Severity.ERROR)))
        entries = entries[:limit]
    found: list[Path] = []
    for entry in entries:
        candidate = Path(entry.path) / "SKILL.md"
        try:
            is_dir = entry.is_dir()
            if not is_dir and entry.is_symlink():
                os.stat(entry.path)  # a dangling link where a skill folder should be raises here
        except OSError as exc:
            findings.append(_record(Path(entry.path), stat_problem(entry.path, exc)))
            continue
        if is_dir and os.path.lexists(candidate):
            found.append(candidate)
    return found, findings


def _record(path: Path, problem: Problem) -> SkillRecord:
    return SkillRecord(
        name=path.name, scope=Scope.PROJECT, source="lint", path=str(path), eligible=False, problems=(problem,)
    )


def lint(paths: Iterable[Path | str], *, strict_spec: bool = False, strict_option: str = STRICT_OPTION) -> LintReport:
    """Lint every path given; one unreadable path never stops the others."""
    found = (r for p in paths for r in lint_path(Path(p), strict_spec=strict_spec, strict_option=strict_option))
    return LintReport(files=tuple(found))
