#!/usr/bin/python3
"""remat-report: pictures of a rematerialization plan for one training graph.

Given a remat-solve JSON graph (remat-import-torch --emit-graph writes one,
with module paths), runs remat-solve and writes to --out:

  memory.png   (a) live memory over the step: checkpoint-all (the original
               step) and the plan at --budget, the budget line, each peak
               labelled with its node and module path;
  curves.png   (b) recompute overhead against peak memory per solver
               (remat-solve --mode=pareto), Checkmate's Figure 5 style;
  layers.png   (c) per layer: forward values the backward reads, kept or
               recomputed by the plan;
  index.html   the three pictures and their numbers;
  summary.json the numbers, for scripts and tests.

scripts/report.sh imports a torchvision model and calls this. See
docs/Report.md.
"""

import argparse
import html
import json
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import report_plots  # noqa: E402  (after the path tweak)
import solve_runner  # noqa: E402
from solve_runner import human  # noqa: E402

DEFAULT_CURVES = "checkpoint-all,chen-greedy,feng-huang,min-cut,hierarchical"


def fail(message):
    sys.stderr.write("remat-report: error: %s\n" % message)
    sys.exit(1)


def parse_args(argv):
    p = argparse.ArgumentParser(prog="remat-report",
                                description=__doc__.splitlines()[0])
    p.add_argument("graph", help="remat-solve JSON graph")
    p.add_argument("--out", required=True, help="output directory")
    p.add_argument("--budget", default="50%",
                   help="plan budget: bytes or %% of checkpoint-all (50%%)")
    p.add_argument("--solver", default="auto", help="solver of the plan")
    p.add_argument("--curves", default=DEFAULT_CURVES,
                   help="comma-separated solvers for the curve plot")
    p.add_argument("--points", type=int, default=8,
                   help="budgets per curve (remat-solve --points)")
    p.add_argument("--time-limit", type=float, default=10.0,
                   help="remat-solve --time-limit per solve (s)")
    p.add_argument("--depth", type=int, default=2,
                   help="module path components per layer (layer1.0: 2)")
    p.add_argument("--format", choices=["png", "svg"], default="png")
    p.add_argument("--remat-solve", help="the remat-solve binary (default: "
                   "$REMAT_BUILD_DIR/bin, build/bin, PATH)")
    args = p.parse_args(argv)
    args.note = ""
    return args


def run_plan(args, tool):
    """(checkpoint-all result, the plan's result), both with steps."""
    limit = "--time-limit=%g" % args.time_limit
    try:
        base, _ = solve_runner.solve(tool, args.graph, "checkpoint-all",
                                     "--budget=100%")
        plan, seconds = solve_runner.solve(tool, args.graph, args.solver,
                                           "--budget=" + args.budget, limit)
        if not solve_runner.solved(plan):
            plan, seconds = smallest_budget_plan(args, tool, plan, limit)
        if not solve_runner.solved(plan):
            fail("no plan at budget %s with solver '%s': %s" % (
                args.budget, args.solver, plan["stats"].get("message", "")))
    except solve_runner.SolveError as e:
        fail(str(e))
    plan["wall_seconds"] = seconds
    return base, plan


def smallest_budget_plan(args, tool, failed, limit):
    """The plan at the smallest budget the solver meets, when --budget is
    out of its reach (said on stderr and in the report)."""
    least, _ = solve_runner.solve(tool, args.graph, args.solver,
                                  "--mode=min-budget", limit)
    if not solve_runner.solved(least):
        fail("no plan at budget %s with solver '%s': %s" % (
            args.budget, args.solver, failed["stats"].get("message", "")))
    smallest = least["stats"]["smallest_budget"]
    args.note = ("budget %s is infeasible for '%s' (%s); the plan shown is at "
                 "its smallest feasible budget, %s (%.1f%% of "
                 "checkpoint-all)" % (
                     args.budget, args.solver,
                     failed["stats"].get("message", ""), human(smallest),
                     100.0 * smallest /
                     least["stats"]["checkpoint_all_peak_bytes"]))
    sys.stderr.write("remat-report: warning: %s\n" % args.note)
    args.budget = str(smallest)
    return solve_runner.solve(tool, args.graph, args.solver,
                              "--budget=" + args.budget, limit)


def checked_timeline(graph, result, label):
    """The replayed timeline; its peak must be remat-solve's."""
    try:
        timeline = report_plots.replay(graph, result["steps"])
    except report_plots.ReplayError as e:
        fail("%s: cannot replay the schedule: %s" % (label, e))
    peak = report_plots.peak_of(timeline)[2]
    if peak != result["stats"]["peak_bytes"]:
        fail("%s: replayed peak %d bytes, remat-solve says %d" % (
            label, peak, result["stats"]["peak_bytes"]))
    return timeline


def run_curves(args, tool):
    curves = {}
    for solver in args.curves.split(","):
        try:
            curve, seconds = solve_runner.solve(
                tool, args.graph, solver, "--mode=pareto",
                "--points=%d" % args.points,
                "--time-limit=%g" % args.time_limit)
        except solve_runner.SolveError as e:
            fail(str(e))
        curve["wall_seconds"] = seconds
        curves[solver] = curve
    return curves


def peak_info(graph, timeline):
    _, nid, peak = report_plots.peak_of(timeline)
    node = graph["nodes"][nid]
    return {"peak_bytes": peak, "peak_node": node["name"],
            "peak_path": node.get("path", ""), "steps": len(timeline)}


def summarize(args, graph, base, plan, timelines, curves, layers):
    stats = plan["stats"]
    return {
        "graph": graph.get("name", ""),
        "nodes": len(graph["nodes"]),
        "solver": args.solver,
        "budget_bytes": stats["budget"],
        "note": args.note,
        "resident": report_plots.resident_parts(graph),
        "checkpoint_all": peak_info(graph, timelines[0]),
        "plan": dict(peak_info(graph, timelines[1]),
                     status=plan["status"], cost=stats["cost"],
                     checkpoint_all_cost=stats["checkpoint_all_cost"],
                     overhead=stats["overhead"],
                     lower_bound=stats["lower_bound"], gap=stats["gap"],
                     solve_seconds=stats["solve_seconds"]),
        "curves": {s: {"status": c["status"],
                       "smallest_budget": c.get("smallest_budget"),
                       "budget_lower_bound": c.get("budget_lower_bound"),
                       "seconds": c["wall_seconds"],
                       "points": [{k: p[k] for k in ("budget", "peak_bytes",
                                                     "cost", "overhead")}
                                  for p in c.get("points", [])]}
                   for s, c in curves.items()},
        "layers": layers,
        "images": {"memory": "memory." + args.format,
                   "curves": "curves." + args.format,
                   "layers": "layers." + args.format},
    }


def main(argv=None):
    args = parse_args(argv)
    tool = solve_runner.find_tool("remat-solve", args.remat_solve)
    if not tool:
        fail("no remat-solve: build it (scripts/build.sh) or pass "
             "--remat-solve")
    try:
        with open(args.graph) as f:
            graph = report_plots.normalize(json.load(f))
    except (OSError, ValueError) as e:
        fail("cannot read graph '%s': %s" % (args.graph, e))
    os.makedirs(args.out, exist_ok=True)
    base, plan = run_plan(args, tool)
    timelines = [checked_timeline(graph, base, "checkpoint-all"),
                 checked_timeline(graph, plan, args.solver)]
    curves = run_curves(args, tool)
    layers = report_plots.layer_table(graph, plan["steps"], args.depth)
    summary = summarize(args, graph, base, plan, timelines, curves, layers)
    draw(args, graph, summary, timelines, curves, layers)
    with open(os.path.join(args.out, "summary.json"), "w") as f:
        json.dump(summary, f, indent=1)
    with open(os.path.join(args.out, "index.html"), "w") as f:
        f.write(render_html(summary))
    print("remat-report: %s: checkpoint-all %s -> %s %s at budget %s "
          "(+%.1f%% compute); wrote %s" % (
              summary["graph"], human(summary["checkpoint_all"]["peak_bytes"]),
              args.solver, human(summary["plan"]["peak_bytes"]),
              human(summary["budget_bytes"]),
              100 * summary["plan"]["overhead"],
              os.path.join(args.out, "index.html")))
    return 0


def draw(args, graph, summary, timelines, curves, layers):
    out = lambda key: os.path.join(args.out, summary["images"][key])
    name = summary["graph"]
    report_plots.plot_memory(
        [("checkpoint-all", graph, timelines[0]),
         ("%s at %s" % (args.solver, human(summary["budget_bytes"])), graph,
          timelines[1])],
        summary["budget_bytes"], out("memory"), "%s: memory over the step"
        % name, resident=summary["resident"])
    plan = summary["plan"]
    report_plots.plot_curves(curves, out("curves"),
                             "%s: recompute vs peak memory" % name,
                             marker=("%s plan" % args.solver,
                                     plan["peak_bytes"], plan["cost"]))
    report_plots.plot_layers(layers, out("layers"),
                             "%s: kept vs recomputed by layer (%s at %s)"
                             % (name, args.solver,
                                human(summary["budget_bytes"])))


def render_html(s):
    e = html.escape
    plan, base = s["plan"], s["checkpoint_all"]
    rows = [
        ("checkpoint-all peak", "%s at %s (%s)" % (
            human(base["peak_bytes"]), base["peak_node"], base["peak_path"])),
        ("resident", report_plots.resident_label(s["resident"])),
        ("budget", human(s["budget_bytes"])),
        ("%s peak" % s["solver"], "%s at %s (%s)" % (
            human(plan["peak_bytes"]), plan["peak_node"], plan["peak_path"])),
        ("recompute overhead", "%.2f %%" % (100 * plan["overhead"])),
        ("gap to the lower bound", "%.2f %%" % (100 * plan["gap"])),
        ("solve time", "%.2f s" % plan["solve_seconds"]),
    ]
    curve_rows = "".join(
        "<tr><td>%s</td><td>%s</td><td>%s</td><td>%d</td><td>%.1f</td></tr>"
        % (e(solver), e(c["status"]), human(c["smallest_budget"]),
           len(c["points"]), c["seconds"])
        for solver, c in s["curves"].items())
    layer_rows = "".join(
        "<tr><td>%s</td><td>%s</td><td>%s</td><td>%.3f</td></tr>" % (
            e(name), human(v["kept"]), human(v["recomputed"]),
            v["recompute_flops"] / 1e9)
        for name, v in s["layers"].items())
    return """<!DOCTYPE html>
<html><head><meta charset="utf-8"><title>remat report: {name}</title>
<style>body{{font-family:sans-serif;max-width:1000px;margin:auto}}
td,th{{padding:2px 8px;text-align:right}}td:first-child{{text-align:left}}
img{{max-width:100%}}</style></head><body>
<h1>Rematerialization report: {name}</h1>
<p>{nodes} nodes; plan by <b>{solver}</b>, status {status}.</p>{note}
<table>{summary}</table>
<h2>Memory over the step</h2>
<img src="{memory}" alt="memory over time">
<h2>Recompute vs peak memory, per solver</h2>
<img src="{curves}" alt="compute vs budget">
<table><tr><th>solver</th><th>status</th><th>smallest budget</th>
<th>points</th><th>curve time (s)</th></tr>{curve_rows}</table>
<h2>Kept vs recomputed, by layer</h2>
<img src="{layers}" alt="kept vs recomputed by layer">
<table><tr><th>layer</th><th>kept</th><th>recomputed</th>
<th>recompute (GFLOP)</th></tr>{layer_rows}</table>
</body></html>
""".format(name=e(s["graph"]), nodes=s["nodes"], solver=e(s["solver"]),
           status=e(plan["status"]),
           note="<p><b>Note:</b> %s.</p>" % e(s["note"]) if s["note"] else "",
           summary="".join("<tr><td>%s</td><td>%s</td></tr>" % (e(k), e(v))
                           for k, v in rows),
           memory=e(s["images"]["memory"]), curves=e(s["images"]["curves"]),
           layers=e(s["images"]["layers"]), curve_rows=curve_rows,
           layer_rows=layer_rows)


if __name__ == "__main__":
    sys.exit(main())
