"""Every cache file carries a BLAKE2b digest of its body, checked before marshal reads it (large bodies too)."""

from __future__ import annotations

import marshal
from pathlib import Path

import pytest

from swarm_handoff import filecache

BIG = {"skills": ["x" * 100 + str(i) for i in range(12_000)]}  # over 1 MB, as 10,000 skills make


def refuse_marshal(monkeypatch: pytest.MonkeyPatch) -> None:
    def loads(_data: object) -> object:
        raise AssertionError("marshal.loads was given a file that failed its digest")

    monkeypatch.setattr(marshal, "loads", loads)


@pytest.mark.parametrize("payload", [{"a": (1, 2.5, "x")}, BIG], ids=["small", "large"])
def test_a_cache_file_round_trips_and_one_changed_byte_is_a_miss_before_marshal(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, payload: object
) -> None:
    path = tmp_path / "x.bin"
    filecache.dump(path, "demo", payload)
    assert filecache.load(path, "demo") == payload
    data = path.read_bytes()
    assert (len(data) > 1 << 20) == (payload is BIG)
    refuse_marshal(monkeypatch)
    for at in (len(filecache.HEADER), len(filecache.HEADER) + filecache.DIGEST_SIZE + 7, len(data) - 3):
        damaged = bytearray(data)
        damaged[at] ^= 0x01
        path.write_bytes(bytes(damaged))
        assert filecache.load(path, "demo") is None
    path.write_bytes(data[:-1])  # truncated
    assert filecache.load(path, "demo") is None


def test_a_large_body_declaring_a_huge_tuple_never_reaches_marshal(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    body = b"(" + (2**31 - 1).to_bytes(4, "little") + b"\0" * (1 << 20)
    path = tmp_path / "x.bin"
    path.write_bytes(filecache.HEADER + b"\0" * filecache.DIGEST_SIZE + body)
    refuse_marshal(monkeypatch)
    assert filecache.load(path, "demo") is None


def test_one_digest_whatever_the_size() -> None:
    """BLAKE2b for every body: no second, weaker checksum for large files."""
    import hashlib

    for payload in ({"a": 1}, BIG):
        data = filecache.encode("demo", payload)
        start = len(filecache.HEADER) + filecache.DIGEST_SIZE
        body = data[start:]
        assert data[len(filecache.HEADER) : start] == hashlib.blake2b(body, digest_size=filecache.DIGEST_SIZE).digest()
