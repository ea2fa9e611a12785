"""With the core alone, every document a command prints has a layout of its own in `swarm_handoff.textviews`.

The document kinds are found by importing every module of the core and collecting the classes that
declare a `kind`, so a new kind without a layout (or without a sample here) fails this test.
"""

from __future__ import annotations

import importlib
import pkgutil
from collections.abc import Callable
from typing import Any, ClassVar

import pytest

import swarm_handoff
from swarm_handoff import textviews
from swarm_handoff.acknowledgment import AckReport
from swarm_handoff.api import TextLayout, render
from swarm_handoff.cli.session_commands import SessionDocument
from swarm_handoff.cli.workflow_documents import (
    WorkflowCheckDocument,
    WorkflowGraphDocument,
    WorkflowListDocument,
    WorkflowShowDocument,
)
from swarm_handoff.components import Kind
from swarm_handoff.demo import DemoReport
from swarm_handoff.discovery import DiscoveryResult, Shadowed
from swarm_handoff.errors import ErrorCode, Problem, Severity, SwarmError
from swarm_handoff.explain import WhyReport
from swarm_handoff.history import HandoffRow
from swarm_handoff.history_reports import HistoryReport, TraceReport
from swarm_handoff.lint import LintReport
from swarm_handoff.payload.adapters import AdapterResult
from swarm_handoff.payload.health import HealthResult
from swarm_handoff.payload.integrity import FileCheck
from swarm_handoff.payload.lifecycle import HandoffResult
from swarm_handoff.payload.validate import ValidationReport
from swarm_handoff.payload.verify import VerifyReport
from swarm_handoff.payload_summary import PayloadSummary
from swarm_handoff.plugins import ComponentRef, LoadFailure, PluginInfo, PluginsReport
from swarm_handoff.ranking import RankedCandidate, RankingRequest, RankingResult
from swarm_handoff.records import Contribution, SkillRecord
from swarm_handoff.session_gc import GcReport, Kept
from swarm_handoff.session_life import CloseReport
from swarm_handoff.synthesis import parse_synthesis
from swarm_handoff.textviews import plain_text
from swarm_handoff.transport import RemoteDiscovery, RemoteSkill
from swarm_handoff.workflow import AgentRole, Dispatch, Outcome, StepDef, Workflow, render_step
from swarm_handoff.workflow.dispatch_document import DispatchDocument

# A kind whose layout prints, line for line, what the generic tree printed before it had one: the
# golden files (tests/golden/) pin those bytes, and the tree is already the page people read there.
SAME_AS_TREE = {"workflow-check", "workflow-graph"}


def document_kinds() -> dict[str, str]:
    """Every document kind the core defines, found by importing each of its modules: kind -> class."""
    kinds: dict[str, str] = {}
    for info in pkgutil.walk_packages(swarm_handoff.__path__, "swarm_handoff."):
        if info.name == "swarm_handoff.__main__":
            continue
        module = importlib.import_module(info.name)
        for value in vars(module).values():
            kind = vars(value).get("kind") if isinstance(value, type) else None
            if isinstance(kind, str) and value.__module__ == info.name and callable(getattr(value, "to_data", None)):
                kinds[kind] = f"{info.name}.{value.__qualname__}"
    return kinds


def _ok(ctx: Any) -> Any:
    return Outcome.OK, {}


FLOW = Workflow(
    "notes",
    StepDef("draft", "Draft", ["Write it"], _ok, {Outcome.OK: "review"}),
    StepDef(
        "review",
        "Review",
        ["Read it"],
        Dispatch(AgentRole.QUALITY_REVIEWER, prompt="Review the draft"),
        {Outcome.OK: None, Outcome.FAIL: "draft"},
    ),
    description="Write and review notes.",
)

WRITER = SkillRecord(
    name="writer",
    scope="project",
    source="folders",
    path="skills/writer/SKILL.md",
    description="Writes notes",
    categories=("writing",),
)
PROBLEM = Problem("MISSING_FIELD", "context.problem_type is required", path="p.yaml", line=3, hint="add it")
ROW = HandoffRow(
    id=7,
    created_at="2026-01-01T00:00:00Z",
    payload_path="/s/handoff.yaml",
    payload_hash="ab" * 32,
    version="2.0",
    source="swarm",
    target="writer",
    workflow_id=None,
    session_path="/s",
    status="processed",
    updated_at="2026-01-01T00:05:00Z",
)
HANDOFF = HandoffResult(
    target="writer",
    version="2.0",
    payload_path="/s/handoff.yaml",
    invocation="/writer /s/handoff.yaml",
    payload_hash="ab" * 32,
    payload_size_bytes=512,
    dropped=("insights.divergent",),
    notes=("written atomically",),
    warnings=(Problem("LOOP", "writer was already in the chain", severity=Severity.WARNING),),
    health_check=HealthResult(command="true", ok=True, returncode=0, output="fine\nall good\n"),
    history_id=7,
)
VERIFY = VerifyReport(
    path="/s/handoff.yaml",
    version="2.0",
    payload_hash="ab" * 32,
    computed_hash="ab" * 32,
    payload_size_bytes=512,
    computed_size=512,
    expires_at="2026-01-01T01:00:00Z",
    expired=False,
    checked_at="2026-01-01T00:10:00Z",
    files=(FileCheck("side", "notes.md", "cd" * 32, "cd" * 32),),
)
SYNTHESIS = parse_synthesis(
    {
        "original_prompt": "write the notes",
        "problem_type": "creative",
        "synthesis_summary": "Short notes win.",
        "key_uncertainties": ["tone"],
        "research_seeds": {"suggested_terms": [{"term": "changelog"}], "open_questions": ["who reads them?"]},
    }
)
RANKING = RankingResult(
    scorer="swarm-v2",
    scorer_distribution="swarm-handoff-core",
    request=RankingRequest(synthesis=SYNTHESIS),
    ranked=(
        RankedCandidate(
            rank=1,
            label="C",
            record=WRITER,
            total=5,
            contributions=(Contribution("category", 5, "fits"),),
        ),
    ),
)
DISCOVERY = DiscoveryResult(workflows=(WRITER,), shadowed=(Shadowed(WRITER, WRITER),), scanned=1, show_all=True)
STEP = render_step(FLOW, "draft", {}, {})
REVIEW = render_step(FLOW, "review", {}, {})


def _plugins() -> PluginsReport:
    info = PluginInfo("formatters", "swarm-handoff-formatters", "0.1.0", "m", False, ("swarm_handoff_formatters",))
    ref = ComponentRef(Kind.FORMATTER, "xml", "formatters", "swarm-handoff-formatters", "XML")
    failure = LoadFailure("broken", "swarm-handoff-broken", "0.0.1", "PLUGIN_LOAD_FAILED", "ImportError", "reinstall")
    return PluginsReport(core_version="0.1.0", plugins=(info,), components=(ref,), failures=(failure,), skipped=())


SAMPLES: dict[str, Callable[[], Any]] = {
    "discovery": lambda: DISCOVERY,
    "why": lambda: WhyReport("writer", "chosen", ({"scope": "project", "where": "skills", "status": "chosen"},)),
    "lint": lambda: LintReport((WRITER,)),
    "remote-discovery": lambda: RemoteDiscovery(
        "http://build-host:8470/", (RemoteSkill(id="writer", description="Writes.\nTwo lines.", tags=("docs",)),)
    ),
    "ranking": lambda: RANKING,
    "synthesis": lambda: SYNTHESIS,
    "handoff": lambda: HANDOFF,
    "payload-summary": lambda: PayloadSummary.of({"context": {"problem_type": "creative"}}, path="p.yaml"),
    "verification": lambda: VERIFY,
    "validation": lambda: ValidationReport(version="2.0", problems=(PROBLEM,), validators=("core",), path="p.yaml"),
    "conversion": lambda: AdapterResult(
        source_version="2.0", target_version="3.0", payload={"a": {"b": "two\nlines"}}, dropped=("x",)
    ),
    "acknowledgment": lambda: AckReport(handoff=ROW),
    "history": lambda: HistoryReport(handoffs=(ROW,), skill="writer", problems=(PROBLEM,)),
    "trace": lambda: TraceReport(trace_id="0123456789abcdef", hops=(ROW,)),
    "workflow-step": lambda: STEP,
    "dispatch": lambda: DispatchDocument.from_step(REVIEW),
    "workflow-list": lambda: WorkflowListDocument(
        ({"name": "notes", "description": "d", "steps": 2, "distribution": "x", "version": "1"},)
    ),
    "workflow-show": lambda: WorkflowShowDocument(
        {"name": "notes", "description": "d", "params": [], "steps": []},
    ),
    "workflow-check": lambda: WorkflowCheckDocument(("notes",), cases_run=True),
    "workflow-graph": lambda: WorkflowGraphDocument("notes", "mermaid", "flowchart TD\n  draft --> review\n"),
    "session": lambda: SessionDocument("/tmp/swarm-session-1", "review"),
    "session-close": lambda: CloseReport(session="/tmp/s", closed_at="2026-01-01T00:00:00Z", forced=False),
    "session-gc": lambda: GcReport(
        root="/tmp", older_than_seconds=60.0, dry_run=True, removed=("/tmp/a",), kept=(Kept("/tmp/b", "open"),)
    ),
    "demo": lambda: DemoReport(
        session="/tmp/s", discovery=DISCOVERY, ranking=RANKING, handoff=HANDOFF, verification=VERIFY, first_step=STEP
    ),
    "plugins": _plugins,
    "error": lambda: SwarmError(ErrorCode.INVALID_PAYLOAD, "bad", problems=(PROBLEM,)).to_document(),
}


def test_every_document_kind_of_the_core_has_a_layout_and_a_sample():
    kinds = document_kinds()
    assert "ranking" in kinds
    assert "workflow-step" in kinds
    missing = {kind: where for kind, where in kinds.items() if kind not in textviews.LAYOUTS}
    assert not missing, f"add a layout to swarm_handoff.textviews.LAYOUTS for {missing}"
    assert set(SAMPLES) == set(kinds), "add a sample document for the new kind above"
    assert set(textviews.LAYOUTS) == set(kinds), "a layout names a kind the core no longer defines"


@pytest.mark.parametrize("kind", sorted(SAMPLES))
def test_with_the_core_alone_each_document_prints_its_own_layout(kind, swarm_host, monkeypatch):
    document = SAMPLES[kind]()
    assert document.kind == kind

    def no_tree(document: Any) -> str:
        raise AssertionError(f"{document.kind} fell back to the generic key/value tree")

    monkeypatch.setattr(textviews, "generic_text", no_tree)
    assert swarm_host.components(Kind.FORMATTER)["text"].distribution == "swarm-handoff-core"
    text = render(document, "text", swarm_host)
    assert text.endswith("\n")
    assert text.strip()
    if kind not in SAME_AS_TREE:
        assert text != plain_text(document.to_data())


def test_rank_with_the_core_alone_prints_the_menu(swarm_host):
    text = render(RANKING, "text", swarm_host)
    assert text.splitlines()[0].startswith("Hand-off targets (problem_type creative), ranked by swarm-v2")
    assert "(C) [writing] writer - Writes notes" in text


class Custom:
    """A plugin's document: a kind the core has never heard of, with its own layout."""

    kind: ClassVar[str] = "custom-report"

    def to_data(self) -> dict[str, Any]:
        return {"count": 2}

    def to_text(self) -> str:
        return "2 things \x1b[2J counted\n"


class Bare(Custom):
    kind: ClassVar[str] = "bare-report"
    to_text = None  # type: ignore[assignment]


def test_a_plugin_document_brings_its_layout_as_to_text_and_it_is_escaped(swarm_host):
    assert isinstance(Custom(), TextLayout)
    assert render(Custom(), "text", swarm_host) == "2 things \\x1b[2J counted\n"


def test_a_kind_without_any_layout_still_prints_its_data_as_a_tree(swarm_host):
    assert not isinstance(Bare(), TextLayout)
    assert render(Bare(), "text", swarm_host) == "count: 2\n"


def test_a_host_without_the_builtins_prints_the_same_layouts():
    from swarm_handoff.plugins import ENV_LOAD, build_host

    bare = build_host({ENV_LOAD: ""}, builtins=False)
    assert "text" not in bare.components(Kind.FORMATTER)
    assert render(RANKING, "text", bare) == textviews.TextFormatter().render(RANKING)


@pytest.mark.parametrize("kind", ["discovery", "lint", "why"])
def test_the_core_documents_have_no_to_text_of_their_own(kind):
    """Their layouts live in `textviews` only: the one-release `to_text()` shims are gone."""
    document = SAMPLES[kind]()
    assert not hasattr(document, "to_text")
    assert render(document, "text") == textviews.TextFormatter().render(document)


def test_discover_and_demo_lists_cut_a_long_description_to_one_line():
    """Issue 26: a 600-character description printed whole in `discover`; JSON keeps it whole."""
    from swarm_handoff.discovery import DiscoveryResult
    from swarm_handoff.records import SkillRecord
    from swarm_handoff.textviews.discovery import discovery_text

    long = "Audits API changes for breaking shapes and missing docs. " * 10
    record = SkillRecord(name="auditor", scope="project", source="t", description=long, path="a/SKILL.md")
    result = DiscoveryResult(workflows=(record,), scanned=1)
    [line] = [line for line in discovery_text(result).splitlines() if line.startswith("auditor")]
    assert len(line) <= 160, line
    assert line.endswith("...")
    assert result.to_data()["workflows"][0]["description"] == long


def test_the_session_layouts_do_not_load_the_demo():
    # `session`, `session close` and `session gc` print through textviews.commands; the demo's layout
    # lives there too, and the demo module pulls in the whole hand-off and ranking stack.
    import json
    import subprocess
    import sys

    code = (
        "import sys, json; import swarm_handoff.textviews.commands;"
        " print(json.dumps([m for m in ('swarm_handoff.demo', 'swarm_handoff.payload.lifecycle') if m in sys.modules]))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert json.loads(out) == []
