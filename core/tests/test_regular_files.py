"""Nothing the tool reads is opened unless it is a regular file, so no input can block or run forever."""

from __future__ import annotations

import os
import socket
import threading

import pytest

from swarm_handoff.yamlio import NOT_A_REGULAR_FILE, YAML_TOO_LARGE, LoadError, read_regular, read_text

posix_only = pytest.mark.skipif(os.name != "posix", reason="FIFOs and sockets are POSIX")


def returns(function, *args, **kwargs):
    """Run `function` in a thread with a safety-net timeout: what it returned or raised, or a hang."""
    out: list = []

    def run():
        try:
            out.append(("ok", function(*args, **kwargs)))
        except BaseException as exc:
            out.append(("raised", exc))

    worker = threading.Thread(target=run, daemon=True)
    worker.start()
    worker.join(30)
    assert out, f"{function.__name__} blocked"
    return out[0]


@posix_only
def test_a_fifo_is_refused_without_blocking(tmp_path):
    os.mkfifo(tmp_path / "pipe.yaml")
    kind, exc = returns(read_text, tmp_path / "pipe.yaml")
    assert kind == "raised"
    assert isinstance(exc, LoadError)
    assert exc.problem.code == NOT_A_REGULAR_FILE
    assert "FIFO" in exc.problem.message
    assert exc.problem.path == str(tmp_path / "pipe.yaml")


@posix_only
def test_sockets_folders_and_devices_are_refused(tmp_path):
    server = socket.socket(socket.AF_UNIX)
    server.bind(str(tmp_path / "sock"))
    (tmp_path / "dir").mkdir()
    try:
        for name in ("sock", "dir"):
            with pytest.raises(LoadError) as caught:
                read_regular(tmp_path / name)
            assert caught.value.problem.code == NOT_A_REGULAR_FILE, name
    finally:
        server.close()
    with pytest.raises(LoadError) as caught:
        read_regular(os.devnull)
    assert "character device" in caught.value.problem.message


def test_size_cap_and_exact_reads(tmp_path):
    path = tmp_path / "f"
    path.write_bytes(b"x" * 10)
    assert read_regular(path, limit=10) == b"x" * 10
    with pytest.raises(LoadError) as caught:
        read_regular(path, limit=9)
    assert caught.value.problem.code == YAML_TOO_LARGE


@pytest.mark.skipif(not hasattr(os, "O_NOFOLLOW"), reason="no O_NOFOLLOW")
def test_the_tool_s_own_files_are_never_read_through_a_link(tmp_path):
    (tmp_path / "real").write_text("secret")
    os.symlink(tmp_path / "real", tmp_path / "link")
    assert read_text(tmp_path / "link") == "secret"  # what the user points at is followed...
    with pytest.raises(LoadError) as caught:
        read_text(tmp_path / "link", follow=False)  # ...the tool's own files are not
    assert caught.value.problem.code == NOT_A_REGULAR_FILE


@posix_only
def test_a_fifo_as_the_session_cache_is_ignored_not_read(tmp_path, swarm_host):
    from swarm_handoff.discovery import make_context
    from swarm_handoff.session import SESSION_FILE, STATE_FILE, read_session

    os.mkfifo(tmp_path / STATE_FILE)
    os.mkfifo(tmp_path / SESSION_FILE)
    context = make_context(tmp_path, {"HOME": str(tmp_path)})
    assert returns(read_session, tmp_path, context, swarm_host) == ("ok", None)


@posix_only
def test_a_fifo_as_a_synthesis_is_a_coded_error(tmp_path):
    from swarm_handoff.errors import SwarmError
    from swarm_handoff.yamlio import load_document

    os.mkfifo(tmp_path / "synthesis.yaml")
    kind, exc = returns(load_document, tmp_path / "synthesis.yaml", "synthesis")
    assert kind == "raised"
    assert isinstance(exc, SwarmError)
    assert exc.problems[0].code == NOT_A_REGULAR_FILE


@posix_only
def test_a_fifo_in_the_cache_folder_is_a_cache_miss_not_a_hang(tmp_path):
    from swarm_handoff.filecache import load

    os.mkfifo(tmp_path / "parse-index.bin")
    assert returns(load, tmp_path / "parse-index.bin", "parse") == ("ok", None)


def test_the_file_reading_half_keeps_its_old_import_paths() -> None:
    """`textfile` holds the reading half of `yamlio`; code importing it from `yamlio` keeps working."""
    from swarm_handoff import textfile, yamlio

    moved = ("MAX_BYTES", "NOT_UTF8", "UNREADABLE", "NOT_A_REGULAR_FILE", "YAML_TOO_LARGE", "OTHER_BOMS")
    moved += ("RESAVE_HINT", "LoadError", "bom_problem", "file_kind", "open_regular", "read_regular", "read_text")
    assert [getattr(yamlio, name) is getattr(textfile, name) for name in moved] == [True] * len(moved)
