"""The session cache writer and the workflows file reader, called directly."""

from __future__ import annotations

import datetime as dt

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from ruamel.yaml import YAML

from swarm_handoff.errors import SwarmError
from swarm_handoff.ranking import RankingRequest, rank
from swarm_handoff.records import Contribution, SkillRecord
from swarm_handoff.session_scores import timestamp, write_scores
from swarm_handoff.synthesis import parse_synthesis
from swarm_handoff.workflows_file import load_workflows

SYNTHESIS = parse_synthesis({"original_prompt": "q", "problem_type": "decision"})
NOW = dt.datetime(2026, 2, 7, 18, 30, 5, 123456, tzinfo=dt.timezone.utc)


def test_timestamps_are_utc_seconds_with_z():
    assert timestamp(NOW) == "2026-02-07T18:30:05Z"
    plus_two = dt.timezone(dt.timedelta(hours=2))
    assert timestamp(NOW.astimezone(plus_two)) == "2026-02-07T18:30:05Z"


def test_a_new_cache_has_the_seed_layout(swarm_host, tmp_path):
    records = [SkillRecord(name="lit-pm", scope="global", source="t", categories=("research",), trigger="--h {p}")]
    result = rank(records, RankingRequest(synthesis=SYNTHESIS), host=swarm_host)
    info = write_scores(tmp_path, result, now=NOW)
    text = (tmp_path / "available-workflows.yaml").read_text()
    assert text.startswith("discovery:\n  timestamp: '2026-02-07T18:30:05Z'\n  ttl_minutes: 30\nworkflows:\n")
    assert "categories: [research]" in text
    assert info == {
        "path": str(tmp_path / "available-workflows.yaml"),
        "created": True,
        "updated": [],
        "added": ["lit-pm"],
    }


@settings(max_examples=30, deadline=None)
@given(st.lists(st.one_of(st.integers(-30, 100), st.floats(0, 50, allow_nan=False)), min_size=1, max_size=6))
def test_written_scores_read_back_equal(tmp_path_factory, scores):
    from swarm_handoff import plugins
    from swarm_handoff.api import hookimpl

    folder = tmp_path_factory.mktemp("session")
    table = {f"s{i}": points for i, points in enumerate(scores)}

    class Plugin:
        @hookimpl
        def swarm_handoff_scorers(self, register):
            class Table:
                def score(self, candidate, request):
                    return [Contribution("table", table[candidate.name], "from the table")]

            register("table", Table)

    host = plugins.build_host({plugins.ENV_LOAD: ""})
    host.add_plugin(Plugin(), "table")
    records = [SkillRecord(name=name, scope="global", source="t", categories=("x",)) for name in table]
    result = rank(records, RankingRequest(synthesis=SYNTHESIS), scorer="table", host=host)
    write_scores(folder, result)
    write_scores(folder, result)  # the second run updates in place
    data = YAML(typ="safe").load((folder / "available-workflows.yaml").read_text())
    assert {w["skill"]: w["relevance_score"] for w in data["workflows"]} == {
        e.record.name: e.total for e in result.ranked
    }


def test_duplicate_workflows_keep_the_more_local_entry(tmp_path):
    path = tmp_path / "w.yaml"
    path.write_text(
        "workflows:\n"
        "  - {skill: a, scope: registry, categories: [x], description: far}\n"
        "  - {skill: a, scope: project, categories: [x], description: near}\n"
        "  - {skill: b, categories: [x]}\n"
    )
    records, problems = load_workflows(path)
    assert [(r.name, r.description) for r in records] == [("a", "near"), ("b", "")]
    [problem] = problems
    assert problem.code == "WORKFLOW_DUPLICATE"
    assert "keeping the project entry" in problem.message


@pytest.mark.parametrize("text", ["- a\n", "workflows: {a: 1}\n", "nope: [\n"])
def test_a_file_without_a_workflows_list_is_an_error(tmp_path, text):
    path = tmp_path / "w.yaml"
    path.write_text(text)
    with pytest.raises(SwarmError) as caught:
        load_workflows(path)
    assert caught.value.code == "VALIDATION_FAILED"


def test_two_rank_runs_at_once_keep_both_runs_scores(tmp_path, monkeypatch):
    import threading
    import time

    from swarm_handoff import plugins, session_scores
    from swarm_handoff.api import hookimpl

    class Plugin:
        @hookimpl
        def swarm_handoff_scorers(self, register):
            class Flat:
                def score(self, candidate, request):
                    return [Contribution("flat", 1.0, "flat")]

            register("flat", Flat)

    host = plugins.build_host({plugins.ENV_LOAD: ""})
    host.add_plugin(Plugin(), "flat")

    def ranked(names):
        records = [SkillRecord(name=n, scope="global", source="t", categories=("x",)) for n in names]
        return rank(records, RankingRequest(synthesis=SYNTHESIS), scorer="flat", host=host)

    first, second = ranked(["a1", "a2"]), ranked(["b1", "b2"])
    real_load = session_scores._load

    def slow_load(path):  # widen the read-modify-write window so the two runs overlap
        data = real_load(path)
        time.sleep(0.2)
        return data

    monkeypatch.setattr(session_scores, "_load", slow_load)
    write_scores(tmp_path, ranked(["seed"]))  # the file exists: both runs read, then write it
    threads = [threading.Thread(target=write_scores, args=(tmp_path, r)) for r in (first, second)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    data = YAML(typ="safe").load((tmp_path / "available-workflows.yaml").read_text())
    assert {w["skill"] for w in data["workflows"]} == {"seed", "a1", "a2", "b1", "b2"}
