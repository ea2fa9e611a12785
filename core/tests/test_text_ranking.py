"""The `rank` document as text with the core alone: the Stage 4 menu, and every factor with `--explain`."""

from __future__ import annotations

import pytest

from swarm_handoff.api import SkillRecord, SourceResult, hookimpl

SYNTHESIS = """
original_prompt: Should we rebuild the billing importer?
problem_type: decision
synthesis_summary: Perspectives split on whether to build a new importer.
convergence_level: low
key_uncertainties: [cost, timeline, vendor]
"""


@pytest.fixture
def ranked_cli(make_swarm_host, swarm_cli, tmp_path):
    host = make_swarm_host()

    class Source:
        priority = 1

        def discover(self, context):
            return SourceResult(
                records=(
                    SkillRecord(
                        name="lit-pm",
                        scope="global",
                        source="fake",
                        categories=("research", "literature"),
                        description="Literature review",
                        meta={"estimated_duration": "4-24 hours"},
                    ),
                    SkillRecord(name="notes", scope="project", source="fake", categories=("writing",), description="N"),
                    SkillRecord(name="zz", scope="registry", source="fake", categories=("x",), description="Z"),
                )
            )

    class Plugin:
        @hookimpl
        def swarm_handoff_discovery_sources(self, register):
            register("fake", Source)

    host.add_plugin(Plugin(), "fake-sources")
    path = tmp_path / "synthesis.yaml"
    path.write_text(SYNTHESIS)

    def run(*args):
        return swarm_cli("rank", "--synthesis", str(path), "--cwd", str(tmp_path), *args)

    return run


def test_the_menu_is_labelled_from_c_with_score_scope_and_duration(ranked_cli):
    result = ranked_cli("--top", "2")
    assert result.exit_code == 0
    lines = result.stdout.splitlines()
    assert lines[0] == "Hand-off targets (problem_type decision), ranked by swarm-v2 (2 of 3 shown)"
    assert "(C) [research, literature] lit-pm - Literature review" in lines
    assert "    score 7 | global | est. 4-24 hours | schema 2.0: yes" in lines  # issue 17: compatibility shown
    assert "(D) [writing] notes - N" in lines
    assert "    score 1 | project | schema 2.0: yes" in lines
    assert not any(line.startswith("(E)") for line in lines)
    assert "category_match" not in result.stdout


def test_explain_lists_every_factor_with_signed_points(ranked_cli):
    result = ranked_cli("--explain", "--top", "1")
    lines = [line.split() for line in result.stdout.splitlines() if line.startswith("      ")]
    assert [(parts[0], parts[1]) for parts in lines] == [
        ("+3", "category_match"),
        ("+2", "uncertainty"),
        ("+0", "implementation"),
        ("+2", "low_convergence"),
        ("+0", "project_scope"),
    ]


def test_a_negative_factor_shows_its_sign(ranked_cli):
    result = ranked_cli("--explain", "--scorer", "registry-v3", "--chain", "lit-pm")
    assert "-30  loop_penalty" in result.stdout
    assert "chain so far: lit-pm" in result.stdout


def test_an_empty_ranking_says_so(make_swarm_host, swarm_cli, tmp_path):
    make_swarm_host()
    path = tmp_path / "s.yaml"
    path.write_text(SYNTHESIS)
    result = swarm_cli("rank", "--synthesis", str(path), "--cwd", str(tmp_path))
    assert "No skill that accepts a hand-off was found." in result.stdout


def test_an_undeclared_candidate_says_how_to_hand_off_to_it():
    from swarm_handoff.textviews.ranking import ranking_text as render_ranking

    entry = {"label": "C", "skill": "plain", "description": "d", "categories": [], "score": 1, "scope": "project"}
    data = {"request": {"problem_type": "decision"}, "scorer": "swarm-v2", "shown": 1, "candidates": 1}
    text = render_ranking({**data, "workflows": [{**entry, "undeclared": True}]})
    assert "    score 1 | project | undeclared: hand off with --allow-undeclared" in text.splitlines()
    assert "undeclared" not in render_ranking({**data, "workflows": [entry]})


LONG = (
    "Reviews a change set for correctness, security and maintainability. Use when a pull request, a diff or a "
    "branch needs a careful second look before merging; it reads the diff, the touched files and their tests, "
    "then reports findings by severity with the line to change. " * 3
).strip()


def test_a_long_description_is_one_line_in_the_menu_and_whole_with_explain():
    """Issue 26: 500-700-character descriptions made every menu entry a paragraph."""
    from swarm_handoff.textviews.ranking import ranking_text as render_ranking

    entry = {"label": "C", "skill": "review", "description": LONG, "categories": ["review"], "score": 1}
    entry |= {"scope": "project", "breakdown": []}
    data = {"request": {"problem_type": "decision"}, "scorer": "swarm-v2", "shown": 1, "candidates": 1}
    menu = render_ranking({**data, "workflows": [entry]})
    [line] = [line for line in menu.splitlines() if line.startswith("(C)")]
    assert len(line) <= 140, line
    assert line.endswith("...")
    assert line.startswith("(C) [review] review - Reviews a change set for correctness")
    explained = render_ranking({**data, "workflows": [entry], "explain": True})
    assert LONG in explained


def test_a_multi_line_description_shows_its_first_line_in_the_menu():
    from swarm_handoff.textviews.ranking import ranking_text as render_ranking

    entry = {"label": "C", "skill": "r", "description": "First line.\\nSecond line.", "categories": [], "score": 1}
    data = {"request": {"problem_type": "decision"}, "scorer": "swarm-v2", "shown": 1, "candidates": 1}
    menu = render_ranking({**data, "workflows": [{**entry, "scope": "project"}]})
    assert "(C) [] r - First line. ..." in menu.splitlines()
