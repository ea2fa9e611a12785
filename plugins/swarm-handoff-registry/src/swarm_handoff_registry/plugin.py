"""Hook implementations of the registry file source (filled in by the discovery work, issue 3)."""
