"""Checks the importer's VIEW_OPS against remat-opt's storage model.

graph_export.VIEW_OPS lists the aten ops whose nodes in the importer's JSON
graph own no bytes and alias their operand 0. remat-opt decides the same on
the MLIR the importer emits with remat::isViewOp
(include/remat/Analysis/Storage.h). Given the graph remat-opt's
--remat-export-graph wrote for that MLIR (each node named
"<op>#<id>@<module path>/<aten op>" and a view when "alias_of" is set), this
script fails when the two disagree:

  * an aten op whose every MLIR node is a view is missing from VIEW_OPS;
  * an aten op of VIEW_OPS has an MLIR node that owns bytes, unless it is one
    of MATERIALIZED below (which must then really own bytes).

usage: check_view_ops.py <tools/remat-import-torch> <graph.json> <aten op>...
The aten ops listed last must occur in the graph (what the step exercises).
"""

import json
import sys

# Views in PyTorch that the MLIR lowering computes into a buffer of their
# own (linalg.transpose, a broadcasting linalg.generic): 0 bytes in the JSON
# graph (PyTorch's memory), their full size in remat-opt's.
MATERIALIZED = {"aten.t", "aten.transpose", "aten.permute", "aten.expand"}


def aten_op(name):
    """The aten op of a node name "<op>#<id>@<path>/<aten op>", or None."""
    where = name.partition("@")[2]
    op = where.rpartition("/")[2]
    return op if op.startswith(("aten.", "prims.")) else None


def main():
    sys.path.insert(0, sys.argv[1])
    from graph_export import VIEW_OPS
    with open(sys.argv[2]) as f:
        graph = json.load(f)
    # For each aten op: (views, nodes owning bytes) among its MLIR nodes.
    seen = {}
    for node in graph["nodes"]:
        op = aten_op(node["name"])
        if op is None:
            continue
        views, owners = seen.setdefault(op, [0, 0])
        if node["alias_of"] is not None:
            seen[op][0] += 1
        elif node["bytes"] > 0:
            seen[op][1] += 1
    problems = []
    for op, (views, owners) in sorted(seen.items()):
        if views and not owners and op not in VIEW_OPS:
            problems.append("%s: remat-opt makes only views of it, but "
                            "VIEW_OPS misses it" % op)
        if op in VIEW_OPS and op not in MATERIALIZED and owners:
            problems.append("%s: in VIEW_OPS, but %d of its MLIR nodes own "
                            "bytes" % (op, owners))
        if op in MATERIALIZED and not owners:
            problems.append("%s: listed as materialized, but remat-opt owns "
                            "no bytes for it" % op)
    missing = [op for op in sys.argv[3:] if op not in seen]
    if missing:
        problems.append("not exercised: " + ", ".join(missing))
    for problem in problems:
        print("error: " + problem)
    if problems:
        return 1
    print("views agree on %d aten ops (%d in VIEW_OPS)"
          % (len(seen), sum(op in VIEW_OPS for op in seen)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
