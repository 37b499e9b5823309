"""--emit-graph's default: the remat-solve JSON graph of the imported step as
remat-opt builds it (docs/Importer.md, "The JSON graph").

The step's MLIR (mlir_export.py) goes through

    remat-opt --remat-annotate-costs[=device=D]
              --remat-infer-phases="loss=0 forward-results=<buffer updates>"
              --remat-export-graph

so the graph has remat-opt's cost model (docs/CostModel.md), storage model
and batch scaling from the IR shapes: the graph remat-opt's own planner
solves for that MLIR, and a schedule remat-solve computes for it applies to
the MLIR (`--remat-select-checkpoints=schedule=`). The importer only labels
what the IR's locations already say: each argument node is named by its
label (`conv1.weight`, `input`), each node gets the module path of its
location (`path`, which remat-report groups by; `optimizer` for the
optimizer's state), and `device` is recorded as the aten graph records it.
"""

import json
import os
import shutil
import subprocess
import sys

import mlir_export


class RematOptError(Exception):
    """remat-opt is missing or rejected the imported step."""


def find_remat_opt(given=None):
    """`given` (--remat-opt), else remat-opt in $REMAT_BUILD_DIR/bin, next
    to this script (build/bin holds a copy of it), in the source tree's
    build/bin, else on PATH. Raises RematOptError when it is not there."""
    if given:
        if not (os.path.isfile(given) and os.access(given, os.X_OK)):
            raise RematOptError("--remat-opt %s is not an executable" % given)
        return given
    here = os.path.dirname(os.path.abspath(__file__))
    candidates = [os.path.join(here, "remat-opt"),
                  os.path.join(here, "..", "..", "build", "bin", "remat-opt")]
    if os.environ.get("REMAT_BUILD_DIR"):
        candidates.insert(0, os.path.join(os.environ["REMAT_BUILD_DIR"],
                                          "bin", "remat-opt"))
    for path in candidates:
        if os.path.isfile(path) and os.access(path, os.X_OK):
            return path
    found = shutil.which("remat-opt")
    if found is None:
        raise RematOptError(
            "remat-opt, which builds the graph, is not in $REMAT_BUILD_DIR/bin, "
            "build/bin or on PATH: give --remat-opt PATH (or --graph-from=aten)")
    return found


def pass_arguments(forward_results, device=None):
    """remat-opt's passes: costs (on `device`), phases with the loss
    (result 0) and the `forward_results` forward, the graph on stdout."""
    costs = "--remat-annotate-costs" + ("=device=" + device if device else "")
    phases = "--remat-infer-phases=loss=0"
    if forward_results:
        phases += " forward-results=" + ",".join(map(str, forward_results))
    return [costs, phases, "--remat-export-graph=output=-", "-o", "/dev/null"]


def run_remat_opt(tool, text, arguments):
    """The graph dict remat-opt writes for the MLIR `text`; its warnings go
    to stderr. Raises RematOptError with remat-opt's diagnostics when it
    fails."""
    try:
        proc = subprocess.run([tool, "-"] + arguments, input=text,
                              capture_output=True, text=True)
    except OSError as e:
        raise RematOptError("cannot run %s: %s" % (tool, e.strerror))
    if proc.returncode != 0:
        raise RematOptError(
            "remat-opt could not build the graph of the imported step "
            "(exit status %d; <stdin> is the MLIR that --emit-mlir writes):"
            "\n%s" % (proc.returncode, proc.stderr.rstrip()))
    if proc.stderr:
        sys.stderr.write(proc.stderr)
    try:
        return json.loads(proc.stdout)
    except ValueError as e:
        raise RematOptError("remat-opt wrote no graph JSON: %s" % e)


def module_path(location):
    """The module path of an op located `<path>/<namespace>.<op>[/...]`
    (`<top>`: the top module, "")."""
    path = location.split("/", 1)[0]
    return "" if path == "<top>" else path


def label_nodes(graph, fn, state_labels):
    """Names argument node i (`arg<i>`) by argument i's label, path
    `optimizer` for the optimizer's state; gives every op node the module
    path of its location (the text after `@` in its name)."""
    for node in graph["nodes"]:
        name = node["name"]
        if name.startswith("arg") and name[3:].isdigit():
            label = fn.args[int(name[3:])].loc or name
            node["name"] = label
            node["path"] = "optimizer" if label in state_labels else ""
        else:
            node["path"] = module_path(name.partition("@")[2])


def to_graph(tool, fn, joint, opt=None, device=None):
    """The graph of `fn`, the step mlir_export.to_function built from
    `joint` (with the update of `opt`), from the remat-opt at `tool`
    (find_remat_opt), costs in FLOPs or, on `device` (a device name of
    Devices.h), in picoseconds. Raises RematOptError."""
    graph = run_remat_opt(tool, fn.text(), pass_arguments(
        mlir_export.forward_results(joint), device))
    state = set(mlir_export.state_names(joint, opt))
    label_nodes(graph, fn, state)
    if device is not None:
        graph["device"] = device  # informational: costs are ps on it
    return graph
