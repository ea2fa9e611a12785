"""`lint --strict-spec` and `agentskills validate` agree on the corpus: verdict, reason and line.

The comparison is bench/bench_lint_agreement.py (its numbers are in docs/discovery.md); this test
holds it at full agreement, so a rule skills-ref adds or lint drops fails the build.
"""

from __future__ import annotations

import importlib.util
from pathlib import Path
from types import ModuleType

import pytest

ROOT = Path(__file__).resolve().parents[1]
# ../shared beside the checkout (CI lays it there), found by walking up from this file.
CORPUS = (
    next(
        (p / "shared" for p in Path(__file__).resolve().parents if (p / "shared" / "seeds").is_dir()),
        Path("shared-not-found"),
    )
    / "corpus"
)


def _bench() -> ModuleType:
    spec = importlib.util.spec_from_file_location("bench_lint_agreement", ROOT / "bench" / "bench_lint_agreement.py")
    assert spec is not None
    assert spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_every_corpus_skill_gets_the_same_verdict_for_the_same_reason() -> None:
    pytest.importorskip(
        "skills_ref.validator",
        reason="needs skills-ref, the Agent Skills reference validator, which needs Python 3.11 or newer "
        "(the core's test extra installs it there)",
    )
    if not CORPUS.is_dir():
        pytest.skip(
            "needs ../shared/corpus/ (the SKILL.md corpus), which is not in this repository: CI lays the "
            'project\'s spec bundle beside the checkout; see docs/development.md, "Conformance tests"'
        )
    bench = _bench()
    rows = bench.compare(bench.corpus_folders(CORPUS))
    assert rows
    assert [r for r in rows if not (r["verdict_agrees"] and r["reason_agrees"])] == []
    assert [r for r in rows if r["unlocated"] or r["extra_unexplained"]] == []


def test_rules_map_skills_ref_messages() -> None:
    bench = _bench()
    messages = [
        "Unexpected fields in frontmatter: handoff. Only [...] are allowed.",
        "Skill name 'A' must be lowercase",
        "Skill name cannot start or end with a hyphen",
        "Directory name 'a_b' must match skill name 'a-b'",
        "Invalid YAML in frontmatter: While scanning ...",
    ]
    assert bench.their_rules(messages) == {"fields", "name-format", "name-folder", "yaml"}
    assert bench.their_rules(["Something new"]) == {"? Something new"}


def test_a_reason_lint_misses_is_a_disagreement() -> None:
    bench = _bench()
    row = bench.compare_one(Path("x"), ["Skill name 'A' must be lowercase"], [])
    assert not row["verdict_agrees"]
    assert not row["reason_agrees"]
    located = [{"code": "SPEC_NAME_FORMAT", "severity": "error", "line": 2}]
    assert bench.compare_one(Path("x"), ["Skill name 'A' must be lowercase"], located)["reason_agrees"]
    unlocated = [{"code": "SPEC_NAME_FORMAT", "severity": "error", "line": None}]
    assert bench.compare_one(Path("x"), ["Skill name 'A' must be lowercase"], unlocated)["unlocated"] == ["name-format"]
