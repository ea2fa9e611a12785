"""Tests of the example plugin, written with the core's testing kit (no setup code needed)."""

from __future__ import annotations

from typing import Any, ClassVar

from swarm_handoff.api import Kind
from swarm_handoff_markdown.formatter import MarkdownFormatter, escape


class Sample:
    kind: ClassVar[str] = "sample"

    def to_data(self) -> dict[str, Any]:
        return {"name": "lit-review", "tags": ["research", "analysis"], "extra": None, "ok": True}


def test_renders_a_heading_and_nested_lists():
    assert MarkdownFormatter().render(Sample()).splitlines() == [
        "# sample",
        "",
        "- **name**: lit\\-review",
        "- **tags**",
        "  - 1.: research",
        "  - 2.: analysis",
        "- **extra**: —",
        "- **ok**: `True`",
    ]


def test_user_text_cannot_restyle_the_page():
    assert escape("**bold** [link](x)\n# heading") == "\\*\\*bold\\*\\* \\[link\\]\\(x\\) \\# heading"


def test_the_installed_plugin_registers_markdown(make_swarm_host):
    host = make_swarm_host(["markdown"])
    assert host.components(Kind.FORMATTER)["markdown"].distribution == "swarm-handoff-markdown"


def test_every_command_accepts_format_markdown(make_swarm_host, swarm_cli):
    make_swarm_host(["markdown"])
    result = swarm_cli("plugins", "--format", "markdown")
    assert result.exit_code == 0
    assert result.stdout.startswith("# plugins\n")
    assert "  - **name**: markdown" in result.stdout
