#!/usr/bin/python3
"""Keep, recompute or offload: predicted step time on language models.

For each time-costed graph (costs are roofline picoseconds on an H100, as
bench/lm.py writes them: `<work>/<model>.h100.json`), at budgets from full
activation checkpointing's own peak down towards the smallest budget a
recompute-only plan meets, this plans the step three ways with remat-solve
(docs/Offload.md):

  * recompute only (`--offload=recompute`, the plan without a link);
  * offload only (`--offload=offload`: every value computed once, what does
    not fit copied to the host and back);
  * joint (`--offload=joint`, the default);

over PCIe 5.0 x16 and NVLink-C2C (`--host-link=pcie5|c2c`), and writes one
Markdown table: the predicted time overhead over the step without
checkpointing (compute plus the stalls on copies), the host bytes and what
stalls. Results are cached in --work (delete a file to rerun it); not a
test.

  bench/offload.py [--work DIR] [--models gpt2-small,llama-60m,llama-8b]
                   [--fractions 1,0.9,0.8,0.7] [--markdown FILE] [--effort E]
"""

import argparse
import json
import os
import subprocess
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SOLVE = os.path.join(ROOT, "build", "bin", "remat-solve")
LINKS = ["pcie5", "c2c"]


def solve(work, graph, name, args):
    """remat-solve's result JSON for `args`, cached as <work>/<name>.json."""
    path = os.path.join(work, name + ".json")
    if not os.path.exists(path):
        start = time.time()
        out = subprocess.run([SOLVE, graph, "-o", path, "--quiet"] + args,
                             capture_output=True, text=True)
        if out.returncode != 0:
            sys.exit("remat-solve %s failed:\n%s" % (" ".join(args),
                                                      out.stderr))
        print("%s: %.1f s" % (name, time.time() - start), file=sys.stderr)
    with open(path) as f:
        return json.load(f)


def overhead(result):
    """Predicted time over checkpoint-all's, in percent; None if no plan."""
    if result["status"] not in ("feasible", "optimal"):
        return None
    stats = result["stats"]
    time_ = stats.get("predicted_time", stats["cost"])
    return 100.0 * (time_ / stats["checkpoint_all_cost"] - 1)


def cell(result):
    value = overhead(result)
    if value is None:
        return "no plan"
    stats = result["stats"]
    stall = stats.get("stall") or 0
    text = "%.1f %%" % value
    if stall > 0:
        text += " (stalls %.1f %%)" % (100.0 * stall /
                                       stats["checkpoint_all_cost"])
    return text


def rows(work, model, effort, fractions):
    graph = os.path.join(work, model + ".h100.json")
    if not os.path.exists(graph):
        sys.exit("no graph %s: run bench/lm.py --work %s first" % (graph,
                                                                   work))
    full = solve(work, graph, model + ".off.full-ac",
                 ["--policy=full-ac", "--budget=100%"])
    peak = full["stats"]["peak_bytes"]
    out = []
    for fraction in fractions:
        budget = int(peak * fraction)
        common = ["--budget=%d" % budget, "--effort=%g" % effort]
        tag = "%s.off.%d" % (model, round(100 * fraction))
        recompute = solve(work, graph, tag + ".recompute", common)
        cells = {}
        for link in LINKS:
            for choice in ("offload", "joint"):
                cells[link, choice] = solve(
                    work, graph, "%s.%s.%s" % (tag, link, choice),
                    common + ["--host-link=" + link, "--offload=" + choice])
        joint_c2c = cells["c2c", "joint"]
        host = joint_c2c["stats"].get("host_peak_bytes") or 0
        ratio = ""
        base = overhead(recompute)
        joint = overhead(joint_c2c)
        if base and joint is not None:
            ratio = "%.2fx" % (joint / base)
        out.append("| %s | %s %.2f GB | %s | %s | %s | %s | %s | %s | %.2f |"
                   % (model, "full-ac's peak" if fraction == 1.0 else
                      "%d %% of it," % round(100 * fraction), budget / 1e9,
                      cell(recompute), cell(cells["pcie5", "offload"]),
                      cell(cells["pcie5", "joint"]),
                      cell(cells["c2c", "offload"]), cell(joint_c2c), ratio,
                      host / 1e9))
    return out


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--work", default="bench-lm")
    parser.add_argument("--models", default="gpt2-small,llama-60m")
    parser.add_argument("--markdown", default="")
    parser.add_argument("--effort", type=float, default=1.0)
    parser.add_argument("--fractions", default="1,0.9,0.8,0.7",
                        help="budgets, as fractions of full checkpointing's "
                             "peak")
    args = parser.parse_args()
    lines = ["| model | budget | recompute only | offload only, PCIe 5 | "
             "joint, PCIe 5 | offload only, C2C | joint, C2C | joint C2C / "
             "recompute | host GB (joint, C2C) |",
             "|---|---|---:|---:|---:|---:|---:|---:|---:|"]
    for model in args.models.split(","):
        lines += rows(args.work, model, args.effort,
                      [float(f) for f in args.fractions.split(",")])
    text = "\n".join(lines) + "\n"
    if args.markdown:
        with open(args.markdown, "w") as f:
            f.write(text)
    sys.stdout.write(text)


if __name__ == "__main__":
    main()
