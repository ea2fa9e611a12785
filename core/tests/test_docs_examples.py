"""The worked examples in docs/ are real: every `$ swarm-handoff ...` block matches a fresh run."""

from __future__ import annotations

import json
import re
import shlex
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
PAGES = ["docs/scorers/swarm-v2.md", "docs/scorers/registry-v3.md", "docs/plugin-guide-scorer.md"]
BLOCK = re.compile(r"```console\n\$ (swarm-handoff [^\n]*)\n(.*?)```", re.S)


def _examples() -> list[tuple[str, str, str]]:
    found = []
    for page in PAGES:
        path = ROOT / page
        if path.exists():
            found += [(page, command, output) for command, output in BLOCK.findall(path.read_text())]
    return found


@pytest.mark.parametrize(("page", "command", "expected"), _examples())
def test_documented_output_is_what_the_command_prints(page, command, expected, make_swarm_host, swarm_cli, monkeypatch):
    # The pages show the text menu of swarm-handoff-formatters; without it there is nothing to compare.
    pytest.importorskip("swarm_handoff_formatters")
    args = shlex.split(command)[1:]
    plugins = ["formatters"]
    if "bm25" in args:
        pytest.importorskip("swarm_handoff_bm25")
        plugins.append("bm25")
    if "plugins" in args or "bad.yaml" in command:
        pytest.skip("illustrates output that depends on what is installed, or on a file not in the repo")
    make_swarm_host(plugins)
    monkeypatch.chdir(ROOT)
    result = swarm_cli(*args)
    if "--format" in args and "json" in args:
        shown = json.loads(expected)
        actual = result.json()
        actual["workflows"] = actual["workflows"][: len(shown["workflows"])]
        assert actual == shown
    else:
        assert result.stdout == expected, f"{page}: `{command}` prints something else now"


def test_the_complete_synthesis_example_is_valid():
    from swarm_handoff.synthesis import parse_synthesis
    from swarm_handoff.yamlio import parse_yaml

    page = ROOT / "docs" / "synthesis.md"
    if not page.exists():
        pytest.skip("docs/synthesis.md is not in this checkout")
    [example] = re.findall(r"```yaml\n(.*?)```", page.read_text(), re.S)[:1]
    synthesis = parse_synthesis(parse_yaml(example))
    assert synthesis.problem_type == "decision"
    assert synthesis.user_feedback
    assert synthesis.suggested_terms[0]["term"] == "job scheduler comparison"
