"""The testing kit's files: skills written on disk, a home of the test's own, caches that trust fresh files."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import attrs
import pytest

from swarm_handoff import filecache
from swarm_handoff.payload.canonical import seal


@attrs.define
class SkillTree:
    """A folder holding `.claude/skills/`, with helpers that write SKILL.md files into it."""

    root: Path

    @property
    def skills_dir(self) -> Path:
        """The `.claude/skills` folder of this tree."""
        return self.root / ".claude" / "skills"

    def add(
        self, name: str, frontmatter: Mapping[str, Any] | None = None, *, body: str = "", raw: str | bytes | None = None
    ) -> Path:
        """Write one skill; `raw` is written as is, else `frontmatter` is dumped as YAML."""
        folder = self.skills_dir / name
        folder.mkdir(parents=True, exist_ok=True)
        path = folder / "SKILL.md"
        if raw is not None:
            if isinstance(raw, bytes):
                path.write_bytes(raw)
            else:
                path.write_text(raw, encoding="utf-8", newline="")
            return path
        meta = {"name": name, "description": f"The {name} skill.", **dict(frontmatter or {})}
        path.write_text(f"---\n{_dump_yaml(meta)}---\n{body or f'# {name}'}\n", encoding="utf-8")
        return path

    def add_handoff(
        self, name: str, categories: Sequence[str] = ("research",), description: str | None = None, **handoff: Any
    ) -> Path:
        """Write a skill with a valid v2.0 `handoff:` block (the common case in tests)."""
        block = {
            "accepts_handoff": True,
            "handoff_categories": list(categories),
            "handoff_description": description or f"Hand {name} the work.",
            **handoff,
        }
        return self.add(name, {"handoff": block})


def _dump_yaml(data: Mapping[str, Any]) -> str:
    import io

    from ruamel.yaml import YAML

    yaml = YAML(typ="safe", pure=True)
    yaml.default_flow_style = False
    stream = io.StringIO()
    yaml.dump(dict(data), stream)
    return stream.getvalue()


@pytest.fixture
def trust_fresh_files(monkeypatch: pytest.MonkeyPatch) -> None:
    """Let the caches trust files written a moment ago, so a test can write, discover and hit the cache.

    Outside tests, a file changed within `filecache.RACY_NS` before a discovery began is not
    trusted by any cache (it could change again within the same timestamp tick, unseen); tests
    write files and discover within microseconds, so without this every answer would be racy.
    """
    monkeypatch.setattr(filecache, "RACY_NS", 0)


# An eligible SKILL.md whose description and hand-off description are one text a test can look for.
HANDOFF_SKILL = """---
name: {name}
description: {text}
handoff:
  accepts_handoff: true
  handoff_categories: [{category}]
  handoff_description: {text}
---
# {name}
"""


def reseal(payload: Mapping[str, Any]) -> dict[str, Any]:
    """Recompute an edited payload's integrity hash, as a peer that re-hashes its forgery would."""
    return seal(payload)


def write_skill(folder: Path, name: str, text: str | None = None, *, category: str = "review") -> Path:
    """Write `folder/<name>/SKILL.md`, eligible for hand-off: sources read folders other than `.claude/skills`."""
    (folder / name).mkdir(parents=True, exist_ok=True)
    path = folder / name / "SKILL.md"
    path.write_text(HANDOFF_SKILL.format(name=name, text=text or f"{name} text", category=category), encoding="utf-8")
    return path


@attrs.frozen
class TempHome:
    """A home of the test's own: the user's skills, settings and caches never leak into a test."""

    root: Path
    home: Path
    config: Path
    cache: Path

    @property
    def env(self) -> dict[str, str]:
        """The environment for `make_context(cwd, env)`: also stops repository walks at `root`."""
        return {
            "HOME": str(self.home),
            "CLAUDE_CONFIG_DIR": str(self.config),
            "XDG_CACHE_HOME": str(self.cache),
            "GIT_CEILING_DIRECTORIES": str(self.root),
        }


@pytest.fixture
def temp_home(tmp_path: Path) -> TempHome:
    """`tmp_path/home`, `tmp_path/config` (created) and `tmp_path/cache`; the process environment is untouched."""
    home = TempHome(tmp_path, tmp_path / "home", tmp_path / "config", tmp_path / "cache")
    home.home.mkdir(exist_ok=True)
    home.config.mkdir(exist_ok=True)
    return home


@pytest.fixture
def skill_tree(tmp_path: Path) -> SkillTree:
    """A `SkillTree` rooted at `tmp_path` (use `.add(...)` and `.add_handoff(...)`)."""
    return SkillTree(tmp_path)
