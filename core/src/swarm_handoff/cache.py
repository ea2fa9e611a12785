"""Discovery's one caching layer: sources say what they read, the core decides what is kept and reused.

Sources never touch a cache. While discovery runs a source, the layer records an observation of
every file or folder the source `watch`es (`filecache.observe`: mtime, size, inode, device and
ctime, taken *before* the source reads it), and `read_skills` turns SKILL.md files into records
through the *parse memo* (a `FileMemo`: each file's record, valid while its observation is the
same), so a changed tree re-parses only the files that changed. When every source is a
`CachedSource` (components.py) and none called `not_cacheable`, the merged answer is stored in the
*result store*, keyed by the working directory, the config folder, the installed sources, each
source's `cache_key(context)` and `sys.path`, and reused only while a fresh observation of every
recorded input is the same (a skill folder added or removed changes its parent's mtime; an edit in
place changes the file's mtime or, put back, its ctime).

The racy-timestamp rule lives in `filecache` and only there: nothing resting on an input changed
less than `filecache.RACY_NS` before discovery began is stored (the answer is given, just not kept).

Both stores live in the checked cache folder (`filecache.cache_folder`: the user's own, 0700), are
`marshal`ed plain data written atomically (a corrupt or foreign file is ignored and rewritten) and
are bounded: the memo by entries and bytes (`FileMemo`), the result store by files and bytes
(`filecache.prune`), least recently used first. `SWARM_HANDOFF_NO_CACHE=1` turns both off.
"""

from __future__ import annotations

import contextlib
import contextvars
import os
import sys
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from swarm_handoff import __version__, filecache, parallel, skillmd
from swarm_handoff.components import CachedSource, Kind
from swarm_handoff.discovery_result import DiscoveryResult, Shadowed
from swarm_handoff.errors import Problem, Severity
from swarm_handoff.filecache import ENV_NO_CACHE, atomic_write, digest, dump, inputs_unchanged, load, no_gc
from swarm_handoff.filememo import FileMemo, Observation
from swarm_handoff.isolation import quiet
from swarm_handoff.metadata import record_from_frontmatter
from swarm_handoff.records import DiscoveryContext, Scope, SkillRecord

if TYPE_CHECKING:
    from swarm_handoff.plugins import PluginHost

__all__ = ["ENV_NO_CACHE", "ParseIndex", "ResultCache", "atomic_write", "inputs_unchanged", "no_gc"]

Inputs = list[Observation]

# Whole answers: one per (working directory, config folder, sources, environment) seen lately.
# A 10,000-skill answer takes ~3 MB; the bound keeps the folder well under 50 MB at that size.
MAX_RESULTS = 64
MAX_RESULT_BYTES = 20 * 1024 * 1024


def problem_to_state(p: Problem) -> tuple[Any, ...]:
    """A problem as a marshal-able tuple."""
    return (p.code, p.message, p.path, p.line, p.column, p.hint, p.severity.value)


def problem_from_state(t: Sequence[Any]) -> Problem:
    """Rebuild a problem from `problem_to_state`."""
    return Problem(t[0], t[1], path=t[2], line=t[3], column=t[4], hint=t[5], severity=Severity(t[6]))


# -- what sources call (through swarm_handoff.api) ------------------------------------------------


class _Run:
    """What the layer learns while discovery runs: each input's first stat, and whether to keep the answer."""

    def __init__(self, memo: ParseIndex | None, env: Mapping[str, str]) -> None:
        self.memo = memo
        self.env = env
        self.seen: dict[str, Observation] = {}  # path -> its observation before it was read
        self.cacheable = True


_current: contextvars.ContextVar[_Run | None] = contextvars.ContextVar("swarm_handoff_cache_run", default=None)


def watch(path: str | os.PathLike[str]) -> os.stat_result | None:
    """Stat a file or folder the answer depends on, before reading it; None when it is absent.

    While discovery runs, the layer keeps this first observation as one of the answer's inputs, so
    a later edit (or the place appearing) invalidates the stored answer. Outside discovery it is a
    plain `os.stat`. Call it from the thread that runs `discover`.
    """
    text = os.fspath(path)
    try:
        st: os.stat_result | None = os.stat(text)
    except (OSError, ValueError):
        st = None
    run = _current.get()
    if run is not None and text not in run.seen:
        run.seen[text] = (text, *filecache.stat_of(st))
    return st


def not_cacheable(reason: str) -> None:
    """Say that this run's answer must not be stored (a timed-out tool, code that failed to import).

    `reason` is for people reading the code; the answer is still given, only never reused.
    """
    run = _current.get()
    if run is not None:
        run.cacheable = False


def read_skills(
    files: Sequence[tuple[str, str, Scope]],
    *,
    source: str,
    jobs: int | None = None,
    min_parallel: int | None = None,
    checked: Mapping[str, tuple[int, int]] | None = None,
) -> list[SkillRecord]:
    """Each `(SKILL.md path, skill name, scope)` as a record from `source`, in order; never raises.

    `checked` maps a path to the (device, inode) its owner was judged on (the walker's): a file
    parsed now must still be that one (see `textfile.open_regular`).

    Each file is `watch`ed (unless the source already did), and while discovery runs an unchanged
    file's record comes from the parse memo. Files to parse go to `jobs` processes when there are
    at least `min_parallel` of them (default `parallel.MIN_PARALLEL`; `jobs` defaults to
    `SWARM_HANDOFF_JOBS`, else the idle CPUs).
    """
    run = _current.get()
    memo = run.memo if run is not None else None
    if jobs is None:
        jobs = parallel.jobs_from(run.env if run is not None else os.environ)
    out: list[SkillRecord | None] = []
    misses: list[tuple[int, str, str, Scope, Observation]] = []
    with no_gc():  # thousands of small acyclic objects: the collector would only rescan them
        for place, (path, name, scope) in enumerate(files):
            seen = run.seen.get(path) if run is not None else None
            if seen is None:
                seen = (path, *filecache.stat_of(watch(path)))
            record = memo.record(path, seen, name, scope, source) if memo is not None else None
            if record is None:
                misses.append((place, path, name, scope, seen))
            out.append(record)
        if misses:
            known = checked or {}
            tasks = [(path, name, scope.value, source, known.get(path)) for _, path, name, scope, _ in misses]
            threshold = parallel.MIN_PARALLEL if min_parallel is None else min_parallel
            rows = parallel.map_chunks(_parse_rows, tasks, jobs if len(tasks) >= threshold else 1)
            for (place, path, _, scope, seen), row in zip(misses, rows, strict=True):
                out[place] = SkillRecord.from_row(row, scope)
                if memo is not None:
                    memo.store(path, seen, row)
    return [r for r in out if r is not None]


def _parse_rows(tasks: list[tuple[str, str, str, str, tuple[int, int] | None]]) -> list[tuple[Any, ...]]:
    """Parse SKILL.md files into record rows (plain data: they may cross a process boundary)."""
    rows = []
    for path, name, scope_value, source, expect in tasks:
        try:
            front = skillmd.load_skill_md(path, expect=expect)
        except OSError as exc:  # whatever one file does, it costs that skill only
            front = skillmd.Frontmatter(None, (skillmd.stat_problem(path, exc),))
        record = record_from_frontmatter(
            front.data, name=name, scope=Scope(scope_value), source=source, path=path, problems=front.problems
        )
        rows.append(record.to_row())
    return rows


# -- the two stores ---------------------------------------------------------------------------------


class ParseIndex(FileMemo):
    """The parse memo: each SKILL.md's record row, shared by every working directory (a `FileMemo`)."""

    def __init__(self, env: Mapping[str, str], *, use: bool = True, since_ns: int | None = None) -> None:
        super().__init__("parse", __version__, env=env, since_ns=since_ns)
        self.use = use  # False (--refresh): parse everything again, but keep other folders' entries

    def record(self, path: str, seen: Observation, name: str, scope: Scope, source: str) -> SkillRecord | None:
        """The stored record for `path` if the file is unchanged and was read for the same skill, else None."""
        row = self.get(path, seen) if self.use else None
        if row is not None:
            try:
                record = SkillRecord.from_row(row, scope)  # type: ignore[arg-type]
            except (TypeError, ValueError, IndexError, KeyError):
                record = None  # a damaged entry: read the file again
            if record is not None and record.name == name and record.source == source:
                return record
            self.hits -= 1
            self.misses += 1
        elif not self.use:
            self.misses += 1
        return None

    def store(self, path: str, seen: Observation, row: tuple[Any, ...]) -> None:
        """Remember the record made of `path`, keyed on the observation taken before reading it."""
        if seen[1:] != filecache.ABSENT:
            self.keep(path, row, (seen,))


def result_key(*parts: str) -> str:
    """A file-name-safe key for the result store."""
    return digest("\0".join(parts))


class ResultCache:
    """Whole discovery answers, one file per key, each with the inputs that validate it; bounded, LRU."""

    def __init__(self, folder: Path) -> None:
        self.folder = folder

    def get(self, key: str) -> tuple[Any, Any] | None:
        """The stored (inputs, state) for `key` when every input is unchanged, else None."""
        path = self.folder / f"{key}.bin"
        payload = load(path, "result")
        if not isinstance(payload, tuple) or len(payload) != 2 or not inputs_unchanged(payload[0]):
            return None
        filecache.touch(path)  # recently used: pruned last
        return payload

    def drop(self, key: str) -> None:
        """Forget `key` (the latest answer could not be cached, so an older one must not be served)."""
        with contextlib.suppress(OSError):
            (self.folder / f"{key}.bin").unlink()

    def put(self, key: str, inputs: Sequence[Observation], state: Any) -> None:
        """Store `state` with the inputs observed while computing it, then keep the store within its bounds."""
        dump(self.folder / f"{key}.bin", "result", (tuple(inputs), state))
        filecache.prune(self.folder, max_files=MAX_RESULTS, max_bytes=MAX_RESULT_BYTES)


def result_to_state(result: DiscoveryResult) -> dict[str, Any]:
    """Everything needed to rebuild a merged answer, as marshal-able rows."""
    winners = {id(r): i for i, r in enumerate(result.workflows)}
    return {
        "workflows": [r.to_row() for r in result.workflows],
        "ineligible": [r.to_row() for r in result.ineligible],
        "shadowed": [(s.record.to_row(), winners.get(id(s.winner), -1), s.winner.to_row()) for s in result.shadowed],
        "problems": [problem_to_state(p) for p in result.problems],
        "scanned": result.scanned,
    }


def result_from_state(state: Mapping[str, Any], *, show_all: bool = False) -> DiscoveryResult:
    """Rebuild an answer stored with `result_to_state`."""
    row = SkillRecord.from_row
    with no_gc():
        workflows = tuple(row(d) for d in state["workflows"])
        shadowed = tuple(Shadowed(row(d), workflows[i] if i >= 0 else row(w)) for d, i, w in state["shadowed"])
        return DiscoveryResult(
            workflows=workflows,
            ineligible=tuple(row(d) for d in state["ineligible"]),
            shadowed=shadowed,
            problems=tuple(problem_from_state(p) for p in state["problems"]),
            scanned=state["scanned"],
            show_all=show_all,
        )


# -- the layer around running the sources ---------------------------------------------------------


class Recorder:
    """Runs each source inside a recording scope; says afterwards whether the whole answer may be kept."""

    def __init__(self, memo: ParseIndex | None, env: Mapping[str, str], started: int) -> None:
        self.run = _Run(memo, env)
        self.started = started
        self.uncached: list[str] = []  # sources whose answer may not be stored this time

    def call(self, name: str, source: Any, context: DiscoveryContext) -> Any:
        """Run `source.discover(context)` with its observations recorded; a failure leaves the answer uncached."""
        if not isinstance(source, CachedSource):
            self.uncached.append(name)  # it never said what it reads: its answer cannot be checked later
        token = _current.set(self.run)
        cacheable = self.run.cacheable
        self.run.cacheable = True
        try:
            return source.discover(context)
        except BaseException:
            self.uncached.append(name)
            raise
        finally:
            if not self.run.cacheable:
                self.uncached.append(name)
            self.run.cacheable = cacheable
            _current.reset(token)

    def failed(self, name: str) -> None:
        """A source could not be built or answered wrongly: the answer is given, never kept."""
        self.uncached.append(name)

    def inputs(self) -> Inputs | None:
        """Every input observed, or None when the answer must not be reused (uncached source, racy input)."""
        if self.uncached:
            return None
        inputs = list(self.run.seen.values())
        return None if filecache.racy(inputs, self.started) else inputs


def source_signature(host: PluginHost) -> list[str]:
    """Name, distribution and version of every source: installing or upgrading one changes the answer."""
    versions = {p.name: p.version for p in host.plugins}
    return sorted(
        f"{n}={r.distribution}@{versions.get(r.plugin, '?')}" for n, r in host.components(Kind.SOURCE).items()
    )


def source_keys(context: DiscoveryContext, host: PluginHost) -> list[str]:
    """What else each cached source's answer depends on (`CachedSource.cache_key`, e.g. git's environment)."""
    keys = []
    for name in host.components(Kind.SOURCE):
        try:
            source = host.get(Kind.SOURCE, name)
            with quiet():
                key = source.cache_key(context) if isinstance(source, CachedSource) else "-"
            keys.append(f"{name}:{key}")
        except Exception:  # a broken source is reported when discovery runs it
            keys.append(f"{name}:broken")
    return keys


def discover_cached(
    context: DiscoveryContext,
    host: PluginHost,
    compute: Callable[[Recorder], DiscoveryResult],
    *,
    show_all: bool = False,
    cache: bool = True,
) -> tuple[DiscoveryResult, Inputs | None]:
    """The stored answer when no input changed, else `compute(recorder)`, stored when it may be reused."""
    started = filecache.now_ns()
    folder = filecache.subfolder(context.env, "results") if cache else None
    if folder is None:
        recorder = Recorder(None, context.env, started)
        return compute(recorder), recorder.inputs()
    key = result_key(
        str(context.cwd), str(context.config_dir), *source_signature(host), *source_keys(context, host), *sys.path
    )
    store = ResultCache(Path(folder))
    if not context.refresh:
        hit = store.get(key)
        if hit is not None:
            try:
                return result_from_state(hit[1], show_all=show_all), list(hit[0])
            except (KeyError, TypeError, ValueError, IndexError):
                pass  # a damaged entry: compute afresh and overwrite it
    memo = ParseIndex(context.env, use=not context.refresh, since_ns=started)
    recorder = Recorder(memo, context.env, started)
    result = compute(recorder)
    memo.save()
    inputs = recorder.inputs()
    if inputs is not None:
        store.put(key, inputs, result_to_state(result))
    else:
        store.drop(key)
    return result, inputs
