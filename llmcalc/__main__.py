"""``python -m llmcalc``: same as the ``llmcalc`` command."""

import sys

from .cli import main

sys.exit(main())
