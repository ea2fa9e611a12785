"""Entry points: one scan shared by plugins and packs, renewed when sys.path changes; names from METADATA's header."""

from __future__ import annotations

import os
import sys

import importlib_metadata
import pytest

from swarm_handoff import entrypoint_records, entrypoints, filememo
from swarm_handoff.plugins import SKILLS_ENTRY_POINT_GROUP


@pytest.fixture
def scans(monkeypatch):
    entrypoints.forget()
    count = {"n": 0}
    real = importlib_metadata.entry_points

    def counting(**params):
        count["n"] += 1
        return real(**params)

    monkeypatch.setattr(importlib_metadata, "entry_points", counting)
    yield count
    entrypoints.forget()


def names():
    return [ep.name for ep in entrypoints.entry_points(SKILLS_ENTRY_POINT_GROUP)]


def test_plugins_and_packs_share_one_scan_until_a_path_folder_changes(scans, fake_distributions):
    entrypoints.entry_points("swarm_handoff")
    entrypoints.entry_points(SKILLS_ENTRY_POINT_GROUP)
    assert scans["n"] == 1
    fake_distributions.install(
        "late-pack",
        modules={"latepack": "SKILL = {}\n"},
        entry_points={SKILLS_ENTRY_POINT_GROUP: {"late": "latepack"}},
    )
    assert "late" in names()
    assert scans["n"] == 2


def test_a_distribution_added_to_a_folder_already_on_the_path_is_seen(scans, fake_distributions):
    site = fake_distributions.install("first-pack", entry_points={SKILLS_ENTRY_POINT_GROUP: {"first": "x"}})
    assert "first" in names()
    assert "second" not in names()
    info = site / "second_pack-1.0.dist-info"
    info.mkdir()
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: second-pack\nVersion: 1.0\n")
    (info / "entry_points.txt").write_text(f"[{SKILLS_ENTRY_POINT_GROUP}]\nsecond = y\n")
    assert {"first", "second"} <= set(names())


class FakeDist:
    def __init__(self, text, metadata=None):
        self.text = text
        self.metadata = metadata or {}
        self.version = (metadata or {}).get("Version")

    def read_text(self, name):
        return self.text if name == "METADATA" else None


class FakeEntryPoint:
    def __init__(self, dist):
        self.dist = dist


def test_name_and_version_come_from_the_header_only():
    text = (
        "Metadata-Version: 2.1\nName: review-pack\nSummary: a long\n  folded summary\nVersion: 1.2\n"
        "\nName: not-this\nVersion: 9\n"
    )
    assert entrypoint_records.dist_of(FakeEntryPoint(FakeDist(text))) == ("review-pack", "1.2")


def test_an_unusual_metadata_file_falls_back_to_the_full_parser():
    dist = FakeDist("garbage without fields\n", {"Name": "odd-pack", "Version": "0.1"})
    assert entrypoint_records.dist_of(FakeEntryPoint(dist)) == ("odd-pack", "0.1")
    assert entrypoint_records.dist_of(object()) == ("unknown", "unknown")


def install_late(fake_distributions):
    return fake_distributions.install(
        "late-pack",
        version="2.5",
        modules={"latepack": "SKILL = {'description': 'late'}\n"},
        entry_points={SKILLS_ENTRY_POINT_GROUP: {"late": "latepack:SKILL"}},
    )


def late():
    return next(ep for ep in entrypoints.entry_points(SKILLS_ENTRY_POINT_GROUP) if ep.name == "late")


def test_the_next_process_reads_the_entry_points_from_the_user_cache(scans, fake_distributions):
    install_late(fake_distributions)
    live = late()
    entrypoints.forget()  # what a new process starts with
    cached = late()
    assert scans["n"] == 1
    assert isinstance(cached, entrypoint_records.CachedEntryPoint)
    assert (cached.name, cached.value, cached.module, cached.attr) == ("late", "latepack:SKILL", "latepack", "SKILL")
    assert cached.load() == live.load() == {"description": "late"}
    assert entrypoint_records.dist_of(cached) == entrypoint_records.dist_of(live) == ("late-pack", "2.5")
    assert cached.dist._path == str(live.dist._path)


def test_an_entry_points_file_edited_in_place_is_read_again(scans, fake_distributions):
    site = install_late(fake_distributions)
    late()
    entrypoints.forget()
    (site / "late_pack-2.5.dist-info" / "entry_points.txt").write_text(
        f"[{SKILLS_ENTRY_POINT_GROUP}]\nlate = latepack:SKILL\nlater = latepack\n"
    )
    assert "later" in names()
    assert scans["n"] == 2


def test_a_damaged_cache_or_no_cache_means_a_fresh_scan(scans, fake_distributions, monkeypatch):
    import os

    from swarm_handoff import filecache

    install_late(fake_distributions)
    late()
    folder = os.path.join(filecache.subfolder(os.environ, "memo"), "entry-points")
    for name in os.listdir(folder):
        filecache.dump(os.path.join(folder, name), "memo:entry-points", ("not", "the", "shape"))
    entrypoints.forget()
    assert late().name == "late"
    monkeypatch.setenv(filecache.ENV_NO_CACHE, "1")
    entrypoints.forget()
    late()
    assert scans["n"] == 3


def test_a_distribution_installed_just_before_the_scan_is_not_cached(scans, fake_distributions, monkeypatch):
    import os

    from swarm_handoff import filecache

    monkeypatch.setattr(filecache, "RACY_NS", 10**12)
    install_late(fake_distributions)
    late()
    assert not os.listdir(os.path.join(filecache.subfolder(os.environ, "memo"), "entry-points"))
    entrypoints.forget()
    late()
    assert scans["n"] == 2


def environment(root, name, *, dists=()):
    """A `sys.path` of one site folder holding `dists` (each a distribution with one plugin entry point)."""
    site = root / name
    site.mkdir()
    for dist in dists:
        info = site / f"{dist}-1.0.dist-info"
        info.mkdir()
        (info / "METADATA").write_text(f"Metadata-Version: 2.1\nName: {dist}\nVersion: 1.0\n")
        (info / "entry_points.txt").write_text(f"[swarm_handoff]\n{dist} = {dist}_module\n")
    old = HOUR_AGO
    for path in (site, *site.rglob("*")):
        os.utime(path, (old, old))  # not racy: installed an hour ago
    return [str(site)]


HOUR_AGO = __import__("time").time() - 3600


@pytest.fixture
def reads(monkeypatch):
    """Every memo file the entry-point scan reads: (bytes, entries decoded)."""
    from swarm_handoff import filecache

    seen = []
    real = filecache.load

    def counting(path, kind):
        payload = real(path, kind)
        if kind == "memo:entry-points":
            entries = payload[1] if isinstance(payload, tuple) and len(payload) == 2 else {}
            seen.append((os.path.getsize(path) if os.path.exists(path) else 0, len(entries)))
        return payload

    monkeypatch.setattr(filecache, "load", counting)
    return seen


def lookup(monkeypatch, path):
    monkeypatch.setattr(sys, "path", list(path))
    entrypoints.forget()
    return [ep.name for ep in entrypoints.entry_points("swarm_handoff")]


def test_a_cache_holding_many_other_environments_is_not_read_for_this_one(scans, reads, monkeypatch, tmp_path):
    monkeypatch.setattr(entrypoints, "MAX_ENVIRONMENTS", 1000)  # all of them kept
    mine = environment(tmp_path, "mine", dists=["alpha", "beta"])
    assert lookup(monkeypatch, mine) == ["alpha", "beta"]  # scanned and kept
    reads.clear()
    assert lookup(monkeypatch, mine) == ["alpha", "beta"]  # from the memo
    clean = list(reads)
    for i in range(120):  # other virtualenvs, worktrees and test runs, each its own sys.path
        lookup(monkeypatch, environment(tmp_path, f"other-{i}", dists=[f"d{i}"]))
    reads.clear()
    scans["n"] = 0
    assert lookup(monkeypatch, mine) == ["alpha", "beta"]
    assert scans["n"] == 0  # still a hit
    assert reads == clean  # the same file, the same bytes, one entry decoded: none of the 120 others
    assert [entries for _, entries in reads] == [1]


def test_the_memo_keeps_the_environments_used_last_within_its_bound(scans, monkeypatch, tmp_path):
    from swarm_handoff import filecache

    monkeypatch.setattr(entrypoints, "MAX_ENVIRONMENTS", 3)
    folder = os.path.join(filecache.subfolder(os.environ, "memo"), "entry-points")
    paths = [environment(tmp_path, f"env-{i}", dists=[f"d{i}"]) for i in range(6)]
    for when, path in enumerate(paths):
        lookup(monkeypatch, path)
        for name in os.listdir(folder):  # each environment's file used a minute after the one before
            stamp = HOUR_AGO + 60 * when
            if os.path.getmtime(os.path.join(folder, name)) > HOUR_AGO + 3000:
                os.utime(os.path.join(folder, name), (stamp, stamp))
    files = os.listdir(folder)
    assert len(files) == 3
    assert sum(os.path.getsize(os.path.join(folder, f)) for f in files) <= filememo.MAX_MEMO_BYTES
    scans["n"] = 0
    for path in paths[3:]:  # the three used last are still there
        lookup(monkeypatch, path)
    assert scans["n"] == 0
    lookup(monkeypatch, paths[0])  # the first was evicted: scanned again
    assert scans["n"] == 1


@pytest.mark.parametrize("damage", ["garbage", "foreign", "wrong-shape"])
def test_a_damaged_or_foreign_memo_file_for_this_environment_means_a_fresh_scan(scans, monkeypatch, tmp_path, damage):
    from swarm_handoff import filecache

    mine = environment(tmp_path, "mine", dists=["alpha"])
    lookup(monkeypatch, mine)
    folder = os.path.join(filecache.subfolder(os.environ, "memo"), "entry-points")
    (name,) = os.listdir(folder)
    path = os.path.join(folder, name)
    if damage == "garbage":
        with open(path, "wb") as out:
            out.write(b"\x00not a cache file" * 10)
    elif damage == "foreign":
        filecache.dump(path, "memo:router", ((filememo.MEMO_FORMAT, "1"), {}))
    else:
        filecache.dump(path, "memo:entry-points", ("not", "the", "shape"))
    assert lookup(monkeypatch, mine) == ["alpha"]
    assert scans["n"] == 2
    assert lookup(monkeypatch, mine) == ["alpha"]  # the fresh scan was kept again
    assert scans["n"] == 2
