"""User-level result cache and the session file: reused only while every input is unchanged."""

from __future__ import annotations

import datetime
import os

import pytest

from swarm_handoff import cache, filecache
from swarm_handoff.discovery import discover, discover_detailed, make_context
from swarm_handoff.filecache import observe
from swarm_handoff.records import SkillRecord
from swarm_handoff.session import SESSION_FILE, STATE_FILE, discover_with_session, read_session


@pytest.fixture
def counting(list_source):
    return list_source


def ctx(tmp_path, refresh=False, **env):
    return make_context(tmp_path, {"HOME": str(tmp_path / "home"), **env}, refresh=refresh)


def names(result):
    return [r.name for r in result.workflows]


def test_an_unchanged_answer_comes_from_the_cache_and_a_change_is_seen(counting, swarm_host, tmp_path):
    counting.listing.write_text("a b")
    assert names(discover(ctx(tmp_path), swarm_host)) == ["a", "b"]
    assert names(discover(ctx(tmp_path), swarm_host)) == ["a", "b"]
    assert counting.runs == 1
    counting.listing.write_text("a b c")
    assert names(discover(ctx(tmp_path), swarm_host)) == ["a", "b", "c"]
    assert counting.runs == 2


def test_refresh_no_cache_and_uncacheable_sources_always_run(counting, swarm_host, tmp_path):
    counting.listing.write_text("a")
    discover(ctx(tmp_path), swarm_host)
    discover(ctx(tmp_path, refresh=True), swarm_host)
    discover(ctx(tmp_path, **{cache.ENV_NO_CACHE: "1"}), swarm_host)
    assert counting.runs == 3
    counting.cacheable = False
    discover(ctx(tmp_path, refresh=True), swarm_host)
    discover(ctx(tmp_path), swarm_host)
    assert counting.runs == 5


def test_a_corrupt_cache_file_is_ignored_and_rewritten(counting, swarm_host, tmp_path):
    counting.listing.write_text("a")
    discover(ctx(tmp_path), swarm_host)
    [stored] = (tmp_path / "home" / ".cache" / "swarm-handoff" / "results").iterdir()
    stored.write_bytes(b"\x00garbage")
    assert names(discover(ctx(tmp_path), swarm_host)) == ["a"]
    assert filecache.load(stored, "result") is not None


def test_the_cache_folder_follows_xdg_cache_home(tmp_path):
    assert filecache.cache_folder({"XDG_CACHE_HOME": str(tmp_path), "HOME": "/h"}) == str(tmp_path / "swarm-handoff")
    assert (tmp_path / "swarm-handoff").stat().st_mode & 0o777 == 0o700  # made for the user alone
    home = tmp_path / "h"
    assert filecache.cache_folder({"HOME": str(home)}) == str(home / ".cache" / "swarm-handoff")
    assert filecache.cache_folder({"HOME": str(home), cache.ENV_NO_CACHE: "1"}) is None


@pytest.mark.skipif(os.name != "posix", reason="folders are opened as descriptors on POSIX only")
def test_a_store_folder_is_reached_with_one_open_of_the_checked_cache_folder(tmp_path, monkeypatch):
    """Every store a command opens checks the cache folder: once per store, not twice, and makes nothing that exists."""
    env = {"XDG_CACHE_HOME": str(tmp_path)}
    root = str(tmp_path / "swarm-handoff")
    assert filecache.subfolder(env, "memo") == os.path.join(root, "memo")
    opened: list[str] = []
    real_open = os.open

    def spy(path, *args, **kwargs):
        opened.append(os.fspath(path))
        return real_open(path, *args, **kwargs)

    def made(path, *args, **kwargs):
        raise AssertionError(f"{path} exists: nothing to make")

    monkeypatch.setattr(os, "open", spy)
    monkeypatch.setattr(os, "mkdir", made)
    monkeypatch.setattr(os, "makedirs", made)
    assert filecache.subfolder(env, "memo") == os.path.join(root, "memo")
    assert opened == [root, "memo"]  # the cache folder, then the store relative to it


def test_inputs_unchanged_notices_edits_appearance_and_removal(tmp_path):
    path = tmp_path / "f"
    absent = [observe(path)]
    path.write_text("x")
    assert not cache.inputs_unchanged(absent)
    present = [observe(path)]
    assert cache.inputs_unchanged(present)
    os.utime(path, ns=(1, 1))
    assert not cache.inputs_unchanged(present)
    path.unlink()
    assert cache.inputs_unchanged(absent)


def test_record_rows_round_trip():
    from swarm_handoff.errors import Problem

    record = SkillRecord(
        name="x",
        scope="global",
        source="s",
        categories=("a",),
        meta={"k": [1]},
        problems=(Problem("C", "m", path="/p", line=2),),
    )
    assert SkillRecord.from_row(record.to_row()) == record
    with pytest.raises(ValueError):
        SkillRecord.from_row(("global", "x"))


# -- the session file ---------------------------------------------------------------------------


def test_session_file_has_the_seed_shape_and_is_reused(counting, swarm_host, tmp_path):
    counting.listing.write_text("a b")
    session = tmp_path / "session"
    result = discover_with_session(ctx(tmp_path), swarm_host, session)
    assert names(result) == ["a", "b"]
    from ruamel.yaml import YAML

    data = YAML(typ="safe").load((session / SESSION_FILE).read_text())
    assert list(data) == ["discovery", "workflows"]
    assert list(data["discovery"]) == ["timestamp", "ttl_minutes"]
    assert data["discovery"]["ttl_minutes"] == 30
    first = data["workflows"][0]
    assert list(first)[:7] == ["skill", "scope", "priority", "categories", "description", "trigger", "relevance_score"]
    assert first["relevance_score"] is None
    runs = counting.runs
    again = discover_with_session(ctx(tmp_path, **{cache.ENV_NO_CACHE: "1"}), swarm_host, session)
    assert names(again) == ["a", "b"]
    assert counting.runs == runs


def test_session_scores_written_by_ranking_survive_reuse(counting, swarm_host, tmp_path):
    counting.listing.write_text("a")
    session = tmp_path / "session"
    discover_with_session(ctx(tmp_path), swarm_host, session)
    path = session / SESSION_FILE
    path.write_text(path.read_text().replace("relevance_score: null", "relevance_score: 7"))
    discover_with_session(ctx(tmp_path), swarm_host, session)
    assert "relevance_score: 7" in path.read_text()


@pytest.mark.parametrize(
    "spoil",
    [
        lambda s: (s / SESSION_FILE).write_text("{not: [yaml"),
        lambda s: (s / SESSION_FILE).write_text("just: a foreign file\n"),
        lambda s: (s / STATE_FILE).unlink(),
        lambda s: (s / STATE_FILE).write_text("[]"),
    ],
    ids=["corrupt", "foreign", "no-state", "bad-state"],
)
def test_a_corrupt_or_foreign_session_file_is_rewritten(counting, swarm_host, tmp_path, spoil):
    counting.listing.write_text("a")
    session = tmp_path / "session"
    discover_with_session(ctx(tmp_path), swarm_host, session)
    spoil(session)
    environment = {cache.ENV_NO_CACHE: "1"}
    assert read_session(session, ctx(tmp_path, **environment), swarm_host) is None
    assert names(discover_with_session(ctx(tmp_path, **environment), swarm_host, session)) == ["a"]
    assert read_session(session, ctx(tmp_path, **environment), swarm_host) is not None


def test_session_expires_after_its_ttl_and_on_refresh_or_change(counting, swarm_host, tmp_path):
    counting.listing.write_text("a")
    session = tmp_path / "session"
    start = datetime.datetime(2026, 1, 1, tzinfo=datetime.timezone.utc)
    discover_with_session(ctx(tmp_path), swarm_host, session, now=start)
    no_cache = {cache.ENV_NO_CACHE: "1"}
    assert read_session(session, ctx(tmp_path, **no_cache), swarm_host, start + datetime.timedelta(minutes=29))
    assert read_session(session, ctx(tmp_path), swarm_host, start + datetime.timedelta(minutes=31)) is None
    counting.listing.write_text("a z")
    later = start + datetime.timedelta(minutes=1)
    assert read_session(session, ctx(tmp_path), swarm_host, later) is None
    result = discover_with_session(ctx(tmp_path), swarm_host, session, now=later)
    assert names(result) == ["a", "z"]
    runs = counting.runs
    discover_with_session(ctx(tmp_path, refresh=True), swarm_host, session, now=later)
    assert counting.runs == runs + 1


def test_session_file_is_written_with_readable_permissions(counting, swarm_host, tmp_path):
    counting.listing.write_text("a")
    discover_with_session(ctx(tmp_path), swarm_host, tmp_path / "s")
    assert (tmp_path / "s" / SESSION_FILE).stat().st_mode & 0o777 == 0o644


def test_an_unwritable_session_folder_is_a_structured_error(counting, swarm_host, tmp_path):
    from swarm_handoff.errors import SwarmError

    counting.listing.write_text("a")
    blocker = tmp_path / "file"
    blocker.write_text("not a folder")
    with pytest.raises(SwarmError) as caught:
        discover_with_session(ctx(tmp_path), swarm_host, blocker / "session")
    assert caught.value.code == "SESSION_WRITE_FAILED"


def test_no_gc_files_what_it_built_as_old_and_restores_the_collector():
    import gc

    with filecache.no_gc():
        assert not gc.isenabled()
        built = [(str(i), (i,)) for i in range(1000)]
    assert gc.isenabled()
    assert gc.get_freeze_count() == 0  # nothing left frozen: only moved to the oldest generation
    young = {id(o) for o in gc.get_objects(generation=0)}
    old = {id(o) for o in gc.get_objects(generation=2)}
    assert not any(id(t) in young for t in built[:50])
    assert all(id(t) in old for t in built[:50])
    gc.disable()
    try:
        with filecache.no_gc():
            pass
        assert not gc.isenabled()  # a caller's own choice is kept
    finally:
        gc.enable()


def test_a_file_changed_just_before_discovery_is_never_trusted(counting, swarm_host, tmp_path, monkeypatch):
    # Outside tests RACY_NS is 50 ms; here every file the test wrote counts as "just changed".
    monkeypatch.setattr(filecache, "RACY_NS", 10**12)
    counting.listing.write_text("a b")
    assert discover_detailed(ctx(tmp_path), swarm_host)[1] is None  # nothing may be reused
    discover(ctx(tmp_path), swarm_host)
    assert counting.runs == 2
    assert not list((tmp_path / "home" / ".cache" / "swarm-handoff" / "results").glob("*.bin"))
    monkeypatch.setattr(filecache, "RACY_NS", 0)  # the same file, now old enough
    discover(ctx(tmp_path), swarm_host)
    discover(ctx(tmp_path), swarm_host)
    assert counting.runs == 3
    assert list((tmp_path / "home" / ".cache" / "swarm-handoff" / "results").glob("*.bin"))


def test_racy_means_changed_within_the_margin_before_the_start(monkeypatch):
    monkeypatch.setattr(filecache, "RACY_NS", 50)
    since = 1_000
    assert filecache.racy([("f", 950, 1, 1, 1, 1)], since)  # changed 50 ns before: within the tick margin
    assert filecache.racy([("f", 1_200, 1, 1, 1, 1)], since)  # changed after we started looking
    assert not filecache.racy([("f", 949, 1, 1, 1, 1), ("gone", -1, -1, -1, -1, -1)], since)  # old enough, or absent


def test_the_parse_index_keeps_no_entry_for_a_racy_file(monkeypatch):
    monkeypatch.setattr(filecache, "RACY_NS", 50)
    index = cache.ParseIndex({"HOME": "/nonexistent"}, since_ns=1_000)
    index.path = "unused"  # a memo that is on, never saved here
    index.store("fresh/SKILL.md", ("fresh/SKILL.md", 990, 10, 1, 1, 990), ("row",))
    index.store("old/SKILL.md", ("old/SKILL.md", 100, 10, 1, 1, 100), ("row",))
    assert set(index.entries) == {"old/SKILL.md"}
