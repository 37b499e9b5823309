#!/usr/bin/python3
"""Real models side by side: every solver's budget -> recompute curve on the
joint training graphs our importer writes, next to PyTorch's own partitioner.

For each model (torchvision, batch 8, 224x224 by default) this

  * traces one training step with remat-import-torch's tracer (decomposed
    graph: norms, activations and losses as primitive ops, the form
    PyTorch's partitioner and a compiler see) and writes the JSON graph;
  * runs PyTorch's `min_cut_rematerialization_partition` (functorch, needs
    python3-networkx) on the same joint graph and records the values it
    saves for the backward; that saved set is then evaluated by our
    simulator: saved values pinned `keep: always`, every other recomputable
    value `keep: never`, scheduled by a checkpoint-set solver at an
    unlimited budget (recompute-once builder, best of its orders);
  * runs `remat-solve --mode=pareto` per solver: budgets from the
    checkpoint-all peak down to that solver's smallest feasible budget, each
    with its peak, recompute and solve time;

and writes a Markdown page (docs/Benchmarks-models.md) with one table and one
plot per model. Results are cached in --work (delete it to rerun); the
benchmark runs outside CI.

  bench/models.py [--models resnet18,...] [--work DIR] [--markdown FILE]
                  [--images DIR] [--solvers auto,...] [--time-limit S]
"""

import argparse
import json
import os
import sys
import time
import types

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "tools", "remat-report"))
sys.path.insert(0, os.path.join(ROOT, "tools", "remat-import-torch"))

import report_plots  # noqa: E402  (after the path tweak)
import solve_runner  # noqa: E402
from solve_runner import MIB  # noqa: E402

MODELS = ["resnet18", "resnet50", "vgg16", "mobilenet_v2", "vit_b_16"]
SOLVERS = ["checkpoint-all", "chen-greedy", "feng-huang", "min-cut",
           "hierarchical", "dtr", "auto"]
# The checkpoint-set solver that schedules PyTorch's saved set: with every
# value pinned, all its candidate sets are that set.
SAVED_SET_SCHEDULER = "chen-greedy"


def trace_model(model, batch, resolution):
    """(graph dict with module paths, {"saved": names of the values PyTorch's
    min-cut partitioner saves, "merged": names its CSE pass merged into an
    equal node})."""
    import model_spec
    args = types.SimpleNamespace(model=model, module=None, batch=batch,
                                 resolution=resolution, num_classes=None,
                                 name=None, dtype="f32")
    graphs, sets = trace_spec(model_spec.ModelSpec.create(args))
    return graphs[0], sets


def trace_spec(spec, devices=(None,)):
    """([graph dict per entry of `devices`: costs in FLOPs for None, else
    the roofline time on that roofline.Device], min-cut's sets as
    trace_model returns them) of the decomposed step of a
    model_spec.ModelSpec."""
    import graph_export
    import torch_trace
    from functorch.compile import min_cut_rematerialization_partition
    joint = torch_trace.trace(spec, decompose=True)
    graphs = [graph_export.to_graph(joint, spec.name, device=d) for d in devices]
    twins = cse_twins(joint.gm.graph)
    if not joint.buffer_updates:
        # The partitioner takes the first leaves of the output spec's first
        # part as the forward's outputs; the tracer returned the unchanged
        # buffers there and dropped them since: the loss is the forward's.
        import torch.utils._pytree as pytree
        outputs = joint.output.args[0]
        codegen = joint.gm.graph._codegen
        codegen.pytree_info = codegen.pytree_info._replace(
            out_spec=pytree.tree_flatten(([0], [0] * (len(outputs) - 1)))[1])
        joint.gm.recompile()
    # The partitioner rewrites the joint module (CSE): export first.
    fw_module, _ = min_cut_rematerialization_partition(joint.gm, None)
    output = [n for n in fw_module.graph.nodes if n.op == "output"][0]
    saved = [n.name for n in output.args[0] if n is not None]
    kept = {n.name for n in joint.gm.graph.nodes}  # after its CSE
    merged = {n["name"]: twins.get(n["name"]) for n in graphs[0]["nodes"]
              if n["name"] not in kept}
    return graphs, {"saved": saved, "merged": merged}


def cse_twins(fx_graph):
    """{node name: name of the earlier equal node} for the calls that
    PyTorch's partitioner merges (it runs fx_graph_cse first): same target,
    same arguments up to merged nodes."""
    rep, seen, twins = {}, {}, {}

    def key(value):
        if hasattr(value, "name") and hasattr(value, "op"):
            return ("node", rep.get(value.name, value.name))
        if isinstance(value, (list, tuple)):
            return tuple(key(v) for v in value)
        return repr(value)

    for node in fx_graph.nodes:
        if node.op != "call_function":
            continue
        sig = (str(node.target), key(node.args),
               key(tuple(sorted(node.kwargs.items()))))
        if sig in seen:
            rep[node.name] = twins[node.name] = seen[sig]
        else:
            seen[sig] = node.name
    return twins


def pin_saved_set(graph, sets):
    """A copy of `graph` whose recomputable values are pinned to PyTorch's
    saved set. Values computed from the backward's seed (tangents) are not
    recomputable and stay unpinned; a value PyTorch's CSE merged into an
    equal one gets that one's pin (unpinned when the twin is unknown)."""
    saved, merged = set(sets["saved"]), sets["merged"]
    names = {n["name"] for n in graph["nodes"]}
    missing = [s for s in saved if s not in names]
    if missing:
        sys.exit("models.py: min-cut saved values not in the graph: %s"
                 % ", ".join(missing[:5]))
    # A merged node is its twin's value; saving a view saves its base's
    # storage: keep those too.
    saved |= {name for name, twin in merged.items() if twin in saved}
    by_name = {n["name"]: n for n in graph["nodes"]}
    for name in list(saved):
        node = by_name[name]
        while node.get("alias_of") is not None:
            node = graph["nodes"][node["alias_of"]]
            saved.add(node["name"])
    pinned = json.loads(json.dumps(graph))
    seeded = set()
    for node in pinned["nodes"]:
        if node["name"].startswith("tangents") or any(
                d in seeded for d in node["deps"]):
            seeded.add(node["id"])
            continue
        if node["kind"] in ("input", "param") or (
                node["name"] in merged and merged[node["name"]] is None):
            continue
        node["keep"] = "always" if node["name"] in saved else "never"
    return pinned


def forward_cost(graph):
    return sum(n["cost"] for n in graph["nodes"] if n["kind"] == "forward")


def cached(path, compute):
    if os.path.exists(path):
        with open(path) as f:
            return json.load(f)
    value = compute()
    with open(path, "w") as f:
        json.dump(value, f)
    return value


def run_model(args, model):
    """Everything measured for one model (cached per step in args.work)."""
    stem = os.path.join(args.work, "%s_b%d_r%d" % (model, args.batch,
                                                  args.resolution))
    graph_path, saved_path = stem + ".json", stem + ".saved.json"
    pinned_path = stem + ".mincut.json"
    if not os.path.exists(graph_path) or not os.path.exists(saved_path):
        start = time.monotonic()
        graph, saved = trace_model(model, args.batch, args.resolution)
        for path, value in ((graph_path, graph), (saved_path, saved)):
            with open(path, "w") as f:
                json.dump(value, f)
        log("%s: traced %d nodes in %.0f s" % (model, len(graph["nodes"]),
                                               time.monotonic() - start))
    with open(graph_path) as f:
        graph = json.load(f)
    with open(saved_path) as f:
        saved = json.load(f)
    with open(pinned_path, "w") as f:
        json.dump(pin_saved_set(graph, saved), f)
    tool = args.remat_solve

    def mincut():
        result, _ = solve_runner.solve(tool, pinned_path, SAVED_SET_SCHEDULER,
                                       "--budget=100%")
        return result

    row = {"model": model, "nodes": len(graph["nodes"]),
           "forward_cost": forward_cost(graph),
           "resident": sum(n["bytes"] for n in graph["nodes"]
                           if n["kind"] in ("input", "param")),
           "torch_min_cut": cached(stem + ".mincut.result.json", mincut),
           "curves": {}}
    def at_min_cut():
        budget = row["torch_min_cut"]["stats"]["peak_bytes"]
        result, _ = solve_runner.solve(tool, graph_path, "auto",
                                       "--budget=%d" % budget,
                                       "--time-limit=%g" % args.time_limit)
        return result

    row["auto_at_min_cut"] = cached(stem + ".auto-at-min-cut.json",
                                    at_min_cut)
    for solver in args.solvers:
        def curve(solver=solver):
            result, seconds = solve_runner.solve(
                tool, graph_path, solver, "--mode=pareto",
                "--points=%d" % args.points,
                "--time-limit=%g" % args.time_limit)
            result["wall_seconds"] = seconds
            return result
        row["curves"][solver] = cached("%s.%s.pareto.json" % (stem, solver),
                                       curve)
        log("%s: %s done (%.1f s)" % (model, solver,
                                      row["curves"][solver]["wall_seconds"]))
    return row


def log(text):
    sys.stderr.write("models.py: %s\n" % text)
    sys.stderr.flush()


def model_table(row, grid):
    """The Markdown table of one model: recompute overhead per solver at each
    budget of `grid` (fractions of checkpoint-all) down to the smallest
    feasible, the best proven lower bound there (the gap of a cell is its
    distance to that bound), then smallest peak and curve time."""
    curves = row["curves"]
    ref = next(iter(curves.values()))
    all_peak, all_cost = (ref["checkpoint_all_peak_bytes"],
                          ref["checkpoint_all_cost"])
    solvers = [s for s in curves if curves[s].get("points")]
    lines = ["| budget | " + " | ".join(solvers) + " | lower bound |",
             "|---:|" + "---:|" * (len(solvers) + 1)]
    smallest = min(curves[s]["smallest_budget"] for s in solvers)
    for fraction in grid + [smallest / all_peak]:
        budget = fraction * all_peak
        if budget < smallest * 0.999:
            continue
        bound = report_plots.best_lower_bound(curves.values(), budget,
                                              all_cost)
        cells = []
        for s in solvers:
            point = report_plots.best_point(curves[s]["points"], budget)
            cells.append("%.1f%%" % (100 * (point["cost"] / all_cost - 1))
                         if point else "-")
        label = ("%.0f %%" % (100 * fraction) if fraction in grid else
                 "%.1f %% (smallest)" % (100 * fraction))
        lines.append("| %s, %s MiB | %s | %.1f%% |" % (
            label, solve_runner.mib(budget), " | ".join(cells),
            100 * (bound / all_cost - 1)))
    lines.append("| smallest peak (MiB) | " + " | ".join(
        "%s (%.0f %%)" % (solve_runner.mib(min_peak(curves[s])),
                          100.0 * min_peak(curves[s]) / all_peak)
        for s in solvers) + " |")
    lines.append("| curve time (s) | " + " | ".join(
        "%.1f" % curves[s]["wall_seconds"] for s in solvers) + " |")
    lines.append("| slowest point (s) | " + " | ".join(
        "%.2f" % max(p["seconds"] for p in curves[s]["points"])
        for s in solvers) + " |")
    return "\n".join(lines)


def min_peak(curve):
    return min(p["peak_bytes"] for p in curve["points"])


def summary_table(rows):
    """One line per model: checkpoint-all, lower bound, PyTorch min-cut, our
    best smallest peak, and our least peak within one extra forward."""
    lines = [
        "| model | nodes | checkpoint-all (MiB) | budget lower bound (MiB) "
        "| PyTorch min-cut peak (MiB) | its recompute | ours at that peak "
        "| by | best smallest peak "
        "(MiB) | by | best peak within one extra forward (MiB) | by "
        "| / min-cut peak | activation cut at one extra forward |",
        "|---|---:|---:|---:|---:|---:|---:|---|---:|---|---:|---|---:|---:|"]
    for row in rows:
        curves = row["curves"]
        ref = next(iter(curves.values()))
        all_peak, all_cost = (ref["checkpoint_all_peak_bytes"],
                              ref["checkpoint_all_cost"])
        cut = row["torch_min_cut"]["stats"]
        best = min((min_peak(c), s) for s, c in curves.items()
                   if c.get("points"))
        # The cheapest plan at min-cut's peak: auto asked at that budget, or
        # any curve point under it.
        at_cut = min([(p["cost"], s) for s, c in curves.items()
                      for p in c.get("points", [])
                      if p["peak_bytes"] <= cut["peak_bytes"]] +
                     ([(row["auto_at_min_cut"]["stats"]["cost"], "auto")]
                      if solve_runner.solved(row["auto_at_min_cut"]) else []))
        limit = all_cost + row["forward_cost"]
        one_fwd = min((p["peak_bytes"], s) for s, c in curves.items()
                      for p in c.get("points", []) if p["cost"] <= limit)
        lines.append("| %s | %d | %s | %s | %s | %.2f %% | %.2f %% | %s "
                     "| %s | %s | %s | %s | %.2f | %.0f %% |" % (
                         row["model"], row["nodes"], solve_runner.mib(all_peak),
                         solve_runner.mib(max(c.get("budget_lower_bound", 0)
                                              for c in curves.values())),
                         solve_runner.mib(cut["peak_bytes"]),
                         100.0 * (cut["cost"] / all_cost - 1),
                         100.0 * (at_cut[0] / all_cost - 1), at_cut[1],
                         solve_runner.mib(best[0]), best[1],
                         solve_runner.mib(one_fwd[0]), one_fwd[1],
                         one_fwd[0] / cut["peak_bytes"],
                         100.0 * (all_peak - one_fwd[0]) /
                         (all_peak - row["resident"])))
    return "\n".join(lines)


def add_run_arguments(parser, time_limit, work):
    """The options every model benchmark shares: --time-limit (default
    `time_limit`), --remat-solve, --work (default `work`), --markdown."""
    parser.add_argument("--time-limit", type=float, default=time_limit,
                        help="remat-solve --time-limit per solve (s)")
    parser.add_argument("--remat-solve",
                        default=solve_runner.find_tool("remat-solve"))
    parser.add_argument("--work", default=work,
                        help="cache of graphs and results")
    parser.add_argument("--markdown", help="write the tables here "
                        "(default: stdout)")


def write_markdown(args, text):
    """`text` to --markdown, or to stdout without."""
    if args.markdown:
        with open(args.markdown, "w") as f:
            f.write(text)
    else:
        sys.stdout.write(text)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--models", default=",".join(MODELS))
    parser.add_argument("--solvers", default=",".join(SOLVERS))
    parser.add_argument("--batch", type=int, default=8)
    parser.add_argument("--resolution", type=int, default=224)
    parser.add_argument("--points", type=int, default=6)
    add_run_arguments(parser, 10.0, "bench-models")
    parser.add_argument("--images", help="write one curve plot per model "
                        "here (PNG)")
    args = parser.parse_args()
    args.solvers = args.solvers.split(",")
    if not args.remat_solve:
        sys.exit("models.py: no remat-solve (build it, or --remat-solve)")
    os.makedirs(args.work, exist_ok=True)
    rows = [run_model(args, m) for m in args.models.split(",")]
    with open(os.path.join(args.work, "rows.json"), "w") as f:
        json.dump(rows, f)
    text = render(args, rows)
    write_markdown(args, text)


def render(args, rows):
    grid = [1.0, 0.9, 0.8, 0.7, 0.6, 0.5, 0.4, 0.3, 0.2]
    parts = ["## Summary\n", summary_table(rows), ""]
    for row in rows:
        parts.append("## %s\n" % row["model"])
        if args.images:
            os.makedirs(args.images, exist_ok=True)
            name = "%s-curves.png" % row["model"]
            cut = row["torch_min_cut"]["stats"]
            report_plots.plot_curves(
                row["curves"], os.path.join(args.images, name),
                "%s, batch %d, %d×%d" % (row["model"], args.batch,
                                         args.resolution, args.resolution),
                marker=("PyTorch min-cut", cut["peak_bytes"], cut["cost"]))
            where = os.path.dirname(os.path.abspath(args.markdown or "."))
            parts.append("![%s](%s)\n" % (row["model"], os.path.relpath(
                os.path.join(args.images, name), where)))
        parts.append(model_table(row, grid))
        parts.append("")
    return "\n".join(parts) + "\n"


if __name__ == "__main__":
    main()
