"""Ranking: scorer chosen by name, totals summed, ties broken by scope then name, errors named."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from swarm_handoff.api import hookimpl
from swarm_handoff.discovery import discover, make_context
from swarm_handoff.errors import SwarmError, UsageError
from swarm_handoff.ranking import RankingRequest, labels, rank
from swarm_handoff.records import Contribution, Scope, SkillRecord, SourceResult
from swarm_handoff.synthesis import parse_synthesis

SYNTHESIS = parse_synthesis({"original_prompt": "q", "problem_type": "decision"})


def rec(name, scope="global", **fields):
    return SkillRecord(name=name, scope=scope, source="test", **fields)


def scorer_plugin(name, score, distribution_name="scorer-plugin"):
    class Scorer:
        def score(self, candidate, request):
            return score(candidate, request)

    class Plugin:
        @hookimpl
        def swarm_handoff_scorers(self, register):
            register(name, Scorer)

    return Plugin()


def test_labels_start_at_c_and_never_run_out():
    assert labels(3) == ["C", "D", "E"]
    assert labels(25)[-2:] == ["Z", "AA"]


def test_default_scorer_is_swarm_v2_and_totals_sum_the_breakdown(swarm_host):
    records = [rec("b", categories=("research",)), rec("a", "project", categories=("writing",))]
    result = rank(records, RankingRequest(synthesis=SYNTHESIS), host=swarm_host)
    assert result.scorer == "swarm-v2"
    assert result.scorer_distribution == "swarm-handoff-core"
    first, second = result.ranked
    assert (first.label, first.record.name, first.total) == ("C", "b", 3)
    assert (second.label, second.record.name, second.total) == ("D", "a", 1)
    for entry in result.ranked:
        assert entry.total == sum(c.points for c in entry.contributions)
        assert entry.to_data()["breakdown"]


def test_equal_totals_break_by_scope_priority_then_name(swarm_host, register_plugin):
    register_plugin(scorer_plugin("flat", lambda c, r: [Contribution("flat", 5, "same for all")]))
    records = [
        rec("zeta", "registry"),
        rec("beta", "global"),
        rec("alpha", "global"),
        rec("omega", "project"),
        rec("mid", "installed"),
        rec("gamma", "git-root"),
    ]
    result = rank(records, RankingRequest(synthesis=SYNTHESIS), scorer="flat", host=swarm_host, top=10)
    assert [(e.record.name, e.record.scope) for e in result.ranked] == [
        ("omega", Scope.PROJECT),
        ("gamma", Scope.GIT_ROOT),
        ("alpha", Scope.GLOBAL),
        ("beta", Scope.GLOBAL),
        ("mid", Scope.INSTALLED),
        ("zeta", Scope.REGISTRY),
    ]


def test_a_higher_total_beats_a_more_local_scope(swarm_host, register_plugin):
    register_plugin(scorer_plugin("by-name", lambda c, r: [("n", 2 if c.name == "far" else 1, "r")]))
    result = rank(
        [rec("near", "project"), rec("far", "registry")],
        RankingRequest(synthesis=SYNTHESIS),
        scorer="by-name",
        host=swarm_host,
    )
    assert [e.record.name for e in result.ranked] == ["far", "near"]


@given(
    st.lists(
        st.tuples(st.sampled_from(list(Scope)), st.text("abc", min_size=1, max_size=3), st.integers(-3, 3)),
        min_size=1,
        max_size=12,
        unique_by=lambda t: t[1],
    )
)
def test_ranking_is_a_total_order_whatever_the_input_order(items):
    from swarm_handoff import plugins

    host = plugins.build_host({plugins.ENV_LOAD: ""})
    points = {name: p for _, name, p in items}
    host.add_plugin(scorer_plugin("table", lambda c, r: [("t", points[c.name], "table")]), "table-plugin")
    records = [rec(name, scope) for scope, name, _ in items]
    forward = rank(records, RankingRequest(synthesis=SYNTHESIS), scorer="table", host=host, top=20)
    backward = rank(records[::-1], RankingRequest(synthesis=SYNTHESIS), scorer="table", host=host, top=20)
    keys = [(-e.total, e.record.priority, e.record.name) for e in forward.ranked]
    assert keys == sorted(keys)
    assert [e.record.name for e in forward.ranked] == [e.record.name for e in backward.ranked]


def test_top_limits_the_menu_but_every_candidate_is_ranked(swarm_host):
    records = [rec(f"s{i}") for i in range(8)]
    result = rank(records, RankingRequest(synthesis=SYNTHESIS), host=swarm_host)
    assert len(result.ranked) == 8
    assert [e.label for e in result.shown] == ["C", "D", "E", "F", "G"]
    assert result.to_data()["shown"] == 5
    with pytest.raises(UsageError):
        rank(records, RankingRequest(synthesis=SYNTHESIS), host=swarm_host, top=0)


def test_an_unknown_scorer_lists_the_available_ones(swarm_host):
    with pytest.raises(SwarmError) as caught:
        rank([rec("a")], RankingRequest(synthesis=SYNTHESIS), scorer="nope", host=swarm_host)
    assert caught.value.code == "UNKNOWN_COMPONENT"
    assert {"swarm-v2", "registry-v3"} <= set(caught.value.details["available"])


def test_a_raising_scorer_is_a_structured_error_naming_its_distribution(swarm_host):
    def explode(candidate, request):
        raise KeyError("meta")

    swarm_host.add_plugin(scorer_plugin("boom", explode), "boom-plugin", distribution="boom-dist", version="9")
    with pytest.raises(SwarmError) as caught:
        rank([rec("a")], RankingRequest(synthesis=SYNTHESIS), scorer="boom", host=swarm_host)
    error = caught.value
    assert error.code == "SCORER_FAILED"
    assert error.details == {"scorer": "boom", "distribution": "boom-dist", "skill": "a"}
    assert "boom-dist" in error.message
    assert "KeyError" in error.message


@pytest.mark.parametrize(
    "returned", [None, "text", [("f", "three", "r")], [("f", float("nan"), "r")], [("f", True, "r")], [42]]
)
def test_a_scorer_returning_garbage_is_a_structured_error(swarm_host, returned):
    swarm_host.add_plugin(scorer_plugin("bad", lambda c, r: returned), "bad-plugin", distribution="bad-dist")
    with pytest.raises(SwarmError) as caught:
        rank([rec("a")], RankingRequest(synthesis=SYNTHESIS), scorer="bad", host=swarm_host)
    assert caught.value.code == "SCORER_BAD_RESULT"
    assert caught.value.details["distribution"] == "bad-dist"


def test_ranking_what_discovery_found(swarm_host, register_plugin, tmp_path):
    class Source:
        priority = 1

        def discover(self, context):
            return SourceResult(
                records=(
                    rec("lit-pm", "global", categories=("research",), meta={"estimated_duration": "4-24 hours"}),
                    rec("notes", "project", categories=("writing",)),
                )
            )

    class Plugin:
        @hookimpl
        def swarm_handoff_discovery_sources(self, register):
            register("fake", Source)

    register_plugin(Plugin())
    found = discover(make_context(tmp_path, {"HOME": str(tmp_path)}), swarm_host)
    result = rank(found.workflows, RankingRequest(synthesis=SYNTHESIS), host=swarm_host)
    data = result.to_data()
    assert [w["skill"] for w in data["workflows"]] == ["lit-pm", "notes"]
    assert data["workflows"][0]["estimated_duration"] == "4-24 hours"
    assert data["workflows"][1]["estimated_duration"] is None


def test_request_fields_are_checked():
    with pytest.raises(ValueError):
        RankingRequest(synthesis=SYNTHESIS, autonomy="sometimes")
    with pytest.raises(ValueError):
        RankingRequest(synthesis=SYNTHESIS, history={"a": {"successes": -1}})
    assert RankingRequest(synthesis=SYNTHESIS, chain=" a, b ,").chain == ("a", "b")


def test_history_accepts_any_record_with_success_and_failure_counts():
    class StoreRow:
        successes = 4
        failures = 1

    request = RankingRequest(synthesis=SYNTHESIS, history={"a": StoreRow(), "b": {"failures": 2}})
    assert request.history_of("a").to_data() == {"successes": 4, "failures": 1}
    assert request.history_of("b").to_data() == {"successes": 0, "failures": 2}
    assert request.history_of("c").to_data() == {"successes": 0, "failures": 0}


def batch_plugin(name, score_many):
    class Scorer:
        def score(self, candidate, request):  # pragma: no cover - score_many wins
            raise AssertionError("the host must call score_many when a scorer offers it")

        def score_many(self, candidates, request):
            return score_many(candidates, request)

    class Plugin:
        @hookimpl
        def swarm_handoff_scorers(self, register):
            register(name, Scorer)

    return Plugin()


def test_a_scorer_with_score_many_is_called_once_per_ranking_with_every_candidate(swarm_host):
    calls = []

    def score_many(candidates, request):
        calls.append([c.name for c in candidates])
        return [[Contribution("len", len(c.name), "name length")] for c in candidates]

    swarm_host.add_plugin(batch_plugin("batch", score_many), "batch-plugin", distribution="batch-dist")
    result = rank(
        [rec("aa"), rec("b"), rec("ccc")], RankingRequest(synthesis=SYNTHESIS), scorer="batch", host=swarm_host
    )
    assert calls == [["aa", "b", "ccc"]]
    assert [(e.record.name, e.total) for e in result.ranked] == [("ccc", 3), ("aa", 2), ("b", 1)]


@pytest.mark.parametrize(
    ("score_many", "code"),
    [
        (lambda cs, r: [[]], "SCORER_BAD_RESULT"),
        (lambda cs, r: {}["x"], "SCORER_FAILED"),
        (lambda cs, r: [[42]] * len(cs), "SCORER_BAD_RESULT"),
    ],
)
def test_a_bad_score_many_is_a_structured_error(swarm_host, score_many, code):
    swarm_host.add_plugin(batch_plugin("batch", score_many), "batch-plugin", distribution="batch-dist")
    with pytest.raises(SwarmError) as caught:
        rank([rec("a"), rec("b")], RankingRequest(synthesis=SYNTHESIS), scorer="batch", host=swarm_host)
    assert caught.value.code == code
    assert "batch-dist" in caught.value.message


def test_a_scorer_that_cannot_tell_the_candidates_apart_is_said_so(swarm_host, register_plugin):
    register_plugin(scorer_plugin("flat", lambda c, r: [Contribution("flat", 1, "same for all")]))
    result = rank([rec("a"), rec("b"), rec("c")], RankingRequest(synthesis=SYNTHESIS), scorer="flat", host=swarm_host)
    (problem,) = [p for p in result.problems if p.code == "RANKING_INDISTINCT"]
    assert problem.severity.value == "warning"
    assert "'flat'" in problem.message
    assert "3 candidates" in problem.message
    assert problem.hint
    assert result.to_data()["problems"][0]["code"] == "RANKING_INDISTINCT"


def test_the_router_that_cannot_tell_candidates_apart_is_not_told_to_use_the_router(swarm_host, register_plugin):
    # `rank --request x` over skills that share no word with it: the router gave every one 0 points,
    # and the hint must not send the user to the scorer that just ranked them
    register_plugin(scorer_plugin("router", lambda c, r: []))
    result = rank([rec("a"), rec("b")], RankingRequest(synthesis=SYNTHESIS), scorer="router", host=swarm_host)
    (problem,) = [p for p in result.problems if p.code == "RANKING_INDISTINCT"]
    assert "'router'" in problem.message
    assert problem.hint
    assert "--scorer router" not in problem.hint
    assert "words" in problem.hint


def test_a_ranking_that_tells_candidates_apart_or_has_one_says_nothing(swarm_host):
    records = [rec("b", categories=("research",)), rec("a", "project", categories=("writing",))]
    assert not rank(records, RankingRequest(synthesis=SYNTHESIS), host=swarm_host).problems
    assert not rank(records[:1], RankingRequest(synthesis=SYNTHESIS), host=swarm_host).problems


def test_undeclared_candidates_are_ranked_by_the_router_when_no_scorer_is_named(swarm_host, register_plugin):
    register_plugin(scorer_plugin("router", lambda c, r: [Contribution("router", len(c.name), "by name length")]))
    undeclared = [rec("ab", meta={"undeclared": True}), rec("abcd", meta={"undeclared": True})]
    result = rank(undeclared, RankingRequest(synthesis=SYNTHESIS), host=swarm_host)
    assert result.scorer == "router"
    assert [e.record.name for e in result.ranked] == ["abcd", "ab"]
    declared = [rec("b", categories=("research",)), rec("a", "project", categories=("writing",))]
    assert rank(declared, RankingRequest(synthesis=SYNTHESIS), host=swarm_host).scorer == "swarm-v2"
    named = rank(undeclared, RankingRequest(synthesis=SYNTHESIS), host=swarm_host, scorer="swarm-v2")
    assert named.scorer == "swarm-v2"  # a scorer named is the scorer used


def test_undeclared_candidates_keep_swarm_v2_without_the_router_installed(swarm_host):
    undeclared = [rec("ab", meta={"undeclared": True}), rec("abcd", meta={"undeclared": True})]
    assert rank(undeclared, RankingRequest(synthesis=SYNTHESIS), host=swarm_host).scorer == "swarm-v2"
