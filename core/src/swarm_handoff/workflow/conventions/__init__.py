"""Default conventions that steps embed; a project overrides one with `.claude/conventions/NAME.md`."""
