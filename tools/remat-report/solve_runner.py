"""Running remat-solve from Python: the helpers remat-report and the
benchmarks (bench/real-graphs.py, bench/models.py) share.

`find_tool` locates a remat binary, `solve` runs one solve and returns the
parsed result JSON (docs/SolverFormat.md), `mib` formats bytes.
"""

import json
import os
import shutil
import subprocess
import time

MIB = 1024.0 * 1024.0
ROOT = os.path.dirname(os.path.dirname(os.path.dirname(
    os.path.abspath(__file__))))


class SolveError(Exception):
    """remat-solve failed (an error, not an infeasible answer)."""


def find_tool(name, given=None):
    """`given`, else $REMAT_BUILD_DIR/bin, else the repository's build/bin,
    else PATH; None when none has it."""
    candidates = [given] if given else []
    if os.environ.get("REMAT_BUILD_DIR"):
        candidates.append(os.path.join(os.environ["REMAT_BUILD_DIR"], "bin",
                                       name))
    candidates.append(os.path.join(ROOT, "build", "bin", name))
    for path in candidates:
        if path and os.access(path, os.X_OK):
            return path
    return shutil.which(name)


def solve(tool, graph, solver, *args):
    """(result dict, wall seconds) of `remat-solve graph --solver=solver
    args...`. The result has the status remat-solve printed (`infeasible`,
    `timeout` included); raises SolveError when remat-solve printed no JSON
    (a bad graph, a bad option)."""
    start = time.monotonic()
    try:
        proc = subprocess.run(
            [tool, graph, "--solver=" + solver, "--quiet", *args],
            capture_output=True, text=True)
    except OSError as e:
        raise SolveError("cannot run %s: %s" % (tool, e.strerror))
    seconds = time.monotonic() - start
    if not proc.stdout.strip():
        raise SolveError(proc.stderr.strip() or
                         "remat-solve exited with status %d" % proc.returncode)
    return json.loads(proc.stdout), seconds


def solved(result):
    """Whether a result carries a verified schedule."""
    return result.get("status") in ("optimal", "feasible")


def mib(nbytes, digits=1):
    return "%.*f" % (digits, nbytes / MIB) if nbytes is not None else "-"


def unit(nbytes):
    """(name, divisor) of the unit that shows `nbytes` best."""
    for name, size in (("GiB", 1024.0 ** 3), ("MiB", MIB), ("KiB", 1024.0)):
        if nbytes >= size:
            return name, size
    return "B", 1.0


def human(nbytes):
    """'245.5 MiB', '12.0 KiB', '274 B'."""
    if nbytes is None:
        return "-"
    name, size = unit(nbytes)
    return "%d B" % nbytes if size == 1.0 else "%.1f %s" % (nbytes / size,
                                                           name)
