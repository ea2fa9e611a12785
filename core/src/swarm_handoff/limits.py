"""The limits every reader of input shares (files, YAML and JSON alike), as facts: numbers and codes.

The file reader (`textfile`), both YAML readers and `jsonio` build on these, so they live below all
of them and import nothing; the check of loaded data against them is `jsonio.check_size`. The values
are documented in docs/errors.md, "Input limits".
"""

from __future__ import annotations

# The largest file any reader takes (a payload, a SKILL.md, a registry, a synthesis).
MAX_BYTES = 4 * 1024 * 1024
# The code of a file over MAX_BYTES: named after YAML because it was first a YAML limit; codes never change.
YAML_TOO_LARGE = "YAML_TOO_LARGE"
# Values visited while walking the loaded document; aliases are counted each time they are reached,
# so "billion laughs" documents exceed it long before they exhaust memory.
MAX_NODES = 200_000
YAML_TOO_MANY_NODES = "YAML_TOO_MANY_NODES"
YAML_TOO_DEEP = "YAML_TOO_DEEP"
# Collections nested deeper than this (block or flow, aliases expanded) are refused: the loaders,
# JSON output and the formatters recurse once per level, and no hand-off document needs more.
MAX_DEPTH = 100
# Number literals longer than this are refused: Python refuses to turn more than 4,300 digits into
# an int (ValueError), and a hex literal that loads could not be written back as JSON.
MAX_NUMBER_CHARS = 100
# What an int that passed MAX_NUMBER_CHARS can weigh at most (a hex digit is 4 bits).
MAX_INT_BITS = 4 * MAX_NUMBER_CHARS
NUMBER_TOO_LONG = "NUMBER_TOO_LONG"
KEY_NOT_TEXT = "KEY_NOT_TEXT"
