"""XML layouts for the documents agents act on, in the workflow vocabulary.

A workflow step reads top to bottom the way an agent works through it: the step header, the state
and QR banners, `<DO>` (the actions), the sub-agent dispatch, embedded resources, what is
forbidden and what output is expected, then the routing: `<NEXT>` for the command to run when
the actions are done, `<INVOKE_AFTER>` when a sub-agent does the work and its verdict picks the
command. Routing is `linear` (one command), `branch` (one `<if>` per reported outcome, e.g.
if-pass / if-fail) or `terminal` (`<complete/>`, nothing more to run).

Every value goes through `XmlWriter`, which escapes text and attributes; element and attribute
names are fixed here, so no skill text can open or close a tag.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from swarm_handoff_formatters.xml import XmlWriter

Layout = Callable[[XmlWriter, dict[str, Any]], None]


def _routing_type(value: Any) -> str:
    """The routing's name: the typed mapping's `type`, or the plain string older cores wrote."""
    return str(value.get("type", "")) if isinstance(value, dict) else str(value)


def _routing(w: XmlWriter, data: dict[str, Any], tag: str) -> None:
    routing = _routing_type(data["routing"])  # the typed routing's name: linear, branch or terminal
    nexts = data["next"]
    if routing == "terminal" or not nexts:
        w.open(tag, routing="terminal")
        w.empty("complete")
        w.close(tag)
        return
    w.open(tag, routing=routing)
    for option in nexts:
        attributes = {"label": option["label"], "outcome": option["outcome"], "step": option["step"]}
        attributes["index"] = option["index"]
        if routing == "linear":
            w.text("command", option["command"], **attributes)
            continue
        w.open("if", **attributes)
        for name, values in option["when"].items():
            for value in values:
                w.text("when", value, param=name)
        if option["command"] is None:
            w.empty("complete")
        else:
            w.text("command", option["command"])
        w.close("if")
    w.close(tag)


def _mapping(w: XmlWriter, tag: str, values: dict[str, Any]) -> None:
    if not values:
        w.empty(tag)
        return
    w.open(tag)
    for key, value in values.items():
        w.text("value", value, key=key)
    w.close(tag)


def _dispatch(w: XmlWriter, dispatch: dict[str, Any], **extra: Any) -> None:
    steps = {"step": dispatch["step"], "total_steps": dispatch["total_steps"]} if "total_steps" in dispatch else {}
    w.open("subagent_dispatch", agent=dispatch["agent"], mode=dispatch.get("mode"), **steps, **extra)
    if dispatch.get("script") is not None:
        w.text("script", dispatch["script"])
    if dispatch.get("context"):
        _mapping(w, "context_vars", dict(dispatch["context"]))
    if dispatch.get("prompt") is not None:
        w.text("prompt", dispatch["prompt"])
    elif dispatch.get("orchestrator_action"):  # script mode: no prompt carries the reviewer's closing block
        w.text("reviewer_ends_with", dispatch["orchestrator_action"])
    w.close("subagent_dispatch")


def _qr(w: XmlWriter, qr: dict[str, Any]) -> None:
    w.open(
        "qr_banner",
        name=qr.get("name"),
        iteration=qr.get("iteration"),
        limit=qr.get("limit"),
        mode=qr.get("mode"),
        failed=qr.get("failed"),
        status=qr.get("status"),
    )
    w.text("state_banner", qr.get("banner"))
    w.text("stop_condition", qr.get("stop_condition"), blocking=" ".join(qr.get("blocking", [])))
    w.text("reverify", qr.get("reverify"), mode=qr.get("mode"))
    w.close("qr_banner")


def workflow_step(w: XmlWriter, data: dict[str, Any]) -> None:
    """Lay out one workflow step: header, banners, actions, dispatch, resources, limits, routing."""
    w.empty(
        "step_header",
        skill=data["workflow"],
        step=data["index"],
        total=data["total"],
        title=data["title"],
        id=data["step"],
        phase=data.get("phase"),
    )
    banner = data.get("banner")
    if banner:
        rest = {k: v for k, v in banner.items() if k not in ("checkpoint", "iteration", "mode", "message")}
        w.text(
            "state_banner",
            banner.get("message"),
            checkpoint=banner.get("checkpoint"),
            iteration=banner.get("iteration"),
            mode=banner.get("mode"),
        )
        if rest:
            w.data("banner_details", rest)
    if data.get("qr"):
        _qr(w, data["qr"])
    w.open("DO")
    for number, action in enumerate(data["actions"], start=1):
        w.text("action", action, n=number)
    w.close("DO")
    if data.get("dispatch"):
        _dispatch(w, data["dispatch"])
    for resource in data.get("resources", []):
        origin = resource["origin"]
        w.text("resource", resource["text"], name=resource["name"], source=resource["source"], origin=origin)
    if data.get("forbidden"):
        w.items("forbidden", "action", data["forbidden"])
    if data.get("expected"):
        w.items("expected_output", "item", data["expected"])
    _mapping(w, "params", data.get("params", {}))
    _mapping(w, "state", data.get("state", {}))
    _routing(w, data, "INVOKE_AFTER" if data.get("dispatch") else "NEXT")


def dispatch(w: XmlWriter, data: dict[str, Any]) -> None:
    """Lay out a stand-alone sub-agent dispatch: whom, with what, and what to run after."""
    _dispatch(w, data["dispatch"], skill=data["workflow"], step=data["index"], total=data["total"])
    _mapping(w, "context", data.get("context", {}))
    _routing(w, data, "INVOKE_AFTER")


def _problems(w: XmlWriter, problems: list[dict[str, Any]]) -> None:
    if not problems:
        return
    w.open("problems")
    for problem in problems:
        w.open(
            "problem",
            code=problem["code"],
            severity=problem.get("severity"),
            path=problem.get("path"),
            line=problem.get("line"),
            column=problem.get("column"),
        )
        w.text("message", problem["message"])
        if problem.get("hint") is not None:
            w.text("hint", problem["hint"])
        w.close("problem")
    w.close("problems")


def _skill(w: XmlWriter, record: dict[str, Any]) -> None:
    identity = ("skill", "scope", "priority", "eligible", "protocol_version")
    w.open("skill", name=record["skill"], scope=record["scope"], priority=record["priority"])
    w.text("description", record.get("description", ""))
    w.items("categories", "category", record.get("categories", []))
    w.data("details", {k: v for k, v in record.items() if k not in (*identity, "description", "categories")})
    w.close("skill")


def discovery(w: XmlWriter, data: dict[str, Any]) -> None:
    """Lay out the discovery list: eligible skills in priority order, then what was set aside."""
    w.open("workflows", scanned=data["scanned"], count=len(data["workflows"]))
    for record in data["workflows"]:
        _skill(w, record)
    w.close("workflows")
    if "ineligible" in data:
        w.open("ineligible", count=len(data["ineligible"]))
        for record in data["ineligible"]:
            _skill(w, record)
        w.close("ineligible")
    if "shadowed" in data:
        w.open("shadowed", count=len(data["shadowed"]))
        for record in data["shadowed"]:
            _skill(w, record)
        w.close("shadowed")
    _problems(w, data.get("problems", []))


def ranking(w: XmlWriter, data: dict[str, Any]) -> None:
    """Lay out the ranked menu: one `<option>` per skill with its label, score and breakdown."""
    request = data["request"]
    w.open(
        "menu",
        problem_type=request.get("problem_type"),
        scorer=data["scorer"],
        scorer_distribution=data.get("scorer_distribution"),
        shown=data["shown"],
        candidates=data["candidates"],
    )
    w.data("request", request)
    for entry in data["workflows"]:
        w.open("option", label=entry["label"], skill=entry["skill"], score=entry["score"], scope=entry["scope"])
        w.text("description", entry["description"])
        w.items("categories", "category", entry["categories"])
        if entry.get("estimated_duration"):
            w.text("estimated_duration", entry["estimated_duration"])
        if data.get("explain"):
            w.open("breakdown")
            for contribution in entry["breakdown"]:
                w.text("factor", contribution["reason"], name=contribution["factor"], points=contribution["points"])
            w.close("breakdown")
        w.close("option")
    w.close("menu")
    _problems(w, data.get("problems", []))
    handled = ("request", "scorer", "scorer_distribution", "shown", "candidates", "workflows", "problems", "explain")
    for key, value in data.items():
        if key not in handled and value is not None:
            w.data("session" if key == "session" else "extra", value, name=None if key == "session" else key)


def error(w: XmlWriter, data: dict[str, Any]) -> None:
    """Lay out a structured error: code, message, hint, the problems one by one, then details."""
    error = data["error"]
    w.open("error", code=error["code"], recoverable=error.get("recoverable"))
    w.text("message", error["message"])
    if error.get("hint") is not None:
        w.text("hint", error["hint"])
    if error.get("payload_preserved") is not None:
        w.text("payload_preserved", error["payload_preserved"])
    _problems(w, error.get("problems", []))
    w.data("details", error.get("details", {}))
    w.close("error")


def plugins(w: XmlWriter, data: dict[str, Any]) -> None:
    """Lay out the plugins report: each plugin with its hooks and components, then skips and failures."""
    w.open("plugins", core_version=data["core_version"])
    for plugin in data["plugins"]:
        w.open(
            "plugin",
            name=plugin["name"],
            builtin=plugin["builtin"],
            distribution=plugin["distribution"],
            version=plugin["version"],
        )
        w.items("hooks", "hook", plugin["hooks"])
        for component in plugin["components"]:
            w.text("component", component["summary"], kind=component["kind"], name=component["name"])
        w.close("plugin")
    w.close("plugins")
    for pack in data.get("packs", []):
        w.open("pack", distribution=pack["distribution"], version=pack["version"])
        for skill in pack["skills"]:
            w.text("skill", skill["entry_point"], name=skill["name"], provides=" ".join(skill["provides"]))
        w.close("pack")
    for skipped in data["skipped"]:
        w.text(
            "skipped",
            skipped["reason"],
            name=skipped["name"],
            distribution=skipped["distribution"],
            version=skipped.get("version"),
            kind=_pack_kind(skipped),
        )
    for failure in data["failures"]:
        w.open(
            "failed",
            name=failure["name"],
            distribution=failure["distribution"],
            version=failure.get("version"),
            code=failure["code"],
            kind=_pack_kind(failure),
        )
        w.text("message", failure["error"])
        if failure.get("hint"):
            w.text("hint", failure["hint"])
        w.close("failed")


def _pack_kind(entry: dict[str, Any]) -> str | None:
    """`kind="pack"` on a skill pack's entry; a plugin's stays as it was before packs were listed."""
    return "pack" if entry.get("kind") == "pack" else None


def payload_summary(w: XmlWriter, data: dict[str, Any]) -> None:
    """Lay out a payload summary: identity and integrity, then one line per top-level section."""
    w.open(
        "payload",
        path=data.get("path"),
        version=data.get("version"),
        size_bytes=data.get("size_bytes"),
        sha256=data.get("sha256"),
    )
    for section in data["sections"]:
        w.text("section", section["preview"], name=section["name"], type=section["type"], count=section.get("count"))
    w.close("payload")


LAYOUTS: dict[str, Layout] = {
    "workflow-step": workflow_step,
    "dispatch": dispatch,
    "discovery": discovery,
    "ranking": ranking,
    "error": error,
    "plugins": plugins,
    "payload-summary": payload_summary,
}
