"""pytest runs the tools' docstring examples, except those of the tools that need torch.

The measurement and verification tools import torch, transformers and peft, which the
project never depends on (they run in a separate virtualenv: CONTRIBUTING.md), so
their modules cannot even be imported here.
"""

collect_ignore_glob = ["measure_*.py", "verify_*.py", "count_hub_configs.py"]
