"""Byte units.

Decimal units (GB = 10**9) are what vendors print on a GPU box; binary units
(GiB = 2**30) are what ``nvidia-smi`` and most tools report.

>>> round(80 * GB / GiB, 2)  # an "80 GB" card in the units nvidia-smi shows
74.51
"""

__all__ = ["GB", "MB", "TB", "GiB", "KiB", "MiB"]

MB = 10**6
GB = 10**9
TB = 10**12
KiB = 2**10
MiB = 2**20
GiB = 2**30
