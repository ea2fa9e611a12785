"""A Markdown output format for swarm-handoff (the plugin author's guide example)."""
