"""Receivers sharing a task store claim a payload's task before they look at the store and check it.

A second `a2a serve` on the same store (or a second delivery to this one) given the same payload
waits for the first, then answers with the first one's task instead of checking it again. Claims
are the core's folder locks (`locked`) in claim folders beside the store's SQLite file (or under
the config folder for a database server), one per task id's first `CLAIM_PREFIX` hex digits.
See docs/a2a.md and the threat model in docs/security.md.
"""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
from collections.abc import AsyncIterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from swarm_handoff.api import ErrorCode, FolderBusy, SwarmError, busy_refusal, locked, not_written, private_folder_fault

# Claim folders per task store, named by a task id's first two hex digits (256): payloads whose ids
# share them wait for each other, no others (a folder per task would be one more folder per hand-off).
CLAIM_PREFIX = 2


class ClaimError(Exception):
    """A payload's task whose claim could not be taken: `error` is what the sender is told."""

    def __init__(self, error: SwarmError) -> None:
        super().__init__(error.message)
        self.error = error


class TaskClaims:
    """One receiver's claims: its own deliveries wait for each other, then for every receiver's claim.

    `folder` None (no claims folder) keeps only the waits within this process.
    """

    def __init__(self, folder: Path | None) -> None:
        self.folder = folder
        self._locks: dict[str, tuple[asyncio.Lock, int]] = {}
        # Waits for another process's claim get threads of their own (at most one per claim folder,
        # made as needed): in the default executor they could hold every thread the checks run in.
        self._waits = ThreadPoolExecutor(max_workers=16**CLAIM_PREFIX, thread_name_prefix="a2a-claim")

    def close(self) -> None:
        """Let the claim-wait threads go (a wait still under way ends in its thread)."""
        self._waits.shutdown(wait=False)

    @contextlib.asynccontextmanager
    async def hold(self, task_id: str) -> AsyncIterator[None]:
        """Hold the task's claim: this process's waiters first, then every receiver's (`ClaimError` if it cannot).

        This process's deliveries wait for each other on an asyncio lock per claim folder: a wait in a
        worker thread is left only for other processes' claims, so waiters never hold every thread
        while the claim's holder needs one for its check.
        """
        stripe = task_id[:CLAIM_PREFIX]
        lock, users = self._locks.get(stripe, (asyncio.Lock(), 0))
        self._locks[stripe] = (lock, users + 1)  # counted, so a waiter's lock is never dropped under it
        try:
            async with lock, self._claimed(stripe):
                yield
        finally:
            lock, users = self._locks[stripe]
            if users <= 1:
                del self._locks[stripe]
            else:
                self._locks[stripe] = (lock, users - 1)

    @contextlib.asynccontextmanager
    async def _claimed(self, stripe_name: str) -> AsyncIterator[None]:
        """Hold the claim folder across receivers (the core's folder lock, waited for in a claim-wait thread).

        A claim that cannot be taken (held past the lock's wait, or its folder cannot be made) is
        a `ClaimError`, answered as a REJECTED task: the sender is told a code, never the receiver's folders.
        """
        if self.folder is None:
            yield
            return
        stripe = self.folder / stripe_name  # a UUID's hex digits: a safe folder name
        try:
            stripe.mkdir(mode=0o700, parents=True, exist_ok=True)  # the claims folder: `own_claims`, at the start
            claim = locked(stripe)  # released when its descriptor closes, however the process ends
            taking = asyncio.get_running_loop().run_in_executor(self._waits, claim.__enter__)
            try:
                await asyncio.shield(taking)
            except asyncio.CancelledError:  # the wait goes on in its thread: let go once it is taken
                taking.add_done_callback(lambda _taken: claim.__exit__(None, None, None))
                raise
        except FolderBusy as busy:
            raise ClaimError(busy_refusal("the receiver was checking this payload", busy.waited)) from None
        except OSError as exc:
            why = exc.strerror or type(exc).__name__
            raise ClaimError(not_written("claim the payload's task", why, nothing="written")) from None
        try:
            yield
        finally:
            claim.__exit__(None, None, None)


def claims_folder(store_url: str, config_dir: Path) -> Path:
    """Where receivers on this machine sharing `store_url` claim a task: beside its SQLite file, else in the config.

    A store on a database server gets a folder per URL (its digest) under the config folder, so
    receivers sharing it are kept apart when they share that folder too; a file lock cannot reach
    receivers on other machines.
    """
    from sqlalchemy.engine import make_url
    from sqlalchemy.exc import ArgumentError

    with contextlib.suppress(ArgumentError, ValueError):
        url = make_url(store_url)
        database = url.database if url.get_backend_name() == "sqlite" else None
        if database and database != ":memory:" and not database.startswith("file:"):
            file = Path(database).expanduser().absolute()
            return file.with_name(f"{file.name}.claims")
    digest = hashlib.sha256(store_url.encode("utf-8")).hexdigest()[:16]
    return Path(config_dir) / "swarm-handoff" / "a2a-claims" / digest


def own_claims(folder: Path) -> Path:
    """Make the claims folder (0700) or check it before a receiver starts: USAGE naming it and the fix.

    Whoever else may write it could plant or hold a claim folder; one that cannot be made (a
    read-only or full disk, a file in its place) would fail every payload later, so it stops the start.
    """
    try:
        why = private_folder_fault(folder)  # the session root's own check
    except OSError as exc:
        why = f"cannot be made: {exc.strerror or type(exc).__name__}"
    if why is not None:
        raise SwarmError(
            ErrorCode.USAGE,
            f"the folder where receivers claim a payload's task, {folder}, {why}",
            hint="remove or fix it (a folder of your own, mode 700), or give a task store in a folder "
            "you can write (--task-store)",
        )
    return folder
