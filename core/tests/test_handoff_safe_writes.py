"""Hand-offs at once into one session each keep their payload; names from options never leave the session."""

from __future__ import annotations

import datetime as dt
import json
import os
import stat
import sys
import threading
from pathlib import Path

import pytest

from swarm_handoff.discovery import make_context
from swarm_handoff.history import open_history
from swarm_handoff.payload import io, output
from swarm_handoff.payload.build3 import build_v3
from swarm_handoff.payload.canonical import check_integrity
from swarm_handoff.payload.io import load_payload_file
from swarm_handoff.payload.lifecycle import HandoffOptions, hand_off, preserve
from swarm_handoff.plugins import get_host
from swarm_handoff.records import SkillRecord
from swarm_handoff.synthesis import load_synthesis

pytestmark = pytest.mark.skipif(sys.platform == "win32", reason="POSIX file semantics (flock, link, modes)")

SYNTHESIS = "original_prompt: Should we expand?\nproblem_type: strategic\nsynthesis_summary: Maybe.\n"


@pytest.fixture
def world(handoff_world):
    names = ("lit-pm", "stats", "../../evil")
    records = tuple(
        SkillRecord(name=n, scope="global", source="test", categories=("research",), trigger="--handoff {payload_path}")
        for n in names
    )
    return handoff_world(records, SYNTHESIS)


def _yaml_load(text: str) -> dict:
    return dict(io.parse_payload_text(text))


def run(swarm_cli, world, target, *extra, session=None):
    session = str(world["session"]) if session is None else session
    args = ["handoff", target, "--synthesis", str(world["synthesis"]), "--session", session, *extra]
    return swarm_cli(*args, "--format", "json")


def _tree(root: Path) -> set[str]:
    return {str(p.relative_to(root)) for p in root.rglob("*")}


# -- every run keeps its own payload ----------------------------------------------------------------


@pytest.mark.parametrize("schema", ["2.0", "3.0"])
def test_handoffs_at_once_each_keep_their_own_payload(world, schema):
    host, context = get_host(), make_context()
    results: dict[int, object] = {}
    start = threading.Barrier(8)

    def one(i: int) -> None:
        options = HandoffOptions(
            target="lit-pm",
            synthesis=world["synthesis"],
            session=world["session"],
            schema=schema,
            reason=f"run {i}",
        )
        start.wait()
        try:
            results[i] = hand_off(options, host=host, context=context)
        except BaseException as exc:
            results[i] = exc

    threads = [threading.Thread(target=one, args=(i,)) for i in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=120)
    paths = {i: Path(r.payload_path) for i, r in results.items()}  # type: ignore[attr-defined]
    assert len(set(paths.values())) == 8
    for i, path in paths.items():
        payload = load_payload_file(path)
        assert payload["handoff"]["meta"]["handoff_reason"] == f"run {i}"  # this run's payload, nobody else's
        assert check_integrity(payload).ok
    with open_history(world["config"]) as history:
        rows = history.list()
    assert sorted(r.payload_path for r in rows) == sorted(str(p) for p in paths.values())


def test_the_first_v2_payload_of_a_session_is_handoff_payload_yaml_then_a_numbered_series(world):
    written = [io.write_new(world["session"] / "handoff-payload.yaml", f"n: {i}\n") for i in range(3)]
    assert [p.name for p in written] == ["handoff-payload.yaml", "handoff-payload-2.yaml", "handoff-payload-3.yaml"]
    (world["session"] / "handoff-payload-2.yaml").unlink()
    nxt = io.write_new(world["session"] / "handoff-payload.yaml", "n: 3\n")
    assert nxt.name == "handoff-payload-4.yaml"  # the series only grows: the highest number is the newest


def _one_in_a_process(world, i: int, start, results) -> None:
    """A child process's hand-off (forked: it has the test's plugin host); reports its path or its error."""
    options = HandoffOptions(target="lit-pm", synthesis=world["synthesis"], session=world["session"], reason=f"run {i}")
    start.wait()
    try:
        results.put((i, hand_off(options).payload_path))
    except BaseException as exc:
        results.put((i, f"error: {exc!r}"))


@pytest.mark.skipif(not hasattr(os, "fork"), reason="the child processes are forked, to share the test's host")
def test_handoffs_in_processes_at_once_each_keep_their_payload_under_a_name_of_its_own(world):
    import multiprocessing

    runs = 6
    ctx = multiprocessing.get_context("fork")
    start, results = ctx.Barrier(runs), ctx.Queue()
    children = [ctx.Process(target=_one_in_a_process, args=(world, i, start, results)) for i in range(runs)]
    for child in children:
        child.start()
    reported = dict(results.get(timeout=120) for _ in children)
    for child in children:
        child.join(timeout=60)
    assert all(child.exitcode == 0 for child in children)
    assert not [r for r in reported.values() if r.startswith("error")], reported
    names = {Path(p).name for p in reported.values()}
    assert names == {"handoff-payload.yaml", *(f"handoff-payload-{n}.yaml" for n in range(2, runs + 1))}
    for i, path in reported.items():
        payload = load_payload_file(Path(path))
        assert payload["handoff"]["meta"]["handoff_reason"] == f"run {i}"  # this run's payload, nobody else's
        assert check_integrity(payload).ok
    assert sorted(p.name for p in world["session"].iterdir()) == sorted([*names, "perspectives"])  # no temporaries
    with open_history(world["config"]) as history:
        rows = history.list()
    assert sorted(r.payload_path for r in rows) == sorted(reported.values())


def test_a_new_name_is_found_without_listing_candidates_it_does_not_try(world, monkeypatch):
    for i in range(5):
        io.write_new(world["session"] / "handoff-payload.yaml", f"n: {i}\n")
    made: list[int] = []
    real = io.numbered

    def counting(path: Path, n: int) -> Path:
        made.append(n)
        return real(path, n)

    monkeypatch.setattr(io, "numbered", counting)
    written = io.write_new(world["session"] / "handoff-payload.yaml", "n: 5\n")
    assert written.name == "handoff-payload-6.yaml"
    assert made == [6]  # the next free number, and no other name built


def test_the_payload_is_whole_on_disk_before_the_folder_is_locked(world, monkeypatch):
    from swarm_handoff import safefs

    seen: list[list[bytes]] = []
    real = safefs.locked

    def watching(folder):
        temps = [p for p in Path(folder).iterdir() if safefs.temp_writer(p.name) is not None]
        seen.append([p.read_bytes() for p in temps])
        return real(folder)

    monkeypatch.setattr(safefs, "locked", watching)
    text = "n: whole\n" * 1000
    written = io.write_new(world["session"] / "handoff-payload.yaml", text)
    assert seen == [[text.encode()]]  # the lock is taken only to give the finished file its name
    assert written.read_text() == text
    assert [p.name for p in world["session"].iterdir() if p.name.startswith(".")] == []  # the temporary is gone


def test_failed_runs_preserved_at_once_never_collide(world):
    kept: list[str | None] = []
    start = threading.Barrier(6)

    def one(i: int) -> None:
        start.wait()
        kept.append(preserve({"handoff": {"n": i}}, world["session"], "2.0", world["config"]))

    threads = [threading.Thread(target=one, args=(i,)) for i in range(6)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=60)
    assert len(set(kept)) == 6
    assert sorted(load_payload_file(Path(str(p)))["handoff"]["n"] for p in kept) == list(range(6))


def test_v3_side_files_of_two_runs_in_the_same_second_have_their_own_names(world):
    many = [{"theme": f"theme {i} " + "detail " * 20, "confidence_score": 5} for i in range(60)]
    data = {**json.loads(json.dumps(_yaml_load(SYNTHESIS))), "insights": {"convergent": many}}
    source = world["root"] / "big.json"
    source.write_text(json.dumps(data))
    record = SkillRecord(name="lit-pm", scope="global", source="test")
    now = dt.datetime(2026, 2, 4, 19, 30, tzinfo=dt.timezone.utc)
    built = [build_v3(load_synthesis(source), record, world["session"], now=now) for _ in range(2)]
    [(first, _)], [(second, _)] = (b.side_files for b in built)
    assert first != second
    assert first.name.startswith("perspective-swarm-to-lit-pm-20260204T193000Z-")


def test_a_symlink_at_the_payload_name_is_neither_followed_nor_replaced(swarm_cli, world):
    outside = world["root"] / "outside.yaml"
    (world["session"] / "handoff-payload.yaml").symlink_to(outside)
    result = run(swarm_cli, world, "lit-pm")
    assert result.exit_code == 0, result.stdout + result.stderr
    assert Path(result.json()["payload_path"]).name == "handoff-payload-2.yaml"
    assert not outside.exists()
    assert os.readlink(world["session"] / "handoff-payload.yaml") == str(outside)


def test_a_symlinked_handoffs_folder_is_refused_and_the_payload_preserved(swarm_cli, world):
    elsewhere = world["root"] / "elsewhere"
    elsewhere.mkdir()
    (world["session"] / "handoffs").symlink_to(elsewhere)
    result = run(swarm_cli, world, "lit-pm", "--schema", "3.0")
    assert result.exit_code == 1
    error = result.json()["error"]
    assert error["code"] == "VALIDATION_FAILED"
    assert "handoffs" in error["message"]
    assert list(elsewhere.iterdir()) == []
    assert Path(error["payload_preserved"]).parent == world["session"]


# -- names and folders from options -------------------------------------------------------------


@pytest.mark.parametrize("source", ["../../escape", "/tmp/abs", "a/b", "", ".", "..", "-rf", ".hidden"])
def test_a_source_that_could_leave_the_session_is_a_usage_error(swarm_cli, world, source):
    before = _tree(world["root"])
    result = run(swarm_cli, world, "lit-pm", "--schema", "3.0", "--source", source)
    assert result.exit_code == 2, result.stdout
    error = result.json()["error"]
    assert error["code"] == "USAGE"
    assert "--source" in error["message"]
    assert _tree(world["root"]) == before  # nothing written anywhere, not even a preserved payload


def test_a_skill_name_that_could_leave_the_session_is_refused_for_v3(swarm_cli, world):
    before = _tree(world["root"])
    result = run(swarm_cli, world, "../../evil", "--schema", "3.0")
    assert result.exit_code == 1
    assert result.json()["error"]["code"] == "UNSAFE_NAME"
    assert _tree(world["root"]) == before


@pytest.mark.parametrize("session", ["", "  ", "/", "/.."])
def test_an_empty_or_root_session_is_a_usage_error(swarm_cli, world, session):
    result = run(swarm_cli, world, "lit-pm", session=session)
    assert result.exit_code == 2, result.stdout
    assert result.json()["error"]["code"] == "USAGE"
    assert "--session" in result.json()["error"]["message"]


@pytest.mark.parametrize(("mode", "who"), [(0o775, "its group"), (0o757, "everyone"), (0o1777, "everyone")])
def test_a_session_others_can_write_gets_a_warning(swarm_cli, world, mode, who):
    world["session"].chmod(mode)
    result = run(swarm_cli, world, "lit-pm")
    assert result.exit_code == 0
    [warning] = [w for w in result.json()["warnings"] if w["code"] == "SESSION_WRITABLE_BY_OTHERS"]
    assert warning["severity"] == "warning"
    assert who in warning["message"]
    assert "SESSION_WRITABLE_BY_OTHERS" in result.stderr


def test_a_private_session_gets_no_warning(swarm_cli, world):
    result = run(swarm_cli, world, "lit-pm")
    assert result.json()["warnings"] == []
    assert stat.S_IMODE(world["session"].stat().st_mode) == 0o755


# -- convert --output and ack -------------------------------------------------------------------


def test_convert_outputs_written_at_once_keep_every_earlier_file(world):
    out = world["root"] / "out.json"
    start = threading.Barrier(6)

    def one(i: int) -> None:
        start.wait()
        output.write_keeping_earlier(out, json.dumps({"n": i}))

    threads = [threading.Thread(target=one, args=(i,)) for i in range(6)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=60)
    files = [out, *(out.with_name(f"out.{n}.json") for n in range(1, 6))]
    assert sorted(json.loads(p.read_text())["n"] for p in files) == list(range(6))


def test_ack_finds_or_records_the_handoff_inside_its_write_transaction(world, monkeypatch):
    from swarm_handoff.history import History

    seen: list[bool] = []
    find = History._find

    def spy(self, path, hash_):
        seen.append(self.connection.in_transaction)  # outside, a second `ack` could record it too
        return find(self, path, hash_)

    monkeypatch.setattr(History, "_find", spy)
    with open_history(world["config"]) as history:
        history.acknowledge(world["root"] / "copied.yaml", {"handoff": {"meta": {}}}, "received")
    assert seen == [True]
