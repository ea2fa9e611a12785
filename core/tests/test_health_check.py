"""Health checks are contained: bounded output, the whole process group killed, a minimal environment,
unrunnable commands refused, and the payload preserved on every failure path."""

from __future__ import annotations

import contextlib
import json
import os
import shlex
import sys
import time
from pathlib import Path

import pytest

from swarm_handoff.metadata import record_from_frontmatter
from swarm_handoff.payload import health, lifecycle
from swarm_handoff.payload.health import HEAD_BYTES, TAIL_BYTES, CappedOutput, run_health_check
from swarm_handoff.payload.io import load_payload_file
from swarm_handoff.records import SkillRecord

PY = shlex.quote(sys.executable)


def _gone(pid: int) -> bool:
    """Dead or a zombie (killed, waiting for a parent that is not us to reap it)."""
    try:
        with open(f"/proc/{pid}/stat") as stat:
            return stat.read().rsplit(")", 1)[1].split()[0] in ("Z", "X")
    except FileNotFoundError:
        return True
    except OSError:
        pass
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return True
    return False


def _wait_gone(pid: int) -> bool:
    for _ in range(500):  # a safety net for a slow machine, not a timing assertion
        if _gone(pid):
            return True
        time.sleep(0.01)
    return False


@pytest.fixture
def reap_leftovers():
    """Kill any pid the test recorded, so a failing run never leaves `sleep 60` behind."""
    pids: list[int] = []
    yield pids
    for pid in pids:
        with contextlib.suppress(OSError):
            os.kill(pid, 9)


@pytest.mark.parametrize(
    ("script", "timeout", "timed_out"),
    [
        ("sleep 60 & echo $! > pid; echo started", 30, False),  # exits at once, leaves a child behind
        ("sleep 60 & echo $! > pid; exec sleep 60", 0.5, True),  # hangs: killed at the time-out
    ],
)
def test_no_grandchild_outlives_the_check(tmp_path, reap_leftovers, script, timeout, timed_out):
    result = run_health_check(f"sh -c {shlex.quote(script)}", cwd=tmp_path, timeout=timeout)
    pid = int((tmp_path / "pid").read_text())
    reap_leftovers.append(pid)
    assert _wait_gone(pid), f"the background sleep {pid} survived the health check"
    assert ("timed out" in result.reason) is timed_out
    assert result.ok is not timed_out


def test_endless_output_is_capped_and_the_drop_is_said():
    result = run_health_check("yes", timeout=0.5)  # `yes` never stops: the time-out ends it
    assert not result.ok
    assert "timed out" in result.reason
    assert result.output_bytes > HEAD_BYTES + TAIL_BYTES
    assert result.dropped_bytes == result.output_bytes - HEAD_BYTES - TAIL_BYTES
    assert f"[... {result.dropped_bytes} bytes dropped ...]" in result.output
    assert len(result.output) < HEAD_BYTES + TAIL_BYTES + 100
    assert result.output.startswith("y\ny\n")


def test_large_output_of_a_passing_check_keeps_head_and_tail():
    code = "import sys; sys.stdout.write('HEAD' + 'x' * 1_000_000 + 'TAIL')"
    result = run_health_check(f"{PY} -c {shlex.quote(code)}")
    assert result.ok, result.reason
    assert result.output_bytes == 1_000_008
    assert result.output.startswith("HEAD")
    assert result.output.endswith("TAIL")
    assert result.dropped_bytes == 1_000_008 - HEAD_BYTES - TAIL_BYTES


def test_capped_output_keeps_exactly_the_head_and_the_tail():
    sink = CappedOutput(head=4, tail=3)
    for chunk in (b"ab", b"cdef", b"", b"ghij", b"k"):
        sink.add(chunk)
    assert (bytes(sink.head), bytes(sink.tail), sink.total, sink.dropped) == (b"abcd", b"ijk", 11, 4)
    assert sink.text() == "abcd\n[... 4 bytes dropped ...]\nijk"
    small = CappedOutput(head=4, tail=3)
    small.add(b"abcdefg")
    assert small.text() == "abcdefg"


def test_the_environment_is_minimal_plus_what_the_skill_declares(monkeypatch):
    monkeypatch.setenv("SECRET_TOKEN", "hunter2")
    monkeypatch.setenv("SKILL_DB_URL", "sqlite://")
    code = "import json, os; print(json.dumps(dict(os.environ)))"
    result = run_health_check(f"{PY} -c {shlex.quote(code)}", env_names=["SKILL_DB_URL"])
    assert result.ok, result.reason
    seen = json.loads(result.output)
    assert "SECRET_TOKEN" not in seen
    assert "hunter2" not in result.output
    assert seen["SKILL_DB_URL"] == "sqlite://"
    assert seen["PATH"] == os.environ["PATH"]
    assert set(result.env) <= {*health.BASE_ENV, "SKILL_DB_URL"}


@pytest.mark.parametrize(
    ("command", "reason"),
    [
        ("echo a\x00b", "NUL byte"),
        ("", "empty"),
        ("   ", "empty"),
        ("unbalanced 'quote", "cannot split"),
        ("no-such-program-here --health", "program not found"),
        ("./missing.sh", "program not found"),
        ("./not-executable.sh", "not an executable file"),
        ("./folder", "not an executable file"),
        ("x" * 5000, "longer than"),
    ],
)
def test_unrunnable_commands_are_refused_with_a_reason(tmp_path, command, reason):
    (tmp_path / "not-executable.sh").write_text("#!/bin/sh\necho hi\n")
    (tmp_path / "folder").mkdir()
    result = run_health_check(command, cwd=tmp_path)
    assert not result.ok
    assert result.returncode is None
    assert reason in result.reason


@pytest.mark.parametrize("names", [["NOT A NAME"], ["A=1"], [3], ["X"] * 40])
def test_bad_declared_variable_names_fail_the_check(names):
    result = run_health_check(f"{PY} -c pass", env_names=names)
    assert not result.ok
    assert "health_check_env" in result.reason


def test_health_check_env_is_read_from_the_handoff_block():
    handoff = {"accepts_from": ["*"], "health_check": "check", "health_check_env": ["DB_URL", "API_HOST"]}
    record = record_from_frontmatter(
        {"handoff": handoff, "categories": ["x"]}, name="s", scope="global", source="t", path="/x/SKILL.md"
    )
    assert health.declared_env(record.meta) == ["DB_URL", "API_HOST"]
    assert health.declared_env({}) == ()


# -- through the hand-off: every failure keeps the payload --------------------------------------


@pytest.fixture
def world(tmp_path, handoff_world):
    skills: dict[str, str] = {
        "nul": "echo a\x00b",
        "flood": "yes",
        "ok": f"{PY} -c pass",
    }
    records = []
    for name, check in skills.items():
        (tmp_path / name).mkdir()
        records.append(
            SkillRecord(
                name=name,
                scope="global",
                source="test",
                path=str(tmp_path / name / "SKILL.md"),
                categories=("research",),
                health_check=check,
            )
        )
    synthesis = "original_prompt: p\nproblem_type: strategic\nsynthesis_summary: s\nconvergence_level: high\n"
    return handoff_world(records, synthesis, perspectives=("a",))


def _handoff(swarm_cli, world, target):
    return swarm_cli(
        "handoff",
        target,
        "--synthesis",
        str(world["synthesis"]),
        "--session",
        str(world["session"]),
        "--health-check",
        "--format",
        "json",
    )


def test_a_nul_byte_is_health_check_failed_and_the_payload_is_kept(swarm_cli, world):
    result = _handoff(swarm_cli, world, "nul")
    assert result.exit_code == 1
    error = result.json()["error"]
    assert error["code"] == "HEALTH_CHECK_FAILED"
    assert "NUL byte" in error["message"]
    assert load_payload_file(Path(error["payload_preserved"]))["handoff"]["target"]["skill"] == "nul"


def test_a_flooding_check_fails_with_capped_output_and_the_payload_is_kept(swarm_cli, world, monkeypatch):
    monkeypatch.setattr(health, "TIMEOUT_SECONDS", 0.5)
    result = _handoff(swarm_cli, world, "flood")
    error = result.json()["error"]
    assert error["code"] == "HEALTH_CHECK_FAILED"
    assert error["details"]["dropped_bytes"] > 0
    assert len(error["details"]["output"]) < HEAD_BYTES + TAIL_BYTES + 100
    assert Path(error["payload_preserved"]).is_file()


@pytest.mark.parametrize("exc", [MemoryError(), RuntimeError("a bug")])
def test_an_unexpected_error_after_the_payload_is_built_keeps_the_payload(swarm_cli, world, monkeypatch, exc):
    def explode(*args, **kwargs):
        raise exc

    monkeypatch.setattr(lifecycle, "run_health_check", explode)
    result = _handoff(swarm_cli, world, "ok")
    assert result.exit_code == 1
    error = result.json()["error"]
    assert error["code"] == "HANDOFF_FAILED"
    assert type(exc).__name__ in error["message"]
    kept = Path(error["payload_preserved"])
    assert load_payload_file(kept)["handoff"]["target"]["skill"] == "ok"
    assert str(kept) in error["message"]
