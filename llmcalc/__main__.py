"""``python -m llmcalc``: same as the ``llmcalc`` command."""

import sys

from .cli import main

__all__ = []

sys.exit(main())
