"""A request router for swarm-handoff: which skill should take this request, explained term by term."""
