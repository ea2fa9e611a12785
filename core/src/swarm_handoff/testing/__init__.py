"""The `swarm_handoff.testing` pytest plugin: fixtures for plugin and skill-pack authors.

It is registered through the `pytest11` entry point, so installing swarm-handoff-core makes the
fixtures available in any test suite. Importing it is cheap; typer is imported only by the CLI
fixture. The fixtures live by concept in `hosts` (the plugin host and the CLI on it), `files`
(what a test writes on disk) and `workflows`; every name is importable from here.

Fixtures:
    swarm_host        an isolated plugin host with only the core's built-ins (no entry points)
    make_swarm_host   build a host that loads only the named entry-point plugins
    register_plugin   register a throwaway plugin object in the current host for one test
    register_source   register a throwaway discovery source answering given records
    skill_tree        write `.claude/skills/<name>/SKILL.md` folders under `tmp_path`
    temp_home         a HOME, Claude config folder and cache folder of the test's own, as an env mapping
    swarm_cli         run the `swarm-handoff` CLI in-process against the current host
    use_workflows     make the workflow commands see exactly the given workflows
    spans             OpenTelemetry's in-memory exporter, emptied (skips without the SDK)

Helpers for source authors:
    write_skill(folder, name, text)   write `folder/<name>/SKILL.md`, eligible for hand-off

Helpers for skill-pack authors (exhaustive workflow tests):
    workflow_cases(workflow)          one `pytest.param` per (step, parameters) with a readable id
    run_workflow_case(workflow, case) run the real step protocol for a case and check its commands
"""

from __future__ import annotations

from swarm_handoff.testing.files import (
    HANDOFF_SKILL,
    SkillTree,
    TempHome,
    reseal,
    skill_tree,
    temp_home,
    trust_fresh_files,
    write_skill,
)
from swarm_handoff.testing.hosts import (
    CliResult,
    FakeDistributions,
    fake_distributions,
    make_swarm_host,
    register_plugin,
    register_source,
    swarm_cli,
    swarm_host,
)
from swarm_handoff.testing.traces import spans
from swarm_handoff.testing.workflows import run_workflow_case, use_workflows, workflow_cases

__all__ = [
    "HANDOFF_SKILL",
    "CliResult",
    "FakeDistributions",
    "SkillTree",
    "TempHome",
    "fake_distributions",
    "make_swarm_host",
    "register_plugin",
    "register_source",
    "reseal",
    "run_workflow_case",
    "skill_tree",
    "spans",
    "swarm_cli",
    "swarm_host",
    "temp_home",
    "trust_fresh_files",
    "use_workflows",
    "workflow_cases",
    "write_skill",
]
