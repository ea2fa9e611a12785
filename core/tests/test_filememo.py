"""FileMemo: a plugin's per-file results kept across runs, never served for a changed file or version."""

from __future__ import annotations

import marshal
import os
import time
from pathlib import Path

import pytest

from swarm_handoff import filecache, filememo
from swarm_handoff.api import FileMemo

HOUR_AGO = time.time() - 3600


def old_file(path: Path, text: str, when: float = HOUR_AGO) -> str:
    path.write_text(text, encoding="utf-8")
    os.utime(path, (when, when))
    return str(path)


def remembered(path: str, value: object, name: str = "demo", version: str = "1") -> None:
    """One run: look up, compute, keep, save."""
    memo = FileMemo(name, version)
    if memo.get(path) is None:
        memo.put(path, value)
    memo.save()


def memo_file(name: str = "demo") -> Path:
    return Path(os.environ["XDG_CACHE_HOME"]) / "swarm-handoff" / "memo" / f"{name}.bin"


def test_a_value_is_served_in_a_later_run_while_its_file_is_unchanged(tmp_path: Path) -> None:
    path = old_file(tmp_path / "SKILL.md", "hello")
    remembered(path, {"words": ("hello",)})
    again = FileMemo("demo", "1")
    assert again.get(path) == {"words": ("hello",)}
    assert (again.hits, again.misses) == (1, 0)


@pytest.mark.parametrize("change", ["content", "same-size-new-mtime", "replaced-same-stat"])
def test_a_changed_file_is_a_miss(tmp_path: Path, change: str) -> None:
    path = old_file(tmp_path / "SKILL.md", "hello")
    remembered(path, "old analysis")
    if change == "content":
        old_file(tmp_path / "SKILL.md", "hello, world")
    elif change == "same-size-new-mtime":
        old_file(tmp_path / "SKILL.md", "HELLO", when=HOUR_AGO + 60)
    else:  # an editor's atomic save: a new inode, same size and (restored) mtime
        other = old_file(tmp_path / "new.md", "HELLO")
        os.replace(other, path)
    assert FileMemo("demo", "1").get(path) is None


def rewritten_keeping_mtime(path: str, text: str) -> None:
    """Rewrite `path` in place with `text` and set its mtime back, as `touch -r` or `cp -p` do."""
    before = os.stat(path)
    while True:  # the status-change time ticks with the kernel's clock: wait for one tick if needed
        with open(path, "w", encoding="utf-8") as handle:
            handle.write(text)
        os.utime(path, ns=(before.st_atime_ns, before.st_mtime_ns))
        if os.stat(path).st_ctime_ns != before.st_ctime_ns:
            return
        time.sleep(0.005)


def test_a_same_size_edit_that_keeps_the_mtime_is_a_miss(tmp_path: Path) -> None:
    path = old_file(tmp_path / "SKILL.md", "hello")
    remembered(path, "old analysis")
    before = os.stat(path)
    rewritten_keeping_mtime(path, "HELLO")
    after = os.stat(path)
    assert (after.st_size, after.st_mtime_ns, after.st_ino) == (before.st_size, before.st_mtime_ns, before.st_ino)
    assert FileMemo("demo", "1").get(path) is None


def test_the_same_stat_on_another_device_is_a_miss(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = old_file(tmp_path / "SKILL.md", "hello")
    remembered(path, "analysis on the first disk")
    real = os.stat(path)
    fields = {name: getattr(real, name) for name in ("st_mtime_ns", "st_size", "st_ino", "st_ctime_ns")}
    other = type("Stat", (), {**fields, "st_dev": real.st_dev + 1})()
    real_stat = os.stat

    def stat(target: object, *args: object, **kwargs: object) -> object:
        return other if target == path else real_stat(target, *args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(filememo.os, "stat", stat)
    assert FileMemo("demo", "1").get(path) is None


def test_a_memo_of_the_former_shape_is_empty(tmp_path: Path) -> None:
    path = old_file(tmp_path / "SKILL.md", "hello")
    st = os.stat(path)
    former = ("1", {path: (st.st_mtime_ns, st.st_size, st.st_ino, "old analysis")})
    memo_file().parent.mkdir(parents=True)
    memo_file().write_bytes(filecache.encode("memo:demo", former))
    assert FileMemo("demo", "1").get(path) is None


def test_another_version_or_name_reads_nothing(tmp_path: Path) -> None:
    path = old_file(tmp_path / "SKILL.md", "hello")
    remembered(path, "v1 analysis")
    assert FileMemo("demo", "2").get(path) is None
    assert FileMemo("other", "1").get(path) is None
    assert FileMemo("demo", "1").get(path) == "v1 analysis"


def test_a_file_changed_just_before_the_run_is_not_kept(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(filecache, "RACY_NS", 10**12)  # as outside tests: recent files are not trusted
    path = old_file(tmp_path / "SKILL.md", "hello", when=time.time())
    remembered(path, "racy")
    assert FileMemo("demo", "1").get(path) is None


def test_put_without_get_keeps_nothing(tmp_path: Path) -> None:
    path = old_file(tmp_path / "SKILL.md", "hello")
    memo = FileMemo("demo", "1")
    memo.put(path, "no stat was taken before reading")
    memo.save()
    assert not memo_file().exists()


def test_a_missing_file_is_a_miss(tmp_path: Path) -> None:
    memo = FileMemo("demo", "1")
    assert memo.get(str(tmp_path / "absent" / "SKILL.md")) is None


def test_no_cache_turns_the_memo_off(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("SWARM_HANDOFF_NO_CACHE", "1")
    path = old_file(tmp_path / "SKILL.md", "hello")
    memo = FileMemo("demo", "1")
    assert not memo.enabled
    assert memo.get(path) is None
    memo.put(path, "kept?")
    memo.save()
    assert not memo_file().exists()
    assert FileMemo("demo", "1").get(path) is None


def test_the_memo_lives_in_the_core_cache_folder(tmp_path: Path) -> None:
    path = old_file(tmp_path / "SKILL.md", "hello")
    remembered(path, 1)
    assert memo_file().is_file()
    other = FileMemo("demo", "1", env={"XDG_CACHE_HOME": str(tmp_path / "elsewhere")})
    assert other.get(path) is None


@pytest.mark.parametrize(
    "content",
    [
        b"",
        b"not marshal at all",
        filecache.encode("memo:demo", "not a pair"),
        filecache.encode("memo:demo", ((filememo.MEMO_FORMAT, "1"), ["a", "list"])),
        filecache.encode("memo:demo", ((filememo.MEMO_FORMAT, "1"), {"x": 1, "y": (1, 2)})),
        filecache.encode("parse", ((filememo.MEMO_FORMAT, "1"), {})),
        marshal.dumps([1, 2, 3])[:-1],
        marshal.dumps(("swarm-handoff-cache", filecache.FORMAT, "memo:demo", ((filememo.MEMO_FORMAT, "1"), {}))),
        filecache.encode("memo:demo", ((filememo.MEMO_FORMAT, "1"), {}))[:-1],
    ],
)
def test_a_corrupt_or_foreign_memo_file_is_an_empty_memo(tmp_path: Path, content: bytes) -> None:
    path = old_file(tmp_path / "SKILL.md", "hello")
    memo_file().parent.mkdir(parents=True)
    memo_file().write_bytes(content)
    memo = FileMemo("demo", "1")
    assert memo.get(path) is None
    memo.put(path, "fresh")
    memo.save()  # and the damaged file is replaced
    assert FileMemo("demo", "1").get(path) == "fresh"


def test_a_hostile_entry_for_the_very_file_is_a_miss(tmp_path: Path) -> None:
    path = old_file(tmp_path / "SKILL.md", "hello")
    for entry in [None, "text", (1, 2), ("a", "b", "c", "d"), [0, 0, 0, 0], (0, 0, 0, 0, 0, "x"), [0] * 6]:
        payload = ((filememo.MEMO_FORMAT, "1"), {path: entry})
        memo_file().parent.mkdir(parents=True, exist_ok=True)
        memo_file().write_bytes(filecache.encode("memo:demo", payload))
        assert FileMemo("demo", "1").get(path) is None


def test_a_memo_file_that_is_a_symlink_is_not_followed(tmp_path: Path) -> None:
    path = old_file(tmp_path / "SKILL.md", "hello")
    remembered(path, "real")
    target = tmp_path / "elsewhere.bin"
    target.write_bytes(memo_file().read_bytes())
    memo_file().unlink()
    memo_file().symlink_to(target)
    assert FileMemo("demo", "1").get(path) is None


def test_two_runs_at_once_keep_each_others_entries(tmp_path: Path) -> None:
    first = old_file(tmp_path / "a.md", "a")
    second = old_file(tmp_path / "b.md", "b")
    one, two = FileMemo("demo", "1"), FileMemo("demo", "1")  # both read the memo before either saved
    assert one.get(first) is None
    assert two.get(second) is None
    one.put(first, "A")
    two.put(second, "B")
    one.save()
    two.save()
    later = FileMemo("demo", "1")
    assert (later.get(first), later.get(second)) == ("A", "B")


def test_the_memo_is_bounded_by_entries_this_run_first(tmp_path: Path) -> None:
    paths = [old_file(tmp_path / f"{i}.md", str(i)) for i in range(6)]
    for path in paths[:4]:
        remembered(path, path)
    memo = FileMemo("demo", "1", max_entries=3)
    for path in paths[4:]:
        assert memo.get(path) is None
        memo.put(path, path)
    memo.save()
    later = FileMemo("demo", "1")
    kept = [p for p in paths if later.get(p) is not None]
    assert kept == [paths[3], *paths[4:]]  # this run's two, and the newest other one


def test_the_memo_is_bounded_by_bytes(tmp_path: Path) -> None:
    paths = [old_file(tmp_path / f"{i}.md", str(i)) for i in range(8)]
    memo = FileMemo("demo", "1", max_bytes=3000)
    for number, path in enumerate(paths):
        memo.get(path)
        memo.put(path, str(number) * 1000)
    memo.save()
    assert 0 < memo_file().stat().st_size <= 3000
    later = FileMemo("demo", "1")
    assert later.get(paths[-1]) == "7" * 1000
    assert later.get(paths[0]) is None


def test_an_unwritable_cache_folder_costs_only_speed(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    blocker = tmp_path / "a-file"
    blocker.write_text("not a folder")
    monkeypatch.setenv("XDG_CACHE_HOME", str(blocker))
    path = old_file(tmp_path / "SKILL.md", "hello")
    remembered(path, "lost")  # no error
    assert FileMemo("demo", "1").get(path) is None


def test_a_value_marshal_cannot_write_is_not_kept_and_not_an_error(tmp_path: Path) -> None:
    path = old_file(tmp_path / "SKILL.md", "hello")
    remembered(path, object())
    assert FileMemo("demo", "1").get(path) is None


@pytest.mark.parametrize("name", ["", "Upper", "../escape", "a/b", "x" * 65])
def test_a_memo_name_must_be_a_plain_file_name(name: str) -> None:
    with pytest.raises(ValueError, match="FileMemo name"):
        FileMemo(name, "1")


def test_a_cache_file_that_declares_a_huge_or_deep_object_is_a_miss(tmp_path, monkeypatch) -> None:
    """marshal allocates what a damaged file declares: running out of memory or stack is a miss."""
    import marshal

    from swarm_handoff import filecache

    path = tmp_path / "x.bin"
    path.write_bytes(b"(((((((((")
    for error in (MemoryError, RecursionError):

        def loads(_data: bytes, error: type[BaseException] = error) -> object:
            raise error

        monkeypatch.setattr(marshal, "loads", loads)
        assert filecache.load(path, "memo") is None


def forged_huge(header: bytes = filecache.HEADER, digest: bytes = b"\0" * filecache.DIGEST_SIZE) -> bytes:
    """A cache file whose body declares a list of 2**31 - 1 items (marshal would allocate 16 GiB first)."""
    return header + digest + b"[" + (2**31 - 1).to_bytes(4, "little")


@pytest.mark.parametrize(
    "content",
    [
        forged_huge(),  # a digest that does not match
        forged_huge(header=b"swarm-handoff-cache\0\0\3"),  # another format's header
        forged_huge(header=b""),  # no header: a bare marshal stream, as format 3 wrote
        b"swarm-handoff",  # shorter than a header
        b"",
    ],
)
def test_a_cache_file_whose_digest_does_not_match_never_reaches_marshal(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, content: bytes
) -> None:
    path = tmp_path / "x.bin"
    path.write_bytes(content)

    def loads(_data: object) -> object:
        raise AssertionError("marshal.loads was given a file that failed its digest")

    monkeypatch.setattr(marshal, "loads", loads)
    assert filecache.load(path, "memo") is None


def test_a_cache_file_round_trips_and_one_changed_byte_makes_it_a_miss(tmp_path: Path) -> None:
    path = tmp_path / "x.bin"
    filecache.dump(path, "demo", {"a": (1, 2.5, "x")})
    assert filecache.load(path, "demo") == {"a": (1, 2.5, "x")}
    data = bytearray(path.read_bytes())
    data[-3] ^= 0x01
    path.write_bytes(bytes(data))
    assert filecache.load(path, "demo") is None


def aged(path: Path, seconds: float) -> None:
    """Date the memo file `seconds` back, as if it was last written then."""
    when = time.time() - seconds
    os.utime(path, (when, when))


def read_only_run(paths: list[str]) -> None:
    """A run in which every lookup hits: nothing new to keep."""
    memo = FileMemo("demo", "1", max_entries=4)
    assert all(memo.get(path) is not None for path in paths)
    memo.save()


def test_entries_in_daily_use_outlive_the_others_though_their_runs_only_read(tmp_path: Path) -> None:
    paths = [old_file(tmp_path / f"{i}.md", str(i)) for i in range(6)]
    daily, other, new = paths[:2], paths[2:4], paths[4:]
    for group in (daily, other):
        memo = FileMemo("demo", "1", max_entries=4)
        for path in group:
            assert memo.get(path) is None
            memo.put(path, path)
        memo.save()
    aged(memo_file(), filememo.REFRESH_NS / 1e9 + 60)  # the last write was over an hour ago
    read_only_run(daily)  # ranked again: every lookup a hit
    memo = FileMemo("demo", "1", max_entries=4)
    for path in new:  # another project's skills push two entries out
        assert memo.get(path) is None
        memo.put(path, path)
    memo.save()
    later = FileMemo("demo", "1")
    assert [p for p in paths if later.get(p) is not None] == [*daily, *new]


def test_a_read_only_run_writes_nothing_while_its_entries_are_the_last_or_the_memo_is_recent(tmp_path: Path) -> None:
    paths = [old_file(tmp_path / f"{i}.md", str(i)) for i in range(4)]
    first, second = paths[:2], paths[2:]
    for group in (first, second):
        memo = FileMemo("demo", "1")
        for path in group:
            assert memo.get(path) is None
            memo.put(path, path)
        memo.save()
    aged(memo_file(), filememo.REFRESH_NS / 1e9 + 60)
    before = os.stat(memo_file())
    read_only_run(second)  # already filed last: nothing to do, however old the file
    read_only_run([*first, *second])  # every entry used: the order cannot improve
    assert os.stat(memo_file()).st_mtime_ns == before.st_mtime_ns
    aged(memo_file(), 60)  # written a minute ago
    before = os.stat(memo_file())
    read_only_run(first)  # not last, but the memo is recent: the warm path stays free of writes
    assert os.stat(memo_file()).st_mtime_ns == before.st_mtime_ns
    aged(memo_file(), filememo.REFRESH_NS / 1e9 + 60)
    before = os.stat(memo_file())
    read_only_run(first)  # not last and old: filed last again
    assert os.stat(memo_file()).st_mtime_ns > before.st_mtime_ns
    later = FileMemo("demo", "1")
    assert list(later.entries) == [*second, *first]


def kept_in_part(part: str, path: str, value: object, **bounds: int) -> FileMemo:
    """One run of a memo in parts: look up `path` in `part`, keep `value` on a miss, save."""
    memo = FileMemo("demo", "1", part=part, **bounds)
    if memo.get(path) is None:
        memo.put(path, value)
    memo.save()
    return memo


def test_a_part_is_one_file_of_its_own_and_reads_no_other_part(tmp_path: Path, monkeypatch) -> None:
    path = old_file(tmp_path / "SKILL.md", "hello")
    for i in range(30):
        kept_in_part(f"environment {i}", path, f"value {i}" * 100)
    loaded = []
    real = filecache.load
    monkeypatch.setattr(filecache, "load", lambda p, kind: loaded.append(p) or real(p, kind))
    memo = FileMemo("demo", "1", part="environment 7")
    assert memo.get(path) == "value 7" * 100
    assert loaded == [memo.path]
    assert len(memo.entries) == 1
    assert Path(memo.path).parent == memo_file().with_suffix("")  # memo/demo/DIGEST.bin
    assert FileMemo("demo", "1").get(path) is None  # the memo of one file is another memo


def test_parts_are_bounded_and_those_used_last_stay(tmp_path: Path) -> None:
    path = old_file(tmp_path / "SKILL.md", "hello")
    first = [kept_in_part(f"part {i}", path, i, max_parts=3) for i in range(3)]
    for age, memo in zip((300, 200, 100), first, strict=True):
        aged(Path(memo.path), filememo.REFRESH_NS / 1e9 + age)  # part 0 written longest ago
    assert kept_in_part("part 0", path, 0, max_parts=3).hits == 1  # read again: filed as used now
    kept_in_part("part 3", path, 3, max_parts=3)  # one too many: the one used longest ago goes
    folder = memo_file().with_suffix("")
    assert len(list(folder.iterdir())) == 3
    assert not os.path.exists(first[1].path)
    assert all(os.path.exists(m.path) for m in (first[0], first[2]))


def test_parts_hold_no_more_bytes_in_all_than_one_memo_file(tmp_path: Path) -> None:
    path = old_file(tmp_path / "SKILL.md", "hello")
    for i in range(6):
        kept_in_part(f"part {i}", path, "x" * 3000, max_bytes=10_000)
    sizes = [p.stat().st_size for p in memo_file().with_suffix("").iterdir()]
    assert sum(sizes) <= 10_000
    assert len(sizes) == 3


def test_the_memo_of_one_file_an_older_version_wrote_goes_when_a_part_is_written(tmp_path: Path) -> None:
    path = old_file(tmp_path / "SKILL.md", "hello")
    remembered(path, "kept whole")
    assert memo_file().exists()
    kept_in_part("environment", path, "kept in a part")
    assert not memo_file().exists()


def test_a_parts_folder_replaced_by_a_symlink_is_not_followed(tmp_path: Path, capsys) -> None:
    path = old_file(tmp_path / "SKILL.md", "hello")
    kept_in_part("environment", path, "real")
    folder = memo_file().with_suffix("")
    elsewhere = tmp_path / "elsewhere"
    folder.rename(elsewhere)
    folder.symlink_to(elsewhere, target_is_directory=True)
    memo = FileMemo("demo", "1", part="environment")
    assert not memo.enabled
    assert memo.get(path) is None
    assert f"cache folder {folder} is not a folder of its own" in capsys.readouterr().err
    kept_in_part("other", path, "not written through the link")
    assert len(list(elsewhere.iterdir())) == 1
