#!/usr/bin/env python3
"""Per-rank peak heap and time of a data-parallel training step vs ranks.

For each number of ranks N (default 1, 2, 4) at a fixed global batch, this
annotates the step for data parallelism over N ranks
(examples/gen/gen_training_step.py shard), runs it under
`mpirun -np N remat-run` without and with rematerialization at a per-rank
budget (default 50 % of the per-rank checkpoint-all peak), and prints a
Markdown table (docs/Distributed.md): per rank count, the largest per-rank
peak (measured heap + inputs), the per-rank budget, and the median step
time of rank 0. When --budget is infeasible for the per-rank step, the
smallest feasible per-rank budget the planner reports is used instead; the
floor column says why a budget can be infeasible: the bytes live at the
per-rank step's return (parameters, the rank's inputs and the results),
which no plan removes (remat-memory-report). It
also checks that the rematerialized run is bitwise identical to the plain
one, and within its budget, on every rank. Runs outside CI.

  bench/distributed.py [--step examples/generated/resnet8_b64.mlir]
                       [--ranks 1,2,4] [--budget 50%] [--repeat 5]
                       [--remat-run build/bin/remat-run]
                       [--remat-opt build/bin/remat-opt]
"""

import argparse
import json
import os
import re
import signal
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
GEN = os.path.join(ROOT, "examples", "gen", "gen_training_step.py")


def find_tool(name, given):
    if given:
        return given
    build = os.environ.get("REMAT_BUILD_DIR", os.path.join(ROOT, "build"))
    return os.path.join(build, "bin", name)


def mpirun(ranks):
    cmd = ["mpirun", "-np", str(ranks), "--oversubscribe"]
    if os.geteuid() == 0:
        cmd.append("--allow-run-as-root")
    return cmd


def run_bounded(cmd, timeout=None):
    """subprocess.run(cmd) with the output captured as text, in a process
    group of its own that a timeout kills whole (mpirun's ranks included)
    before subprocess.TimeoutExpired is raised."""
    with subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                          text=True, start_new_session=True) as process:
        try:
            out, err = process.communicate(timeout=timeout)
        except subprocess.TimeoutExpired:
            os.killpg(process.pid, signal.SIGKILL)
            process.communicate()
            raise
    return subprocess.CompletedProcess(cmd, process.returncode, out, err)


def run_ranks(o, step, ranks, pipeline, extra=(), timeout=None):
    """The per-rank reports of `mpirun -np RANKS remat-run STEP --json`
    (a step with no grid run on one rank: its one report, as rank 0)."""
    cmd = mpirun(ranks) + [o.remat_run, step, "--json",
                           "--repeat=%d" % o.repeat,
                           "--opt-level=%d" % o.opt_level] + list(extra)
    if pipeline:
        cmd.append("--pipeline=" + pipeline)
    out = run_bounded(cmd, timeout)
    if out.returncode != 0:
        raise subprocess.CalledProcessError(out.returncode, cmd, out.stdout,
                                            out.stderr)
    report = json.loads(out.stdout)
    return report.get("per_rank", [dict(report, rank=0, ranks=1)])


def per_rank_budget(o, step):
    """The per-rank budget in bytes (--budget, or the smallest feasible one
    when --budget is infeasible), whether --budget was feasible, and the
    per-rank checkpoint-all peak."""
    plan = lambda budget: subprocess.run(
        [o.remat_opt, step, "--remat-shard-partition",
         "--remat-pipeline=budget=" + budget],
        capture_output=True, text=True)
    out = plan(o.budget)
    feasible = out.returncode == 0
    if not feasible:
        m = re.search(r"smallest feasible budget is (\d+) bytes", out.stderr)
        if not m:
            raise SystemExit(out.stderr)
        out = plan(m.group(1))
    m = re.search(r"budget = (\d+), predicted_peak = (\d+), "
                  r"baseline_peak = (\d+)", out.stdout)
    return int(m.group(1)), feasible, int(m.group(3))


def floor_bytes(o, step):
    """The bytes live at the return of the per-rank step (parameters, the
    rank's inputs, the results), below which no plan goes."""
    out = subprocess.run([o.remat_opt, step, "--remat-shard-partition",
                          "--remat-memory-report", "-o", os.devnull],
                         check=True, capture_output=True, text=True)
    report = json.loads(out.stderr)["functions"][0]
    return report["timeline"][-1]["live_bytes"]


def row(o, work, ranks):
    step = os.path.join(work, "dp%d.mlir" % ranks)
    with open(step, "w") as f:
        subprocess.run([sys.executable, GEN, "shard", o.step, "--ranks",
                        str(ranks)], check=True, stdout=f)
    budget, feasible, baseline = per_rank_budget(o, step)
    floor = floor_bytes(o, step)
    plain = run_ranks(o, step, ranks, None)
    remat = run_ranks(o, step, ranks,
                      "builtin.module(remat-pipeline{budget=%d},"
                      "remat-lower-to-cpu)" % budget)
    for a, b in zip(plain, remat):
        if [r["fnv1a64"] for r in a["results"]] != \
           [r["fnv1a64"] for r in b["results"]]:
            raise SystemExit("rank %d: rematerialized results differ" %
                             a["rank"])
    used = lambda rs: max(r["peak_bytes"] + r["input_bytes"] for r in rs)
    if any(r["peak_bytes"] + r["input_bytes"] > budget for r in remat):
        raise SystemExit("%d ranks: a rank's measured peak exceeds its "
                         "budget" % ranks)
    return ("| %d | %d | %d (%.1f %%) | %d | %.2f | %d (%.1f %%%s) | %d | "
            "%.2f | yes |" %
            (ranks, baseline, floor, 100.0 * floor / baseline, used(plain),
             plain[0]["time_ms_median"], budget, 100.0 * budget / baseline,
             "" if feasible else ", smallest feasible", used(remat),
             remat[0]["time_ms_median"]))


def main(argv):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--step", default=os.path.join(
        ROOT, "examples", "generated", "resnet8_b64.mlir"))
    ap.add_argument("--ranks", default="1,2,4")
    ap.add_argument("--budget", default="50%")
    ap.add_argument("--repeat", type=int, default=5)
    ap.add_argument("--opt-level", type=int, default=2,
                    help="remat-run's JIT optimization level")
    ap.add_argument("--remat-run")
    ap.add_argument("--remat-opt")
    o = ap.parse_args(argv)
    o.remat_run = find_tool("remat-run", o.remat_run)
    o.remat_opt = find_tool("remat-opt", o.remat_opt)
    print("| ranks | predicted checkpoint-all (bytes/rank) | floor: live at "
          "the return | measured, no remat | time ms (rank 0) | budget (%s "
          "of checkpoint-all, or the smallest feasible) | measured, remat | "
          "time ms (rank 0) | remat bitwise |" % o.budget)
    print("|---|---|---|---|---|---|---|---|---|")
    with tempfile.TemporaryDirectory() as work:
        for ranks in [int(r) for r in o.ranks.split(",")]:
            print(row(o, work, ranks), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
