"""The one seam for caches: sources say what they read, the core caches; one serialisation of a record."""

from __future__ import annotations

import ast
import os
from pathlib import Path

import attrs
import pytest

from swarm_handoff import api, cache, filecache
from swarm_handoff.api import hookimpl
from swarm_handoff.components import CachedSource, LocatingSource
from swarm_handoff.discovery import discover, discover_detailed, make_context
from swarm_handoff.errors import Problem, Severity
from swarm_handoff.explain import explain
from swarm_handoff.records import RECORD_FIELDS, DiscoveryContext, Location, Scope, SkillRecord, SourceResult
from swarm_handoff.workflows_file import load_workflows

ROOT = Path(__file__).resolve().parents[2]


def ctx(tmp_path, **env):
    return make_context(tmp_path, {"HOME": str(tmp_path / "home"), **env})


def results_folder(tmp_path):
    return tmp_path / "home" / ".cache" / "swarm-handoff" / "results"


# -- one serialisation ------------------------------------------------------------------------------


def _every_field_set() -> SkillRecord:
    """A record whose every field differs from its default, so a field left out of a round trip shows."""
    values = {
        "name": "n",
        "scope": Scope.GIT_ROOT,
        "source": "src",
        "path": "/p/SKILL.md",
        "declared_name": "declared",
        "eligible": False,
        "description": "d",
        "categories": ("c1", "c2"),
        "trigger": "--go {payload_path}",
        "protocol_version": "3.0",
        "health_check": "true",
        "requires": ("context.x",),
        "optional_consumes": ("context.y",),
        "accepts_from": ("*",),
        "provides_to": ("reviewer",),
        "schema_version": "3.0",
        "schema_type": "universal",
        "input_requirements": ("spec",),
        "output_types": ("report",),
        "legacy": True,
        "meta": {"k": [1, 2], "version": "1.0"},
        "problems": (Problem("C", "m", path="/p", line=2, column=3, hint="h", severity=Severity.WARNING),),
    }
    names = {f.name for f in attrs.fields(SkillRecord)}
    assert set(values) == names, f"give every SkillRecord field a non-default value here: {names ^ set(values)}"
    record = SkillRecord(**values)
    for field in attrs.fields(SkillRecord):
        assert getattr(record, field.name) != field.default, field.name
    return record


def test_record_fields_describe_every_attrs_field_once():
    described = [attr for attr, _, kind in RECORD_FIELDS if kind != "derived"]
    assert sorted(described) == sorted(f.name for f in attrs.fields(SkillRecord))
    assert len(set(described)) == len(described)


def test_every_field_survives_data_and_row_round_trips():
    record = _every_field_set()
    again = SkillRecord.from_data(record.to_data())
    rowed = SkillRecord.from_row(record.to_row())
    for field in attrs.fields(SkillRecord):  # meta is eq=False on the record: compare field by field
        assert getattr(again, field.name) == getattr(record, field.name), field.name
        assert getattr(rowed, field.name) == getattr(record, field.name), field.name


def test_to_data_and_to_row_follow_record_fields_order():
    """The serialisers are written out by hand: their keys and positions must follow RECORD_FIELDS."""
    record = _every_field_set()
    data = record.to_data()
    assert list(data) == [key for _, key, _ in RECORD_FIELDS]
    stored = [(attr, kind) for attr, _, kind in RECORD_FIELDS if kind != "derived"]
    row = record.to_row()
    assert len(row) == len(stored)
    for (attr, kind), value in zip(stored, row, strict=True):
        expected = getattr(record, attr)
        if kind == "scope":
            expected = expected.value
        elif kind == "mapping":
            expected = dict(expected)
        elif kind == "problems":
            expected = tuple(p.to_data() for p in expected)
        assert value == expected, attr


def test_the_row_can_be_read_in_another_scope_and_rejects_foreign_tuples():
    record = _every_field_set()
    assert SkillRecord.from_row(record.to_row(), Scope.PROJECT).scope is Scope.PROJECT
    with pytest.raises(ValueError):
        SkillRecord.from_row(("global", "x"))


def test_the_json_form_keeps_its_order_and_omits_empty_optional_parts():
    plain = SkillRecord(name="x", scope="global", source="s")
    assert list(plain.to_data())[:6] == ["skill", "scope", "priority", "categories", "description", "trigger"]
    assert "declared_name" not in plain.to_data()
    assert "problems" not in plain.to_data()
    assert list(_every_field_set().to_data())[-3:] == ["meta", "declared_name", "problems"]


def test_the_workflows_file_reads_every_field_the_session_file_writes(tmp_path):
    from swarm_handoff.session import workflow_entry
    from swarm_handoff.yamlout import portable_yaml

    record = attrs.evolve(_every_field_set(), problems=(), eligible=True)
    path = tmp_path / "w.yaml"
    with path.open("w") as handle:
        portable_yaml("safe").dump({"workflows": [workflow_entry(record)]}, handle)
    [read], problems = load_workflows(path)
    assert problems == ()
    for field in attrs.fields(SkillRecord):
        if field.name != "source":  # the file's records are the file's
            assert getattr(read, field.name) == getattr(record, field.name), field.name
    assert read.source == "workflows-file"


def test_a_wrongly_typed_field_in_the_workflows_file_is_a_coded_warning(tmp_path):
    path = tmp_path / "w.yaml"
    path.write_text("workflows:\n- {skill: a, categories: [x], legacy: 'yes'}\n- {skill: b, categories: [x]}\n")
    records, [problem] = load_workflows(path)
    assert [r.name for r in records] == ["b"]
    assert problem.code == "WORKFLOW_ENTRY_INVALID"
    assert "`legacy` must be true or false" in problem.message


# -- the contract carries no cache ----------------------------------------------------------------


def test_records_contexts_and_results_carry_no_cache_fields():
    for cls in (DiscoveryContext, SourceResult, SkillRecord):
        names = {f.name for f in attrs.fields(cls)}
        assert not names & {"index", "inputs", "cacheable"}, cls


@pytest.mark.parametrize("module", ["records", "components"])
def test_the_contract_modules_do_not_import_the_caches(module):
    tree = ast.parse((ROOT / "core" / "src" / "swarm_handoff" / f"{module}.py").read_text())
    imported = [
        f"{node.module}.{alias.name}" if isinstance(node, ast.ImportFrom) else alias.name
        for node in ast.walk(tree)
        if isinstance(node, (ast.Import, ast.ImportFrom))
        for alias in node.names
    ]
    assert not [n for n in imported if "filecache" in n or "swarm_handoff.cache" in n]


def test_no_plugin_imports_the_caches():
    for path in [*ROOT.glob("plugins/*/src/**/*.py"), *ROOT.glob("docs/examples/*/src/**/*.py")]:
        text = path.read_text(encoding="utf-8")
        assert "swarm_handoff.cache" not in text, path
        assert "filecache" not in text, path


# -- the capability -------------------------------------------------------------------------------


class PlainSource:
    """Reads a list file but does not have the `CachedSource` capability: never cached."""

    priority = 1

    def __init__(self, listing: Path) -> None:
        self.listing = listing
        self.runs = 0

    def discover(self, context: DiscoveryContext) -> SourceResult:
        self.runs += 1
        api.watch(self.listing)  # watching alone does not opt in
        names = self.listing.read_text().split()
        return SourceResult(records=tuple(SkillRecord(name=n, scope="project", source="plain") for n in names))


class LocatedSource(PlainSource):
    def cache_key(self, context: DiscoveryContext) -> str:
        return context.env.get("FLAVOUR", "")

    def locations(self, context: DiscoveryContext, name: str) -> list[Location]:
        return [Location(Scope.PROJECT, f"{self.listing} (line {name})")]


def _register(register_plugin, source, name="plain"):
    class Plugin:
        @hookimpl
        def swarm_handoff_discovery_sources(self, register):
            register(name, lambda: source)

    register_plugin(Plugin(), name)


def test_capabilities_are_checked_with_isinstance(tmp_path):
    plain, located = PlainSource(tmp_path), LocatedSource(tmp_path)
    assert not isinstance(plain, CachedSource)
    assert not isinstance(plain, LocatingSource)
    assert isinstance(located, CachedSource)
    assert isinstance(located, LocatingSource)
    assert api.CachedSource is CachedSource
    assert api.LocatingSource is LocatingSource


def test_a_source_without_the_capability_leaves_the_whole_answer_uncached(
    swarm_host, register_plugin, list_source, tmp_path
):
    listing = tmp_path / "plain.txt"
    listing.write_text("p")
    list_source.listing.write_text("a")
    plain = PlainSource(listing)
    _register(register_plugin, plain)
    for _ in range(2):
        result, inputs = discover_detailed(ctx(tmp_path), swarm_host)
        assert sorted(r.name for r in result.workflows) == ["a", "p"]
        assert inputs is None
    assert plain.runs == 2
    assert list_source.runs == 2
    assert not list(results_folder(tmp_path).glob("*.bin"))


def test_a_cached_sources_key_and_watched_files_decide_reuse(swarm_host, register_plugin, tmp_path):
    listing = tmp_path / "l.txt"
    listing.write_text("a")
    source = LocatedSource(listing)
    _register(register_plugin, source, "located")
    discover(ctx(tmp_path), swarm_host)
    discover(ctx(tmp_path), swarm_host)
    assert source.runs == 1
    discover(ctx(tmp_path, FLAVOUR="other"), swarm_host)  # its cache_key changed
    assert source.runs == 2
    listing.write_text("a b")
    assert [r.name for r in discover(ctx(tmp_path), swarm_host).workflows] == ["a", "b"]
    assert source.runs == 3


def test_why_asks_a_locating_source_where_it_looks(swarm_host, register_plugin, tmp_path):
    listing = tmp_path / "l.txt"
    listing.write_text("a")
    _register(register_plugin, LocatedSource(listing), "located")
    report = explain("zz", ctx(tmp_path), swarm_host)
    assert {"source": "located", "scope": "project", "where": f"{listing} (line zz)", "status": "not present"} in [
        dict(step) for step in report.looked
    ]


def test_watch_outside_discovery_is_a_plain_stat(tmp_path):
    assert api.watch(tmp_path / "absent") is None
    assert api.watch(tmp_path).st_mtime_ns == os.stat(tmp_path).st_mtime_ns
    api.not_cacheable("nothing runs: nothing happens")


def test_read_skills_reuses_unchanged_files_only_inside_discovery(tmp_path, monkeypatch):
    from swarm_handoff import skillmd

    path = tmp_path / "s" / "SKILL.md"
    path.parent.mkdir()
    path.write_text("---\nname: s\ndescription: d\n---\n")
    parsed = []
    real = skillmd.load_skill_md
    monkeypatch.setattr(skillmd, "load_skill_md", lambda p, **kw: parsed.append(p) or real(p, **kw))
    memo = cache.ParseIndex({"XDG_CACHE_HOME": str(tmp_path / "cache")}, since_ns=filecache.now_ns() + 10**12)
    recorder = cache.Recorder(memo, {}, 0)

    class Reader:
        def discover(self, context):
            return SourceResult(records=tuple(api.read_skills([(str(path), "s", Scope.GLOBAL)], source="t")))

    for _ in range(2):
        [record] = recorder.call("t", Reader(), None).records
        assert record.name == "s"
        assert record.scope is Scope.GLOBAL
        assert record.source == "t"
    assert parsed == [str(path)]  # the second read came from the memo
    assert recorder.run.seen[str(path)][2] == path.stat().st_size  # watched before it was read
    api.read_skills([(str(path), "s", Scope.GLOBAL)], source="t")  # outside discovery: parsed again
    assert len(parsed) == 2


# -- bounded stores -------------------------------------------------------------------------------


def name(i: int) -> str:
    """A file name of the form the stores write: a key's digest, then `.bin`."""
    return f"{filecache.digest(str(i))}.bin"


def test_prune_removes_the_least_recently_used_past_the_bounds(tmp_path):
    for i in range(5):
        (tmp_path / name(i)).write_bytes(b"x" * 100)
        os.utime(tmp_path / name(i), ns=(i * 10**9, i * 10**9))
    filecache.touch(tmp_path / name(0))  # used just now: the most recent
    assert sorted(filecache.prune(tmp_path, max_files=3, max_bytes=10_000)) == sorted([name(1), name(2)])
    assert sorted(filecache.prune(tmp_path, max_files=10, max_bytes=150)) == sorted([name(3), name(4)])
    (tmp_path / name(0)).write_bytes(b"x" * 1000)
    assert filecache.prune(tmp_path, max_files=10, max_bytes=150) == []  # the newest always stays
    assert [p.name for p in tmp_path.iterdir()] == [name(0)]


def test_the_result_store_stays_within_its_bounds(list_source, swarm_host, tmp_path, monkeypatch):
    monkeypatch.setattr(cache, "MAX_RESULTS", 3)
    list_source.listing.write_text("a")
    for i in range(6):  # six working directories: six answers
        work = tmp_path / f"w{i}"
        work.mkdir()
        discover(make_context(work, {"HOME": str(tmp_path / "home")}), swarm_host)
    assert len(list(results_folder(tmp_path).glob("*.bin"))) == 3
    discover(make_context(tmp_path / "w5", {"HOME": str(tmp_path / "home")}), swarm_host)
    assert list_source.runs == 6  # the newest answers are the ones kept


def test_the_parse_memo_keeps_what_the_scan_used_and_drops_the_oldest(tmp_path, monkeypatch):
    env = {"XDG_CACHE_HOME": str(tmp_path)}
    memo = cache.ParseIndex(env, since_ns=10**12)
    memo.max_entries = 4  # the bound and eviction are FileMemo's, the same for every memo
    for i in range(6):
        memo.store(f"old{i}", (f"old{i}", 1, 1, 1, 1, 1), ("row",))
    memo.save()
    again = cache.ParseIndex(env, since_ns=10**12)
    again.max_entries = 4
    again.store("new", ("new", 1, 1, 1, 1, 1), ("row",))
    again.save()
    kept = cache.ParseIndex(env).entries
    assert len(kept) == 4
    assert "new" in kept
    assert "old5" in kept
    assert "old0" not in kept


PRUNE_TWICE = r"""
import sys
from swarm_handoff import filecache
removed = filecache.prune(sys.argv[1], max_files=10, max_bytes=10**9)
print(len(removed))
"""


def test_two_processes_pruning_at_once_remove_each_file_once(tmp_path):
    import subprocess
    import sys

    for i in range(300):
        (tmp_path / name(i)).write_bytes(b"x")
        os.utime(tmp_path / name(i), ns=(i * 10**9, i * 10**9))
    (tmp_path / ".x.bin.123.0123456789ab.tmp").write_bytes(b"a live writer's temporary")
    children = [
        subprocess.Popen([sys.executable, "-c", PRUNE_TWICE, str(tmp_path)], stdout=subprocess.PIPE, text=True)
        for _ in range(2)
    ]
    counts = [int(child.communicate()[0]) for child in children]
    assert [child.returncode for child in children] == [0, 0]
    assert sum(counts) == 290  # between them each file went once: no error, none missed, none twice
    assert sorted(p.name for p in tmp_path.glob("*.bin")) == sorted(name(i) for i in range(290, 300))
    assert (tmp_path / ".x.bin.123.0123456789ab.tmp").exists()  # not ours to judge by name alone: too young


class FailingSource(LocatedSource):
    """A cached source whose discover raises after watching: its answer must not be kept."""

    def discover(self, context: DiscoveryContext) -> SourceResult:
        api.watch(self.listing)
        raise RuntimeError("boom")


def test_a_failing_cached_source_leaves_the_answer_uncached(swarm_host, register_plugin, list_source, tmp_path):
    list_source.listing.write_text("a")
    _register(register_plugin, FailingSource(tmp_path / "l.txt"), "failing")
    result, inputs = discover_detailed(ctx(tmp_path), swarm_host)
    assert [r.name for r in result.workflows] == ["a"]
    assert [p.code for p in result.problems] == ["SOURCE_FAILED"]
    assert inputs is None
    discover(ctx(tmp_path), swarm_host)
    assert list_source.runs == 2


def test_why_is_served_from_the_same_caches_as_discover(swarm_host, register_plugin, tmp_path):
    # issue 18: `why` re-ran every source (2 s over 1,907 skills) where a repeated discover takes 0.09 s.
    listing = tmp_path / "l.txt"
    listing.write_text("a b")
    source = LocatedSource(listing)
    _register(register_plugin, source, "located")
    discover(ctx(tmp_path), swarm_host)
    report = explain("a", ctx(tmp_path), swarm_host)
    assert report.verdict.startswith("chosen from project")
    assert source.runs == 1  # the stored answer, checked by stat, not a second scan
    listing.write_text("b")
    assert explain("a", ctx(tmp_path), swarm_host).verdict.endswith("not found in any discovery location")
    assert source.runs == 2
