"""Hook implementations of the frontmatter scan (filled in by the discovery work, issue 3)."""
