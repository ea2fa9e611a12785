"""A BM25 lexical relevance scorer for swarm-handoff: the example third-party scorer."""
