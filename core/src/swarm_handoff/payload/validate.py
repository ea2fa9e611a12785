"""Run every registered validator for a payload's version and turn what they found into one answer.

Validators are components (the `swarm_handoff_payload_validators` hook): every one whose `versions`
holds the payload's `version` runs, and all their problems are collected, so third-party rules add
to the built-in ones instead of replacing them. A validator that raises becomes a problem of its
own; the others still run.

Validity is about shape and rules. `validate_file` also checks integrity (hash and size, referenced
files' checksums, any signature) and states the result in the report's `integrity` field: `ok`,
`mismatch` or `absent` (no hash stated), with a warning for the last two; an invalid payload's
files are never read (`not checked`). It never makes a payload
invalid (a hand-written draft has no hash yet); `verify` is the integrity gate and `ack` refuses
what fails it. `validate_payload` on data states `not checked`.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any, ClassVar

import attrs

from swarm_handoff.components import Kind, PayloadValidator
from swarm_handoff.configdir import config_dir
from swarm_handoff.errors import ErrorCode, Problem, Severity, SwarmError
from swarm_handoff.isolation import quiet
from swarm_handoff.payload.integrity import INTEGRITY_ABSENT, INTEGRITY_MISMATCH, examine
from swarm_handoff.payload.io import read_payload_file
from swarm_handoff.payload.schema import MISSING_FIELD, field_of, problem, type_name, version_of
from swarm_handoff.plugin_checks import BadResult, check_problems, check_versions
from swarm_handoff.plugins import PluginHost, get_host
from swarm_handoff.termsafe import shown
from swarm_handoff.yamlio import LoadError

VALIDATOR_FAILED = "PAYLOAD_VALIDATOR_FAILED"
# A validator that cannot be trusted to have checked fails the payload, as one that raises does.
_CLOSED = "the payload is not called valid until the validator is fixed or blocked"
UNSUPPORTED_VERSION = "PAYLOAD_UNSUPPORTED_VERSION"
NOT_A_PAYLOAD = "PAYLOAD_NOT_A_PAYLOAD"


@attrs.frozen(kw_only=True)
class ValidationReport:
    """The `validate` document: the version, whether it is valid, and every problem found."""

    kind: ClassVar[str] = "validation"
    version: str | None
    problems: tuple[Problem, ...] = ()
    validators: tuple[str, ...] = ()
    path: str | None = None
    integrity: str = "not checked"

    @property
    def errors(self) -> tuple[Problem, ...]:
        """The problems that make the payload invalid."""
        return tuple(p for p in self.problems if p.severity == Severity.ERROR)

    @property
    def warnings(self) -> tuple[Problem, ...]:
        """The problems that only annotate it (a loop, for example)."""
        return tuple(p for p in self.problems if p.severity != Severity.ERROR)

    @property
    def valid(self) -> bool:
        """True when no problem is an error."""
        return not self.errors

    def to_data(self) -> dict[str, Any]:
        """Give the JSON-ready form."""
        return {
            "path": self.path,
            "version": self.version,
            "valid": self.valid,
            "integrity": self.integrity,
            "validators": list(self.validators),
            "errors": [p.to_data() for p in self.errors],
            "warnings": [p.to_data() for p in self.warnings],
        }

    def to_error(self, *, target: str | None = None, preserved: str | None = None) -> SwarmError:
        """Turn an invalid report into the seed's error: INVALID_PAYLOAD or VALIDATION_FAILED."""
        missing = [field_of(p) for p in self.errors if p.code == MISSING_FIELD]
        shapeless = any(p.code in (NOT_A_PAYLOAD, UNSUPPORTED_VERSION) for p in self.errors)
        code = ErrorCode.INVALID_PAYLOAD if missing or shapeless else ErrorCode.VALIDATION_FAILED
        where = f" {self.path}" if self.path else ""
        message = f"payload{where} (version {self.version or '?'}) has {len(self.errors)} problem(s)"
        if shapeless:
            message = f"{self.path or 'the document'}: {self.errors[0].message.split(': ', 1)[-1]}"
        details: dict[str, Any] = {
            "missing_fields": missing,
            "validation_errors": [p.message for p in self.errors if p.code != MISSING_FIELD],
        }
        if target is not None:
            details["target_skill"] = target
        if self.warnings:
            details["warnings"] = [p.message for p in self.warnings]
        return SwarmError(
            code,
            message,
            details=details,
            # one problem that knows its own remedy says it; several keep the general advice
            hint=self.errors[0].hint
            if len(self.errors) == 1 and self.errors[0].hint
            else "fix the fields named in details and validate again",
            recoverable=True,
            payload_preserved=preserved,
            problems=self.errors,
        )


def _with_path(items: list[Problem], path: str | None) -> tuple[Problem, ...]:
    return tuple(attrs.evolve(p, path=path) if path and p.path is None else p for p in items)


def validate_payload(payload: Any, host: PluginHost | None = None, *, path: str | None = None) -> ValidationReport:
    """Validate plain data as a payload of the version it declares, collecting every problem."""
    host = host or get_host()
    if not isinstance(payload, Mapping) or not isinstance(payload.get("handoff"), Mapping):
        what = "an empty document" if payload is None else f"a {type_name(payload)}"
        if isinstance(payload, Mapping):
            what = "a mapping without a `handoff` mapping"
        hint = "a payload is a mapping with one key, handoff:"
        item = problem(NOT_A_PAYLOAD, "(document)", f"is {what}, not a hand-off payload", hint)
        return ValidationReport(version=None, problems=_with_path([item], path), path=path)
    version = version_of(payload)
    built: list[tuple[str, PayloadValidator]] = []
    failures: list[Problem] = []
    for name in host.components(Kind.VALIDATOR):
        try:
            built.append((name, host.get(Kind.VALIDATOR, name)))
        except SwarmError as exc:
            failures.append(Problem(VALIDATOR_FAILED, exc.message, hint=exc.hint, severity=Severity.WARNING))
    declared: list[tuple[str, PayloadValidator, tuple[str, ...]]] = []
    for name, component in built:
        try:
            declared.append((name, component, check_versions(component.versions)))
        except BadResult as exc:  # a broken gate is reported and closed: it fails validation, never silently
            failures.append(host.blame(Kind.VALIDATOR, name, str(exc), outcome=_CLOSED, severity=Severity.ERROR))
    validators = [(n, c) for n, c, versions in declared if version in versions]
    if not validators:
        supported = sorted({v for _, _, versions in declared for v in versions})
        item = problem(
            UNSUPPORTED_VERSION,
            "handoff.version",
            f"{shown(version)} is not a version any installed validator checks",
            f"use one of: {', '.join(supported) or '(no validators installed)'}",
        )
        return ValidationReport(version=version, problems=_with_path([item, *failures], path), path=path)
    found: list[Problem] = list(failures)
    for name, component in validators:
        try:
            with quiet():  # a validator's prints go to stderr, never into the document
                found.extend(check_problems(component.validate(payload)))
        except BadResult as exc:
            found.append(host.blame(Kind.VALIDATOR, name, str(exc), outcome=_CLOSED, severity=Severity.ERROR))
        except Exception as exc:  # one broken rule never hides the others' findings
            found.append(
                Problem(
                    VALIDATOR_FAILED,
                    f"validator {name!r} ({host.components(Kind.VALIDATOR)[name].distribution}) raised "
                    f"{type(exc).__name__}: {exc}",
                    hint="report this to the plugin's authors",
                )
            )
    return ValidationReport(
        version=version, problems=_with_path(found, path), validators=tuple(n for n, _ in validators), path=path
    )


def load_payload(path: Path) -> Any:
    """Load a payload file, turning anything unreadable into INVALID_PAYLOAD (never a traceback)."""
    return read_payload(path)[1]


def read_payload(path: Path) -> tuple[str, Any]:
    """`load_payload`, with the text it parsed: what `examine` compares a signed file by, unread again."""
    try:
        return read_payload_file(path)
    except LoadError as exc:
        raise SwarmError(
            ErrorCode.INVALID_PAYLOAD,
            f"cannot read payload {path}: {exc.problem.message}",
            details={"missing_fields": [], "validation_errors": [exc.problem.message]},
            hint=exc.problem.hint,
            recoverable=True,
            problems=(exc.problem,),
        ) from None


def validate_file(path: Path, host: PluginHost | None = None, *, config: Path | None = None) -> ValidationReport:
    """Load and validate a payload file of any version, and state whether its integrity holds."""
    text, payload = read_payload(path)
    report = validate_payload(payload, host, path=str(path))
    if not report.valid or not isinstance(payload, Mapping) or not isinstance(payload.get("handoff"), Mapping):
        return report  # an invalid payload's files are not read: validation comes before any hashing
    findings = examine(payload, path, config or config_dir(), text=text)
    notes: list[Problem] = []
    if findings.status == "mismatch":
        notes.append(
            Problem(
                INTEGRITY_MISMATCH,
                "integrity check failed: " + "; ".join(findings.problems),
                path=str(path),
                hint="the shape is valid but the content is not what was written: run `swarm-handoff verify`",
                severity=Severity.WARNING,
            )
        )
    elif findings.status == "absent":
        notes.append(
            Problem(
                INTEGRITY_ABSENT,
                "meta.payload_hash and meta.payload_size_bytes are missing: integrity cannot be checked",
                path=str(path),
                hint="payloads written by `swarm-handoff handoff` carry them",
                severity=Severity.WARNING,
            )
        )
    return attrs.evolve(report, integrity=findings.status, problems=(*report.problems, *notes))
