"""Analysed skills are kept across runs, and never served for a changed SKILL.md, record or router."""

from __future__ import annotations

import marshal
import math
import os
import time
from collections import Counter
from pathlib import Path
from typing import Any

import pytest

from swarm_handoff.api import MIN_PARALLEL, FileMemo, SkillRecord, parse_synthesis
from swarm_handoff_router import analysis_cache
from swarm_handoff_router.analysis_cache import MEMO_NAME, decode, encode, from_state, memo_version, to_state
from swarm_handoff_router.document import Document, analyse
from swarm_handoff_router.router import route

HOUR_AGO = time.time() - 3600
COUNT = analysis_cache.MIN_RECORDS + 10


def write_skill(folder: Path, index: int, extra: str = "", when: float = HOUR_AGO) -> SkillRecord:
    path = folder / f"skill-{index}" / "SKILL.md"
    path.parent.mkdir(parents=True, exist_ok=True)
    body = (
        f"# Skill {index}\n\nCompare vendor quotes and estimate costs for project {index}.{extra}\n\n"
        "## When not to use\n\n- exact legal advice\n"
    )
    path.write_text(f"---\nname: skill-{index}\ndescription: Budget estimates {index}\n---\n{body}", encoding="utf-8")
    os.utime(path, (when, when))
    return record(index, str(path))


def record(index: int, path: str, description: str | None = None) -> SkillRecord:
    text = f"Budget estimates {index}; not for tax filings" if description is None else description
    return SkillRecord(name=f"skill-{index}", scope="global", source="test", description=text, path=path)


@pytest.fixture
def skills(tmp_path: Path) -> list[SkillRecord]:
    return [write_skill(tmp_path, i) for i in range(COUNT)]


@pytest.fixture
def analysed(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The names `Document.of` actually analysed (not served from the memo)."""
    names: list[str] = []
    original = Document.of.__func__  # type: ignore[attr-defined]

    def counting(cls: type[Document], skill: SkillRecord, body: str | None = None) -> Document:
        if skill is not analysis_cache._REFERENCE:  # the one analysis that learns a document's shape
            names.append(skill.name)
        return original(cls, skill, body)

    monkeypatch.setattr(Document, "of", classmethod(counting))
    return names


def test_a_second_run_reuses_every_analysis_and_gives_equal_documents(
    skills: list[SkillRecord], analysed: list[str]
) -> None:
    first = analyse(skills)
    assert len(analysed) == COUNT
    second = analyse(skills)
    assert len(analysed) == COUNT  # nothing analysed again
    assert second == first
    assert second == [Document.of(s) for s in skills]


def test_the_ranking_is_the_same_from_the_memo(skills: list[SkillRecord]) -> None:
    synthesis = parse_synthesis(
        {"original_prompt": "estimate vendor costs, not tax filings", "problem_type": "research"}
    )
    fresh = route(skills, synthesis, [Document.of(s) for s in skills])
    analyse(skills)
    assert route(skills, synthesis) == fresh  # analysed through the (now warm) memo


def test_an_edited_skill_is_analysed_again(tmp_path: Path, skills: list[SkillRecord], analysed: list[str]) -> None:
    analyse(skills)
    analysed.clear()
    skills[3] = write_skill(tmp_path, 3, extra=" Also forecasts quarterly revenue.", when=HOUR_AGO + 60)
    documents = analyse(skills)
    assert analysed == ["skill-3"]
    assert "revenu" in documents[3].fields["body"]


def test_a_changed_record_is_analysed_again(skills: list[SkillRecord], analysed: list[str]) -> None:
    analyse(skills)
    analysed.clear()
    skills[5] = record(5, str(skills[5].path), description="Quarterly revenue forecasts")
    documents = analyse(skills)
    assert analysed == ["skill-5"]
    assert "forecast" in documents[5].fields["description"]


def test_another_router_version_reads_nothing(
    skills: list[SkillRecord], analysed: list[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    analyse(skills)
    analysed.clear()
    monkeypatch.setattr(analysis_cache, "_version", "another router")
    analyse(skills)
    assert len(analysed) == COUNT


def test_the_version_follows_the_router_code() -> None:
    assert memo_version() == memo_version()
    assert len(memo_version()) == 64


def test_the_version_digests_every_module_of_the_package(tmp_path: Path) -> None:
    """Not a hand-kept list of modules: an edit of any one of them (or a new one) is a new version."""
    import shutil

    package = tmp_path / "swarm_handoff_router"
    shutil.copytree(Path(analysis_cache.__file__).parent, package, ignore=shutil.ignore_patterns("__pycache__"))
    version = analysis_cache.code_digest(package)
    assert version is not None
    for name in sorted(p.name for p in package.glob("*.py")):
        before = (package / name).read_bytes()
        (package / name).write_bytes(before + b"\n# edited\n")
        assert analysis_cache.code_digest(package) not in (None, version), name
        (package / name).write_bytes(before)
    assert analysis_cache.code_digest(package) == version
    (package / "later.py").write_text("X = 1\n")  # a module added by a later release
    assert analysis_cache.code_digest(package) not in (None, version)


def test_a_damaged_entry_is_analysed_again(skills: list[SkillRecord], analysed: list[str]) -> None:
    expected = analyse(skills)
    memo = FileMemo(MEMO_NAME, memo_version())
    for number, bad in enumerate(
        [None, ("row", "state"), (skills[1].to_row(), {"name": ("x", 1)}), (skills[2].to_row(), {})]
    ):
        path = str(skills[number].path)
        memo.entries[path] = (*memo.entries[path][:-1], bad)
        memo.used[path] = memo.entries[path]
    memo.dirty = True
    memo.save()
    analysed.clear()
    assert analyse(skills) == expected
    assert analysed == ["skill-0", "skill-1", "skill-2", "skill-3"]


def forged(state: dict[str, object], field: str, value: object) -> dict[str, object]:
    return {**state, field: value}


def test_a_forged_entry_of_the_right_keys_but_wrong_types_is_analysed_again(
    skills: list[SkillRecord], analysed: list[str]
) -> None:
    expected = analyse(skills)
    memo = FileMemo(MEMO_NAME, memo_version())
    state = to_state(expected[0])
    fields = state["fields"][1]  # type: ignore[index]
    lies = [
        forged(state, "name", ("v", 7)),
        forged(state, "fields", ("m", {**fields, "body": ("c", {"word": "many"})})),
        forged(state, "fields", ("m", {k: v for k, v in fields.items() if k != "body"})),
        forged(state, "lengths", ("m", {"name": ("v", "long")})),
        forged(state, "negative", ("v", "not a tuple")),
        forged(state, "negative_terms", ("c", {"x": 1})),
        forged(state, "pairs", ("zz", ())),
    ]
    for number, lie in enumerate(lies):
        path = str(skills[number].path)
        memo.entries[path] = (*memo.entries[path][:-1], (skills[number].to_row(), lie))
        memo.used[path] = memo.entries[path]
    memo.dirty = True
    memo.save()
    analysed.clear()
    assert analyse(skills) == expected
    assert analysed == [f"skill-{number}" for number in range(len(lies))]


def test_a_garbage_memo_file_is_not_a_crash(skills: list[SkillRecord], own_cache: Path) -> None:
    expected = analyse(skills)
    memo = own_cache / "swarm-handoff" / "memo" / f"{MEMO_NAME}.bin"
    memo.write_bytes(b"\x00garbage" + marshal.dumps(list(range(10))))
    assert analyse(skills) == expected


def test_no_cache_means_no_memo(skills: list[SkillRecord], own_cache: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("SWARM_HANDOFF_NO_CACHE", "1")
    analyse(skills)
    assert not (own_cache / "swarm-handoff" / "memo").exists()


def test_a_few_records_are_analysed_without_the_memo(skills: list[SkillRecord], own_cache: Path) -> None:
    analyse(skills[: analysis_cache.MIN_RECORDS - 1])
    assert not (own_cache / "swarm-handoff" / "memo").exists()


def test_every_record_gets_its_document_in_order_whether_stored_fresh_or_without_a_file(
    tmp_path: Path, skills: list[SkillRecord], analysed: list[str]
) -> None:
    analyse(skills)
    analysed.clear()
    skills[2] = write_skill(tmp_path, 2, extra=" Also forecasts quarterly revenue.", when=HOUR_AGO + 60)
    mixed = [*skills, record(COUNT, ""), record(COUNT + 1, str(tmp_path / "notes.txt"))]
    documents = analyse(mixed)
    assert analysed == ["skill-2", f"skill-{COUNT}", f"skill-{COUNT + 1}"]  # the rest came from the memo
    assert [d.name for d in documents] == [r.name for r in mixed]
    assert documents == [Document.of(r) for r in mixed]


def test_records_without_a_skill_md_are_analysed_each_time(tmp_path: Path, analysed: list[str]) -> None:
    records = [record(i, "") for i in range(COUNT)]
    analyse(records)
    analyse(records)
    assert len(analysed) == 2 * COUNT


@pytest.mark.parametrize(
    "value",
    [
        Counter({"a": 2}),
        frozenset({("a", "b")}),
        {"f": Counter({"x": 1})},
        ("a", "b"),
        ((1, "a"), None),
        1.5,
        None,
        "s",
    ],
)
def test_encoding_round_trips(value: object) -> None:
    assert decode(marshal.loads(marshal.dumps(encode(value)))) == value
    assert type(decode(encode(value))) is type(value) or isinstance(value, dict)


def test_a_document_round_trips(skills: list[SkillRecord]) -> None:
    document = Document.of(skills[0])
    assert from_state(Document, marshal.loads(marshal.dumps(to_state(document)))) == document


@pytest.mark.parametrize("state", [None, [], {"name": ("v", "x")}, {"bogus": 1}])
def test_a_state_of_another_shape_is_refused(state: object) -> None:
    with pytest.raises((ValueError, TypeError)):
        from_state(Document, state)


def test_what_the_memo_cannot_keep_is_refused() -> None:
    with pytest.raises(TypeError):
        encode(object())


def test_forged_counts_and_lengths_are_analysed_again_never_a_nan_point(
    skills: list[SkillRecord], analysed: list[str]
) -> None:
    synthesis = parse_synthesis({"original_prompt": "estimate vendor costs for skill 3", "problem_type": "research"})
    fresh = route(skills, synthesis, [Document.of(s) for s in skills])
    expected = analyse(skills)
    memo = FileMemo(MEMO_NAME, memo_version())
    state = to_state(expected[0])
    fields = state["fields"][1]  # type: ignore[index]
    lengths = state["lengths"][1]  # type: ignore[index]
    body = dict(fields["body"][1])
    word = next(iter(body))

    def counted(count: object) -> dict[str, object]:
        return forged(state, "fields", ("m", {**fields, "body": ("c", {**body, word: count})}))

    lies = [
        counted(float("nan")),
        counted(float("inf")),
        counted(-3),
        counted(0),
        counted(2.0),
        counted("many"),
        counted(None),
        counted((1,)),
        forged(state, "fields", ("m", {**fields, "body": ("c", {**body, word: body[word] + 3, "other": -3})})),
        forged(state, "lengths", ("m", {**lengths, "body": ("v", 0)})),
        forged(state, "lengths", ("m", {**lengths, "body": ("v", -5)})),
        forged(state, "lengths", ("m", {**lengths, "body": ("v", lengths["body"][1] + 1)})),
        forged(state, "lengths", ("m", {**lengths, "body": ("v", float("nan"))})),
        # Counts that cancel out to a length of 0: the total matches, a count is still negative.
        {
            **state,
            "fields": ("m", {**fields, "body": ("c", {"a": 5, "b": -5})}),
            "lengths": ("m", {**lengths, "body": ("v", 0)}),
        },
    ]
    for number, lie in enumerate(lies):
        path = str(skills[number].path)
        memo.entries[path] = (*memo.entries[path][:-1], (skills[number].to_row(), lie))
        memo.used[path] = memo.entries[path]
    memo.dirty = True
    memo.save()  # a forged memo file on disk
    analysed.clear()
    assert analyse(skills) == expected
    assert analysed == [f"skill-{number}" for number in range(len(lies))]
    ranking = route(skills, synthesis)
    assert ranking == fresh
    assert all(math.isfinite(part.points) for row in ranking for part in row)


def bytecode_only_install(folder: Path) -> Path:
    """The router's modules as a sourceless install ships them: `name.pyc` beside each other, no `.py`."""
    import py_compile

    source = Path(analysis_cache.__file__).parent
    folder.mkdir()
    for name in ("analysis_cache", "router", "text"):
        py_compile.compile(str(source / f"{name}.py"), cfile=str(folder / f"{name}.pyc"), doraise=True)
    return folder


def test_a_bytecode_only_install_has_a_version_that_follows_its_code(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    folder = bytecode_only_install(tmp_path / "site")
    monkeypatch.setattr(analysis_cache, "__file__", str(folder / "analysis_cache.pyc"))
    monkeypatch.setattr(analysis_cache, "_version", None)
    version = memo_version()
    assert len(version) == 64
    assert analysis_cache.code_digest(folder) == version
    (folder / "text.pyc").write_bytes((folder / "text.pyc").read_bytes() + b"\0")
    assert analysis_cache.code_digest(folder) not in (None, version)


def test_unreadable_code_turns_the_memo_off_without_an_error(
    tmp_path: Path, skills: list[SkillRecord], own_cache: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (tmp_path / "empty").mkdir()
    monkeypatch.setattr(analysis_cache, "__file__", str(tmp_path / "empty" / "analysis_cache.pyc"))
    monkeypatch.setattr(analysis_cache, "_version", None)
    assert memo_version() == ""
    assert analyse(skills) == [Document.of(s) for s in skills]
    assert not (own_cache / "swarm-handoff" / "memo").exists()


def test_a_cold_analysis_of_many_skills_uses_the_scan_s_worker_processes(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    skills = [write_skill(tmp_path, index) for index in range(MIN_PARALLEL + 5)]
    expected = [Document.of(skill) for skill in skills]
    calls: list[tuple[int, int]] = []
    real = analysis_cache.map_chunks

    def spy(work: Any, tasks: list[Any], jobs: int) -> list[Any]:
        calls.append((len(tasks), jobs))
        return real(work, tasks, jobs)

    monkeypatch.setattr(analysis_cache, "map_chunks", spy)
    monkeypatch.setenv("SWARM_HANDOFF_JOBS", "2")
    assert analyse(skills) == expected
    assert calls == [(len(skills), 2)]  # every analysis missed, split over two processes
    again: list[str] = []
    real_of = Document.of

    def counting(record: SkillRecord, body: str | None = None) -> Document:
        again.append(record.name)
        return real_of(record, body)

    monkeypatch.setattr(Document, "of", counting)
    assert analyse(skills) == expected  # what the children analysed was kept in the memo
    assert again == ["shape"]  # only the reference document every ranking builds to learn the shape


def test_a_few_skills_are_analysed_in_this_process(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    skills = [write_skill(tmp_path, index) for index in range(COUNT)]
    calls: list[int] = []
    real = analysis_cache.map_chunks
    monkeypatch.setattr(analysis_cache, "map_chunks", lambda w, t, jobs: calls.append(jobs) or real(w, t, jobs))
    monkeypatch.setenv("SWARM_HANDOFF_JOBS", "2")
    assert analyse(skills) == [Document.of(skill) for skill in skills]
    assert calls == [1]  # fewer than MIN_PARALLEL to analyse: a fork would cost more than it saves


def test_documents_analysed_in_this_process_are_not_rebuilt_from_the_memo_data(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    skills = [write_skill(tmp_path, index) for index in range(COUNT)]
    rebuilt: list[object] = []
    real = analysis_cache.from_state
    monkeypatch.setattr(analysis_cache, "from_state", lambda *a: rebuilt.append(a) or real(*a))
    assert analyse(skills) == [Document.of(skill) for skill in skills]
    assert rebuilt == []  # a cold, serial analysis keeps its documents as made
    assert analyse(skills) == [Document.of(skill) for skill in skills]
    assert len(rebuilt) == len(skills)  # a warm one reads them all from the memo
