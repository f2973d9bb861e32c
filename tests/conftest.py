"""Shared test set-up: make the helpers in tests/, docs/_ext/ and tools/ importable."""

from __future__ import annotations

import sys
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
for directory in (REPO / "tests", REPO / "docs" / "_ext", REPO / "tools"):
    sys.path.insert(0, str(directory))
