"""The plugin installs and loads through its entry point without failures."""


def test_loads_through_its_entry_point(make_swarm_host):
    host = make_swarm_host(["frontmatter"])
    assert "frontmatter" in [p.name for p in host.plugins]
    assert host.failures == []
