"""The `handoff` tool takes every option the CLI's `handoff` has, with the same checks and codes."""

from __future__ import annotations

import inspect
import re
from pathlib import Path
from typing import Any

import pytest

from swarm_handoff.api import HandoffOptions, SwarmError, load_payload, record_from_frontmatter
from swarm_handoff_mcp.calls import handoff_tool
from swarm_handoff_mcp.server import _name_override
from swarm_handoff_mcp.tools import Call, check_arguments, tool_specs

SYNTHESIS = {"original_prompt": "Review it.", "problem_type": "analytical", "synthesis_summary": "Review."}
# HandoffOptions fields the tool names differently (the CLI's --from is a Python keyword there too).
RENAMED = {"received": "from_payload"}


@pytest.fixture
def host(swarm_host: Any, register_source: Any, monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Any:
    handoff = {
        "accepts_handoff": True,
        "handoff_categories": ["review"],
        "handoff_description": "Reviews what the planner hands it.",
        "accepts_from": ["planner"],
    }
    picky = record_from_frontmatter(
        {"description": "Reviews.", "handoff": handoff}, name="picky", scope="project", source="t", path=None
    )
    register_source("mcp-parity", (picky,))
    monkeypatch.setenv("CLAUDE_CONFIG_DIR", str(tmp_path / "config"))
    return swarm_host


def handoff(host: Any, session: Path, **extra: Any) -> Any:
    spec = next(s for s in tool_specs() if s.name == "handoff")
    args = check_arguments(spec, {"target": "picky", "synthesis": SYNTHESIS, "session": str(session), **extra})
    return handoff_tool(Call(args, host))


def test_every_option_of_the_python_api_is_a_tool_argument() -> None:
    # The CLI's `handoff` fills HandoffOptions field by field; a field the tool lacks is a CLI-only option.
    spec = next(s for s in tool_specs() if s.name == "handoff")
    fields = {RENAMED.get(name, name) for name in inspect.signature(HandoffOptions).parameters}
    assert fields - set(spec.schema["properties"]) == set()


def test_feedback_lands_in_the_payload_as_with_the_cli(host: Any, tmp_path: Path) -> None:
    result = handoff(host, tmp_path, source="planner", feedback="Keep it short.")
    payload = load_payload(Path(result.to_data()["payload_path"]))
    assert payload["handoff"]["payload"]["working"]["user_feedback"] == "Keep it short."  # v3.0: the working tier


def test_feedback_is_bounded_and_text(host: Any, tmp_path: Path) -> None:
    spec = next(s for s in tool_specs() if s.name == "handoff")
    for bad in (7, "x" * 5000):
        with pytest.raises(SwarmError) as caught:
            check_arguments(spec, {"target": "picky", "session": str(tmp_path), "feedback": bad})
        assert caught.value.code == "USAGE"


def test_a_source_the_target_does_not_accept_names_the_tool_argument(host: Any, tmp_path: Path) -> None:
    with pytest.raises(SwarmError) as caught:
        handoff(host, tmp_path, source="stranger")
    error = _name_override(caught.value, "handoff")
    assert error.code == "SOURCE_NOT_ACCEPTED"
    assert error.details["override_argument"] == "override_accepts_from"
    assert "override_accepts_from=true" in (error.hint or "")
    assert "--override-accepts-from" not in (error.hint or "")


def test_override_accepts_from_hands_off_and_is_recorded(host: Any, tmp_path: Path) -> None:
    result = handoff(host, tmp_path, source="stranger", override_accepts_from=True)
    payload = load_payload(Path(result.to_data()["payload_path"]))
    override = payload["handoff"]["meta"]["eligibility_override"]
    assert (override["source"], override["accepts_from"]) == ("stranger", ["planner"])


def test_an_override_over_mcp_records_the_tool_argument_not_the_cli_option(host: Any, tmp_path: Path) -> None:
    """The payload and the history say which override was used: `override_accepts_from`, as the agent gave it."""
    from swarm_handoff.api import config_dir, open_history

    result = handoff(host, tmp_path, source="stranger", override_accepts_from=True)
    payload = load_payload(Path(result.to_data()["payload_path"]))
    assert payload["handoff"]["meta"]["eligibility_override"]["option"] == "override_accepts_from"
    assert any(note.endswith("handed off with override_accepts_from") for note in result.to_data()["notes"])
    with open_history(config_dir()) as history:
        row = history.list()[0]
    assert row.eligibility_override is not None
    assert row.eligibility_override.endswith("via override_accepts_from")


def test_the_chain_is_trimmed_as_the_cli_trims_it(host: Any, tmp_path: Path) -> None:
    """`chain: [" planner ", ""]` is what `--chain " planner , "` says: one entry, `planner`."""
    result = handoff(host, tmp_path, source="planner", chain=[" planner ", "", "  "])
    payload = load_payload(Path(result.to_data()["payload_path"]))
    assert payload["handoff"]["meta"]["handoff_chain"] == ["planner"]


@pytest.mark.parametrize(("entry", "why"), [("planner,reviewer", "a comma"), ("plan\x1bner", "a control character")])
def test_a_chain_entry_no_skill_can_be_named_is_refused_naming_the_argument(
    host: Any, tmp_path: Path, entry: str, why: str
) -> None:
    with pytest.raises(SwarmError) as caught:
        handoff(host, tmp_path, source="planner", chain=[entry])
    assert caught.value.code == "USAGE"
    assert caught.value.message.startswith("chain: ")
    assert why in caught.value.message
    assert list(tmp_path.iterdir()) == []  # refused before anything was written


def test_the_rank_tool_reads_the_chain_through_the_same_function(host: Any) -> None:
    from swarm_handoff_mcp.calls import rank_tool

    spec = next(s for s in tool_specs() if s.name == "rank")
    args = check_arguments(spec, {"synthesis": SYNTHESIS, "chain": [" planner ", ""], "source": "planner"})
    assert rank_tool(Call(args, host)).to_data()["request"]["chain"] == ["planner"]  # not planner twice
    bad = check_arguments(spec, {"synthesis": SYNTHESIS, "chain": ["planner,reviewer"]})
    with pytest.raises(SwarmError) as caught:
        rank_tool(Call(bad, host))
    assert caught.value.code == "USAGE"


def test_expires_in_sets_the_expiry_as_the_clis_option_does(host: Any, tmp_path: Path) -> None:
    import datetime as dt

    result = handoff(host, tmp_path, source="planner", expires_in="3h")
    made = load_payload(Path(result.to_data()["payload_path"]))["handoff"]
    start, end = (dt.datetime.fromisoformat(made[k].replace("Z", "+00:00")) for k in ("timestamp", "expires_at"))
    assert end - start == dt.timedelta(hours=3)
    for bad in ("soon", "40d"):
        with pytest.raises(SwarmError) as caught:
            handoff(host, tmp_path, source="planner", expires_in=bad)
        assert caught.value.code == "USAGE"
        assert "expires_in" in caught.value.message


@pytest.mark.parametrize(
    ("argument", "value", "said"),
    [
        ("feedback", None, "feedback must be string, not null"),
        ("feedback", 7, "feedback must be string, not integer"),
        ("feedback", 7.5, "feedback must be string, not number"),
        ("sign", "yes", "sign must be boolean, not string"),
        ("chain", {"a": 1}, "chain must be array, not object"),
        ("synthesis", ["x"], "not array"),
    ],
)
def test_type_errors_name_json_types_not_python_ones(tmp_path: Path, argument: str, value: Any, said: str) -> None:
    spec = next(s for s in tool_specs() if s.name == "handoff")
    with pytest.raises(SwarmError) as caught:
        check_arguments(spec, {"target": "picky", "session": str(tmp_path), argument: value})
    assert said in caught.value.message
    for python_name in ("NoneType", "str", "int", "float", "dict", "list", "bool"):
        assert not re.search(rf"\bnot {python_name}\b", caught.value.message), caught.value.message


def test_a_stripped_signature_is_refused_by_handoff_and_ack_naming_the_tool_argument(host: Any, tmp_path: Path) -> None:
    """Issue 25: with a signing key, `from_payload` and `ack` require a signature unless told otherwise."""
    import json

    from swarm_handoff.testing import reseal as seal
    from swarm_handoff_mcp.calls import ack_tool

    signed = Path(handoff(host, tmp_path, source="planner", sign=True).to_data()["payload_path"])
    data = load_payload(signed)
    data["handoff"]["context"]["summary"] = "Forged."
    for key in ("signature", "payload_hash", "payload_size_bytes"):
        data["handoff"]["meta"].pop(key)
    signed.write_text(json.dumps(seal(data)))
    with pytest.raises(SwarmError) as caught:
        handoff(host, tmp_path, from_payload=str(signed))
    assert caught.value.code == "RECEIVED_PAYLOAD_UNSIGNED"
    assert "require_signature=false" in (caught.value.hint or "")
    spec = next(s for s in tool_specs() if s.name == "ack")
    with pytest.raises(SwarmError) as caught:
        ack_tool(Call(check_arguments(spec, {"path": str(signed), "status": "success"}), host))
    assert caught.value.code == "SIGNATURE_INVALID"
    assert "require_signature=false" in (caught.value.hint or "")
    args = check_arguments(spec, {"path": str(signed), "status": "success", "require_signature": False})
    assert ack_tool(Call(args, host)).to_data()["handoff"]["status"] == "success"


def test_arguments_nested_deeper_than_the_bound_are_refused_before_any_work(host: Any, tmp_path: Path) -> None:
    """Issue 25: the argument depth is checked with the other argument limits, naming the argument."""
    from swarm_handoff_mcp.arguments import MAX_ARGUMENT_DEPTH

    at_bound: dict[str, Any] = {}
    for _ in range(MAX_ARGUMENT_DEPTH - 1):
        at_bound = {"a": at_bound}  # {} is one level: this is MAX_ARGUMENT_DEPTH levels
    spec = next(s for s in tool_specs() if s.name == "handoff")
    with pytest.raises(SwarmError) as caught:
        check_arguments(spec, {"target": "picky", "session": str(tmp_path), "synthesis": {"a": at_bound}})
    assert caught.value.code == "USAGE"
    assert f"synthesis is nested more than {MAX_ARGUMENT_DEPTH} deep" in caught.value.message
    check_arguments(spec, {"target": "picky", "session": str(tmp_path), "synthesis": at_bound})  # at the bound


def test_an_argument_with_more_values_than_a_document_may_hold_is_refused_naming_it(tmp_path: Path) -> None:
    """The argument check applies the core's limits on loaded data: a synthesis file could not hold this either."""
    spec = next(s for s in tool_specs() if s.name == "handoff")
    crowded = {"many": [0] * 200_001}  # well under the byte bound as JSON, over the value count
    with pytest.raises(SwarmError) as caught:
        check_arguments(spec, {"target": "picky", "session": str(tmp_path), "synthesis": crowded})
    assert caught.value.code == "USAGE"
    assert "synthesis: the document expands to more than" in caught.value.message
