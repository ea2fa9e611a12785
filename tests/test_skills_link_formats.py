"""`skills link` prints its document in every format, xml included (which the formatters plugin brings)."""

from __future__ import annotations

import json
import xml.etree.ElementTree as ET

import pytest
from ruamel.yaml import YAML

from swarm_handoff.plugins import SKILLS_ENTRY_POINT_GROUP

pytest.importorskip("swarm_handoff_formatters", reason="the xml and rich text formats need swarm-handoff-formatters")

MODULE = "from importlib.resources import files\nSKILL_MD = files(__name__) / 'SKILL.md'\n"


@pytest.fixture
def project(make_swarm_host, fake_distributions, tmp_path):
    make_swarm_host(["formatters", "qr", "link"], packs=[])
    fake_distributions.install(
        "fmt-pack",
        modules={"fmtpack.alpha.__init__": MODULE},
        files={"fmtpack/alpha/SKILL.md": "---\nname: alpha\ndescription: Alpha.\n---\n"},
        entry_points={SKILLS_ENTRY_POINT_GROUP: {"alpha": "fmtpack.alpha"}},
    )
    fake_distributions.modules.append("fmtpack")
    (tmp_path / ".claude" / "skills" / "beta").mkdir(parents=True)
    return tmp_path


@pytest.mark.parametrize("fmt", ["text", "json", "yaml", "xml"])
def test_every_format_lists_linked_and_skipped(project, swarm_cli, fmt):
    result = swarm_cli("skills", "link", "alpha", "beta", "--cwd", str(project), "--format", fmt)
    assert result.exit_code == 1, result.stderr  # alpha is linked; beta, named but unknown, fails the run
    out = result.stdout
    if fmt == "json":
        data = json.loads(out)
    elif fmt == "yaml":
        data = YAML(typ="safe").load(out)
    if fmt in ("json", "yaml"):
        assert [e["name"] for e in data["linked"]] == ["alpha"]
        assert [(e["name"], e["code"]) for e in data["skipped"]] == [("beta", "LINK_UNKNOWN_SKILL")]
    elif fmt == "xml":
        root = ET.fromstring(out)
        assert root.get("kind") == "skills-link"
        assert "alpha" in out
        assert "LINK_UNKNOWN_SKILL" in out
    else:
        assert "linked   alpha" in out
        assert "LINK_UNKNOWN_SKILL" in out
