"""Text layout of a workflow step: what to do, the embedded references, and what to run next.

An agent acts on this text directly, so the layout puts the actions first, keeps each embedded
resource together as one fenced block, and ends with the next command(s) on lines of their own.
"""

from __future__ import annotations

from typing import Any


def workflow_step(data: dict[str, Any]) -> str:
    """Render a `workflow-step` document for a person or an agent reading plain text."""
    phase = f" [{data['phase']}]" if data.get("phase") else ""
    lines = [f"{data['workflow']}: step {data['index']} of {data['total']}{phase}: {data['title']}", ""]
    if data.get("dispatch"):
        lines.append(f"DISPATCH TO: {data['dispatch']['agent']}")
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
    lines.append("")
    if not data["next"]:
        lines.append("NEXT: none, the workflow is complete.")
    elif data["routing"] == "linear":
        lines += ["NEXT:", f"  {data['next'][0]['command']}"]
    else:
        lines.append("NEXT: run exactly one of these")
        for option in data["next"]:
            where = option["command"] or "(the workflow is complete)"
            about = f" ({', '.join(option['when'])} reported)" if option.get("when") else ""
            lines += [f"  {option['label']}{about}:", f"    {where}"]
    return "\n".join(lines) + "\n"
