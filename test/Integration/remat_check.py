#!/usr/bin/env python3
"""End-to-end check of --remat-pipeline on one training step (CPU).

For each budget (percentages of the checkpoint-all peak, and the smallest
feasible budget), rematerializes the step with remat-opt, runs the original
and the rematerialized program with remat-run, and checks:

  * every result is BITWISE identical (FNV-1a hash of the raw bytes);
  * measured peak (heap peak + the inputs remat-run allocates, which the
    memory model counts as resident arguments) <= the plan's budget, up to
    --budget-slack (docs/Rematerialization.md, "The memory promise"); with
    host copies (--options="host-link=... arena=false", docs/Offload.md),
    the device's part of it: the heap peak less the host copies' peak;
  * measured peak exceeds the predicted one by at most --bound, and falls
    short of it by at most --under-bound (fractions of the predicted peak;
    docs/Rematerialization.md explains the difference: bufferization writes
    in place into dying operands, which the tensor model does not count, so
    the model errs on the safe side);
  * nothing leaks;
  * the step itself computes the same bits in one arena (the default
    lowering, docs/Arena.md) and with each buffer on its own.

With --after, the rematerialized step is first run through more passes
(e.g. --after="--canonicalize --cse"), as a compiler that cleans up after the
pipeline would, and the checks apply to that program: the plan must survive.
With --stock-pipeline, the step is then bufferized by the stock mlir-opt
(loading RematPlugin.so for --remat-strip-barriers) before remat-run lowers
and measures it.

An infeasible budget must be rejected with an error naming a smallest
feasible budget larger than the one asked for; with --ask-smallest that
budget is then checked as the others.

Exit status 0 when every check holds; prints one line per budget, or a
Markdown table row per budget with --markdown (bench/remat-table.sh).
"""

import argparse
import json
import os
import re
import subprocess
import sys
import tempfile
import time


def run(cmd):
    return subprocess.run(cmd, capture_output=True, text=True)


def remat_run(args, path, pipeline=None):
    cmd = [args.remat_run, path, "--json", "--repeat=%d" % args.repeat]
    if pipeline:
        cmd.append("--pipeline=" + pipeline)
    if args.opt_level is not None:
        cmd.append("--opt-level=%d" % args.opt_level)
    out = run(cmd)
    if out.returncode != 0:
        sys.exit("remat-run failed on %s:\n%s" % (path, out.stderr))
    return json.loads(out.stdout)


PLAN_RE = re.compile(
    r"remat\.plan = #remat\.plan<solver = \"([^\"]+)\", mode = \"([^\"]+)\", "
    r"status = \"([^\"]+)\", budget = (\d+), predicted_peak = (\d+), "
    r"baseline_peak = (\d+), cost = (\d+), baseline_cost = (\d+)")


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("step")
    parser.add_argument("--remat-opt", default="remat-opt")
    parser.add_argument("--remat-run", default="remat-run")
    parser.add_argument("--solver", default="local-search")
    parser.add_argument("--budgets", default="100%,70%,50%,min")
    parser.add_argument("--bound", type=float, default=0.10,
                        help="max (measured - predicted) / predicted")
    parser.add_argument("--under-bound", type=float, default=0.20,
                        help="max (predicted - measured) / predicted")
    parser.add_argument("--budget-slack", type=float, default=0.0,
                        help="allowed measured overshoot over the budget, as "
                             "a fraction of the budget")
    parser.add_argument("--options", default="",
                        help="more --remat-pipeline options, e.g. "
                             "'host-link=ideal arena=false'")
    parser.add_argument("--repeat", type=int, default=1)
    parser.add_argument("--opt-level", type=int,
                        help="remat-run --opt-level for every run (the "
                             "original and the rematerialized step alike)")
    parser.add_argument("--markdown", action="store_true")
    parser.add_argument("--ask-smallest", action="store_true",
                        help="ask again at the smallest feasible budget an "
                             "infeasible one names (it must plan)")
    parser.add_argument("--stock-pipeline", default="",
                        help="bufferize the (cleaned-up) rematerialized step "
                             "with this --pass-pipeline in the stock mlir-opt "
                             "(--mlir-opt) loading --plugin, and measure that")
    parser.add_argument("--mlir-opt", default="mlir-opt")
    parser.add_argument("--plugin", default="")
    parser.add_argument("--after", default="",
                        help="remat-opt flags run on the rematerialized step "
                             "before it is measured, e.g. "
                             "--after='--canonicalize --cse'")
    args = parser.parse_args()

    name = os.path.basename(args.step)
    original = remat_run(args, args.step)
    failures = []
    # The step lowered into one arena (the default, docs/Arena.md) and with
    # each buffer on its own computes the same bits.
    own = remat_run(args, args.step,
                    "builtin.module(remat-lower-to-cpu{arena=false})")
    if [r["fnv1a64"] for r in own["results"]] != \
            [r["fnv1a64"] for r in original["results"]]:
        failures.append("the arena changes the results of the step")
    elif not args.markdown:
        print("%s: bitwise identical with and without the arena (heap %d "
              "bytes in one arena, %d each buffer on its own)" %
              (name, original["peak_bytes"], own["peak_bytes"]))
    with tempfile.TemporaryDirectory() as tmp:
        budgets = args.budgets.split(",")
        for budget in budgets:
            options = "solver=%s %s " % (args.solver, args.options)
            options += "mode=min-budget" if budget == "min" else \
                "budget=%s" % budget
            path = os.path.join(tmp, "step.mlir")
            start = time.time()
            opt = run([args.remat_opt, args.step,
                       "--remat-pipeline=%s" % options,
                       "--mlir-print-op-on-diagnostic=false", "-o", path])
            opt_seconds = time.time() - start
            if opt.returncode != 0:
                asked = re.search(r"budget of (\d+) bytes is infeasible",
                                  opt.stderr)
                smallest = re.search(
                    r"the smallest feasible budget is (\d+) bytes", opt.stderr)
                if not asked or not smallest or \
                        int(smallest.group(1)) <= int(asked.group(1)):
                    failures.append("%s: remat-opt failed:\n%s" %
                                    (budget, opt.stderr))
                    continue
                line = "%s %s: infeasible (%s bytes asked; smallest feasible "\
                    "%s bytes)" % (name, budget, asked.group(1),
                                   smallest.group(1))
                if args.markdown:
                    line = "| %s | %s (%s B) | infeasible: smallest feasible "\
                        "%s B | | | | | |" % (name, budget, asked.group(1),
                                              smallest.group(1))
                print(line)
                if args.ask_smallest:
                    budgets.append(smallest.group(1))
                continue
            if args.after:
                cleaned = os.path.join(tmp, "after.mlir")
                after = run([args.remat_opt, path] + args.after.split() +
                            ["--mlir-print-op-on-diagnostic=false", "-o",
                             cleaned])
                if after.returncode != 0:
                    failures.append("%s: remat-opt %s failed:\n%s" %
                                    (budget, args.after, after.stderr))
                    continue
                path = cleaned
            with open(path) as f:
                text = f.read()
            plan = PLAN_RE.search(text)
            if not plan:
                failures.append("%s: no remat.plan in the output" % budget)
                continue
            plan_budget = int(plan.group(4))
            predicted = int(plan.group(5))
            cost, base_cost = int(plan.group(7)), int(plan.group(8))
            solve = re.search(r"solved in ([0-9.]+) s", opt.stderr)
            if args.stock_pipeline:
                bufferized = os.path.join(tmp, "stock.mlir")
                stock = run([args.mlir_opt, path,
                             "--load-dialect-plugin=" + args.plugin,
                             "--load-pass-plugin=" + args.plugin,
                             "--pass-pipeline=" + args.stock_pipeline,
                             "-o", bufferized])
                if stock.returncode != 0:
                    failures.append("%s: stock mlir-opt failed:\n%s" %
                                    (budget, stock.stderr))
                    continue
                path = bufferized
            result = remat_run(args, path)

            hashes = [r["fnv1a64"] for r in result["results"]]
            expected = [r["fnv1a64"] for r in original["results"]]
            if hashes != expected:
                failures.append("%s: results differ: %s vs %s" %
                                (budget, hashes, expected))
            host = result.get("host_peak_bytes", 0)
            measured = result["peak_bytes"] - host + result["input_bytes"]
            if measured > plan_budget * (1 + args.budget_slack):
                failures.append("%s: measured peak %d > budget %d" %
                                (budget, measured, plan_budget))
            diff = measured - predicted
            bound = args.bound if diff > 0 else args.under_bound
            if abs(diff) > bound * predicted:
                failures.append("%s: measured %d vs predicted %d: off by "
                                "more than %.0f%%" % (budget, measured,
                                                      predicted, 100 * bound))
            if result["leaked_bytes"] != 0:
                failures.append("%s: %d bytes leaked" %
                                (budget, result["leaked_bytes"]))
            flops = 100.0 * (cost - base_cost) / base_cost if base_cost else 0
            t0 = original["time_ms_median"]
            t1 = result["time_ms_median"]
            time_overhead = 100.0 * (t1 - t0) / t0 if t0 else 0
            if args.markdown:
                print("| %s | %s (%d B) | %d | %d | %+.1f%% | %+.1f%% | %s s "
                      "| %s |" % (name, budget, plan_budget, predicted,
                                  measured, flops, time_overhead,
                                  solve.group(1) if solve else "?",
                                  "yes" if hashes == expected else "NO"))
            else:
                copies = " host peak %d, %d copies," % (
                    host, result["host_copies"]) if host else ""
                print("%s %s: budget %d, predicted %d, measured %d (%+d),%s "
                      "flops %+.1f%%, bitwise %s" %
                      (name, budget, plan_budget, predicted, measured, diff,
                       copies, flops,
                       "identical" if hashes == expected else "DIFFER"))
    for failure in failures:
        print("FAIL " + failure, file=sys.stderr)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
