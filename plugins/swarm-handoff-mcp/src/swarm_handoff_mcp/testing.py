"""Test helpers: a world (skills, session, private home) and the real MCP client started over stdio."""

from __future__ import annotations

import os
import sys
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Any

import attrs

if TYPE_CHECKING:
    from swarm_handoff.testing import SkillTree

SYNTHESIS = """\
original_prompt: Should we expand into Europe?
problem_type: strategic
synthesis_summary: Regulation is the main risk; the evidence on demand is thin.
convergence_level: medium
perspectives_completed: 2
"""


@attrs.define
class World:
    """Where the server runs: a project with skills, a session, a home of its own."""

    root: Path
    project: Path
    session: Path
    synthesis: Path
    env: dict[str, str]
    tree: SkillTree

    @property
    def stderr(self) -> Path:
        """Where the server's stderr goes (tests read it for tracebacks)."""
        return self.root / "server-stderr.txt"


def server_command() -> list[str]:
    """`swarm-handoff mcp` of the Python running the tests (the nox session's venv included)."""
    script = Path(sys.executable).parent / ("swarm-handoff.exe" if os.name == "nt" else "swarm-handoff")
    if script.is_file():
        return [str(script), "mcp"]
    return [sys.executable, "-c", "import sys; from swarm_handoff.cli.entry import main; main(sys.argv[1:])", "mcp"]


def make_world(tmp_path: Path, tree: SkillTree) -> World:
    """Two skills in `tree` (the project), a session with two perspectives, and HOME/CLAUDE_CONFIG_DIR/XDG_* in tmp.

    The caller writes the project with the core's kit (`SkillTree(tmp_path / "project")`): what
    skills a test starts from is the test's, and this kit only starts and talks to the server.
    """
    project = tree.root
    tree.add_handoff("lit-review", categories=("research",), description="Review the literature on a question.")
    tree.add_handoff("market-scan", categories=("research", "analysis"), description="Scan the market.")
    session = project / "session"
    (session / "perspectives").mkdir(parents=True)
    for name in ("optimist", "critic"):
        (session / "perspectives" / f"{name}.md").write_text(f"# {name}\n", encoding="utf-8")
    synthesis = project / "synthesis.yaml"
    synthesis.write_text(SYNTHESIS, encoding="utf-8")
    home = tmp_path / "home"
    home.mkdir()
    env = {
        "HOME": str(home),
        "USERPROFILE": str(home),
        "CLAUDE_CONFIG_DIR": str(home / ".claude"),
        "XDG_CONFIG_HOME": str(home / ".config"),
        "XDG_CACHE_HOME": str(home / ".cache"),
        "XDG_DATA_HOME": str(home / ".local" / "share"),
        "XDG_STATE_HOME": str(home / ".local" / "state"),
        "PATH": os.environ.get("PATH", ""),
        "PYTHONPATH": os.environ.get("PYTHONPATH", ""),
    }
    return World(tmp_path, project, session, synthesis, env, tree)


@asynccontextmanager
async def connect(world: World, *, env: dict[str, str] | None = None, **session_options: Any) -> AsyncIterator[Any]:
    """Start `swarm-handoff mcp` as a subprocess and yield an initialized `ClientSession`."""
    from mcp import ClientSession, StdioServerParameters, stdio_client

    params = StdioServerParameters(
        command=server_command()[0],
        args=server_command()[1:],
        env={**world.env, **(env or {})},
        cwd=str(world.project),
    )
    with world.stderr.open("a", encoding="utf-8") as errlog:
        async with (
            stdio_client(params, errlog=errlog) as (read, write),
            ClientSession(read, write, **session_options) as session,
        ):
            await session.initialize()
            yield session


def example_step() -> tuple[str, str] | None:
    """(workflow, first step) of the example pack `think-through` when installed (nox `all`), else None."""
    from swarm_handoff.api import get_registry

    found = get_registry().workflows.get("think-through")
    return None if found is None else ("think-through", found.workflow.steps[0].id)
