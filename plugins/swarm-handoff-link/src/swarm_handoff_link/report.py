"""The `skills link` / `skills unlink` document: one entry per skill, grouped by what happened."""

from __future__ import annotations

from typing import Any, ClassVar

import attrs

from swarm_handoff.api import Problem, problem_line

# The groups a report lists, in the order people read them.
GROUPS = ("linked", "copied", "unlinked", "removed", "skipped")


@attrs.frozen
class LinkEntry:
    """What happened to one skill folder, and why when nothing did."""

    name: str
    action: str  # one of GROUPS
    path: str
    target: str | None = None  # a link's target
    status: str | None = None  # created | updated | unchanged | removed | already-gone
    note: str | None = None  # e.g. why a copy was made where a link was wanted
    distribution: str = ""
    version: str = ""
    problem: Problem | None = None

    def to_data(self) -> dict[str, Any]:
        """Give the JSON-ready form without empty fields."""
        data: dict[str, Any] = {"name": self.name, "path": self.path}
        for key in ("target", "status", "note", "distribution", "version"):
            value = getattr(self, key)
            if value:
                data[key] = value
        if self.problem is not None:
            data.update(code=self.problem.code, reason=self.problem.message, hint=self.problem.hint)
        return data


@attrs.frozen
class SkillsLinkReport:
    """What `skills link` or `skills unlink` did in one skills folder."""

    kind: ClassVar[str] = "skills-link"
    operation: str  # link | unlink
    scope: str
    skills_dir: str
    entries: tuple[LinkEntry, ...]
    problems: tuple[Problem, ...] = ()

    def group(self, action: str) -> list[LinkEntry]:
        """The entries with `action`, in the order they were handled."""
        return [e for e in self.entries if e.action == action]

    def to_data(self) -> dict[str, Any]:
        """Give the JSON-ready form: the folder, then one list per outcome, then load problems."""
        data: dict[str, Any] = {"operation": self.operation, "scope": self.scope, "skills_dir": self.skills_dir}
        wanted = ("linked", "copied", "skipped") if self.operation == "link" else ("unlinked", "removed", "skipped")
        for action in wanted:
            data[action] = [e.to_data() for e in self.group(action)]
        data["problems"] = [p.to_data() for p in self.problems]
        return data

    def to_text(self) -> str:
        """One line per skill (`linked name -> target`), reasons and fixes under the skipped ones."""
        lines = [f"{self.operation} in {self.skills_dir} ({self.scope})"]
        for entry in self.entries:
            extra = f" -> {entry.target}" if entry.target and entry.action == "linked" else ""
            status = f" [{entry.status}]" if entry.status else ""
            lines.append(f"  {entry.action:<8} {entry.name}{extra}{status}")
            if entry.note:
                lines.append(f"           {entry.note}")
            if entry.problem is not None:
                lines += problem_line(entry.problem, indent="           ")
        if not self.entries:
            lines.append("  nothing to do")
        if self.problems:
            lines += ["", "problems:"]
            for problem in self.problems:
                lines += problem_line(problem)
        return "\n".join(lines) + "\n"
