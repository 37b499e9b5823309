#!/usr/bin/env python3
# ===- arena.py - arena vs sum-of-live peak vs the system allocator --------=== #
#
# Part of the remat-opt project.
#
# ===-----------------------------------------------------------------------=== #
"""Benchmarks the static memory plan (docs/Arena.md) on training steps.

For every step and budget (100 %, 70 % and the smallest feasible, `min`):

  plan      remat-opt --remat-pipeline="solver=S budget=B" (arena=true):
            the sum-of-live peak of the plan (predicted_peak) and its arena
            at planning time (remat.plan's arena), both with the resident
            arguments;
  lowering  the planned step bufferized each buffer on its own
            (--remat-bufferize=arena=false), then remat-plan-arena with
            effort=greedy, search and exact (exact-nodes=N): the arena of the
            buffers that run and the most bytes they hold at once (their
            lower bound), arguments added;
  measured  remat-run of the planned step in one arena and each buffer on
            its own: the tracker's peak + inputs, and the RSS growth of the
            process during the step (remat-run --json: peak_bytes,
            rss_growth_bytes, arena_bytes).

Prints a Markdown table (docs/Arena.md, "Benchmark"). With --timeout S a
command that runs longer than S seconds ends its row, which names the stage
(plan, bufferize, effort=..., run) and the seconds each stage took; --times
adds those seconds to every row. Usage:

  python3 bench/arena.py [--build build] [--solver local-search]
      [--exact-nodes N] [--opt-level L] [--timeout S] [--times] STEP.mlir...
"""

import argparse
import json
import os
import re
import subprocess
import sys
import time

PLAN_RE = re.compile(r"remat\.plan = #remat\.plan<[^>]*budget = (\d+), "
                     r"predicted_peak = (\d+)[^>]*?(?:, arena = (\d+))?>")
ARENA_RE = re.compile(r"remark: arena of (\d+) bytes for \d+ buffer\(s\) of "
                      r"'[^']*', ([a-z-]+)(, optimal)? \(the most they hold "
                      r"at once: (\d+) bytes\)")


class StageTimeout(Exception):
    """A command of the row ran past --timeout."""


def run(args, stage, cmd):
    """Runs one command of a row; its seconds go to args.stages[stage]."""
    start = time.monotonic()
    try:
        return subprocess.run(cmd, capture_output=True, text=True,
                              timeout=args.timeout)
    except subprocess.TimeoutExpired:
        raise StageTimeout(stage)
    finally:
        args.stages[stage] = time.monotonic() - start


def plan(args, step, budget, out):
    option = "mode=min-budget" if budget == "min" else "budget=" + budget
    result = run(args, "plan", [args.remat_opt, step, "--remat-pipeline=solver=%s %s" %
                  (args.solver, option), "-o", out])
    if result.returncode != 0:
        return None, result.stderr.strip().splitlines()[0][:120]
    match = PLAN_RE.search(open(out).read())
    return match, None


def lowering_arenas(args, planned, tmp):
    """effort -> (arena, planner, optimal, lower bound), buffers own."""
    bufferized = os.path.join(tmp, "bufferized.mlir")
    result = run(args, "bufferize", [args.remat_opt, planned,
                                     "--remat-bufferize=arena=false",
                  "-o", bufferized])
    if result.returncode != 0:
        return {}
    arenas = {}
    for effort in ("greedy", "search", "exact"):
        result = run(args, "effort=" + effort, [args.remat_opt, bufferized,
                      "--remat-plan-arena=effort=%s exact-nodes=%d" %
                      (effort, args.exact_nodes),
                      "--mlir-print-op-on-diagnostic=false", "-o", os.devnull])
        match = ARENA_RE.search(result.stderr)
        if match:
            arenas[effort] = (int(match.group(1)), match.group(2),
                              bool(match.group(3)), int(match.group(4)))
    return arenas


def measure(args, planned, arena):
    """(tracker peak + inputs, RSS growth, inputs, arena_bytes) of remat-run
    --json, in one arena or each buffer on its own."""
    pipeline = "builtin.module(remat-lower-to-cpu{arena=%s})" % (
        "true" if arena else "false")
    result = run(args, "run arena" if arena else "run own",
                 [args.remat_run, planned, "--json", "--opt-level=%d" %
                  args.opt_level, "--pipeline=" + pipeline])
    if result.returncode != 0:
        return None
    report = json.loads(result.stdout)
    inputs = report["input_bytes"]
    return (report["peak_bytes"] + inputs, report["rss_growth_bytes"],
            inputs, report["arena_bytes"])


def percent(value, base):
    return "%+.1f%%" % (100.0 * (value - base) / base) if base else "?"


def stage_times(args):
    return ", ".join("%s %.0f s" % (stage, seconds)
                     for stage, seconds in args.stages.items())


def row(args, step, budget, tmp):
    """The table row of one step and budget; a stage over --timeout ends it."""
    args.stages = {}
    name = os.path.basename(step)
    try:
        text = measured_row(args, name, step, budget, tmp)
    except StageTimeout as timeout:
        text = "| %s | %s | timed out: %s over %g s (%s) | | | | | | | |" % (
            name, budget, timeout.args[0], args.timeout, stage_times(args))
    if args.times:
        print("%s %s: %s" % (name, budget, stage_times(args)), file=sys.stderr,
              flush=True)
    return text


def measured_row(args, name, step, budget, tmp):
    planned = os.path.join(tmp, "planned.mlir")
    match, error = plan(args, step, budget, planned)
    if not match:
        return "| %s | %s | %s | | | | | | | |" % (name, budget, error)
    budget_bytes, peak = int(match.group(1)), int(match.group(2))
    plan_arena = int(match.group(3)) if match.group(3) else 0
    arenas = lowering_arenas(args, planned, tmp)
    with_arena = measure(args, planned, True)
    own = measure(args, planned, False)
    if not arenas or not with_arena or not own:
        return "| %s | %s | measurement failed | | | | | | | |" % (name,
                                                                  budget)
    # The arguments, which remat-run allocates and the plan counts.
    resident = with_arena[2]
    cells = []
    for effort in ("greedy", "search", "exact"):
        if effort not in arenas:
            cells.append("—")
            continue
        bytes_, planner, optimal, bound = arenas[effort]
        cells.append("%d (%s%s)" % (bytes_ + resident,
                                    percent(bytes_, bound),
                                    ", opt" if optimal else ""))
    bound = arenas["greedy"][3] + resident
    return ("| %s | %s (%d) | %d | %d (%s) | %d | %s | %s | %s | %d / %d | "
            "%d / %d |" % (name, budget, budget_bytes, peak, plan_arena,
                           percent(plan_arena, peak), bound, cells[0],
                           cells[1], cells[2], with_arena[0], with_arena[1],
                           own[0], own[1]))


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("steps", nargs="+")
    parser.add_argument("--build", default="build")
    parser.add_argument("--solver", default="local-search")
    parser.add_argument("--budgets", default="100%,70%,min")
    parser.add_argument("--exact-nodes", type=int, default=1000000)
    parser.add_argument("--opt-level", type=int, default=2,
                        help="remat-run's LLVM level (0 for the largest "
                        "imported steps, as their tests run them)")
    parser.add_argument("--timeout", type=float, default=None,
                        help="seconds one command may run (default: no limit)")
    parser.add_argument("--times", action="store_true",
                        help="print each row's seconds per stage on stderr")
    args = parser.parse_args()
    args.remat_opt = os.path.join(args.build, "bin", "remat-opt")
    args.remat_run = os.path.join(args.build, "bin", "remat-run")
    print("| step | budget (B) | sum-of-live peak | plan arena | run: most "
          "live | run: greedy | run: search | run: exact | measured arena / "
          "RSS growth | measured own / RSS growth |")
    print("|---|---|---|---|---|---|---|---|---|---|")
    tmp = os.path.join(os.environ.get("TMPDIR", "/tmp"), "remat-arena-bench")
    os.makedirs(tmp, exist_ok=True)
    for step in args.steps:
        for budget in args.budgets.split(","):
            print(row(args, step, budget, tmp), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
