"""The hook specifications: the whole contract between swarm-handoff and its plugins.

Every hook but `swarm_handoff_cli` follows one pattern: the host calls it once, when the plugin
host is first built (lazily, by the first command that needs components), and passes a `register`
callable. The plugin calls ``register(name, factory, summary=...)`` once per component it offers.
The host, not the plugin, owns names: two distributions that register the same name for the same
kind are reported as a conflict naming both, and the first one loaded keeps the name (built-ins
load first, so a third party can never silently replace a built-in). ``factory`` is called with no
arguments the first time the component is used, so a plugin keeps heavy imports inside it.

Hook arguments are opt-in (pluggy): an implementation names only the arguments it uses, so adding
an argument to a spec later never breaks an existing plugin. Each plugin's hooks are called in
plugin load order (built-ins, then entry points sorted by name); one plugin's hook raising is
reported against that plugin and the others still register.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import pluggy

if TYPE_CHECKING:
    from collections.abc import Callable

    import typer

    from swarm_handoff.components import Register
    from swarm_handoff.operations import Group, Operation

PROJECT = "swarm_handoff"

hookspec = pluggy.HookspecMarker(PROJECT)
hookimpl = pluggy.HookimplMarker(PROJECT)
"""The marker a plugin puts on its hook implementations; import it from `swarm_handoff.api`."""


@hookspec
def swarm_handoff_discovery_sources(register: Register) -> None:
    """Register discovery sources (`DiscoverySource`: `discover(context) -> SourceResult`).

    Fires the first time discovery runs in a process. Every registered source is built and run,
    in ascending `priority` (the `PrioritizedSource` capability; `DEFAULT_PRIORITY`, 99, without
    it), ties broken by name. A source that raises is reported as `SOURCE_FAILED`, one that answers
    outside its protocol as `PLUGIN_BAD_RESULT`; either way its skills are skipped and the other
    sources still run.
    """


@hookspec
def swarm_handoff_scorers(register: Register) -> None:
    """Register scorers (`Scorer`: `score(candidate, request) -> Sequence[Contribution]`).

    Fires the first time ranking runs. Only the scorer chosen by name (`--scorer`, default
    `swarm-v2`) is built and called: once per candidate, or once per ranking when it offers
    `score_many`. A scorer that raises or returns anything
    but contributions with finite points stops the ranking with a coded error naming its plugin.
    """


@hookspec
def swarm_handoff_payload_validators(register: Register, register_adapter: Register) -> None:
    """Register payload validators (`PayloadValidator`) and schema adapters (`SchemaAdapter`).

    Fires the first time a payload is validated, verified or converted. Every validator whose
    `versions` holds the payload's version runs, in registration order, and all their problems are
    collected; a validator that raises or answers outside its protocol fails the payload (closed).
    Adapters (`source_version`, `target_version`, `convert(payload) -> AdapterResult`) go through
    `register_adapter`, named after the conversion, for example ``"2.0->3.0"``.
    """


@hookspec
def swarm_handoff_formatters(register: Register) -> None:
    """Register output formatters (`Formatter`: `render(document) -> str`).

    Fires the first time a command renders its result or checks its `--format` value. The name is
    what `--format NAME` selects; there is no chain. A formatter receives every document kind and
    may fall back to rendering `document.to_data()`.
    """


@hookspec
def swarm_handoff_qr_gates(register: Register) -> None:
    """Register quality-review gate policies (`GatePolicy`: `blocking(iteration) -> severities`).

    Fires the first time a workflow step that declares a QR gate is rendered or routed. The gate
    step names its policy (`default` unless it says otherwise); only that one is built. The
    optional `LimitedGate` (`exhausted`) and `CheckpointGate` (`checkpoint`) capabilities add an
    iteration limit and the checkpoint's own wording.
    """


@hookspec
def swarm_handoff_transports(register: Register) -> None:
    """Register transports (`Transport`: `skills(url)`, `send(payload, url, target)`, `acknowledged(payload, status)`).

    The name is the URL scheme the transport takes (`http`, `https`; one transport may be
    registered under several). Fires the first time `handoff --to URL` picks the transport for a
    URL, and when `ack` records an acknowledgment: every transport is then told once, so the one
    that carried the payload can move its remote task. Without a transport for the URL's scheme,
    `--to` is refused (`TRANSPORT_MISSING`) before anything is written. A transport that raises
    during `ack` is a warning (`TRANSPORT_FAILED`): the acknowledgment stays recorded.
    """


@hookspec
def swarm_handoff_operations(register: Callable[[Operation | Group], None]) -> None:
    """Declare commands as operations (`Operation`, and `Group` for a command group), once each.

    Call ``register(Operation(...))`` per command and ``register(Group(...))`` per group. The
    command line builds the command, its `-h` page and completion from the declaration; an
    operation with a `tool` name is also offered by the MCP server, its schema derived from the
    same parameters. Fires once per process when the CLI or the MCP server is built, after the
    core's table, in plugin load order. A name already taken is reported as a conflict and the
    plugin's operation is dropped; a hook that raises is reported as `PLUGIN_HOOK_FAILED` and
    everything else still works. The body is named as "module:function", imported when it runs.
    """


@hookspec
def swarm_handoff_cli(app: typer.Typer) -> None:
    """Add commands or command groups to the `swarm-handoff` typer app.

    Fires once per process, the first time the CLI looks a command up (never for `--version`),
    after the core's own commands, in plugin load order. A command name already taken is reported
    as a conflict and the plugin's command is dropped; a hook that raises is reported as
    `PLUGIN_HOOK_FAILED` and every other command still works. Import heavy modules inside the
    command, not in the hook.
    """
