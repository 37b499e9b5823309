#!/usr/bin/env python3
"""Solver benchmark on joint training graphs of real networks.

For every graph in a bench-graphs folder (aten/ and decomposed/, with a
README.md table of the peers' numbers, as in shared/bench-graphs), runs
remat-solve and prints a Markdown table (docs/Benchmarks-solvers.md):

  * the smallest feasible budget `--solver` finds (--mode=min-budget), as a
    multiple of the physical lower bound (target <= 1.3);
  * its recompute at PyTorch min-cut's peak (target <= min-cut's recompute);
  * its smallest peak within one extra forward pass (--mode=min-peak), as a
    fraction of min-cut's peak (target <= 0.7 on decomposed resnet50 and
    mobilenet_v2);
  * the wall time of one solve at 70 % of the checkpoint-all peak.

  bench/real-graphs.py [--remat-solve build/bin/remat-solve]
                       [--graphs ../shared/bench-graphs] [--solver auto]
"""

import argparse
import os
import re
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(
    os.path.abspath(__file__))), "tools", "remat-report"))

import solve_runner  # noqa: E402  (after the path tweak)
from solve_runner import MIB  # noqa: E402


def peers(readme):
    """{(graph, set): row} from the README's table."""
    rows = {}
    for line in open(readme):
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if len(cells) != 8 or not re.match(r"^[a-z]", cells[0]):
            continue
        if cells[0] == "graph":
            continue
        rows[(cells[0], cells[1])] = {
            "nodes": int(cells[2]),
            "all": float(cells[3]),
            "bound": float(cells[4]),
            "mincut_peak": float(cells[5]),
            "mincut_gflop": float(cells[6]),
            "forward_gflop": float(cells[7]),
        }
    return rows


def solve(tool, graph, solver, *args):
    """(stats or None when there is no schedule, wall seconds)."""
    result, seconds = solve_runner.solve(tool, graph, solver, *args)
    return (result["stats"] if solve_runner.solved(result) else None,
            seconds)


def row(tool, graphs, solver, key, peer):
    name, form = key
    path = os.path.join(graphs, form, name + ".json")
    least, _ = solve(tool, path, solver, "--mode=min-budget")
    budget = int(peer["mincut_peak"] * MIB)
    at_cut, _ = solve(tool, path, solver, "--budget=%d" % budget)
    min_peak, _ = solve(tool, path, solver, "--mode=min-peak")
    _, seconds70 = solve(tool, path, solver, "--budget=70%")

    def mib(stats, field="peak_bytes"):
        return "%.1f" % (stats[field] / MIB) if stats else "none"

    smallest = least["smallest_budget"] / MIB if least else None
    recompute = ((at_cut["cost"] - at_cut["checkpoint_all_cost"]) / 1e9
                 if at_cut else None)
    cells = [
        name, form, str(peer["nodes"]), "%.1f" % peer["all"],
        "%.1f" % peer["bound"],
        "%.1f" % smallest if smallest else "none",
        "%.2f" % (smallest / peer["bound"]) if smallest else "-",
        "%.1f" % peer["mincut_peak"], "%.2f" % peer["mincut_gflop"],
        "%.3f" % recompute if recompute is not None else "infeasible",
        mib(min_peak),
        "%.2f" % (min_peak["peak_bytes"] / MIB / peer["mincut_peak"])
        if min_peak else "-",
        "%.1f" % seconds70,
    ]
    return "| " + " | ".join(cells) + " |"


def main():
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--remat-solve",
                        default=os.path.join(root, "build/bin/remat-solve"))
    parser.add_argument("--graphs",
                        default=os.path.join(root, "../shared/bench-graphs"))
    parser.add_argument("--solver", default="auto")
    parser.add_argument("--only", default="",
                        help="only graphs whose name contains this")
    args = parser.parse_args()
    table = peers(os.path.join(args.graphs, "README.md"))
    if not table:
        sys.exit("no peer table in %s/README.md" % args.graphs)
    print("| graph | set | nodes | checkpoint-all (MiB) | lower bound (MiB) "
          "| smallest feasible (MiB) | / bound | min-cut peak (MiB) "
          "| min-cut recompute (GFLOP) | ours at min-cut's peak (GFLOP) "
          "| ours min-peak, 1 fwd (MiB) | / min-cut peak | solve at 70 % (s) |")
    print("|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
    for key in sorted(table, key=lambda k: (k[1], k[0])):
        if args.only in key[0]:
            print(row(args.remat_solve, args.graphs, args.solver, key,
                      table[key]), flush=True)


if __name__ == "__main__":
    main()
