"""The name table the core reserves for its own distributions matches what they register.

It reads the core's table and every installed first-party plugin, so it lives with the tests that run
with everything installed (a plugin's own tests reach the core only through its API).
"""

from __future__ import annotations


def test_every_name_a_first_party_distribution_registers_is_reserved_for_it(make_swarm_host):
    from importlib.metadata import entry_points

    from swarm_handoff.components import Kind
    from swarm_handoff.plugin_collect import RESERVED, first_party, normalised

    ours = [ep.name for ep in entry_points(group="swarm_handoff") if first_party(ep.dist.name if ep.dist else "")]
    host = make_swarm_host(ours)
    registered = {
        name: normalised(ref.distribution)
        for kind in Kind
        for name, ref in host.components(kind).items()
        if first_party(ref.distribution)
    }
    assert registered == {name: dist for name, dist in RESERVED.items() if name in registered}
    assert "frontmatter" in registered
