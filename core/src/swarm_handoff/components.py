"""What a component of each kind must provide, as typing protocols.

Plugins never subclass anything: any object with the right methods is a component. The protocols
are checked structurally by mypy and, where cheap, at registration time by the host.
"""

from __future__ import annotations

import enum
from collections.abc import Callable, Mapping, Sequence
from typing import TYPE_CHECKING, Any, ClassVar, Protocol, runtime_checkable

if TYPE_CHECKING:
    from swarm_handoff.errors import Problem
    from swarm_handoff.explain import Location
    from swarm_handoff.records import DiscoveryContext


class Kind(str, enum.Enum):
    """The kinds of named component, one per registering hook."""

    SOURCE = "source"
    SCORER = "scorer"
    VALIDATOR = "validator"
    ADAPTER = "adapter"
    FORMATTER = "formatter"
    QR_GATE = "qr-gate"

    def __str__(self) -> str:
        return self.value


class Register(Protocol):
    """The callable each registering hook receives; the host names and de-duplicates."""

    def __call__(self, name: str, factory: Callable[[], Any], *, summary: str = "") -> None:
        """Offer one component under `name`; `factory()` builds it on first use."""


@runtime_checkable
class Document(Protocol):
    """Anything a command prints: it has a `kind` and a JSON-ready `to_data()`."""

    kind: ClassVar[str]

    def to_data(self) -> dict[str, Any]:
        """Return the document as plain data (dicts, lists, strings, numbers, booleans, None)."""


@runtime_checkable
class Formatter(Protocol):
    """Turns any document into the text a command prints."""

    def render(self, document: Document) -> str:
        """Return the complete output for `document`, ending with a newline."""


@runtime_checkable
class DiscoverySource(Protocol):
    """Finds skill records in one kind of place (folders, installed packs, a registry file)."""

    priority: int

    def discover(self, context: Any) -> Any:
        """Return a `SourceResult` for `context` (a `DiscoveryContext`); never raise for bad input."""


@runtime_checkable
class Scorer(Protocol):
    """Explains how well one candidate fits one ranking request, factor by factor."""

    def score(self, candidate: Any, request: Any) -> Sequence[Any]:
        """Return the `Contribution`s (factor, points, reason) whose sum is the candidate's score."""


@runtime_checkable
class PayloadValidator(Protocol):
    """Checks payloads of the versions it names and reports every problem it finds."""

    versions: tuple[str, ...]

    def validate(self, payload: Mapping[str, Any]) -> Sequence[Problem]:
        """Return all problems of `payload`; an empty sequence means valid."""


@runtime_checkable
class SchemaAdapter(Protocol):
    """Converts a payload from one schema version to another and says what it could not carry."""

    source_version: str
    target_version: str

    def convert(self, payload: Mapping[str, Any]) -> Any:
        """Return the converted payload together with what was dropped."""


PROTOCOLS: dict[Kind, type] = {
    Kind.SOURCE: DiscoverySource,
    Kind.SCORER: Scorer,
    Kind.VALIDATOR: PayloadValidator,
    Kind.ADAPTER: SchemaAdapter,
    Kind.FORMATTER: Formatter,
}


# -- optional capabilities of a discovery source (checked with isinstance, never getattr) -----------


@runtime_checkable
class CachedSource(Protocol):
    """A source whose answer discovery may store and reuse while nothing it read has changed.

    The source reports what it reads by calling `swarm_handoff.api.watch(path)` on every file and
    folder *before* reading it (and `read_skills` for SKILL.md files, which watches them itself);
    the core records each first observation and applies the racy-timestamp rule. A source that
    cannot vouch for this run (a tool timed out, code failed to import) calls `not_cacheable`.
    See docs/plugin-guide-source.md.
    """

    def cache_key(self, context: DiscoveryContext) -> str:
        """Return what the answer depends on besides files (environment values, options); "" for nothing."""


@runtime_checkable
class LocatingSource(Protocol):
    """A source that can say where it would look for a skill of a given name, for `why NAME`."""

    def locations(self, context: DiscoveryContext, name: str) -> Sequence[Location]:
        """Return each place, in the source's own order, with a `note` when it was not searched."""
