"""The main job end to end, on an embedded example: discover, rank, hand off, verify, first step.

`swarm-handoff demo` runs it in a fresh session folder with nothing to set up: the synthesis is
shipped with the core, and the skills are whatever is installed (the example packs, the user's own
skills). Every stage goes through the same API the individual commands use, so the demo is proof
that the installed pieces work together, not a separate code path.

The demo leaves no trace: the command line runs it in `sandbox.demo_sandbox()`, which points the
config and cache folders at a temporary folder for the run, so its hand-off never enters the
user's history (which ranking's "previous success" factor reads) and nothing of the user's config
is read (their global skills and registry file are left out, which also keeps the example's
ranking the same on every machine). The session folder is removed at the end unless the user
asked to keep it (`--keep`, or `--dir DIR`). `demo_operation` is the command's body, which the
operation table names.
"""

from __future__ import annotations

import os
import tempfile
from importlib.resources import files
from pathlib import Path
from typing import Any, ClassVar

import attrs

from swarm_handoff import safefs
from swarm_handoff.command_name import COMMAND
from swarm_handoff.command_name import command_name as command_name  # re-exported: `demo` callers and tests use it
from swarm_handoff.components import Document
from swarm_handoff.discovery import make_context
from swarm_handoff.errors import ErrorCode, SwarmError
from swarm_handoff.payload.lifecycle import HandoffOptions, hand_off
from swarm_handoff.payload.verify import verify_file
from swarm_handoff.plugins import PluginHost
from swarm_handoff.ranking import RankingRequest, rank
from swarm_handoff.records import DiscoveryContext
from swarm_handoff.session import discover_with_session
from swarm_handoff.session_life import mark_created
from swarm_handoff.synthesis import load_synthesis
from swarm_handoff.workflow.protocol import render_step
from swarm_handoff.workflow.registry import get_registry

SYNTHESIS_FILE = "synthesis.yaml"
# What a perspective swarm leaves in its session: one file per completed perspective. The v2.0
# payload's `perspectives_completed` is checked against this folder, so the demo writes them.
PERSPECTIVES = {
    "pragmatist.md": "Stage the move: one job at a time, with the batch run kept as a fallback.\n",
    "optimist.md": "Support gets fresh data within minutes; the team learns the event tooling.\n",
    "critic.md": "Nobody has written down the data contracts; measure the volume before deciding.\n",
}


@attrs.frozen(kw_only=True)
class DemoReport:
    """The `demo` document: what each stage of the main job produced."""

    kind: ClassVar[str] = "demo"
    session: str
    discovery: Any
    ranking: Any
    handoff: Any
    verification: Any
    first_step: Any | None
    workflow_note: str | None = None
    session_kept: bool = True
    command: str = COMMAND

    def to_data(self) -> dict[str, Any]:
        """Give the JSON-ready form: one section per stage, in the order they ran."""
        return {
            "session": self.session,
            "session_kept": self.session_kept,
            "discovery": self.discovery.to_data(),
            "ranking": self.ranking.to_data(),
            "handoff": self.handoff.to_data(),
            "verification": self.verification.to_data(),
            "first_step": self.first_step.to_data() if self.first_step is not None else None,
            "workflow_note": self.workflow_note,
        }

    def runnable(self, command: str) -> str:
        """Spell a suggested command the way that runs here (the venv path when the tool is not on PATH)."""
        if self.command != COMMAND and command.startswith(COMMAND + " "):
            return self.command + command[len(COMMAND) :]
        return command


def prepare_session(folder: Path | None, parent: Path | None = None) -> Path:
    """Make the session folder: the synthesis and the perspective files a swarm would have left."""
    session = Path(tempfile.mkdtemp(prefix="swarm-session-", dir=parent)) if folder is None else folder
    session.mkdir(parents=True, exist_ok=True)
    if folder is None:  # made here: `session gc` may remove it once closed or expired
        mark_created(session)

    # Created exclusively, never through a link: anything already at a name (a user's file, a
    # dangling link planted in a shared folder) is left as it is, and nothing is written elsewhere.
    demo_synthesis = files("swarm_handoff").joinpath("data/demo-synthesis.yaml").read_bytes()
    safefs.create_new(session / SYNTHESIS_FILE, demo_synthesis, mode=0o644, durable=False)
    perspectives = session / "perspectives"
    if not os.path.lexists(perspectives):
        perspectives.mkdir()
        for name, text in PERSPECTIVES.items():
            safefs.create_new(perspectives / name, text.encode("utf-8"), mode=0o644, durable=False)
    return session


def run_demo(
    context: DiscoveryContext,
    host: PluginHost,
    folder: Path | None = None,
    *,
    scratch: Path | None = None,
    command: str = COMMAND,
) -> DemoReport:
    """Run discovery, ranking, hand-off, verification and the first workflow step, in that order.

    With no `folder`, the session is made inside `scratch` (removed with it) when one is given.
    """
    session = prepare_session(folder, scratch if folder is None else None)
    discovery = discover_with_session(context, host, session)
    if not discovery.workflows:
        raise SwarmError(
            ErrorCode.TARGET_NOT_FOUND,
            discovery.message or "no skill accepts a hand-off",
            details={"target_skill": None},
            hint="pip install a skill pack, e.g. ./skills-examples/*",
        )
    synthesis = load_synthesis(session / SYNTHESIS_FILE)
    ranking = rank(discovery.workflows, RankingRequest(synthesis=synthesis), host=host)
    target = ranking.ranked[0].record
    options = HandoffOptions(
        target=target.name,
        synthesis=session / SYNTHESIS_FILE,
        session=session,
        reason="top-ranked candidate of the demo",
    )
    handoff = hand_off(options, host=host, context=context, confirm=lambda _question: False)
    verification = verify_file(Path(handoff.payload_path))
    registered = get_registry(host.env).workflows.get(target.name)
    first = None if registered is None else render_step(registered.workflow, registered.workflow.entry)
    note = f"{target.name} defines no workflow; its SKILL.md instructions apply" if registered is None else None
    return DemoReport(
        session=str(session),
        discovery=discovery,
        ranking=ranking,
        handoff=handoff,
        verification=verification,
        first_step=first,
        workflow_note=note,
        session_kept=folder is not None or scratch is None,
        command=command,
    )


def demo_operation(
    host: PluginHost, *, folder: Path | None, cwd: Path | None, keep: bool, scratch: Path | None = None
) -> Document:
    """`demo`: discover, rank for an example synthesis, hand off, verify, run step one."""
    return run_demo(make_context(cwd), host, folder, scratch=scratch, command=command_name())
