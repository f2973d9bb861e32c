"""Byte units.

Decimal units (GB = 10**9) are what vendors print on a GPU box; binary units
(GiB = 2**30) are what ``nvidia-smi`` and most tools report.

Examples
--------
>>> GB, GiB
(1000000000, 1073741824)
>>> round(80 * GB / GiB, 2)
74.51
"""

MB = 10**6
GB = 10**9
TB = 10**12
KiB = 2**10
MiB = 2**20
GiB = 2**30
