"""A path in a payload holding a NUL character is a coded validation problem, never INTERNAL_ERROR.

Issue 25, low finding: `validate`, `verify` and `ack` of a payload whose reference path held `\\0`
ended in INTERNAL_ERROR (`ValueError: embedded null byte` from the file checks).
"""

from __future__ import annotations

import json

import pytest

from swarm_handoff.payload.build3 import build_v3
from swarm_handoff.payload.canonical import seal
from swarm_handoff.payload.integrity import check_files
from swarm_handoff.payload.v2 import build_v2
from swarm_handoff.records import SkillRecord
from swarm_handoff.synthesis import parse_synthesis

TARGET = SkillRecord(name="lit-pm", scope="global", source="test", categories=("research",))
SYNTHESIS = parse_synthesis({"original_prompt": "Why?", "problem_type": "analytical", "synthesis_summary": "Because."})
CHECKSUM = "sha256:" + "0" * 64


@pytest.fixture
def nul_v3(tmp_path):
    (tmp_path / "perspectives").mkdir()
    payload = build_v3(SYNTHESIS, TARGET, tmp_path).payload
    files = [{"name": "x", "path": "notes\0.md", "type": "analysis", "checksum": CHECKSUM}]
    payload["handoff"]["payload"].setdefault("references", {})["files"] = files
    path = tmp_path / "payload.json"
    path.write_text(json.dumps(seal(payload)))
    return path


@pytest.mark.parametrize("command", [["validate"], ["verify"], ["ack", "--status", "received"]])
def test_a_reference_path_with_nul_is_a_coded_error(swarm_cli, swarm_host, nul_v3, tmp_path, command):
    env = {"CLAUDE_CONFIG_DIR": str(tmp_path / "config")}
    result = swarm_cli(command[0], str(nul_v3), *command[1:], "--format", "json", env=env)
    assert result.exit_code == 1
    document = result.json()
    text = json.dumps(document)
    assert "INTERNAL_ERROR" not in text
    assert "NUL" in text
    assert "payload.references.files[0].path" in text  # validate: a PAYLOAD_BAD_VALUE; verify, ack: the file check


def test_the_validator_names_the_field_and_the_code(swarm_cli, swarm_host, nul_v3):
    report = swarm_cli("validate", str(nul_v3), "--format", "json").json()
    problems = report.get("errors") or report["error"]["problems"]
    [nul] = [p for p in problems if "NUL" in p["message"]]
    assert nul["code"] == "PAYLOAD_BAD_VALUE"
    assert nul["message"].startswith("handoff.payload.references.files[0].path:")


def test_a_v2_session_path_with_nul_is_a_coded_error(swarm_cli, swarm_host, tmp_path):
    (tmp_path / "perspectives").mkdir()
    payload = build_v2(SYNTHESIS, TARGET, tmp_path)
    payload["handoff"]["source"]["session_path"] = str(tmp_path) + "\0x"
    path = tmp_path / "p.json"
    path.write_text(json.dumps(seal(payload)))
    result = swarm_cli("validate", str(path), "--format", "json")
    assert result.exit_code == 1
    assert "INTERNAL_ERROR" not in result.stdout
    assert "handoff.source.session_path" in result.stdout
    assert "NUL" in result.stdout


def test_the_file_check_reports_a_nul_path_instead_of_raising():
    # v3.0: only its tiers reference files (issue 25, medium 6: another version's are never read)
    files = [{"path": "a\0b", "checksum": CHECKSUM}]
    payload = {"handoff": {"version": "3.0", "payload": {"references": {"files": files}}}}
    [check] = check_files(payload, None)
    assert check.computed is None
    assert "NUL" in (check.problem or "")
