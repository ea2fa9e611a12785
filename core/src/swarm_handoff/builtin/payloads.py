"""The core's payload validators and schema adapters, registered like any third party's."""

from __future__ import annotations

from swarm_handoff.components import Register
from swarm_handoff.hookspecs import hookimpl


def _v2_schema() -> object:
    from swarm_handoff.payload.v2 import SchemaValidator

    return SchemaValidator()


def _v2_rules() -> object:
    from swarm_handoff.payload.v2 import RulesValidator

    return RulesValidator()


def _v3_schema() -> object:
    from swarm_handoff.payload.v3 import SchemaValidator

    return SchemaValidator()


def _v3_rules() -> object:
    from swarm_handoff.payload.v3 import RulesValidator

    return RulesValidator()


def _upgrade() -> object:
    from swarm_handoff.payload.adapters import Upgrade

    return Upgrade()


def _downgrade() -> object:
    from swarm_handoff.payload.adapters import Downgrade

    return Downgrade()


@hookimpl
def swarm_handoff_payload_validators(register: Register, register_adapter: Register) -> None:
    """Offer the v1.0/v2.0 and v3.0 validators and the 2.0 <-> 3.0 adapters."""
    register("v2-schema", _v2_schema, summary="v1.0/v2.0 fields, types, enums and ISO 8601 times")
    register("v2-rules", _v2_rules, summary="v1.0/v2.0 session folder, perspective count, loop warning")
    register("v3-schema", _v3_schema, summary="v3.0 universal schema: fields, types, enums, closed mappings")
    register("v3-rules", _v3_rules, summary="v3.0 token budget, chain rules, no self hand-off, time order")
    register_adapter("2.0->3.0", _upgrade, summary="upgrade: context and insights spread over v3.0's tiers")
    register_adapter("3.0->2.0", _downgrade, summary="downgrade: drops tracing and tiers, listing each field")
