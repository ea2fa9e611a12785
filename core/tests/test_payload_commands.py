"""`validate`, `verify` and `convert` on files: nothing that is not a payload crashes them."""

from __future__ import annotations

import copy
import datetime as dt
import json
import os

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from swarm_handoff.errors import SwarmError
from swarm_handoff.payload.build3 import build_v3
from swarm_handoff.payload.convert import convert_payload
from swarm_handoff.payload.io import dump_payload
from swarm_handoff.payload.v2 import build_v2
from swarm_handoff.payload.validate import validate_file, validate_payload
from swarm_handoff.records import SkillRecord
from swarm_handoff.synthesis import parse_synthesis

TARGET = SkillRecord(name="lit-pm", scope="global", source="test", categories=("research",))
SYNTHESIS = parse_synthesis({"original_prompt": "Why?", "problem_type": "analytical", "synthesis_summary": "Because."})


@pytest.fixture
def v2_file(tmp_path):
    (tmp_path / "perspectives").mkdir()
    payload = build_v2(SYNTHESIS, TARGET, tmp_path)
    path = tmp_path / "handoff-payload.yaml"
    path.write_text(dump_payload(payload, path))
    return path


def test_verify_passes_a_fresh_payload_and_fails_a_changed_one(swarm_cli, swarm_host, v2_file):
    assert swarm_cli("verify", str(v2_file), "--format", "json").json()["ok"] is True
    v2_file.write_text(v2_file.read_text().replace("Because.", "Because!"))
    result = swarm_cli("verify", str(v2_file), "--format", "json")
    assert result.exit_code == 1
    error = result.json()["error"]
    assert error["code"] == "INTEGRITY_MISMATCH"
    assert error["recoverable"] is False
    assert error["details"]["validation_errors"][0].startswith("meta.payload_hash is")


def test_verify_survives_reformatting_but_not_expiry(swarm_cli, swarm_host, tmp_path):
    (tmp_path / "perspectives").mkdir()
    old = dt.datetime(2020, 1, 1, tzinfo=dt.timezone.utc)
    payload = build_v2(SYNTHESIS, TARGET, tmp_path, now=old)
    as_json = tmp_path / "old.json"
    as_json.write_text(json.dumps(payload, indent=7, sort_keys=True))  # reformatted and reordered
    result = swarm_cli("verify", str(as_json), "--format", "json")
    assert result.exit_code == 1
    error = result.json()["error"]
    assert error["code"] == "PAYLOAD_EXPIRED"
    assert error["details"]["verification"]["mismatches"] == []
    assert "expired at 2020-01-01T01:00:00Z" in error["message"]


def test_convert_writes_a_valid_v3_file_and_lists_drops(swarm_cli, swarm_host, v2_file, tmp_path):
    out = tmp_path / "out.json"
    result = swarm_cli("convert", str(v2_file), "--to", "3.0", "--output", str(out), "--format", "json")
    assert result.exit_code == 0, result.stdout
    assert result.json()["target_version"] == "3.0"
    assert swarm_cli("validate", str(out), "--format", "json").json()["valid"] is True
    assert swarm_cli("verify", str(out), "--format", "json").exit_code == 0
    back = swarm_cli("convert", str(out), "--to", "2.0", "--format", "json")
    assert "handoff.trace_id" in back.json()["dropped"]
    assert "warning: dropped handoff.trace_id" in back.stderr


def test_convert_refuses_what_the_matrix_calls_incompatible(swarm_cli, swarm_host, tmp_path):
    path = tmp_path / "p.json"
    path.write_text(json.dumps({"handoff": {"version": "1.2"}}))
    error = swarm_cli("convert", str(path), "--to", "3.0", "--format", "json").json()["error"]
    assert error["code"] == "SCHEMA_INCOMPATIBLE"
    assert "adapter layer" in error["message"]


ALIAS_BOMB = "a: &a [x, x, x, x, x, x, x, x, x]\n" + "".join(
    f"{chr(98 + i)}: &{chr(98 + i)} [*{chr(97 + i)}, *{chr(97 + i)}, *{chr(97 + i)}, *{chr(97 + i)}, *{chr(97 + i)}, "
    f"*{chr(97 + i)}, *{chr(97 + i)}, *{chr(97 + i)}, *{chr(97 + i)}]\n"
    for i in range(8)
)


@pytest.mark.parametrize(
    ("name", "content"),
    [
        ("empty.yaml", b""),
        ("list.yaml", b"- 1\n- 2\n"),
        ("binary.yaml", bytes(range(256))),
        ("bomb.yaml", ALIAS_BOMB.encode()),
        ("huge.yaml", b"a: " + b"x" * (5 * 1024 * 1024)),
        ("broken.json", b'{"handoff": '),
        ("deep.json", b"[" * 100_000 + b"]" * 100_000),
        ("deep.yaml", b"[" * 5_000 + b"]" * 5_000),
        ("scalar.yaml", b"42\n"),
        ("dup.yaml", b"handoff: {}\nhandoff: {}\n"),
    ],
)
def test_files_that_are_not_payloads_are_invalid_payload(swarm_cli, swarm_host, tmp_path, name, content):
    path = tmp_path / name
    path.write_bytes(content)
    result = swarm_cli("validate", str(path), "--format", "json")
    assert result.exit_code == 1
    assert result.json()["error"]["code"] == "INVALID_PAYLOAD"
    assert swarm_cli("verify", str(path), "--format", "json").json()["error"]["code"] == "INVALID_PAYLOAD"
    if name == "dup.yaml":
        assert result.json()["error"]["problems"][0]["code"] == "YAML_DUPLICATE_KEY"
    if name == "bomb.yaml":
        assert result.json()["error"]["problems"][0]["code"] == "YAML_TOO_MANY_NODES"


def test_a_missing_file_is_invalid_payload_too(swarm_cli, swarm_host, tmp_path):
    result = swarm_cli("validate", str(tmp_path / "nope.yaml"), "--format", "json")
    assert result.json()["error"]["code"] == "INVALID_PAYLOAD"


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(content=st.one_of(st.binary(max_size=300), st.text(max_size=300).map(str.encode)), json_ext=st.booleans())
def test_no_generated_file_crashes_validate(swarm_host, tmp_path, content, json_ext):
    path = tmp_path / ("fuzz.json" if json_ext else "fuzz.yaml")
    path.write_bytes(content)
    try:
        report = validate_file(path, swarm_host)
    except SwarmError as error:
        code = error.code
    else:
        code = "valid" if report.valid else "invalid"
    assert code in ("INVALID_PAYLOAD", "valid", "invalid")


leaves = st.one_of(
    st.none(), st.booleans(), st.integers(), st.floats(), st.text(max_size=10), st.just("2026-02-04T19:30:00Z")
)
trees = st.recursive(
    leaves,
    lambda inner: st.one_of(st.lists(inner, max_size=3), st.dictionaries(st.text(max_size=6), inner, max_size=3)),
)


def _paths(node, prefix=()):
    found = [prefix]
    if isinstance(node, dict):
        for key, value in node.items():
            found += _paths(value, (*prefix, key))
    elif isinstance(node, list):
        for index, value in enumerate(node):
            found += _paths(value, (*prefix, index))
    return found


def test_a_v3_chain_that_is_not_a_list_is_refused_by_name_when_converted_not_a_crash(swarm_host, tmp_path):
    """Found by the fuzz test below on the minimums run: `handoff_chain: true` crashed the 3.0->2.0 adapter."""
    mangled = copy.deepcopy(build_v3(SYNTHESIS, TARGET, tmp_path).payload)
    mangled["handoff"]["meta"]["handoff_chain"] = True
    with pytest.raises(SwarmError) as caught:
        convert_payload(mangled, "2.0", swarm_host)
    assert caught.value.code == "SCHEMA_INCOMPATIBLE"
    assert any("handoff_chain" in e for e in caught.value.details["validation_errors"])


@settings(
    max_examples=int(os.environ.get("FUZZ_EXAMPLES", "200")),
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture],
)
@given(data=st.data(), v3=st.booleans())
def test_no_mangled_payload_crashes_validate_or_convert(swarm_host, tmp_path, data, v3):
    base = build_v3(SYNTHESIS, TARGET, tmp_path).payload if v3 else build_v2(SYNTHESIS, TARGET, tmp_path)
    mangled = copy.deepcopy(base)
    for _ in range(data.draw(st.integers(1, 3))):
        path = data.draw(st.sampled_from(_paths(mangled)))
        if not path:
            mangled = data.draw(trees)
            continue
        parent = mangled
        try:
            for step in path[:-1]:
                parent = parent[step]
            parent[path[-1]] = data.draw(trees)
        except (KeyError, IndexError, TypeError):
            continue
    report = validate_payload(mangled, swarm_host)
    assert isinstance(report.valid, bool)
    if not report.valid:
        assert report.to_error().code in ("INVALID_PAYLOAD", "VALIDATION_FAILED")
    for to in ("2.0", "3.0"):
        try:
            code = convert_payload(mangled, to, swarm_host).target_version
        except SwarmError as error:
            code = error.code
        assert code in ("INVALID_PAYLOAD", "SCHEMA_INCOMPATIBLE", to)
