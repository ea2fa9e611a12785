"""The `swarm-handoff` command line: a thin layer over the Python API.

The console script is `cli/entry.py` (`main`); the typer app it runs is `cli/app.py`. This package
imports nothing, so that `--version` pays for no more than the entry module.
"""
