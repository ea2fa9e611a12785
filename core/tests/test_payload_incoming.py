"""A payload from another machine (issue 29): `accept_incoming` checks it as `handoff --from` does, then takes it in."""

from __future__ import annotations

import datetime as dt
import json
import os
from pathlib import Path

import pytest

from swarm_handoff.discovery import make_context
from swarm_handoff.errors import SwarmError
from swarm_handoff.history import open_history
from swarm_handoff.payload.canonical import seal
from swarm_handoff.payload.incoming import accept_incoming
from swarm_handoff.payload.lifecycle import HandoffOptions, hand_off
from swarm_handoff.records import SkillRecord

SYNTHESIS = """
original_prompt: Should we expand into Europe?
problem_type: strategic
synthesis_summary: Regulation is the main risk.
convergence_level: medium
"""


@pytest.fixture
def world(handoff_world, tmp_path):
    records = (
        SkillRecord(name="alpha", scope="global", source="test", categories=("research",), protocol_version="3.0"),
        SkillRecord(name="beta", scope="global", source="test", categories=("research",), protocol_version="3.0"),
        SkillRecord(
            name="picky", scope="global", source="test", protocol_version="3.0", accepts_from=("someone-else",)
        ),
    )
    made = handoff_world(records, SYNTHESIS)
    receiver = make_context(env={**os.environ, "CLAUDE_CONFIG_DIR": str(tmp_path / "receiver-config")})
    return {**made, "receiver": receiver, "inbox": tmp_path / "inbox"}


def sent(world, target="beta"):
    result = hand_off(
        HandoffOptions(target=target, synthesis=world["synthesis"], session=world["session"], source="alpha")
    )
    return Path(result.payload_path).read_text(encoding="utf-8")


def files_under(folder: Path) -> list[Path]:
    return sorted(p for p in folder.rglob("*") if p.is_file()) if folder.exists() else []


def history_rows(context):
    with open_history(context.config_dir) as history:
        return history.list()


def test_an_intact_payload_is_written_where_the_receiver_says_and_recorded_once(world):
    text = sent(world)
    first = accept_incoming(text, world["inbox"], context=world["receiver"])
    assert first.path.is_relative_to(world["inbox"].resolve())
    assert first.path.read_text(encoding="utf-8") == text
    assert not first.already
    assert first.target == "beta"
    assert first.source == "alpha"
    again = accept_incoming(text, world["inbox"], context=world["receiver"])
    assert again.already
    assert again.path == first.path
    assert again.history_id == first.history_id
    rows = history_rows(world["receiver"])
    assert [(r.payload_hash, r.status) for r in rows] == [(first.payload_hash, "received")]
    assert files_under(world["inbox"]) == [first.path]  # nothing left in .incoming


def tampered(text: str) -> str:
    data = json.loads(text)
    data["handoff"]["context"]["synthesis_summary"] = "Something else entirely."
    return json.dumps(data, indent=2)


def expired(text: str) -> str:
    data = json.loads(text)
    data["handoff"]["expires_at"] = "2020-01-01T00:00:00Z"
    data["handoff"]["timestamp"] = "2019-12-31T23:00:00Z"
    for key in ("payload_hash", "payload_size_bytes"):
        data["handoff"]["meta"].pop(key, None)
    return json.dumps(seal(data), indent=2)


def looping(text: str) -> str:
    data = json.loads(text)
    data["handoff"]["meta"]["handoff_chain"] = ["beta", "alpha"]
    for key in ("payload_hash", "payload_size_bytes"):
        data["handoff"]["meta"].pop(key, None)
    return json.dumps(seal(data), indent=2)


@pytest.mark.parametrize(
    ("change", "code"),
    [
        (tampered, "RECEIVED_PAYLOAD_TAMPERED"),
        (expired, "RECEIVED_PAYLOAD_EXPIRED"),
        (looping, "RECEIVED_PAYLOAD_INVALID"),
        (lambda text: " " * (4 * 1024 * 1024 + 1) + text, "INVALID_PAYLOAD"),
        (lambda text: "[" * 500 + "]" * 500, "INVALID_PAYLOAD"),
    ],
    ids=["tampered", "expired", "looping", "oversized", "too-deep"],
)
def test_a_refused_payload_has_its_code_and_leaves_nothing_behind(world, change, code):
    with pytest.raises(SwarmError) as caught:
        accept_incoming(change(sent(world)), world["inbox"], context=world["receiver"])
    assert caught.value.code == code, caught.value.message
    assert ".incoming" not in caught.value.message
    assert files_under(world["inbox"]) == []
    assert history_rows(world["receiver"]) == []


def test_the_receivers_accepts_from_decides(world):
    with pytest.raises(SwarmError) as caught:
        accept_incoming(sent(world, "picky"), world["inbox"], context=world["receiver"])
    assert caught.value.code == "SOURCE_NOT_ACCEPTED"
    assert files_under(world["inbox"]) == []


def test_the_receivers_requires_decides_with_the_code_a_local_handoff_gives(handoff_world, tmp_path):
    """A target that requires a field the payload lacks here is refused as `handoff` refuses it; nothing written."""
    receiving = {"on": False}

    def records():
        needs = ("context.budget_owner",) if receiving["on"] else ()
        return (
            SkillRecord(name="alpha", scope="global", source="test", protocol_version="3.0"),
            SkillRecord(name="needy", scope="global", source="test", protocol_version="3.0", requires=needs),
        )

    made = handoff_world(records, SYNTHESIS)
    receiver = make_context(env={**os.environ, "CLAUDE_CONFIG_DIR": str(tmp_path / "receiver-config")})
    text = sent({**made}, "needy")
    receiving["on"] = True
    with pytest.raises(SwarmError) as local:
        hand_off(HandoffOptions(target="needy", synthesis=made["synthesis"], session=made["session"], source="alpha"))
    with pytest.raises(SwarmError) as caught:
        accept_incoming(text, tmp_path / "inbox", context=receiver)
    assert caught.value.code == local.value.code == "VALIDATION_FAILED"
    assert caught.value.details["missing_fields"] == ["context.budget_owner"]
    assert caught.value.details["target_skill"] == "needy"
    assert files_under(tmp_path / "inbox") == []
    assert history_rows(receiver) == []


def test_an_unsigned_payload_is_refused_when_a_signature_is_required(world):
    with pytest.raises(SwarmError) as caught:
        accept_incoming(sent(world), world["inbox"], context=world["receiver"], require_signature=True)
    assert caught.value.code == "RECEIVED_PAYLOAD_UNSIGNED"
    assert files_under(world["inbox"]) == []


def test_an_unknown_target_is_refused_with_the_closest_names(world):
    data = json.loads(sent(world))
    data["handoff"]["target"]["skill"] = "betta"
    for key in ("payload_hash", "payload_size_bytes"):
        data["handoff"]["meta"].pop(key, None)
    with pytest.raises(SwarmError) as caught:
        accept_incoming(
            json.dumps(seal(data)), world["inbox"], context=world["receiver"], now=dt.datetime.now(dt.timezone.utc)
        )
    assert caught.value.code == "TARGET_NOT_FOUND"
    assert "beta" in (caught.value.hint or "")


def test_the_callers_traceparent_travels_in_the_payloads_tracing_tags(world, monkeypatch):
    parent = "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01"
    monkeypatch.setenv("TRACEPARENT", parent)
    result = hand_off(
        HandoffOptions(target="beta", synthesis=world["synthesis"], session=world["session"], source="alpha")
    )
    data = json.loads(Path(result.payload_path).read_text(encoding="utf-8"))
    assert data["handoff"]["tracing"]["tags"]["traceparent"] == parent
    assert accept_incoming(
        Path(result.payload_path).read_text(encoding="utf-8"), world["inbox"], context=world["receiver"]
    )


def test_a_traceparent_that_is_not_w3c_is_left_out_with_a_note(world, monkeypatch):
    monkeypatch.setenv("TRACEPARENT", "not-a-trace")
    result = hand_off(
        HandoffOptions(target="beta", synthesis=world["synthesis"], session=world["session"], source="alpha")
    )
    data = json.loads(Path(result.payload_path).read_text(encoding="utf-8"))
    assert "traceparent" not in data["handoff"]["tracing"].get("tags", {})
    assert any("TRACEPARENT" in note for note in result.notes)


def test_a_history_that_cannot_record_refuses_with_its_code_and_a_redelivery_records_it(world, monkeypatch):
    """The record is part of acceptance: refused with the history's code, nothing written; sent again, taken in."""
    from swarm_handoff import history
    from swarm_handoff.history_db import busy_error

    text = sent(world)
    working = history.open_history

    def busy(config_dir, *args, **kwargs):
        raise busy_error(Path(config_dir) / "history.sqlite3", 1)

    monkeypatch.setattr(history, "open_history", busy)
    with pytest.raises(SwarmError) as caught:
        accept_incoming(text, world["inbox"], context=world["receiver"])
    assert caught.value.code == "HISTORY_BUSY"
    assert caught.value.recoverable
    assert files_under(world["inbox"]) == []
    monkeypatch.setattr(history, "open_history", working)
    again = accept_incoming(text, world["inbox"], context=world["receiver"])
    assert not again.already
    assert again.history_id is not None
    assert [(r.payload_hash, r.status) for r in history_rows(world["receiver"])] == [(again.payload_hash, "received")]
    assert files_under(world["inbox"]) == [again.path]


def test_clearing_leftovers_follows_no_symlink_and_keeps_a_symlinked_file(tmp_path: Path) -> None:
    import subprocess
    import sys
    import time

    from swarm_handoff.payload.leftovers import clear_leftovers

    child = subprocess.Popen([sys.executable, "-c", "pass"])
    child.wait()
    outside = tmp_path / "outside"
    (outside / "handoffs").mkdir(parents=True)
    theirs = outside / "handoffs" / f".x.json.{child.pid}.{'a' * 12}.tmp"
    theirs.write_text("{}", encoding="utf-8")
    root = tmp_path / "root"
    (root / ".incoming").mkdir(parents=True)
    (root / "a2a-linked").symlink_to(outside, target_is_directory=True)  # a session folder that leads away
    linked = root / ".incoming" / f"{child.pid}-{'b' * 16}-{'c' * 8}.json"
    linked.symlink_to(theirs)  # the quarantine pattern, but a symlink: not the receiver's own file
    then = time.time() - 3600
    os.utime(theirs, (then, then))
    assert clear_leftovers(root, started=time.time()) == ()
    assert theirs.exists()
    assert linked.is_symlink()
    assert clear_leftovers(tmp_path / "missing", started=time.time()) == ()


@pytest.mark.parametrize("mode", [0o777, 0o770, 0o1777])
def test_a_session_root_others_may_write_is_refused_and_nothing_is_written(world, mode):
    """Whoever else may write the root could plant a session folder, or the very file a payload's hash names."""
    root = world["inbox"]
    root.mkdir(mode=0o700)
    root.chmod(mode)
    with pytest.raises(SwarmError) as caught:
        accept_incoming(sent(world), root, context=world["receiver"])
    assert caught.value.code == "USAGE"
    assert "chmod 700" in (caught.value.hint or "")
    assert files_under(root) == []
    assert history_rows(world["receiver"]) == []


def test_a_write_that_fails_records_nothing_and_a_redelivery_takes_it_in(world, monkeypatch):
    """Row and file agree: a payload the disk would not take leaves no "received" row for a missing file."""
    import errno

    from swarm_handoff import safefs

    text = sent(world)
    working = safefs.create_new

    def full(path, data, **options):
        if Path(path).parent.name == "handoffs":  # the accepted payload's name, not the quarantine copy
            raise OSError(errno.ENOSPC, "No space left on device", str(path))
        return working(path, data, **options)

    monkeypatch.setattr(safefs, "create_new", full)
    with pytest.raises(SwarmError) as caught:
        accept_incoming(text, world["inbox"], context=world["receiver"])
    assert caught.value.code == "VALIDATION_FAILED"
    assert caught.value.recoverable
    assert "No space left on device" in caught.value.message
    assert str(world["inbox"].resolve()) not in caught.value.message  # the receiver's folders stay its own
    assert history_rows(world["receiver"]) == []
    assert files_under(world["inbox"]) == []
    monkeypatch.setattr(safefs, "create_new", working)
    again = accept_incoming(text, world["inbox"], context=world["receiver"])
    assert not again.already
    assert [(r.payload_hash, r.status) for r in history_rows(world["receiver"])] == [(again.payload_hash, "received")]
    assert files_under(world["inbox"]) == [again.path]


def test_a_session_root_that_cannot_be_made_at_a_payload_is_a_coded_refusal_without_its_path(world, tmp_path):
    """The root gone after the receiver started, a file in its place: the sender on another host gets a code.

    Not a bare OSError (an internal error, with the receiver's path in it) from the check of the root.
    """
    text = sent(world)
    root = tmp_path / "gone" / "inbox"
    root.parent.mkdir()
    root.write_text("a file where the session root was\n", encoding="utf-8")
    with pytest.raises(SwarmError) as caught:
        accept_incoming(text, root, context=world["receiver"])
    assert caught.value.code == "VALIDATION_FAILED"
    assert caught.value.recoverable
    assert str(tmp_path) not in caught.value.message
    assert history_rows(world["receiver"]) == []


def test_a_receiver_that_cannot_write_says_what_it_could_not_do_and_the_os_reason_only():
    """One refusal for the payload's file and the A2A receiver's claim: recoverable, the OS's reason, no path."""
    from swarm_handoff.payload.incoming import not_written

    written = not_written("write the payload", "No space left on device")
    claimed = not_written("claim the payload's task", "Read-only file system", nothing="written")
    assert written.message == "the receiver could not write the payload: No space left on device; nothing was recorded"
    assert claimed.message == (
        "the receiver could not claim the payload's task: Read-only file system; nothing was written"
    )
    for refusal, why in ((written, "No space left on device"), (claimed, "Read-only file system")):
        assert refusal.code == "VALIDATION_FAILED"
        assert refusal.recoverable
        assert refusal.details == {"missing_fields": [], "validation_errors": [why]}


def test_two_receivers_of_one_payload_at_once_keep_row_and_file_together(world, monkeypatch):
    """The first one's record fails while the second takes the same payload in: one row, one file, both there.

    The second receiver runs while the first is between writing the file and recording it; the first
    then fails and undoes its file. Row and file are decided under the session folder's lock, so the
    second waits for that and takes the payload in whole, instead of recording a file that the first
    removes.
    """
    import threading

    from swarm_handoff import safefs
    from swarm_handoff.payload import incoming

    text = sent(world)
    record = incoming._record_once
    lock = safefs.locked
    second_there = threading.Event()  # the second is waiting for the lock, or (without one) done
    first = threading.get_ident()
    results: list[object] = []

    def take_second() -> None:
        try:
            results.append(accept_incoming(text, world["inbox"], context=world["receiver"]))
        except SwarmError as error:  # pragma: no cover - reported by the assertion below
            results.append(error)
        finally:
            second_there.set()

    def watched_lock(folder):
        if threading.get_ident() != first:
            second_there.set()
        return lock(folder)

    def failing_record(*args, **kwargs):
        if threading.get_ident() != first:
            return record(*args, **kwargs)
        second.start()
        second_there.wait()
        raise SwarmError("HISTORY_UNAVAILABLE", "the history went away", recoverable=True)

    second = threading.Thread(target=take_second)
    monkeypatch.setattr(safefs, "locked", watched_lock)
    monkeypatch.setattr(incoming, "_record_once", failing_record)
    with pytest.raises(SwarmError) as caught:
        accept_incoming(text, world["inbox"], context=world["receiver"])
    second.join()
    assert caught.value.code == "HISTORY_UNAVAILABLE"
    (taken,) = results
    assert isinstance(taken, incoming.Incoming)
    assert not taken.already
    assert taken.path.read_text(encoding="utf-8") == text
    assert [(r.payload_hash, r.status) for r in history_rows(world["receiver"])] == [(taken.payload_hash, "received")]
    assert files_under(world["inbox"]) == [taken.path]


def test_clearing_leftovers_judges_a_pid_only_on_the_machine_and_namespace_that_wrote_it(world):
    """Receivers in two containers sharing a root: the other one's files look stopped here, so only age clears them."""
    import subprocess
    import sys
    import time

    from swarm_handoff import safefs
    from swarm_handoff.payload.leftovers import INBOX, clear_leftovers

    child = subprocess.Popen([sys.executable, "-c", "pass"])
    child.wait()
    gone, ours = child.pid, safefs.machine_identity()
    other = "0" * 8 if ours != "0" * 8 else "1" * 8
    root = world["inbox"]
    session = root / "a2a-0123456789abcdef" / "handoffs"
    for folder in (root / INBOX, session):
        folder.mkdir(parents=True, exist_ok=True)

    def put(path: Path, age: float) -> Path:
        path.write_text("{}", encoding="utf-8")
        then = time.time() - age
        os.utime(path, (then, then))
        return path

    hour = 3600.0
    old = safefs.MAX_TEMP_AGE_S + hour
    cleared = [
        put(root / INBOX / f"{gone}-{ours}-{'a' * 16}-{'b' * 8}.json", hour),  # this machine's, its writer gone
        put(session / f".x.json.{gone}-{ours}.{'c' * 12}.tmp", hour),
        put(root / INBOX / f"{gone}-{other}-{'d' * 16}-{'e' * 8}.json", old),  # another's, past the age bound
        put(session / f".x.json.{gone}-{other}.{'f' * 12}.tmp", old),
    ]
    kept = [
        put(root / INBOX / f"{gone}-{other}-{'1' * 16}-{'2' * 8}.json", hour),  # another's: a pid proves nothing
        put(session / f".x.json.{gone}-{other}.{'3' * 12}.tmp", hour),
        put(root / INBOX / f"{os.getpid()}-{other}-{'4' * 16}-{'5' * 8}.json", hour),  # our pid number, not us
    ]
    assert sorted(clear_leftovers(root, started=time.time())) == sorted(cleared)
    assert [p for p in kept if not p.exists()] == []


def test_a_quarantine_copy_names_its_receivers_machine(world, monkeypatch):
    """What the receiver writes while it checks carries the identity that `clear_leftovers` judges it by."""
    from swarm_handoff import safefs
    from swarm_handoff.payload import leftovers

    seen: list[str] = []
    working = safefs.create_new

    def watched(path, data, **options):
        seen.append(Path(path).name)
        return working(path, data, **options)

    monkeypatch.setattr(safefs, "create_new", watched)
    accept_incoming(sent(world), world["inbox"], context=world["receiver"])
    quarantine = seen[0]
    assert quarantine.startswith(f"{os.getpid()}-{safefs.machine_identity()}-")
    assert leftovers.quarantine_writer(quarantine) == (os.getpid(), safefs.machine_identity())


def test_a_session_folder_held_past_the_wait_refuses_as_busy_and_writes_nothing(world, monkeypatch):
    """Another writer kept the folder locked: SESSION_BUSY, recoverable, without the receiver's paths; nothing kept."""
    from swarm_handoff import safefs

    text = sent(world)

    def held(folder):
        raise safefs.FolderBusy(str(folder), [4242], 0.5)

    monkeypatch.setattr(safefs, "locked", held)
    with pytest.raises(SwarmError) as caught:
        accept_incoming(text, world["inbox"], context=world["receiver"])
    assert caught.value.code == "SESSION_BUSY"
    assert caught.value.recoverable
    assert str(world["inbox"].resolve()) not in caught.value.message
    assert "4242" not in caught.value.message + str(caught.value.details)  # the receiver's pids stay there
    assert history_rows(world["receiver"]) == []
    assert files_under(world["inbox"]) == []


@pytest.mark.parametrize("where", ["quarantine", "session"])
def test_a_receiver_that_cannot_write_before_taking_in_refuses_with_a_code_and_no_path(world, monkeypatch, where):
    """A full disk at the quarantine copy, or a file where a session folder goes: coded, recoverable, paths kept home.

    Every write of a receiver is answered to a sender on another host: a bare OSError would reach it
    as an internal error carrying the receiver's folders.
    """
    import errno

    from swarm_handoff import safefs
    from swarm_handoff.payload import incoming

    text = sent(world)
    if where == "quarantine":
        working = safefs.create_new

        def full(path, data, **options):
            if Path(path).parent.name == incoming.INBOX:
                raise OSError(errno.ENOSPC, "No space left on device", str(path))
            return working(path, data, **options)

        monkeypatch.setattr(safefs, "create_new", full)
    else:
        root = world["inbox"]
        root.mkdir(mode=0o700)
        handoff = json.loads(text)["handoff"]
        session = incoming._session_name(handoff["trace_id"], handoff["meta"]["payload_hash"])
        (root / session).write_text("not a folder", encoding="utf-8")
    with pytest.raises(SwarmError) as caught:
        accept_incoming(text, world["inbox"], context=world["receiver"])
    assert caught.value.code == "VALIDATION_FAILED"
    assert caught.value.recoverable
    shown = caught.value.message + str(caught.value.details) + (caught.value.hint or "")
    assert str(world["inbox"].resolve()) not in shown
    assert history_rows(world["receiver"]) == []


def _accepted_name(root: Path, text: str) -> Path:
    """Where the receiver files this payload's text (as `_take_in` names it)."""
    from swarm_handoff.payload import incoming

    handoff = json.loads(text)["handoff"]
    stated = handoff["meta"]["payload_hash"]
    session = root / incoming._session_name(handoff["trace_id"], stated)
    source, target = handoff["source"]["skill"], handoff["target"]["skill"]
    return session / "handoffs" / f"{source}-to-{target}-{stated.removeprefix('sha256:')[:16]}.json"


def test_a_damaged_copy_under_the_payloads_name_is_replaced_not_taken_for_it(world):
    """Half a file where the payload goes (a receiver killed mid-write where there are no hard links): written whole."""
    text = sent(world)
    path = _accepted_name(world["inbox"], text)
    path.parent.mkdir(parents=True, mode=0o700)
    world["inbox"].chmod(0o700)
    path.write_text(text[: len(text) // 2], encoding="utf-8")
    taken = accept_incoming(text, world["inbox"], context=world["receiver"])
    assert taken.path == path
    assert not taken.already
    assert path.read_text(encoding="utf-8") == text
    assert [(r.payload_hash, r.status) for r in history_rows(world["receiver"])] == [(taken.payload_hash, "received")]


def test_another_intact_payload_under_the_payloads_name_is_refused_and_kept(world):
    """Two payloads whose hashes share their first 16 digits: the second is refused, the first's file untouched."""
    text = sent(world)
    other = sent(world)  # another hand-off: another timestamp, another hash
    assert json.loads(other)["handoff"]["meta"]["payload_hash"] != json.loads(text)["handoff"]["meta"]["payload_hash"]
    path = _accepted_name(world["inbox"], text)
    path.parent.mkdir(parents=True, mode=0o700)
    world["inbox"].chmod(0o700)
    path.write_text(other, encoding="utf-8")
    with pytest.raises(SwarmError) as caught:
        accept_incoming(text, world["inbox"], context=world["receiver"])
    assert caught.value.code == "VALIDATION_FAILED"
    assert str(world["inbox"].resolve()) not in caught.value.message
    assert path.read_text(encoding="utf-8") == other
    assert history_rows(world["receiver"]) == []


def test_a_quarantine_copy_that_cannot_be_removed_leaves_the_payload_taken_in(world, monkeypatch):
    """Written and recorded is accepted: a copy left in `.incoming` (a root gone read-only) is the next start's.

    Not an OSError naming the receiver's private copy, which a transport would pass on to the sender.
    """
    import errno

    removing = Path.unlink

    def stuck(path, *args, **options):
        if path.parent.name == ".incoming":
            raise OSError(errno.EROFS, "Read-only file system", str(path))
        return removing(path, *args, **options)

    monkeypatch.setattr(Path, "unlink", stuck)
    taken = accept_incoming(sent(world), world["inbox"], context=world["receiver"])
    assert not taken.already
    assert [(r.payload_hash, r.status) for r in history_rows(world["receiver"])] == [(taken.payload_hash, "received")]


def test_an_unsigned_payloads_warning_names_the_received_payload_not_the_private_copy(world):
    """The private copy in `.incoming` is gone once the payload is taken in; a sender elsewhere sees the warnings."""
    taken = accept_incoming(sent(world), world["inbox"], context=world["receiver"])
    (warning,) = taken.warnings
    assert warning.code == "RECEIVED_PAYLOAD_UNSIGNED"
    assert warning.message.startswith("<received payload> has no signature")
    assert warning.path == "<received payload>"
    assert ".incoming" not in json.dumps(taken.to_data())
