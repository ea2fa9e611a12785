"""The router scorer: relevance over name/description/body, negative triggers, explanations, no state."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from swarm_handoff.api import BatchScorer, RankingRequest, SkillRecord, parse_synthesis, rank
from swarm_handoff_router.document import Document, read_body
from swarm_handoff_router.router import RouterScorer, route
from swarm_handoff_router.text import _ASCII_WORD, _WORD, split_negative, split_negative_sections, stem, tokenize


def skill(name: str, description: str, path: str | None = None) -> SkillRecord:
    return SkillRecord(name=name, scope="global", source="test", description=description, path=path)


def request(prompt: str, candidates: tuple[SkillRecord, ...] = (), **fields: str) -> RankingRequest:
    """The request; the candidates go to `score_many` (a request no longer carries them)."""
    synthesis = parse_synthesis({"original_prompt": prompt, "problem_type": "research", **fields})
    return RankingRequest(synthesis=synthesis)


SKILLS = (
    skill("economist", "Rough cost figures for competing options (not for exact vendor pricing)."),
    skill("procurement", "Match equipment specifications to vendors and map lead times."),
    skill("editor", "Improve prose and polish documents before archival."),
    skill("troubleshooter", "Debug errors and unexpected behaviour systematically."),
)


def totals(prompt: str, skills: tuple[SkillRecord, ...] = SKILLS, *, second_look: bool = True) -> dict[str, float]:
    results = route(skills, request(prompt, skills).synthesis, second_look=second_look)
    return {s.name: sum(c.points for c in contributions) for s, contributions in zip(skills, results, strict=True)}


@pytest.mark.parametrize(
    "words",
    [
        ("debugging", "debugged", "debugger", "debug"),
        ("validation", "validating", "validate"),
        ("cluttered", "clutter"),
    ],
)
def test_stemmer_joins_inflections_and_derivations(words: tuple[str, ...]) -> None:
    assert len({stem(w) for w in words}) == 1


def test_tokenize_drops_words_every_skill_uses_about_itself() -> None:
    assert tokenize("Use this skill when the user needs help with invoices") == ["invoic"]


def test_words_of_any_script_stay_whole() -> None:
    # an ASCII-only word class made "zürich" the word "rich" and gave Japanese text no word at all
    assert tokenize("Übersetze die Datei nach Zürich") == [stem("übersetze"), "die", "datei", "nach", stem("zürich")]
    assert tokenize("Zürich") != tokenize("rich")
    assert tokenize("résumé, café") == [stem("résumé"), stem("café")]
    assert tokenize("日本語のテキストを翻訳する") != []
    assert tokenize("C++ and C# in snake_case") == ["c++", "c#", stem("snake"), stem("case")]
    # one spelling of each letter: decomposed (as macOS names files), full-width and ligatures meet the usual one
    assert tokenize("Zu\u0308rich re\u0301sume\u0301 \uff50\uff44\uff46 \ufb01le") == tokenize("Zürich résumé pdf file")
    assert "rich" not in tokenize("Zu\u0308rich")


def test_a_request_in_another_language_finds_the_skill_written_in_it() -> None:
    skills = (
        skill("uebersetzer", "Übersetzt Verträge und Rechnungen ins Englische."),
        skill("rich-text", "Formats rich text for newsletters."),
    )
    points = totals("Bitte die Rechnungen aus Zürich übersetzen", skills)
    assert points["uebersetzer"] > points["rich-text"] == 0


@settings(max_examples=300, deadline=None)
@given(st.text(alphabet=st.characters(max_codepoint=127)))
def test_ascii_text_is_read_into_the_same_words_by_either_class(text: str) -> None:
    lower = text.lower()
    assert _WORD.findall(lower) == _ASCII_WORD.findall(lower)


def test_negative_clause_is_split_out_of_the_description() -> None:
    kept, clauses = split_negative("Cost estimates (not for exact vendor pricing). Fast.")
    assert clauses == ["exact vendor pricing"]
    assert "quotes" not in kept
    assert "Fast" in kept


@pytest.mark.parametrize(
    "text",
    [
        "Do not use for exact vendor pricing.",
        "Don't use this skill when you need exact vendor pricing.",
        "Never use it for exact vendor pricing.",
        "Not intended for exact vendor pricing.",
        "Estimates; for exact vendor pricing, use procurement.",
    ],
)
def test_negative_trigger_forms(text: str) -> None:
    _, clauses = split_negative(text)
    assert clauses
    assert "vendor" in clauses[0]


def test_how_to_run_instruction_is_not_a_negative_trigger() -> None:
    assert split_negative("Start it right away. Do NOT read the code first; let the run do that.")[1] == []


def test_body_section_when_not_to_use_is_negative() -> None:
    body = "# Tool\nCleans tables.\n\n## When not to use\n- drawing charts\n\n## Steps\nload the file\n"
    positive, clauses = split_negative_sections(body)
    assert clauses == ["drawing charts"]
    assert "charts" not in positive
    assert "load the file" in positive


def test_negative_trigger_demotes_the_skill_that_refuses_the_request() -> None:
    scores = totals("I need exact vendor pricing for a centrifuge")
    assert scores["economist"] < 0 < scores["procurement"]
    contributions = route(SKILLS, request("exact vendor pricing", SKILLS).synthesis)[0]
    assert any(c.factor == f"not-for:{stem('vendor')}" and c.points < 0 for c in contributions)


def test_without_the_negative_clause_the_same_words_would_count_for_it() -> None:
    plain = (skill("economist", "Rough cost figures for competing options, exact vendor pricing."),)
    assert totals("exact vendor pricing", plain + SKILLS[1:])["economist"] > 0


def test_name_description_and_body_all_count(tmp_path: Path) -> None:
    md = tmp_path / "charts" / "SKILL.md"
    md.parent.mkdir()
    md.write_text("---\nname: charts\ndescription: Draw figures.\n---\n# Charts\nPlot histograms with matplotlib.\n")
    skills = (skill("charts", "Draw figures.", str(md)), *SKILLS)
    assert totals("plot a histogram", skills)["charts"] > 0  # only the body says "histogram"
    assert read_body(str(md)).strip().startswith("# Charts")


def test_synonym_matches_at_reduced_weight() -> None:
    contributions = route(SKILLS, request("find the defect", SKILLS).synthesis)[3]
    assert [c.factor for c in contributions] == ["term:defect"]
    assert "synonym" in contributions[0].reason


def test_every_point_is_explained_and_the_explanation_sums_to_the_score() -> None:
    synthesis_request = request("vendor quotes and a cost estimate", SKILLS)
    result = rank(SKILLS, synthesis_request, scorer="router", explain=True)
    for entry in result.ranked:
        assert entry.total == pytest.approx(sum(c.points for c in entry.contributions))
        assert all(c.reason for c in entry.contributions)
    assert result.ranked[0].record.name in {"economist", "procurement"}


def test_unmatched_skill_gets_one_zero_contribution_saying_why() -> None:
    contributions = route(SKILLS, request("vendor quotes", SKILLS).synthesis)[2]
    assert [(c.factor, c.points) for c in contributions] == [("router", 0)]


def test_stateless_across_requests_score_equals_score_many() -> None:
    scorer = RouterScorer()
    assert isinstance(scorer, BatchScorer)
    first = request("debug an error", SKILLS)
    other_skills = (skill("a", "debug errors"), skill("b", "debug errors"), skill("c", "write poems"))
    second = request("debug an error", other_skills)
    before = scorer.score_many(SKILLS, first)
    scorer.score_many(other_skills, second)  # a different corpus in between
    assert scorer.score_many(SKILLS, first) == before
    # One candidate on its own is a set of one (the ranking calls score_many with them all).
    assert [scorer.score(c, first) for c in SKILLS] == [scorer.score_many((c,), first)[0] for c in SKILLS]
    # The same skill scores differently against a different set of candidates (IDF is per request).
    assert scorer.score_many(other_skills, second)[0] != before[3]


def test_rankings_in_a_row_through_one_host_are_independent(make_swarm_host: Any) -> None:
    host = make_swarm_host(["router"])
    more = (*SKILLS, skill("quoter", "Vendor quotes and vendor lead times"), skill("poet", "Write poems"))
    synthesis_request = request("vendor quotes and a cost estimate")
    rank(more, synthesis_request, scorer="router", host=host)
    after = rank(SKILLS, synthesis_request, scorer="router", host=host)
    fresh = rank(SKILLS, synthesis_request, scorer="router", host=make_swarm_host(["router"]))
    assert [(e.record.name, e.contributions) for e in after.ranked] == [
        (e.record.name, e.contributions) for e in fresh.ranked
    ]


def test_request_fields_are_weighted_and_summary_counts() -> None:
    synthesis = request("tidy up", SKILLS, synthesis_summary="polish the prose").synthesis
    assert sum(c.points for c in route(SKILLS, synthesis)[2]) > 0


def test_document_reads_declared_name_too() -> None:
    record = SkillRecord(name="folder-x", declared_name="pdf-filler", scope="global", source="t")
    assert "pdf" in Document.of(record, body="").fields["name"]


PHRASE_SKILLS = (
    skill("analyst", "Find the root cause of a failure by testing competing hypotheses."),
    skill("fixer", "Cause fewer regressions: fix the root of each problem, then add a test for it."),
    skill("poet", "Write poems."),
)


def test_words_side_by_side_earn_a_phrase_bonus_only_where_they_stand_together() -> None:
    contributions = route(PHRASE_SKILLS, request("what is the root cause here", PHRASE_SKILLS).synthesis)
    phrase = f"phrase:{stem('root')} {stem('cause')}"
    analyst, fixer = ({c.factor: c for c in found} for found in contributions[:2])
    assert phrase in analyst
    assert analyst[phrase].points > 0
    assert "side by side" in analyst[phrase].reason
    assert phrase not in fixer  # both words, but apart and in the other order
    scores = totals("what is the root cause here", PHRASE_SKILLS)
    assert scores["analyst"] > scores["fixer"]


def test_a_phrase_inside_a_negative_trigger_earns_nothing() -> None:
    skills = (skill("economist", "Rough costs. Not for vendor pricing."), skill("buyer", "Vendor pricing and quotes."))
    contributions = route(skills, request("vendor pricing", skills).synthesis)[0]
    assert not any(c.factor.startswith("phrase:") for c in contributions)
    assert sum(c.points for c in contributions) < 0


def test_explanation_sums_to_the_score_with_phrases() -> None:
    result = rank(PHRASE_SKILLS, request("root cause of the failure", PHRASE_SKILLS), scorer="router", explain=True)
    top = result.ranked[0]
    assert top.record.name == "analyst"
    assert any(c.factor.startswith("phrase:") for c in top.contributions)
    assert top.total == pytest.approx(sum(c.points for c in top.contributions))


def test_the_opening_of_the_body_counts_more_than_its_later_text() -> None:
    filler = " ".join(f"step{i}" for i in range(200))
    early = Document.of(skill("early", "Tables."), body=f"Plot histograms. {filler}")
    late = Document.of(skill("late", "Tables."), body=f"{filler} Plot histograms.")
    assert early.fields["opening"][stem("histograms")] == 1
    assert stem("histograms") not in late.fields["opening"]
    assert early.fields["body"] == late.fields["body"]
    records = (skill("early", "Tables."), skill("late", "Tables."))
    scores = route(records, request("histograms").synthesis, [early, late])
    early_points, late_points = (sum(c.points for c in found) for found in scores)
    assert early_points > late_points > 0
    assert "opening 1x" in scores[0][0].reason


def test_a_product_name_is_content_not_a_stopword() -> None:
    assert tokenize("my claude code sessions") == [stem("claude"), stem("code"), stem("sessions")]
    assert tokenize("the agent skill tool") == []  # words every skill uses about itself stay out


def test_stems_are_remembered_within_a_bound():
    """Stemming is most of the analysis: each distinct word is stemmed once, and the memo cannot grow without end."""
    from swarm_handoff_router.text import STEM_MEMO, stem, tokenize

    stem.cache_clear()
    words = "validating validated validate validates " * 50
    assert tokenize(words) == tokenize("validating validated validate validates") * 50
    info = stem.cache_info()
    assert (info.misses, info.maxsize) == (4, STEM_MEMO)
    assert info.hits == 196 + 4  # the second, short call: every word already known


def test_inflections_come_off_once_so_choosing_meets_choose() -> None:
    assert stem("choosing") == stem("choose") == stem("chooses")
    assert stem("phases") == stem("phase")


def test_plurals_of_function_words_are_function_words() -> None:
    assert tokenize("skip the draft ones and the others") == [stem("skip"), stem("draft")]


def test_a_synonym_never_earns_more_than_the_word_itself_would() -> None:
    """A common request word must not become a rare, heavy one by way of its synonym."""
    skills = (
        skill("planner", "Plan the work, then carry out the plan."),
        skill("cron", "Schedule jobs: schedule lines, schedule timers, schedule checks."),
        *(skill(f"other{i}", f"Plan number {i} of a project.") for i in range(5)),
    )
    found = route(skills, request("plan the migration", skills).synthesis)
    synonym = next(c for c in found[1] if c.factor == f"term:{stem('plan')}")
    assert "as synonym" in synonym.reason
    assert synonym.points <= next(c.points for c in found[0] if c.factor == f"term:{stem('plan')}")
    scores = totals("plan the migration", skills)
    assert scores["planner"] > scores["cron"]


def test_one_skill_word_is_credited_once_through_synonyms() -> None:
    skills = (skill("mailer", "Email in your tone."), skill("poet", "Poems."))
    found = route(skills, request("my mail inbox", skills).synthesis)[0]
    credited = [c.factor for c in found if "as synonym" in c.reason]
    assert len(credited) == 1  # "mail" and "inbox" both stand for "email": the skill's word counts once
    assert credited[0] in {f"term:{stem('mail')}", f"term:{stem('inbox')}"}


def test_a_synonym_the_name_uses_outweighs_a_word_the_body_mentions_once() -> None:
    body = "Intro. " + " ".join(f"word{i}" for i in range(300)) + " a container."
    others = tuple(skill(f"notes{i}", f"Meeting notes, kind {i}, with a container of agenda items.") for i in range(4))
    records = (skill("docker-helper", "Write and explain images to ship."), *others)
    docs = [Document.of(records[0], body=body), *(Document.of(r, body="") for r in others)]
    found = route(records, request("need a container for invoice ids").synthesis, docs)[0]
    word = next(c for c in found if c.factor == f"term:{stem('container')}")
    assert f"as synonym '{stem('docker')}'" in word.reason


@pytest.mark.parametrize(
    ("prompt", "winner"),
    [
        ("poke holes in my reasoning before we commit", "critic"),
        ("ballpark the yearly running bill for ten freezers", "estimator"),
    ],
)
def test_everyday_phrases_stand_for_the_work_they_name(prompt: str, winner: str) -> None:
    skills = (
        skill("critic", "Adversarial critique of a decision: challenge its assumptions."),
        skill("troubleshooter", "Diagnose the cause of errors and debug them."),
        skill("estimator", "Estimate and calculate order-of-magnitude figures."),
        skill("translator", "Translate documents between human languages."),
        skill("planner", "Plan a move to a new stack, step by step."),
        skill("writer", "Write a user guide or an export report."),
    )
    scores = totals(prompt, skills)
    assert max(scores, key=lambda name: scores[name]) == winner


def test_an_idiom_is_named_in_the_explanation() -> None:
    skills = (skill("critic", "Adversarial critique of a decision."), skill("poet", "Poems."))
    found = route(skills, request("poke holes in it", skills).synthesis)[0]
    critique = next(c for c in found if c.factor == f"term:{stem('critique')}")
    assert '(for "poke holes")' in critique.reason
    from swarm_handoff_router.request import IDIOM_WEIGHT

    assert 0 < IDIOM_WEIGHT < 1  # a phrase is a guess at the work: it counts less than a word said
    assert f"request weight {IDIOM_WEIGHT:g}" in critique.reason


@pytest.mark.parametrize(
    ("prompt", "ruled_out"),
    [
        ("it got slower and it's not the database, I checked", "the database"),
        ("fails every time, not flaky, just broken", "flaky"),
        ("the csv is already clean, I need a chart", "clean"),
        ("I don't need a doc, I want to understand the code", "a doc"),
    ],
)
def test_what_a_request_rules_out_is_split_off(prompt: str, ruled_out: str) -> None:
    from swarm_handoff_router.request import split_request_negation

    asked, out = split_request_negation(prompt)
    assert out.strip() == ruled_out
    assert ruled_out not in asked


@pytest.mark.parametrize("prompt", ["I can't reproduce the crash locally", "the tests don't pass", "no tests yet"])
def test_a_negated_verb_rules_nothing_out(prompt: str) -> None:
    from swarm_handoff_router.request import split_request_negation

    assert split_request_negation(prompt) == (prompt, "")


def test_a_ruled_out_word_earns_nothing() -> None:
    skills = (skill("flaky-triager", "Find why flaky tests fail."), skill("troubleshooter", "Debug a broken test."))
    # Word points: the second look compares candidates with each other, so only words are compared here.
    ruled_out = totals("it fails every time, not flaky, just broken", skills, second_look=False)
    said = totals("it fails every time, flaky, just broken", skills, second_look=False)
    assert ruled_out["flaky-triager"] < said["flaky-triager"]
    assert ruled_out["troubleshooter"] == said["troubleshooter"]
    found = route(skills, request("test fails, not flaky", skills).synthesis)[0]
    assert not any(c.factor == f"term:{stem('flaky')}" for c in found)


def test_idf_counts_the_skills_about_a_word_not_every_body_that_mentions_it() -> None:
    from swarm_handoff_router.index import Index
    from swarm_handoff_router.scoring import score_all

    def idf(documents: list[Document]) -> str:
        """The IDF a request for "pattern" is scored with, as its reason gives it."""
        contributions, _ = score_all(documents, request("pattern").synthesis)
        return next(c.reason for c in contributions[0] if c.factor == f"term:{stem('pattern')}").split("; ")[1]

    late = " ".join(f"step{i}" for i in range(200)) + " a pattern in passing"
    docs = [Document.of(skill("regex", "Text patterns."), body="")]
    docs += [Document.of(skill(f"other{i}", f"Other work {i}."), body=late) for i in range(5)]
    posting = Index.of(docs).posting(stem("pattern"))
    assert posting is not None
    assert (posting.frequency, posting.mentions) == (1, 5)  # about it: one skill; mentioning it: five bodies
    assert idf(docs) == idf(docs[:1] + [Document.of(skill("x", "Y."), body="")] * 5)


@pytest.mark.parametrize(
    ("text", "name", "named"),
    [
        ("use the planner to carry out the move", "planner", True),
        ("hand it off to decision-critic please", "decision-critic", True),
        ("ask the decision critic", "decision-critic", True),
        ("the planner skill, please", "planner", True),
        ("the editor crashes on save", "editor", False),  # an ordinary word, not a call on the skill
        ("a critical decision", "decision-critic", False),
        ("use the planners", "planner", False),
    ],
)
def test_a_request_can_name_a_skill(text: str, name: str, named: bool) -> None:
    from swarm_handoff_router.request import names_skill

    assert names_skill(text, name) is named


def test_a_named_skill_earns_an_explained_bonus() -> None:
    skills = (
        skill("planner", "Plans."),
        skill("architect", "Design a new system before the move."),
        *(skill(f"other{i}", f"Other work, kind {i}.") for i in range(8)),
    )
    found = route(skills, request("use the planner for the move to the new system", skills).synthesis)
    named = [c for c in found[0] if c.factor == "named"]
    assert len(named) == 1
    assert named[0].points > 0
    assert "names the skill" in named[0].reason
    assert not any(c.factor == "named" for c in found[1])
    scores = totals("use the planner for the move to the new system", skills)
    assert scores["planner"] > scores["architect"]


def test_a_word_the_body_uses_is_not_held_against_the_skill_by_its_own_when_not_to_use_section() -> None:
    body = "Fetch every page of a site into rows.\n\n## When not to use\n\n- The site offers an API: use that.\n"
    records = (skill("scraper", "Collect listings into a table."), skill("other", "Unrelated work."))
    docs = [Document.of(records[0], body=body), Document.of(records[1], body="")]
    found = route(records, request("all the listings from a real estate site").synthesis, docs)[0]
    assert not any(c.factor.startswith("not-for:") for c in found)
    assert any(c.factor == f"term:{stem('site')}" and c.points > 0 for c in found)
    # A word only the "when not to use" section says still costs the skill.
    found = route(records, request("the site offers an API").synthesis, docs)[0]
    assert any(c.factor == f"not-for:{stem('api')}" and c.points < 0 for c in found)


def test_a_word_most_bodies_say_is_worth_less_in_a_body() -> None:
    filler = " ".join(f"step{i}" for i in range(130))  # past the opening: body only
    records = tuple(skill(f"s{i}", f"Work of kind {i}.") for i in range(6))
    docs = [Document.of(r, body=f"{filler} It raises errors.") for r in records[:5]]
    docs.append(Document.of(records[5], body=f"{filler} It parses invoices."))
    found = route(records, request("raises invoices").synthesis, docs)
    raises = next(c for c in found[0] if c.factor == f"term:{stem('raises')}")
    invoices = next(c for c in found[5] if c.factor == f"term:{stem('invoices')}")
    assert "the IDF over bodies" in raises.reason
    assert 0 < raises.points < invoices.points


def test_one_thing_saying_another_is_wrong_reads_as_a_contradiction() -> None:
    from swarm_handoff_router.phrases import idioms

    words = " ".join(w for _, w in idioms("the docstring says it returns None but the code raises ValueError"))
    assert "contradiction" in words
    assert "contradiction" in " ".join(w for _, w in idioms("README says 5, the code says 3"))
    assert idioms("it says hello") == []


@pytest.mark.parametrize(
    ("text", "word"),
    [
        ("before we build recurring payments, what could go wrong?", "edge"),
        ("which test should I use to compare three groups", "statistical"),
        ("how many mice per group for a 20% difference", "statistics"),
        ("answer this one furious customer without making it worse", "email"),
        ("write a polite note to my kid's teacher", "email"),
        ("the 2am backup never happens", "cron"),
        ("the report script takes 40 minutes, where is the time actually going", "profile"),
        ("what have completely different industries figured out about this", "analogy"),
        ("would like this reasoned through properly", "reasoning"),
    ],
)
def test_everyday_phrases_for_common_kinds_of_work(text: str, word: str) -> None:
    from swarm_handoff_router.phrases import idioms

    assert word in " ".join(words for _, words in idioms(text)).split()


def test_phrases_come_in_the_same_order_whatever_the_hash_seed() -> None:
    """Sets iterate in hash order; the sums of a ranking must not depend on PYTHONHASHSEED."""
    from swarm_handoff_router.request import Request

    found = list(Request.of(request("zebra crossing apple pie mango chutney root cause").synthesis).phrases)
    assert found == sorted(found)
