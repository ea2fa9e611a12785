"""A request router for swarm-handoff: which skill should take this request, explained term by term."""


def __getattr__(name: str) -> object:
    """`route` and `RouteDocument`, imported on first use: the plugin's hooks stay fast to load."""
    if name in ("route", "RouteDocument"):
        from swarm_handoff_router import answer

        return getattr(answer, name)
    raise AttributeError(f"module 'swarm_handoff_router' has no attribute {name!r}")
