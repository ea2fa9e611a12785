"""Discovery's HANDOFF_ABSENT names a misspelt or misplaced hand-off key and its fix (issue 18, point 5).

`lint` says it with the line (HANDOFF_DID_YOU_MEAN); `discover --all` and `why` show the skipped
skill's reason, so the reason itself carries the "did you mean" instead of the generic hint.
"""

from __future__ import annotations

import subprocess
import sys

import pytest

from swarm_handoff.metadata import record_from_frontmatter

CASES = {
    "hand-off": ({"hand-off": {"accepts_from": ["*"]}}, "did you mean 'handoff:'?", "rename 'hand-off' to 'handoff'"),
    "Handoff": ({"Handoff": {"accepts_from": ["*"]}}, "did you mean 'handoff:'?", "rename 'Handoff'"),
    "handof": ({"handof": {"accepts_from": ["*"]}}, "did you mean 'handoff:'?", "rename 'handof'"),
    "handoffs not a list": ({"handoffs": "yes"}, "did you mean 'handoff:'?", "rename 'handoffs'"),
    "handoff_categories at the top": ({"handoff_categories": ["a"]}, "under 'handoff:'", "indent"),
    "accepts_from at the top": ({"accepts_from": ["*"]}, "under 'handoff:'", "indent 'accepts_from'"),
    "accepts-from at the top": ({"accepts-from": "*"}, "under 'metadata:'", "under metadata:"),
    "accepts_from under metadata": ({"metadata": {"accepts_from": "*"}}, "did you mean 'accepts-from'", "rename"),
    "Handoff-Categories under metadata": ({"metadata": {"Handoff_Categories": "a"}}, "'handoff-categories'", "rename"),
}


def absent(extra: dict[str, object]):
    data = {"name": "s", "description": "Does things.", **extra}
    record = record_from_frontmatter(data, name="s", scope="project", source="test", path="/x/SKILL.md")
    [problem] = [p for p in record.problems if p.code == "HANDOFF_ABSENT"]
    return record, problem


@pytest.mark.parametrize("case", list(CASES))
def test_the_skipped_reason_says_what_was_meant(case: str) -> None:
    extra, message, hint = CASES[case]
    record, problem = absent(extra)
    assert not record.eligible
    assert message in problem.message
    assert hint in (problem.hint or "")


@pytest.mark.parametrize("extra", [{}, {"version": "1"}, {"handoffs": [{"agent": "b"}]}, {"handoff_notes": "x"}])
def test_other_skills_keep_the_generic_hint(extra: dict[str, object]) -> None:
    _, problem = absent(extra)
    assert "did you mean" not in problem.message
    assert "accepts-from" in (problem.hint or "")


def test_a_skill_without_a_near_miss_imports_neither_lint_nor_difflib() -> None:
    code = (
        "import sys\n"
        "from swarm_handoff.metadata import record_from_frontmatter\n"
        "record_from_frontmatter({'name': 'a', 'description': 'b', 'version': '1'}, name='a', scope='project',"
        " source='t', path=None)\n"
        "print('swarm_handoff.lint_spec' in sys.modules, 'difflib' in sys.modules)\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert done.stdout.split() == ["False", "False"]
