"""Golden files: every document kind in text, xml and json, pinned; docs/output.md is built from them.

Regenerate after an intended change with `SWARM_HANDOFF_REGEN_GOLDEN=1 pytest tests/test_output_golden.py`
(it rewrites tests/golden/ and docs/output.md); then review the diff like any other change.
"""

from __future__ import annotations

import json
import os
import xml.etree.ElementTree as ET
from pathlib import Path
from typing import Any

import attrs
import pytest

from swarm_handoff.cli.workflow_commands import show_operation
from swarm_handoff.cli.workflow_documents import WorkflowCheckDocument, WorkflowGraphDocument, WorkflowListDocument
from swarm_handoff.components import Kind
from swarm_handoff.discovery import DiscoveryResult, Shadowed
from swarm_handoff.errors import ErrorCode, Problem, Severity, SwarmError
from swarm_handoff.payload_summary import PayloadSummary
from swarm_handoff.plugins import (
    ComponentRef,
    LoadFailure,
    PackSkill,
    PluginInfo,
    PluginsReport,
    SkippedPlugin,
    get_host,
)
from swarm_handoff.ranking import RankedCandidate, RankingRequest, RankingResult
from swarm_handoff.records import Contribution, SkillRecord
from swarm_handoff.synthesis import parse_synthesis
from swarm_handoff.workflow import AgentRole, Dispatch, Outcome, Resource, StepContext, StepDef, Workflow, render_step
from swarm_handoff.workflow.dispatch_document import DispatchDocument

qr_gates = pytest.importorskip("swarm_handoff_qr.gates", reason="the QR samples need the swarm-handoff-qr plugin")

ROOT = Path(__file__).resolve().parents[1]
GOLDEN = Path(__file__).resolve().parent / "golden"
DOC = ROOT / "docs" / "output.md"
FORMATS = ("text", "xml", "json")
REGENERATE = os.environ.get("SWARM_HANDOFF_REGEN_GOLDEN") == "1"

REVIEW = qr_gates.GateConfig(qr_name="Draft review", work_step="draft", pass_step="publish", self_fix=True)


def _ok(ctx: StepContext) -> tuple[Outcome, dict[str, Any]]:
    return Outcome.OK, {}


DEMO = Workflow(
    "release-notes",
    StepDef(
        "draft",
        "Draft the release notes",
        ["Collect the merged changes since the last tag", "Group them by user-visible effect"],
        _ok,
        {Outcome.OK: "scan"},
        phase="write",
        banner=qr_gates.fix_banner(REVIEW),
        expected=("a draft with one line per change",),
    ),
    StepDef(
        "scan",
        "Scan for breaking changes",
        ["Run the scanner over the diff"],
        Dispatch(AgentRole.EXPLORE, script="scripts/scan_breaking.py", state_prefix="scan"),
        {Outcome.OK: "review", Outcome.FAIL: "draft"},
    ),
    qr_gates.gate_step("review", REVIEW, actions=["Give the reviewer the draft and the change list"]),
    StepDef("publish", "Publish", ["Post the notes"], next={Outcome.OK: None}),
    qr_gates.ask_user_step(REVIEW),
    description="Write release notes, check them for breaking changes, and review them before publishing.",
)


def _record(name: str, scope: str, **fields: Any) -> SkillRecord:
    return SkillRecord(name=name, scope=scope, source="folders", **fields)


def samples() -> dict[str, Any]:
    """Build one document per kind (several for the step layouts); everything here is fixed data."""
    failed = {"qr_iteration": 2, "qr_failed": True, "qr_status": "fail"}
    review = render_step(DEMO, "review", {}, failed)
    scan = render_step(DEMO, "scan", {}, {})
    embedded = attrs.evolve(
        render_step(DEMO, "publish", {}, {"qr_iteration": 2, "qr_status": "pass"}),
        resources=(Resource("changelog-style", "# Style\n\n- one line per change\n", "package", "conventions"),),
    )
    writer = _record(
        "release-writer",
        "project",
        path=".claude/skills/release-writer/SKILL.md",
        description="Writes release notes from a change list",
        categories=("writing", "release"),
        requires=("context.original_prompt",),
        meta={"estimated_duration": "minutes"},
    )
    auditor = _record("api-auditor", "global", description="Audits API changes", categories=("review",))
    old = _record("release-writer", "global", description="An older copy")
    synthesis = parse_synthesis({"original_prompt": "write the notes", "problem_type": "creative"})
    request = RankingRequest(synthesis=synthesis, chain=("perspective-swarm",))
    ranked = (
        RankedCandidate(
            rank=1,
            label="C",
            record=writer,
            total=7.5,
            contributions=(
                Contribution("category", 5, "category 'writing' fits creative work"),
                Contribution("scope", 2.5, "project skills come first"),
            ),
        ),
        RankedCandidate(
            rank=2, label="D", record=auditor, total=1, contributions=(Contribution("scope", 1, "global"),)
        ),
    )
    error = SwarmError(
        ErrorCode.INVALID_PAYLOAD,
        "the payload is not valid",
        details={"path": "handoff.yaml"},
        hint="fix the fields below and run the command again",
        problems=(Problem("MISSING_FIELD", "context.problem_type is required", path="handoff.yaml", line=3),),
    )
    payload = {
        "protocol_version": "2.0",
        "context": {"original_prompt": "write the notes", "problem_type": "documentation"},
        "insights": {"key_findings": ["two breaking changes"]},
        "handoff_chain": ["perspective-swarm"],
    }
    plugins = PluginsReport(
        core_version="0.1.0",
        plugins=(
            PluginInfo(
                "formatters",
                "swarm-handoff-formatters",
                "0.1.0",
                "swarm_handoff_formatters.plugin",
                False,
                ("swarm_handoff_formatters",),
            ),
            PluginInfo(
                "qr", "swarm-handoff-qr", "0.1.0", "swarm_handoff_qr.plugin", False, ("swarm_handoff_qr_gates",)
            ),
        ),
        components=(
            ComponentRef(Kind.FORMATTER, "xml", "formatters", "swarm-handoff-formatters", "well-formed XML for agents"),
            ComponentRef(Kind.QR_GATE, "default", "qr", "swarm-handoff-qr", "iter 1-2 block all"),
        ),
        failures=(
            LoadFailure(
                "broken",
                "swarm-handoff-broken",
                "0.0.1",
                "PLUGIN_LOAD_FAILED",
                "ImportError: no module",
                "reinstall it",
            ),
            LoadFailure(
                "notes",
                "swarm-pack-notes",
                "0.2.0",
                "PACK_LOAD_FAILED",
                "ModuleNotFoundError: No module named 'notes_pack'",
                "fix or uninstall swarm-pack-notes, or set SWARM_HANDOFF_DISABLE_PLUGINS=notes",
                "pack",
            ),
        ),
        skipped=(SkippedPlugin("old", "swarm-handoff-old", "0.0.1", "disabled by SWARM_HANDOFF_DISABLE"),),
        packs=(
            PackSkill(
                "evidence-review",
                "swarm-pack-research",
                "0.1.0",
                "swarm_pack_research.evidence_review",
                ("skill", "workflow"),
            ),
        ),
    )
    return {
        "step-linear": render_step(DEMO, "draft", {}, {}),
        "step-fix-banner": render_step(DEMO, "draft", {}, failed),
        "step-branch-script-dispatch": scan,
        "step-qr-gate": review,
        "step-terminal-with-resource": embedded,
        "step-ask-user": render_step(DEMO, "ask-user", {}, {"qr_iteration": 6, "qr_failed": True, "qr_status": "fail"}),
        "dispatch-script": DispatchDocument.from_step(scan),
        "dispatch-free-form": DispatchDocument.from_step(review),
        "discovery": DiscoveryResult(
            workflows=(writer, auditor),
            ineligible=(_record("notes", "global", eligible=False, description="Plain notes"),),
            shadowed=(Shadowed(old, writer),),
            problems=(
                Problem("YAML_SYNTAX", "bad indentation", path="skills/x/SKILL.md", line=4, severity=Severity.WARNING),
            ),
            scanned=5,
            show_all=True,
        ),
        "ranking": RankingResult(
            scorer="default",
            scorer_distribution="swarm-handoff-core",
            request=request,
            ranked=ranked,
            explain=True,
        ),
        "payload-summary": PayloadSummary.of(payload, path="handoff.yaml"),
        "error": error.to_document(),
        "plugins": plugins,
        "workflow-list": WorkflowListDocument(
            (
                {
                    "name": "release-notes",
                    "description": DEMO.description,
                    "steps": 5,
                    "distribution": "demo",
                    "version": "1.0",
                },
            )
        ),
        "workflow-show": show_operation(get_host(), name="release-notes", project=ROOT),
        "workflow-check": WorkflowCheckDocument(("release-notes",), cases_run=True),
        "workflow-graph": WorkflowGraphDocument("release-notes", "mermaid", "flowchart TD\n  draft --> scan\n"),
    }


@pytest.fixture
def sample_docs(make_swarm_host, use_workflows) -> dict[str, Any]:
    """The samples, built with only the QR and formatter plugins loaded and the demo workflow registered."""
    make_swarm_host(["qr", "formatters"])
    use_workflows(DEMO)
    return samples()


@pytest.fixture
def rendered(sample_docs, monkeypatch) -> dict[tuple[str, str], str]:
    """Render every sample in every format with the formatters a user would get (JSON as at a terminal)."""
    from swarm_handoff.plugins import get_host

    monkeypatch.setenv("SWARM_HANDOFF_JSON_INDENT", "2")  # readable golden files; compact JSON is tested below
    formatters = {fmt: get_host().get(Kind.FORMATTER, fmt) for fmt in FORMATS}
    return {(name, fmt): formatters[fmt].render(doc) for name, doc in sample_docs.items() for fmt in FORMATS}


def _golden_path(name: str, fmt: str) -> Path:
    return GOLDEN / f"{name}.{'txt' if fmt == 'text' else fmt}"


def test_every_document_matches_its_golden_file(rendered):
    if REGENERATE:
        GOLDEN.mkdir(exist_ok=True)
        for (name, fmt), text in rendered.items():
            _golden_path(name, fmt).write_text(text, encoding="utf-8")
    mismatched = [
        f"{name}.{fmt}"
        for (name, fmt), text in rendered.items()
        if not _golden_path(name, fmt).is_file() or _golden_path(name, fmt).read_text(encoding="utf-8") != text
    ]
    assert not mismatched, f"output changed for {mismatched}; rerun with SWARM_HANDOFF_REGEN_GOLDEN=1 if intended"


def test_json_is_compact_for_programs_and_carries_the_same_data(sample_docs, monkeypatch):
    """Piped JSON (not a terminal) is one compact line from the C encoder, with the golden file's data."""
    from swarm_handoff.plugins import get_host

    monkeypatch.delenv("SWARM_HANDOFF_JSON_INDENT", raising=False)
    formatter = get_host().get(Kind.FORMATTER, "json")
    for name, doc in sample_docs.items():
        text = formatter.render(doc)  # pytest captures stdout: not a terminal
        assert text.count("\n") == 1, name
        assert json.loads(text) == json.loads(_golden_path(name, "json").read_text(encoding="utf-8")), name


def test_every_golden_file_belongs_to_a_sample(rendered):
    expected = {_golden_path(name, fmt).name for name, fmt in rendered}
    assert {p.name for p in GOLDEN.iterdir()} == expected


def test_every_xml_golden_is_well_formed_with_the_document_kind(rendered):
    for (name, fmt), text in rendered.items():
        if fmt == "xml":
            root = ET.fromstring(text)
            assert root.tag == "swarm-handoff", name


def test_the_sample_set_covers_every_document_kind_the_formatters_lay_out(sample_docs):
    # Every kind with an XML layout is pinned here in both formats; every core kind's text layout is
    # also checked with the core alone in core/tests/test_text_layouts.py.
    from swarm_handoff_formatters.xml_layouts import LAYOUTS

    kinds = {doc.kind for doc in sample_docs.values()}
    assert set(LAYOUTS) <= kinds


INTRO = """# Output formats

Every command prints one *document*; `--format` picks how. `json` and `yaml` come from the core and
carry the document's data exactly. JSON is indented (two spaces) when stdout is a terminal and
compact (one line, no spaces after `,` and `:`) otherwise, for pipes and programs: compact JSON is
written by Python's C encoder, several times faster on large answers; `SWARM_HANDOFF_JSON_INDENT=N`
forces N spaces of indentation (`0`: compact) either way. The JSON examples below are shown indented.
`text` (for people, the default) is the core's too, and `xml` (for agents) comes from the
`swarm-handoff-formatters` plugin.

## Where the text layouts live

Every human layout lives in one place, the core's `swarm_handoff.textviews` package: its `LAYOUTS`
table maps each document kind (`discovery`, `ranking`, `workflow-step`, `handoff`, `history`, ...)
to the function that lays it out, grouped in modules by subject (`discovery.py`, `ranking.py`,
`workflow.py`, `payloads.py`, `commands.py`, `reports.py`). So every command prints the same
readable page with the core alone as with every plugin installed, and a test
(`core/tests/test_text_layouts.py`) finds every document kind the core defines and fails when one
has no layout. Most layouts read the document's data after every string in it has been escaped; a
few read the document itself and escape each field as they go.

A plugin that prints a document of its own kind adds its layout as a `to_text()` method on the
document, the optional capability `swarm_handoff.api.TextLayout`:

```python
from typing import Any, ClassVar

from swarm_handoff.api import TextLayout, render


class SyncReport:
    # a plugin's document: what its command wrote

    kind: ClassVar[str] = "example-sync"

    def __init__(self, path: str, skills: int) -> None:
        self.path, self.skills = path, skills

    def to_data(self) -> dict[str, Any]:
        return {"written": self.path, "skills": self.skills}

    def to_text(self) -> str:  # what `--format text` prints for this kind
        return f"wrote {self.path} ({self.skills} skills)\\n"


assert isinstance(SyncReport("registry.yaml", 3), TextLayout)
assert render(SyncReport("registry.yaml", 3), "text") == "wrote registry.yaml (3 skills)\\n"
```

The text formatter uses the core's layout for the core's kinds, else the document's `to_text()`,
else, for a kind with no layout at all, an indented `key: value` tree of its data (a string with
line breaks becomes a block under `key: |`). `text` cannot be replaced by a plugin (the core
registers it first, so a plugin's `text` is reported as `PLUGIN_NAME_CONFLICT`); a plugin that wants
a different rendering of every document registers a formatter under a name of its own, as `xml`
does. (The `to_text()` methods `DiscoveryResult` and the `lint` and `why` documents once had are
gone: `render(document, "text")` gives the same text.)

The YAML reads the same in every YAML reader, YAML 1.1 ones (PyYAML and most tools agents use)
included: a string that a YAML 1.1 or 1.2 reader would turn into something else when written plain
(`yes`, `no`, `on`, `off`, `y`, `n`, `~`, `null`, `1:20`, `0755`, `0o17`, `0x1F`, `1e3`, `1_000`,
`.inf`, `2026-01-01`, `=`, `<<`, ...) is quoted, text holding characters some readers fold or refuse
(NEL, line/paragraph separators, a BOM, control characters) is double-quoted with escapes, and floats
carry a dot before their exponent (`1.0e+16`; YAML 1.1 reads `1e+16` as a string). Every YAML file
the tool writes for others follows the same rules (`swarm_handoff.yamlout`): payloads, the session
file (`available-workflows.yaml`), `rank --session` and the registry written by `registry sync`.

The XML is always well formed. Element and attribute names are fixed by the formatter; every value
from a skill, a workflow or a payload is escaped, and text that XML 1.0 cannot carry at all (most
control characters) is written as a JSON string with `encoding="json"` (for attributes,
`NAME-encoding="json"`), so it reads back exactly. `swarm_handoff_formatters.xml.decode_text()` and
`decode_attribute()` undo that for tools.

## Terminal safety

Skills come from repositories other people wrote and payloads from other agents, so what the tool
prints must not be able to drive the terminal it is printed on (retitle it, clear it, forge lines,
reorder text with bidi overrides). The `text` format, and every warning and error on stderr, show
the characters a terminal may act on as visible escapes: C0 controls (`\\x1b`, `\\x07`, `\\r`, ...),
DEL and the C1 controls (`\\x7f`, `\\x9b`), the bidi embeddings, overrides and isolates
(`\\u202a`-`\\u202e`, `\\u2066`-`\\u2069`), the line separators `\\u2028`/`\\u2029`, and
undecodable bytes of file names (`\\xff`, see below). One helper does it,
`swarm_handoff.termsafe.escape_controls`, and each field is escaped as one of two kinds:

- **One-line fields** lose their line breaks and tabs too (`\\n`, `\\t`), so one value is always one
  line: names, descriptions, categories, paths and folder names, messages and hints, previews.
- **Multi-line bodies** keep `\\n` and tabs and lose everything else: a workflow step's actions,
  an embedded resource's text and a sub-agent's prompt (keys `actions`, `text`, `prompt`), and the
  tool's own multi-line advice. In the generic layout, a string with line breaks is written as a
  block under `key: |`, every line indented, so none of its lines passes for a key.

After the layout, the whole page is escaped once more (keeping its line breaks), so a `to_text()`
a plugin writes is covered as well. Backslashes are not escaped (Windows paths stay readable), so a
description holding the four characters `\\x1b` looks like an escaped ESC: the exact value is in
`--format json`.

`json`, `yaml` and `xml` carry the exact values. JSON escapes C0 controls itself; the JSON formatter
also writes DEL, C1, bidi controls and line separators as `\\uXXXX`, which read back as the same
characters. YAML escapes every non-printable character in double quotes (`"\\e]0;..."`); bidi
controls and line separators are printable to YAML and stay raw there. XML writes any string
holding a character XML 1.0 cannot carry, or a DEL, C1, bidi or line-separator character, as a
JSON string with `encoding="json"` (see above): still well formed, exact after `decode_text()`,
and plain ASCII.

### Names that are not UTF-8

On Linux a folder name is bytes, and a skill folder may hold a byte that is not UTF-8 (`0xff`);
Python reads it as a lone surrogate (U+DCFF), which no UTF-8 writer accepts, and which JSON
could only spell `"\\udcff"`, an escape strict readers refuse (serde_json rejects the whole
document, Go and jq turn it into U+FFFD). So every format, and the YAML files the tool writes
(the session file), write such a byte as the four characters `\\xff` (in JSON the string
`"bad\\\\xffname"`, whose value is `bad\\xffname`): output is always valid UTF-8 that every
reader reads, and the escape names the byte on disk. To get the name back, replace each `\\xNN`
by the byte `0xNN`; in Python,
`re.sub(r"\\\\x([89a-f][0-9a-f])", lambda m: chr(0xDC00 + int(m[1], 16)), value)` gives the name
`os.listdir` gives. A name that really holds the four characters `\\x` and two hex digits reads
the same, which is the price of text every reader takes. Any other lone surrogate (only a JSON
input's `\\ud800` gives one) is written as the text `\\ud800`. Such a skill is listed with
`SKILL_NAME_NOT_UTF8` and takes no hand-off: no payload, session file or other agent could name it
(Node reads the byte as U+FFFD); rename the folder.

On a stdout whose encoding lacks a character (`LANG=C`, a Windows code page), the character is
escaped in a way the format reads back (`\\u00e9` in JSON, `&#233;` in XML, `\\xe9` in text) rather
than the command failing.

A document holding a value nested deeper than a formatter can walk (every formatter recurses;
hundreds of levels) is reported as `OUTPUT_TOO_DEEP` in the requested format, never as a Python
traceback. Any other unexpected exception is `INTERNAL_ERROR` (exit 1), with a hint to report it;
`SWARM_HANDOFF_DEBUG=1` adds the traceback on stderr.

## The workflow step in XML

- `<step_header>`: skill (the workflow), step number, total, title, id and phase.
- `<state_banner>`: where a loop stands (shown on a work step re-entered after a failed review).
- `<qr_banner>`: at a quality-review checkpoint, the three pillars: `<state_banner>`,
  `<stop_condition>` (which severities block this round) and `<reverify>` (fresh-review mode from
  the second round on). See [QR gates](qr-gates.md).
- `<DO>`: the actions, numbered.
- `<subagent_dispatch>`: the agent role and the mode, `script` (follow a script) or `free-form`
  (a prompt).
- `<resource>`, `<forbidden>`, `<expected_output>`, `<params>`, `<state>`.
- Routing: `<NEXT>` when the agent runs the next command itself, `<INVOKE_AFTER>` when a sub-agent
  does the work and its verdict picks the command. `routing="linear"` holds one `<command>`;
  `routing="branch"` holds one `<if>` per outcome (for instance `if-pass` and `if-fail`), each
  with the `<when>` values that select it; `routing="terminal"` holds `<complete/>`.

The examples below are the project's golden files (`tests/golden/`); a test keeps this page equal
to them.
"""


def output_doc(rendered: dict[tuple[str, str], str], kinds: dict[str, str]) -> str:
    """Build docs/output.md: each sample in text and in XML."""
    parts = [INTRO]
    names = list(dict.fromkeys(name for name, _ in rendered))
    for name in names:
        kind = kinds[name]
        parts.append(f"\n## {name} (`{kind}`)\n")
        parts.append("Text:\n\n````text\n" + rendered[(name, "text")] + "````\n")
        parts.append("\nXML:\n\n````xml\n" + rendered[(name, "xml")] + "````\n")
    return "".join(parts)


def test_docs_output_page_shows_every_golden_document(rendered, sample_docs):
    expected = output_doc(rendered, {name: doc.kind for name, doc in sample_docs.items()})
    if REGENERATE:
        DOC.write_text(expected, encoding="utf-8")
    assert DOC.read_text(encoding="utf-8") == expected, "docs/output.md is stale; regenerate the golden files"
