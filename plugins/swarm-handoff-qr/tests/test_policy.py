"""The QR blocking table, iteration by iteration, and its registration."""

from __future__ import annotations

import pytest

from swarm_handoff.api import Kind
from swarm_handoff_qr.policy import BlockingPolicy, Severity

TABLE = {
    1: {"MUST", "SHOULD", "COULD"},
    2: {"MUST", "SHOULD", "COULD"},
    3: {"MUST", "SHOULD"},
    4: {"MUST", "SHOULD"},
    5: {"MUST"},
    6: {"MUST"},
    9: {"MUST"},
}


@pytest.mark.parametrize(("iteration", "blocking"), TABLE.items())
def test_blocking_severities_by_iteration(iteration, blocking):
    policy = BlockingPolicy()
    assert {s.value for s in policy.blocking(iteration)} == blocking
    for severity in Severity:
        assert policy.blocks(iteration, severity.value) is (severity.value in blocking)


def test_iterations_start_at_one():
    with pytest.raises(ValueError, match="start at 1"):
        BlockingPolicy().blocking(0)


def test_the_loop_is_exhausted_after_the_limit():
    policy = BlockingPolicy(iteration_limit=3)
    assert [policy.exhausted(i) for i in (1, 3, 4)] == [False, False, True]


def test_the_default_policy_is_registered(make_swarm_host):
    host = make_swarm_host(["qr"])
    assert isinstance(host.get(Kind.QR_GATE, "default"), BlockingPolicy)
