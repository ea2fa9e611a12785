"""The `handoff` command: target lookup, health check, loop confirmation, atomic writes, preservation."""

from __future__ import annotations

import json
import shlex
import stat
import sys
from pathlib import Path

import pytest

from swarm_handoff.cli import handoff_commands
from swarm_handoff.errors import SwarmError
from swarm_handoff.history import open_history, success_counts
from swarm_handoff.payload.canonical import check_integrity
from swarm_handoff.payload.health import run_health_check
from swarm_handoff.payload.io import load_payload_file
from swarm_handoff.records import SkillRecord

SYNTHESIS = """
original_prompt: Should we expand into Europe?
problem_type: strategic
synthesis_summary: Regulation is the main risk.
convergence_level: medium
"""


@pytest.fixture
def world(tmp_path, handoff_world):
    """A session with two perspectives, a synthesis, a config folder and three discoverable skills."""
    skills = tmp_path / "skills"
    checks = {
        "lit-pm": None,
        "healthy": f"{shlex.quote(sys.executable)} -c \"print('all good')\"",
        "sick": f"{shlex.quote(sys.executable)} -c \"import sys; print('db down'); sys.exit(3)\"",
        "sneaky": "echo hi; touch PWNED",
    }
    records = []
    for name, check in checks.items():
        (skills / name).mkdir(parents=True)
        (skills / name / "SKILL.md").write_text("---\nname: x\n---\n")
        records.append(
            SkillRecord(
                name=name,
                scope="global",
                source="test",
                path=str(skills / name / "SKILL.md"),
                categories=("research",),
                trigger="--handoff {payload_path}",
                health_check=check,
            )
        )
    # "my session": a space, so the printed invocation must be quoted
    paths = handoff_world(records, SYNTHESIS, perspectives=("optimist", "critic"), session="my session")
    return {**paths, "skills": skills}


def handoff(swarm_cli, world, *extra, fmt="json", input=None):
    args = ["handoff", *extra, "--synthesis", str(world["synthesis"]), "--session", str(world["session"])]
    return swarm_cli(*args, "--format", fmt, input=input)


def test_a_v2_handoff_writes_a_private_verified_payload_and_prints_the_quoted_invocation(swarm_cli, world):
    result = handoff(swarm_cli, world, "lit-pm")
    assert result.exit_code == 0, result.stdout + result.stderr
    data = result.json()
    path = Path(data["payload_path"])
    assert path == world["session"] / "handoff-payload.yaml"
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    assert data["invocation"] == f"/lit-pm --handoff {shlex.quote(str(path))}"
    assert "'" in data["invocation"]  # the space in the path is quoted
    payload = load_payload_file(path)
    assert check_integrity(payload).ok
    assert payload["handoff"]["meta"]["perspectives_completed"] == 2
    assert data["payload_hash"] == payload["handoff"]["meta"]["payload_hash"]
    assert swarm_cli("verify", str(path), "--format", "json").exit_code == 0
    assert swarm_cli("validate", str(path), "--format", "json").json()["valid"] is True
    with open_history(world["config"]) as history:
        [row] = history.list()
    assert (row.target, row.status, row.id) == ("lit-pm", "written", data["history_id"])


def test_a_second_handoff_gets_its_own_file_and_the_first_stays_where_it_was_reported(swarm_cli, world):
    # Changed by issue 12: the earlier payload used to be renamed to handoff-payload.1.yaml, so the
    # path the first run had printed (and handed to its target) then held the second run's payload.
    first = handoff(swarm_cli, world, "lit-pm").json()
    second = handoff(swarm_cli, world, "healthy", "--reason", "second opinion").json()
    assert Path(first["payload_path"]).name == "handoff-payload.yaml"
    assert Path(second["payload_path"]).name == "handoff-payload-2.yaml"
    assert second["kept_earlier"] is None
    assert load_payload_file(Path(first["payload_path"]))["handoff"]["meta"]["payload_hash"] == first["payload_hash"]
    assert load_payload_file(Path(second["payload_path"]))["handoff"]["target"]["skill"] == "healthy"
    third = handoff(swarm_cli, world, "lit-pm").json()
    assert Path(third["payload_path"]).name == "handoff-payload-3.yaml"  # the highest number is the newest


def test_unknown_target_names_the_closest_skills(swarm_cli, world):
    result = handoff(swarm_cli, world, "lit-p")
    assert result.exit_code == 1
    error = result.json()["error"]
    assert error["code"] == "TARGET_NOT_FOUND"
    assert error["details"]["target_skill"] == "lit-p"
    assert error["details"]["closest"] == ["lit-pm"]
    assert "did you mean: lit-pm" in error["hint"]


def test_health_check_runs_without_a_shell_and_reports_output(swarm_cli, world, tmp_path):
    ok = handoff(swarm_cli, world, "healthy", "--health-check")
    assert ok.exit_code == 0, ok.stdout
    assert ok.json()["health_check"]["output"].strip() == "all good"
    sneaky = handoff(swarm_cli, world, "sneaky", "--health-check").json()
    assert sneaky["health_check"]["output"].strip() == "hi; touch PWNED"  # echo got the text, no shell ran it
    assert not list(tmp_path.rglob("PWNED"))
    sick = handoff(swarm_cli, world, "sick", "--health-check")
    assert sick.exit_code == 1
    error = sick.json()["error"]
    assert error["code"] == "HEALTH_CHECK_FAILED"
    assert error["details"]["output"].strip() == "db down"
    assert error["details"]["target_skill"] == "sick"
    preserved = Path(error["payload_preserved"])
    assert preserved.parent == world["session"]
    assert load_payload_file(preserved)["handoff"]["target"]["skill"] == "sick"
    assert str(preserved) in error["message"]
    with open_history(world["config"]) as history:
        statuses = {(r.target, r.status, r.payload_path) for r in history.list()}
    assert ("sick", "failed", str(preserved)) in statuses


def test_a_health_check_that_hangs_times_out():
    result = run_health_check(f"{shlex.quote(sys.executable)} -c 'import time; time.sleep(30)'", timeout=0.5)
    assert not result.ok
    assert "timed out" in result.reason
    assert not run_health_check("no-such-program-here --health").ok
    assert "cannot split" in run_health_check("unbalanced 'quote").reason


def test_a_loop_is_refused_without_a_terminal_unless_yes(swarm_cli, world):
    chain = ("--chain", "perspective-swarm,lit-pm")
    refused = handoff(swarm_cli, world, "lit-pm", *chain)
    assert refused.exit_code == 1
    assert "no terminal" in refused.stderr
    assert "perspective-swarm -> lit-pm -> lit-pm" in refused.stderr
    error = refused.json()["error"]
    assert error["code"] == "VALIDATION_FAILED"
    assert Path(error["payload_preserved"]).is_file()
    assert not (world["session"] / "handoff-payload.yaml").exists()
    accepted = handoff(swarm_cli, world, "lit-pm", *chain, "--yes")
    assert accepted.exit_code == 0
    assert [w["code"] for w in accepted.json()["warnings"]] == ["HANDOFF_LOOP"]


@pytest.mark.parametrize(("answer", "code"), [("y\n", 0), ("n\n", 1), ("\n", 1)])
def test_at_a_terminal_the_loop_is_a_yes_no_question(swarm_cli, world, monkeypatch, answer, code):
    monkeypatch.setattr(handoff_commands, "_is_terminal", lambda: True)
    result = handoff(swarm_cli, world, "lit-pm", "--chain", "perspective-swarm,lit-pm", input=answer)
    assert result.exit_code == code
    assert "[y/N]" in result.stderr


def test_a_missing_session_preserves_the_payload_under_the_config_folder(swarm_cli, world):
    world = {**world, "session": world["session"].parent / "nowhere"}
    result = handoff(swarm_cli, world, "lit-pm")
    error = result.json()["error"]
    assert error["code"] == "VALIDATION_FAILED"
    preserved = Path(error["payload_preserved"])
    assert preserved.is_relative_to(world["config"])
    assert stat.S_IMODE(preserved.stat().st_mode) == 0o600


def test_an_invalid_payload_is_preserved_and_every_problem_reported(swarm_cli, world):
    world["synthesis"].write_text(SYNTHESIS + "perspectives_completed: 5\n")
    result = handoff(swarm_cli, world, "lit-pm")
    error = result.json()["error"]
    assert error["code"] == "VALIDATION_FAILED"
    assert error["details"]["target_skill"] == "lit-pm"
    assert any("perspectives_completed" in e for e in error["details"]["validation_errors"])
    assert Path(error["payload_preserved"]).parent == world["session"]


@pytest.mark.parametrize("fmt", ["json", "yaml", "text"])
def test_errors_carry_the_seed_fields_in_every_format(swarm_cli, world, fmt):
    result = handoff(swarm_cli, world, "sick", "--health-check", fmt=fmt)
    assert result.exit_code == 1
    if fmt == "json":
        error = result.json()["error"]
    elif fmt == "yaml":
        from ruamel.yaml import YAML

        error = YAML(typ="safe").load(result.stdout)["error"]
    else:
        assert "HEALTH_CHECK_FAILED" in result.stderr
        assert "payload preserved at" in result.stderr
        return
    assert set(error) >= {"code", "message", "details", "recoverable", "payload_preserved"}
    assert error["recoverable"] is True


def test_v3_handoff_is_written_under_handoffs_with_the_source_name(swarm_cli, world):
    result = handoff(swarm_cli, world, "lit-pm", "--schema", "3.0", "--source", "programming-pm")
    assert result.exit_code == 0, result.stdout
    path = Path(result.json()["payload_path"])
    assert path.parent == world["session"] / "handoffs"
    assert path.name.startswith("programming-pm-to-lit-pm-")
    assert path.suffix == ".json"
    payload = json.loads(path.read_text())
    assert payload["handoff"]["meta"]["handoff_chain"] == ["programming-pm"]
    assert swarm_cli("validate", str(path), "--format", "json").exit_code == 0
    again = handoff(swarm_cli, world, "lit-pm", "--schema", "3.0", "--source", "programming-pm").json()
    assert again["payload_path"] != str(path)  # a new name, even within the same second
    assert path.is_file()
    assert Path(again["payload_path"]).is_file()


def test_source_is_refused_for_forced_v2(swarm_cli, world):
    # Issue 17 changed the default: without --schema a v3.0 source is down-converted for a v2.0
    # target (test_handoff_eligibility.py); forcing --schema 2.0 with a --source is still refused.
    result = handoff(swarm_cli, world, "lit-pm", "--schema", "2.0", "--source", "programming-pm")
    assert result.exit_code == 2


def test_ack_and_history_feed_success_counts(swarm_cli, world):
    path = handoff(swarm_cli, world, "lit-pm").json()["payload_path"]
    assert swarm_cli("ack", path, "--status", "received", "--format", "json").exit_code == 0
    done = swarm_cli("ack", path, "--status", "success", "--format", "json")
    assert done.json()["handoff"]["status"] == "success"
    assert swarm_cli("ack", path, "--status", "done", "--format", "json").exit_code == 1
    listed = swarm_cli("history", "--skill", "lit-pm", "--format", "json").json()
    assert [h["status"] for h in listed["handoffs"]] == ["success"]
    assert swarm_cli("history", "--skill", "nobody", "--format", "json").json()["handoffs"] == []
    assert success_counts(world["config"]) == {"lit-pm": 1}


def test_reason_feedback_and_chain_options_reach_the_payload(swarm_cli, world):
    data = handoff(
        swarm_cli,
        world,
        "healthy",
        "--reason",
        "needs numbers",
        "--feedback",
        "go deep",
        "--chain",
        "perspective-swarm, lit-pm",
    ).json()
    meta = load_payload_file(Path(data["payload_path"]))["handoff"]["meta"]
    assert (meta["handoff_reason"], meta["user_feedback"]) == ("needs numbers", "go deep")
    assert meta["handoff_chain"] == ["perspective-swarm", "lit-pm"]


def test_an_unknown_schema_is_a_usage_error(swarm_cli, world):
    assert handoff(swarm_cli, world, "lit-pm", "--schema", "4.0").exit_code == 2


def test_a_failed_write_keeps_the_old_file_whole_and_leaves_no_temporary(tmp_path, monkeypatch):
    import os

    from swarm_handoff.payload import io

    target = tmp_path / "handoff-payload.yaml"
    target.write_text("old: payload\n")

    def broken_replace(src, dst):
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(os, "replace", broken_replace)
    with pytest.raises(OSError, match="No space"):
        io.write_atomic(target, "new: payload\n")
    assert target.read_text() == "old: payload\n"
    assert [p.name for p in tmp_path.iterdir()] == ["handoff-payload.yaml"]


def test_rank_reads_previous_success_from_the_recorded_history(swarm_cli, world):
    from swarm_handoff.history import outcome_counts

    good = handoff(swarm_cli, world, "lit-pm").json()["payload_path"]
    assert swarm_cli("ack", good, "--status", "success").exit_code == 0
    bad = handoff(swarm_cli, world, "healthy").json()["payload_path"]
    assert swarm_cli("ack", bad, "--status", "failure").exit_code == 0
    assert outcome_counts(world["config"]) == {"lit-pm": (1, 0), "healthy": (0, 1)}
    ranked = swarm_cli(
        "rank", "--synthesis", str(world["synthesis"]), "--scorer", "registry-v3", "--top", "9", "--format", "json"
    ).json()
    factors = {w["skill"]: {b["factor"]: b["points"] for b in w["breakdown"]} for w in ranked["workflows"]}
    assert factors["lit-pm"]["previous_success"] == 10
    assert factors["healthy"]["previous_success"] == 0


def test_a_busy_history_is_a_warning_and_the_handoff_stands(swarm_cli, world, monkeypatch):
    import subprocess

    from swarm_handoff.history import db_path

    handoff(swarm_cli, world, "lit-pm")  # one row, so there is something to lose
    locker = subprocess.Popen(
        [
            sys.executable,
            "-c",
            "import sqlite3, sys; db = sqlite3.connect(sys.argv[1], isolation_level=None);"
            " db.execute('PRAGMA locking_mode = EXCLUSIVE'); db.execute('BEGIN EXCLUSIVE');"
            " db.execute('SELECT 1 FROM handoffs').fetchall(); print('locked', flush=True); sys.stdin.readline()",
            str(db_path(world["config"])),
        ],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        assert locker.stdout.readline().strip() == "locked"
        monkeypatch.setenv("SWARM_HANDOFF_HISTORY_TIMEOUT", "0.2")
        result = handoff(swarm_cli, world, "healthy")
    finally:
        locker.stdin.close()
        locker.wait(timeout=60)
    assert result.exit_code == 0, result.stdout + result.stderr
    data = result.json()
    assert data["history_id"] is None
    assert [w["code"] for w in data["warnings"]] == ["HISTORY_BUSY"]
    assert Path(data["payload_path"]).is_file()
    with open_history(world["config"]) as history:
        assert not history.problems
        assert [r.target for r in history.list()] == ["lit-pm"]


def test_expires_in_sets_the_payloads_expiry_and_verify_honours_it(swarm_cli, world):
    """`--expires-in` replaces the one-hour default; the payload stays sealed, and verify reads its expiry."""
    import datetime as dt

    from swarm_handoff.payload.verify import verify_file

    default = handoff(swarm_cli, world, "lit-pm").json()
    longer = handoff(swarm_cli, world, "lit-pm", "--expires-in", "3h").json()
    later = dt.datetime.now(dt.timezone.utc) + dt.timedelta(hours=2)
    with pytest.raises(SwarmError, match="PAYLOAD_EXPIRED"):
        verify_file(Path(default["payload_path"]), now=later)
    assert verify_file(Path(longer["payload_path"]), now=later).ok
    handoff_ = load_payload_file(Path(longer["payload_path"]))["handoff"]
    made = dt.datetime.fromisoformat(handoff_["timestamp"].replace("Z", "+00:00"))
    assert dt.datetime.fromisoformat(handoff_["expires_at"].replace("Z", "+00:00")) - made == dt.timedelta(hours=3)
    v3 = handoff(swarm_cli, world, "lit-pm", "--schema", "3.0", "--expires-in", "2d").json()
    assert verify_file(Path(v3["payload_path"]), now=later + dt.timedelta(days=1)).ok


@pytest.mark.parametrize("value", ["0", "soon", "31d", "-1h"])
def test_an_expiry_that_is_not_a_sane_duration_is_a_usage_error(swarm_cli, world, value):
    result = handoff(swarm_cli, world, "lit-pm", "--expires-in", value)
    assert result.exit_code == 2, result.stdout
    error = result.json()["error"]
    assert error["code"] == "USAGE"
    assert "--expires-in" in error["message"]
    assert not (world["session"] / "handoff-payload.yaml").exists()


def test_the_loop_question_at_a_terminal_breaks_lines_rather_than_printing_backslash_n(swarm_cli, world, monkeypatch):
    monkeypatch.setattr(handoff_commands, "_is_terminal", lambda: True)
    result = handoff(swarm_cli, world, "lit-pm", "--chain", "perspective-swarm,lit-pm", input="n\n")
    assert "\\n" not in result.stderr
    assert "\n  chain: perspective-swarm -> lit-pm -> lit-pm\n" in result.stderr
