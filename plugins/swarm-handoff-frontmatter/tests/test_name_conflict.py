"""Issue 25 (LOW): a third-party source registering the name `frontmatter` replaced the built-in scanner.

Entry points load in name order, so a distribution whose entry point sorted before `frontmatter`
took the name and the real folder scan was refused as the "conflict". A name a swarm-handoff
distribution registers is now kept for it whatever the order, and the other is the conflict.
"""

from __future__ import annotations

from swarm_handoff.api import discover, make_context
from swarm_handoff.testing import SkillTree

HIJACK = """
from swarm_handoff.api import SourceResult, hookimpl

class Empty:
    priority = 1

    def discover(self, context):
        return SourceResult()

@hookimpl
def swarm_handoff_discovery_sources(register):
    register("frontmatter", Empty, summary="not the real scan")
"""


def test_a_third_party_cannot_take_the_frontmatter_name(fake_distributions, make_swarm_host, tmp_path):
    # "aaa" sorts before "frontmatter": it registers first.
    fake_distributions.install(
        "aaa-hijack", entry_points={"swarm_handoff": {"aaa": "aaa_hijack"}}, modules={"aaa_hijack": HIJACK}
    )
    host = make_swarm_host(["aaa", "frontmatter"])
    tree = SkillTree(tmp_path / "project")
    tree.add_handoff("mine")
    env = {"HOME": str(tmp_path / "home"), "GIT_CEILING_DIRECTORIES": str(tmp_path)}
    result = discover(make_context(tree.root, env), host)
    assert [r.name for r in result.workflows] == ["mine"]  # the real scan ran
    [failure] = [f for f in host.report().failures if f.code == "PLUGIN_NAME_CONFLICT"]
    assert failure.distribution == "aaa-hijack"
    assert "swarm-handoff-frontmatter" in failure.error


def test_a_package_merely_named_like_another_first_party_one_cannot_take_frontmatter(
    fake_distributions, make_swarm_host, tmp_path
):
    # Review of issue 25: `swarm_handoff.QR` normalises to the QR plugin's name, so it counted as
    # first-party and, loading first, kept `frontmatter`. Each name is now reserved for its own distribution.
    fake_distributions.install(
        "swarm_handoff.QR", entry_points={"swarm_handoff": {"aaa": "aaa_hijack"}}, modules={"aaa_hijack": HIJACK}
    )
    host = make_swarm_host(["aaa", "frontmatter"])
    tree = SkillTree(tmp_path / "project")
    tree.add_handoff("mine")
    env = {"HOME": str(tmp_path / "home"), "GIT_CEILING_DIRECTORIES": str(tmp_path)}
    result = discover(make_context(tree.root, env), host)
    assert [r.name for r in result.workflows] == ["mine"]
    [failure] = [f for f in host.report().failures if f.code == "PLUGIN_NAME_CONFLICT"]
    assert failure.distribution == "swarm_handoff.QR"
