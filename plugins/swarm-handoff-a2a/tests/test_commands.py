"""The `a2a` commands through the CLI: `serve`, `send`, `skills`, `status` (issue 29, points 1, 2 and 4).

The receiving host is the `receiver` fixture (a free loopback port, in a thread) for the sending
commands, and `swarm-handoff a2a serve --port 0` in a process of its own for `serve`.
"""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from swarm_handoff_a2a.ack import ack_task
from swarm_handoff_a2a.auth import TOKEN_ENV, Auth

TOKEN = "a-token-long-enough-for-the-test-0123456789"


def free_port() -> int:
    with socket.socket() as probe:  # a port nothing listens on
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def token_file(folder: Path, mode: int = 0o600) -> Path:
    path = folder / "a2a.token"
    path.write_text(TOKEN + "\n", encoding="utf-8")
    path.chmod(mode)
    return path


def test_skills_lists_the_remote_hosts_accepting_skills_from_its_card(hosts, receiver, swarm_cli):
    url = receiver().url
    found = swarm_cli("a2a", "skills", url, "-f", "json")
    assert found.exit_code == 0, found.stderr
    data = found.json()
    assert {s["id"] for s in data["skills"]} == {"alpha", "beta", "picky"}
    assert data["extension"] is True
    assert data["cache_control"] == "public, max-age=300"
    beta = next(s for s in data["skills"] if s["id"] == "beta")
    assert beta["examples"] == ["Review the market entry plan"]
    text = swarm_cli("a2a", "skills", url)
    assert "takes swarm-handoff payloads" in text.stdout
    assert "  beta  The beta skill. [research]" in text.stdout


def test_skills_of_an_unreachable_host_is_a_coded_error(hosts, swarm_cli):
    found = swarm_cli("a2a", "skills", f"http://127.0.0.1:{free_port()}/", "-f", "json")
    assert found.exit_code == 1
    assert found.json()["error"]["code"] == "A2A_UNREACHABLE"


def test_a_url_that_is_not_http_is_a_usage_error(hosts, swarm_cli):
    found = swarm_cli("a2a", "skills", "file:///etc/passwd", "-f", "json")
    assert found.exit_code == 2
    assert found.json()["error"]["code"] == "USAGE"


def test_send_delivers_once_and_status_follows_the_task_to_completed(hosts, receiver, payload, swarm_cli):
    built = receiver()
    path = payload()
    sent = swarm_cli("a2a", "send", str(path), "--to", built.url, "-f", "json")
    assert sent.exit_code == 0, sent.stderr
    first = sent.json()
    assert (first["state"], first["delivered"], first["target"]) == ("working", True, "beta")
    again = swarm_cli("a2a", "send", str(path), "--to", built.url, "-f", "json").json()
    assert again["task_id"] == first["task_id"]  # the same payload is the same task
    assert len(list(hosts["inbox"].rglob("*.json"))) == 1

    listed = swarm_cli("a2a", "status", "-f", "json").json()["remote_tasks"]
    assert [(r["payload_hash"], r["url"], r["state"]) for r in listed] == [
        (first["payload_hash"], built.url, "working")
    ]

    assert ack_task("success", task_id=first["task_id"], store_url=built.store_url) == "completed"
    assert swarm_cli("a2a", "status", "-f", "json").json()["remote_tasks"][0]["state"] == "working"  # not asked yet
    refreshed = swarm_cli("a2a", "status", "--refresh", "--payload-hash", first["payload_hash"], "-f", "json")
    assert refreshed.exit_code == 0, refreshed.stderr
    assert [r["state"] for r in refreshed.json()["remote_tasks"]] == ["completed"]
    assert "completed" in swarm_cli("a2a", "status").stdout


def test_a_refused_payload_exits_1_with_the_receivers_code(hosts, receiver, payload, swarm_cli):
    url = receiver().url
    sent = swarm_cli("a2a", "send", str(payload("picky", override_accepts_from=True)), "--to", url, "-f", "json")
    assert sent.exit_code == 1
    assert sent.json()["state"] == "rejected"
    assert sent.json()["error"]["code"] == "SOURCE_NOT_ACCEPTED"
    assert not list(hosts["inbox"].rglob("*.json"))
    text = swarm_cli("a2a", "send", str(payload("picky", override_accepts_from=True)), "--to", url)
    assert "SOURCE_NOT_ACCEPTED" in text.stdout


def test_an_unreachable_host_is_reported_undelivered_and_kept_in_the_history(hosts, payload, swarm_cli):
    url = f"http://127.0.0.1:{free_port()}/"
    sent = swarm_cli("a2a", "send", str(payload()), "--to", url, "--attempts", "2", "-f", "json")
    assert sent.exit_code == 1
    assert (sent.json()["state"], sent.json()["attempts"]) == ("undelivered", 2)
    assert sent.json()["error"]["code"] == "A2A_UNREACHABLE"
    (row,) = swarm_cli("a2a", "status", "--refresh", "-f", "json").json()["remote_tasks"]
    assert row["state"] == "undelivered"  # nothing to ask a host that never got it


def test_a_file_that_is_not_a_payload_is_refused_before_anything_is_sent(hosts, swarm_cli, tmp_path):
    junk = tmp_path / "junk.json"
    junk.write_text("{}", encoding="utf-8")
    sent = swarm_cli("a2a", "send", str(junk), "--to", f"http://127.0.0.1:{free_port()}/", "-f", "json")
    assert sent.exit_code == 1
    assert sent.json()["error"]["code"] == "A2A_NOT_A_PAYLOAD"


def test_the_token_comes_from_the_environment_or_a_file(hosts, receiver, payload, swarm_cli, tmp_path):
    url = receiver(auth=Auth("bearer", TOKEN)).url
    path = payload()
    without = swarm_cli("a2a", "send", str(path), "--to", url, "--attempts", "1", "-f", "json")
    assert without.exit_code == 1
    assert without.json()["delivered"] is False
    from_env = swarm_cli("a2a", "send", str(path), "--to", url, "-f", "json", env={TOKEN_ENV: TOKEN})
    assert from_env.json()["state"] == "working"
    from_file = swarm_cli(
        "a2a", "send", str(path), "--to", url, "--token-file", str(token_file(tmp_path)), "-f", "json"
    )
    assert from_file.json()["state"] == "working"


def test_an_api_key_is_sent_in_its_header(hosts, receiver, payload, swarm_cli):
    url = receiver(auth=Auth("api-key", TOKEN)).url
    sent = swarm_cli(
        "a2a", "send", str(payload()), "--to", url, "--auth-scheme", "api-key", "-f", "json", env={TOKEN_ENV: TOKEN}
    )
    assert sent.json()["state"] == "working"
    wrong = swarm_cli("a2a", "skills", url, "--auth-scheme", "nope", "-f", "json")
    assert wrong.exit_code == 2
    assert "--auth-scheme" in wrong.json()["error"]["message"]


def test_serve_beyond_loopback_without_a_token_is_refused(hosts, swarm_cli):
    served = swarm_cli("a2a", "serve", "--host", "0.0.0.0", "--port", "0", env={TOKEN_ENV: ""})
    assert served.exit_code == 1
    assert "A2A_AUTH_REQUIRED" in served.stderr


def test_serve_refuses_a_token_file_others_can_read(hosts, swarm_cli, tmp_path):
    loose = token_file(tmp_path, 0o644)
    served = swarm_cli("a2a", "serve", "--port", "0", "--token-file", str(loose))
    assert served.exit_code == 1
    assert "A2A_AUTH_SECRET" in served.stderr
    assert "chmod 600" in served.stderr


def test_serve_on_a_port_in_use_is_a_coded_error(hosts, swarm_cli):
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen(1)
        served = swarm_cli("a2a", "serve", "--port", str(taken.getsockname()[1]))
    assert served.exit_code == 1
    assert "A2A_BIND_FAILED" in served.stderr


@pytest.fixture
def serving(hosts: dict[str, Any]) -> Any:
    """`swarm-handoff a2a serve --port 0` in a process of its own; interrupted after the test if still running."""
    env = {**os.environ, "CLAUDE_CONFIG_DIR": str(hosts["root"] / "receiver-config")}
    env.pop(TOKEN_ENV, None)
    command = [sys.executable, "-c", "from swarm_handoff.cli.entry import main; main()"]
    proc = subprocess.Popen(
        [*command, "a2a", "serve", "--port", "0", "--session-root", str(hosts["inbox"])],
        cwd=hosts["project"],
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    yield proc
    if proc.poll() is None:
        proc.kill()
        proc.wait()


def test_serve_receives_what_send_sends_and_stops_on_interrupt(hosts, payload, swarm_cli, serving):
    assert serving.stderr is not None
    line = serving.stderr.readline()  # "a2a: receiving at URL for N skill(s): ...", or "" when it died
    assert line.startswith("a2a: receiving at http://127.0.0.1:"), line
    url = line.split()[3]
    assert "3 skill(s): alpha, beta, picky" in line
    assert {s["id"] for s in swarm_cli("a2a", "skills", url, "-f", "json").json()["skills"]} == {
        "alpha",
        "beta",
        "picky",
    }
    path = payload()
    sent = swarm_cli("a2a", "send", str(path), "--to", url, "-f", "json")
    assert sent.json()["state"] == "working"
    (written,) = hosts["inbox"].rglob("*.json")
    assert written.read_text(encoding="utf-8") == path.read_text(encoding="utf-8")
    serving.send_signal(signal.SIGINT)
    out, err = serving.communicate()
    assert serving.returncode == 0, err
    assert "Traceback" not in err
    assert out == f"stopped serving at {url}\n"


@pytest.mark.parametrize("name", ["missing.json", "a-folder"])
def test_a_payload_path_that_cannot_be_read_is_a_coded_error_naming_it(hosts, swarm_cli, tmp_path, name):
    (tmp_path / "a-folder").mkdir()
    path = tmp_path / name
    sent = swarm_cli("a2a", "send", str(path), "--to", f"http://127.0.0.1:{free_port()}/", "-f", "json")
    assert sent.exit_code == 1
    error = sent.json()["error"]
    assert error["code"] == "A2A_NOT_A_PAYLOAD"
    assert str(path) in error["message"]


def test_a_url_that_answers_without_a_card_is_a_remote_error_not_unreachable(hosts, receiver, swarm_cli):
    url = receiver().url + "no-agent-here/"
    found = swarm_cli("a2a", "skills", url, "-f", "json")
    assert found.exit_code == 1
    assert found.json()["error"]["code"] == "A2A_REMOTE_ERROR"
    assert url in found.json()["error"]["message"]


def test_refresh_keeps_the_last_state_of_a_host_that_is_down_and_says_so(hosts, receiver, payload, swarm_cli):
    built = receiver()
    sent = swarm_cli("a2a", "send", str(payload()), "--to", built.url, "-f", "json").json()
    built.stop()
    refreshed = swarm_cli("a2a", "status", "--refresh", "-f", "json")
    assert refreshed.exit_code == 1
    (row,) = refreshed.json()["remote_tasks"]
    assert (row["task_id"], row["state"]) == (sent["task_id"], "working")
    assert "A2A_UNREACHABLE" not in refreshed.stdout
    assert f"cannot reach {built.url}" in refreshed.stderr
    assert "state kept: working" in refreshed.stderr


def test_declaring_the_commands_does_not_import_the_a2a_sdk():
    # Every CLI run loads the plugin to add the `a2a` group: the SDK must wait until a command runs.
    code = (
        "import sys, swarm_handoff_a2a.plugin, swarm_handoff_a2a.commands; "
        "print(sorted(m for m in sys.modules if m == 'a2a' or m.startswith(('a2a.', 'uvicorn', 'httpx'))))"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert done.stdout.strip() == "[]"


def test_declaring_the_commands_does_not_import_their_bodies() -> None:
    # The hook runs on every command line (`--help` and `handoff` included): it registers the rows
    # only; the bodies and their documents are imported when an `a2a` command runs.
    script = (
        "import sys\n"
        "from swarm_handoff.plugins import get_host\n"
        "declared = get_host().operations()\n"
        "print(sorted(op.name for op in declared.operations if op.group == 'a2a'))\n"
        "print('swarm_handoff_a2a.commands' in sys.modules)\n"
    )
    out = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, check=True).stdout
    assert out.splitlines() == ["['a2a send', 'a2a serve', 'a2a skills', 'a2a status']", "False"]


def test_the_rows_do_not_import_the_token_comparison() -> None:
    # `hmac` (and OpenSSL's hashes) are for a serving receiver; `--help` should not load them.
    script = "import sys, swarm_handoff_a2a.operation_table\nprint('hmac' in sys.modules)\n"
    out = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "False"


def test_send_attempts_have_the_same_bound_as_the_environment_variable(hosts, payload, swarm_cli):
    """`--attempts` stops where SWARM_HANDOFF_A2A_ATTEMPTS does: a clear refusal, nothing sent or recorded."""
    from swarm_handoff_a2a.operation_table import MAX_ATTEMPTS

    url = f"http://127.0.0.1:{free_port()}/"
    sent = swarm_cli("a2a", "send", str(payload()), "--to", url, "--attempts", str(MAX_ATTEMPTS + 1))
    assert sent.exit_code == 2
    assert "--attempts" in sent.stderr
    assert f"1<=x<={MAX_ATTEMPTS}" in sent.stderr
    assert swarm_cli("a2a", "status", "-f", "json").json()["remote_tasks"] == []
