"""The `registry` command group's rows: `path`, `show`, `sync`, `prune`, declared as operations.

The plugin's hook registers these rows on every run (they are how `-h` and the parser know the
commands), so this module imports only the operation types; each row names its body in
`commands.py` as "module:function", imported when that command runs.
"""

from __future__ import annotations

from swarm_handoff.api import Group, Operation, Param

GROUP = Group(
    "registry",
    "The optional hand-off registry file.",
    ("swarm-handoff registry sync", "swarm-handoff registry show"),
    "docs/registry.md",
)

OPERATIONS = (
    Operation(
        "registry path",
        "Print where the registry file is (or would be).",
        (),
        "swarm_handoff_registry.commands:path_operation",
        examples=("swarm-handoff registry path",),
        docs="docs/registry.md",
    ),
    Operation(
        "registry show",
        "Show the registry's workflows and any problems with the file.",
        (),
        "swarm_handoff_registry.commands:show_operation",
        examples=("swarm-handoff registry show", "swarm-handoff registry show -f json"),
        docs="docs/registry.md",
    ),
    Operation(
        "registry sync",
        "Regenerate the registry from your user-level skills (and packs), keeping manual edits and comments.",
        (Param("packs", bool, "Also write the skills of installed packs (this environment's).", default=False),),
        "swarm_handoff_registry.commands:sync_operation",
        examples=("swarm-handoff registry sync", "swarm-handoff registry sync --packs"),
        docs="docs/registry.md",
    ),
    Operation(
        "registry prune",
        "Remove the entries `sync` marked stale (their skill is gone); the previous file is kept as .bak.",
        (),
        "swarm_handoff_registry.commands:prune_operation",
        examples=("swarm-handoff registry prune",),
        docs="docs/registry.md",
    ),
)
