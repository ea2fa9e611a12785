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
    from swarm_handoff.components import Register

PROJECT = "swarm_handoff"

hookspec = pluggy.HookspecMarker(PROJECT)


@hookspec
def swarm_handoff_discovery_sources(register: Register) -> None:
    """Register discovery sources: components with `discover(context) -> SourceResult`.

    Fires when discovery first runs. Sources run in ascending `priority` order (lower is more
    important); a record from a higher-priority source shadows one of the same name.
    """


@hookspec
def swarm_handoff_scorers(register: Register) -> None:
    """Register scorers: components with `score(candidate, request) -> Sequence[Contribution]`.

    Fires when ranking first runs. Only the scorer chosen by name (`--scorer`) is built and called.
    """


@hookspec
def swarm_handoff_payload_validators(register: Register, register_adapter: Register) -> None:
    """Register payload validators (`validate(payload) -> Sequence[Problem]`) and schema adapters.

    Fires when a payload is first validated or converted. Every validator whose `versions` holds
    the payload's version runs, in registration order, and all their problems are collected.
    Adapters (`source_version`, `target_version`, `convert(payload) -> AdapterResult`) go through
    `register_adapter`, named for example ``"2.0->3.0"``.
    """


@hookspec
def swarm_handoff_formatters(register: Register) -> None:
    """Register output formatters: components with `render(document) -> str`.

    Fires when a command renders its result. The name is what `--format NAME` selects; a formatter
    receives every document kind and may fall back to rendering `document.to_data()`.
    """


@hookspec
def swarm_handoff_qr_gates(register: Register) -> None:
    """Register quality-review gate policies that workflows name in their gate steps.

    Fires when a workflow step that declares a QR gate is rendered or run.
    """


@hookspec
def swarm_handoff_cli(app: object) -> None:
    """Add commands or command groups to the `swarm-handoff` typer app.

    Fires once per process, the first time the CLI looks a command up (never for `--version`),
    after the core's own commands; `app` is a `typer.Typer` holding them. A command name already
    taken is reported as a conflict and the plugin's command is dropped. Import heavy modules
    inside the command, not in the hook.
    """
