"""swarm-handoff over the Model Context Protocol: `swarm-handoff mcp`."""

__version__ = "0.1.0"
