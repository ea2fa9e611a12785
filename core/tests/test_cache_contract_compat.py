"""The old cache contract of sources keeps working for one release, with a DeprecationWarning."""

from __future__ import annotations

import attrs
import pytest

from swarm_handoff import records
from swarm_handoff.api import DiscoveryContext, SkillRecord, SourceResult, discover, hookimpl, make_context


def test_old_keywords_are_accepted_with_a_warning_and_carry_no_field():
    record = SkillRecord(name="a", scope="global", source="old")
    with pytest.warns(DeprecationWarning, match="inputs"):
        result = SourceResult(records=(record,), scanned=1, inputs=(("/x", 1, 2),), cacheable=True)
    assert result.records == (record,)
    assert [f.name for f in attrs.fields(SourceResult)] == ["records", "problems", "scanned"]
    assert attrs.evolve(result, scanned=2).scanned == 2  # evolve still works through the custom __init__
    with pytest.raises(TypeError, match="nonsense"):
        SourceResult(nonsense=1)


def test_old_observe_and_index_still_answer_with_a_warning(tmp_path):
    with pytest.warns(DeprecationWarning, match="observe"):
        observe = records.observe
    assert observe(str(tmp_path))[0] == str(tmp_path)
    context = DiscoveryContext(cwd=tmp_path, config_dir=tmp_path)
    with pytest.warns(DeprecationWarning, match="index"):
        assert context.index is None


def test_an_old_source_saying_cacheable_false_is_not_cached(register_plugin, swarm_host, tmp_path, trust_fresh_files):
    runs = []

    class OldSource:
        def cache_key(self, context):
            return ""

        def discover(self, context):
            runs.append(1)
            with pytest.warns(DeprecationWarning, match="cacheable"):
                return SourceResult(records=(SkillRecord(name="a", scope="global", source="old"),), cacheable=False)

    class Plugin:
        @hookimpl
        def swarm_handoff_discovery_sources(self, register):
            register("old", OldSource)

    register_plugin(Plugin(), "old")
    env = {"HOME": str(tmp_path), "XDG_CACHE_HOME": str(tmp_path / "cache")}
    discover(make_context(tmp_path, env), swarm_host)
    discover(make_context(tmp_path, env), swarm_host)
    assert len(runs) == 2
