"""Quality-review gates for swarm-handoff workflows."""
