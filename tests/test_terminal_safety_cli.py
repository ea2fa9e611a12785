"""Issue 12, item 9: escape sequences in descriptions, categories and folder names never reach the terminal raw.

Each test writes a skill the way a cloned repository could, runs the real CLI with every default
plugin, and checks that the text output holds no raw ESC (nor any other control character than
the layout's line breaks) and shows the sequence escaped, while `--format json` keeps it exact.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from swarm_handoff.termsafe import UNSAFE_MULTI_LINE

pytest.importorskip("swarm_handoff_formatters", reason="the rich text layouts come from swarm-handoff-formatters")

OSC_TITLE = "\x1b]0;pwned\x07"  # retitles the terminal window
CLEAR = "\x1b[2J"  # clears the screen
NEWLINE_FOLDER = "two\nlines"
SYNTHESIS = (
    "original_prompt: Should we move?\nreframed_challenge: Decide now.\nproblem_type: research\n"
    "synthesis_summary: They agree.\nconvergence_level: low\nkey_uncertainties: [volume]\nperspectives_completed: 3\n"
)


@pytest.fixture
def project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, make_swarm_host: Any, skill_tree: Any) -> Any:
    home = tmp_path / "home"
    monkeypatch.setenv("CLAUDE_CONFIG_DIR", str(home / ".claude"))
    monkeypatch.setenv("XDG_CACHE_HOME", str(home / ".cache"))
    monkeypatch.setenv("SWARM_HANDOFF_NO_CACHE", "1")
    make_swarm_host(["frontmatter", "registry", "formatters", "qr"], packs=[])
    skill_tree.add_handoff("osc", description=f"Looks fine {OSC_TITLE}until printed")
    skill_tree.add_handoff("clear", categories=[f"research{CLEAR}"])
    skill_tree.add_handoff(NEWLINE_FOLDER)
    monkeypatch.chdir(tmp_path)
    return skill_tree


def _safe(text: str) -> str:
    assert "\x1b" not in text
    assert UNSAFE_MULTI_LINE.search(text) is None, text
    return text


def test_description_with_an_osc_sequence_is_shown_escaped(project, swarm_cli):
    result = swarm_cli("discover", "--cwd", str(project.root))
    assert result.exit_code == 0, result.stderr
    out = _safe(result.stdout)
    assert "Looks fine \\x1b]0;pwned\\x07until printed" in out


def test_category_with_a_clear_screen_sequence_is_shown_escaped(project, swarm_cli):
    out = _safe(swarm_cli("discover", "--cwd", str(project.root)).stdout)
    assert "(research\\x1b[2J)" in out


def test_folder_name_with_a_newline_stays_on_its_own_line(project, swarm_cli):
    out = _safe(swarm_cli("discover", "--cwd", str(project.root)).stdout)
    assert "two\\nlines  [project" in out
    assert not any(line.startswith("lines") for line in out.splitlines())
    why = _safe(swarm_cli("why", NEWLINE_FOLDER, "--cwd", str(project.root)).stdout)
    assert why.startswith("two\\nlines: ")


def test_lint_and_rank_text_are_escaped_too(project, swarm_cli, tmp_path):
    lint = swarm_cli("lint", str(project.skills_dir / "osc"), str(project.skills_dir / NEWLINE_FOLDER))
    _safe(lint.stdout)
    synthesis = tmp_path / "synthesis.yaml"
    synthesis.write_text(SYNTHESIS, encoding="utf-8")
    rank = swarm_cli("rank", "--synthesis", str(synthesis), "--cwd", str(project.root), "--explain")
    assert rank.exit_code == 0, rank.stderr
    out = _safe(rank.stdout)
    assert "\\x1b" in out


def test_json_keeps_the_exact_values(project, swarm_cli):
    data = json.loads(swarm_cli("discover", "--cwd", str(project.root), "--format", "json").stdout)
    by_name = {w["skill"]: w for w in data["workflows"]}
    assert by_name["osc"]["description"] == f"Looks fine {OSC_TITLE}until printed"
    assert by_name["clear"]["categories"] == [f"research{CLEAR}"]
    assert NEWLINE_FOLDER in by_name


def test_errors_on_stderr_quote_user_input_escaped(project, swarm_cli, tmp_path):
    synthesis = tmp_path / "synthesis.yaml"
    synthesis.write_text(SYNTHESIS, encoding="utf-8")
    session = tmp_path / "session"
    session.mkdir()
    result = swarm_cli("handoff", f"nobody{OSC_TITLE}", "--synthesis", str(synthesis), "--session", str(session))
    assert result.exit_code == 1
    assert "TARGET_NOT_FOUND" in result.stderr
    assert "nobody\\x1b]0;pwned\\x07" in _safe(result.stderr)


def test_error_lines_on_stderr_show_a_hostile_file_name_escaped(project, swarm_cli, tmp_path):
    payload = tmp_path / f"payload{OSC_TITLE}\nerror: forged.yaml"
    payload.write_text("handoff: [\n", encoding="utf-8")
    result = swarm_cli("verify", str(payload))
    assert result.exit_code == 1
    err = _safe(result.stderr)
    assert "payload\\x1b]0;pwned\\x07\\nerror: forged.yaml" in err
    assert not any(line.startswith("error: forged") for line in err.splitlines())
