"""The words of hand-off metadata: the metadata form's keys, the `handoff:` block's fields, and near misses.

Discovery (which explains why a skill accepts no hand-off) and `lint --strict-spec` (which
reports fields outside the spec) both need to know these names and to say "did you mean".
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

# The metadata form's keys (docs/handoff-metadata.md); `accepts-from` is the one that makes a target.
ACCEPTS_FROM = "accepts-from"
METADATA_KEYS = (
    ACCEPTS_FROM,
    "handoff-categories",
    "handoff-description",
    "handoff-trigger",
    "handoff-schema-version",
    "handoff-schema-type",
    "provides-to",
    "input-requirements",
    "output-types",
    "handoff-requires",
    "optional-consumes",
)
HANDOFFS_KEY = "handoffs"
# Fields that belong inside `handoff:` and are sometimes written at the top level by mistake.
HANDOFF_SUBFIELDS = frozenset(
    {
        "accepts_handoff",
        "accepts_from",
        "handoff_categories",
        "handoff_description",
        "handoff_trigger",
        "provides_to",
        "requires",
        "optional_consumes",
        "health_check",
        "input_requirements",
        "output_types",
        "schema_version",
        "schema_type",
    }
)


def has_metadata_form(metadata: Any) -> bool:
    """True when `metadata:` carries any of the metadata form's keys (so the form was meant)."""
    return isinstance(metadata, Mapping) and any(key in metadata for key in METADATA_KEYS)


def misplaced_handoff_key(data: Mapping[str, Any]) -> str | None:
    """The first top-level key that is hand-off metadata misspelt or in the wrong place, else None.

    Set lookups only: discovery asks this of every skill without hand-off metadata; the wording
    (and difflib's fuzzy match) is left to `did_you_mean_handoff`, called on a hit.
    """
    for key, value in data.items():
        if not isinstance(key, str) or key == "handoff" or (key == HANDOFFS_KEY and isinstance(value, list)):
            continue
        if key.lower().replace("-", "").replace("_", "").startswith("handof"):  # hand-off, Handoff, handof
            return key
        if key in HANDOFF_SUBFIELDS or key in METADATA_KEYS:
            return key
    return None


def misspelt_metadata_key(metadata: Any) -> tuple[str, str] | None:
    """(key, the metadata form's spelling) for a key under `metadata:` written with '_' or capitals."""
    if not isinstance(metadata, Mapping):
        return None
    for key in metadata:
        if isinstance(key, str) and key not in METADATA_KEYS:
            spelt = key.lower().replace("_", "-")
            if spelt in METADATA_KEYS:
                return key, spelt
    return None


def did_you_mean_handoff(key: str, value: Any) -> tuple[str, str] | None:
    """(message, hint) when `key` looks like a misplaced or misspelt `handoff:`; None otherwise."""
    import difflib  # on a hit only: discovery asks every skill, and few have a near miss (docs/architecture.md)

    squashed = key.lower().replace("-", "").replace("_", "")
    if key == "handoffs" and isinstance(value, list):
        return None  # the spec-kit / VS Code form: read as outgoing edges (reported as an extension)
    if key in METADATA_KEYS:
        return (
            f"{key!r} is a key of the metadata form written at the top level; did you mean it under 'metadata:'?",
            f'indent {key!r} under metadata: as text, e.g. metadata: {{{key}: "..."}}',
        )
    if key != "handoff" and (
        squashed in ("handoff", "handoffs") or difflib.get_close_matches(key, ["handoff"], 1, 0.8)
    ):
        return (f"unknown field {key!r}; did you mean 'handoff:'?", f"rename {key!r} to 'handoff'")
    if key in HANDOFF_SUBFIELDS:
        return (
            f"{key!r} is a hand-off field written at the top level; did you mean it under 'handoff:'?",
            f"indent {key!r} under a 'handoff:' block",
        )
    return None
