"""Every SKILL.md in the shared corpus is handled; which skills are eligible and which codes appear is pinned.

The expected table (data/corpus_expected.json) was generated once by running this file
(`python test_corpus.py CORPUS_DIR > data/corpus_expected.json`) and checked by
hand against the files: the 14 skills with a frontmatter `handoff:` block are the eligible ones, and
the two YAML failures are a description with an unquoted ': ' and a value starting with '['.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

from swarm_handoff_frontmatter.scan import scan_folder

# ../shared beside the checkout (CI lays it there), found by walking up from this file.
CORPUS = (
    next(
        (p / "shared" for p in Path(__file__).resolve().parents if (p / "shared" / "seeds").is_dir()),
        Path("shared-not-found"),
    )
    / "corpus"
)
EXPECTED = Path(__file__).parent / "data" / "corpus_expected.json"


def trees(corpus: Path) -> list[Path]:
    """Every folder under `corpus` that holds at least one `<skill>/SKILL.md`."""
    return sorted({p.parent.parent for p in corpus.rglob("SKILL.md")})


def table(corpus: Path) -> dict[str, dict[str, dict[str, object]]]:
    """Map tree -> skill -> {eligible, legacy, codes}, in a stable order."""
    out: dict[str, dict[str, dict[str, object]]] = {}
    for tree in trees(corpus):
        result = scan_folder(tree)
        out[tree.relative_to(corpus).as_posix()] = {
            r.name: {"eligible": r.eligible, "legacy": r.legacy, "codes": sorted(p.code for p in r.problems)}
            for r in result.records
        }
    return out


def test_corpus_table_is_unchanged():
    if not CORPUS.is_dir():
        pytest.skip(
            "needs ../shared/corpus/ (the SKILL.md corpus), which is not in this repository: "
            "CI lays the project's spec bundle "
            'beside the checkout; see docs/development.md, "Conformance tests"'
        )
    assert table(CORPUS) == json.loads(EXPECTED.read_text())


def test_pinned_table_counts():
    expected = json.loads(EXPECTED.read_text())
    eligible = [name for skills in expected.values() for name, row in skills.items() if row["eligible"]]
    assert len(eligible) == 14
    codes = {code for skills in expected.values() for row in skills.values() for code in row["codes"]}
    assert codes == {"HANDOFF_ABSENT", "SKILL_UNQUOTED_COLON", "YAML_SYNTAX"}


if __name__ == "__main__":
    json.dump(table(Path(sys.argv[1])), sys.stdout, indent=1, sort_keys=True)
    sys.stdout.write("\n")
