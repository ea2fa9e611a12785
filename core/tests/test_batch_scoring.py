"""Batch scoring: a scorer may score every candidate of one request at once (`BatchScorer.score_many`).

Per-candidate scorers keep working beside it; a batch answer is checked like a per-candidate one and
blames the plugin; nothing a request computes survives into the next one.
"""

from __future__ import annotations

from typing import ClassVar

import pytest

from swarm_handoff import api
from swarm_handoff.api import hookimpl
from swarm_handoff.components import BatchScorer, Scorer
from swarm_handoff.errors import SwarmError
from swarm_handoff.ranking import RankingRequest, rank
from swarm_handoff.records import Contribution, SkillRecord
from swarm_handoff.seed_scorers import RegistryV3Scorer, SwarmV2Scorer
from swarm_handoff.synthesis import parse_synthesis

SYNTHESIS = parse_synthesis({"original_prompt": "q", "problem_type": "research"})
RECORDS = [
    SkillRecord(name="aa", scope="global", source="test", categories=("research", "x")),
    SkillRecord(name="b", scope="global", source="test", categories=("x",)),
    SkillRecord(name="ccc", scope="project", source="test", categories=("x",)),
]


def rarity(candidates, record):
    """A corpus statistic: one point per category that fewer than half of the candidates share."""
    shared = [sum(c in r.categories for r in candidates) for c in record.categories]
    return [
        Contribution(f"rare:{c}", 1, f"{n} of {len(candidates)}")
        for c, n in zip(record.categories, shared, strict=True)
        if n * 2 < len(candidates)
    ]


class PerCandidate:
    """Scores one candidate at a time: the name's length."""

    calls: ClassVar[list[str]] = []

    def score(self, candidate, request):
        self.calls.append(candidate.name)
        return [Contribution("len", len(candidate.name), "name length")]


class Batch:
    """Scores all candidates at once; `answer(candidates)` is what score_many returns."""

    calls: ClassVar[list[list[str]]] = []
    answer = staticmethod(lambda candidates: [[Contribution("len", len(c.name), "name length")] for c in candidates])

    def score(self, candidate, request):  # pragma: no cover - the host calls score_many
        raise AssertionError("the host must call score_many on a BatchScorer")

    def score_many(self, candidates, request):
        self.calls.append([c.name for c in candidates])
        return type(self).answer(candidates)


def plugin(**scorers):
    class Plugin:
        @hookimpl
        def swarm_handoff_scorers(self, register):
            for name, factory in scorers.items():
                register(name, factory)

    return Plugin()


@pytest.fixture
def host(swarm_host):
    PerCandidate.calls = []
    Batch.calls = []
    swarm_host.add_plugin(plugin(per=PerCandidate, batch=Batch), "scorers", distribution="scorers-dist")
    return swarm_host


def batch_answering(swarm_host, answer):
    class Answering(Batch):
        pass

    Answering.answer = staticmethod(answer)
    swarm_host.add_plugin(plugin(bad=Answering), "bad-plugin", distribution="bad-dist")
    return swarm_host


def ranked(result):
    return [(e.label, e.record.name, e.total, e.contributions) for e in result.ranked]


def test_batch_scoring_is_an_optional_capability_checked_with_isinstance():
    assert api.BatchScorer is BatchScorer
    assert isinstance(Batch(), BatchScorer)
    assert isinstance(Batch(), Scorer)
    assert isinstance(PerCandidate(), Scorer)
    assert not isinstance(PerCandidate(), BatchScorer)

    class Disabled(PerCandidate):
        score_many = None  # a subclass switching the capability off

    assert not isinstance(Disabled(), BatchScorer)


def test_batch_and_per_candidate_scorers_rank_side_by_side(host):
    request = RankingRequest(synthesis=SYNTHESIS)
    per = rank(RECORDS, request, scorer="per", host=host)
    batch = rank(RECORDS, request, scorer="batch", host=host)
    assert PerCandidate.calls == ["aa", "b", "ccc"]  # once per candidate
    assert Batch.calls == [["aa", "b", "ccc"]]  # once per request, every candidate in order
    assert (
        ranked(per)
        == ranked(batch)
        == [
            ("C", "ccc", 3, (Contribution("len", 3, "name length"),)),
            ("D", "aa", 2, (Contribution("len", 2, "name length"),)),
            ("E", "b", 1, (Contribution("len", 1, "name length"),)),
        ]
    )
    assert batch.to_data()["workflows"][0]["breakdown"] == [{"factor": "len", "points": 3, "reason": "name length"}]


def test_a_lazy_batch_answer_is_read_like_a_list(swarm_host):
    batch_answering(swarm_host, lambda cs: ((Contribution("one", 1, "r"),) for _ in cs))
    result = rank(RECORDS, RankingRequest(synthesis=SYNTHESIS), scorer="bad", host=swarm_host)
    assert [e.total for e in result.ranked] == [1, 1, 1]


@pytest.mark.parametrize(
    ("answer", "says"),
    [
        (lambda cs: [[]] * (len(cs) - 1), "returned 2 answers for 3 candidates"),
        (lambda cs: [[]] * (len(cs) + 1), "returned 4 answers for 3 candidates"),
        (lambda cs: [], "returned 0 answers for 3 candidates"),
        (lambda cs: None, "the result is NoneType None, not a list"),
        (lambda cs: {c.name: [] for c in cs}, "the result is dict"),
        (lambda cs: (1 / 0 for _ in cs), "raised ZeroDivisionError while being read"),
    ],
)
def test_a_batch_answer_of_the_wrong_shape_blames_the_plugin(swarm_host, answer, says):
    batch_answering(swarm_host, answer)
    with pytest.raises(SwarmError) as caught:
        rank(RECORDS, RankingRequest(synthesis=SYNTHESIS), scorer="bad", host=swarm_host)
    error = caught.value
    assert error.code == "SCORER_BAD_RESULT"
    assert error.details == {"scorer": "bad", "plugin": "bad-plugin", "distribution": "bad-dist"}
    assert says in error.message
    assert "plugin 'bad-plugin' of bad-dist" in error.message
    assert "score_many" in error.hint


def test_a_bad_answer_inside_a_batch_names_its_skill(swarm_host):
    batch_answering(swarm_host, lambda cs: [[("ok", 1, "r")], [("f", float("inf"), "r")], []])
    with pytest.raises(SwarmError) as caught:
        rank(RECORDS, RankingRequest(synthesis=SYNTHESIS), scorer="bad", host=swarm_host)
    assert caught.value.code == "SCORER_BAD_RESULT"
    assert caught.value.details["skill"] == "b"
    assert "points inf, not a finite number" in caught.value.message


def test_a_raising_batch_scorer_is_scorer_failed_naming_its_distribution(swarm_host):
    batch_answering(swarm_host, lambda cs: {}["corpus"])
    with pytest.raises(SwarmError) as caught:
        rank(RECORDS, RankingRequest(synthesis=SYNTHESIS), scorer="bad", host=swarm_host)
    assert caught.value.code == "SCORER_FAILED"
    assert caught.value.details == {"scorer": "bad", "distribution": "bad-dist"}
    assert "KeyError" in caught.value.message
    assert "bad-dist" in caught.value.message


def test_the_cli_reports_a_wrong_length_batch_as_a_coded_error(swarm_host, swarm_cli, tmp_path):
    batch_answering(swarm_host, lambda cs: [[]])
    synthesis = tmp_path / "s.yaml"
    synthesis.write_text("original_prompt: q\nproblem_type: research\n")
    workflows = tmp_path / "w.yaml"
    workflows.write_text("workflows:\n  - {skill: a, categories: [x]}\n  - {skill: b, categories: [y]}\n")
    result = swarm_cli(
        "rank", "--synthesis", str(synthesis), "--workflows", str(workflows), "--scorer", "bad", "-f", "json"
    )
    assert result.exit_code == 1
    assert "Traceback" not in result.stdout + result.stderr
    error = result.json()["error"]
    assert error["code"] == "SCORER_BAD_RESULT"
    assert "returned 1 answers for 2 candidates" in error["message"]


def test_two_requests_in_a_row_give_independent_answers(swarm_host):
    batch_answering(swarm_host, lambda cs: [rarity(cs, r) for r in cs])
    request = RankingRequest(synthesis=SYNTHESIS)
    more = [
        *RECORDS,
        *(SkillRecord(name=f"r{i}", scope="global", source="test", categories=("research",)) for i in range(4)),
    ]
    first = rank(RECORDS, request, scorer="bad", host=swarm_host)
    rank(more, request, scorer="bad", host=swarm_host)  # "research" is common here, rare above
    again = rank(RECORDS, request, scorer="bad", host=swarm_host)
    assert ranked(again) == ranked(first)
    assert first.ranked[0].record.name == "aa"
    assert first.ranked[0].contributions == (Contribution("rare:research", 1, "1 of 3"),)


@pytest.mark.parametrize("scorer", [SwarmV2Scorer(), RegistryV3Scorer()])
def test_the_core_scorers_hold_no_state(scorer):
    assert not getattr(scorer, "__dict__", {})
