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


if TYPE_CHECKING:
    from swarm_handoff.ranking import RankingRequest
    from swarm_handoff.records import Contribution, SkillRecord


@runtime_checkable
class BatchScorer(Protocol):
    """A scorer's optional capability: every candidate of one request at once, for corpus statistics.

    Document frequencies or average lengths need the whole candidate set; with this method they are
    counted once per request, inside the call, so the scorer keeps no state between requests.
    """

    def score_many(
        self, candidates: Sequence[SkillRecord], request: RankingRequest
    ) -> Sequence[Sequence[Contribution]]:
        """Return one sequence of `Contribution`s per candidate, in the order of `candidates`."""
