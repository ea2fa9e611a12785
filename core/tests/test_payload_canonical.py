"""The canonical form: stable under re-serialising and reordering, broken by any change of value."""

from __future__ import annotations

import copy
import datetime as dt
import json
from pathlib import Path
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from swarm_handoff.payload.canonical import canonical_bytes, check_integrity, payload_hash, seal
from swarm_handoff.payload.io import dump_payload, parse_payload_text

SAMPLE = {
    "handoff": {
        "version": "2.0",
        "timestamp": "2026-02-04T19:30:00Z",
        "context": {"original_prompt": "Grow in Europe?", "problem_type": "strategic"},
        "insights": {"convergent": [{"theme": "growth", "confidence_score": 7.2}]},
        "meta": {"perspectives_completed": 5, "handoff_chain": ["perspective-swarm"]},
    }
}


def test_hash_has_the_sha256_prefix_and_ignores_its_own_fields():
    sealed = seal(SAMPLE)
    meta = sealed["handoff"]["meta"]
    assert meta["payload_hash"].startswith("sha256:")
    assert len(meta["payload_hash"]) == 71
    assert meta["payload_size_bytes"] == len(canonical_bytes(SAMPLE))
    assert payload_hash(sealed) == payload_hash(SAMPLE) == meta["payload_hash"]
    assert check_integrity(sealed).ok
    assert "payload_hash" not in SAMPLE["handoff"]["meta"]  # seal copies


def test_canonical_form_is_sorted_compact_utf8():
    assert canonical_bytes({"b": 1, "a": "é"}) == '{"a":"é","b":1}'.encode()


def test_yaml_reformatting_and_json_round_trip_keep_the_hash():
    sealed = seal(SAMPLE)
    as_json = json.dumps(sealed, indent=4)
    hash_, size = sealed["handoff"]["meta"]["payload_hash"], sealed["handoff"]["meta"]["payload_size_bytes"]
    yaml_text = f"""
handoff:
  meta: {{handoff_chain: [perspective-swarm], perspectives_completed: 5,
         payload_hash: "{hash_}", payload_size_bytes: {size}}}
  timestamp: 2026-02-04T19:30:00Z   # unquoted: a YAML timestamp, kept as written
  version: "2.0"
  insights:
    convergent:
    - confidence_score: 7.2
      theme: growth
  context:
    problem_type: strategic
    original_prompt: "Grow in Europe?"
"""
    assert check_integrity(parse_payload_text(as_json, json_text=True)).ok
    assert check_integrity(parse_payload_text(yaml_text)).ok


def test_datetime_objects_hash_like_the_text_the_writer_uses():
    as_object = copy.deepcopy(SAMPLE)
    as_object["handoff"]["timestamp"] = dt.datetime(2026, 2, 4, 19, 30, tzinfo=dt.timezone.utc)
    assert payload_hash(as_object) == payload_hash(SAMPLE)


def test_a_missing_or_wrong_size_is_reported():
    sealed = seal(SAMPLE)
    sealed["handoff"]["meta"]["payload_size_bytes"] = 3
    assert [m.split(" is ")[0] for m in check_integrity(sealed).mismatches()] == ["meta.payload_size_bytes"]
    del sealed["handoff"]["meta"]["payload_hash"]
    assert "meta.payload_hash is missing" in check_integrity(sealed).mismatches()


# -- properties -------------------------------------------------------------------------------------

scalars = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(-(10**12), 10**12),
    st.floats(allow_nan=False, allow_infinity=False),
    st.text(max_size=20),
)
values = st.recursive(
    scalars,
    lambda inner: st.one_of(st.lists(inner, max_size=4), st.dictionaries(st.text(max_size=8), inner, max_size=4)),
    max_leaves=25,
)
payloads = st.dictionaries(st.text(max_size=8), values, max_size=6).map(
    lambda body: {"handoff": {**body, "meta": body["meta"] if isinstance(body.get("meta"), dict) else {}}}
)


def _paths(node: Any, prefix: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
    found = [prefix] if prefix else []
    if isinstance(node, dict):
        for key, value in node.items():
            found += _paths(value, (*prefix, key))
    elif isinstance(node, list):
        for index, value in enumerate(node):
            found += _paths(value, (*prefix, index))
    return found


def _same(a: Any, b: Any) -> bool:
    """Equal as JSON sees it: 1, 1.0 and True are three different values."""
    return json.dumps(a, sort_keys=True) == json.dumps(b, sort_keys=True)


@settings(max_examples=150, deadline=None)
@given(payloads, st.data())
def test_any_change_to_any_value_breaks_verification(payload, data):
    sealed = seal(payload)
    paths = [p for p in _paths(sealed) if p[:3] != ("handoff", "meta", "payload_hash")]
    paths = [p for p in paths if p[:3] != ("handoff", "meta", "payload_size_bytes")]
    path = data.draw(st.sampled_from(paths))
    tampered = copy.deepcopy(sealed)
    parent = tampered
    for step in path[:-1]:
        parent = parent[step]
    action = data.draw(st.sampled_from(["replace", "delete", "add"]))
    if action == "replace":
        new = data.draw(values.filter(lambda v: not _same(v, parent[path[-1]])))
        parent[path[-1]] = new
    elif action == "delete":
        del parent[path[-1]]
    else:
        target = parent[path[-1]]
        if isinstance(target, dict):
            key = data.draw(st.text(max_size=8).filter(lambda k: k not in target))
            target[key] = data.draw(values)
        elif isinstance(target, list):
            target.insert(data.draw(st.integers(0, len(target))), data.draw(values))
        else:
            parent[path[-1]] = [target]
    assert not check_integrity(tampered).ok


@settings(max_examples=60, deadline=None)
@given(payloads, st.randoms(use_true_random=False))
def test_reordering_keys_and_reserialising_keeps_the_hash(payload, rnd):
    sealed = seal(payload)

    def shuffle(node: Any) -> Any:
        if isinstance(node, dict):
            items = list(node.items())
            rnd.shuffle(items)
            return {k: shuffle(v) for k, v in items}
        if isinstance(node, list):
            return [shuffle(v) for v in node]
        return node

    shuffled = shuffle(sealed)
    assert check_integrity(shuffled).ok
    assert check_integrity(json.loads(json.dumps(shuffled, indent=1))).ok
    # what the writer produces (YAML, or JSON-as-YAML when ruamel would fold a line-break char)
    assert check_integrity(parse_payload_text(dump_payload(shuffled, Path("p.yaml")))).ok
