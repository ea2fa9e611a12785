"""swarm-handoff plugin: discovery sources for every place agents keep skills."""
