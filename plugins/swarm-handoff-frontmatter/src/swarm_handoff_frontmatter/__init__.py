"""swarm-handoff plugin package swarm_handoff_frontmatter."""
