"""Issue 25: error messages echo values from the file they read bounded and with controls escaped."""

from __future__ import annotations

import json

from swarm_handoff.errors import Problem, SwarmError
from swarm_handoff.payload.build3 import build_v3
from swarm_handoff.payload.canonical import seal
from swarm_handoff.records import SkillRecord
from swarm_handoff.synthesis import parse_synthesis
from swarm_handoff.termsafe import ELLIPSIS, MAX_MESSAGE, MAX_SHOWN, shown

HOSTILE = "\x1b]0;owned\x07\x1b[2J\u202e" + "A" * 100_000


def test_shown_cuts_at_the_limit_with_an_ellipsis_and_the_length():
    text = shown("x" * 5000)
    assert text == f"'{'x' * MAX_SHOWN}'{ELLIPSIS} (5000 characters)"
    assert shown("short") == "'short'"
    escaped = shown("\x1b[2J\u202ebad")
    assert "\x1b" not in escaped
    assert "\u202e" not in escaped
    assert "\\x1b" in escaped
    assert len(shown(list(range(10_000)))) == MAX_SHOWN + 1


def test_every_error_and_problem_message_is_bounded_and_escaped_centrally():
    error = SwarmError("X", "value: " + HOSTILE)
    assert len(error.message) < MAX_MESSAGE + 100
    assert "\x1b" not in error.message
    assert error.message.endswith("more characters)")
    assert "\x1b" not in str(error)
    problem = Problem("X", "line one\n\x1b[31mred" + "B" * 10_000)
    assert "\n" in problem.message  # line breaks a message was built with stay
    assert "\x1b" not in problem.message
    assert len(problem.message) < MAX_MESSAGE + 100


def hostile_payload(tmp_path, change):
    (tmp_path / "perspectives").mkdir()
    synthesis = parse_synthesis({"original_prompt": "Why?", "problem_type": "analytical", "synthesis_summary": "So."})
    payload = build_v3(synthesis, SkillRecord(name="beta", scope="global", source="t"), tmp_path).payload
    change(payload["handoff"])
    for key in ("payload_hash", "payload_size_bytes"):
        payload["handoff"]["meta"].pop(key, None)
    path = tmp_path / "p.json"
    path.write_text(json.dumps(seal(payload)))
    return path


def all_text(document):
    return json.dumps(document, ensure_ascii=False)


def test_validate_echoes_a_huge_hostile_value_bounded(tmp_path, swarm_cli, swarm_host):
    path = hostile_payload(tmp_path, lambda h: h["context"].update(problem_type=HOSTILE))
    result = swarm_cli("validate", str(path), "--format", "json")
    assert result.exit_code == 1
    error = result.json()["error"]
    [message] = [m for m in error["details"]["validation_errors"] if "problem_type" in m]
    assert len(message) < 2 * MAX_SHOWN + 100
    assert f"({len(HOSTILE)} characters)" in message
    assert "\x1b" not in all_text(error)
    assert len(result.stdout) < 20_000


def test_verify_echoes_a_huge_hostile_signature_bounded(tmp_path, swarm_cli, swarm_host, monkeypatch):
    monkeypatch.setenv("CLAUDE_CONFIG_DIR", str(tmp_path / "config"))
    path = hostile_payload(tmp_path, lambda h: h["meta"].update(signature=HOSTILE))
    result = swarm_cli("verify", str(path), "--format", "json")
    assert result.exit_code == 1
    error = result.json()["error"]
    assert "\x1b" not in all_text(error)
    assert len(error["message"]) < 2 * MAX_SHOWN + 200
    assert len(result.stdout) < 20_000
