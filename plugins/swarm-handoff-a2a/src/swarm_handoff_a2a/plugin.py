"""Entry point of the A2A plugin: registered so `swarm-handoff plugins` lists it.

It adds no command yet: the commands (`a2a serve`, `handoff --to`, `discover --remote`, `ack
--remote`) are wired by the operations table onto the functions of `swarm_handoff_a2a.receiver`
and `swarm_handoff_a2a.sender`; nothing here imports the A2A SDK, so a run that does not use A2A
never pays for it.
"""

from __future__ import annotations
