"""Example skill pack: the `think-through` workflow."""
