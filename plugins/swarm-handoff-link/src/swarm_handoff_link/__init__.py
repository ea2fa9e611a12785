"""swarm-handoff plugin package swarm_handoff_link: `skills link` and `skills unlink`."""
