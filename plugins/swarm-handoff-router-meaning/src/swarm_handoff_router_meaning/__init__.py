"""swarm-handoff plugin: the router, fused with a small bundled embedding model (matching by meaning)."""
