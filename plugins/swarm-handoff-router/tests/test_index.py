"""The router's index: stored once per skill set, scored through postings, the same points as before."""

from __future__ import annotations

import marshal
import os
import time
from pathlib import Path
from types import ModuleType

import pytest

from swarm_handoff.api import FileMemo, SkillRecord
from swarm_handoff_router import analysis_cache, evidence, index, router, scoring
from swarm_handoff_router.analysis_cache import memo_version
from swarm_handoff_router.document import FIELD_B, FIELD_WEIGHTS, FIELDS, Document, analyse
from swarm_handoff_router.index import Index, build
from swarm_handoff_router.router import route

HOUR_AGO = time.time() - 3600


class Query:
    """A request as the scorer reads a synthesis."""

    def __init__(self, text: str, summary: str = "") -> None:
        self.original_prompt = text
        self.reframed_challenge = ""
        self.synthesis_summary = summary


def write(folder: Path, name: str, description: str, body: str) -> SkillRecord:
    path = folder / name / "SKILL.md"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(f"---\nname: {name}\ndescription: {description}\n---\n{body}", encoding="utf-8")
    os.utime(path, (HOUR_AGO, HOUR_AGO))
    return SkillRecord(name=name, scope="global", source="test", description=description, path=str(path))


TOPICS = (
    ("vendor quotes", "Compare vendor quotes and estimate the cost of a purchase."),
    ("blog essay", "Write a blog post or an essay in a plain style."),
    ("regex pattern", "Build and test a regex for log lines."),
    ("slide deck", "Make a slide deck for a presentation. Not for spreadsheets."),
    ("root cause", "Find the root cause of a crash from its stack trace."),
)


@pytest.fixture
def skills(tmp_path: Path) -> list[SkillRecord]:
    """Enough skills for the memos to be used, with synonyms, phrases and negative clauses among them."""
    out = []
    for number in range(analysis_cache.MIN_RECORDS + 10):
        words, sentence = TOPICS[number % len(TOPICS)]
        description = f"{words} helper {number}; not for tax filings" if number % 3 else f"{words} {number}"
        body = f"# Skill\n\n{sentence}\n\nStep {number}: read the notes.\n\n## When not to use\n\n- legal advice\n"
        out.append(write(tmp_path, f"skill-{number}", description, body))
    return out


REQUESTS = (
    "compare the quotes from three vendors",
    "write an essay for our blog about caching",
    "my presentation needs slides, not a spreadsheet",
    "why does it crash? find the root cause",
    "tax filings for the year",
    "use skill-7 to draft it",
    "nothing here matches zebra",
    " ".join(f"word{n}" for n in range(64)) + " regex pattern for log lines, vendor quotes",
)


def test_the_index_follows_the_router_fields() -> None:
    assert tuple(FIELD_WEIGHTS) == tuple(FIELD_B) == FIELDS  # one list of fields: the postings' order
    built = Index.of([Document.of(SkillRecord(name="quotes", scope="global", source="t", description="vendor"))])
    assert built.posting("quot").counts.tolist() == [1, 0, 0, 0]  # type: ignore[union-attr]  # the name, first
    assert built.posting("vend").counts.tolist() == [0, 1, 0, 0]  # type: ignore[union-attr]  # the description


def test_each_word_has_its_counts_in_every_field_and_its_frequencies() -> None:
    # "quotes" in the name and the body's opening; "vendor" in the description and twice in the body;
    # "ledger" once in the body past its opening; "tariff" in a second skill's body only
    filler = " ".join(f"topic{n}" for n in range(130))
    first = Document.of(
        SkillRecord(name="quotes", scope="global", source="t", description="vendor"),
        body=f"Quotes from a vendor. {filler} vendor ledger",
    )
    second = Document.of(SkillRecord(name="other", scope="global", source="t", description="misc"), body="tariff")
    built = Index.of([first, second])
    expected = {"quot": ([0], [1, 0, 1, 1]), "vend": ([0], [0, 1, 1, 2]), "ledg": ([0], [0, 0, 0, 1])}
    expected["tarif"] = ([1], [0, 0, 1, 1])  # a body's first word is in its opening as well
    for word, (docs, counts) in expected.items():
        posting = built.posting(word)
        assert posting is not None
        assert (posting.docs.tolist(), posting.counts.tolist()) == (docs, counts), word
    # the frequency counts the skills that claim a word (name, description, opening); mentions every body
    assert [(built.posting(w).frequency, built.posting(w).mentions) for w in ("quot", "ledg")] == [(1, 1), (0, 1)]  # type: ignore[union-attr]


@pytest.mark.parametrize("text", REQUESTS)
def test_points_and_reasons_through_the_index_equal_those_of_whole_documents(
    skills: list[SkillRecord], text: str
) -> None:
    documents = [Document.of(s) for s in skills]
    expected = route(skills, Query(text, "summary with a regex"), documents)
    assert route(skills, Query(text, "summary with a regex")) == expected  # built, and stored
    assert route(skills, Query(text, "summary with a regex")) == expected  # read back from the memo


def test_a_second_ranking_reads_the_stored_index_and_analyses_nothing(
    skills: list[SkillRecord], monkeypatch: pytest.MonkeyPatch
) -> None:
    first = route(skills, Query("compare vendor quotes"))

    def no_analysis(*args: object, **kwargs: object) -> list[Document]:
        raise AssertionError("the stored index should have been used")

    monkeypatch.setattr(index, "analyse", no_analysis)
    assert route(skills, Query("compare vendor quotes")) == first


def test_an_edited_skill_rebuilds_the_index_analysing_only_that_skill(
    skills: list[SkillRecord], monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    route(skills, Query("compare vendor quotes"))
    path = Path(skills[4].path or "")
    path.write_text(path.read_text(encoding="utf-8") + "\nAlso audits vendor invoices.\n", encoding="utf-8")
    os.utime(path, (HOUR_AGO + 60, HOUR_AGO + 60))
    analysed: list[str] = []
    original = Document.of.__func__  # type: ignore[attr-defined]

    def counting(cls: type[Document], skill: SkillRecord, body: str | None = None) -> Document:
        if skill is not analysis_cache._REFERENCE:
            analysed.append(skill.name)
        return original(cls, skill, body)

    monkeypatch.setattr(Document, "of", classmethod(counting))
    ranked = route(skills, Query("audit the vendor invoices"))
    assert analysed == ["skill-4"]
    assert ranked == route(skills, Query("audit the vendor invoices"), [original(Document, s) for s in skills])


def test_a_damaged_stored_index_is_built_again_with_the_same_ranking(skills: list[SkillRecord]) -> None:
    expected = route(skills, Query("write a blog essay"))
    memo = FileMemo(index.MEMO_NAME, memo_version())
    assert memo.entries, "the index should have been stored"
    for key, (inputs, state) in list(memo.entries.items()):
        postings = dict(state[5])
        for word, (df, mentions, docs, counts) in postings.items():
            postings[word] = (df, mentions, docs + b"\xff\xff\xff\x7f", counts)  # a skill number out of range
        memo.entries[key] = (inputs, (*state[:5], postings, *state[6:]))
    memo.dirty = True
    memo.save()
    assert route(skills, Query("write a blog essay")) == expected


@pytest.mark.parametrize(
    "state",
    [
        None,
        (index.INDEX_FORMAT,),
        (index.INDEX_FORMAT, ("a",), ((1, 2, 3),), ((),), (1.0, 1.0, 1.0, 1.0), {}, {}, {}, {}),
        (index.INDEX_FORMAT, ("a",), ((1, 2, 3, 4),), ((),), (float("nan"), 1.0, 1.0, 1.0), {}, {}, {}, {}),
        (index.INDEX_FORMAT, 5, (), (), (1.0, 1.0, 1.0, 1.0), {}, {}, {}, {}),
        (index.INDEX_FORMAT, (), (), (), (1.0, 1.0, 1.0, 1.0), [], {}, {}, {}),
    ],
)
def test_a_stored_index_of_another_shape_is_refused(state: object) -> None:
    with pytest.raises(index.DamagedIndex):
        Index.from_state(state)


@pytest.mark.parametrize("cut", [4, 1])
def test_a_posting_with_misaligned_counts_is_refused(cut: int) -> None:
    built = Index.of([Document.of(SkillRecord(name="a", scope="global", source="t", description="vendor quotes"))])
    word = next(iter(built.postings))
    frequency, mentions, docs, counts = built.postings[word]
    head = [getattr(built, f) for f in ("names", "lengths", "clauses", "average")]
    broken = Index(*head, {word: (frequency, mentions, docs, counts[:-cut])}, {}, {}, {})
    with pytest.raises(index.DamagedIndex):
        broken.posting(word)


def test_the_index_round_trips_through_the_memo_format(skills: list[SkillRecord]) -> None:
    built = Index.of(analyse(skills))
    again = Index.from_state(marshal.loads(marshal.dumps(built.to_state())))
    assert again == built


def test_only_skills_sharing_a_word_with_the_request_are_scored(
    skills: list[SkillRecord], monkeypatch: pytest.MonkeyPatch
) -> None:
    scored: list[str] = []
    original = scoring._RequestScorer.score

    def counting(self: scoring._RequestScorer, name: str, *args: object) -> object:
        scored.append(name)
        return original(self, name, *args)  # type: ignore[arg-type]

    monkeypatch.setattr(scoring._RequestScorer, "score", counting)
    ranked = route(skills, Query("a regex for log lines"))
    regex = {s.name for s in skills if s.description.startswith("regex")}
    assert set(scored) == regex  # one skill in five talks of regexes; the others are not looked at
    assert len(ranked) == len(skills)
    assert all(ranked[i][0].factor == "router" for i, s in enumerate(skills) if s.name not in regex)


def test_the_memos_grow_with_the_skill_set() -> None:
    small_entries, small_bytes = analysis_cache.memo_bounds(100)
    entries, size = analysis_cache.memo_bounds(50_000)
    assert entries >= 50_000
    assert size >= 50_000 * analysis_cache.BYTES_PER_SKILL > small_bytes
    assert small_entries >= 100


def test_without_the_cache_the_index_is_built_in_memory(
    skills: list[SkillRecord], monkeypatch: pytest.MonkeyPatch, own_cache: Path
) -> None:
    monkeypatch.setenv("SWARM_HANDOFF_NO_CACHE", "1")
    expected = route(skills, Query("slide deck"), [Document.of(s) for s in skills])
    assert route(skills, Query("slide deck")) == expected
    assert not list(own_cache.rglob("router-index.bin"))


def test_build_stores_one_index_per_skill_set(skills: list[SkillRecord]) -> None:
    build(skills)
    build(skills[:-1])
    memo = FileMemo(index.MEMO_NAME, memo_version())
    assert len(memo.entries) == 2


def test_every_labelled_set_ranks_as_with_whole_documents(bench: ModuleType) -> None:
    """A sample of every request set over the bench's fixture skills: the stored index ranks as one built in memory."""
    records = bench.load_skills(Path("/nonexistent"))  # the fixtures only: they are in the repository
    documents = [Document.of(r) for r in records]
    compared = 0
    for path in bench.request_files().values():
        for request in bench.load_requests(path)[::15]:
            query = bench.Query(request["q"])
            assert route(records, query) == route(records, query, documents), request["q"]
            compared += 1
    assert compared > 100


def test_a_request_no_skill_shares_a_word_with_abstains(skills: list[SkillRecord]) -> None:
    _, found = router.route_with_evidence(skills, Query("book a table for two at an italian restaurant"))
    assert found.abstain
    assert found.best is None
    assert "below the threshold" in found.reason()


def test_a_request_a_skill_answers_in_its_own_words_does_not_abstain(skills: list[SkillRecord]) -> None:
    ranked, found = router.route_with_evidence(skills, Query("find the root cause of this crash"))
    assert not found.abstain
    assert found.best is not None
    assert found.best in {s.name for s in skills if "root cause" in s.description}
    assert "at or above the threshold" in found.reason()
    assert ranked == route(skills, Query("find the root cause of this crash"))  # the same ranking as `route`


def test_the_evidence_is_the_weighted_sum_of_its_features(skills: list[SkillRecord]) -> None:
    _, found = router.route_with_evidence(skills, Query("compare vendor quotes"))
    expected = sum(evidence.EVIDENCE_WEIGHTS[k] * v for k, v in found.features.items())
    assert found.score == pytest.approx(expected, abs=1e-3)
    assert found.threshold == evidence.ABSTAIN_THRESHOLD
    assert set(found.features) == set(evidence.EVIDENCE_WEIGHTS)


def test_postings_are_stored_in_the_narrowest_numbers_that_hold_them() -> None:
    small = Document.of(SkillRecord(name="a", scope="global", source="t", description="vendor quotes"))
    built = Index.of([small])
    _, _, docs, counts = built.postings["vend"]  # "vendor", stemmed
    assert len(docs) == 2  # one skill number, under 65,536 skills: two bytes
    assert len(counts) == len(FIELDS)  # four counts under 256: a byte each


def test_counts_too_large_for_a_byte_keep_their_points(tmp_path: Path) -> None:
    body = "vendor " * 300 + "\n\nquotes and prices.\n"
    records = [write(tmp_path, f"skill-{n}", f"helper {n}", body if n == 0 else "prices.\n") for n in range(3)]
    documents = [Document.of(r) for r in records]
    built = Index.of(documents)
    assert built.posting("vend").counts[3] >= 256  # type: ignore[union-attr]
    _, _, _, counts = built.postings["vend"]
    assert len(counts) == 2 * len(FIELDS)  # two bytes a count for this posting only
    query = Query("vendor prices")
    stored = Index.from_state(marshal.loads(marshal.dumps(built.to_state())))
    assert scoring.score_index(stored, query) == scoring.score_index(built, query)
    contributions, _ = scoring.score_index(stored, query)
    assert any("body 300x" in c.reason for c in contributions[0])  # the count, not a byte's worth of it


def test_the_index_key_and_the_code_version_do_not_load_openssl() -> None:
    """A warm ranking digests the router's code and its records: the builtin BLAKE2b does it, since
    `hashlib` loads OpenSSL (~11 M instructions, docs/performance.md) on every warm `route`."""
    import subprocess
    import sys

    program = (
        "import sys\n"
        "from swarm_handoff.api import SkillRecord\n"
        "from swarm_handoff_router import analysis_cache, index\n"
        "version = analysis_cache.memo_version()\n"
        "key = index.index_key([SkillRecord(name='a', scope='project', source='t')], version)\n"
        "assert len(version) == 64 and key.startswith('index:1:'), (version, key)\n"
        "print(sorted(m for m in ('hashlib', '_hashlib') if m in sys.modules))\n"
    )
    done = subprocess.run([sys.executable, "-c", program], capture_output=True, text=True, check=True)
    assert done.stdout.strip() == "[]"
