"""What a component of each kind must provide, as typing protocols: the plugin contract in types.

Plugins never subclass anything: any object with the right methods is a component. Each kind has
one protocol naming what it MUST provide; the host checks it with `isinstance` when it builds the
component (a miss is `COMPONENT_FAILED`). What a component MAY provide is a separate, small
capability protocol, also checked with `isinstance`, so an optional method is never looked up by
name with `getattr` and a type checker sees the same contract the host enforces.

Everything here is re-exported by `swarm_handoff.api`, the module plugin authors import; each
protocol has a section with a runnable example in docs/hooks.md.
"""

from __future__ import annotations

import enum
from collections.abc import Callable, Collection, Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, ClassVar, Protocol, runtime_checkable

if TYPE_CHECKING:
    import typer

    from swarm_handoff.errors import Problem
    from swarm_handoff.payload.adapters import AdapterResult
    from swarm_handoff.ranking import RankingRequest
    from swarm_handoff.records import Contribution, DiscoveryContext, Location, SkillRecord, SourceResult
    from swarm_handoff.scopes import ScopeSpec
    from swarm_handoff.transport import RemoteDelivery, RemoteSkill

DEFAULT_PRIORITY = 99
"""The priority of a source that declares none: after every built-in source."""


class Kind(str, enum.Enum):
    """The kinds of named component, one per registering hook."""

    SOURCE = "source"
    SCORER = "scorer"
    VALIDATOR = "validator"
    ADAPTER = "adapter"
    FORMATTER = "formatter"
    QR_GATE = "qr-gate"
    TRANSPORT = "transport"

    def __str__(self) -> str:
        return self.value


class Register(Protocol):
    """The callable each registering hook receives; the host names and de-duplicates."""

    def __call__(self, name: str, factory: Callable[[], object], *, summary: str = "") -> None:
        """Offer one component under `name`; `factory()` builds it on first use, so loading stays cheap."""


@runtime_checkable
class Document(Protocol):
    """Anything a command prints: it has a `kind` and a JSON-ready `to_data()`."""

    kind: ClassVar[str]

    # Read-only and `object`-valued: a formatter walks the data and narrows each value itself.
    def to_data(self) -> Mapping[str, object]:
        """Return the document as plain data (dicts, lists, strings, numbers, booleans, None)."""


@runtime_checkable
class Formatter(Protocol):
    """Turns any document into the text a command prints."""

    def render(self, document: Document) -> str:
        """Return the complete output for `document`, ending with a newline."""


@runtime_checkable
class DiscoverySource(Protocol):
    """Finds skill records in one kind of place (folders, installed packs, a registry file)."""

    def discover(self, context: DiscoveryContext) -> SourceResult:
        """Return the records and problems found for `context`; never raise for bad input."""


@runtime_checkable
class Scorer(Protocol):
    """Explains how well one candidate fits one ranking request, factor by factor."""

    def score(self, candidate: SkillRecord, request: RankingRequest) -> Sequence[Contribution]:
        """Return the `Contribution`s (factor, points, reason) whose sum is the candidate's score."""


@runtime_checkable
class PayloadValidator(Protocol):
    """Checks payloads of the versions it names and reports every problem it finds."""

    versions: Collection[str]

    def validate(self, payload: Mapping[str, object]) -> Sequence[Problem]:
        """Return all problems of `payload`; an empty sequence means valid."""


@runtime_checkable
class SchemaAdapter(Protocol):
    """Converts a payload from one schema version to another and says what it could not carry."""

    source_version: str
    target_version: str

    def convert(self, payload: Mapping[str, object]) -> AdapterResult:
        """Return the converted payload together with what was dropped and what is wrong with it."""


@runtime_checkable
class GatePolicy(Protocol):
    """Decides which review findings block a quality-review (QR) gate in a given review round."""

    def blocking(self, iteration: int) -> Collection[str]:
        """Return the severities (`MUST`, `SHOULD`, `COULD`) that fail the review in round `iteration` (1-based)."""


@runtime_checkable
class Transport(Protocol):
    """Carries hand-offs to another machine for the URL scheme it is registered under (`http`, ...)."""

    def skills(self, url: str) -> Sequence[RemoteSkill]:
        """Return the skills the host at `url` takes a hand-off for; raise a coded `SwarmError` when it cannot tell."""

    def send(self, payload: Path, url: str, target: str) -> RemoteDelivery:
        """Send the sealed payload file to `target` at `url`; a refusal or a failed delivery is a result."""

    def acknowledged(self, payload: Path, status: str) -> str | None:
        """Follow an `ack` recorded here: a line for the user when `payload` came through this transport, else None."""


@runtime_checkable
class CliExtension(Protocol):
    """A plugin that adds commands: what implementing the `swarm_handoff_cli` hook amounts to."""

    def swarm_handoff_cli(self, app: typer.Typer) -> None:
        """Add commands or groups to `app`, importing their heavy modules only inside the commands."""


PROTOCOLS: dict[Kind, type] = {
    Kind.SOURCE: DiscoverySource,
    Kind.SCORER: Scorer,
    Kind.VALIDATOR: PayloadValidator,
    Kind.ADAPTER: SchemaAdapter,
    Kind.FORMATTER: Formatter,
    Kind.QR_GATE: GatePolicy,
    Kind.TRANSPORT: Transport,
}


@runtime_checkable
class ScopedSource(Protocol):
    """A discovery source that declares the scopes its records carry (name, precedence, role).

    The declaration is the one ordering of discovery (docs/plugins.md#scopes): such a source needs
    no bare `priority`; it runs at its most local scope, and its scopes' roles decide the merge.
    """

    scopes: Sequence[ScopeSpec]

    def discover(self, context: DiscoveryContext) -> SourceResult:
        """Return a `SourceResult` for `context`; never raise for bad input."""


@runtime_checkable
class TextLayout(Protocol):
    """Optional capability of a document: its own `--format text` layout, for kinds the core has none for."""

    def to_text(self) -> str:
        """Return the page a person reads (ending with a newline); the text formatter escapes it once more."""


# Optional capabilities: one small protocol each, tested with `isinstance` where the host uses it.
# Other slices of issue 13 append theirs below; keep one protocol per capability.


@runtime_checkable
class PrioritizedSource(Protocol):
    """A source that says where it runs among the others; without it a source runs at `DEFAULT_PRIORITY`."""

    priority: int


@runtime_checkable
class LimitedGate(Protocol):
    """A gate policy with a last round, after which the loop stops and asks the user."""

    def exhausted(self, iteration: int) -> bool:
        """Say whether round `iteration` is past the limit, so the gate escalates instead of looping."""


@runtime_checkable
class CheckpointGate(Protocol):
    """A gate policy that writes the checkpoint text (banner, stop condition, re-verify mode) itself."""

    def checkpoint(self, *, name: str, state: Mapping[str, object], prefix: str) -> Mapping[str, object]:
        """Return the checkpoint's pillars for the loop state kept under `prefix` in `state`."""


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
