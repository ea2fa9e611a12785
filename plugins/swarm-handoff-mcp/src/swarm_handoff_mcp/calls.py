"""The tool bodies: each turns checked arguments into the Python API call its CLI command makes.

Every import of the core happens inside a body, so listing the tools costs nothing; each body
returns the CLI's own document, so the structured content is what `--format json` prints.
"""

from __future__ import annotations

import contextlib
import datetime as dt
import json
import os
import tempfile
from pathlib import Path
from typing import TYPE_CHECKING, Any

from swarm_handoff.api import DISCOVER_PAGE, MCP, Document, PluginHost, SwarmError, Synthesis

if TYPE_CHECKING:
    from swarm_handoff_mcp.tools import Call


def _cwd(call: Call) -> Path | None:
    from swarm_handoff.api import check_cwd

    cwd = call.args.get("cwd")
    path = Path(cwd) if cwd else None
    check_cwd(path, "cwd")
    return path


def installed_scopes(host: PluginHost) -> list[str]:
    """Every scope a client may filter on: a source declares its scopes only when it is built, so build them all."""
    from swarm_handoff.api import Kind, Scope

    for name in host.components(Kind.SOURCE):
        # A broken source is reported when discovery runs it; its scopes stay unknown.
        with contextlib.suppress(SwarmError):
            host.get(Kind.SOURCE, name)
    return [s.value for s in Scope]


def discover_tool(call: Call) -> Document:
    """Discover as `discover --format json` does; the filter checks the scopes once the sources declared theirs."""
    from swarm_handoff.api import DiscoveryQuery, discover, make_context, surface_spelling

    call.progress("scanning the skill folders")
    result = discover(make_context(_cwd(call)), call.host, show_all=bool(call.args.get("all", False)))
    query = DiscoveryQuery(
        accepts_from=call.args.get("accepts_from"),
        schema_version=call.args.get("schema_version"),
        inputs=tuple(call.args.get("input", [])),
    )
    chosen = tuple(call.args.get("category", [])), tuple(call.args.get("scope", []))
    found = result.filtered(*chosen, surface_spelling(MCP, "discover")).queried(query)
    return found.paged(call.args.get("offset", 0), call.args.get("limit", DISCOVER_PAGE))


def why_tool(call: Call) -> Document:
    """Explain one skill's lookup, as `why`: the agent sees why a skill is missing without a shell."""
    from swarm_handoff.api import explain, make_context

    return explain(call.args["name"], make_context(_cwd(call)), call.host)


def lint_tool(call: Call) -> Document:
    """Lint one path or several, as `lint`: one tool for both, since a client sends one argument."""
    from swarm_handoff.api import lint

    paths = call.args["path"]
    strict = bool(call.args.get("strict_spec", False))
    return lint([paths] if isinstance(paths, str) else paths, strict_spec=strict, strict_option="strict_spec")


class _Synthesis:
    """A synthesis given as a path, as words already read, or as an object written to a private temporary file."""

    def __init__(self, value: Any) -> None:
        self.given = value
        self.temp: str | None = None

    def __enter__(self) -> Path | Synthesis | None:
        if self.given is None:  # none given: a continued chain carries the received context
            return None
        if isinstance(self.given, Synthesis):  # a request in words, read already
            return self.given
        if isinstance(self.given, str):
            return Path(self.given)
        fd, self.temp = tempfile.mkstemp(prefix="swarm-handoff-mcp-synthesis-", suffix=".json")
        with os.fdopen(fd, "w", encoding="utf-8") as out:
            json.dump(self.given, out)
        return Path(self.temp)

    def __exit__(self, *exc: object) -> None:
        if self.temp is not None:
            os.unlink(self.temp)


def rank_tool(call: Call) -> Document:
    """Rank as `rank`: a synthesis object is parsed like a file, and a request in words ranks every skill.

    The query narrows the menu as the CLI's does: `category` before ranking, `accepts_from`,
    `schema_version` and `input` leave targets out (listed with their reasons under `all`).

    Without `scorer`, the ranking rule the CLI follows decides (`choose_scorer`): the router for a
    request in words or undeclared candidates, `swarm-v2` for declared targets of a synthesis.
    """
    from swarm_handoff.api import (
        DEFAULT_TOP,
        DiscoveryQuery,
        RankingRequest,
        by_category,
        chain_names,
        choose_scorer,
        discover,
        make_context,
        rank,
        rank_candidates,
        recorded_history,
        synthesis_or_request,
    )

    words = call.args.get("request")
    synthesis = synthesis_or_request(call.args.get("synthesis"), words, call.args.get("problem_type"))
    chain = chain_names(call.args.get("chain", []), "chain")  # trimmed and checked as `rank --chain` is
    source = call.args.get("source")
    if source and (not chain or chain[0] != source):  # the handing-off skill starts the chain
        chain = (source, *chain)
    request = RankingRequest(
        synthesis=synthesis, chain=chain, autonomy=call.args.get("autonomy"), history=recorded_history()
    )
    call.progress("discovering hand-off targets")
    found = discover(make_context(_cwd(call)), call.host)
    records = rank_candidates(
        found, include_undeclared=bool(call.args.get("include_undeclared")), in_words=words is not None
    )
    records = by_category(records, call.args.get("category", []))  # as `rank --category`
    scorer = call.args.get("scorer")
    if scorer is None and words is not None:
        scorer = choose_scorer(records, call.host, in_words=True)
    call.progress(f"ranking {len(records)} targets")
    return rank(
        records,
        request,
        scorer=scorer,  # none named: `rank` applies the ranking rule to the candidates
        top=call.args.get("top", DEFAULT_TOP),
        explain=bool(call.args.get("explain", False)),
        host=call.host,
        problems=found.problems,
        query=DiscoveryQuery(  # as `rank --accepts-from/--schema-version/--input`: left out, kept for `all`
            accepts_from=call.args.get("accepts_from"),
            schema_version=call.args.get("schema_version"),
            inputs=tuple(call.args.get("input", [])),
        ),
        show_all=bool(call.args.get("all", False)),
        scorer_option="scorer",
    )


def handoff_tool(call: Call) -> Document:
    """Hand off as `handoff`: the same lifecycle, so parallel calls keep the CLI's guarantees.

    The context is the CLI's rule (`words_or_synthesis`): a synthesis, a request in words (it
    becomes `original_prompt`), or neither when continuing a received payload; refused alike.
    """
    from swarm_handoff.api import (
        HandoffOptions,
        chain_names,
        check_session,
        hand_off,
        make_context,
        words_or_synthesis,
    )

    session = call.args["session"]
    check_session(session, "session")
    received = call.args.get("from_payload")
    context = words_or_synthesis(
        call.args.get("synthesis"),
        call.args.get("request"),
        call.args.get("problem_type"),
        command="handoff",
        continues=True,
        received=received,
    )
    with _Synthesis(context) as synthesis:
        options = HandoffOptions(
            target=call.args["target"],
            synthesis=synthesis,
            received=Path(received) if received is not None else None,
            session=Path(session),
            # as the CLI's --schema: none given, the target's version decides (docs/payloads.md)
            schema=call.args.get("schema"),
            source=call.args.get("source"),
            reason=call.args.get("reason", ""),
            feedback=call.args.get("feedback"),
            chain=chain_names(call.args.get("chain", []), "chain"),  # trimmed and checked as `--chain` is
            health_check=bool(call.args.get("health_check", False)),
            sign=bool(call.args.get("sign", False)),
            override_accepts_from=bool(call.args.get("override_accepts_from", False)),
            allow_undeclared=bool(call.args.get("allow_undeclared", False)),
            expires_in=_duration(call.args.get("expires_in"), "expires_in"),
            require_signature=call.args.get("require_signature"),  # absent: required when a signing key exists
        )
        confirm = call.confirm
        if call.args.get("confirm_loop"):
            confirm = _yes
        # Refusals name this tool's arguments, and the payload and the history record the override as given.
        return hand_off(options, host=call.host, context=make_context(), confirm=confirm, surface=MCP)


def _duration(text: str | None, name: str) -> dt.timedelta | None:
    """Read a duration argument as the CLI reads its option (`3h`, `2d`), naming the argument when it cannot."""
    from swarm_handoff.api import parse_duration

    return parse_duration(text, name) if text is not None else None


def _yes(_message: str) -> bool:
    return True


def handoff_names() -> dict[str, str]:
    """Each input a hand-off refusal may name, as this tool's argument: from the operations table, none missed."""
    from swarm_handoff.api import handoff_names as spelt

    return spelt(MCP)


def verify_tool(call: Call) -> Document:
    """Verify a payload as `verify`, so a target can check what it received before trusting it."""
    from swarm_handoff.api import verify_file

    required = bool(call.args.get("require_signature", False))
    return verify_file(Path(call.args["path"]), require_signature=required, host=call.host, surface=MCP)


def validate_tool(call: Call) -> Document:
    """Validate as `validate`; an invalid payload is a tool error, not a successful empty answer."""
    from swarm_handoff.api import validate_file

    report = validate_file(Path(call.args["path"]), call.host)
    if not report.valid:
        raise report.to_error()
    return report


def ack_tool(call: Call) -> Document:
    """Acknowledge as `ack` (the core's `acknowledge`): an intact payload recorded, then the transports told."""
    from swarm_handoff.api import acknowledge

    required = call.args.get("require_signature")
    return acknowledge(call.host, Path(call.args["path"]), call.args["status"], require_signature=required, surface=MCP)


def history_tool(call: Call) -> Document:
    """List or trace hand-offs as `history`; `trace` and `skill` together are refused, not one ignored."""
    from swarm_handoff.api import config_dir, history_report, open_history

    with open_history(config_dir()) as store:
        return history_report(store, call.args.get("skill"), trace=call.args.get("trace"))


def workflow_step_tool(call: Call) -> Document:
    """Show a workflow step as `workflow step`, so an agent follows a workflow without a shell."""
    from swarm_handoff.api import SessionResources, coerce_state, get_registry, render_step

    registry = get_registry(call.host.env)  # packs under the server's host's settings, as plugins
    workflow = registry.get(call.args["skill"])
    state = {str(k): coerce_state(str(v)) for k, v in call.args.get("state", {}).items()}
    params = {str(k): str(v) for k, v in call.args.get("params", {}).items()}
    provider = SessionResources(Path(call.args.get("project") or "."), find_workflow=registry.get)
    return render_step(
        workflow, call.args["step"], params, state, resources=provider, fmt="json", param_option="params"
    )


# The body of each tool, by the tool name the operations table gives, in the order tools/list shows them.
BODIES = {
    "discover": discover_tool,
    "why": why_tool,
    "lint": lint_tool,
    "rank": rank_tool,
    "handoff": handoff_tool,
    "verify": verify_tool,
    "validate": validate_tool,
    "ack": ack_tool,
    "history": history_tool,
    "workflow_step": workflow_step_tool,
}
