"""Text layout of a workflow step: what to do, the embedded references, and what to run next.

An agent acts on this text directly, so the layout puts the actions first, keeps each embedded
resource together as one fenced block, and ends with the next command(s) on lines of their own.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from swarm_handoff.termsafe import escape_controls as esc

if TYPE_CHECKING:
    from swarm_handoff.cli.workflow_documents import WorkflowGraphDocument


def _routing_type(value: Any) -> str:
    """The routing's name: the typed mapping's `type`, or the plain string older cores wrote."""
    return str(value.get("type", "")) if isinstance(value, dict) else str(value)


def step_text(data: dict[str, Any]) -> str:
    """Render a `workflow-step` document for a person or an agent reading plain text."""
    phase = f" [{data['phase']}]" if data.get("phase") else ""
    lines = [f"{data['workflow']}: step {data['index']} of {data['total']}{phase}: {data['title']}", ""]
    banner = data.get("banner")
    if banner:
        where = f"{banner.get('checkpoint', '')}, iteration {banner.get('iteration', '?')}, {banner.get('mode', '')}"
        lines += [f"STATE: {where}", f"  {banner.get('message', '')}", ""]
    qr = data.get("qr")
    if qr:
        lines += [
            f"QR: {qr['name']} (iteration {qr['iteration']} of at most {qr['limit']}, {qr['mode']})",
            f"  {qr['banner']}",
            f"  STOP WHEN: {qr['stop_condition']}",
            f"  RE-VERIFY: {qr['reverify']}",
            "",
        ]
    if data.get("dispatch"):
        lines += _dispatch_lines(data["dispatch"])
        lines.append("")
    lines.append("DO:")
    for number, action in enumerate(data["actions"], start=1):
        first, *rest = str(action).splitlines() or [""]
        lines.append(f"  {number}. {first}")
        lines += [f"     {line}" if line else "" for line in rest]
    for resource in data.get("resources", []):
        fence = "~~~~" if "```" in resource["text"] else "```"
        lines += ["", f"{resource['name']} (from the {resource['source']}: {resource['origin']}):", fence]
        lines += resource["text"].rstrip("\n").splitlines()
        lines.append(fence)
    for title, key in (("FORBIDDEN:", "forbidden"), ("EXPECTED OUTPUT:", "expected")):
        if data.get(key):
            lines += ["", title] + [f"  - {item}" for item in data[key]]
    lines.append("")
    lines += _next_lines(data)
    return "\n".join(lines) + "\n"


def _next_lines(data: dict[str, Any]) -> list[str]:
    lines: list[str] = []
    kind = _routing_type(data["routing"])  # typed routing: the heading names it
    if not data["next"]:
        lines.append("NEXT (terminal): none, the workflow is complete.")
    elif kind == "linear":
        lines += ["NEXT (linear):", f"  {data['next'][0]['command']}"]
    else:
        lines.append("NEXT (branch): run exactly one of these")
        for option in data["next"]:
            where = option["command"] or "(the workflow is complete)"
            about = f" ({', '.join(option['when'])} reported)" if option.get("when") else ""
            lines += [f"  {option['label']}{about}:", f"    {where}"]
    return lines


def _dispatch_lines(info: dict[str, Any]) -> list[str]:
    """Whom to dispatch, in which mode, and the script or the prompt word for word."""
    lines = [f"DISPATCH TO: {info['agent']} ({info.get('mode') or 'free-form'})"]
    if info.get("script"):
        lines.append(f"  script: {info['script']}")
    if info.get("total_steps") is not None:
        lines.append(f"  starts at: step {info.get('step', 1)} of {info['total_steps']}")
    if info.get("context"):
        lines.append("  with:")
        lines += [f"    {key} = {value}" for key, value in info["context"].items()]
    if info.get("prompt"):
        lines += ["  prompt:"] + [f"    {line}" for line in str(info["prompt"]).splitlines()]
    elif info.get("orchestrator_action"):  # script mode: no prompt carries it, so show it here
        lines += ["  the reviewer ends its report with:"]
        lines += [f"    {line}" for line in str(info["orchestrator_action"]).splitlines()]
    return lines


def dispatch_text(data: dict[str, Any]) -> str:
    """Render a `dispatch` document: whom to hand the work to, how, and what to run after."""
    lines = [f"{data['workflow']}: step {data['index']} of {data['total']} ({data['step']})", ""]
    lines += _dispatch_lines(data["dispatch"])
    if data.get("context"):
        lines.append("  context:")
        lines += [f"    {key} = {value}" for key, value in data["context"].items()]
    lines += ["", "AFTER IT RETURNS:"]
    lines += _next_lines(data)
    return "\n".join(lines) + "\n"


def workflow_list_text(data: dict[str, Any]) -> str:
    """Render `workflow list`: one line per workflow, then the packs that failed to load."""
    lines = []
    for flow in data["workflows"]:
        origin = f"{flow['distribution']} {flow['version']}".strip()
        lines.append(f"{flow['name']}  ({flow['steps']} steps, {origin})")
        if flow["description"]:
            lines.append(f"  {flow['description']}")
    if not data["workflows"]:
        lines.append("no workflows installed")
    if data["problems"]:
        lines += ["", "failed to load:"]
        lines += [f"  {p.get('path', '?')}: {p['code']}: {p['message']}" for p in data["problems"]]
    return "\n".join(lines) + "\n"


def workflow_show_text(data: dict[str, Any]) -> str:
    """Render `workflow show`: parameters, then each step with where each outcome leads."""
    lines = [f"{data['name']}: {data['description']}".rstrip(": "), ""]
    if data["params"]:
        lines.append("parameters:")
        for p in data["params"]:
            default = "" if p["required"] else f" (default {p['default']})"
            lines.append(f"  --param {p['name']}=...  {p['domain']}{default}  {p['description']}".rstrip())
        lines.append("")
    lines.append("steps:")
    for step in data["steps"]:
        marks = [m for m in (step["phase"], "end" if step["terminal"] else None) if m]
        suffix = f"  [{', '.join(marks)}]" if marks else ""
        lines.append(f"  {step['index']}. {step['id']}: {step['title']}{suffix}")
        if step["dispatch"]:
            lines.append(f"       dispatch to {step['dispatch']['agent']}")
        for outcome, target in step["next"].items():
            lines.append(f"       {outcome} -> {target or '(end)'}")
        if step["on_error"]:
            lines.append(f"       error -> {step['on_error']}")
        for gate, values in step["when"].items():
            lines.append(f"       runs only when {gate} is {' or '.join(map(str, values))}")
        for item in step["embed"]:
            lines.append(f"       embeds {item['ref']} from the {item['source']} ({item['origin']})")
    return "\n".join(lines) + "\n"


def workflow_check_text(data: dict[str, Any]) -> str:
    """Render `workflow check` when everything is valid: the verdict, what was checked, whether cases ran."""
    checked = [f"  - {name}" for name in data["checked"]]
    lines = [f"valid: {_yes(data['valid'])}"]
    lines += ["checked:", *checked] if checked else ["checked: (none)"]
    lines.append(f"cases_run: {_yes(data['cases_run'])}")
    return "\n".join(lines) + "\n"


def _yes(value: object) -> str:
    return "yes" if value else "no"


def workflow_graph_text(document: WorkflowGraphDocument) -> str:
    """Render `workflow graph` as a document: which workflow, the syntax, and the source as a block."""
    source = esc(document.source.removesuffix("\n"), multiline=True)  # the graph's own lines, kept
    lines = [f"workflow: {esc(document.workflow)}", f"syntax: {esc(document.syntax)}", "source: |"]
    lines += [f"    {line}" if line else "" for line in source.split("\n")]
    return "\n".join(lines) + "\n"
