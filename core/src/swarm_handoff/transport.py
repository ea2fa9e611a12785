"""Hand-offs to other machines, as far as the core knows them: a URL, a transport, what came back.

The core carries nothing over a network. A transport plugin (`swarm-handoff-a2a` for `http` and
`https`) registers a `Transport` under each URL scheme it takes, through the
`swarm_handoff_transports` hook; `handoff TARGET --to URL` asks the one registered for the URL's
scheme for the remote host's skills (the target must be one of them), builds the payload for the
target as that host describes it (`remote_target`), writes it here as it always does, then has the
transport send it. `ack` tells every transport after the
acknowledgment is recorded, so the one that carried the payload can move its remote task. See
docs/hooks.md and docs/a2a.md.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any, ClassVar
from urllib.parse import urlsplit

import attrs

from swarm_handoff.components import Kind, Transport
from swarm_handoff.errors import ErrorCode, SwarmError, UsageError, close_names, did_you_mean
from swarm_handoff.inputs import ref
from swarm_handoff.plugins import PluginHost
from swarm_handoff.records import SkillRecord
from swarm_handoff.scopes import Scope

TRANSPORT_MISSING = "TRANSPORT_MISSING"  # `--to URL` and no plugin takes the URL's scheme
TRANSPORT_FAILED = "TRANSPORT_FAILED"  # a transport raised after an ack was recorded (a warning)
A2A_PLUGIN = "swarm-handoff-a2a"
_MAX_URL_CHARS = 2048


@attrs.frozen(kw_only=True)
class RemoteSkill:
    """A skill a remote host takes hand-offs for, as its transport read it (an A2A agent card's skill).

    The hand-off fields are what a payload for it is built from (`handoff TARGET --to URL`): its
    trigger (the payload's `target.invocation`), whom it accepts from, the fields it requires or
    can use, and the payload version it reads. A host that does not say them gets the defaults: a
    v3.0 target that accepts anyone and requires nothing, and it checks the payload itself.
    """

    id: str
    name: str = ""
    description: str = ""
    tags: tuple[str, ...] = ()
    examples: tuple[str, ...] = ()
    trigger: str = "{payload_path}"
    accepts_from: tuple[str, ...] = ("*",)
    requires: tuple[str, ...] = ()
    optional_consumes: tuple[str, ...] = ()
    schema_version: str = "3.0"

    def to_data(self) -> dict[str, Any]:
        """Give the JSON-ready form."""
        lists = ("tags", "examples", "accepts_from", "requires", "optional_consumes")
        return {**attrs.asdict(self), **{name: list(getattr(self, name)) for name in lists}}


@attrs.frozen(kw_only=True)
class RemoteDelivery:
    """One payload sent to another host: its remote task and state, or why it was not delivered."""

    url: str
    target: str
    task_id: str | None
    state: str  # the remote task's state (working, completed, rejected, ...), or "undelivered"
    delivered: bool
    attempts: int = 1
    error: dict[str, object] | None = None

    @property
    def ok(self) -> bool:
        """Whether the host took the payload in (delivered and not refused)."""
        return self.delivered and self.state not in ("rejected", "failed", "canceled", "undelivered")

    def to_data(self) -> dict[str, Any]:
        """Give the JSON-ready form."""
        return attrs.asdict(self)

    def line(self) -> str:
        """One line for the user: where it went and the task's state, or the refusal's code and hint."""
        head = f"sent to {self.url}: {self.state}" + (f" (task {self.task_id})" if self.task_id else "")
        if not self.error:
            return head
        hint = self.error.get("hint")
        return f"{head}; {self.error.get('code')}: {self.error.get('message')}" + (f" (hint: {hint})" if hint else "")


@attrs.frozen
class RemoteDiscovery:
    """The `discover --remote URL` document: the skills a remote host takes hand-offs for."""

    kind: ClassVar[str] = "remote-discovery"
    url: str
    skills: tuple[RemoteSkill, ...]

    def to_data(self) -> dict[str, Any]:
        """Give the JSON-ready form."""
        return {"url": self.url, "count": len(self.skills), "skills": [s.to_data() for s in self.skills]}


def remote_records(skills: Sequence[RemoteSkill], url: str) -> tuple[SkillRecord, ...]:
    """The remote skills as ranking candidates and hand-off targets: scope `registry`, marked `remote` with the URL.

    Each is what the host's card says of it (`RemoteSkill`): its id is its name, its tags its
    categories; the host checks the payload again when it arrives, whatever is said here.
    """
    return tuple(
        SkillRecord(
            name=skill.id,
            scope=Scope.REGISTRY,
            source=f"remote {url}",
            declared_name=skill.name or None,
            description=skill.description,
            categories=skill.tags,
            trigger=skill.trigger,
            protocol_version="3.0",
            schema_version=skill.schema_version,
            requires=skill.requires,
            optional_consumes=skill.optional_consumes,
            accepts_from=skill.accepts_from,
            meta={"remote": url},
        )
        for skill in skills
    )


def scheme_of(url: str, option: str = "to") -> str:
    """The URL's scheme, lower-case; a value that is not a URL with a host is a usage error naming the option."""
    parts = urlsplit(url) if len(url) <= _MAX_URL_CHARS and url.isprintable() else None
    if parts is None or not parts.scheme or not parts.netloc:
        raise UsageError(
            f"{ref(option)} {url[:200]!r} is not the URL of a host",
            hint="give the receiving host's URL, for example http://127.0.0.1:8470/",
        )
    return parts.scheme.lower()


def transport_for(host: PluginHost, url: str, option: str = "to") -> Transport:
    """The transport registered for the URL's scheme, or TRANSPORT_MISSING naming the plugin to install."""
    scheme = scheme_of(url, option)
    if scheme not in host.components(Kind.TRANSPORT):
        raise SwarmError(
            TRANSPORT_MISSING,
            f"no installed plugin sends hand-offs to {scheme}:// URLs",
            details={"url": url, "scheme": scheme, "schemes": sorted(host.components(Kind.TRANSPORT))},
            hint=f"install {A2A_PLUGIN} (it sends over A2A to http:// and https:// hosts), "
            "or hand off locally without --to",
        )
    transport: Transport = host.get(Kind.TRANSPORT, scheme)
    return transport


def remote_target(skills: Sequence[RemoteSkill], target: str, url: str) -> SkillRecord:
    """The target as the remote host's card describes it: what `handoff TARGET --to URL` builds the payload for.

    The card's entry is the target even when this machine has a skill of the same name: the
    payload is run there, by that skill. A target the host does not list is refused first.
    """
    check_remote_target(skills, target, url)
    (record,) = remote_records([next(skill for skill in skills if skill.id == target)], url)
    return record


def check_remote_target(skills: Sequence[RemoteSkill], target: str, url: str) -> None:
    """Refuse a target the remote host does not list (TARGET_NOT_FOUND, with the closest names)."""
    known = [skill.id for skill in skills]
    if target in known:
        return
    raise SwarmError(
        ErrorCode.TARGET_NOT_FOUND,
        f"no skill named {target!r} accepts a hand-off at {url}",
        details={"target_skill": target, "closest": close_names(target, known), "remote": url},
        hint=did_you_mean(target, known) or f"its skills: {', '.join(known) or '(none)'}",
    )


def acknowledged(host: PluginHost, payload: Path, status: str) -> tuple[str, ...]:
    """Tell every transport an ack was recorded; the lines they answer, and a warning for one that raised."""
    lines: list[str] = []
    seen: set[int] = set()
    for name in host.components(Kind.TRANSPORT):
        try:
            transport = host.get(Kind.TRANSPORT, name)
            if id(transport) in seen:  # one transport registered under several schemes is told once
                continue
            seen.add(id(transport))
            line = transport.acknowledged(payload, status)
        except Exception as exc:  # the ack is recorded: a transport's trouble is a warning, never a failure
            component = host.components(Kind.TRANSPORT)[name]
            lines.append(f"warning: {TRANSPORT_FAILED}: transport {name!r} from {component.distribution}: {exc}")
            continue
        if line:
            lines.append(line)
    return tuple(lines)
