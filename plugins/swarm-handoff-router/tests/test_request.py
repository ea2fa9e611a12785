"""The request side of the router: one analysis per request, what it rules out, names and phrases."""

from __future__ import annotations

import pytest

from swarm_handoff.api import SkillRecord, parse_synthesis
from swarm_handoff_router import request as request_module
from swarm_handoff_router.phrases import idioms
from swarm_handoff_router.request import Request, Spelled, names_skill, split_request_negation
from swarm_handoff_router.router import route
from swarm_handoff_router.text import stem


def skill(name: str, description: str) -> SkillRecord:
    return SkillRecord(name=name, scope="global", source="test", description=description)


class _Counting(tuple):  # type: ignore[type-arg]
    """A request's tokens that record every look, so a test can count the work naming does."""

    def __new__(cls, tokens: tuple[str, ...], looked: list[object]) -> _Counting:
        counting = super().__new__(cls, tokens)
        counting.looked = looked  # type: ignore[attr-defined]
        return counting

    def __getitem__(self, index):  # type: ignore[no-untyped-def]
        self.looked.append(index)  # type: ignore[attr-defined]
        return tuple.__getitem__(self, index)


def synthesis(prompt: str) -> object:
    return parse_synthesis({"original_prompt": prompt, "problem_type": "research"})


@pytest.mark.parametrize(
    ("prompt", "ruled_out", "kept"),
    [
        # "already" rules out a few words up to a conjunction, not the rest of the sentence
        ("I already ran the tests and the build still crashes", "ran the tests", "build still crashes"),
        # a list joined by "or" is ruled out whole
        ("I don't need filters or folders, just a reply", "filters or folders", "reply"),
        # a finished thing is ruled out, the word that says it is finished is kept
        ("my deck is done but the talk runs long", "my deck", "is done but the talk runs long"),
        ("thesis defence next week, slides final. prep me", "slides", "prep me"),
        ("the migration task is finished; confirm it holds", "migration task", "is finished"),
    ],
)
def test_a_request_rules_out_a_few_words_not_a_whole_clause(prompt: str, ruled_out: str, kept: str) -> None:
    asked, out = split_request_negation(prompt)
    assert out.strip() == ruled_out
    assert kept in " ".join(asked.split())


def test_words_ruled_out_reach_neither_terms_phrases_nor_names() -> None:
    analysed = Request.of(synthesis("I don't need the code-review skill; find the leak"))
    assert stem("review") not in analysed.terms
    assert not any(stem("review") in pair for pair in analysed.phrases)
    assert not analysed.names("code-review")
    assert stem("leak") in analysed.terms
    assert Request.of(synthesis("hand it to code-review, then find the leak")).names("code-review")


def test_a_skill_the_request_rules_out_is_not_named_in_the_ranking() -> None:
    skills = (skill("code-review", "Review a change."), *(skill(f"other{i}", f"Kind {i} of work.") for i in range(4)))
    found = route(skills, synthesis("I don't need code-review, find the memory leak"))[0]
    assert not any(c.factor == "named" for c in found)
    found = route(skills, synthesis("use code-review on the memory leak fix"))[0]
    assert any(c.factor == "named" for c in found)


@pytest.mark.parametrize(
    ("text", "name", "named"),
    [
        ("hand it to node.js-helper", "node.js-helper", True),
        ("hand it to node helper", "node.js-helper", False),
        ("use the c++-builder for this", "c++-builder", True),
        ("ask café-planner about the menu", "café-planner", True),
        ("ask CAFÉ PLANNER about the menu", "café-planner", True),
        ("use a hammer", "a", False),  # a skill called "a" is not named by every sentence
        ("use the tool", "the", False),
        ("please use the planner.", "planner", True),
        ("hand it off to the planner", "planner", True),
        ("the planner broke", "planner", False),
        ("decision-critics", "decision-critic", False),
    ],
)
def test_names_in_any_script_and_with_punctuation_can_be_called_on(text: str, name: str, named: bool) -> None:
    assert names_skill(text, name) is named


def test_a_ranking_reads_the_request_once_not_once_per_skill(monkeypatch: pytest.MonkeyPatch) -> None:
    """Naming is an index lookup per skill: a 100 KB request over many skills is tokenised once."""
    calls = []
    original = Spelled.of

    def counting(text: str) -> Spelled:
        calls.append(len(text))
        return original(text)

    monkeypatch.setattr(request_module.Spelled, "of", staticmethod(counting))
    skills = tuple(skill(f"name-{i}", f"Kind {i} of work.") for i in range(60))
    route(skills, synthesis("use name-7 " + "filler words " * 5000))
    assert len(calls) == 1


def test_each_request_field_goes_through_the_exclusion_pattern_once(monkeypatch: pytest.MonkeyPatch) -> None:
    """The terms and the phrases of a field read the same text with its exclusions gone, stripped once."""
    passes: list[str] = []
    pattern = request_module._REQUEST_NEGATION

    class Counting:
        def sub(self, replacement: str, text: str) -> str:
            passes.append(text)
            return pattern.sub(replacement, text)

        def finditer(self, text: str) -> object:
            passes.append(text)
            return pattern.finditer(text)

    monkeypatch.setattr(request_module, "_REQUEST_NEGATION", Counting())
    read = Request.of(
        parse_synthesis(
            {
                "original_prompt": "poke holes in the plan, not the budget; the migration is done",
                "reframed_challenge": "critique the plan",
                "synthesis_summary": "a plan to review",
                "problem_type": "research",
            }
        )
    )
    assert len(passes) == 3  # one per request field
    assert stem("budget") not in read.terms  # ruled out
    assert stem("migration") not in read.terms  # finished
    assert stem("plan") in read.terms
    assert read.origins.get("adversari") == "poke holes"  # the phrase was read from the kept text


@pytest.mark.parametrize(
    ("text", "verifies"),
    [
        ("the developer agent says the migration task is finished; confirm it", True),
        ("is it actually done? check every requirement", True),
        ("before you tell me it's done, prove it", True),
        ("my deck is done but the talk runs long", False),  # finished work, not a question of whether
    ],
)
def test_asking_whether_work_is_done_reads_as_verification(text: str, verifies: bool) -> None:
    words = " ".join(stand_in for _, stand_in in idioms(text)).split()
    assert ("verify" in words) is verifies


@pytest.mark.parametrize(
    ("text", "word"),
    [
        ("api.staging gives NXDOMAIN but it's in route53", "dns"),
        ("getting ImportError: cannot import name 'Session'", "error"),
        ("since monday our api returns intermittent 502s", "http"),
        ("checkout is down, 500s everywhere", "server"),
        ("latexmk dies with undefined control sequence", "latex"),
        ("chrome says 'your connection is not private'", "certificate"),
        ("port the aws lambda handler to rust crate style", "cloud"),
        ("the lambda handler times out", "cloud"),
        ("the oracle database is slow", "database"),
        ("poetry add fails on my laptop", "package"),
    ],
)
def test_named_tools_and_messages_stand_for_their_kind_of_work(text: str, word: str) -> None:
    assert word in " ".join(stand_in for _, stand_in in idioms(text)).split()


@pytest.mark.parametrize("text", ["import 500 rows from the csv", "the 404 page copy needs a rewrite", "git blame"])
def test_a_number_or_a_plain_tool_word_is_not_taken_for_more_than_it_says(text: str) -> None:
    words = " ".join(stand_in for _, stand_in in idioms(text)).split()
    assert "http" not in words
    assert "repository" not in words


def test_naming_looks_only_where_the_names_rarest_word_stands() -> None:
    """A long request that repeats a common word costs each skill one look per rare word, not per common one."""
    spelled = Spelled.of("data " * 20000 + "run the data pipeline audit now")
    assert spelled.names("data-pipeline-audit")
    assert not spelled.names("data-pipeline-review")
    looked: list[object] = []

    counted = Spelled(_Counting(spelled.tokens, looked), spelled.positions)
    assert counted.names("data-pipeline-audit")
    assert len(looked) <= 2


@pytest.mark.parametrize(
    "prompt",
    [
        "the PR is ready for review",  # ready for the next step, which is the request
        "when the build is done, deploy it",
        "make sure the migration is complete",
        "check whether the data migration is complete",
        "decide if the experiment is finished",
        "the backend is written in Rust; profile it",
        "the backups are sorted by date, restore the latest",
        "my decision is final but I want a critique",
        "the report is done to a first draft",
        "the script is not working.",  # a symptom, not something ruled out
        "whether or not the test is flaky, fix it",
        "I don't want to lose data during the migration",  # a constraint on the work
    ],
)
def test_the_object_of_a_request_is_never_ruled_out(prompt: str) -> None:
    asked, out = split_request_negation(prompt)
    assert out.strip() == ""
    assert asked == prompt


def test_a_skill_the_request_says_not_to_use_is_not_named() -> None:
    analysed = Request.of(synthesis("don't use the planner, use the editor"))
    assert not analysed.names("planner")
    assert analysed.names("editor")


def test_a_name_cannot_run_from_one_request_field_into_the_next() -> None:
    found = parse_synthesis(
        {"original_prompt": "ask the decision", "reframed_challenge": "critic said no", "problem_type": "research"}
    )
    assert not Request.of(found).names("decision-critic")


@pytest.mark.parametrize(
    "text",
    [
        "a terror attack in the novel",
        "I see 500 people a day",
        "returns 500 items",
        "the repo is not private",
        "pods of whales",
        "said in jest",
        "the outlook for next year",
        # Ordinary nouns are things of every kind of work, not signs of one.
        "nudge a client about an invoice two weeks late",
        "a year of receipts in a folder",
        "my calendar is full",
        "my inbox is full",
        # Tool and language names that are everyday English.
        "lambda calculus homework",
        "plans for spring",
        "express my thanks to the team",
        "the train rails were icy",
        "a swift answer from the bank",
        "rust on my bike",
        "a cup of java",
        "the oracle at Delphi",
        "I lost ten pounds",
        "polish the prose of this draft",
        "write poetry for a wedding",
        "a cargo ship",
        "celery sticks for lunch",
        "an essay on Kafka",
        "a red stripe",
        "how should I react to this",
        "she wants to excel at sales",
        "a latex allergy",
        "the myth of Prometheus",
        "a conical flask",
        "a playwright's first draft",
        "improve the airflow in my bedroom",
        "pandas at the zoo",
    ],
)
def test_everyday_words_are_not_taken_for_tools(text: str) -> None:
    assert idioms(text) == []


def test_a_long_request_is_scored_against_each_skills_own_words(monkeypatch: pytest.MonkeyPatch) -> None:
    """Matching a pasted log word by word would cost skills x request words; the index looks at each skill's own."""
    from swarm_handoff_router import document, index, scoring

    looks: list[str] = []

    class Counts(dict):  # type: ignore[type-arg]
        """A touched skill's counts, each look-up recorded."""

        def get(self, key: object, default: object = None) -> object:
            looks.append(str(key))
            return super().get(key, default)

    original_touched = index.touched

    def counted(built: index.Index, request: Request) -> object:
        found, corpus = original_touched(built, request)
        for one in found.values():
            one.counts = Counts(one.counts)
        return found, corpus

    monkeypatch.setattr(scoring, "touched", counted)
    skills = (
        skill("log-reader", "Read server logs and find the failing request (not for metrics dashboards)."),
        skill("defect-hunter", "Track down a defect step by step."),
        skill("chart-maker", "Draw a chart of monthly figures."),
    )
    noise = " ".join(f"word{i} token{i}" for i in range(300))
    prompt = f"the server logs show a bug in the failing request; {noise}; no metrics dashboards please, root cause"
    strengths: list[str] = []
    original = scoring._RequestScorer._strength

    def counting(self: scoring._RequestScorer, term: str, tfs: tuple[int, ...], norms: list[float]) -> float:
        strengths.append(term)
        return original(self, term, tfs, norms)

    monkeypatch.setattr(scoring._RequestScorer, "_strength", counting)
    ranked = route(skills, synthesis(prompt), document.analyse(skills))
    assert any(c.factor.startswith("not-for:") for c in ranked[0])  # negative words are looked at
    assert any("as synonym" in c.reason for c in ranked[1])  # so are synonyms of the skill's words
    assert 0 < len(strengths) < 3 * 40  # not 3 skills x 600+ request words
    assert 0 < len(looks) < 3 * 40  # each skill asked about its own words only (1,128 look-ups when it was not)


def test_a_name_whose_every_word_the_request_repeats_is_one_search_not_a_look_per_word() -> None:
    text = "data q pipeline q audit q " * 5000
    spelled = Spelled.of(text + "please use data-pipeline-audit")
    assert spelled.names("data-pipeline-audit")
    assert not Spelled.of(text).names("data-pipeline-audit")
    looked: list[object] = []

    counted = Spelled(_Counting(spelled.tokens, looked), spelled.positions, spelled.joined)
    assert counted.names("data-pipeline-audit")
    assert looked == []
    assert Spelled.of("data\x01pipeline\x01audit").names("data-pipeline-audit")  # the separator is not a word
