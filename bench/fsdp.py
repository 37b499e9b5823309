#!/usr/bin/env python3
# ===- fsdp.py - data parallel vs FSDP keep / re-gather / planned ----------=== #
#
# Part of the remat-opt project.
#
# ===-----------------------------------------------------------------------=== #
"""Fully sharded data parallelism: fixed gather policies against the plan.

For each model (a GPT-2-style language model, a small CNN with batch norm
and a small ResNet of torchvision's BasicBlocks, imported by
remat-import-torch with an SGD step) and each number of
ranks N (default 1, 2, 4), at a fixed global batch:

  data parallel   remat-import-torch --shard N (at 1 rank the
                  single-process step), planned per rank;
  FSDP keep       --shard N --fsdp, remat-pipeline{gather-policy=keep}:
                  every gathered parameter kept to its last use;
  FSDP re-gather  gather-policy=regather, the default solver: every
                  gathered parameter the backward reads gathered again;
  FSDP plan       gather-policy=plan, the default solver: ours.

Each row is planned twice with remat-opt: at `budget=min` (the smallest
per-rank budget the policy reaches) and at the budget used, by default the
larger of the keep and re-gather policies' smallest budgets at that N (so
every FSDP policy fits it; a row whose own smallest budget is larger is
planned at that one). The plan at the budget used runs under
`mpirun -np N remat-run`, and Inputs/check_data_parallel.py of
test/Distributed checks it: bitwise equal to the unplanned step per rank,
within its budget, and equal to the single-process step within
1e-6 + 1e-5 |ref| (the shards of an FSDP step concatenated).

Columns: the largest over the ranks of the measured peak plus inputs
(remat-run --json); the predicted step time, the planner's cost of the plan
(remat.plan's `cost`) on `--device` (default h100: picoseconds, shown in
microseconds; none: FLOP-equivalents at 10 FLOP/ps) with the collectives
costed on the `link=nvlink` preset; the bytes each rank sends per step
under the ring algorithm the cost model assumes, counted from the shard
collectives of the planned IR, re-gathers included: (N - 1) chunks per
all-gather and reduce-scatter, 2 (N - 1) / N of the operand per
all-reduce. A second table breaks the unplanned steps' measured peak down
into the parameters per rank, the data slice, the results and the rest.

Prints Markdown (docs/Distributed.md, "FSDP benchmark"). Runs outside CI:

  nice python3 bench/fsdp.py [--models gpt,cnn,resnet] [--ranks 1,2,4]
      [--policies 0,1,2,3] [--optimizer sgd|momentum|adamw] [--lr 0.05]
      [--device h100] [--budget baselines] [--opt-level 0] [--timeout 600] [--build build]

With --optimizer adamw the FSDP steps and their single-process reference
run the copy of the step that check-numerics --no-run writes (AdamW's
exp_avg_sq read through |x|: remat-run's inputs are negative half the
time).
"""

import argparse
import json
import os
import re
import subprocess
import sys
import tempfile

from distributed import ROOT, run_bounded, run_ranks

INPUTS = os.path.join(ROOT, "test", "Importer", "Inputs")
CHECK = os.path.join(ROOT, "test", "Distributed", "Inputs",
                     "check_data_parallel.py")
NUMERICS = os.path.join(ROOT, "tools", "remat-import-torch",
                        "check-numerics.py")
GPT_ARGS = {"n_layer": 2, "n_embd": 64, "n_head": 2, "block_size": 32,
            "vocab_size": 128, "dropout": 0.0}
MODELS = {
    "gpt": ["--module", os.path.join(INPUTS, "gpt.py") + ":GPTLoss",
            "--module-args", json.dumps(GPT_ARGS),
            "--input", "idx=4x32:i64:128", "--input", "targets=4x32:i64:128"],
    "cnn": ["--module", os.path.join(INPUTS, "tiny_cnn.py") + ":TinyCNN",
            "--input-shape", "8x3x16x16"],
    "resnet": ["--module", os.path.join(INPUTS, "tiny_cnn.py") + ":TinyResNet",
               "--input-shape", "8x3x16x16"],
}
# Row label -> (FSDP step?, remat-pipeline options of the row).
POLICIES = [
    ("data parallel", False, ""),
    ("FSDP keep", True, "gather-policy=keep"),
    ("FSDP re-gather", True, "gather-policy=regather"),
    ("FSDP plan (ours)", True, "gather-policy=plan"),
]
LOWER = "builtin.module(remat-lower-to-cpu)"
PLAN_RE = re.compile(r"remat\.plan = #remat\.plan<([^>]*)>")
COLLECTIVE_RE = re.compile(r"shard\.(all_gather|reduce_scatter|all_reduce) "
                           r".*: (tensor<[^>]*>) -> (tensor<[^>]*>)")
GRID_RE = re.compile(r"shard\.grid @\w+\(shape = (\d+)\)")
ELEMENT_BYTES = {"f64": 8, "i64": 8, "f32": 4, "i32": 4, "bf16": 2, "f16": 2,
                 "i1": 1}


class Failed(Exception):
    """A step of a row that did not finish; the cell shows the message
    (its first 120 characters; `full` keeps all of it)."""

    def __init__(self, full):
        super().__init__(full[:120])
        self.full = full


def bounded(o, cmd):
    """run_bounded under --timeout; a timeout or a failure is Failed."""
    try:
        result = run_bounded(cmd, o.timeout)
    except subprocess.TimeoutExpired:
        raise Failed("timeout (%d s)" % o.timeout)
    if result.returncode != 0:
        lines = (result.stderr or result.stdout).strip().splitlines()
        errors = [line for line in lines if "error" in line] or lines
        message = re.sub(r"^\S+:\d+:\d+: ", "", errors[0]) if errors else \
            "exit %d" % result.returncode
        raise Failed(message)
    return result


def tensor_bytes(type_):
    """The bytes of `tensor<AxBxT>`."""
    *dims, element = type_[len("tensor<"):-1].split("x")
    count = 1
    for dim in dims:
        count *= int(dim)
    return count * ELEMENT_BYTES[element]


def communication(mlir):
    """(bytes each rank sends per step on a ring, parameter gathers) of the
    shard collectives in `mlir`."""
    grid = GRID_RE.search(mlir)
    ranks = int(grid.group(1)) if grid else 1
    sent, gathers = 0, 0
    for kind, operand, result in COLLECTIVE_RE.findall(mlir):
        if kind == "all_gather":
            gathers += 1
            sent += (ranks - 1) * tensor_bytes(operand)
        elif kind == "reduce_scatter":
            sent += (ranks - 1) * tensor_bytes(result)
        else:
            sent += 2 * (ranks - 1) * tensor_bytes(operand) // ranks
    return sent, gathers


def signature_bytes(mlir):
    """(parameters and buffers, data, results) bytes of the step's
    signature: the arguments without and with `remat.data`, the results."""
    start = mlir.index("func.func @")
    arrow = re.compile(r"\)\s*->\s*\(").search(mlir, start)
    params = data = 0
    for type_, attrs in re.findall(r"%\w+: (tensor<[^>]*>)( \{[^}]*\})?",
                                   mlir[start:arrow.start()]):
        if "remat.data" in attrs:
            data += tensor_bytes(type_)
        else:
            params += tensor_bytes(type_)
    results = mlir[arrow.end():mlir.index(") {", arrow.end())]
    return params, data, sum(tensor_bytes(t) for t in
                             re.findall(r"tensor<[^>]*>", results))


def import_step(o, work, model, ranks, fsdp):
    """The step of `model` on `ranks` ranks (0: the single-process step),
    with the optimizer step for FSDP (`--shard` alone takes none: its
    results are the all-reduced gradients)."""
    name = "%s_%s%d.mlir" % (model, "fsdp" if fsdp else "dp", ranks)
    path = os.path.join(work, name)
    cmd = [o.import_torch] + MODELS[model]
    if fsdp:
        cmd += ["--optimizer", o.optimizer, "--lr", str(o.lr)]
    if ranks:
        cmd += ["--shard", str(ranks)] + (["--fsdp"] if fsdp else [])
    bounded(o, cmd + ["--emit-mlir", path])
    if not fsdp or o.optimizer != "adamw":
        return path
    # remat-run's inputs are negative half the time, AdamW's exp_avg_sq
    # never is: run the copy of the step that reads it through |x|.
    run_input = path.replace(".mlir", ".run.mlir")
    bounded(o, ["/usr/bin/python3", NUMERICS] + MODELS[model] +
            ["--optimizer", o.optimizer, "--lr", str(o.lr), "--mlir", path,
             "--save-run-input", run_input, "--no-run"])
    return run_input


def single_steps(o, work, model):
    """fsdp -> (the single-process step, its remat-run --json report file):
    with the optimizer step (the FSDP rows' reference) and without (the
    data-parallel rows')."""
    single = {}
    for fsdp in sorted({fsdp for _, fsdp, _ in policies(o)}):
        step = import_step(o, work, model, 0, fsdp)
        report = os.path.join(work, "single%d.json" % fsdp)
        with open(report, "w") as f:
            f.write(bounded(o, [o.remat_run, step, "--json",
                                "--print-results", "--pipeline=" +
                                LOWER]).stdout)
        single[fsdp] = (step, report)
    return single


def plan(o, step, options, budget, out):
    """remat.plan's fields (budget, cost, ...) of STEP planned with
    `options` at `budget`, written to `out`."""
    pipeline = " ".join(x for x in (options, "device=" + o.device,
                                    "budget=%s" % budget) if x)
    bounded(o, [o.remat_opt, step, "--remat-pipeline=" + pipeline, "-o", out])
    with open(out) as f:
        fields = PLAN_RE.search(f.read()).group(1)
    return {k: int(v) for k, v in re.findall(r"(\w+) = (\d+)", fields)}


def microseconds(o, cost):
    """The planner's cost in microseconds: picoseconds on a device,
    FLOP-equivalents at 10 FLOP/ps without."""
    return cost / (1e6 if o.device != "none" else 1e7)


def time_cell(o, fields):
    return "%.3g (+%.0f %%)" % (
        microseconds(o, fields["cost"]),
        100.0 * (fields["cost"] - fields["baseline_cost"]) /
        fields["baseline_cost"])


def check(o, single, plain, remat, planned, sharded, work):
    """check_data_parallel.py's verdict on a planned run, in a few words."""
    paths = []
    for i, reports in enumerate((plain, remat)):
        paths.append(os.path.join(work, "ranks%d.json" % i))
        with open(paths[-1], "w") as f:
            json.dump({"per_rank": reports}, f)
    result = run_bounded([sys.executable, CHECK] +
                         (["--sharded"] if sharded else []) +
                         [single] + paths + [planned])
    if result.returncode != 0:
        return result.stdout.strip().splitlines()[-1]
    worst = re.search(r"largest difference (\S+)\)", result.stdout)
    return "yes, max diff %s" % worst.group(1)


def planned_row(o, work, step, options, budget_used, minimum):
    """The cells of one row past the policy: plan at the budget used (the
    min plan when they coincide; without a min plan, at the budget used),
    run it, check it."""
    low = minimum["plan"]["budget"] if minimum else budget_used
    budget = max(budget_used, low)
    if minimum and budget == low:
        at, planned = minimum["plan"], minimum["file"]
    else:
        planned = os.path.join(work, "at.mlir")
        at = plan(o, step["path"], options, budget, planned)
    with open(planned) as f:
        sent, gathers = communication(f.read())
    remat = run_ranks(o, planned, step["ranks"], LOWER, ["--print-results"],
                      o.timeout)
    used = max(r["peak_bytes"] + r["input_bytes"] for r in remat)
    verdict = check(o, o.single[step["fsdp"]][1], step["plain"], remat,
                    planned, step["fsdp"], work)
    return ["%d%s" % (at["budget"], "" if budget == budget_used else
                      " (its min)"), str(used), time_cell(o, at),
            "%d (%d)" % (sent, gathers), verdict]


ARENA_OVER_RE = re.compile(r"error: the arena of (\d+) bytes")


def min_plan(o, work, step, label, options):
    """The row's plan at budget=min: fields and file. When the arena of
    that plan exceeds the budget the search found (the verifier's arena is
    a few bytes over), the plan at that arena instead (up to 3 tries),
    marked `arena`."""
    out = os.path.join(work, "min-%s.mlir" % label.split()[-1].strip("()"))
    budget, tries = "min", 0
    while True:
        try:
            fields = plan(o, step["path"], options, budget, out)
            break
        except Failed as error:
            over = ARENA_OVER_RE.search(error.full)
            tries += 1
            if not over or tries == 4:
                raise
            budget = over.group(1)
    with open(out) as f:
        sent, gathers = communication(f.read())
    return {"plan": fields, "file": out, "sent": sent, "gathers": gathers,
            "marked": budget != "min"}


def steps_of(o, work, model, ranks):
    """The data-parallel and FSDP steps at `ranks`, run unplanned."""
    steps = {}
    for fsdp in sorted({fsdp for _, fsdp, _ in policies(o)}):
        path = (o.single[fsdp][0] if ranks == 1 and not fsdp else
                import_step(o, work, model, ranks, fsdp))
        plain = run_ranks(o, path, ranks, LOWER, ["--print-results"],
                          o.timeout)
        steps[fsdp] = {"path": path, "ranks": ranks, "fsdp": fsdp,
                       "plain": plain}
    return steps


def policies(o):
    """The rows of POLICIES that --policies names (by index)."""
    return [POLICIES[int(i)] for i in o.policies.split(",")]


def budget_used(o, minimums):
    """The per-rank budget every row is planned at (or its own min)."""
    if o.budget != "baselines":
        return int(o.budget)
    fixed = [minimums[label]["plan"]["budget"] for label, fsdp, _ in POLICIES
             if fsdp and "plan" not in label and label in minimums]
    return max(fixed or [m["plan"]["budget"] for m in minimums.values()])


def rows(o, work, model, ranks):
    """The Markdown rows of `model` at `ranks`, and its breakdown rows."""
    try:
        steps = steps_of(o, work, model, ranks)
    except (Failed, subprocess.CalledProcessError) as error:
        return ["| %s | %d | %s |" % (model, ranks, str(error)[:100])], []
    minimums, low = {}, {}
    for label, fsdp, options in policies(o):
        try:
            minimums[label] = min_plan(o, work, steps[fsdp], label, options)
            low[label] = ["%d%s" % (minimums[label]["plan"]["budget"],
                                    " (arena)" if minimums[label]["marked"]
                                    else ""),
                          time_cell(o, minimums[label]["plan"]),
                          "%d (%d)" % (minimums[label]["sent"],
                                       minimums[label]["gathers"])]
        except Failed as error:
            low[label] = ["budget=min: %s" % error, "", ""]
    if not minimums:
        return ["| %s | %d | no plan |" % (model, ranks)], []
    budget = budget_used(o, minimums)
    out = []
    for label, fsdp, options in policies(o):
        try:
            cells = planned_row(o, work, steps[fsdp], options, budget,
                                minimums.get(label))
        except (Failed, subprocess.CalledProcessError) as error:
            cells = ["", "", "", "", str(error)[:100]]
        out.append("| %s | %d | %s | %s | %s | %s | %s | %s | %s | %s | %s |"
                   % tuple([model, ranks, label] + cells[:4] + low[label] +
                           cells[4:]))
    return out, breakdown(model, ranks, steps)


def breakdown(model, ranks, steps):
    """Rows of the per-rank memory breakdown of the unplanned steps."""
    out = []
    for fsdp, step in sorted(steps.items()):
        with open(step["path"]) as f:
            params, data, results = signature_bytes(f.read())
        used = max(r["peak_bytes"] + r["input_bytes"] for r in step["plain"])
        out.append("| %s | %d | %s | %d | %d | %d | %d | %d |" % (
            model, ranks, "FSDP" if fsdp else "data parallel", params, data,
            results, used, used - params - data - results))
    return out


HEADER = (
    "| model | ranks | policy | budget used (B/rank) | measured peak + "
    "inputs (max over ranks) | predicted step µs (overhead) | sent/rank "
    "B (gathers) | smallest budget (`budget=min`) | predicted µs at min "
    "| sent/rank B at min (gathers) | bitwise = plain, = single process |\n"
    "|---|---|---|---|---|---|---|---|---|---|---|")
BREAKDOWN = (
    "| model | ranks | step | parameters, buffers, optimizer state "
    "(inputs) | data slice "
    "| results (loss, updated parameters or DP's gradients, buffers) "
    "| measured peak + inputs, unplanned | the rest: activations, "
    "gradients in flight, gathered copies |\n"
    "|---|---|---|---|---|---|---|---|")


def main(argv):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--models", default="gpt,cnn,resnet")
    ap.add_argument("--ranks", default="1,2,4")
    ap.add_argument("--policies", default="0,1,2,3",
                    help="rows: 0 data parallel, 1 FSDP keep, 2 FSDP "
                         "re-gather, 3 FSDP plan")
    ap.add_argument("--optimizer", default="sgd",
                    choices=["sgd", "momentum", "adamw"])
    ap.add_argument("--lr", type=float, default=0.05,
                    help="the optimizer's learning rate (FSDP steps; "
                         "--shard alone takes no optimizer)")
    ap.add_argument("--device", default="h100")
    ap.add_argument("--budget", default="baselines",
                    help="baselines (the larger of the keep and re-gather "
                         "policies' smallest budgets) or bytes per rank")
    ap.add_argument("--opt-level", type=int, default=0,
                    help="remat-run's JIT optimization level: the runs "
                         "measure memory, and LLVM's optimizations take "
                         "more than 10 minutes on a plan with thousands "
                         "of recomputed ops")
    ap.add_argument("--timeout", type=int, default=600,
                    help="seconds each import, plan or run may take")
    ap.add_argument("--build", default=os.environ.get(
        "REMAT_BUILD_DIR", os.path.join(ROOT, "build")))
    o = ap.parse_args(argv)
    o.repeat = 1
    tool = lambda name: os.path.join(o.build, "bin", name)
    o.remat_run, o.remat_opt = tool("remat-run"), tool("remat-opt")
    o.import_torch = tool("remat-import-torch")
    print(HEADER, flush=True)
    details = []
    with tempfile.TemporaryDirectory() as work:
        for model in o.models.split(","):
            o.single = single_steps(o, work, model)
            for ranks in [int(r) for r in o.ranks.split(",")]:
                table, more = rows(o, work, model, ranks)
                print("\n".join(table), flush=True)
                details += more
    print("\n" + BREAKDOWN + "\n" + "\n".join(details))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
