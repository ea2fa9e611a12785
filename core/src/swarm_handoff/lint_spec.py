"""The Agent Skills spec's rules for a SKILL.md frontmatter, as `skills-ref validate` applies them.

Each rule becomes a located `Problem` (the line of the key it is about). Spec findings are
warnings, or errors under `lint --strict-spec`; this project's own top-level extensions
(`handoff:`, `categories`) are reported once each as outside the spec, at info level, so that a
user sees why `agentskills validate` rejects the file without `lint` failing it. Near-misses of
`handoff:` and of the metadata form's keys get a "did you mean"; a `handoffs:` list (spec-kit,
VS Code) is a known extension, read as outgoing hand-offs.
"""

from __future__ import annotations

import difflib
import re
import unicodedata
from collections.abc import Mapping
from typing import Any

from swarm_handoff.errors import Problem, Severity
from swarm_handoff.handoff_keys import METADATA_KEYS as METADATA_FORM_KEYS
from swarm_handoff.handoff_keys import did_you_mean_handoff
from swarm_handoff.lint_strict_yaml import strict_yaml_problems
from swarm_handoff.payload.names import switched_on
from swarm_handoff.termsafe import quoted

# `lint`'s switch that makes spec findings errors, as the CLI spells it.
STRICT_OPTION = "--strict-spec"
SPEC_NAME_MISSING = "SPEC_NAME_MISSING"
SPEC_NAME_TYPE = "SPEC_NAME_TYPE"
SPEC_NAME_FORMAT = "SPEC_NAME_FORMAT"
SPEC_NAME_MISMATCH = "SPEC_NAME_MISMATCH"
SPEC_DESCRIPTION_MISSING = "SPEC_DESCRIPTION_MISSING"
SPEC_DESCRIPTION_TYPE = "SPEC_DESCRIPTION_TYPE"
SPEC_DESCRIPTION_LENGTH = "SPEC_DESCRIPTION_LENGTH"
SPEC_COMPATIBILITY = "SPEC_COMPATIBILITY"
SPEC_UNKNOWN_FIELD = "SPEC_UNKNOWN_FIELD"
SPEC_EXTENSION_FIELD = "SPEC_EXTENSION_FIELD"
SPEC_METADATA_NOT_MAPPING = "SPEC_METADATA_NOT_MAPPING"
SPEC_METADATA_VALUE = "SPEC_METADATA_VALUE"
HANDOFF_DID_YOU_MEAN = "HANDOFF_DID_YOU_MEAN"

# The spec's limits and fields (agentskills.io specification; skills-ref's validator.py).
MAX_NAME = 64
MAX_DESCRIPTION = 1024
MAX_COMPATIBILITY = 500
SPEC_FIELDS = frozenset({"name", "description", "license", "allowed-tools", "metadata", "compatibility"})
# This project's own top-level fields: known, documented, outside the spec.
EXTENSION_FIELDS = frozenset({"handoff", "categories"})
_KEY = re.compile(r"^([^\s#:'\"-][^:]*?|'[^']*'|\"[^\"]*\")\s*:(?:\s|$)")


def key_lines(text: str, first_line: int = 2) -> tuple[dict[str, int], dict[str, int]]:
    """File lines of the top-level keys and of the keys directly under `metadata:`.

    `text` is the frontmatter between the delimiters; its first line is file line `first_line`.
    """
    top: dict[str, int] = {}
    metadata: dict[str, int] = {}
    in_metadata = False
    child_indent: int | None = None
    for number, line in enumerate(text.split("\n"), start=first_line):
        stripped = line.lstrip(" ")
        if not stripped or stripped.startswith("#"):
            continue
        indent = len(line) - len(stripped)
        match = _KEY.match(stripped)
        if indent == 0:
            in_metadata = False
            if match:
                key = match.group(1).strip("'\"")
                top.setdefault(key, number)
                in_metadata = key == "metadata"
                child_indent = None
        elif in_metadata and match:
            child_indent = indent if child_indent is None else child_indent
            if indent == child_indent:
                metadata.setdefault(match.group(1).strip("'\""), number)
    return top, metadata


def _name_errors(name: str, folder: str) -> list[tuple[str, str, str]]:
    """skills-ref's name rules: NFKC, lowercase, letters/digits/hyphens, no edge or double hyphen."""
    found: list[tuple[str, str, str]] = []
    normal = unicodedata.normalize("NFKC", name.strip())
    bad_chars = not all(c.isalnum() or c == "-" for c in normal)
    if (
        len(normal) > MAX_NAME
        or normal != normal.lower()
        or normal.startswith("-")
        or normal.endswith("-")
        or "--" in normal
        or bad_chars
    ):
        found.append(
            (
                SPEC_NAME_FORMAT,
                f"name {quoted(name)} is not 1-{MAX_NAME} lowercase letters, digits and single hyphens",
                "use kebab-case, e.g. my-skill",
            )
        )
    if folder and unicodedata.normalize("NFKC", folder) != normal:
        found.append(
            (SPEC_NAME_MISMATCH, f"name {quoted(name)} differs from its folder {quoted(folder)}", "rename one to match")
        )
    return found


def spec_problems(
    data: Mapping[str, Any],
    folder: str,
    path: str,
    text: str = "",
    *,
    strict: bool = False,
    option: str = STRICT_OPTION,
) -> list[Problem]:
    """Every spec finding of one frontmatter, located by line (`text`: the raw frontmatter).

    `option` is the strict switch as the caller's interface spells it (`--strict-spec`, `strict_spec`).
    """
    top, meta_lines = key_lines(text) if text else ({}, {})
    severity = Severity.ERROR if strict else Severity.WARNING
    out: list[Problem] = []

    def add(code: str, message: str, hint: str, key: str = "", level: Severity | None = None) -> None:
        line = top.get(key) if key else None
        out.append(Problem(code, message, path=path, line=line, hint=hint, severity=level or severity))

    for key in data:
        if key in SPEC_FIELDS:
            continue
        mean = did_you_mean_handoff(key, data[key])
        if mean is not None:
            add(HANDOFF_DID_YOU_MEAN, *mean, key=key, level=Severity.WARNING)
        if key in EXTENSION_FIELDS or (key == "handoffs" and isinstance(data[key], list)):
            owner = "a spec-kit / VS Code" if key == "handoffs" else "a swarm-handoff"
            add(
                SPEC_EXTENSION_FIELD,
                f"{key!r} is {owner} extension outside the Agent Skills spec (agentskills validate rejects it)",
                f"other agents ignore it; use lint {switched_on(option)} to hold the file to the spec alone",
                key=key,
                level=Severity.ERROR if strict else Severity.INFO,
            )
        else:  # also when a did-you-mean applies: the field is still outside the spec
            add(
                SPEC_UNKNOWN_FIELD,
                f"unknown top-level field {key!r} (the spec allows {', '.join(sorted(SPEC_FIELDS))})",
                f"move it under 'metadata:' as a string, e.g. metadata: {{{key}: \"...\"}}",
                key=key,
            )
    _check_name(data, folder, add)
    _check_description(data, add)
    compatibility = data.get("compatibility")
    if "compatibility" in data and (not isinstance(compatibility, str) or len(compatibility) > MAX_COMPATIBILITY):
        what = f"{len(compatibility)} characters" if isinstance(compatibility, str) else _kind(compatibility)
        add(
            SPEC_COMPATIBILITY,
            f"compatibility must be text of at most {MAX_COMPATIBILITY} characters, not {what}",
            "describe the environment the skill needs in one short sentence",
            key="compatibility",
        )
    if "metadata" in data:
        out.extend(_metadata_problems(data["metadata"], path, top.get("metadata"), meta_lines, severity))
    if text:
        out.extend(strict_yaml_problems(text, path, strict=strict))
    return out


def _check_name(data: Mapping[str, Any], folder: str, add: Any) -> None:
    name = data.get("name")
    if "name" not in data or (isinstance(name, str) and not name.strip()):
        add(SPEC_NAME_MISSING, "no 'name' field", f"add name: {folder}", key="name")
    elif not isinstance(name, str):
        add(
            SPEC_NAME_TYPE,
            f"name must be text, not {_kind(name)} ({name!r})",
            f'write the name as text, e.g. name: "{folder}"',
            key="name",
        )
    else:
        for code, message, hint in _name_errors(name, folder):
            add(code, message, hint, key="name")


def _check_description(data: Mapping[str, Any], add: Any) -> None:
    description = data.get("description")
    if "description" not in data or description is None or (isinstance(description, str) and not description.strip()):
        add(SPEC_DESCRIPTION_MISSING, "no 'description' field", "say what the skill does and when to use it")
    elif not isinstance(description, str):
        add(
            SPEC_DESCRIPTION_TYPE,
            f"description must be text, not {_kind(description)}",
            'quote the description: description: "Use when ..."',
            key="description",
        )
    elif len(description) > MAX_DESCRIPTION:
        add(
            SPEC_DESCRIPTION_LENGTH,
            f"description is {len(description)} characters (at most {MAX_DESCRIPTION})",
            "shorten it; move details into the body",
            key="description",
        )


def _metadata_problems(
    value: Any, path: str, line: int | None, lines: Mapping[str, int], severity: Severity
) -> list[Problem]:
    """The spec's `metadata`: a mapping of string keys to string values."""
    if not isinstance(value, Mapping):
        return [
            Problem(
                SPEC_METADATA_NOT_MAPPING,
                f"metadata must be a mapping of keys to text values, not {_kind(value)}",
                path=path,
                line=line,
                hint='write metadata as indented key: "value" lines',
                severity=severity,
            )
        ]
    return [
        *_metadata_typos(value, path, lines),
        *(
            Problem(
                SPEC_METADATA_VALUE,
                f"metadata.{key} is {_kind(item)}, not text (the spec allows only string values)",
                path=path,
                line=lines.get(str(key), line),
                hint=f'quote it: {key}: "..." (a list or mapping: join it into one string)',
                severity=severity,
            )
            for key, item in value.items()
            if not isinstance(item, str)
        ),
    ]


def _metadata_typos(value: Mapping[str, Any], path: str, lines: Mapping[str, int]) -> list[Problem]:
    """Near-misses of the metadata form's keys (`accepts_from`, `handoff_categories`), with the right spelling."""
    found = []
    for key in value:
        if not isinstance(key, str) or key in METADATA_FORM_KEYS:
            continue
        close = difflib.get_close_matches(key.lower().replace("_", "-"), METADATA_FORM_KEYS, 1, 0.85)
        if close:
            found.append(
                Problem(
                    HANDOFF_DID_YOU_MEAN,
                    f"metadata.{key} is not a hand-off key; did you mean {close[0]!r}?",
                    path=path,
                    line=lines.get(key),
                    hint=f"rename it to {close[0]} (docs/handoff-metadata.md lists the keys)",
                    severity=Severity.WARNING,
                )
            )
    return found


def _kind(value: Any) -> str:
    """A user's word for a YAML value's type."""
    if isinstance(value, bool):
        return "a boolean"
    if isinstance(value, (int, float)):
        return "a number"
    if isinstance(value, list):
        return "a list"
    if isinstance(value, Mapping):
        return "a mapping"
    if isinstance(value, str):
        return "text"
    return "empty" if value is None else type(value).__name__
