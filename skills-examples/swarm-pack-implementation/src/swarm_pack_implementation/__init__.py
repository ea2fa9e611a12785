"""An example skill pack whose workflow passes a quality-review gate before it finishes."""
