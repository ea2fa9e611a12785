"""Many first users of a new history at once: each opens it (SQLite's WAL switch is retried, not failed)."""

from __future__ import annotations

import threading
from pathlib import Path

from swarm_handoff.history import open_history


def test_threads_opening_a_new_history_together_all_get_it(tmp_path: Path) -> None:
    # Two threads of one process (an A2A receiver taking in two payloads) used to race on the switch to
    # WAL: SQLite answered the second "database is locked" at once and its hand-off went unrecorded.
    failures: list[str] = []
    for number in range(60):
        folder = tmp_path / f"config-{number}"
        barrier = threading.Barrier(8)

        def first_use(folder: Path = folder, barrier: threading.Barrier = barrier) -> None:
            barrier.wait()
            try:
                with open_history(folder) as history:
                    history.list()
            except Exception as exc:  # any failure is the finding
                failures.append(f"{folder.name}: {exc!r}")

        threads = [threading.Thread(target=first_use) for _ in range(8)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
    assert failures == []
