"""`adopt` over every SKILL.md of the shared corpus: only its own keys are added, and the skill becomes a target."""

from __future__ import annotations

import difflib
import shutil
from pathlib import Path

import pytest

from swarm_handoff.api import SwarmError, discover, make_context
from swarm_handoff_authoring.adopt import adopt, reading

CORPUS = Path(__file__).resolve().parents[3].parent / "shared" / "corpus"
_UNREADABLE = {"ADOPT_BAD_FRONTMATTER", "ADOPT_NO_FRONTMATTER", "ADOPT_NOT_UTF8"}


def _skills() -> list[Path]:
    if not CORPUS.is_dir():
        pytest.skip(
            "needs ../shared/corpus/ (the SKILL.md corpus), which is not in this repository: "
            'CI lays it beside the checkout; see docs/development.md, "Conformance tests"'
        )
    return sorted(CORPUS.rglob("SKILL.md"))


def _only_added_lines(before: str, after: str) -> bool:
    """True when `after` is `before` with whole lines inserted (no byte of `before` changed or lost)."""
    ops = difflib.SequenceMatcher(None, before.splitlines(True), after.splitlines(True), autojunk=False).get_opcodes()
    return all(tag in ("equal", "insert") for tag, *_ in ops)


@pytest.mark.parametrize("form", ["metadata", "v3"])
def test_adopt_round_trips_every_corpus_skill(tmp_path: Path, make_swarm_host, form: str) -> None:
    make_swarm_host(["frontmatter"])
    skills = _skills()
    adopted: dict[str, Path] = {}
    rewritten: list[str] = []
    refused: list[tuple[str, str]] = []  # (file, error code; WRITTEN if it changed anyway)
    for number, original in enumerate(skills):
        folder = tmp_path / "project" / ".claude" / "skills" / f"s{number:04d}-{original.parent.name}"[:60]
        folder.mkdir(parents=True)
        copy = folder / "SKILL.md"
        shutil.copyfile(original, copy)
        before = original.read_bytes()
        try:
            report = adopt(copy, form=form, categories=["review"])
        except SwarmError as error:
            code = error.code
            if code == "ADOPT_HAS_HANDOFF_BLOCK" and form == "metadata":
                report = adopt(copy, form="v3")  # the documented way on for a skill with a handoff: block
            else:
                refused.append((str(original), code if copy.read_bytes() == before else "WRITTEN"))
                continue
        after = copy.read_bytes()
        if not report.changed:
            assert after == before
        elif not _only_added_lines(before.decode("utf-8"), after.decode("utf-8")):
            rewritten.append(str(original))  # a handoff: block completed by the round trip
            tail = before[before.index(b"\n---", 3) :]
            assert after.endswith(tail), original  # the body is never touched
        adopted[folder.name] = original
    for name, code in refused:  # only files whose frontmatter discovery cannot read either
        assert code in _UNREADABLE, (name, code)
        assert reading(Path(name).read_text("utf-8", "replace"), "x", name)[1] is None, name
    found = discover(make_context(tmp_path / "project", {"HOME": str(tmp_path / "home")}), cache=False)
    missing = sorted(set(adopted) - {r.name for r in found.workflows})
    assert missing == []
    assert len(adopted) >= len(skills) - 5
    # only skills whose existing handoff: block had to be completed were rewritten rather than added to
    assert len(rewritten) <= len(skills) // 10, rewritten
