"""The core's operations: every command's name, summary, parameters, examples and body, in one table.

The command line, the MCP tools' schemas and argument checks, the `-h` pages and shell completion
are all generated from these records (`operations.py` says how). Adding an option to a command on
every surface is an edit to its row: a `Param` in the operation's list, in the module of its
concern (discovery, ranking, payload, workflow, session).
"""

from __future__ import annotations

from swarm_handoff.operation_table.discovery import DISCOVER, DISCOVER_PAGE, LINT, PLUGINS, WHY
from swarm_handoff.operation_table.payload import ACK, CONVERT, HANDOFF, HISTORY, VALIDATE, VERIFY
from swarm_handoff.operation_table.ranking import MAX_TOP, RANK, RANKING_RULE
from swarm_handoff.operation_table.session import (
    DEMO,
    SESSION_CLOSE,
    SESSION_GC,
    SESSION_GROUP,
    SESSION_NEW,
    SESSION_RESUME,
)
from swarm_handoff.operation_table.workflow import (
    WORKFLOW_CHECK,
    WORKFLOW_GRAPH,
    WORKFLOW_GROUP,
    WORKFLOW_LIST,
    WORKFLOW_SHOW,
    WORKFLOW_STEP,
)
from swarm_handoff.operations import Group, Operation

__all__ = ["CORE_GROUPS", "CORE_OPERATIONS", "DISCOVER_PAGE", "MAX_TOP", "RANKING_RULE"]

# In the order the command line lists them (groups after the commands, as typer lists them).
CORE_OPERATIONS: tuple[Operation, ...] = (
    PLUGINS,
    DISCOVER,
    WHY,
    LINT,
    RANK,
    HANDOFF,
    VALIDATE,
    VERIFY,
    CONVERT,
    ACK,
    HISTORY,
    DEMO,
    WORKFLOW_LIST,
    WORKFLOW_SHOW,
    WORKFLOW_CHECK,
    WORKFLOW_GRAPH,
    WORKFLOW_STEP,
    SESSION_NEW,
    SESSION_CLOSE,
    SESSION_GC,
    SESSION_RESUME,
)
CORE_GROUPS: tuple[Group, ...] = (WORKFLOW_GROUP, SESSION_GROUP)
