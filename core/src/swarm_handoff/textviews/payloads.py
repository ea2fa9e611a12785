"""Text layouts of the payload documents: summary, hand-off, verification, validation, conversion."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from swarm_handoff.termsafe import MULTI_LINE_KEYS, escape_data
from swarm_handoff.textviews import plain_text

if TYPE_CHECKING:
    from swarm_handoff.components import Document


def payload_summary(data: dict[str, Any]) -> str:
    """Render a payload summary: what it is, its integrity, and one line per section."""
    title = f"payload {data['path']}" if data.get("path") else "payload"
    version = f", version {data['version']}" if data.get("version") else ""
    lines = [f"{title}{version}: {data['size_bytes']} bytes, sha256 {data['sha256']}"]
    width = max((len(s["name"]) for s in data["sections"]), default=0)
    for section in data["sections"]:
        count = f" ({section['count']})" if section.get("count") is not None else ""
        preview = f"  {section['preview']}" if section["preview"] else ""
        lines.append(f"  {section['name'].ljust(width)}  {section['type']}{count}{preview}")
    return "\n".join(lines) + "\n"


def problem_lines(problems: list[dict[str, Any]], indent: str = "  ") -> list[str]:
    """`severity: path:line:col: CODE: message` plus an indented `fix:` line, for problems given as data."""
    lines = []
    for problem in problems:
        where = ":".join(str(problem[k]) for k in ("path", "line", "column") if problem.get(k) is not None)
        severity = problem.get("severity", "error")
        lines.append(f"{indent}{severity}: {where + ': ' if where else ''}{problem['code']}: {problem['message']}")
        if problem.get("hint"):
            lines.append(f"{indent}  fix: {problem['hint']}")
    return lines


def _block(text: str, indent: str) -> list[str]:
    """A multi-line value (a health check's output) indented as a block, so no line passes for a field."""
    return [f"{indent}{line}" if line else "" for line in str(text).rstrip("\n").split("\n")]


def handoff_text(document: Document) -> str:
    """Where the payload went and the command that hands it over, then what did not fit and why."""
    data = escape_data(document.to_data(), MULTI_LINE_KEYS | {"output"})  # a health check's output keeps its lines
    lines = [
        f"handed off to {data['target']}: {data['payload_path']}",
        f"  version {data['version']}, {data['payload_size_bytes']} bytes, sha256 {data['payload_hash']}",
        "",
        "invoke the target with:",
        f"  {data['invocation']}",
    ]
    details: list[str] = []
    if data.get("dropped"):
        details.append(f"  not carried by version {data['version']}: {', '.join(map(str, data['dropped']))}")
    if data.get("kept_earlier"):
        details.append(f"  kept the earlier payload: {data['kept_earlier']}")
    details += [f"  side file: {path}" for path in data.get("side_files", [])]
    details += [f"  note: {note}" for note in data.get("notes", [])]
    details += problem_lines(data.get("warnings", []))
    health = data.get("health_check")
    if health:
        verdict = "passed" if health["ok"] else f"FAILED{': ' + health['reason'] if health.get('reason') else ''}"
        details.append(f"  health check {verdict} (exit {health['returncode']}): {health['command']}")
        if health.get("output"):
            details += _block(health["output"], "      ")
    if data.get("history_id") is not None:
        details.append(f"  recorded in the history as #{data['history_id']}")
    if details:
        lines += ["", *details]
    return "\n".join(lines) + "\n"


def verification_text(data: dict[str, Any]) -> str:
    """The verdict first, then hash, size, expiry, signature and each referenced file."""
    verdict = "OK" if data["ok"] else "FAILED"
    version = f" (version {data['version']})" if data.get("version") else ""
    lines = [f"{data['path']}{version}: {verdict}"]
    hash_state = "mismatch" if "payload_hash" in data["mismatches"] else "ok"
    lines.append(f"  sha256 {data['computed_hash']}: {hash_state}")
    size_state = "mismatch" if "payload_size_bytes" in data["mismatches"] else "ok"
    lines.append(f"  size {data['computed_size']} bytes: {size_state}")
    default = " (default: timestamp + 1 hour)" if data.get("expires_at_default") else ""
    lines.append(f"  expires {data['expires_at']}{default}: {'EXPIRED' if data['expired'] else 'ok'}")
    lines.append(f"  signature: {data['signature']}")
    for item in data.get("files", []):
        state = item["problem"] or "ok"
        lines.append(f"  file {item['field']} {item['path']}: {state}")
    others = [m for m in data["mismatches"] if m not in ("payload_hash", "payload_size_bytes")]
    lines += [f"  mismatch: {m}" for m in others]
    lines.append(f"  checked at {data['checked_at']}")
    return "\n".join(lines) + "\n"


def validation_text(data: dict[str, Any]) -> str:
    """Valid or not, by which validators, then every error and warning with its location and fix."""
    where = data.get("path") or "payload"
    state = "valid" if data["valid"] else f"INVALID, {len(data['errors'])} error(s)"
    lines = [f"{where} (version {data.get('version') or '?'}): {state}"]
    lines.append(f"  validators: {', '.join(map(str, data['validators'])) or 'none'}")
    lines.append(f"  integrity: {data['integrity']}")
    lines += problem_lines(data["errors"]) + problem_lines(data["warnings"])
    return "\n".join(lines) + "\n"


def conversion_text(document: Document) -> str:
    """What was converted and what was lost, then the converted payload as an indented tree."""
    raw = document.to_data()
    data = escape_data({key: value for key, value in raw.items() if key != "payload"})
    lines = [f"converted version {data['source_version']} to {data['target_version']}"]
    if data.get("dropped"):
        lines.append(f"  not carried: {', '.join(map(str, data['dropped']))}")
    lines += [f"  note: {note}" for note in data.get("notes", [])]
    lines += problem_lines(data.get("problems", []))
    lines += ["", "payload:"]
    # the payload's own strings may span lines: the tree writes those as indented blocks
    return "\n".join(lines) + "\n" + plain_text(raw["payload"], indent=1)


def _handoff_row(row: dict[str, Any]) -> list[str]:
    flow = f"{row.get('source') or '?'} -> {row.get('target') or '?'}"
    lines = [f"#{row['id']}  {row['status']}  {flow}  (version {row.get('version') or '?'}, {row['created_at']})"]
    lines.append(f"  {row['payload_path']}")
    if row.get("updated_at") and row["updated_at"] != row["created_at"]:
        lines.append(f"  updated {row['updated_at']}")
    if row.get("eligibility_override"):
        lines.append(f"  handed off despite accepts_from: {row['eligibility_override']}")
    for task in row.get("remote") or ():  # sent to another host (`handoff --to`): its task there
        task_id = f" (task {task['task_id']})" if task.get("task_id") else ""
        lines.append(f"  sent to {task['url']}: {task['state']}{task_id}")
    return lines


def history_text(data: dict[str, Any]) -> str:
    """One entry per recorded hand-off, newest first, then any problem with the database."""
    about = f" involving {data['skill']}" if data.get("skill") else ""
    lines = [f"{len(data['handoffs'])} hand-off(s){about}"]
    for row in data["handoffs"]:
        lines += _handoff_row(row)
    if data.get("problems"):
        lines += ["", "problems:", *problem_lines(data["problems"])]
    return "\n".join(lines) + "\n"


def acknowledgment_text(data: dict[str, Any]) -> str:
    """The hand-off as the history now has it."""
    lines = ["acknowledged:"] + [f"  {line}" for line in _handoff_row(data["handoff"])]
    if data.get("problems"):
        lines += ["", "problems:", *problem_lines(data["problems"])]
    return "\n".join(lines) + "\n"


def synthesis_text(data: dict[str, Any]) -> str:
    """The prompt and problem type, the summary, then how much the perspectives agreed and what is open."""
    lines = [f"synthesis ({data['problem_type']}): {data['original_prompt']}"]
    for label, key in (("reframed", "reframed_challenge"), ("summary", "synthesis_summary")):
        if data.get(key):
            lines.append(f"  {label}: {data[key]}")
    if data.get("convergence_level"):
        lines.append(f"  convergence: {data['convergence_level']}")
    if data.get("perspectives_completed") is not None:
        lines.append(f"  perspectives completed: {data['perspectives_completed']}")
    if data.get("key_uncertainties"):
        lines.append(f"  key uncertainties: {'; '.join(map(str, data['key_uncertainties']))}")
    insights = data.get("insights", {})
    counts = [
        f"{len(insights.get(key, []))} {key.replace('_', ' ')}" for key in ("convergent", "divergent", "blind_spots")
    ]
    lines.append(f"  insights: {', '.join(counts)}")
    seeds = data.get("research_seeds", {})
    terms = [str(t.get("term", t)) if isinstance(t, dict) else str(t) for t in seeds.get("suggested_terms", [])]
    if terms:
        lines.append(f"  suggested terms: {', '.join(terms)}")
    lines += [f"  open question: {q}" for q in seeds.get("open_questions", [])]
    if data.get("user_feedback"):
        lines.append(f"  user feedback: {data['user_feedback']}")
    return "\n".join(lines) + "\n"


def trace_text(data: dict[str, Any]) -> str:
    """One line per hop: who handed to whom, in which version, its status, and the span it continues."""
    if not data["hops"]:
        return f"trace {data['trace_id']}: no hand-off recorded with this trace id\n"
    lines = [f"trace {data['trace_id']}: {len(data['hops'])} hand-off(s), oldest first"]
    for hop in data["hops"]:
        parent = f"continues {hop['parent_span_id']}" if hop.get("parent_span_id") else "root"
        lines.append(
            f"  {hop['hop']}. {hop['source']} -> {hop['target']}  v{hop['version']}  {hop['status']}"
            f"  {str(hop['created_at'])[:19]}Z  span {hop.get('span_id') or '-'} ({parent})"
        )
        lines.append(f"     {hop['payload_path']}")
    return "\n".join(lines) + "\n"
