"""Check the Python behind .venv before make (re)creates it; say what is wrong in one message.

Usage: PYTHON tools/venv_python.py VENV     (the Makefile runs it before `python -m venv`)

Run by the interpreter make would create the venv with, so it must itself run on an
old Python: nothing newer than Python 3.7 here.  It exits 0 and prints nothing when VENV
holds a working Python >= 3.11.  Otherwise:

- VENV whose interpreter is gone (a removed or upgraded system Python) or is too old:
  says so, removes VENV, and exits 0 so that make creates it afresh;
- the interpreter running this script too old: says which Python make used, which one
  is needed and how to point make at it, and exits 1 before anything is created.
"""

import os
import shutil
import subprocess
import sys

NEEDED = (3, 11)
NEEDED_TEXT = "{}.{}".format(*NEEDED)


def venv_problem(venv):
    """Why ``venv``'s interpreter cannot be used, or None when it can (or there is no venv yet)."""
    python = os.path.join(venv, "bin", "python")
    if not os.path.lexists(python):
        return None if not os.path.exists(venv) else "it has no bin/python"
    if not os.path.exists(python):
        return f"its interpreter {os.path.realpath(python)} is gone"
    try:
        version = subprocess.run(
            [python, "-c", "import sys; print('%d.%d.%d' % sys.version_info[:3])"],
            stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True, check=True,
        ).stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        return f"its interpreter {os.path.realpath(python)} does not run"
    if tuple(int(part) for part in version.split(".")[:2]) < NEEDED:
        return f"it was made by Python {version}, and this project needs Python >= {NEEDED_TEXT}"
    return None


def main(argv):
    if len(argv) != 1:
        print(__doc__.strip().splitlines()[2], file=sys.stderr)
        return 2
    venv = argv[0]
    problem = venv_problem(venv)
    if problem is None and os.path.exists(os.path.join(venv, "bin", "python")):
        return 0
    if sys.version_info[:2] < NEEDED:
        print(
            f"error: this project needs Python >= {NEEDED_TEXT}, "
            f"and make's PYTHON ({sys.executable}) is {sys.version.split()[0]}. "
            f"Install Python {NEEDED_TEXT} or newer (Debian/Ubuntu: README.md, Quick start), then run make again; "
            f"if `python3` stays older, name the new one: make PYTHON=python{NEEDED_TEXT} html",
            file=sys.stderr,
        )
        return 1
    if problem is not None:
        print(f"Rebuilding {venv}: {problem}.", file=sys.stderr)
        shutil.rmtree(venv)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
