"""Text layouts of the session and demo documents, for people at a terminal.

These read the document itself, not only its data: the demo tells a story across nested results.
Each field is escaped by the page's final pass (`TextFormatter`), as these fields are paths and
names the tool made or checked.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from swarm_handoff.textviews import one_line

if TYPE_CHECKING:
    from swarm_handoff.cli.session_commands import SessionDocument
    from swarm_handoff.demo import DemoReport
    from swarm_handoff.session_gc import GcReport
    from swarm_handoff.session_life import CloseReport

# Said under the demo's menu: the menu a target shows the user is lettered from C on.
MENU_NOTE = "(the menu starts at C: A) accept and B) refine are the swarm's own choices at the same prompt)"


def session_text(document: SessionDocument) -> str:
    """The folder alone on its line, so `DIR=$(swarm-handoff session new)` works."""
    if document.checkpoint is None:
        return f"{document.session}\n"
    return f"{document.session}\nresumed: {document.checkpoint}\n"


def session_close_text(report: CloseReport) -> str:
    """Say it is closed, what `gc` will do with it, and any hand-off closed unacknowledged."""
    lines = [f"closed {report.session} at {report.closed_at}"]
    for path in report.unacknowledged:
        lines.append(f"  not acknowledged (closed with --force): {path}")
    lines.append(
        "  `swarm-handoff session gc` removes it"
        if report.created_by_tool
        else "  not made by swarm-handoff: `session gc` never removes it"
    )
    return "\n".join(lines) + "\n"


def session_gc_text(report: GcReport) -> str:
    """One line per removed folder, then each kept one with its reason, then a count."""
    verb = "would be removed" if report.dry_run else "removed"
    lines = [f"{path}: {verb}" for path in report.removed]
    lines += [f"kept {k.path}: {k.reason}" for k in report.kept]
    lines.append(f"{len(report.removed)} session folder(s) {verb} in {report.root}, {len(report.kept)} kept")
    return "\n".join(lines) + "\n"


def demo_text(report: DemoReport) -> str:
    """Tell the story of the run for a person: one short section per stage."""
    found = report.discovery.workflows
    lines = [f"session: {report.session}", "", f"1. discovered {len(found)} skill(s) that accept a hand-off:"]
    lines += [f"   {r.name}  [{r.scope.value}]  {one_line(r.description)}" for r in found]
    lines += ["", "2. ranked against the example synthesis (scorer swarm-v2):"]
    for item in report.ranking.ranked[: report.ranking.top]:
        lines.append(f"   {item.label}) {item.record.name}  score {item.total:g}")
    lines.append(f"   {MENU_NOTE}")
    handoff = report.handoff
    lines += [
        "",
        f"3. handed off to {handoff.target}: {handoff.payload_path}",
        f"   hash {handoff.payload_hash}, {handoff.payload_size_bytes} bytes",
        f"4. verified: integrity and expiry OK (expires {report.verification.expires_at})",
        "",
        "   invoke the target with:",
        f"   {handoff.invocation}",
        "",
    ]
    if report.first_step is None:
        lines.append(f"5. {report.workflow_note}")
    else:
        step = report.first_step.to_data()
        lines.append(f"5. first step of the {handoff.target} workflow: {step.get('title', '')}")
        lines += [f"   - {action}" for action in step.get("actions", []) if isinstance(action, str)]
        for command in step.get("next", []):
            if isinstance(command, dict) and command.get("command"):
                label = f"{command['label']}: " if command.get("label") else "next: "
                lines.append(f"   {label}{report.runnable(command['command'])}")
    lines.append("")
    if report.session_kept:
        lines.append(f"the session folder is kept: {report.session}")
    else:
        lines.append("the session folder was removed; run again with --keep (or --dir DIR) to look inside it")
    lines.append(f"try: {report.command} discover, then {report.command} --help")
    return "\n".join(lines) + "\n"
