"""The bm25 scorer: term weights, explanations, and the scorer installed and chosen by name."""

from __future__ import annotations

import math

import attrs
import pytest
from hypothesis import given
from hypothesis import strategies as st

from swarm_handoff.api import BatchScorer, Kind, RankingRequest, SkillRecord, parse_synthesis, rank
from swarm_handoff_bm25.bm25 import BM25Scorer, Corpus, query_terms, stem, term_score, tokenize


def skill(name, description, categories=("misc",)):
    return SkillRecord(name=name, scope="global", source="test", description=description, categories=categories)


def request(prompt, **fields):
    synthesis = parse_synthesis({"original_prompt": prompt, "problem_type": "research", **fields})
    return RankingRequest(synthesis=synthesis)


def test_tokenize_lowercases_stems_and_drops_stopwords_and_single_letters():
    assert tokenize("The Literature-Reviews of a 3D model, x!") == ["literatur", "review", "3d", "model"]


def test_words_of_any_script_stay_whole():
    # an ASCII-only word class made "zürich" the word "rich", and "übersetzen" the word "bersetzen"
    assert tokenize("Übersetzen nach Zürich") == [stem("übersetzen"), "nach", stem("zürich")]
    assert tokenize("snake_case") == [stem("snake"), stem("case")]
    # a decomposed "zürich" (as macOS names files) and full-width letters meet their usual spelling
    assert tokenize("Zu\u0308rich \uff50\uff44\uff46") == tokenize("Zürich pdf")


@pytest.mark.parametrize(
    "words",
    [
        ("implementation", "implementing", "implement"),
        ("retries", "retry"),
        ("scheduler", "schedule", "schedules"),
        ("analysis", "analyses"),
        ("adoption", "adopt"),
    ],
)
def test_related_word_forms_share_a_stem(words):
    assert len({stem(w) for w in words}) == 1


def test_stems_keep_three_letters():
    assert stem("uses") == "use"
    assert stem("is") == "is"


def test_query_terms_cover_the_synthesis_fields_once_each():
    req = request(
        "Survey caching",
        synthesis_summary="caching matters",
        key_uncertainties=["latency"],
        research_seeds={"suggested_terms": [{"term": "memoization"}], "open_questions": ["eviction?"]},
        insights={"blind_spots": ["cost"]},
    )
    assert query_terms(req.synthesis) == ["survey", "cach", "matt", "latency", "evict", "memoiz", "cost"]


def test_each_matched_term_is_one_contribution_and_they_sum_to_the_score():
    lit = skill("lit", "Literature review of research papers", ("research", "literature"))
    code = skill("code", "Write code", ("implementation",))
    req = request("Review the research literature on caching")
    contributions = BM25Scorer().score_many((lit, code), req)[0]
    assert [c.factor for c in contributions] == ["term:review", "term:research", "term:literatur"]
    assert all(c.points > 0 for c in contributions)
    assert "'literatur' appears 2x" in contributions[2].reason


def test_no_match_is_one_zero_contribution_that_says_why():
    req = request("Plan the kitchen")
    [only] = BM25Scorer().score(skill("s", "Write code"), req)
    assert (only.factor, only.points) == ("bm25", 0)


def test_a_rarer_word_weighs_more():
    docs = [skill("a", "alpha common"), skill("b", "beta common"), skill("c", "common")]
    points = {c.factor: c.points for c in BM25Scorer().score_many(docs, request("alpha common"))[0]}
    assert points["term:alpha"] > points["term:common"]


def test_a_longer_description_dilutes_a_match():
    short = skill("short", "caching")
    long = skill("long", "caching with many other unrelated words here")
    [short_points], [long_points] = BM25Scorer().score_many((short, long), request("caching"))
    assert short_points.points > long_points.points


def test_term_score_matches_the_okapi_formula():
    idf = Corpus.of([["a"], ["b"], ["a", "c"]]).idf("a")
    assert idf == pytest.approx(math.log(1 + (3 - 2 + 0.5) / (2 + 0.5)))
    assert term_score(2, 4, 1.0, 4.0) == pytest.approx(2 * 2.2 / (2 + 1.2))


@given(st.text(max_size=60), st.lists(st.text(max_size=40), min_size=1, max_size=5))
def test_scores_are_finite_and_never_negative(prompt, descriptions):
    candidates = [skill(f"s{i}", d) for i, d in enumerate(descriptions)]
    for contributions in BM25Scorer().score_many(candidates, request(prompt + " x")):
        for contribution in contributions:
            assert math.isfinite(contribution.points)
            assert contribution.points >= 0


def test_the_installed_plugin_registers_bm25(make_swarm_host):
    host = make_swarm_host(["bm25"])
    ref = host.components(Kind.SCORER)["bm25"]
    assert (ref.distribution, ref.plugin) == ("swarm-handoff-bm25", "bm25")
    assert isinstance(host.get(Kind.SCORER, "bm25"), BM25Scorer)
    report = host.report().to_data()
    [plugin] = [p for p in report["plugins"] if p["name"] == "bm25"]
    assert plugin["components"] == [
        {"kind": "scorer", "name": "bm25", "summary": "BM25 over description + categories vs the synthesis text"}
    ]


def test_rank_orders_by_lexical_relevance(make_swarm_host):
    host = make_swarm_host(["bm25"])
    records = [
        skill("cooking", "Recipes and meal plans"),
        skill("lit-pm", "Literature review of research papers", ("research",)),
    ]
    result = rank(records, request("Review the research literature"), scorer="bm25", host=host)
    assert [e.record.name for e in result.ranked] == ["lit-pm", "cooking"]
    assert result.scorer_distribution == "swarm-handoff-bm25"


def test_the_cli_takes_scorer_bm25(make_swarm_host, swarm_cli, tmp_path):
    make_swarm_host(["bm25"])
    synthesis = tmp_path / "s.yaml"
    synthesis.write_text("original_prompt: Review caching research\nproblem_type: research\n")
    workflows = tmp_path / "w.yaml"
    workflows.write_text(
        "workflows:\n"
        "  - {skill: lit-pm, categories: [research], description: Literature review}\n"
        "  - {skill: chef, categories: [cooking], description: Recipes}\n"
    )
    result = swarm_cli(
        "rank", "--synthesis", str(synthesis), "--workflows", str(workflows), "--scorer", "bm25", "-f", "json"
    )
    assert result.exit_code == 0, result.stdout
    data = result.json()
    assert data["scorer"] == "bm25"
    assert [w["skill"] for w in data["workflows"]] == ["lit-pm", "chef"]
    assert {c["factor"] for c in data["workflows"][0]["breakdown"]} == {"term:review", "term:research"}


def test_bm25_scores_every_candidate_of_a_request_at_once():
    assert isinstance(BM25Scorer(), BatchScorer)
    docs = [skill("a", "alpha common"), skill("b", "beta common"), skill("c", "nothing here")]
    answers = BM25Scorer().score_many(docs, request("alpha beta common"))
    assert [[c.factor for c in answer] for answer in answers] == [
        ["term:alpha", "term:common"],
        ["term:beta", "term:common"],
        ["bm25"],
    ]
    # One candidate on its own is a corpus of one: the same as a batch of one.
    assert BM25Scorer().score(docs[0], request("alpha")) == BM25Scorer().score_many(docs[:1], request("alpha"))[0]


def test_bm25_keeps_no_state_between_requests():
    scorer = BM25Scorer()
    with pytest.raises(attrs.exceptions.FrozenInstanceError):
        scorer.k1 = 2.0  # type: ignore[misc]
    first = [skill("a", "alpha common"), skill("b", "beta common"), skill("c", "common")]
    second = [skill("x", "alpha"), skill("y", "alpha gamma")]
    req = request("alpha common")
    before = scorer.score_many(first, req)
    assert scorer.score_many(second, req) == BM25Scorer().score_many(second, req)  # the same request, other skills
    assert scorer.score_many(first, req) == before
    # One at a time with one request: each candidate is scored on its own, never with the last one's corpus.
    scorer.score(first[0], req)
    assert scorer.score(second[1], req) == BM25Scorer().score(second[1], req)


def test_rankings_in_a_row_through_one_host_are_independent(make_swarm_host):
    host = make_swarm_host(["bm25"])
    small = [skill("lit-pm", "Literature review of research papers", ("research",)), skill("chef", "Recipes")]
    large = [*small, *(skill(f"r{i}", f"research notes {i}", ("research",)) for i in range(5))]
    req = request("Review the research literature")
    rank(large, req, scorer="bm25", host=host)
    after = rank(small, req, scorer="bm25", host=host)
    fresh = rank(small, req, scorer="bm25", host=make_swarm_host(["bm25"]))
    assert [(e.record.name, e.total, e.contributions) for e in after.ranked] == [
        (e.record.name, e.total, e.contributions) for e in fresh.ranked
    ]
