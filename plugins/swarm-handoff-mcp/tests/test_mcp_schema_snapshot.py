"""The tools' names and input schemas as they were before the operations table: only additions allowed.

`tool_schemas.json` holds `tool_specs()` of before (scopes fixed). Every stored tool must still be
listed, every stored property keep its type, enum, bounds and place in `required`; a tool or a
property may be added. The order of properties in a JSON object carries no meaning and is not
pinned. Descriptions are compared too: a changed one must be a deliberate edit here.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from swarm_handoff_mcp.tools import MAX_TOP, tool_specs

STORED = json.loads((Path(__file__).with_name("tool_schemas.json")).read_text(encoding="utf-8"))
SCOPES = ["project", "git-root", "global", "installed"]


def _shape(prop: dict[str, Any]) -> dict[str, Any]:
    """A property without its description, its items' too: what a client validates against."""
    shape = {k: v for k, v in prop.items() if k != "description"}
    if isinstance(shape.get("items"), dict):
        shape["items"] = _shape(shape["items"])
    return shape


def _now() -> dict[str, Any]:
    return {s.name: {"description": s.description, "schema": s.schema} for s in tool_specs(SCOPES)}


def test_every_tool_keeps_its_name_and_order() -> None:
    names = list(_now())
    assert [n for n in names if n in STORED] == list(STORED)


def test_every_property_keeps_its_shape_and_required_stays() -> None:
    now = _now()
    for name, stored in STORED.items():
        schema = now[name]["schema"]
        assert schema["type"] == "object", name
        assert schema["additionalProperties"] is False, name
        assert schema["required"] == stored["schema"]["required"], name
        for prop, shape in stored["schema"]["properties"].items():
            assert prop in schema["properties"], f"{name}.{prop} was removed"
            assert _shape(schema["properties"][prop]) == _shape(shape), f"{name}.{prop} changed"


def test_descriptions_are_unchanged() -> None:
    now = _now()
    for name, stored in STORED.items():
        assert now[name]["description"] == stored["description"], name
        for prop, shape in stored["schema"]["properties"].items():
            assert now[name]["schema"]["properties"][prop].get("description") == shape.get("description"), (
                f"{name}.{prop}"
            )


def test_the_menu_bound_callers_read_is_the_one_the_rank_schema_states() -> None:
    assert _now()["rank"]["schema"]["properties"]["top"]["maximum"] == MAX_TOP
