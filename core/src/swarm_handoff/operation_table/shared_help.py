"""Help texts that rows of more than one command group share: each group's module imports only these.

A parameter spelt alike on several commands (an MCP tool's `cwd`, an inline synthesis) says the
same thing everywhere; keeping its text here means no group's rows import another group's.
"""

from __future__ import annotations

TOOL_CWD = "Discover as if run from this folder (default: the server's working folder)."

SYNTHESIS_TOOL_HELP = "The synthesis: an object (as in a synthesis file), or the path of a YAML/JSON synthesis file."
