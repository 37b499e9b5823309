#!/usr/bin/python3
"""Language models: the checkpointing policies practitioners use, PyTorch's
min-cut partitioner and our solvers on the same joint training graph.

For GPT-2 small (124 M parameters, batch 4, sequence 1024) and a ~60 M
Llama-style model (batch 4, sequence 512), both written as users write them
(test/Importer/Inputs/gpt.py, llama.py), this

  * traces one training step (decomposed, as bench/models.py does) and
    writes its graph twice: costs in FLOPs, and costs as the roofline time
    on --device (docs/CostModel.md, "Time on a device");
  * evaluates four fixed policies with our simulator (saved values pinned
    `keep: always`, the rest of the forward `keep: never`, scheduled as
    bench/models.py schedules PyTorch's saved set):
      - no checkpointing (checkpoint-all);
      - full activation checkpointing per transformer block: each block's
        input kept, the block recomputed in the backward;
      - selective checkpointing: in each block the matmul outputs (mm, bmm,
        addmm) kept, everything else recomputed;
      - PyTorch's min_cut_rematerialization_partition;
  * runs our solvers at full checkpointing's peak (recompute there), at
    selective checkpointing's recompute (`--mode=min-peak`: peak there) and
    `--mode=min-budget` (smallest feasible budget against the physical
    lower bound);
  * prices the plan chosen under FLOPs in predicted time and the one chosen
    under predicted time in FLOPs (where the two cost models disagree);

and writes Markdown tables (docs/Benchmarks-models.md, "Language models").
Results are cached in --work (delete it to rerun); not a test.

  bench/lm.py [--models gpt2-small,llama-60m] [--work DIR] [--markdown FILE]
              [--solvers auto,...] [--device h100] [--time-limit S]
"""

import argparse
import collections
import json
import os
import re
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "bench"))
sys.path.insert(0, os.path.join(ROOT, "tools", "remat-report"))
sys.path.insert(0, os.path.join(ROOT, "tools", "remat-import-torch"))

import models  # noqa: E402  (after the path tweak)
import solve_runner  # noqa: E402
from models import cached, log  # noqa: E402

INPUTS = os.path.join(ROOT, "test", "Importer", "Inputs")
# name: (module, forward's inputs as remat-import-torch --input, about).
MODELS = {
    "gpt2-small": ("gpt.py:gpt2_small", ["idx=4x1024:i64:50257",
                                         "targets=4x1024:i64:50257"],
                   "GPT-2 small (12 layers, d=768, 124 M parameters), "
                   "batch 4, sequence 1024"),
    "llama-60m": ("llama.py:llama_60m", ["idx=4x512:i64:32000",
                                         "targets=4x512:i64:32000"],
                  "Llama-style (8 layers, d=512, SwiGLU, RMSNorm, rotary, "
                  "58 M parameters), batch 4, sequence 512"),
}
SOLVERS = ["auto", "min-cut", "hierarchical", "rotor", "dtr", "chen-greedy",
           "feng-huang"]
# A transformer block: the module path up to its first numbered part
# (`transformer.h.3`, `layers.3`).
BLOCK = re.compile(r"^(.*?\.\d+)(\.|$)")
# The matmuls selective checkpointing keeps, by their aten node names.
MATMUL = re.compile(r"^(mm|bmm|addmm)(_\d+)?$")
POLICIES = [("none", "no checkpointing"),
            ("full", "full activation checkpointing (per block)"),
            ("selective", "selective checkpointing (matmuls kept)"),
            ("min-cut", "PyTorch min-cut partitioner")]


def trace(name, device):
    """([FLOPs graph, time graph], min-cut's sets) of MODELS[name]."""
    import model_spec
    import roofline
    module, inputs, _ = MODELS[name]
    parser = argparse.ArgumentParser()
    model_spec.add_arguments(parser)
    argv = ["--module", os.path.join(INPUTS, module), "--name", name]
    for text in inputs:
        argv += ["--input", text]
    args = parser.parse_args(argv)
    model_spec.check_arguments(parser, args)
    spec = model_spec.ModelSpec.create(args)
    return models.trace_spec(spec, (None, roofline.load_devices()[device]))


def block_of(node):
    match = BLOCK.match(node["path"])
    return match.group(1) if match else None


def policy_saved(graph, selective):
    """Names of the forward values a practitioners' policy saves: every
    forward value outside the transformer blocks, each block's values used
    by the forward outside it (its output: the next block's input), and,
    for selective checkpointing, every matmul output."""
    users = collections.defaultdict(list)
    for node in graph["nodes"]:
        for dep in node["deps"]:
            users[dep].append(node)
    saved = []
    for node in graph["nodes"]:
        if node["kind"] != "forward":
            continue
        block = block_of(node)
        if block is None or (selective and MATMUL.match(node["name"])) or \
                any(u["kind"] == "forward" and block_of(u) != block
                    for u in users[node["id"]]):
            saved.append(node["name"])
    return saved


def schedule_policy(args, stem, graph_path, graph, policy, sets):
    """The stats of `policy` scheduled by our simulator on `graph`."""
    if policy == "none":
        result, _ = solve_runner.solve(args.remat_solve, graph_path,
                                       "checkpoint-all", "--budget=100%")
        return result["stats"]
    if policy != "min-cut":
        sets = {"saved": policy_saved(graph, policy == "selective"),
                "merged": {}}
    pinned_path = "%s.%s.json" % (stem, policy)
    with open(pinned_path, "w") as f:
        json.dump(models.pin_saved_set(graph, sets), f)
    result, _ = solve_runner.solve(args.remat_solve, pinned_path,
                                   models.SAVED_SET_SCHEDULER,
                                   "--budget=100%")
    if not solve_runner.solved(result):
        sys.exit("lm.py: %s: policy %s has no schedule: %s" % (
            stem, policy, result.get("status")))
    return result["stats"]


def price(graph, result):
    """The cost of `result`'s schedule under `graph`'s costs (None when it
    has no schedule)."""
    if not solve_runner.solved(result):
        return None
    costs = [n["cost"] for n in graph["nodes"]]
    return sum(costs[s["node"]] for s in result["steps"]
               if s["op"] == "compute")


def run_solver(args, stem, graph_path, solver, policies):
    """Our `solver` at full checkpointing's peak, at selective
    checkpointing's recompute and at its smallest budget."""
    all_cost = policies["none"]["cost"]
    overhead = policies["selective"]["cost"] / all_cost - 1
    asks = {"at_full": ["--budget=%d" % policies["full"]["peak_bytes"]],
            "at_selective": ["--mode=min-peak", "--overhead=%r" % overhead],
            "min_budget": ["--mode=min-budget"]}
    out = {}
    for key, options in asks.items():
        def ask(options=options):
            result, seconds = solve_runner.solve(
                args.remat_solve, graph_path, solver, *options,
                "--time-limit=%g" % args.time_limit)
            result["wall_seconds"] = seconds
            return result
        out[key] = cached("%s.%s.%s.json" % (stem, solver, key), ask)
    log("%s: %s done" % (os.path.basename(stem), solver))
    return out


def run_model(args, name):
    """Everything measured for one model, per cost unit."""
    stem = os.path.join(args.work, name)
    paths = {"flops": stem + ".flops.json", "time": stem + "." + args.device
             + ".json"}
    if not all(os.path.exists(p) for p in paths.values()) or \
            not os.path.exists(stem + ".saved.json"):
        start = time.monotonic()
        graphs, sets = trace(name, args.device)
        for path, value in zip(list(paths.values()) + [stem + ".saved.json"],
                               graphs + [sets]):
            with open(path, "w") as f:
                json.dump(value, f)
        log("%s: traced %d nodes in %.0f s" % (
            name, len(graphs[0]["nodes"]), time.monotonic() - start))
    graphs = {}
    for unit, path in paths.items():
        with open(path) as f:
            graphs[unit] = json.load(f)
    with open(stem + ".saved.json") as f:
        sets = json.load(f)
    row = {"model": name, "nodes": len(graphs["flops"]["nodes"]),
           "policies": {}, "solvers": {}}
    for unit, path in paths.items():
        row["policies"][unit] = {
            p: cached("%s.%s.policy-%s.result.json" % (stem, unit, p),
                      lambda p=p: schedule_policy(args, stem + "." + unit,
                                                  path, graphs[unit], p,
                                                  sets))
            for p, _ in POLICIES}
        solvers = args.solvers if unit == "flops" else ["auto"]
        row["solvers"][unit] = {
            s: run_solver(args, stem + "." + unit, path, s,
                          row["policies"][unit]) for s in solvers}
    # Each auto plan at full checkpointing's peak priced in the other unit.
    row["cross"] = {unit: price(graphs[other],
                                row["solvers"][unit]["auto"]["at_full"])
                    for unit, other in (("flops", "time"), ("time", "flops"))}
    return row


def pct(cost, base):
    return "-" if cost is None else "%.1f %%" % (100.0 * (cost / base - 1))


def stats(result):
    return result["stats"] if solve_runner.solved(result) else None


def policy_table(row, device):
    """Each policy's peak and recompute, in FLOPs and in predicted time."""
    flops, times = row["policies"]["flops"], row["policies"]["time"]
    lines = ["| plan | peak (MiB) | recompute (FLOPs) | recompute (%s time) |"
             % device, "|---|---:|---:|---:|"]
    for key, label in POLICIES:
        lines.append("| %s | %s | %s | %s |" % (
            label, solve_runner.mib(flops[key]["peak_bytes"]),
            pct(flops[key]["cost"], flops["none"]["cost"]),
            pct(times[key]["cost"], times["none"]["cost"])))
    return "\n".join(lines)


def solver_table(row, device):
    """Our solvers at the two policies' operating points and at their
    smallest budget (FLOPs), and auto minimizing predicted time."""
    policies = row["policies"]["flops"]
    full, sel = policies["full"], policies["selective"]
    base = policies["none"]["cost"]
    lines = ["| solver | recompute at full checkpointing's peak (%s MiB) "
             "| peak at selective's recompute (%s) | smallest feasible "
             "budget (MiB) | / physical bound | slowest solve (s) |" % (
                 solve_runner.mib(full["peak_bytes"]),
                 pct(sel["cost"], base)),
             "|---|---:|---:|---:|---:|---:|"]
    rows = [(s, r, row["policies"]["flops"])
            for s, r in row["solvers"]["flops"].items()]
    rows += [("auto, minimizing %s time (recompute in time, at selective's "
              "%s)" % (device, pct(row["policies"]["time"]["selective"]["cost"],
                                   row["policies"]["time"]["none"]["cost"])),
              row["solvers"]["time"]
              ["auto"], row["policies"]["time"])]
    for label, result, unit_policies in rows:
        at_full, at_sel = stats(result["at_full"]), stats(result["at_selective"])
        least = stats(result["min_budget"])
        bound = result["min_budget"]["stats"].get("budget_lower_bound")
        lines.append("| %s | %s | %s | %s | %s | %.1f |" % (
            label,
            pct(at_full["cost"], unit_policies["none"]["cost"])
            if at_full else "infeasible",
            solve_runner.mib(at_sel["peak_bytes"]) if at_sel else "-",
            solve_runner.mib(least["smallest_budget"]) if least else "-",
            "%.2f" % (least["smallest_budget"] / bound)
            if least and bound else "-",
            max(r["stats"].get("solve_seconds", 0) for r in result.values())))
    for unit, label in (("flops", ""), ("time", " (%s time)" % device)):
        lines.append("| proven%s: no schedule does better (docs/Solvers.md, "
                     "\"Lower bounds\") | %s | %s | | | |" % (
                         label,
                         pct(proven(row["solvers"][unit], "at_full"),
                             row["policies"][unit]["none"]["cost"]),
                         mib_or_dash(proven(row["solvers"][unit],
                                            "at_selective"))))
    lines.append("| physical lower bound on the peak | | | %s | 1.00 | |" %
                 solve_runner.mib(max(
                     r["min_budget"]["stats"].get("budget_lower_bound", 0)
                     for r in row["solvers"]["flops"].values())))
    return "\n".join(lines)


def proven(results, key):
    """The largest proven lower bound on the objective of the `key` runs
    (at_full: the cost; at_selective: the peak) among `results` (solver ->
    its runs), or None."""
    bounds = [r[key]["stats"].get("lower_bound")
              for r in results.values() if "stats" in r[key]]
    bounds = [b for b in bounds if b is not None]
    return max(bounds) if bounds else None


def mib_or_dash(value):
    return "-" if value is None else solve_runner.mib(value)


def cost_model_table(row, device):
    """auto's plans at full checkpointing's peak under either cost, priced
    in both."""
    base = {u: row["policies"][u]["none"]["cost"] for u in ("flops", "time")}
    lines = ["| auto's plan at full checkpointing's peak | recompute "
             "(FLOPs) | recompute (%s time) |" % device, "|---|---:|---:|"]
    for unit, label in (("flops", "minimizing FLOPs"),
                        ("time", "minimizing %s time" % device)):
        own = stats(row["solvers"][unit]["auto"]["at_full"])
        other = row["cross"][unit]
        costs = {unit: own["cost"] if own else None,
                 ("time" if unit == "flops" else "flops"): other}
        lines.append("| %s | %s | %s |" % (
            label, pct(costs["flops"], base["flops"]),
            pct(costs["time"], base["time"])))
    lines.append("| no schedule within that peak recomputes less | %s | %s |"
                 % tuple(pct(proven(row["solvers"][u], "at_full"), base[u])
                         for u in ("flops", "time")))
    return "\n".join(lines)


def render(args, rows):
    parts = []
    for row in rows:
        parts += ["### %s\n" % row["model"],
                  "%s; %d nodes.\n" % (MODELS[row["model"]][2], row["nodes"]),
                  policy_table(row, args.device), "",
                  solver_table(row, args.device), "",
                  cost_model_table(row, args.device), ""]
    return "\n".join(parts) + "\n"


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--models", default=",".join(MODELS))
    parser.add_argument("--solvers", default=",".join(SOLVERS))
    parser.add_argument("--device", default="h100")
    models.add_run_arguments(parser, 10.0, "bench-lm")
    args = parser.parse_args()
    args.solvers = args.solvers.split(",")
    if "auto" not in args.solvers:
        sys.exit("lm.py: --solvers must include auto (the cost-model "
                 "comparison uses it)")
    if not args.remat_solve:
        sys.exit("lm.py: no remat-solve (build it, or --remat-solve)")
    os.makedirs(args.work, exist_ok=True)
    start = time.monotonic()
    rows = [run_model(args, m) for m in args.models.split(",")]
    text = render(args, rows)
    models.write_markdown(args, text)
    log("done in %.0f s" % (time.monotonic() - start))


if __name__ == "__main__":
    main()
