"""Text and XML output for every swarm-handoff document."""
