"""`handoff --sign` and `verify`'s signature verdict: valid, invalid or absent; the key's creation and safety."""

from __future__ import annotations

import json
import os
import stat
import threading

import pytest

from swarm_handoff.errors import SwarmError
from swarm_handoff.payload.canonical import seal
from swarm_handoff.payload.io import dump_payload
from swarm_handoff.payload.signing import (
    SIGNING_KEY_UNSAFE,
    check_signature,
    key_path,
    load_or_create_key,
    read_key,
    sign,
)
from swarm_handoff.payload.v2 import build_v2
from swarm_handoff.records import SkillRecord
from swarm_handoff.synthesis import parse_synthesis

TARGET = SkillRecord(name="lit-pm", scope="global", source="test", categories=("research",))
SYNTHESIS = parse_synthesis({"original_prompt": "Why?", "problem_type": "analytical", "synthesis_summary": "Because."})


@pytest.fixture
def config(tmp_path, monkeypatch):
    folder = tmp_path / "config"
    monkeypatch.setenv("CLAUDE_CONFIG_DIR", str(folder))
    return folder


@pytest.fixture
def world(handoff_world):
    paths = handoff_world([TARGET], "original_prompt: Why?\nproblem_type: analytical\nsynthesis_summary: Because.\n")
    return paths["session"], paths["synthesis"]


def hand_off(swarm_cli, world, *extra):
    session, synthesis = world
    args = ("handoff", "lit-pm", "--synthesis", str(synthesis), "--session", str(session), *extra)
    result = swarm_cli(*args, "--format", "json")
    assert result.exit_code == 0, result.stdout + result.stderr
    return result.json()


@pytest.mark.parametrize("schema", ["2.0", "3.0"])
def test_handoff_sign_gives_a_valid_signature_and_a_0600_key(swarm_cli, world, config, schema):
    out = hand_off(swarm_cli, world, "--sign", "--schema", schema)
    report = swarm_cli("verify", out["payload_path"], "--format", "json").json()
    assert report["ok"] is True
    assert report["signature"] == "valid"
    assert stat.S_IMODE(key_path(config).stat().st_mode) == 0o600
    assert stat.S_IMODE(key_path(config).parent.stat().st_mode) & 0o077 == 0


def test_an_unsigned_payload_reports_absent(swarm_cli, world, config):
    out = hand_off(swarm_cli, world)
    assert swarm_cli("verify", out["payload_path"], "--format", "json").json()["signature"] == "absent"
    assert not key_path(config).exists()  # verify never makes a key


def test_an_edit_with_a_recomputed_hash_is_caught_by_the_signature(swarm_cli, world, config):
    out = hand_off(swarm_cli, world, "--sign", "--schema", "3.0")
    path = out["payload_path"]
    with open(path) as handle:
        payload = json.load(handle)
    payload["handoff"]["target"]["skill"] = "evil-skill"
    resealed = seal(payload)  # the attacker recomputes hash and size
    with open(path, "w") as handle:
        json.dump(resealed, handle)
    result = swarm_cli("verify", path, "--format", "json")
    assert result.exit_code == 1
    error = result.json()["error"]
    assert error["code"] == "SIGNATURE_INVALID"
    assert error["details"]["verification"]["signature"] == "invalid"
    assert "changed after signing" in error["message"]
    acked = swarm_cli("ack", path, "--status", "success", "--format", "json")
    assert acked.json()["error"]["code"] == "INTEGRITY_MISMATCH"


def test_a_signature_made_with_another_key_is_invalid(tmp_path, config):
    (tmp_path / "perspectives").mkdir()
    payload = sign(build_v2(SYNTHESIS, TARGET, tmp_path), tmp_path / "someone-else")
    verdict = check_signature(payload, config)
    assert verdict.status == "invalid"
    assert "no signing key" in (verdict.reason or "")
    load_or_create_key(config)
    verdict = check_signature(payload, config)
    assert verdict.status == "invalid"
    assert "another key" in (verdict.reason or "")


def test_the_signature_does_not_change_the_hash_or_the_token_count(tmp_path, config):
    (tmp_path / "perspectives").mkdir()
    payload = build_v2(SYNTHESIS, TARGET, tmp_path)
    signed = sign(payload, config)
    assert signed["handoff"]["meta"]["payload_hash"] == payload["handoff"]["meta"]["payload_hash"]
    assert signed["handoff"]["meta"]["signature"].startswith("hmac-sha256:")
    path = tmp_path / "p.yaml"
    path.write_text(dump_payload(signed, path))
    from swarm_handoff.payload.verify import verify_file

    assert verify_file(path, config=config).signature == "valid"


def test_first_uses_at_once_agree_on_one_key(config):
    keys: list[bytes] = []
    barrier = threading.Barrier(8)

    def first_use() -> None:
        barrier.wait()
        keys.append(load_or_create_key(config))

    threads = [threading.Thread(target=first_use) for _ in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=60)
    assert len(keys) == 8
    assert len(set(keys)) == 1
    assert [p.name for p in key_path(config).parent.iterdir()] == ["signing.key"]  # no temporary file left


def test_a_key_others_can_read_is_refused(config):
    load_or_create_key(config)
    os.chmod(key_path(config), 0o644)
    with pytest.raises(SwarmError) as caught:
        read_key(config)
    assert caught.value.code == SIGNING_KEY_UNSAFE


def test_a_symlinked_key_is_refused(config, tmp_path):
    planted = tmp_path / "planted.key"
    planted.write_text("00" * 32)
    planted.chmod(0o600)
    key_path(config).parent.mkdir(parents=True)
    key_path(config).symlink_to(planted)
    with pytest.raises(SwarmError) as caught:
        load_or_create_key(config)
    assert caught.value.code == SIGNING_KEY_UNSAFE


def test_a_config_folder_that_cannot_hold_a_key_preserves_the_payload(swarm_cli, world, tmp_path, monkeypatch):
    blocked = tmp_path / "blocked"
    blocked.write_text("a file where the config folder should be")
    monkeypatch.setenv("CLAUDE_CONFIG_DIR", str(blocked))
    session, synthesis = world
    args = ("handoff", "lit-pm", "--sign", "--synthesis", str(synthesis), "--session", str(session))
    result = swarm_cli(*args, "--format", "json")
    assert result.exit_code == 1
    error = result.json()["error"]
    assert error["code"] == "SIGNING_KEY_UNAVAILABLE"
    assert error["payload_preserved"]


def test_require_signature_fails_a_stripped_signature(swarm_cli, world, config):
    out = hand_off(swarm_cli, world, "--sign", "--schema", "3.0")
    path = out["payload_path"]
    with open(path) as handle:
        payload = json.load(handle)
    del payload["handoff"]["meta"]["signature"]
    with open(path, "w") as handle:
        json.dump(seal(payload), handle)
    assert swarm_cli("verify", path, "--format", "json").json()["signature"] == "absent"  # optional by default
    result = swarm_cli("verify", path, "--require-signature", "--format", "json")
    assert result.exit_code == 1
    assert result.json()["error"]["code"] == "SIGNATURE_INVALID"
    assert "absent" in result.json()["error"]["message"]


def test_convert_drops_the_signature_and_says_so(tmp_path, config, swarm_host):
    from swarm_handoff.payload.convert import convert_payload

    (tmp_path / "perspectives").mkdir()
    signed = sign(build_v2(SYNTHESIS, TARGET, tmp_path), config)
    result = convert_payload(signed, "3.0", swarm_host)
    assert "signature" not in result.payload["handoff"]["meta"]
    assert any("signature" in field for field in result.dropped)


def test_a_payload_signed_with_another_key_is_not_called_changed(swarm_cli, world, config, tmp_path):
    """Issue 26: verify, ack and handoff --from said "a changed payload" of one signed by another user's key."""
    from pathlib import Path

    from swarm_handoff.payload.io import load_payload_file

    out = hand_off(swarm_cli, world, "--sign")
    path = out["payload_path"]
    payload = load_payload_file(Path(path))
    del payload["handoff"]["meta"]["signature"]
    resigned = sign(seal(payload), tmp_path / "other-user")  # intact, signed by someone else's key
    Path(path).write_text(dump_payload(resigned, Path(path)))
    for args in (("verify", path), ("ack", path, "--status", "received")):
        error = swarm_cli(*args, "--format", "json").json()["error"]
        assert "another key" in error["message"], error
        assert "changed" not in error["hint"], error["hint"]
        assert "key" in error["hint"], error["hint"]
    session, _ = world
    onward = swarm_cli("handoff", "lit-pm", "--from", path, "--session", str(session), "--format", "json", "-y")
    error = onward.json()["error"]
    assert "changed" not in error["hint"], error["hint"]
    assert "key" in error["hint"]


def test_a_signature_that_does_not_match_with_our_key_still_says_changed(swarm_cli, world, config):
    out = hand_off(swarm_cli, world, "--sign", "--schema", "3.0")
    path = out["payload_path"]
    with open(path) as handle:
        payload = json.load(handle)
    payload["handoff"]["target"]["skill"] = "evil-skill"
    with open(path, "w") as handle:
        json.dump(seal(payload), handle)
    error = swarm_cli("verify", path, "--format", "json").json()["error"]
    assert "changed" in error["hint"]


@pytest.mark.parametrize("suffix", [".yaml", ".json"])
def test_a_signed_file_is_read_once_its_bytes_as_parsed_are_the_ones_compared(tmp_path, config, monkeypatch, suffix):
    from swarm_handoff import textfile
    from swarm_handoff.payload.verify import verify_file

    (tmp_path / "perspectives").mkdir()
    path = tmp_path / f"p{suffix}"
    path.write_text(dump_payload(sign(build_v2(SYNTHESIS, TARGET, tmp_path), config), path))
    reads: list[str] = []
    real = textfile.read_regular

    def counting(where, *args, **kwargs):
        reads.append(str(where))
        return real(where, *args, **kwargs)

    monkeypatch.setattr(textfile, "read_regular", counting)
    assert verify_file(path, config=config).signature == "valid"
    assert reads.count(str(path)) == 1  # loaded once; the byte-for-byte check uses that text


def test_a_required_signature_is_named_by_its_input_and_spelt_as_the_option(swarm_cli, world, config):
    """verify and ack name `require_signature` neutrally (`details.inputs`); the command line spells it."""
    path = hand_off(swarm_cli, world)["payload_path"]  # unsigned
    error = swarm_cli("verify", path, "--require-signature", "--format", "json").json()["error"]
    assert error["code"] == "SIGNATURE_INVALID"
    assert error["details"]["inputs"] == ["require_signature"]
    assert "(--require-signature)" in error["message"]
    assert any("(--require-signature)" in m for m in error["details"]["verification"]["mismatches"])
    assert "\ue000" not in json.dumps(error, ensure_ascii=False)  # no marker left, nested details included
    args = ("ack", path, "--status", "received", "--require-signature", "--format", "json")
    error = swarm_cli(*args).json()["error"]
    assert error["details"]["inputs"] == ["require_signature"]
    assert "pass --no-require-signature" in error["hint"]
