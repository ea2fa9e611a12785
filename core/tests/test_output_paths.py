"""`convert --output`: a path that is not a regular file is written as a stream or refused, never replaced.

Issue 25, finding 1: the writer that keeps the earlier file (hard link, then rename over it) turned a
device, a FIFO or a symlink into a regular file and linked the old node beside it as `PATH.1`.
These tests never touch the machine's own /dev/null or /dev/stdout: a FIFO made in `tmp_path`, a
symlink in `tmp_path` to /dev/null (only the link could be replaced) and `-` stand in for them.
"""

from __future__ import annotations

import os
import stat
import sys

import pytest

from swarm_handoff.errors import SwarmError
from swarm_handoff.payload import output
from swarm_handoff.payload.io import dump_payload, parse_payload_text
from swarm_handoff.payload.v2 import build_v2
from swarm_handoff.records import SkillRecord
from swarm_handoff.synthesis import parse_synthesis

pytestmark = pytest.mark.skipif(sys.platform == "win32", reason="POSIX special files (mkfifo, symlinks, devices)")

TARGET = SkillRecord(name="lit-pm", scope="global", source="test", categories=("research",))
SYNTHESIS = parse_synthesis({"original_prompt": "Why?", "problem_type": "analytical", "synthesis_summary": "Because."})


@pytest.fixture
def v2_file(tmp_path):
    (tmp_path / "perspectives").mkdir()
    payload = build_v2(SYNTHESIS, TARGET, tmp_path)
    path = tmp_path / "handoff-payload.yaml"
    path.write_text(dump_payload(payload, path))
    return path


def _convert(swarm_cli, v2_file, output, *extra):
    return swarm_cli("convert", str(v2_file), "--to", "3.0", "--output", str(output), *extra)


def _siblings(path):
    return sorted(p.name for p in path.parent.iterdir() if p.name.startswith(path.name.split(".")[0]))


def _convert_while_read(swarm_cli, v2_file, output, fifo):
    """Convert into `output` while `fifo` has a reader (so a writer's open returns): the result, the bytes read."""
    reader = os.open(fifo, os.O_RDONLY | os.O_NONBLOCK)
    try:
        result = _convert(swarm_cli, v2_file, output, "--format", "json")
        received = b""
        while chunk := os.read(reader, 65536):
            received += chunk
    finally:
        os.close(reader)
    return result, received


def test_a_fifo_output_is_written_as_a_stream_and_stays_a_fifo(swarm_cli, swarm_host, v2_file, tmp_path):
    fifo = tmp_path / "out.yaml"
    os.mkfifo(fifo)
    result, received = _convert_while_read(swarm_cli, v2_file, fifo, fifo)
    assert result.exit_code == 0, result.stdout
    assert parse_payload_text(received.decode())["handoff"]["version"] == "3.0"
    assert stat.S_ISFIFO(os.lstat(fifo).st_mode)
    assert _siblings(fifo) == ["out.yaml"]  # no out.1.yaml: the FIFO was never linked aside


def test_a_symlink_to_a_file_elsewhere_is_refused_and_nothing_changes(swarm_cli, swarm_host, v2_file, tmp_path):
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    real = elsewhere / "real.yaml"
    real.write_text("keep me\n")
    link = tmp_path / "out.yaml"
    link.symlink_to(real)
    result = _convert(swarm_cli, v2_file, link, "--format", "json")
    assert result.exit_code == 1
    error = result.json()["error"]
    assert error["code"] == "OUTPUT_REFUSED"
    assert str(link) in error["message"]
    assert "symbolic link" in error["message"]
    assert str(real) in error["hint"]  # the fix: name the link's target yourself
    assert real.read_text() == "keep me\n"
    assert os.readlink(link) == str(real)
    assert _siblings(link) == ["out.yaml"]


def test_a_dangling_symlink_is_refused(swarm_cli, swarm_host, v2_file, tmp_path):
    link = tmp_path / "out.yaml"
    link.symlink_to(tmp_path / "nowhere" / "file.yaml")
    error = _convert(swarm_cli, v2_file, link, "--format", "json").json()["error"]
    assert error["code"] == "OUTPUT_REFUSED"
    assert link.is_symlink()
    assert not (tmp_path / "nowhere").exists()


def test_a_symlink_to_a_character_device_is_written_through_as_a_stream(swarm_cli, swarm_host, v2_file, tmp_path):
    link = tmp_path / "out.yaml"
    link.symlink_to(os.devnull)  # like /dev/stdout -> /proc/self/fd/1 -> a terminal
    result = _convert(swarm_cli, v2_file, link, "--format", "json")
    assert result.exit_code == 0, result.stdout
    assert os.readlink(link) == os.devnull
    assert stat.S_ISCHR(os.stat(os.devnull).st_mode)
    assert _siblings(link) == ["out.yaml"]


def test_a_symlink_to_a_fifo_is_written_through_as_a_stream(swarm_cli, swarm_host, v2_file, tmp_path):
    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    link = tmp_path / "out.yaml"
    link.symlink_to(fifo)
    result, received = _convert_while_read(swarm_cli, v2_file, link, fifo)
    assert result.exit_code == 0
    assert b"version:" in received
    assert link.is_symlink()
    assert stat.S_ISFIFO(os.lstat(fifo).st_mode)


def test_dash_is_standard_output_and_the_report_goes_to_stderr(swarm_cli, swarm_host, v2_file, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    result = swarm_cli("convert", str(v2_file), "--to", "3.0", "-o", "-", "--format", "json")
    assert result.exit_code == 0, result.stderr
    assert parse_payload_text(result.stdout)["handoff"]["version"] == "3.0"  # only the payload
    assert '"target_version":"3.0"' in result.stderr.replace(" ", "")  # the report, on stderr
    assert not (tmp_path / "-").exists()


@pytest.mark.parametrize("name", ["-", "/dev/stdout", "/dev/fd/1", "/proc/self/fd/1", "/dev/stderr"])
def test_the_standard_stream_names_are_streams_never_files(name):
    assert output.standard_stream(name) == (2 if name == "/dev/stderr" else 1)


def test_other_names_are_not_standard_streams(tmp_path):
    assert output.standard_stream(str(tmp_path / "out.yaml")) is None
    assert output.standard_stream("./-") is None  # a file really named "-" can still be written


def test_dot_slash_dash_is_a_file_named_dash(swarm_cli, swarm_host, v2_file, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    result = swarm_cli("convert", str(v2_file), "--to", "3.0", "-o", "./-", "--format", "json")
    assert result.exit_code == 0, result.stdout
    assert parse_payload_text((tmp_path / "-").read_text())["handoff"]["version"] == "3.0"
    assert result.json()["target_version"] == "3.0"


def test_a_folder_is_refused_with_a_code(swarm_cli, swarm_host, v2_file, tmp_path):
    folder = tmp_path / "out.yaml"
    folder.mkdir()
    error = _convert(swarm_cli, v2_file, folder, "--format", "json").json()["error"]
    assert error["code"] == "OUTPUT_REFUSED"
    assert "folder" in error["message"]


def test_a_regular_file_is_still_kept_as_the_earlier_copy(swarm_cli, swarm_host, v2_file, tmp_path):
    out = tmp_path / "out.yaml"
    out.write_text("earlier\n")
    assert _convert(swarm_cli, v2_file, out, "--format", "json").exit_code == 0
    assert (tmp_path / "out.1.yaml").read_text() == "earlier\n"
    assert parse_payload_text(out.read_text())["handoff"]["version"] == "3.0"


def test_keep_earlier_never_links_a_node_that_is_not_a_regular_file(tmp_path):
    fifo = tmp_path / "out.yaml"
    os.mkfifo(fifo)
    with pytest.raises(SwarmError) as caught:
        output.keep_earlier(fifo)  # a writer that swapped the file for a FIFO after the first look
    assert caught.value.code == "OUTPUT_REFUSED"
    assert not (tmp_path / "out.1.yaml").exists()


# -- a folder another writer holds (review of issue 25's fixes, #4) ----------------------------------


def test_an_output_folder_another_writer_holds_is_folder_busy(
    swarm_cli, swarm_host, v2_file, tmp_path, monkeypatch, in_thread
):

    from swarm_handoff import safefs

    monkeypatch.setenv(safefs.LOCK_TIMEOUT_ENV, "0")
    out_dir = tmp_path / "out"
    out_dir.mkdir()
    (out_dir / "p.yaml").write_text("earlier\n")
    with safefs.locked(out_dir):
        result = in_thread(lambda: _convert(swarm_cli, v2_file, out_dir / "p.yaml", "-f", "json"))
    error = result.json()["error"]
    assert error["code"] == "FOLDER_BUSY"
    assert str(out_dir) in error["message"]
    assert safefs.LOCK_TIMEOUT_ENV in error["hint"]
    assert (out_dir / "p.yaml").read_text() == "earlier\n"


def test_a_folder_busy_no_command_expected_is_still_folder_busy_not_internal_error():
    from swarm_handoff import safefs
    from swarm_handoff.cli.output import internal_error

    error = internal_error(safefs.FolderBusy("/some/folder", (4242,), 2.0))
    assert error.code == "FOLDER_BUSY"
    assert "/some/folder" in error.message
    assert "process 4242" in error.message
    assert error.details["holder_pids"] == [4242]
    assert error.recoverable


# -- FIFOs and devices: whose, and whether anyone reads (review of issue 25's fixes, #3) -------------


def _make_foreign(path, monkeypatch, *, link=False):
    """Make `path` (or the link itself) another user's: chown as root, else pretend to be someone else."""
    if os.geteuid() == 0:
        (os.lchown if link else os.chown)(path, 54321, 54321)
    else:  # not root: the file stays ours, and we become a user who is neither its owner nor root
        other = os.geteuid() + 1
        monkeypatch.setattr(os, "geteuid", lambda: other)


def test_a_fifo_with_no_reader_is_refused_instead_of_waiting(swarm_cli, swarm_host, v2_file, tmp_path, in_thread):
    fifo = tmp_path / "out.yaml"
    os.mkfifo(fifo)
    result = in_thread(lambda: _convert(swarm_cli, v2_file, fifo, "--format", "json"))
    error = result.json()["error"]
    assert error["code"] == "OUTPUT_REFUSED"
    assert "no reader" in error["message"]
    assert str(fifo) in error["message"]
    assert stat.S_ISFIFO(os.lstat(fifo).st_mode)


def test_another_users_fifo_is_refused(swarm_cli, swarm_host, v2_file, tmp_path, monkeypatch):
    fifo = tmp_path / "out.yaml"
    os.mkfifo(fifo, 0o666)
    _make_foreign(fifo, monkeypatch)
    result, received = _convert_while_read(swarm_cli, v2_file, fifo, fifo)  # read: only the owner rule refuses
    error = result.json()["error"]
    assert error["code"] == "OUTPUT_REFUSED"
    assert "another user" in error["message"]
    assert received == b""  # not one byte of the payload reached them


def test_a_link_another_user_owns_to_a_fifo_is_refused(swarm_cli, swarm_host, v2_file, tmp_path, monkeypatch):
    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    link = tmp_path / "out.yaml"
    link.symlink_to(fifo)
    _make_foreign(link, monkeypatch, link=True)
    result, received = _convert_while_read(swarm_cli, v2_file, link, fifo)
    error = result.json()["error"]
    assert error["code"] == "OUTPUT_REFUSED"
    assert "another user" in error["message"]
    assert received == b""


def test_a_root_owned_character_device_is_still_written(swarm_cli, swarm_host, v2_file, tmp_path):
    if os.stat(os.devnull).st_uid != 0:
        pytest.skip(f"{os.devnull} is not root's here")
    link = tmp_path / "out.yaml"
    link.symlink_to(os.devnull)
    assert _convert(swarm_cli, v2_file, link, "--format", "json").exit_code == 0


# -- names: a trailing slash, other spellings of the streams, standard input (review, #9) -------------


def test_a_trailing_slash_names_a_folder_and_is_refused(swarm_cli, swarm_host, v2_file, tmp_path):
    result = swarm_cli("convert", str(v2_file), "--to", "3.0", "-o", f"{tmp_path / 'newdir'}/", "-f", "json")
    error = result.json()["error"]
    assert error["code"] == "OUTPUT_REFUSED"
    assert "folder" in error["message"]
    assert not (tmp_path / "newdir").exists()  # no regular file named newdir


@pytest.mark.parametrize("name", ["/dev//stdout", "/dev/./stdout", "/dev/../dev/stdout", "//dev/fd/1"])
def test_other_spellings_of_standard_output_are_standard_output(name):
    assert output.standard_stream(name) == 1


def test_this_process_by_pid_is_self():
    assert output.standard_stream(f"/proc/{os.getpid()}/fd/1") == 1
    assert output.standard_stream(f"/proc/{os.getpid()}/fd/2") == 2
    assert output.standard_stream("/proc/1/fd/1") is None or os.getpid() == 1  # another process's is a path


def test_only_descriptors_0_to_2_of_this_process_are_streams():
    assert output.standard_stream("/proc/thread-self/fd/2") == 2
    assert output.standard_input("/proc/thread-self/fd/0")
    for other in ("/dev/fd/3", "/dev/fd/01", "/proc/self/fd/7", "/dev/fd", "/dev/fd/1/x", "/dev/stdout/x"):
        assert output.standard_stream(other) is None
        assert not output.standard_input(other)


@pytest.mark.parametrize("name", ["/dev/stdin", "/dev/fd/0", "/proc/self/fd/0", "/dev//stdin", "{pid}"])
def test_standard_input_is_refused_as_an_output(name, tmp_path):
    name = f"/proc/{os.getpid()}/fd/0" if name == "{pid}" else name
    with pytest.raises(SwarmError) as caught:
        output.write_output(name, "payload\n")
    assert caught.value.code == "OUTPUT_REFUSED"
    assert "standard input" in caught.value.message


def test_a_regular_file_swapped_in_for_a_stream_after_the_check_is_left_unchanged(tmp_path):
    """The stream writer's own check: opened without O_CREAT/O_TRUNC, fstat-ed before a byte is written."""
    swapped = tmp_path / "out.yaml"
    swapped.write_text("someone's file\n")
    with pytest.raises(SwarmError) as caught:
        output._write_to(str(swapped), b"payload\n", follow=False)  # what write_output calls for a FIFO it saw
    assert caught.value.code == "OUTPUT_REFUSED"
    assert "changed into a regular file" in caught.value.message
    assert swapped.read_text() == "someone's file\n"
