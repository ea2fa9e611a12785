"""Issue 25.3: a cache folder someone else can write is never used, and pruning deletes only the caches' own files.

Whoever can write the cache folder could otherwise make pruning delete their choice of files (a
symlinked `results/` pointing anywhere) or forge what a cache answers. The tests run as root where
the suite does, so another owner is made with `os.chown`.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from swarm_handoff import cache, filecache
from swarm_handoff.discovery import discover, make_context
from swarm_handoff.filememo import FileMemo

pytestmark = pytest.mark.skipif(os.name != "posix", reason="POSIX owners and modes")


def ctx(work: Path, home: Path):
    return make_context(work, {"HOME": str(home)})


@pytest.fixture
def home(tmp_path: Path) -> Path:
    return tmp_path / "home"


def folder_of(home: Path) -> Path:
    return home / ".cache" / "swarm-handoff"


def unrelated(folder: Path, count: int = 100) -> set[str]:
    """A folder of someone's own files, none named like a cache file but a few (a digest-like name too)."""
    folder.mkdir(parents=True)
    names = {f"photo-{i:03d}.jpg" for i in range(count - 2)} | {f"{'a' * 40}.bin", "notes.bin"}
    for name in names:
        (folder / name).write_bytes(b"precious")
        os.utime(folder / name, ns=(10**9, 10**9))  # older than anything a cache writes
    return names


def test_cache_folders_are_made_for_the_user_alone(list_source, swarm_host, tmp_path, home):
    list_source.listing.write_text("a")
    discover(ctx(tmp_path, home), swarm_host)
    root = folder_of(home)
    for folder in (root, root / "results", root / "memo"):
        assert folder.stat().st_mode & 0o777 == 0o700, folder


def test_a_symlinked_results_folder_loses_none_of_its_files(
    list_source, swarm_host, tmp_path, home, monkeypatch, capsys
):
    """Pruning used to follow `results/` wherever it pointed and delete all but the newest 64 files there."""
    monkeypatch.setattr(cache, "MAX_RESULTS", 1)
    elsewhere = tmp_path / "pictures"
    names = unrelated(elsewhere)
    root = folder_of(home)
    root.mkdir(parents=True, mode=0o700)
    (root / "results").symlink_to(elsewhere, target_is_directory=True)
    list_source.listing.write_text("a")
    for i in range(4):  # four working directories: four answers, each one past the bound
        work = tmp_path / f"w{i}"
        work.mkdir()
        assert [r.name for r in discover(ctx(work, home), swarm_host).workflows] == ["a"]
    assert {p.name for p in elsewhere.iterdir()} == names
    err = capsys.readouterr().err
    assert err.count("warning: cache folder") == 1  # once per folder and process
    assert f"{root / 'results'} is not a folder of its own" in err
    assert f"remove {root / 'results'}" in err


@pytest.mark.parametrize("name", ["results", "memo"])
def test_prune_never_follows_a_link_nor_removes_a_name_it_did_not_write(tmp_path, name):
    elsewhere = tmp_path / "pictures"
    names = unrelated(elsewhere)
    link = tmp_path / name
    link.symlink_to(elsewhere, target_is_directory=True)
    newest = f"{'b' * 40}.bin"
    (elsewhere / newest).write_bytes(b"a cache file")
    assert filecache.prune(link, max_files=1, max_bytes=1) == []  # a link in the folder's place: never opened
    assert {p.name for p in elsewhere.iterdir()} == names | {newest}
    # In the folder itself, only names of the form the caches write are candidates (the newest stays).
    assert filecache.prune(elsewhere, max_files=1, max_bytes=1) == [f"{'a' * 40}.bin"]
    assert {p.name for p in elsewhere.iterdir()} == (names - {f"{'a' * 40}.bin"}) | {newest}


def shared(root: Path) -> None:
    root.chmod(0o777)


def foreign(root: Path) -> None:
    os.chown(root, 12345, 12345)


@pytest.mark.parametrize(
    ("unsafe", "said", "fix"), [(shared, "group or others", "chmod 700"), (foreign, "uid 12345", "remove")]
)
def test_a_cache_folder_others_can_write_is_not_used_and_says_so(
    list_source, swarm_host, tmp_path, home, capsys, unsafe, said, fix
):
    if os.geteuid() != 0 and unsafe is foreign:
        pytest.skip("only root can give a folder to another user")
    root = folder_of(home)
    root.mkdir(parents=True, mode=0o700)
    unsafe(root)
    list_source.listing.write_text("a")
    for _ in range(2):
        assert [r.name for r in discover(ctx(tmp_path, home), swarm_host).workflows] == ["a"]
    assert list_source.runs == 2  # nothing was reused: the command ran with no cache
    assert list(root.iterdir()) == []  # and nothing was written there
    err = capsys.readouterr().err
    assert err.count("warning: cache folder") == 1
    assert f"cache folder {root} " in err
    assert said in err
    assert fix in err
    assert "running without a cache" in err
    assert not FileMemo("demo", "1", env={"HOME": str(home)}).enabled  # the plugins' memos too


def test_a_forged_answer_in_a_shared_folder_is_never_served(list_source, swarm_host, tmp_path, home):
    """Another user who may write the folder could rewrite a stored answer; it is not read at all."""
    list_source.listing.write_text("a")
    discover(ctx(tmp_path, home), swarm_host)
    root = folder_of(home)
    [stored] = (root / "results").iterdir()
    inputs, state = filecache.load(stored, "result")
    state["workflows"] = [(*state["workflows"][0][:1], "forged", *state["workflows"][0][2:])]
    filecache.dump(stored, "result", (inputs, state))  # what another user could write, digest and all
    shared(root)
    assert [r.name for r in discover(ctx(tmp_path, home), swarm_host).workflows] == ["a"]
    assert list_source.runs == 2
