"""An example skill pack: skills that arrive with `pip install`, no folder to copy."""
