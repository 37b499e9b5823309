"""Compares the two graphs remat-import-torch --emit-graph writes for one
step: ATEN.json (--graph-from=aten) and MLIR.json (the default, remat-opt's
graph of the MLIR). Usage: compare_graphs.py ATEN.json MLIR.json LOW,HIGH.

Their nodes differ in granularity (the MLIR has one node per linalg or
tensor op, several per aten call, and no node for views it lowers to
copies or for the constant incoming gradient `tangents_1`), so they are
compared where both describe the same thing; each line says what agrees
and the script exits 1 after printing every disagreement:

* outputs: the same count, and each output's storage (its alias root)
  the same bytes;
* resident bytes (parameters, buffers, optimizer state, inputs), fixed and
  per sample, equal but for the aten graph's `tangents_1`; the same batch;
* the module paths whose work is forward, and those whose work is
  backward, equal; every dependency between two modules' work in the MLIR
  graph is one in the aten graph too (the aten graph may have more: an
  aten backward op reads an operand its lowering does not need);
* forward and backward costs: the same conventions (docs/CostModel.md)
  applied to aten ops and to their lowering, which adds the work of the
  decomposed ops: the ratio mlir / aten within [LOW, HIGH].

Not compared: node counts, names and kinds of resident nodes (the aten graph
calls buffers `input`, remat-opt `param`: both are resident). A step with
dropout differs more: the MLIR takes its masks as data arguments
(resident), the aten graph computes them (docs/Importer.md, "Dropout").
"""
import json
import sys


def load(path):
    with open(path) as f:
        return json.load(f)


def root(nodes, i):
    while nodes[i].get("alias_of") is not None:
        i = nodes[i]["alias_of"]
    return nodes[i]


def resident(graph):
    return [n for n in graph["nodes"] if n["kind"] in ("param", "input")
            and not n["name"].startswith("tangents_")]


def module_edges(graph):
    """{((path, kind), (path, kind))} between the computed nodes of two
    different modules or phases."""
    nodes, edges = graph["nodes"], set()
    for n in nodes:
        for d in n["deps"] if n["kind"] in ("forward", "backward") else []:
            m = nodes[d]
            a, b = (m.get("path", ""), m["kind"]), (n.get("path", ""), n["kind"])
            if m["kind"] in ("forward", "backward") and a != b:
                edges.add((a, b))
    return edges


def compare(aten, mlir, low, high):
    """Prints one line per comparison; returns the number that disagree."""
    bad = 0

    def same(what, a, b):
        nonlocal bad
        print("%s: %s" % (what, "agree (%s)" % (a,) if a == b else
                          "DIFFER: aten %s, mlir %s" % (a, b)))
        bad += a != b

    print("nodes: aten %d, mlir %d" % (len(aten["nodes"]), len(mlir["nodes"])))
    for g in (aten, mlir):
        g["storage"] = [root(g["nodes"], i)["bytes"] for i in g["outputs"]]
        g["resident"] = (sum(n["bytes"] for n in resident(g)),
                         sum(n.get("bytes_per_sample", 0) for n in resident(g)))
        for kind in ("forward", "backward"):
            work = [n for n in g["nodes"] if n["kind"] == kind]
            g[kind] = sorted(set(n.get("path", "") for n in work))
            g[kind + " cost"] = sum(n["cost"] for n in work)
    same("output storage bytes", aten["storage"], mlir["storage"])
    same("resident bytes, per sample", aten["resident"], mlir["resident"])
    same("batch", aten.get("batch"), mlir.get("batch"))
    for kind in ("forward", "backward"):
        same("%s modules" % kind, aten[kind], mlir[kind])
    extra = module_edges(mlir) - module_edges(aten)
    same("module dependencies of the mlir graph not in the aten graph",
         sorted(extra), [])
    for kind in ("forward", "backward"):
        a, m = aten[kind + " cost"], mlir[kind + " cost"]
        ratio = m / a if a else float("inf")
        ok = low <= ratio <= high
        print("%s cost: mlir / aten = %.3f, %s [%g, %g]" % (
            kind, ratio, "within" if ok else "DIFFER: not within", low, high))
        bad += not ok
    return bad


if __name__ == "__main__":
    low, high = map(float, sys.argv[3].split(","))
    sys.exit(1 if compare(load(sys.argv[1]), load(sys.argv[2]), low, high)
             else 0)
