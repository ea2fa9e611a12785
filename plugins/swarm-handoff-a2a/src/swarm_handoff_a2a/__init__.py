"""swarm-handoff plugin package swarm_handoff_a2a: hand-offs between machines over A2A.

`serve` runs a receiving host (an A2A server whose agent card lists the skills that accept a
hand-off here), `send` hands a payload to one, `remote_skills` reads a host's card and
`remote_status` a hand-off's remote task; `ack_task` moves a received hand-off's task to
COMPLETED or FAILED. The core's `handoff TARGET --to URL` and `ack` reach it through its transport
(`transport.py`, registered for `http` and `https`). See docs/a2a.md.

The package root imports nothing: every command loads this package's entry point, and the A2A SDK
(protobuf, logging, ~100 ms) is paid only by a command that uses A2A
(tests/test_startup_imports.py). The extension's URI is `swarm_handoff_a2a.extension.EXTENSION_URI`.
"""
