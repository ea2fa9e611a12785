"""The one module a plugin or skill-pack author imports: hooks, records, errors, protocols, operations.

Everything a distribution outside the core may rely on is named here, and only here; the rest of
`swarm_handoff` is the core's own business and may change in any release (a test fails when a
distribution in this repository imports anything else; tests may also use `swarm_handoff.testing`).

Names are looked up lazily (PEP 562): importing this module costs nothing, and a plugin that uses
only `hookimpl` and the records never imports the payload, history or workflow machinery. For type
checkers every name is imported for real below.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from typing import Any

    from swarm_handoff.acknowledgment import AckReport as AckReport
    from swarm_handoff.acknowledgment import acknowledge as acknowledge
    from swarm_handoff.cache import not_cacheable as not_cacheable
    from swarm_handoff.cache import read_skills as read_skills
    from swarm_handoff.cache import watch as watch
    from swarm_handoff.chains import chain_names as chain_names
    from swarm_handoff.cli.operations_cli import invoke_operation as invoke_operation
    from swarm_handoff.cli.output import check_cwd as check_cwd
    from swarm_handoff.cli.output import format_option as format_option
    from swarm_handoff.cli.output import run as run
    from swarm_handoff.cli.rank_commands import recorded_history as recorded_history
    from swarm_handoff.components import DEFAULT_PRIORITY as DEFAULT_PRIORITY
    from swarm_handoff.components import BatchScorer as BatchScorer
    from swarm_handoff.components import CachedSource as CachedSource
    from swarm_handoff.components import CheckpointGate as CheckpointGate
    from swarm_handoff.components import CliExtension as CliExtension
    from swarm_handoff.components import DiscoverySource as DiscoverySource
    from swarm_handoff.components import Document as Document
    from swarm_handoff.components import Formatter as Formatter
    from swarm_handoff.components import GatePolicy as GatePolicy
    from swarm_handoff.components import Kind as Kind
    from swarm_handoff.components import LimitedGate as LimitedGate
    from swarm_handoff.components import LocatingSource as LocatingSource
    from swarm_handoff.components import PayloadValidator as PayloadValidator
    from swarm_handoff.components import PrioritizedSource as PrioritizedSource
    from swarm_handoff.components import Register as Register
    from swarm_handoff.components import SchemaAdapter as SchemaAdapter
    from swarm_handoff.components import ScopedSource as ScopedSource
    from swarm_handoff.components import Scorer as Scorer
    from swarm_handoff.components import TextLayout as TextLayout
    from swarm_handoff.components import Transport as Transport
    from swarm_handoff.configdir import config_dir as config_dir
    from swarm_handoff.discovery import SOURCE_FAILED as SOURCE_FAILED
    from swarm_handoff.discovery import discover as discover
    from swarm_handoff.discovery import make_context as make_context
    from swarm_handoff.discovery_result import NO_SKILLS_MESSAGE as NO_SKILLS_MESSAGE
    from swarm_handoff.discovery_result import DiscoveryResult as DiscoveryResult
    from swarm_handoff.eligibility import DiscoveryQuery as DiscoveryQuery
    from swarm_handoff.eligibility import by_category as by_category
    from swarm_handoff.errors import ErrorCode as ErrorCode
    from swarm_handoff.errors import ErrorDocument as ErrorDocument
    from swarm_handoff.errors import LoadError as LoadError
    from swarm_handoff.errors import Problem as Problem
    from swarm_handoff.errors import Severity as Severity
    from swarm_handoff.errors import SwarmError as SwarmError
    from swarm_handoff.errors import UsageError as UsageError
    from swarm_handoff.errors import close_names as close_names
    from swarm_handoff.errors import did_you_mean as did_you_mean
    from swarm_handoff.errors import folder_busy as folder_busy
    from swarm_handoff.errors import situation_error as situation_error
    from swarm_handoff.errors import working_directory as working_directory
    from swarm_handoff.explain import explain as explain
    from swarm_handoff.filecache import subfolder as subfolder
    from swarm_handoff.filememo import FileMemo as FileMemo
    from swarm_handoff.handoff_edges import agent_key as agent_key
    from swarm_handoff.history import ACK_STATUSES as ACK_STATUSES
    from swarm_handoff.history import open_history as open_history
    from swarm_handoff.history_reports import HistoryReport as HistoryReport
    from swarm_handoff.history_reports import TraceReport as TraceReport
    from swarm_handoff.history_reports import history_report as history_report
    from swarm_handoff.hookspecs import hookimpl as hookimpl
    from swarm_handoff.inputs import HANDOFF_INPUTS as HANDOFF_INPUTS
    from swarm_handoff.inputs import handoff_names as handoff_names
    from swarm_handoff.inputs import spell_error as spell_error
    from swarm_handoff.inputs import surface_spelling as surface_spelling
    from swarm_handoff.lint import lint as lint
    from swarm_handoff.metadata import record_from_frontmatter as record_from_frontmatter
    from swarm_handoff.operation_table import CORE_GROUPS as CORE_GROUPS
    from swarm_handoff.operation_table import CORE_OPERATIONS as CORE_OPERATIONS
    from swarm_handoff.operation_table import DISCOVER_PAGE as DISCOVER_PAGE
    from swarm_handoff.operation_table import MAX_TOP as MAX_TOP
    from swarm_handoff.operation_table import RANKING_RULE as RANKING_RULE
    from swarm_handoff.operations import CLI as CLI
    from swarm_handoff.operations import MCP as MCP
    from swarm_handoff.operations import Group as Group
    from swarm_handoff.operations import Operation as Operation
    from swarm_handoff.operations import OperationResult as OperationResult
    from swarm_handoff.operations import Param as Param
    from swarm_handoff.pack_files import InstalledPackSkill as InstalledPackSkill
    from swarm_handoff.pack_files import installed_pack_skills as installed_pack_skills
    from swarm_handoff.parallel import MIN_PARALLEL as MIN_PARALLEL
    from swarm_handoff.parallel import jobs_from as jobs_from
    from swarm_handoff.parallel import map_chunks as map_chunks
    from swarm_handoff.payload.adapters import AdapterResult as AdapterResult
    from swarm_handoff.payload.convert import convert_payload as convert_payload
    from swarm_handoff.payload.incoming import SEND_AGAIN as SEND_AGAIN
    from swarm_handoff.payload.incoming import Incoming as Incoming
    from swarm_handoff.payload.incoming import accept_incoming as accept_incoming
    from swarm_handoff.payload.incoming import busy_refusal as busy_refusal
    from swarm_handoff.payload.incoming import not_written as not_written
    from swarm_handoff.payload.incoming import own_session_root as own_session_root
    from swarm_handoff.payload.incoming import private_folder_fault as private_folder_fault
    from swarm_handoff.payload.incoming import renamed as renamed
    from swarm_handoff.payload.leftovers import clear_leftovers as clear_leftovers
    from swarm_handoff.payload.lifecycle import HandoffOptions as HandoffOptions
    from swarm_handoff.payload.lifecycle import check_session as check_session
    from swarm_handoff.payload.lifecycle import hand_off as hand_off
    from swarm_handoff.payload.schema import type_name as type_name
    from swarm_handoff.payload.validate import load_payload as load_payload
    from swarm_handoff.payload.validate import validate_file as validate_file
    from swarm_handoff.payload.validate import validate_payload as validate_payload
    from swarm_handoff.payload.verify import require_intact as require_intact
    from swarm_handoff.payload.verify import verify_file as verify_file
    from swarm_handoff.payload_summary import PayloadSummary as PayloadSummary
    from swarm_handoff.plugins import PluginHost as PluginHost
    from swarm_handoff.plugins import get_host as get_host
    from swarm_handoff.ranking import HistoryCounts as HistoryCounts
    from swarm_handoff.ranking import RankedCandidate as RankedCandidate
    from swarm_handoff.ranking import RankingRequest as RankingRequest
    from swarm_handoff.ranking import RankingResult as RankingResult
    from swarm_handoff.ranking import choose_scorer as choose_scorer
    from swarm_handoff.ranking import rank as rank
    from swarm_handoff.ranking_options import DEFAULT_SCORER as DEFAULT_SCORER
    from swarm_handoff.ranking_options import DEFAULT_TOP as DEFAULT_TOP
    from swarm_handoff.ranking_options import MAX_REQUEST_CHARS as MAX_REQUEST_CHARS
    from swarm_handoff.records import Contribution as Contribution
    from swarm_handoff.records import DiscoveryContext as DiscoveryContext
    from swarm_handoff.records import Location as Location
    from swarm_handoff.records import Scope as Scope
    from swarm_handoff.records import SkillRecord as SkillRecord
    from swarm_handoff.records import SourceResult as SourceResult
    from swarm_handoff.render import render as render
    from swarm_handoff.reporoot import Repository as Repository
    from swarm_handoff.reporoot import find_repository as find_repository
    from swarm_handoff.request_words import synthesis_from_request as synthesis_from_request
    from swarm_handoff.request_words import synthesis_or_request as synthesis_or_request
    from swarm_handoff.request_words import words_or_synthesis as words_or_synthesis
    from swarm_handoff.safefs import FolderBusy as FolderBusy
    from swarm_handoff.safefs import atomic_write as atomic_write
    from swarm_handoff.safefs import lock_descriptor as lock_descriptor
    from swarm_handoff.safefs import locked as locked
    from swarm_handoff.safefs import temp_name as temp_name
    from swarm_handoff.scopes import OVERLAY as OVERLAY
    from swarm_handoff.scopes import SHADOW as SHADOW
    from swarm_handoff.scopes import ScopeSpec as ScopeSpec
    from swarm_handoff.session_life import parse_duration as parse_duration
    from swarm_handoff.skillmd import SKILL_NOT_A_FILE as SKILL_NOT_A_FILE
    from swarm_handoff.skillmd import SKILL_SYMLINK_LOOP as SKILL_SYMLINK_LOOP
    from swarm_handoff.skillmd import UNREADABLE as UNREADABLE
    from swarm_handoff.skillmd import Frontmatter as Frontmatter
    from swarm_handoff.skillmd import irregular_file as irregular_file
    from swarm_handoff.skillmd import load_skill_md as load_skill_md
    from swarm_handoff.skillmd import load_skill_resource as load_skill_resource
    from swarm_handoff.skillmd import plain as plain
    from swarm_handoff.skillmd import stat_problem as stat_problem
    from swarm_handoff.skilltrust import SKILLS_OWNER_UNTRUSTED as SKILLS_OWNER_UNTRUSTED
    from swarm_handoff.skillwalk import SkillsPlace as SkillsPlace
    from swarm_handoff.skillwalk import Walked as Walked
    from swarm_handoff.skillwalk import walk_skills as walk_skills
    from swarm_handoff.synthesis import Synthesis as Synthesis
    from swarm_handoff.synthesis import load_synthesis as load_synthesis
    from swarm_handoff.synthesis import parse_synthesis as parse_synthesis
    from swarm_handoff.termsafe import UNSAFE_MULTI_LINE as UNSAFE_MULTI_LINE
    from swarm_handoff.termsafe import escape_controls as escape_controls
    from swarm_handoff.termsafe import escape_data as escape_data
    from swarm_handoff.termsafe import escape_undecodable as escape_undecodable
    from swarm_handoff.termsafe import quoted as quoted
    from swarm_handoff.textfile import DOCUMENT_MAX_BYTES as DOCUMENT_MAX_BYTES
    from swarm_handoff.textfile import NOT_A_REGULAR_FILE as NOT_A_REGULAR_FILE
    from swarm_handoff.textfile import NOT_UTF8 as NOT_UTF8
    from swarm_handoff.textfile import YAML_TOO_LARGE as YAML_TOO_LARGE
    from swarm_handoff.textfile import read_regular as read_regular
    from swarm_handoff.textfile import read_text as read_text
    from swarm_handoff.textviews.discovery import problem_line as problem_line
    from swarm_handoff.tracing import TRACEPARENT as TRACEPARENT
    from swarm_handoff.tracing import trace_context as trace_context
    from swarm_handoff.tracing import trace_span as trace_span
    from swarm_handoff.transport import RemoteDelivery as RemoteDelivery
    from swarm_handoff.transport import RemoteSkill as RemoteSkill
    from swarm_handoff.undeclared import rank_candidates as rank_candidates
    from swarm_handoff.undeclared import undeclared_candidates as undeclared_candidates
    from swarm_handoff.undeclared import with_undeclared as with_undeclared
    from swarm_handoff.workflow import AgentRole as AgentRole
    from swarm_handoff.workflow import Arg as Arg
    from swarm_handoff.workflow import Dispatch as Dispatch
    from swarm_handoff.workflow import NextCommand as NextCommand
    from swarm_handoff.workflow import Outcome as Outcome
    from swarm_handoff.workflow import Resource as Resource
    from swarm_handoff.workflow import StepContext as StepContext
    from swarm_handoff.workflow import StepDef as StepDef
    from swarm_handoff.workflow import StepDocument as StepDocument
    from swarm_handoff.workflow import Workflow as Workflow
    from swarm_handoff.workflow import generate_cases as generate_cases
    from swarm_handoff.workflow import load_registry as load_registry
    from swarm_handoff.workflow import run_workflow as run_workflow
    from swarm_handoff.workflow import transitions as transitions
    from swarm_handoff.workflow.dispatch_document import DispatchDocument as DispatchDocument
    from swarm_handoff.workflow.params import coerce_state as coerce_state
    from swarm_handoff.workflow.protocol import render_step as render_step
    from swarm_handoff.workflow.protocol import step_command as step_command
    from swarm_handoff.workflow.registry import get_registry as get_registry
    from swarm_handoff.workflow.resources import SessionResources as SessionResources
    from swarm_handoff.workflow.types import FAIL as FAIL
    from swarm_handoff.workflow.types import PASS as PASS
    from swarm_handoff.workflow.types import StepResult as StepResult
    from swarm_handoff.yamlio import YAML_TOO_DEEP as YAML_TOO_DEEP
    from swarm_handoff.yamlio import check_events as check_events
    from swarm_handoff.yamlio import check_size as check_size
    from swarm_handoff.yamlio import load_file as load_file
    from swarm_handoff.yamlio import parse_yaml as parse_yaml
    from swarm_handoff.yamlout import portable_yaml as portable_yaml
    from swarm_handoff.yamlrules import check_nesting as check_nesting


# name -> the module that defines it. Grouped as docs/hooks.md presents them.
_EXPORTS: dict[str, str] = {
    # writing a plugin: the marker, the component kinds and what each kind provides
    "hookimpl": "swarm_handoff.hookspecs",
    "Kind": "swarm_handoff.components",
    "Register": "swarm_handoff.components",
    "Document": "swarm_handoff.components",
    "DiscoverySource": "swarm_handoff.components",
    "Scorer": "swarm_handoff.components",
    "BatchScorer": "swarm_handoff.components",
    "PayloadValidator": "swarm_handoff.components",
    "SchemaAdapter": "swarm_handoff.components",
    "Formatter": "swarm_handoff.components",
    "ScopedSource": "swarm_handoff.components",
    "TextLayout": "swarm_handoff.components",
    "GatePolicy": "swarm_handoff.components",
    "CliExtension": "swarm_handoff.components",
    "Transport": "swarm_handoff.components",
    "PluginHost": "swarm_handoff.plugins",
    "get_host": "swarm_handoff.plugins",
    # optional capabilities, each checked with isinstance where the host uses it
    "PrioritizedSource": "swarm_handoff.components",
    "DEFAULT_PRIORITY": "swarm_handoff.components",
    "LimitedGate": "swarm_handoff.components",
    "CheckpointGate": "swarm_handoff.components",
    # records that flow from discovery to ranking to the hand-off
    "SkillRecord": "swarm_handoff.records",
    "Scope": "swarm_handoff.records",
    "ScopeSpec": "swarm_handoff.scopes",
    "SHADOW": "swarm_handoff.scopes",
    "OVERLAY": "swarm_handoff.scopes",
    "DiscoveryContext": "swarm_handoff.records",
    "SourceResult": "swarm_handoff.records",
    "Contribution": "swarm_handoff.records",
    "Location": "swarm_handoff.records",
    # what a transport answers (`handoff --to URL`, docs/a2a.md)
    "RemoteSkill": "swarm_handoff.transport",
    "RemoteDelivery": "swarm_handoff.transport",
    # `ack` on every surface: record the acknowledgment, then tell the transports
    "acknowledge": "swarm_handoff.acknowledgment",
    "AckReport": "swarm_handoff.acknowledgment",
    # optional source capabilities: cached answers and `why` (docs/plugin-guide-source.md)
    "CachedSource": "swarm_handoff.components",
    "LocatingSource": "swarm_handoff.components",
    "watch": "swarm_handoff.cache",
    "not_cacheable": "swarm_handoff.cache",
    "read_skills": "swarm_handoff.cache",
    # the one walker of skill folders: repository root, trust, one rule per entry (docs/plugin-guide-source.md)
    "SkillsPlace": "swarm_handoff.skillwalk",
    "walk_skills": "swarm_handoff.skillwalk",
    "Walked": "swarm_handoff.skillwalk",
    "find_repository": "swarm_handoff.reporoot",
    "Repository": "swarm_handoff.reporoot",
    "SKILLS_OWNER_UNTRUSTED": "swarm_handoff.skilltrust",
    # a plugin's own per-file results, kept across runs while each file is unchanged (a scorer's analyses)
    "FileMemo": "swarm_handoff.filememo",
    # a plugin's own folder in the user cache folder, reached and checked as the core's stores are
    "subfolder": "swarm_handoff.filecache",
    # errors
    "Problem": "swarm_handoff.errors",
    "Severity": "swarm_handoff.errors",
    "ErrorCode": "swarm_handoff.errors",
    "ErrorDocument": "swarm_handoff.errors",
    "SwarmError": "swarm_handoff.errors",
    "UsageError": "swarm_handoff.errors",
    "close_names": "swarm_handoff.errors",
    "did_you_mean": "swarm_handoff.errors",
    "folder_busy": "swarm_handoff.errors",
    "situation_error": "swarm_handoff.errors",
    "working_directory": "swarm_handoff.errors",
    # spans (OpenTelemetry's, when the process uses it) and the trace context a hand-off carries on
    "trace_span": "swarm_handoff.tracing",
    "TRACEPARENT": "swarm_handoff.tracing",  # the one W3C traceparent parser (ids never all zeros)
    "trace_context": "swarm_handoff.tracing",
    "SOURCE_FAILED": "swarm_handoff.discovery",
    "SKILL_NOT_A_FILE": "swarm_handoff.skillmd",
    "SKILL_SYMLINK_LOOP": "swarm_handoff.skillmd",
    "UNREADABLE": "swarm_handoff.skillmd",
    "DOCUMENT_MAX_BYTES": "swarm_handoff.textfile",
    "NOT_A_REGULAR_FILE": "swarm_handoff.textfile",
    "NOT_UTF8": "swarm_handoff.textfile",
    "YAML_TOO_LARGE": "swarm_handoff.textfile",
    # reading skills and YAML safely (limits, located errors)
    "Frontmatter": "swarm_handoff.skillmd",
    "load_skill_md": "swarm_handoff.skillmd",
    "load_skill_resource": "swarm_handoff.skillmd",
    "plain": "swarm_handoff.skillmd",
    "stat_problem": "swarm_handoff.skillmd",
    "irregular_file": "swarm_handoff.skillmd",
    "record_from_frontmatter": "swarm_handoff.metadata",
    "installed_pack_skills": "swarm_handoff.pack_files",
    "InstalledPackSkill": "swarm_handoff.pack_files",
    "agent_key": "swarm_handoff.handoff_edges",
    "LoadError": "swarm_handoff.errors",
    "check_events": "swarm_handoff.yamlio",
    "check_nesting": "swarm_handoff.yamlrules",
    "check_size": "swarm_handoff.yamlio",
    "YAML_TOO_DEEP": "swarm_handoff.yamlio",
    "load_file": "swarm_handoff.yamlio",
    "read_regular": "swarm_handoff.textfile",
    "read_text": "swarm_handoff.textfile",
    "parse_yaml": "swarm_handoff.yamlio",
    "portable_yaml": "swarm_handoff.yamlout",
    # writing files safely and printing untrusted text
    "atomic_write": "swarm_handoff.safefs",
    "locked": "swarm_handoff.safefs",
    "lock_descriptor": "swarm_handoff.safefs",
    "temp_name": "swarm_handoff.safefs",
    "FolderBusy": "swarm_handoff.safefs",
    "escape_controls": "swarm_handoff.termsafe",
    "escape_data": "swarm_handoff.termsafe",
    "escape_undecodable": "swarm_handoff.termsafe",
    "quoted": "swarm_handoff.termsafe",
    "problem_line": "swarm_handoff.textviews.discovery",
    "UNSAFE_MULTI_LINE": "swarm_handoff.termsafe",
    # scanning many files in parallel (forked workers, bounded by SWARM_HANDOFF_JOBS and idle CPUs)
    "map_chunks": "swarm_handoff.parallel",
    "jobs_from": "swarm_handoff.parallel",
    "MIN_PARALLEL": "swarm_handoff.parallel",
    # the operations table: every command declared once, each surface derived from it
    "Operation": "swarm_handoff.operations",
    "CLI": "swarm_handoff.operations",
    "MCP": "swarm_handoff.operations",
    "Param": "swarm_handoff.operations",
    "OperationResult": "swarm_handoff.operations",
    "Group": "swarm_handoff.operations",
    "CORE_OPERATIONS": "swarm_handoff.operation_table",
    "CORE_GROUPS": "swarm_handoff.operation_table",
    "DISCOVER_PAGE": "swarm_handoff.operation_table",
    "MAX_TOP": "swarm_handoff.operation_table",
    "RANKING_RULE": "swarm_handoff.operation_table",
    # operations: the Python API that the CLI and the MCP server share
    "discover": "swarm_handoff.discovery",
    "make_context": "swarm_handoff.discovery",
    "config_dir": "swarm_handoff.configdir",
    "DiscoveryResult": "swarm_handoff.discovery_result",
    "DiscoveryQuery": "swarm_handoff.eligibility",
    "by_category": "swarm_handoff.eligibility",
    "NO_SKILLS_MESSAGE": "swarm_handoff.discovery_result",
    "explain": "swarm_handoff.explain",
    "lint": "swarm_handoff.lint",
    "rank": "swarm_handoff.ranking",
    "choose_scorer": "swarm_handoff.ranking",
    "synthesis_from_request": "swarm_handoff.request_words",
    "synthesis_or_request": "swarm_handoff.request_words",
    "words_or_synthesis": "swarm_handoff.request_words",
    "RankingRequest": "swarm_handoff.ranking",
    "RankingResult": "swarm_handoff.ranking",
    "RankedCandidate": "swarm_handoff.ranking",
    "HistoryCounts": "swarm_handoff.ranking",
    "DEFAULT_SCORER": "swarm_handoff.ranking_options",
    "DEFAULT_TOP": "swarm_handoff.ranking_options",
    "MAX_REQUEST_CHARS": "swarm_handoff.ranking_options",
    "chain_names": "swarm_handoff.chains",
    "with_undeclared": "swarm_handoff.undeclared",
    "rank_candidates": "swarm_handoff.undeclared",
    "undeclared_candidates": "swarm_handoff.undeclared",
    "Synthesis": "swarm_handoff.synthesis",
    "load_synthesis": "swarm_handoff.synthesis",
    "parse_synthesis": "swarm_handoff.synthesis",
    "hand_off": "swarm_handoff.payload.lifecycle",
    "HandoffOptions": "swarm_handoff.payload.lifecycle",
    "check_session": "swarm_handoff.payload.lifecycle",
    "parse_duration": "swarm_handoff.session_life",
    "type_name": "swarm_handoff.payload.schema",
    "HANDOFF_INPUTS": "swarm_handoff.inputs",
    "handoff_names": "swarm_handoff.inputs",
    "spell_error": "swarm_handoff.inputs",
    "surface_spelling": "swarm_handoff.inputs",
    "require_intact": "swarm_handoff.payload.verify",
    # taking in a payload that arrived from another machine (the A2A plugin's receiver)
    "accept_incoming": "swarm_handoff.payload.incoming",
    "busy_refusal": "swarm_handoff.payload.incoming",
    "not_written": "swarm_handoff.payload.incoming",
    "SEND_AGAIN": "swarm_handoff.payload.incoming",
    "renamed": "swarm_handoff.payload.incoming",
    "clear_leftovers": "swarm_handoff.payload.leftovers",
    "own_session_root": "swarm_handoff.payload.incoming",
    "private_folder_fault": "swarm_handoff.payload.incoming",
    "Incoming": "swarm_handoff.payload.incoming",
    "load_payload": "swarm_handoff.payload.validate",
    "validate_file": "swarm_handoff.payload.validate",
    "validate_payload": "swarm_handoff.payload.validate",
    "convert_payload": "swarm_handoff.payload.convert",
    "verify_file": "swarm_handoff.payload.verify",
    "PayloadSummary": "swarm_handoff.payload_summary",
    "AdapterResult": "swarm_handoff.payload.adapters",
    "open_history": "swarm_handoff.history",
    "HistoryReport": "swarm_handoff.history_reports",
    "history_report": "swarm_handoff.history_reports",
    "TraceReport": "swarm_handoff.history_reports",
    "ACK_STATUSES": "swarm_handoff.history",
    "render": "swarm_handoff.render",
    # workflows as data
    "Workflow": "swarm_handoff.workflow",
    "StepDef": "swarm_handoff.workflow",
    "StepContext": "swarm_handoff.workflow",
    "Outcome": "swarm_handoff.workflow",
    "Arg": "swarm_handoff.workflow",
    "AgentRole": "swarm_handoff.workflow",
    "Dispatch": "swarm_handoff.workflow",
    "StepResult": "swarm_handoff.workflow.types",
    "PASS": "swarm_handoff.workflow.types",
    "FAIL": "swarm_handoff.workflow.types",
    "coerce_state": "swarm_handoff.workflow.params",
    "render_step": "swarm_handoff.workflow.protocol",
    "step_command": "swarm_handoff.workflow.protocol",
    "get_registry": "swarm_handoff.workflow.registry",
    "SessionResources": "swarm_handoff.workflow.resources",
    "StepDocument": "swarm_handoff.workflow",
    "NextCommand": "swarm_handoff.workflow",
    "Resource": "swarm_handoff.workflow",
    "load_registry": "swarm_handoff.workflow",
    "run_workflow": "swarm_handoff.workflow",
    "transitions": "swarm_handoff.workflow",
    "generate_cases": "swarm_handoff.workflow",
    "DispatchDocument": "swarm_handoff.workflow.dispatch_document",
    # CLI extensions: the helpers core commands use, so a plugin's commands behave the same
    "run": "swarm_handoff.cli.output",
    "invoke_operation": "swarm_handoff.cli.operations_cli",
    "format_option": "swarm_handoff.cli.output",
    "check_cwd": "swarm_handoff.cli.output",
    "recorded_history": "swarm_handoff.cli.rank_commands",
}

__all__ = sorted(_EXPORTS)


def __getattr__(name: str) -> Any:
    """Import a name's home module on first use, so a plugin pays only for what it touches."""
    home = _EXPORTS.get(name)
    if home is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(importlib.import_module(home), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    """List the public names, for completion in editors and `help()`."""
    return __all__
