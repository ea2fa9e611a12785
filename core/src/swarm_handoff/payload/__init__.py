"""Hand-off payloads: canonical hash, build, validation (v1.0/v2.0/v3.0), adapters, safe writing.

Nothing is imported here on purpose: each room is imported by what needs it, so that
`import swarm_handoff.payload.canonical` stays as cheap as the hash it computes.
"""
