"""Shared test set-up: make tests/ importable helpers and docs/_ext importable."""

from __future__ import annotations

import sys
from pathlib import Path

TESTS = Path(__file__).resolve().parent
sys.path.insert(0, str(TESTS))
sys.path.insert(0, str(TESTS.parent / "docs" / "_ext"))
