"""The five resource access patterns of `SessionResources`."""

from __future__ import annotations

import sys
import zipfile

import pytest
import workflow_examples as ex

from swarm_handoff.errors import SwarmError
from swarm_handoff.workflow import ResourceProvider, SessionResources, WorkflowRegistry


@pytest.fixture
def provider(tmp_path):
    return SessionResources(tmp_path, find_workflow=WorkflowRegistry.of(*ex.ALL).get)


def test_it_satisfies_the_protocol(provider):
    assert isinstance(provider, ResourceProvider)


def test_a_packaged_convention_is_the_default(provider):
    found = provider.convention("severity")
    assert found.source == "package"
    assert "MUST" in found.text


def test_a_project_convention_wins_over_the_packaged_one(provider, tmp_path):
    path = tmp_path / ".claude" / "conventions" / "severity.md"
    path.parent.mkdir(parents=True)
    path.write_text("local rules\n", encoding="utf-8")
    found = provider.convention("severity")
    assert (found.source, found.text, found.origin) == ("project", "local rules\n", str(path))


@pytest.mark.parametrize("name", ["missing", "../etc/passwd", "a/b"])
def test_unknown_or_path_like_convention_names_are_refused(provider, name):
    with pytest.raises(SwarmError) as caught:
        provider.convention(name)
    assert caught.value.code == "RESOURCE_NOT_FOUND"


def test_session_files_round_trip(provider, tmp_path):
    path = provider.write_file("notes/plan.md", "the plan\n")
    assert path == (tmp_path / ".swarm-handoff" / "session" / "notes" / "plan.md").resolve()
    assert provider.read_file("notes/plan.md") == "the plan\n"
    with pytest.raises(SwarmError, match="no session file"):
        provider.read_file("notes/other.md")


@pytest.mark.parametrize("path", ["../escape.txt", "/etc/passwd", "a/../../b"])
def test_paths_escaping_the_session_are_refused(provider, path):
    with pytest.raises(SwarmError) as caught:
        provider.write_file(path, "x")
    assert caught.value.code == "RESOURCE_OUTSIDE_SESSION"


def test_a_symlink_out_of_the_session_is_refused(tmp_path):
    session = tmp_path / "session"
    session.mkdir()
    (session / "out").symlink_to(tmp_path)
    provider = SessionResources(tmp_path, session)
    with pytest.raises(SwarmError, match="outside the session"):
        provider.read_file("out/secret")


def test_packaged_resources_load_from_a_zip(provider, tmp_path, monkeypatch):
    archive = tmp_path / "pack.zip"
    with zipfile.ZipFile(archive, "w") as zf:
        zf.writestr("zipped_pack/__init__.py", "")
        zf.writestr("zipped_pack/templates/plan.md", "# Plan template\n")
    monkeypatch.syspath_prepend(str(archive))
    try:
        found = provider.package_resource("zipped_pack", "templates/plan.md")
        assert (found.text, found.source, found.origin) == (
            "# Plan template\n",
            "package",
            "zipped_pack/templates/plan.md",
        )
        with pytest.raises(SwarmError, match="no resource"):
            provider.package_resource("zipped_pack", "templates/none.md")
        with pytest.raises(SwarmError, match="inside the package"):
            provider.package_resource("zipped_pack", "../x")
    finally:
        sys.modules.pop("zipped_pack", None)


def test_a_missing_package_is_a_structured_error(provider):
    with pytest.raises(SwarmError, match="no resource"):
        provider.package_resource("no_such_package_here", "x.md")


def test_other_workflows_by_name(provider):
    assert provider.workflow("qr-demo") is ex.QR_GATE
    with pytest.raises(SwarmError, match="no workflow named"):
        provider.workflow("nope")


def test_the_default_workflow_lookup_uses_the_registry(tmp_path, use_workflows):
    use_workflows(ex.LINEAR)
    assert SessionResources(tmp_path).workflow("linear-demo") is ex.LINEAR


def test_step_data_round_trips_and_defaults_to_empty(provider):
    assert provider.step_data("design") == {}
    provider.save_step_data("design", {"options": ["a", "b"], "chosen": None})
    assert provider.step_data("design") == {"options": ["a", "b"], "chosen": None}
    with pytest.raises(SwarmError):
        provider.save_step_data("../up", {})


def test_hostile_session_files_are_coded_errors_not_hangs_or_tracebacks(provider, tmp_path):
    import os

    session = provider.session_dir
    (session / "steps").mkdir(parents=True)
    os.mkfifo(session / "pipe.txt")  # reading a FIFO would block forever
    with pytest.raises(SwarmError) as caught:
        provider.read_file("pipe.txt")
    assert caught.value.code == "RESOURCE_INVALID"
    (session / "steps" / "dup.json").write_text('{"a": 1, "a": 2}')
    with pytest.raises(SwarmError) as caught:
        provider.step_data("dup")
    assert caught.value.code == "RESOURCE_INVALID"
    assert "dup.json" in caught.value.message
    (session / "steps" / "big.json").write_bytes(b"[" + b"0," * 3_000_000 + b"0]")
    with pytest.raises(SwarmError) as caught:
        provider.step_data("big")
    assert caught.value.code == "RESOURCE_INVALID"
