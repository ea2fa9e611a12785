"""Settings shared by every test suite in the repository (pytest finds this file above each tests/ folder).

Property tests draw new examples on every run. On CI (`CI` set) they draw the same ones each time
(`derandomize`) and never time an example: a landing must not depend on which inputs a run happened
to draw or on how loaded the machine was. Locally they stay random, which is how they find bugs.
"""

from __future__ import annotations

import os

try:
    from hypothesis import settings
except ImportError:  # a session without the property tests' extra
    pass
else:
    settings.register_profile("ci", derandomize=True, deadline=None, print_blob=True)
    if os.environ.get("CI", "").strip().lower() not in {"", "0", "false", "no"}:
        settings.load_profile("ci")
