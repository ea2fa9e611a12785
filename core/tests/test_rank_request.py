"""`rank --request TEXT`: a request in words ranks every discovered skill, no synthesis file (issue 28.1, 28.2)."""

from __future__ import annotations

import json
from typing import Any

import pytest

from swarm_handoff.api import hookimpl
from swarm_handoff.records import Contribution, SkillRecord
from swarm_handoff.request_words import MAX_REQUEST_CHARS

DECLARED = SkillRecord(
    name="planner", scope="global", source="fake", categories=("analysis",), description="Plan the work"
)
PLAIN = SkillRecord(
    name="pdf-filler", scope="global", source="fake", description="Fill PDF forms", meta={"undeclared": True}
)
SYNTHESIS = "original_prompt: Plan it.\nproblem_type: decision\nsynthesis_summary: Plan.\n"


def words_scorer() -> Any:
    """A stand-in `router`: points for each request word in the skill's description."""

    class Scorer:
        def score(self, candidate: SkillRecord, request: Any) -> list[Contribution]:
            words = set(request.synthesis.original_prompt.lower().split())
            hits = len(words & set(candidate.description.lower().split()))
            return [Contribution("words", hits, f"{hits} request words in the description")]

    class Plugin:
        @hookimpl
        def swarm_handoff_scorers(self, register: Any) -> None:
            register("router", Scorer)

    return Plugin()


@pytest.fixture
def skills(register_source: Any, tmp_path: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    from swarm_handoff import undeclared

    register_source("fake", (DECLARED,))
    # The undeclared skill is what `with_undeclared` adds to what discovery found.
    monkeypatch.setattr(undeclared, "with_undeclared", lambda found: (*found.workflows, PLAIN))


def test_a_request_in_words_ranks_every_skill_with_the_router(
    skills: None, register_plugin: Any, swarm_cli: Any, tmp_path: Any
) -> None:
    register_plugin(words_scorer(), "router")
    result = swarm_cli("rank", "--request", "fill these pdf forms", "--cwd", str(tmp_path), "-f", "json")
    assert result.exit_code == 0, result.stderr
    data = json.loads(result.stdout)
    assert data["scorer"] == "router"
    assert [w["skill"] for w in data["workflows"]] == ["pdf-filler", "planner"]
    assert data["request"]["problem_type"] == "analytical"  # the default a request in words carries
    assert data["request"]["synthesis"] is None


def test_a_named_scorer_still_wins_over_the_rule(
    skills: None, register_plugin: Any, swarm_cli: Any, tmp_path: Any
) -> None:
    register_plugin(words_scorer(), "router")
    args = ("rank", "--request", "fill pdf forms", "--scorer", "swarm-v2", "--cwd", str(tmp_path), "-f", "json")
    assert json.loads(swarm_cli(*args).stdout)["scorer"] == "swarm-v2"


def test_without_the_router_the_rule_falls_back_and_says_the_ranking_is_indistinct(
    skills: None, swarm_cli: Any, tmp_path: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    from swarm_handoff import undeclared

    other = SkillRecord(name="regex", scope="global", source="fake", description="Regex", meta={"undeclared": True})
    monkeypatch.setattr(undeclared, "with_undeclared", lambda found: (PLAIN, other))
    result = swarm_cli("rank", "--request", "fill pdf forms", "--cwd", str(tmp_path))
    assert result.exit_code == 0, result.stderr
    assert "RANKING_INDISTINCT" in result.stderr
    json_run = swarm_cli("rank", "--request", "fill pdf forms", "--cwd", str(tmp_path), "-f", "json")
    assert "RANKING_INDISTINCT" not in json_run.stderr  # machine formats: in the document only
    assert [p["code"] for p in json.loads(json_run.stdout)["problems"]] == ["RANKING_INDISTINCT"]


def test_no_scorer_named_keeps_swarm_v2_for_declared_targets_of_a_synthesis(
    skills: None, register_plugin: Any, swarm_cli: Any, tmp_path: Any
) -> None:
    register_plugin(words_scorer(), "router")
    path = tmp_path / "synthesis.yaml"
    path.write_text(SYNTHESIS, encoding="utf-8")
    data = json.loads(swarm_cli("rank", "--synthesis", str(path), "--cwd", str(tmp_path), "-f", "json").stdout)
    assert data["scorer"] == "swarm-v2"
    assert [w["skill"] for w in data["workflows"]] == ["planner"]


@pytest.mark.parametrize(
    ("args", "words"),
    [
        (("--request", "  "), "--request is empty"),
        (("--request", "x" * (MAX_REQUEST_CHARS + 1)), "at most"),
        (("--request", "plan it", "--synthesis", "s.yaml"), "give one"),
        ((), "needs a synthesis or a request in words: neither --synthesis nor --request"),
        (("--request", "plan it", "--problem-type", "cooking"), "not a problem type"),
    ],
)
def test_a_bad_request_is_a_usage_error(
    skills: None, swarm_cli: Any, tmp_path: Any, args: tuple[str, ...], words: str
) -> None:
    result = swarm_cli("rank", *args, "--cwd", str(tmp_path), "-f", "json")
    assert result.exit_code == 2, result.stdout
    error = json.loads(result.stdout)["error"]
    assert error["code"] == "USAGE"
    assert words in json.dumps(error)


def test_a_cwd_that_is_not_a_folder_is_refused_as_discover_refuses_it(
    skills: None, swarm_cli: Any, tmp_path: Any
) -> None:
    # `rank --request x --cwd /mistyped` ranked only the installed packs, all at 0 points
    missing = tmp_path / "no-such-project"
    result = swarm_cli("rank", "--request", "plan it", "--cwd", str(missing), "-f", "json")
    assert result.exit_code == 2, result.stdout
    error = json.loads(result.stdout)["error"]
    assert error["code"] == "USAGE"
    assert f"--cwd {missing} is not a folder" in error["message"]


def test_rank_help_states_the_ranking_rule(swarm_cli: Any) -> None:
    page = " ".join(swarm_cli("rank", "-h").stdout.split())
    assert "router by default for undeclared candidates or a request in words" in page
    assert "swarm-v2 for synthesis-based ranking of declared targets" in page


def test_a_request_in_words_has_one_bound_for_every_reader():
    """`rank`/`handoff --request` and the api (which the router's `route` reads) share one object."""
    from swarm_handoff import api, ranking_options, request_words

    assert request_words.MAX_REQUEST_CHARS is ranking_options.MAX_REQUEST_CHARS is api.MAX_REQUEST_CHARS
