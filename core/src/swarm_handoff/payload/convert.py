"""Convert a payload to another schema version through the registered adapters.

Adapters are components named `"<from>-><to>"`. The pairs the registry's compatibility matrix calls
incompatible, or that no installed adapter covers, are refused with SCHEMA_INCOMPATIBLE and the
matrix's reason; a conversion whose result is not a valid payload is refused with its problems.
"""

from __future__ import annotations

import copy
from collections.abc import Mapping
from typing import Any

import attrs

from swarm_handoff.components import Kind
from swarm_handoff.errors import ErrorCode, SwarmError
from swarm_handoff.isolation import quiet
from swarm_handoff.payload.adapters import AdapterResult
from swarm_handoff.payload.schema import version_of
from swarm_handoff.payload.unsigned import carried_over
from swarm_handoff.plugins import PluginHost, get_host

SCHEMA_INCOMPATIBLE = "SCHEMA_INCOMPATIBLE"

# Versions read as another for conversion: v1.0 is a subset of v2.0.
ALIASES = {"1.0": "2.0"}
# The matrix's "No" and "Adapter needed" rows, with its reason.
MATRIX_REFUSALS = {
    ("3.0", "1.2"): "programming-pm's internal 1.2 schema is incompatible with 3.0",
    ("1.2", "3.0"): "1.2 -> 3.0 needs an adapter layer, which does not exist yet",
    ("1.2", "2.0"): "programming-pm's internal 1.2 schema has no path to 2.0",
}


def convert_payload(payload: Any, to: str, host: PluginHost | None = None) -> AdapterResult:
    """Convert `payload` to version `to`, or raise SCHEMA_INCOMPATIBLE / INVALID_PAYLOAD saying why."""
    host = host or get_host()
    version = version_of(payload)
    if version is None or not isinstance(payload, Mapping):
        raise SwarmError(
            ErrorCode.INVALID_PAYLOAD,
            "not a payload: it has no handoff.version to convert from",
            details={"missing_fields": ["handoff.version"], "validation_errors": []},
            hint="validate the file first: swarm-handoff validate PAYLOAD",
        )
    source = ALIASES.get(version, version)
    if source == ALIASES.get(to, to):
        return AdapterResult(source_version=version, target_version=to, payload=copy.deepcopy(dict(payload)))
    name = f"{source}->{to}"
    refs = host.components(Kind.ADAPTER)
    if (source, to) in MATRIX_REFUSALS or name not in refs:
        reason = MATRIX_REFUSALS.get((source, to), f"no installed adapter converts {source} to {to}")
        raise SwarmError(
            SCHEMA_INCOMPATIBLE,
            f"cannot convert a v{version} payload to v{to}: {reason}",
            details={"from": version, "to": to, "adapters": sorted(refs)},
            hint="hand off with a schema version the target accepts, or install an adapter plugin",
            recoverable=False,
        )
    adapter = host.get(Kind.ADAPTER, name)
    try:
        with quiet():  # an adapter's prints go to stderr, never into the document
            result = adapter.convert(payload)
    except Exception as exc:  # a plugin's adapter must not crash the command
        raise SwarmError(
            ErrorCode.COMPONENT_FAILED,
            f"adapter {name!r} ({refs[name].distribution}) failed: {type(exc).__name__}: {exc}",
            hint=f"fix or uninstall {refs[name].distribution}",
        ) from exc
    if not isinstance(result, AdapterResult):
        raise SwarmError(ErrorCode.COMPONENT_FAILED, f"adapter {name!r} returned {type(result).__name__}")
    if result.problems:
        raise SwarmError(
            SCHEMA_INCOMPATIBLE,
            f"a v{version} payload converted to v{to} would not be valid: {len(result.problems)} problem(s)",
            details={
                "from": version,
                "to": to,
                "validation_errors": [p.message for p in result.problems],
                "dropped": list(result.dropped),
            },
            hint=(
                "v2.0 carries only its four problem types (decision, creative, analytical, strategic); "
                "keep v3.0 for others"
            ),
            recoverable=False,
            problems=result.problems,
        )
    return attrs.evolve(result, payload=carried_over(payload, result.payload))  # never drops unsigned hops
