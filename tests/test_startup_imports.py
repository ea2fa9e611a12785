"""What the CLI imports on its cold path: pinned by module name, never by wall-clock time.

Start-up time is dominated by imports, and an import that creeps back (a pack building its
workflow at import time, a command module importing its engine at the top) would go unnoticed in
a timed benchmark's noise. Each test runs one command in a fresh interpreter, with every cache
off, and lists `sys.modules` at the end. The suite runs with the example packs and plugins
installed, so discovery really imports the packs' entry-point modules.
"""

from __future__ import annotations

import importlib.util
import json
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

RUN = """
import json, sys
from swarm_handoff.cli.entry import main
try:
    main(sys.argv[2:])
except SystemExit:
    pass
with open(sys.argv[1], "w") as out:
    json.dump(sorted(sys.modules), out)
"""

# Imported by none of the commands below: the workflow engine (the packs fetch WORKFLOW on first
# use), xml.etree (through the workflow relay), the ranking engine and the payload checker (their
# commands import them when run).
NEVER_ON_DISCOVER = {
    "swarm_handoff.workflow",
    "swarm_handoff.workflow.exhaustive",
    "swarm_handoff.workflow.protocol",
    "swarm_handoff.workflow.runner",
    "swarm_handoff.workflow.model",
    "swarm_handoff_qr.gates",
    "xml.etree.ElementTree",
    "swarm_handoff.ranking",
    "swarm_handoff.synthesis",
    "swarm_handoff.payload.verify",
    "swarm_handoff.explain",
    "logging",
}
PACK_MODULES = {
    "swarm_pack_research.evidence_review",
    "swarm_pack_implementation.implement_change",
    "swarm_handoff_example_think.workflow",
}


def imported(tmp_path: Path, *args: str, cache: bool = False) -> tuple[set[str], str]:
    """Run `swarm-handoff ARGS` in a fresh interpreter (with no cache unless `cache`); its modules and its stdout."""
    env = {k: v for k, v in os.environ.items() if not k.startswith(("SWARM_HANDOFF_", "CLAUDE_"))}
    home = tmp_path / "home"
    home.mkdir(exist_ok=True)
    env.update(HOME=str(home), XDG_CACHE_HOME=str(tmp_path / "cache"))
    if not cache:
        env["SWARM_HANDOFF_NO_CACHE"] = "1"
    listing = tmp_path / "modules.json"
    done = subprocess.run(
        [sys.executable, "-c", RUN, str(listing), *args], capture_output=True, text=True, env=env, check=False
    )
    assert done.returncode == 0, done.stderr
    return set(json.loads(listing.read_text(encoding="utf-8"))), done.stdout


@pytest.fixture
def project(tmp_path: Path) -> Path:
    skill = tmp_path / "project" / ".claude" / "skills" / "summarise"
    skill.mkdir(parents=True)
    (skill / "SKILL.md").write_text(
        "---\nname: summarise\ndescription: Summarise a document.\n"
        "handoff:\n  accepts_handoff: true\n  handoff_categories: [writing]\n"
        "  handoff_description: Summarise what it is handed\n---\n# Summarise\n",
        encoding="utf-8",
    )
    return tmp_path / "project"


def test_discover_imports_the_packs_but_not_their_workflows(tmp_path, project):
    modules, stdout = imported(tmp_path, "discover", "--cwd", str(project), "--format", "json")
    names = {w["skill"] for w in json.loads(stdout)["workflows"]}
    assert "summarise" in names
    installed = {m for m in PACK_MODULES if importlib.util.find_spec(m.split(".")[0]) is not None}
    if not installed:
        pytest.skip("no example skill pack is installed in this environment")
    assert installed <= modules  # discovery did import each installed pack's entry-point module
    assert modules & NEVER_ON_DISCOVER == set()
    assert not _opentelemetry(modules)  # its spans start only where OpenTelemetry is already in use


def _opentelemetry(modules: set[str]) -> list[str]:
    """The OpenTelemetry modules loaded: none on the cold path (the core's spans never import it)."""
    return sorted(m for m in modules if m == "opentelemetry" or m.startswith("opentelemetry."))


def test_a_discover_after_a_change_parses_no_unchanged_skill_again(tmp_path, project):
    """Warm caches but a changed tree: only what changed is read, so no YAML parser is imported.

    The installed packs' SKILL.md files go through the same parse memo as the project's skills
    (they were once parsed on every run whose whole answer could not be reused, importing ruamel.yaml).
    """
    an_hour_ago = time.time() - 3600  # older than the racy window: the first run may remember them
    for path in (project / ".claude" / "skills" / "summarise" / "SKILL.md", project / ".claude" / "skills"):
        os.utime(path, (an_hour_ago, an_hour_ago))
    args = ("discover", "--cwd", str(project), "--format", "json")
    first, stdout = imported(tmp_path, *args, cache=True)
    assert "ruamel.yaml" in first  # the first run parses
    (project / ".claude" / "skills" / "notes.txt").write_text("not a skill\n", encoding="utf-8")
    again, stdout_again = imported(tmp_path, *args, cache=True)
    assert json.loads(stdout_again)["workflows"] == json.loads(stdout)["workflows"]
    assert {w["skill"] for w in json.loads(stdout)["workflows"]} >= {"summarise", "evidence-review"}
    assert not again & {"ruamel.yaml", "_ruamel_yaml"}, sorted(again & {"ruamel.yaml", "_ruamel_yaml"})


def test_the_workflow_package_imports_its_parts_on_first_use(tmp_path):
    code = (
        "import sys, swarm_handoff.workflow as w; before = sorted(m for m in sys.modules if m.startswith(w.__name__));"
        " w.StepDef; print(before, 'swarm_handoff.workflow.exhaustive' in sys.modules, w.run_case.__module__)"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout.split()
    assert out == ["['swarm_handoff.workflow']", "False", "swarm_handoff.workflow.exhaustive"]


PLUGIN_STACK = {"typer", "click", "pluggy", "attrs", "ruamel.yaml", "importlib_metadata"}


def test_version_imports_no_plugin_stack(tmp_path: Path) -> None:
    """`--version` is answered before typer, pluggy, attrs or YAML are imported (start-up is the whole cost)."""
    modules, out = imported(tmp_path, "--version")
    assert out == f"swarm-handoff {swarm_version()}\n"
    assert not modules & PLUGIN_STACK, sorted(modules & PLUGIN_STACK)
    assert not _opentelemetry(modules)


def test_version_verbose_says_which_yaml_parser_runs(tmp_path: Path) -> None:
    """`--version --verbose` names the YAML parser discovery uses (C or pure) and the parallel scan's jobs."""
    modules, out = imported(tmp_path, "--version", "--verbose")
    kind = "C" if importlib.util.find_spec("_ruamel_yaml") is not None else "pure"
    assert f"yaml parser: {kind} (" in out
    assert "parallel scan: " in out
    assert not modules & {"typer", "click", "pluggy", "attrs"}


def swarm_version() -> str:
    from swarm_handoff import __version__

    return __version__


@pytest.mark.parametrize("command", ["discover", "history", "validate", "verify", "rank"])
def test_a_command_that_reaches_no_other_host_imports_no_transport(tmp_path, project, command):
    """`handoff --to`, `rank --remote` and `discover --remote` import the transport; nothing else pays for it.

    Measured (docs/architecture.md): 3.5-9 ms of `validate`/`verify`, 4-12 ms of `discover`, and
    with `swarm_handoff.inputs` 6-13 ms of `history`, on the shared 2-core machine.
    """
    payload = tmp_path / "payload.json"
    payload.write_text("{}\n", encoding="utf-8")
    args = {
        "discover": ("discover", "--cwd", str(project), "-f", "json"),
        "history": ("history", "-f", "json"),
        "validate": ("validate", str(payload)),
        "verify": ("verify", str(payload)),
        "rank": ("rank", "--request", "summarise this document", "--cwd", str(project), "-f", "json"),
    }[command]
    modules, _ = imported(tmp_path, *args)
    ran = {"discover": "discovery_commands", "rank": "rank_commands"}.get(command, "handoff_commands")
    assert f"swarm_handoff.cli.{ran}" in modules  # the command did run its module
    assert "swarm_handoff.transport" not in modules


# Modules only one command's body needs: `--help` (and so every command that does not run that
# body) builds the app from the operation rows without them.
NEVER_ON_HELP = {
    "swarm_handoff_router.answer",  # `route`'s document and ranking: the row names its body as "module:function"
    "swarm_handoff.records",  # the skill records: discovery, ranking and the core's scorers, built on first use
    "swarm_handoff.pack_entries",  # loading skill packs: discovery's `packs` source and the `plugins` report
    "swarm_handoff_a2a.auth",  # tokens (attrs classes): the a2a rows hold the two facts their options show
    "swarm_handoff.jsonout",  # the json module and its escape pattern: only a command that writes JSON
    "swarm_handoff_registry.commands",  # the registry commands' bodies and document: their rows are apart
}


def test_help_imports_no_commands_body(tmp_path: Path) -> None:
    """`--help` lists every command from the rows; the modules of a command's body load when it runs."""
    modules, out = imported(tmp_path, "--help", cache=True)
    assert "Commands" in out
    assert not modules & NEVER_ON_HELP, sorted(modules & NEVER_ON_HELP)
