"""swarm-handoff-authoring: the `graph` and `adopt` commands (hand-off metadata for skill authors)."""
