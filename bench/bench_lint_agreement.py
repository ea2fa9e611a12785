"""Does `lint --strict-spec` reject what `agentskills validate` rejects, for the same reason?

Over every SKILL.md under ../shared/corpus (read at run time, never copied into the repository),
each skill folder is checked by skills-ref's validator (what `agentskills validate DIR` runs) and
by `swarm-handoff lint --strict-spec DIR`. Both verdicts are mapped onto the same rule names
(`fields`, `yaml`, `name-format`, ...) and compared three ways:

* the verdict: both reject, or both accept;
* the reason: every rule skills-ref names is among lint's error rules, each with a line where the
  rule has one (a missing field has none);
* lint's extra rules: rules skills-ref cannot see once strictyaml has refused the file (it stops
  at the first parse error), or that the spec states and skills-ref does not enforce because
  strictyaml reads every value as text (`name: 123`, a list under `metadata:`; see
  docs/discovery.md, "Where lint and skills-ref differ").

Run: `python bench/bench_lint_agreement.py` (in-process: the same functions both commands call),
or with `--cli` to run the two commands themselves, one process per skill. Results go to
bench/results/lint-agreement.json. Without ../shared/corpus or skills-ref it says so and exits 0.
"""

from __future__ import annotations

import argparse
import json
import shutil
import subprocess
import sys
from collections import Counter
from collections.abc import Iterable
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
CORPUS = ROOT.parent / "shared" / "corpus"

# skills-ref's messages (validator.py, parser.py), by their opening words, as rules.
_THEIR_RULES = (
    ("Unexpected fields in frontmatter", "fields"),
    ("Invalid YAML in frontmatter", "yaml"),
    ("SKILL.md must start with YAML frontmatter", "frontmatter"),
    ("SKILL.md frontmatter not properly closed", "frontmatter"),
    ("SKILL.md frontmatter must be a YAML mapping", "frontmatter"),
    ("Missing required field in frontmatter: name", "name-missing"),
    ("Field 'name' must be a non-empty string", "name-missing"),
    ("Missing required field in frontmatter: description", "description-missing"),
    ("Field 'description' must be a non-empty string", "description-missing"),
    ("Description exceeds", "description-length"),
    ("Directory name", "name-folder"),
    ("Skill name", "name-format"),  # length, lowercase, invalid characters
    ("Skill name cannot", "name-format"),  # hyphens
    ("Field 'compatibility'", "compatibility"),
    ("Compatibility exceeds", "compatibility"),
    ("encoding", "encoding"),  # not a message: skills-ref raises UnicodeDecodeError (see _theirs)
)
# lint's codes as the same rules. Codes not listed are hand-off findings, outside the comparison.
_OUR_RULES = {
    "SPEC_UNKNOWN_FIELD": "fields",
    "SPEC_EXTENSION_FIELD": "fields",
    "SPEC_STRICT_YAML": "yaml",
    "SKILL_UNQUOTED_COLON": "yaml",
    "SKILL_TAB_INDENT": "yaml",
    "YAML_SYNTAX": "yaml",
    "YAML_DUPLICATE_KEY": "yaml",
    "YAML_UNSAFE_TAG": "yaml",
    "YAML_TOO_DEEP": "yaml",
    "YAML_TOO_MANY_NODES": "yaml",
    "NUMBER_TOO_LONG": "yaml",
    "KEY_NOT_TEXT": "yaml",
    "SKILL_NO_FRONTMATTER": "frontmatter",
    "SKILL_FRONTMATTER_AFTER_COMMENT": "frontmatter",
    "SKILL_UNCLOSED_FRONTMATTER": "frontmatter",
    "SKILL_FRONTMATTER_TOO_LARGE": "frontmatter",
    "SKILL_NOT_MAPPING": "frontmatter",
    "SPEC_UTF8_BOM": "frontmatter",
    "NOT_UTF8": "encoding",
    "SPEC_NAME_MISSING": "name-missing",
    "SPEC_NAME_FORMAT": "name-format",
    "SPEC_NAME_MISMATCH": "name-folder",
    "SPEC_DESCRIPTION_MISSING": "description-missing",
    "SPEC_DESCRIPTION_LENGTH": "description-length",
    "SPEC_COMPATIBILITY": "compatibility",
    # The spec's rules that skills-ref does not enforce (strictyaml reads every scalar as text and
    # skills-ref turns metadata values into text): lint is stricter here, on purpose.
    "SPEC_NAME_TYPE": "name-type",
    "SPEC_DESCRIPTION_TYPE": "description-type",
    "SPEC_METADATA_VALUE": "metadata-values",
    "SPEC_METADATA_NOT_MAPPING": "metadata-values",
}
STRICTER = frozenset({"name-type", "description-type", "metadata-values"})
# Rules without a line: the field or the frontmatter is absent, or the bytes cannot be decoded.
_NO_LINE = frozenset({"name-missing", "description-missing", "frontmatter", "encoding"})


def their_rules(messages: Iterable[str]) -> set[str]:
    """skills-ref's messages as rules (an unknown message is kept whole, so it shows)."""
    rules = set()
    for message in messages:
        rule = next((r for prefix, r in _THEIR_RULES if message.startswith(prefix)), None)
        rules.add(rule or f"? {message[:60]}")
    return rules


def _theirs(folder: Path) -> list[str]:
    from skills_ref.validator import validate

    try:
        return list(validate(folder))
    except UnicodeDecodeError:  # skills-ref does not catch it; the CLI would print a traceback
        return ["encoding"]


def _ours(folder: Path) -> list[dict[str, Any]]:
    from swarm_handoff.lint import lint

    return [p.to_data() for p in lint([folder], strict_spec=True).files[0].problems]


def _theirs_cli(folder: Path) -> list[str]:
    done = subprocess.run(["agentskills", "validate", str(folder)], capture_output=True, text=True, check=False)
    if done.returncode == 0:
        return []
    if "UnicodeDecodeError" in done.stderr:
        return ["encoding"]
    return [line[4:] for line in done.stderr.splitlines() if line.startswith("  - ")]


def _ours_cli(folder: Path) -> list[dict[str, Any]]:
    cmd = ["swarm-handoff", "lint", "--strict-spec", "-f", "json", str(folder)]
    done = subprocess.run(cmd, capture_output=True, text=True, check=False)
    problems: list[dict[str, Any]] = json.loads(done.stdout)["files"][0]["problems"]
    return problems


def compare_one(folder: Path, messages: list[str], problems: list[dict[str, Any]]) -> dict[str, Any]:
    """The verdicts of one skill folder, as rules, and whether they agree."""
    errors = [p for p in problems if p.get("severity") == "error" and p["code"] in _OUR_RULES]
    ours = {_OUR_RULES[p["code"]] for p in errors}
    theirs = their_rules(messages)
    located = {_OUR_RULES[p["code"]] for p in errors if p.get("line")}
    unlocated = sorted(theirs & ours - _NO_LINE - located)
    extra = ours - theirs
    return {
        "folder": str(folder),
        "theirs": sorted(theirs),
        "ours": sorted(ours),
        "verdict_agrees": bool(theirs) == bool(ours),
        "reason_agrees": theirs <= ours,
        "unlocated": unlocated,
        # What lint adds: hidden behind skills-ref's YAML error, or a spec rule skills-ref does not enforce.
        "extra_hidden": sorted(extra - STRICTER) if "yaml" in theirs or "frontmatter" in theirs else [],
        "extra_stricter": sorted(extra & STRICTER),
        "extra_unexplained": sorted(extra - STRICTER) if not ("yaml" in theirs or "frontmatter" in theirs) else [],
    }


def corpus_folders(corpus: Path = CORPUS) -> list[Path]:
    """Every skill folder of the corpus (the folder of each SKILL.md), sorted."""
    return sorted({p.parent for p in corpus.rglob("SKILL.md")})


def compare(folders: list[Path], *, cli: bool = False) -> list[dict[str, Any]]:
    """One comparison per folder."""
    theirs, ours = (_theirs_cli, _ours_cli) if cli else (_theirs, _ours)
    return [compare_one(folder, theirs(folder), ours(folder)) for folder in folders]


def summary(rows: list[dict[str, Any]]) -> dict[str, Any]:
    """The agreement numbers docs/discovery.md quotes."""
    return {
        "files": len(rows),
        "skills_ref_rejects": sum(bool(r["theirs"]) for r in rows),
        "lint_strict_spec_rejects": sum(bool(r["ours"]) for r in rows),
        "verdict_agrees": sum(r["verdict_agrees"] for r in rows),
        "reason_agrees": sum(r["verdict_agrees"] and r["reason_agrees"] and not r["unlocated"] for r in rows),
        "lint_stricter": sum(bool(r["extra_stricter"]) for r in rows),
        "unexplained": sum(bool(r["extra_unexplained"]) for r in rows),
        "their_rules": dict(Counter(rule for r in rows for rule in r["theirs"]).most_common()),
        "our_rules": dict(Counter(rule for r in rows for rule in r["ours"]).most_common()),
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cli", action="store_true", help="run agentskills and swarm-handoff as commands")
    parser.add_argument("--corpus", type=Path, default=CORPUS)
    args = parser.parse_args(argv)
    if not args.corpus.is_dir():
        print(f"lint agreement: skipped, no corpus at {args.corpus} (the shared spec bundle beside the checkout)")
        return 0
    if (args.cli and shutil.which("agentskills") is None) or (not args.cli and _missing_skills_ref()):
        print("lint agreement: skipped, skills-ref is not installed (pip install skills-ref; Python 3.11+)")
        return 0
    rows = compare(corpus_folders(args.corpus), cli=args.cli)
    result = summary(rows)
    print(json.dumps(result, indent=2))
    for row in rows:
        if not (row["verdict_agrees"] and row["reason_agrees"]) or row["unlocated"] or row["extra_unexplained"]:
            print("disagrees:", json.dumps(row), file=sys.stderr)
    out = ROOT / "bench" / "results"
    out.mkdir(parents=True, exist_ok=True)
    (out / "lint-agreement.json").write_text(json.dumps({"summary": result, "files": rows}, indent=2) + "\n")
    return 0


def _missing_skills_ref() -> bool:
    try:
        import skills_ref.validator  # noqa: F401
    except ImportError:
        return True
    return False


if __name__ == "__main__":
    sys.exit(main())
