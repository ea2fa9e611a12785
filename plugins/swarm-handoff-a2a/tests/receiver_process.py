"""A receiving host in a process of its own, for the kill -9 test: prints READY URL once it listens.

usage: python receiver_process.py SESSION_ROOT PORT  (cwd: the project; CLAUDE_CONFIG_DIR: the receiver's)
"""

from __future__ import annotations

import sys
from pathlib import Path

from swarm_handoff_a2a.receiver import build_receiver


def main() -> None:
    root, port = Path(sys.argv[1]), int(sys.argv[2])
    receiver = build_receiver(root, host="127.0.0.1", port=port)
    print("READY", receiver.url, flush=True)
    receiver.run()


if __name__ == "__main__":
    main()
