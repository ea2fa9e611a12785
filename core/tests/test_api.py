"""`swarm_handoff.api` names what plugins may use, and every name it lists resolves."""

from __future__ import annotations

import ast
import importlib
from pathlib import Path

import pytest

from swarm_handoff import api


@pytest.mark.parametrize("name", api.__all__)
def test_every_public_name_resolves_to_its_home(name):
    value = getattr(api, name)
    assert value is getattr(importlib.import_module(api._EXPORTS[name]), name)


def test_type_checkers_see_every_public_name():
    # mypy reads the TYPE_CHECKING block; a name missing there is `Any` to every plugin's type check.
    tree = ast.parse(Path(api.__file__).read_text(encoding="utf-8"))
    typed = {
        alias.asname or alias.name
        for node in ast.walk(tree)
        if isinstance(node, ast.ImportFrom)
        for alias in node.names
    }
    annotated = {n.target.id for n in ast.walk(tree) if isinstance(n, ast.AnnAssign) and isinstance(n.target, ast.Name)}
    assert set(api.__all__) - typed - annotated == set()


def test_an_unknown_name_is_an_attribute_error():
    with pytest.raises(AttributeError, match="no_such_thing"):
        api.no_such_thing
