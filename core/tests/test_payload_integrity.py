"""Integrity that means something: types in the hash, side files covered, validate states it, ack refuses."""

from __future__ import annotations

import datetime as dt
import json

import pytest

from swarm_handoff.history import open_history
from swarm_handoff.payload.build3 import build_v3
from swarm_handoff.payload.canonical import NotCanonical, payload_hash, seal
from swarm_handoff.payload.integrity import check_files
from swarm_handoff.payload.io import dump_payload, write_atomic
from swarm_handoff.payload.v2 import build_v2
from swarm_handoff.records import SkillRecord
from swarm_handoff.synthesis import parse_synthesis

TARGET = SkillRecord(name="lit-pm", scope="global", source="test", categories=("research",))
SYNTHESIS = parse_synthesis({"original_prompt": "Why?", "problem_type": "analytical", "synthesis_summary": "Because."})
MANY = [{"theme": f"theme {i} " + "detail " * 20, "confidence_score": 5} for i in range(60)]


def test_the_canonical_form_of_existing_payloads_is_unchanged():
    # Pinned with the form as it was before non-text keys were refused: payloads written so far verify.
    payload = {
        "handoff": {
            "version": "2.0",
            "b": [1, "1", True, None, 1.5],
            "a": {"é": "ü"},
            "meta": {"payload_hash": "x", "payload_size_bytes": 3},
        }
    }
    assert payload_hash(payload) == "sha256:21c1be6c53ab34a8482b6bafe54a994c6d15b280025430e17e2ad98b50ea6132"


def test_keys_of_other_types_have_no_canonical_form():
    with pytest.raises(NotCanonical):
        payload_hash({"handoff": {1: "a", "meta": {}}})
    with pytest.raises(NotCanonical):
        payload_hash({"handoff": {"blob": b"x", "meta": {}}})


def test_values_of_different_types_hash_differently():
    hashes = {payload_hash({"handoff": {"v": value, "meta": {}}}) for value in (1, "1", True, 1.5, "1.5", None, "")}
    assert len(hashes) == 7


def test_int_and_text_keys_in_a_yaml_payload_are_invalid(swarm_cli, swarm_host, tmp_path):
    path = tmp_path / "keys.yaml"
    path.write_text("handoff:\n  version: '2.0'\n  x:\n    1: a\n    '1': b\n")
    for command in ("verify", "validate"):
        result = swarm_cli(command, str(path), "--format", "json")
        assert result.exit_code == 1
        error = result.json()["error"]
        assert error["code"] == "INVALID_PAYLOAD"
        assert error["problems"][0]["code"] == "KEY_NOT_TEXT"


@pytest.fixture
def v3_with_side_file(tmp_path):
    session = tmp_path / "session"
    (session / "perspectives").mkdir(parents=True)
    synthesis = parse_synthesis(
        {"original_prompt": "Why?", "problem_type": "analytical", "insights": {"convergent": MANY}}
    )
    built = build_v3(synthesis, TARGET, session)
    [(side_path, content)] = built.side_files
    write_atomic(side_path, dump_payload(content, side_path))
    path = side_path.with_name("payload.json")
    write_atomic(path, dump_payload(built.payload, path))
    return path, side_path


def test_the_side_file_checksum_is_recorded_and_covered_by_the_hash(v3_with_side_file, swarm_cli, swarm_host):
    path, side_path = v3_with_side_file
    payload = json.loads(path.read_text())
    [entry] = [f for f in payload["handoff"]["payload"]["references"]["files"] if f["path"] == str(side_path)]
    assert entry["checksum"].startswith("sha256:")
    [check] = check_files(payload, path)
    assert check.problem is None
    report = swarm_cli("verify", str(path), "--format", "json").json()
    assert report["ok"] is True
    assert report["files"][0]["ok"] is True


def test_a_changed_side_file_fails_verify_validate_and_ack(v3_with_side_file, swarm_cli, swarm_host):
    path, side_path = v3_with_side_file
    side_path.write_text(side_path.read_text().replace("theme 1 ", "theme X "))
    result = swarm_cli("verify", str(path), "--format", "json")
    assert result.exit_code == 1
    error = result.json()["error"]
    assert error["code"] == "INTEGRITY_MISMATCH"
    assert "checksum" in error["message"]
    validated = swarm_cli("validate", str(path), "--format", "json")
    assert validated.json()["integrity"] == "mismatch"
    acked = swarm_cli("ack", str(path), "--status", "success", "--format", "json")
    assert acked.exit_code == 1
    assert acked.json()["error"]["code"] == "INTEGRITY_MISMATCH"


def test_a_missing_side_file_fails_verify(v3_with_side_file, swarm_cli, swarm_host):
    path, side_path = v3_with_side_file
    side_path.unlink()
    result = swarm_cli("verify", str(path), "--format", "json")
    assert result.json()["error"]["code"] == "INTEGRITY_MISMATCH"
    assert "cannot read" in result.json()["error"]["message"]


def test_a_session_moved_as_a_whole_still_verifies(v3_with_side_file, swarm_cli, swarm_host, tmp_path):
    path, _side_path = v3_with_side_file
    moved = tmp_path / "elsewhere"
    path.parent.rename(moved)
    assert swarm_cli("verify", str(moved / path.name), "--format", "json").json()["ok"] is True


@pytest.fixture
def tampered(tmp_path):
    (tmp_path / "perspectives").mkdir()
    payload = build_v2(SYNTHESIS, TARGET, tmp_path)
    path = tmp_path / "handoff-payload.yaml"
    path.write_text(dump_payload(payload, path).replace("Because.", "Because, trust me."))
    return path


def test_validate_states_that_a_tampered_payload_fails_integrity(tampered, swarm_cli, swarm_host):
    result = swarm_cli("validate", str(tampered), "--format", "json")
    assert result.exit_code == 0  # the shape is valid ...
    report = result.json()
    assert report["valid"] is True
    assert report["integrity"] == "mismatch"  # ... and the report says the content is not what was written
    assert [w["code"] for w in report["warnings"]] == ["INTEGRITY_MISMATCH"]
    assert "INTEGRITY_MISMATCH" in result.stderr


def test_validate_states_integrity_ok_or_absent(tmp_path, swarm_cli, swarm_host):
    (tmp_path / "perspectives").mkdir()
    payload = build_v2(SYNTHESIS, TARGET, tmp_path)
    good = tmp_path / "good.yaml"
    good.write_text(dump_payload(payload, good))
    assert swarm_cli("validate", str(good), "--format", "json").json()["integrity"] == "ok"
    del payload["handoff"]["meta"]["payload_hash"], payload["handoff"]["meta"]["payload_size_bytes"]
    draft = tmp_path / "draft.yaml"
    draft.write_text(dump_payload(payload, draft))
    report = swarm_cli("validate", str(draft), "--format", "json").json()
    assert report["integrity"] == "absent"
    assert [w["code"] for w in report["warnings"]] == ["INTEGRITY_ABSENT"]


def test_ack_refuses_a_tampered_payload_and_records_nothing(tampered, swarm_cli, swarm_host, tmp_path, monkeypatch):
    config = tmp_path / "config"
    monkeypatch.setenv("CLAUDE_CONFIG_DIR", str(config))
    result = swarm_cli("ack", str(tampered), "--status", "success", "--format", "json")
    assert result.exit_code == 1
    error = result.json()["error"]
    assert error["code"] == "INTEGRITY_MISMATCH"
    assert error["recoverable"] is False
    with open_history(config) as history:
        assert history.list() == []


def test_ack_accepts_an_intact_payload_even_after_it_expired(tmp_path, swarm_cli, swarm_host):
    (tmp_path / "perspectives").mkdir()
    old = dt.datetime(2020, 1, 1, tzinfo=dt.timezone.utc)
    payload = seal(build_v2(SYNTHESIS, TARGET, tmp_path, now=old))
    path = tmp_path / "old.yaml"
    path.write_text(dump_payload(payload, path))
    result = swarm_cli("ack", str(path), "--status", "success", "--format", "json")
    assert result.exit_code == 0, result.stdout


# Issue 25, MEDIUM 6: one payload must not make verify hash the same big file thousands of times.


@pytest.fixture
def hashed(monkeypatch):
    """Count every file `integrity` hashes (by path), instead of timing anything."""
    from swarm_handoff.payload import integrity

    seen: list[str] = []
    real = integrity.file_checksum

    def counting(path, *args, **kwargs):
        seen.append(str(path))
        return real(path, *args, **kwargs)

    monkeypatch.setattr(integrity, "file_checksum", counting)
    return seen


def with_references(path, entries):
    """The payload at `path` with `entries` as its references, sealed again."""
    payload = json.loads(path.read_text())
    from swarm_handoff.payload.build3 import _count

    payload["handoff"]["payload"].setdefault("references", {})["files"] = entries
    for key in ("payload_hash", "payload_size_bytes"):
        payload["handoff"]["meta"].pop(key, None)
    _count(payload)
    path.write_text(json.dumps(seal(payload)))
    return path


def test_a_file_referenced_many_times_is_hashed_once(v3_with_side_file, swarm_cli, swarm_host, hashed):
    from swarm_handoff.payload.integrity import file_checksum

    path, side_path = v3_with_side_file
    entry = {"path": side_path.name, "checksum": file_checksum(side_path)}
    hashed.clear()
    with_references(path, [entry] * 12)
    result = swarm_cli("verify", str(path), "--format", "json")
    assert result.exit_code == 0, result.stdout
    assert hashed == [str(side_path)]
    assert len(result.json()["files"]) == 12  # each reference is still reported


def test_too_many_checked_references_are_refused_before_any_hashing(
    v3_with_side_file, swarm_cli, swarm_host, hashed, monkeypatch
):
    from swarm_handoff.payload import integrity

    monkeypatch.setattr(integrity, "MAX_CHECKED_REFERENCES", 3)  # the real bound is 64; the limit, not the size
    path, side_path = v3_with_side_file
    entry = {"path": side_path.name, "checksum": "sha256:" + "0" * 64}
    with_references(path, [entry] * 4)
    for command in ("verify", "validate", "ack"):
        args = ("--status", "success") if command == "ack" else ()
        result = swarm_cli(command, str(path), *args, "--format", "json")
        assert result.exit_code == 1, command
        error = result.json()["error"]
        assert error["code"] == "PAYLOAD_FILE_CHECKS_LIMIT", command
        assert str(path) in error["message"]
        assert "more than the 3 that are checked" in error["message"]
    assert hashed == []


def test_the_total_bytes_of_checked_files_are_bounded_before_hashing(
    v3_with_side_file, swarm_cli, swarm_host, hashed, monkeypatch, tmp_path
):
    from swarm_handoff.payload import integrity

    path, side_path = v3_with_side_file
    other = tmp_path / "other.bin"
    other.write_bytes(b"x" * 600)
    entries = [
        {"path": str(side_path), "description": "side", "checksum": integrity.file_checksum(side_path)},
        {"path": str(other), "description": "other", "checksum": integrity.file_checksum(other)},
    ]
    with_references(path, entries)
    hashed.clear()
    monkeypatch.setattr(integrity, "MAX_CHECKED_TOTAL_BYTES", side_path.stat().st_size + 599)
    result = swarm_cli("verify", str(path), "--format", "json")
    assert result.json()["error"]["code"] == "PAYLOAD_FILE_CHECKS_LIMIT"
    assert "bytes" in result.json()["error"]["message"]
    assert hashed == []
    monkeypatch.setattr(integrity, "MAX_CHECKED_TOTAL_BYTES", side_path.stat().st_size + 600)
    assert swarm_cli("verify", str(path)).exit_code == 0
    assert sorted(hashed) == sorted([str(side_path), str(other)])


def test_a_v2_payload_s_extra_references_are_not_hashed(tmp_path, swarm_cli, swarm_host, hashed):
    (tmp_path / "perspectives").mkdir()
    big = tmp_path / "big.bin"
    big.write_bytes(b"y" * 1000)
    payload = build_v2(SYNTHESIS, TARGET, tmp_path)
    entry = {"path": str(big), "checksum": "sha256:" + "1" * 64}
    payload["handoff"]["payload"] = {"references": {"files": [entry] * 500}}  # an ignored v2.0 extra field
    for key in ("payload_hash", "payload_size_bytes"):
        payload["handoff"]["meta"].pop(key, None)
    path = tmp_path / "v2.json"
    path.write_text(json.dumps(seal(payload)))
    swarm_cli("verify", str(path))
    assert hashed == []


def test_verify_validates_the_schema_before_hashing(v3_with_side_file, swarm_cli, swarm_host, hashed):
    path, _ = v3_with_side_file
    payload = json.loads(path.read_text())
    payload["handoff"]["context"]["problem_type"] = "gossip"
    for key in ("payload_hash", "payload_size_bytes"):
        payload["handoff"]["meta"].pop(key, None)
    path.write_text(json.dumps(seal(payload)))
    hashed.clear()
    result = swarm_cli("verify", str(path), "--format", "json")
    assert result.exit_code == 1
    error = result.json()["error"]
    assert error["code"] == "VALIDATION_FAILED"
    assert any("problem_type" in e for e in error["details"]["validation_errors"])
    assert hashed == []


def test_check_files_itself_refuses_more_than_the_real_bound_unhashed(tmp_path, hashed):
    """The bound holds for every caller, validated or not: 21,000 references to one file read nothing."""
    from swarm_handoff.errors import SwarmError
    from swarm_handoff.payload.integrity import MAX_CHECKED_REFERENCES

    (tmp_path / "f").write_bytes(b"z")
    entry = {"path": "f", "checksum": "sha256:" + "2" * 64}
    payload = {"handoff": {"version": "3.0", "payload": {"references": {"files": [entry] * 21000}}}}
    with pytest.raises(SwarmError) as caught:
        check_files(payload, tmp_path / "p.json")
    assert caught.value.code == "PAYLOAD_FILE_CHECKS_LIMIT"
    assert f"more than the {MAX_CHECKED_REFERENCES}" in caught.value.message
    assert hashed == []
    assert len(check_files({**payload, "handoff": {**payload["handoff"], "version": "2.0"}}, tmp_path)) == 0


def test_ack_refuses_a_payload_it_cannot_verify_and_records_nothing(tmp_path, swarm_cli, swarm_host, monkeypatch):
    """Issue 25: an acknowledgment feeds the rankers (registry-v3 among them), so only a verifiable payload counts."""
    config = tmp_path / "config"
    monkeypatch.setenv("CLAUDE_CONFIG_DIR", str(config))
    (tmp_path / "perspectives").mkdir()
    payload = build_v2(SYNTHESIS, TARGET, tmp_path)
    for key in ("payload_hash", "payload_size_bytes"):
        payload["handoff"]["meta"].pop(key)
    path = tmp_path / "unsealed.json"
    path.write_text(json.dumps(payload))
    result = swarm_cli("ack", str(path), "--status", "success", "--format", "json")
    assert result.exit_code == 1
    error = result.json()["error"]
    assert error["code"] == "ACK_UNVERIFIABLE"
    assert str(path) in error["message"]
    with open_history(config) as history:
        assert history.list() == []
        assert history.success_counts() == {}
    invalid = tmp_path / "invalid.json"
    payload["handoff"]["context"]["problem_type"] = "gossip"
    invalid.write_text(json.dumps(seal(payload)))
    refused = swarm_cli("ack", str(invalid), "--status", "success", "--format", "json").json()["error"]
    assert refused["code"] == "VALIDATION_FAILED"  # verified first: the shape, then the hash


# Review of issue 25: a file whose stat size is 0 but which yields data (/proc/self/pagemap) must not
# make a reader hash without end; files under /proc, /sys and /dev are never read.


def test_a_reference_under_proc_is_refused_unread(v3_with_side_file, swarm_cli, swarm_host, hashed):
    path, _ = v3_with_side_file
    with_references(path, [{"path": "/proc/self/status", "description": "x", "checksum": "sha256:" + "0" * 64}])
    hashed.clear()
    for command in ("verify", "ack"):
        args = ("--status", "success") if command == "ack" else ()
        result = swarm_cli(command, str(path), *args, "--format", "json")
        assert result.exit_code == 1, command
        error = result.json()["error"]
        assert error["code"] == "INTEGRITY_MISMATCH", command
        assert "/proc" in error["message"], command
        assert "not read" in error["message"], command
    assert swarm_cli("validate", str(path), "--format", "json").json()["integrity"] == "mismatch"
    assert hashed == []


def test_a_file_holding_more_than_its_stat_size_fails_its_check(v3_with_side_file, monkeypatch, tmp_path):
    from swarm_handoff.payload import integrity

    path, _ = v3_with_side_file
    grows = tmp_path / "grows.bin"
    grows.write_bytes(b"z" * 4096)
    real_fstat = integrity.os.fstat

    def size_zero(fd):
        info = real_fstat(fd)
        return integrity.os.stat_result((*info[:6], 0, *info[7:10]))  # st_size 0, like /proc/self/pagemap

    monkeypatch.setattr(integrity.os, "fstat", size_zero)
    payload = json.loads(path.read_text())
    payload["handoff"]["payload"]["references"]["files"] = [{"path": str(grows), "checksum": "sha256:" + "0" * 64}]
    [check] = check_files(payload, path)
    assert check.computed is None
    assert "more bytes than" in check.problem


def test_bytes_read_count_against_the_total(v3_with_side_file, monkeypatch, tmp_path):
    from swarm_handoff.payload import integrity

    path, _ = v3_with_side_file
    a, b = tmp_path / "a.bin", tmp_path / "b.bin"
    a.write_bytes(b"a" * 100)
    b.write_bytes(b"b" * 100)
    monkeypatch.setattr(integrity, "MAX_CHECKED_TOTAL_BYTES", 150)
    monkeypatch.setattr(integrity, "_identity", lambda p: (str(p), 0))  # stat says nothing (size 0)
    payload = json.loads(path.read_text())
    payload["handoff"]["payload"]["references"]["files"] = [
        {"path": str(a), "checksum": integrity.file_checksum(a)},
        {"path": str(b), "checksum": integrity.file_checksum(b)},
    ]
    first, second = check_files(payload, path)
    assert first.problem is None
    assert second.computed is None
    assert "more bytes than" in second.problem
